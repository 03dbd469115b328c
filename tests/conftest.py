"""Shared pytest configuration."""

import os
import subprocess

import pytest
from hypothesis import HealthCheck, settings
from notebook_paths import ROOT, build_book

# Property tests must not flake on a loaded 2-core CI machine: no per-example deadline,
# a fixed number of examples, and derandomized runs so a failure reproduces.
settings.register_profile(
    "book",
    deadline=None,
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "200")),
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("book")


BUILT_BOOK_GROUP = "built-book"


@pytest.fixture(scope="session")
def built_book() -> subprocess.CompletedProcess:
    """The repository's book, built once per test session (strict, with the execution cache)."""
    return build_book(ROOT)


def shares_the_built_book(item: pytest.Item) -> bool:
    """Whether ``item`` uses the built book or a browser (and so the session's shared builds)."""
    fixtures = getattr(item, "fixturenames", ())  # nbval's notebook cells have none
    return "built_book" in fixtures or item.get_closest_marker("browser") is not None


def xdist_group_of(item: pytest.Item) -> str | None:
    """The group of tests that must share one worker, because they share a costly fixture.

    The built book (a build and the browser tests); each notebook the exercise system grades
    (``graded``, a minute of kernels for a chapter); the cheat catalogue (one class graded).
    A module-scoped fixture is made once per worker, so tests spread over two workers would
    make it twice.
    """
    if shares_the_built_book(item):
        return BUILT_BOOK_GROUP
    fixtures = getattr(item, "fixturenames", ())
    name = item.path.stem
    if name == "test_exercise_system" and "graded" in fixtures:
        return f"graded-{item.callspec.params['graded'].stem}"
    if name == "test_exercise_system" and "demo_graded" in fixtures:
        return "graded-demo"
    if name == "test_cheats" and "graded" in fixtures:
        return "cheats"
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (make test), keep the tests of each costly shared fixture on one worker.

    ``tryfirst`` matters: pytest-xdist turns ``xdist_group`` markers into the group it schedules
    by in its own hook of this name, so the marker must be there before that hook runs.
    """
    for item in items:
        group = xdist_group_of(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True)
def _stays_on_its_groups_worker(request: pytest.FixtureRequest) -> None:
    """Fail a test of a shared fixture that pytest-xdist would not schedule with the others.

    With ``--dist loadgroup`` each worker appends the group to the test's id
    (``test_x@built-book``) and the controller sends all ids of a group to one worker, so a
    missing suffix means this test could run beside another build of the same folders.
    """
    item = request.node
    group = xdist_group_of(item)
    if getattr(request.config.option, "loadgroup", False) and group:
        assert item.nodeid.endswith(f"@{group}"), (
            f"{item.nodeid} shares a costly fixture but is not in the xdist group "
            f"{group!r}: pytest-xdist may run it on another worker"
        )
