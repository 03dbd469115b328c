"""The rendered book: a strict build (warnings are errors) with every page of the TOC."""

import re

import pytest
from notebook_paths import ROOT, toc_files

# Sphinx's own warnings and errors ("file.md:12: WARNING: ..."), not a kernel's log lines.
SPHINX_PROBLEM = re.compile(r"(^|: )(WARNING|ERROR|CRITICAL): ")


@pytest.mark.slow
def test_book_builds_without_warnings(built_book):
    log = built_book.stdout + built_book.stderr
    assert built_book.returncode == 0, log[-5000:]
    problems = [line for line in log.splitlines() if SPHINX_PROBLEM.search(line)]
    assert not problems, "\n".join(problems)
    assert "build succeeded" in log


@pytest.mark.slow
def test_every_toc_page_is_rendered(built_book):
    html = ROOT / "_build" / "html"
    assert (html / "index.html").exists()
    for page in toc_files():
        assert (html / f"{page}.html").exists(), f"{page}.html was not rendered"
