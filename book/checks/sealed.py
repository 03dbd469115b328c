"""What a probe watches, kept where the answer cannot reach it: source that probes start with.

A probe hands the answer stand-ins (a mapping, ids, pre-tokens, heap entries) that count, or
note, what the answer does with them. Their state (the values they stand for, the counts) is
kept in a generator's frame, a *server*: the stand-in holds only its server and its place
there, and asks it for every use. While grading, the guard refuses any look at the frames of
the grader's code (``gi_frame``, ``tb_frame``, ``sys._getframe``), and a running generator's
locals are reachable no other way, so the answer can neither read the values past the count
nor reset the count: every message it sends a server itself is counted like any other. Only
the probe, holding ``secret`` (an object created in its own frame), gets a server's state
back. A server calls none of the answer's code with what it keeps: a key or a value from the
answer is compared only when it is plain data (``is_plain``); values are stored, never looked
into.

(In a check cell, in the learner's kernel without the guard, the frames are open: the check
cell's verdict is the learner's to trust; the grade is the judge's.)
"""

SEALED = '''
from collections.abc import MutableMapping

PLAIN = (int, bool, float, str, bytes, type(None))
ARITY = {"get": 1, "contains": 1, "set": 2, "del": 1, "iter": 0, "len": 0}


def is_plain(value):
    """True when value is made of builtin scalars and tuples only (its == runs no one's code)."""
    if type(value) is tuple:
        return all(is_plain(item) for item in value)
    return type(value) in PLAIN


def mapping_server(store, secret, costs, refusal="", budget=None, spent=""):
    """A mapping's items and the work done on them. costs: op -> work (for "iter", per item);
    an op without a cost is refused with TypeError(refusal); past budget, every op raises
    RuntimeError(spent). The probe's message (secret,) gets (store, work, operations): every
    op but len is an operation."""
    work = operations = 0
    reply = None
    while True:
        message = yield reply
        if type(message) is not tuple or not message:
            reply = ("error", TypeError("not a message"))
            continue
        op, args = message[0], message[1:]
        if op is secret:
            reply = (store, work, operations)
            continue
        if type(op) is not str or op not in costs:
            reply = ("error", TypeError(refusal or "not allowed while checking"))
            continue
        if len(args) != ARITY[op]:
            reply = ("error", TypeError(f"{op} takes {ARITY[op]} arguments"))
            continue
        if any(not is_plain(arg) for arg in args[:1]):
            reply = ("error", TypeError("keys must be plain values (ints, bytes, str, tuples)"))
            continue
        operations += op != "len"
        work += costs[op] * (len(store) if op == "iter" else 1)
        if budget is not None and work > budget:
            reply = ("error", RuntimeError(spent))
        elif op in ("get", "contains") and args[0] not in store:
            reply = ("ok", False) if op == "contains" else ("error", KeyError(args[0]))
        elif op in ("get", "contains"):
            reply = ("ok", True if op == "contains" else store[args[0]])
        elif op == "set":
            store[args[0]] = args[1]
            reply = ("ok", None)
        elif op == "del" and args[0] in store:
            del store[args[0]]
            reply = ("ok", None)
        elif op == "del":
            reply = ("error", KeyError(args[0]))
        elif op == "iter":
            reply = ("ok", list(store))
        else:
            reply = ("ok", len(store))


def values_server(values, secret, free=None):
    """Values stood for by Sealed objects: "read" i counts one use of value i and notes i.
    With free None, comparisons are free; otherwise only comparing one for equality with a
    value in free is, and any other comparison uses each of them. The probe's message
    (secret, None) gets (values, work, read)."""
    work, read = 0, set()
    reply = None
    while True:
        message = yield reply
        reply = NotImplemented
        if type(message) is not tuple or len(message) < 2:
            continue
        op, i, *rest = message
        if op is secret:
            reply = (values, work, read)
            continue
        if type(op) is not str or type(i) is not int or not 0 <= i < len(values):
            continue
        if op == "read":
            work += 1
            read.add(i)
            reply = values[i]
        elif op in ("same", "less") and len(rest) == 1 and type(rest[0]) is int:
            if 0 <= rest[0] < len(values):
                j = rest[0]
                if free is not None:
                    work += 2
                    read |= {i, j}
                reply = values[i] == values[j] if op == "same" else values[i] < values[j]
        elif op in ("equals", "below", "above") and len(rest) == 1 and is_plain(rest[0]):
            other = rest[0]
            if free is not None and (op != "equals" or other not in free):
                work += 1
                read.add(i)
            if op == "equals":
                reply = values[i] == other
            elif type(values[i]) is type(other):  # else NotImplemented, as between builtins
                reply = values[i] < other if op == "below" else values[i] > other


def started(server):
    """server, run to its first yield."""
    next(server)
    return server


class Sealed:
    """A value kept by a values_server: the object holds only the server and its place."""

    __slots__ = ("_server", "_index")

    def __init__(self, server, index):
        self._server, self._index = server, index

    def _value(self):
        return self._server.send(("read", self._index))

    def __eq__(self, other):
        if type(other) is type(self):
            return self._server.send(("same", self._index, other._index))
        return self._server.send(("equals", self._index, other))

    def __lt__(self, other):
        if type(other) is type(self):
            return self._server.send(("less", self._index, other._index))
        return self._server.send(("below", self._index, other))

    def __gt__(self, other):
        if type(other) is type(self):
            return other.__lt__(self)
        return self._server.send(("above", self._index, other))


class Watched(MutableMapping):
    """A mapping whose items a mapping_server keeps; key(k) makes a key plain first."""

    __slots__ = ("_server", "_key")

    def __init__(self, server, key=None):
        self._server, self._key = server, key

    def _ask(self, *message):
        outcome, value = self._server.send(message)
        if outcome == "error":
            raise value
        return value

    def _plain(self, key):
        return self._key(key) if self._key is not None else key

    def __getitem__(self, key):
        return self._ask("get", self._plain(key))

    def __contains__(self, key):
        return self._ask("contains", self._plain(key))

    def __setitem__(self, key, value):
        self._ask("set", self._plain(key), value)

    def __delitem__(self, key):
        self._ask("del", self._plain(key))

    def __iter__(self):
        return iter(self._ask("iter"))

    def __len__(self):
        return self._ask("len")

    def copy(self):
        return dict(self.items())

    def __repr__(self):
        return f"<watched {type(self).__name__}>"
'''
