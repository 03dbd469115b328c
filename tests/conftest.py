"""Shared pytest configuration."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

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


ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def built_book() -> subprocess.CompletedProcess:
    """Build the book once per test session, exactly as `make book` does (strict, cached)."""
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    return subprocess.run(
        [str(jupyter_book), "build", str(ROOT), "-W", "-n", "--keep-going"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (make test), keep every test of the built book on one worker.

    The book build and the browser tests share session fixtures (the built book, the fixture
    books, the widget JavaScript in .cache): one worker builds them once, instead of two
    workers building the same folders at the same time.
    """
    for item in items:
        fixtures = getattr(item, "fixturenames", ())  # nbval's notebook cells have none
        if "built_book" in fixtures or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group("built-book"))
