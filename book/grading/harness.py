"""One of the judge's calls, run in the learner's kernel by the guard's hook: its outcome as data.

For a call the judge sends (``spec``: the task's answers, data and setup, the call's expression
and arguments), the learner's answers are looked up in the notebook's namespace, the setup runs
on the data, the expression is evaluated on freshly decoded arguments, and the outcome becomes
plain data: the value returned, or the exception raised. The guard runs this inside its audit
hook, registers each namespace here as the grader's (``protect``) so that the learner's code
cannot reach their frames, and sends the outcome itself. Nothing here writes anywhere, and it
uses only the builtins and the helpers the guard captured before the learner's code ran.

The wire format, shared with the judge: JSON where lists, str, int, float, bool and None stand
for themselves and the other plain types are tagged: {"t": [...]} a tuple, {"b": base64} bytes,
{"d": [[key, value], ...]} a dict (in order, any keys), {"s": [...]} a set, {"f": [...]} a
frozenset, and {"x": type name, "r": repr} anything else, which equals nothing.

>>> value = {(1, 2): [b"ab", {3.0, None}], "k": (True,)}
>>> import json
>>> from_wire(json.loads(json.dumps(to_wire(value)))) == value
True
>>> to_wire(type("Liar", (int,), {})(3))
{'x': 'Liar', 'r': '3'}
"""

if __name__ != "grader":  # in the judge; in the kernel the guard provides these, captured early
    import sys
    from binascii import a2b_base64, b2a_base64
    from io import StringIO

MAX_DEPTH = 60
MAX_SHARED_HASH = 8  # items of one set (or keys of one dict) with one hash: more is refused
PASS_MARK = "\u2714"  # how a check's passing line starts


class SharedHash(ValueError):
    """A set or dict whose items share one hash too often to build it in linear time."""


class Opaque:
    """A value of a type the wire does not carry: shown by its repr, equal to nothing."""

    def __init__(self, type_name, text):
        self.type_name, self.text = type_name, text

    def __repr__(self):
        return self.text

    def __eq__(self, other):
        return False

    __hash__ = object.__hash__


def to_wire(value, depth=0):
    """value as JSON-ready data; exact builtin types only (a dict or list subclass is converted)."""
    if depth > MAX_DEPTH:
        raise ValueError("the value is nested too deeply (a cycle?)")
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if kind is bytes:
        return {"b": b2a_base64(value, newline=False).decode("ascii")}
    if kind is tuple:
        return {"t": [to_wire(item, depth + 1) for item in value]}
    if isinstance(value, list):
        return [to_wire(item, depth + 1) for item in list.__iter__(value)]
    if isinstance(value, dict):
        return {"d": [[to_wire(k, depth + 1), to_wire(v, depth + 1)] for k, v in dict.items(value)]}
    if kind in (set, frozenset):
        return {"s" if kind is set else "f": [to_wire(item, depth + 1) for item in value]}
    try:
        text = repr(value)
    except Exception:  # the learner's __repr__ may raise anything
        text = f"<{kind.__name__} object>"
    return {"x": kind.__name__, "r": str.__str__(text)[:200] if isinstance(text, str) else "?"}


def from_wire(data, depth=0):
    """The value to_wire encoded; ValueError for anything to_wire never makes."""
    if depth > MAX_DEPTH:
        raise ValueError("a value nested too deeply")
    if isinstance(data, list):
        return [from_wire(item, depth + 1) for item in data]
    if not isinstance(data, dict):
        return data
    if len(data) == 1 and "t" in data and isinstance(data["t"], list):
        return tuple(from_wire(item, depth + 1) for item in data["t"])
    if len(data) == 1 and "b" in data and isinstance(data["b"], str):
        return a2b_base64(data["b"].encode("ascii"))
    if len(data) == 1 and "d" in data and isinstance(data["d"], list):
        pairs = [pair for pair in data["d"] if isinstance(pair, list) and len(pair) == 2]
        if len(pairs) != len(data["d"]):
            raise ValueError("a dict whose items are not [key, value] pairs")
        keys = spread([from_wire(k, depth + 1) for k, _ in pairs])
        return dict(zip(keys, [from_wire(v, depth + 1) for _, v in pairs]))
    if len(data) == 1 and "s" in data and isinstance(data["s"], list):
        return set(spread([from_wire(item, depth + 1) for item in data["s"]]))
    if len(data) == 1 and "f" in data and isinstance(data["f"], list):
        return frozenset(spread([from_wire(item, depth + 1) for item in data["f"]]))
    if set(data) == {"x", "r"} and isinstance(data["x"], str) and isinstance(data["r"], str):
        return Opaque(data["x"], data["r"])
    raise ValueError(f"not a wire value: {sorted(map(str, data))[:5]}")


def spread(items):
    """items, to make a set or dict keys of; ValueError when more than MAX_SHARED_HASH share one
    hash, since building a set of n such items takes time in n squared (20,000 integers
    n * (2**61 - 1) take a minute), and a value the book computes never holds them.

    >>> len(spread([1, 2, 3])), len(spread([-1, -2]))  # hash(-1) == hash(-2)
    (3, 2)
    """
    seen = {}
    for item in items:
        shared = seen.get(hash(item), 0) + 1  # TypeError for an unhashable item, as set() gives
        if shared > MAX_SHARED_HASH:
            raise SharedHash(
                f"a set or dict with more than {MAX_SHARED_HASH} items or keys that share one "
                "hash (building it would take time in the square of its size)"
            )
        seen[hash(item)] = shared
    return items


def describe(value):
    """What the judge needs to know of an answer: callable or not, its type and a short repr."""
    try:
        text = str.__str__(repr(value))[:60]
    except Exception:
        text = "?"
    return {"callable": callable(value), "type": type(value).__name__, "repr": text}


def outcome(expr, scope, printed):
    """{"ok": wire value} or {"raised": [class names, most derived first], "message": text}.

    What the call prints is kept from the notebook; a line that looks like a check's verdict is
    added to printed, so the report can say the answer printed one.
    """
    quiet = StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = quiet
    try:
        return {"ok": to_wire(eval(expr, scope))}
    except BaseException as error:  # SystemExit and KeyboardInterrupt too: the judge says which
        classes = [cls.__name__ for cls in type(error).__mro__]
        try:
            message = str.__str__(str(error))[:200]
        except BaseException:
            message = ""
        return {"raised": classes, "message": message}
    finally:
        sys.stdout, sys.stderr = saved
        text = quiet.getvalue()
        if not printed and PASS_MARK in text:
            printed.append([line for line in text.splitlines() if PASS_MARK in line][0][:100])


def run_call(spec, user, protect):
    """The record of one call: the task's answers as found, and the call's outcome."""
    body = {"kind": "call", "id": spec["id"], "answers": {}, "setup_error": "", "printed": []}
    names = {"__name__": "grader", "__builtins__": __builtins__}
    protect(names)
    for name in spec["answers"]:
        if user.get(name) is not None:
            names[name] = user[name]
            body["answers"][name] = describe(user[name])
    if len(body["answers"]) < len(spec["answers"]):
        return body
    try:
        names.update(from_wire(spec["data"]))
        exec(compile(spec["setup"], "<grader>", "exec"), names)
    except Exception as error:
        body["setup_error"] = f"{type(error).__name__}: {error}"[:300]
        return body
    scope = dict(names)
    protect(scope)
    scope.update({f"a{i}": arg for i, arg in enumerate(from_wire(spec["args"]))})
    body["result"] = outcome(spec["expr"], scope, body["printed"])
    return body
