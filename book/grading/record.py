"""The shape every line from the kernel must have: nothing the kernel writes is believed unchecked.

The kernel is the learner's process, so a line the judge reads from it may hold anything. Each
line is parsed and matched against the declarative shape of its kind; what does not match is
not used, and :class:`Malformed` names what was wrong and where (a task then gets 0 with that
reason). A shape is built from a few parts (:class:`Text`, :class:`Flag`, :class:`Number`,
:class:`Wire`, :class:`ListOf`, :class:`MapOf`, :class:`Fields`, :class:`OneKey`,
:class:`ByKind`), so a new field (say, points per named group of cases) is one more entry in
a :class:`Fields`, and keys the judge does not know are ignored.

>>> parse_line(b'{"kind": "refused", "what": "reading /etc/passwd"}')
{'kind': 'refused', 'what': 'reading /etc/passwd'}
>>> parse_line(b'{"kind": "call", "id": 7}')
Traceback (most recent call last):
...
book.grading.record.Malformed: line.id: text expected, got int
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass, field
from typing import Any

from book.grading.harness import SharedHash, from_wire

MAX_LINE_BYTES = 4 * 1024 * 1024  # a call's record, result included: no line is read if longer


class Malformed(ValueError):
    """A line from the kernel without the shape the judge expects; the message says where."""


class Unread(Malformed):
    """A line the judge does not read, because reading it would cost too much; the message says
    why, to the learner, and kind names it in the report's error class."""

    kind = "unread"


class TooLarge(Unread):
    """A line longer than MAX_LINE_BYTES: dropped unread (decoding it could cost the judge far
    more memory and time than its bytes)."""

    kind = "too large"

    def __init__(self) -> None:
        super().__init__(
            f"its result is over {MAX_LINE_BYTES // 2**20} MB once encoded; the grader does not "
            "read a value that large"
        )


class SharedHashes(Unread):
    """A line whose value holds a set or dict of items that share one hash (harness.SharedHash)."""

    kind = "shared hash"


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


@dataclass(frozen=True)
class Text:
    """A str, cut to limit characters."""

    limit: int = 300

    def check(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise Malformed(f"{where}: text expected, got {_kind(value)}")
        return value[: self.limit]


@dataclass(frozen=True)
class Flag:
    """A bool."""

    def check(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise Malformed(f"{where}: true or false expected, got {_kind(value)}")
        return value


@dataclass(frozen=True)
class Number:
    """An int (not a bool)."""

    def check(self, value: Any, where: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise Malformed(f"{where}: a whole number expected, got {_kind(value)}")
        return value


@dataclass(frozen=True)
class Literal:
    """Exactly this str."""

    value: str

    def check(self, value: Any, where: str) -> str:
        if value != self.value:
            raise Malformed(f"{where}: {self.value!r} expected")
        return value


@dataclass(frozen=True)
class Wire:
    """A value in the harness's wire format, decoded (see ``book.grading.harness``)."""

    def check(self, value: Any, where: str) -> Any:
        try:
            return from_wire(value)
        except SharedHash as error:
            raise SharedHashes(f"its result holds {error}; the grader does not read it") from None
        except (ValueError, TypeError, RecursionError) as error:
            raise Malformed(f"{where}: not a value the harness writes ({error})") from None


@dataclass(frozen=True)
class ListOf:
    """A list of at most limit items, each of the shape item."""

    item: Any
    limit: int = 100

    def check(self, value: Any, where: str) -> list:
        if not isinstance(value, list):
            raise Malformed(f"{where}: a list expected, got {_kind(value)}")
        if len(value) > self.limit:
            raise Malformed(f"{where}: at most {self.limit} items expected, got {len(value)}")
        return [self.item.check(item, f"{where}[{k}]") for k, item in enumerate(value)]


@dataclass(frozen=True)
class MapOf:
    """A JSON object of at most limit entries whose values have the shape value."""

    value: Any
    limit: int = 100

    def check(self, data: Any, where: str) -> dict:
        if not isinstance(data, dict):
            raise Malformed(f"{where}: an object expected, got {_kind(data)}")
        if len(data) > self.limit:
            raise Malformed(f"{where}: at most {self.limit} entries expected, got {len(data)}")
        return {key: self.value.check(item, f"{where}.{key}") for key, item in data.items()}


@dataclass(frozen=True)
class Fields:
    """A JSON object with the required keys, maybe the optional ones; other keys are ignored."""

    required: dict[str, Any]
    optional: dict[str, Any] = field(default_factory=dict)

    def check(self, data: Any, where: str) -> dict:
        if not isinstance(data, dict):
            raise Malformed(f"{where}: an object expected, got {_kind(data)}")
        missing = [key for key in self.required if key not in data]
        if missing:
            raise Malformed(f"{where}: {', '.join(missing)} missing")
        shapes = {**self.required, **self.optional}
        return {
            key: shape.check(data[key], f"{where}.{key}")
            for key, shape in shapes.items()
            if key in data
        }


@dataclass(frozen=True)
class OneKey:
    """An object with exactly one of the keys of shapes, checked by that key's shape."""

    shapes: dict[str, Any]

    def check(self, data: Any, where: str) -> dict:
        keys = [key for key in self.shapes if isinstance(data, dict) and key in data]
        if len(keys) != 1:
            raise Malformed(f"{where}: an object with one of {', '.join(self.shapes)} expected")
        return self.shapes[keys[0]].check(data, where)


@dataclass(frozen=True)
class ByKind:
    """An object whose 'kind' says which shape it has."""

    shapes: dict[str, Any]

    def check(self, data: Any, where: str) -> dict:
        kind = data.get("kind") if isinstance(data, dict) else None
        if kind not in self.shapes:
            raise Malformed(f"{where}.kind: one of {', '.join(self.shapes)} expected")
        return self.shapes[kind].check(data, where)


ANSWER = Fields({"callable": Flag(), "type": Text(100), "repr": Text(100)})
RESULT = OneKey(
    {
        "ok": Fields({"ok": Wire()}),
        "raised": Fields({"raised": ListOf(Text(100), 60), "message": Text(300)}),
    }
)
CALL = Fields(
    {"kind": Literal("call"), "id": Text(64)},
    {
        "answers": MapOf(ANSWER, 20),
        "setup_error": Text(300),
        "printed": ListOf(Text(100), 5),
        "result": RESULT,
        "error": Text(300),
    },
)
NOTE = Text(300)
LINE = ByKind(
    {
        "hello": Fields({"kind": Literal("hello"), "pid": Number(), "key": Text(64)}),
        "refused": Fields({"kind": Literal("refused"), "what": NOTE}),
        "used": Fields({"kind": Literal("used"), "what": NOTE}),
        "call": CALL,
    }
)


def unsigned(line: bytes, key: bytes) -> bytes:
    """The JSON of a line the guard signed with key ('<hex HMAC-SHA256> <json>'); Malformed when
    the signature is missing or wrong: the notebook's code wrote the line itself.

    >>> key = bytes(32)
    >>> unsigned(hmac.digest(key, b"{}", "sha256").hex().encode() + b" {}", key)
    b'{}'
    """
    tag, _, data = line.partition(b" ")
    if not hmac.compare_digest(tag, hmac.digest(key, data, "sha256").hex().encode()):
        raise Malformed("line: not signed by the grader's guard (the notebook's code wrote it)")
    return data


def parse_line(line: bytes, shape: Any = LINE) -> dict:
    """A line from the kernel, parsed and checked against shape; Malformed otherwise."""
    if len(line) > MAX_LINE_BYTES:
        raise TooLarge()
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as error:
        raise Malformed(f"line: not JSON ({str(error)[:80]})") from None
    return shape.check(data, "line")
