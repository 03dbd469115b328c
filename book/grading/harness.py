"""The code the judge runs in the learner's kernel after the learner's cells: calls, no verdicts.

Its text is sent as one cell per task (so it must use the standard library only: the book's
modules are stubs in the graded kernel). For each call of the task it evaluates the call's
expression on freshly decoded arguments and records either the plain value returned or the
exception raised, then writes the record as JSON to a file whose name the learner's code could
not know in advance. The judge compares the values with expected values it computed itself.

The wire format, shared with the judge: JSON where lists, str, int, float, bool and None stand
for themselves and the other plain types are tagged: {"t": [...]} a tuple, {"b": base64} bytes,
{"d": [[key, value], ...]} a dict (in order, any keys), {"s": [...]} a set, {"f": [...]} a
frozenset, and
{"x": type name, "r": repr} anything else, which equals nothing.

>>> value = {(1, 2): [b"ab", {3.0, None}], "k": (True,)}
>>> from_wire(json.loads(json.dumps(to_wire(value)))) == value
True
>>> to_wire(type("Liar", (int,), {})(3))
{'x': 'Liar', 'r': '3'}
"""

import base64
import contextlib
import io
import json
import os
import sys

MAX_DEPTH = 60
GRADING_LOG = "book._grading_stub"  # the stub support module; its LOG lists uses of blocked code


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
        return {"b": base64.b64encode(value).decode("ascii")}
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
    return {"x": kind.__name__, "r": text[:200]}


def from_wire(data):
    """The value to_wire encoded (an untagged dict is an error: the wire never makes one)."""
    if isinstance(data, list):
        return [from_wire(item) for item in data]
    if not isinstance(data, dict):
        return data
    if "t" in data:
        return tuple(from_wire(item) for item in data["t"])
    if "b" in data:
        return base64.b64decode(data["b"])
    if "d" in data:
        return {from_wire(k): from_wire(v) for k, v in data["d"]}
    if "s" in data:
        return {from_wire(item) for item in data["s"]}
    if "f" in data:
        return frozenset(from_wire(item) for item in data["f"])
    if "x" in data:
        return Opaque(str(data["x"]), str(data.get("r", "")))
    raise ValueError(f"not a wire value: {sorted(data)}")


def describe(value):
    """What the judge needs to know of an answer: callable or not, its type and a short repr."""
    try:
        text = repr(value)[:60]
    except Exception:
        text = "?"
    return {"callable": callable(value), "type": type(value).__name__, "repr": text}


def outcome(expr, names, printed):
    """{"ok": wire value} or {"raised": [class names, most derived first], "message": text}.

    What the call prints is kept from the notebook; a line that looks like a check's verdict is
    added to printed, so the report can say the answer printed one.
    """
    quiet = io.StringIO()
    try:
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            value = eval(expr, names)
        return {"ok": to_wire(value)}
    except KeyboardInterrupt:
        raise  # the judge's time limit: the cell must stop
    except BaseException as error:  # SystemExit too: a call must not end the grading
        classes = [cls.__name__ for cls in type(error).__mro__]
        try:
            message = str(error)[:200]
        except Exception:
            message = ""
        return {"raised": classes, "message": message}
    finally:
        text = quiet.getvalue()
        if not printed and "\u2714" in text:
            printed.append([line for line in text.splitlines() if "\u2714" in line][0][:100])


def blocked_uses():
    """What the learner's code tried to use of the blocked modules (recorded by their stubs)."""
    stub = sys.modules.get(GRADING_LOG)
    try:
        return [str(entry)[:200] for entry in list(stub.LOG)[:20]] if stub else []
    except Exception:
        return []


def run(user, spec_text, out_path):
    """Run one task's calls against the learner's namespace and write the record to out_path."""
    spec = json.loads(spec_text)
    record = {"task": spec["task"], "answers": {}, "results": [], "setup_error": "", "printed": []}
    names = {}
    for name in spec["answers"]:
        if name in user and user[name] is not None:
            names[name] = user[name]
            record["answers"][name] = describe(user[name])
    if len(names) == len(spec["answers"]):
        names.update(from_wire(spec["data"]))
        try:
            exec(spec["setup"], names)
        except Exception as error:
            record["setup_error"] = f"{type(error).__name__}: {error}"[:300]
        for expr, args in [] if record["setup_error"] else spec["calls"]:
            scope = dict(names)
            scope.update({f"a{i}": arg for i, arg in enumerate(from_wire(args))})
            result = outcome(expr, scope, record["printed"])
            record["results"].append(result)
            if result.get("raised", [""])[0] == "NotImplementedError":
                break  # not attempted yet: no need to call it again
    record["blocked"] = blocked_uses()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(out_path, flags, 0o600), "w", encoding="utf-8") as file:
        json.dump(record, file)
