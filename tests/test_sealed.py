"""The probes' servers (book/checks/sealed.py): what they count, no message can take back.

How an answer in the graded kernel fails to reach a server's frame is tested where the guard
runs, in ``test_probe_bypasses.py``; here, the messages themselves.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from book.checks.sealed import SEALED

NAMES: dict = {}
exec(compile(SEALED, "<sealed>", "exec"), NAMES)
COSTS = {"get": 1, "contains": 1, "set": 1, "del": 1, "iter": 1, "len": 0}


class Spy:
    """A key or value that notes every call of its == (a server must not make any)."""

    seen: list = []

    def __eq__(self, other):
        Spy.seen.append(other)
        return False

    __hash__ = object.__hash__


SCALARS = st.one_of(st.integers(-3, 3), st.binary(max_size=2), st.text(max_size=2), st.none())
ARGS = st.one_of(SCALARS, st.tuples(SCALARS, SCALARS), st.builds(Spy))
OPS = st.one_of(st.sampled_from([*COSTS, "open", "read", "same", "equals", "below"]), ARGS)
MESSAGES = st.one_of(st.tuples(OPS), st.tuples(OPS, ARGS), st.tuples(OPS, ARGS, ARGS), ARGS)


def _server(store: dict, secret: object, **options):
    return NAMES["started"](NAMES["mapping_server"](store, secret, COSTS, **options))


@given(st.lists(MESSAGES, max_size=30))
def test_no_message_lowers_the_work_or_hands_out_the_store(messages):
    secret, store = object(), {(1, 2): 3, b"a": 1}
    server, work = _server(store, secret), 0
    Spy.seen = []
    for message in messages:
        reply = server.send(message)
        assert reply[1] is not store and type(reply) is tuple and len(reply) == 2
        now = server.send((secret,))[1]
        assert now >= work
        work = now
    assert Spy.seen == []  # the server compared nothing of its own with the answer's objects


def test_the_mapping_counts_by_the_costs_and_refuses_the_rest():
    secret = object()
    server = _server({"a": 1.0, "b": 2.0}, secret)
    mapping = NAMES["Watched"](server)
    assert mapping["a"] == 1.0 and "b" in mapping and "z" not in mapping
    assert sorted(mapping) == ["a", "b"] and len(mapping) == 2
    assert server.send((secret,))[1:] == (1 + 1 + 1 + 2, 4)  # len is free, no operation
    refusing = NAMES["Watched"](
        NAMES["started"](NAMES["mapping_server"]({}, secret, {"get": 0}, "no scanning"))
    )
    with pytest.raises(TypeError, match="no scanning"):
        list(refusing)


def test_past_the_budget_every_use_raises():
    server = _server({"a": 1.0}, object(), budget=2, spent="stopped")
    mapping = NAMES["Watched"](server)
    assert mapping["a"] == 1.0 and "a" in mapping
    for _ in range(2):  # the third look-up is over the budget, and so is every later one
        with pytest.raises(RuntimeError, match="stopped"):
            mapping.get("a")


def test_a_sealed_value_compares_for_free_only_with_the_free_values():
    secret, values = object(), [5, 7]
    server = NAMES["started"](NAMES["values_server"](values, secret, frozenset({5})))
    five, seven = NAMES["Sealed"](server, 0), NAMES["Sealed"](server, 1)
    assert five == 5 and seven != 5
    assert server.send((secret, None))[1:] == (0, set())
    assert not seven < 6  # 5 is free; 6, and a comparison by order, are not
    assert server.send((secret, None))[1:] == (1, {1})
    assert five != seven and five < seven  # nor one with another: it uses both
    assert server.send((secret, None))[1:] == (5, {0, 1})
    pieces = NAMES["started"](NAMES["values_server"]([(b"a",), (b"b",)], secret))
    a, b = NAMES["Sealed"](pieces, 0), NAMES["Sealed"](pieces, 1)
    assert a != b and a < b and a == (b"a",) and a < (b"b",)  # free None: all free
    assert pieces.send((secret, None))[1:] == (0, set())
    Spy.seen = []
    assert five != Spy() and Spy.seen == [five]  # the spy only ever sees the stand-in
