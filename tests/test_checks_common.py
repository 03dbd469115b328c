"""What every check of every chapter must do, found by discovery so a new check is covered too."""

import functools
import importlib
import inspect
import pkgutil

import pytest
from check_helpers import line

import book.checks

CHAPTER_MODULES = sorted(
    m.name for m in pkgutil.iter_modules(book.checks.__path__) if m.name.startswith("ch")
)
CHECKS = [
    (f"{name}.{fn_name}", fn)
    for name in CHAPTER_MODULES
    for fn_name, fn in inspect.getmembers(
        importlib.import_module(f"book.checks.{name}"), inspect.isfunction
    )
    if fn_name.startswith("check_") and fn.__module__ == f"book.checks.{name}"
] + [
    (f"{name}.{spec.name}", functools.partial(module.check, spec.name))
    for name in CHAPTER_MODULES
    for module in [importlib.import_module(f"book.checks.{name}")]
    for spec in getattr(module, "SPECS", ())
]


def unattempted(*args, **kwargs):
    """What a learner's function is before they write it."""
    raise NotImplementedError()


def test_every_chapter_has_checks():
    assert len(CHAPTER_MODULES) >= 8 and len(CHECKS) >= 4 * len(CHAPTER_MODULES)


@pytest.mark.parametrize("name, check", CHECKS, ids=[name for name, _ in CHECKS])
def test_undefined_answers_fail_with_one_line_that_says_so(capsys, name, check):
    n_answers = len(inspect.signature(check).parameters)
    out = line(capsys, check, *[None] * n_answers)
    assert out.startswith("✘") and "not defined yet" in out, out


@pytest.mark.parametrize("name, check", CHECKS, ids=[name for name, _ in CHECKS])
def test_unattempted_answers_fail_with_one_line(capsys, name, check):
    n_answers = len(inspect.signature(check).parameters)
    out = line(capsys, check, *[unattempted] * n_answers)
    assert out.startswith("✘") and "0/" in out, out
