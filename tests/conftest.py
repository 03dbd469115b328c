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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (make test), keep every test of the built book on one worker.

    The book build and the browser tests share session fixtures (the built book, the fixture
    books): one worker builds them once, instead of two workers building them at the same time.
    ``tryfirst`` matters: pytest-xdist turns ``xdist_group`` markers into the group it schedules
    by in its own hook of this name, so the marker must be there before that hook runs.
    """
    for item in items:
        if shares_the_built_book(item):
            item.add_marker(pytest.mark.xdist_group(BUILT_BOOK_GROUP))


@pytest.fixture(autouse=True)
def _stays_on_the_built_book_worker(request: pytest.FixtureRequest) -> None:
    """Fail a test of the built book that pytest-xdist would not schedule with the others.

    With ``--dist loadgroup`` each worker appends the group to the test's id
    (``test_x@built-book``) and the controller sends all ids of a group to one worker, so a
    missing suffix means this test could run beside another build of the same folders.
    """
    item = request.node
    if getattr(request.config.option, "loadgroup", False) and shares_the_built_book(item):
        assert item.nodeid.endswith(f"@{BUILT_BOOK_GROUP}"), (
            f"{item.nodeid} shares the built book but is not in the xdist group "
            f"{BUILT_BOOK_GROUP!r}: pytest-xdist may run it on another worker"
        )
