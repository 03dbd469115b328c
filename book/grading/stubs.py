"""The copy of the ``book`` package a graded kernel sees: the reference replaced by stubs.

The learner's notebook may import the book's data and display helpers, but not the code the
exercise asks them to write, the checks or the grader. Each blocked module of the copy is a
stub: importing it still works (so a package that merely names it still imports), but using
anything from it raises ``ReferenceUnavailable`` — "write this yourself; the reference is not
available while grading" — and is reported to the judge at once, through the guard's hook. The real
files are not in the copy, so there is nothing to read either.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

import book
from book.grading.guard import USED_EVENT

PACKAGE = Path(book.__file__).resolve().parent
ALWAYS_BLOCKED = ("book.checks", "book.grade", "book.grading", "book.exercises", "book.notebooks")

SUPPORT = '''"""Stub support: placeholders for code that is not available while grading."""

import importlib
import importlib.util
import sys
import types

MESSAGE = "write this yourself; the reference is not available while grading"


class ReferenceUnavailable(ImportError):
    """Raised when graded code uses the book's reference, checks or grader."""


def _refuse(name, action="using"):
    sys.audit(USED_EVENT, f"{action} {name}: refused (not available while grading)")
    raise ReferenceUnavailable(f"{name}: {MESSAGE}")


class _Placeholder(type):
    """The type of placeholders: a class may derive from one, nothing may call or read one."""

    def __call__(cls, *args, **kwargs):
        _refuse(cls._book_name)

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        _refuse(f"{cls._book_name}.{name}")

    def __setattr__(cls, name, value):
        _refuse(f"{cls._book_name}.{name}", "replacing")


def placeholder(full_name):
    """A stand-in for full_name that raises ReferenceUnavailable when used."""
    return _Placeholder(full_name.rsplit(".", 1)[-1], (), {"_book_name": full_name})


class StubModule(types.ModuleType):
    """A module whose every attribute is a placeholder and which cannot be patched."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        full = f"{self.__name__}.{name}"
        if hasattr(self, "__path__") and importlib.util.find_spec(full) is not None:
            return importlib.import_module(full)  # a submodule: itself a stub
        return placeholder(full)

    def __setattr__(self, name, value):
        if name.startswith("__") or isinstance(value, types.ModuleType):
            super().__setattr__(name, value)  # what the import system sets
        else:
            _refuse(f"{self.__name__}.{name}", "replacing")


def stub(module):
    """Turn a freshly imported module into a StubModule."""
    module.__class__ = StubModule
'''

STUB = '''"""{name}: not available while grading. Write this yourself."""

import sys

from book._grading_stub import stub

stub(sys.modules[__name__])
'''


def blocked_files(root: Path, blocked: Iterable[str]) -> list[tuple[str, Path]]:
    """(module name, file) of every module of the copy that one of the blocked names covers."""
    found = []
    for path in sorted((root / "book").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if any(name == b or name.startswith(b + ".") for b in blocked):
            found.append((name, path))
    return found


def restricted_copy(dest: Path, blocked: Iterable[str]) -> Path:
    """Copy the book package into dest/book with every blocked module (and package) stubbed.

    Returns dest, the folder to put on sys.path (or to mount over the package's own folder).
    """
    names = tuple(ALWAYS_BLOCKED) + tuple(blocked)
    for name in names:
        if not name.startswith("book."):
            raise ValueError(f"{name!r}: only modules of the book package can be blocked")
    shutil.copytree(PACKAGE, dest / "book", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name, path in blocked_files(dest, names):
        path.write_text(STUB.format(name=name), encoding="utf-8")
    support = f"{SUPPORT}\nUSED_EVENT = {USED_EVENT!r}  # the guard reports each use to the judge\n"
    (dest / "book" / "_grading_stub.py").write_text(support, encoding="utf-8")
    return dest
