# Two commands do all set-up on a fresh machine (Debian, Python 3.11, package registries only):
#   make book   build the rendered HTML book into _build/html
#   make test   run the whole test suite (after make lint)
# While working: make test-fast (under a minute), make lint.
# Both create .venv from the pinned requirements and provide tiktoken's encoding files and the
# real models' vocabularies offline.

PYTHON_BASE ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
DOWNLOADS := .cache/downloads

.PHONY: book test test-fast lint format-notebooks bench timings mutation setup setup-test encodings vocabularies exercises browser-deps clean

book: setup _build/.package-stamp
	$(PY) tools/build_book.py .
	$(PY) tools/notebook_timings.py
	@echo "Open _build/html/index.html"

# Each notebook's time in the last build, from its execution cache, then each solution run and
# timed now (README: "Time to run"; quiet machine only).
timings: setup
	$(PY) tools/notebook_timings.py
	$(PY) tools/notebook_timings.py --solutions

# The execution cache is keyed on each notebook's own code, so a change to the companion package
# (which the notebooks import) must clear it, or pages would keep outputs of the old package.
# Sphinx's environment (.doctrees) goes too: Sphinx re-reads, and so re-executes, only the
# notebooks whose files changed, and rewrites only their pages (book.site changes every page).
_build/.package-stamp: $(shell find book -name '*.py' -o -path 'book/data/*' -type f)
	rm -rf _build/.jupyter_cache _build/.doctrees
	mkdir -p _build && touch $@

# Two workers (pytest-xdist); the tests that share the built book stay on one of them.
test: setup-test _build/.package-stamp lint grader-deps
	$(PY) -m pytest -n 2 --dist loadgroup

# The inner loop: unit, property and doctests; no notebooks, no book build, no browser (< 1 min).
test-fast: $(VENV)/.dev-installed encodings vocabularies
	HYPOTHESIS_MAX_EXAMPLES=50 $(PY) -m pytest -q -n 2 -m "not slow and not browser"

# Notebook code is read in the rendered book's column, which holds 79 characters at 1280 px
# (book/site/static/book.css; tests/browser/test_pages_browser.py measures every page).
NOTEBOOK_WIDTH := 79
NOTEBOOKS = $(wildcard chapters/*.ipynb solutions/*.ipynb exercises/*.ipynb appendix/*.ipynb)

# Style (ruff) and the package's floors (import-linter's layers contract in pyproject.toml);
# notebook code formatted to the column, and no longer line (a string, a comment) left in it.
lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check book tests benchmarks tools
	$(VENV)/bin/ruff format --check book tests benchmarks tools
	$(VENV)/bin/ruff format --check --line-length $(NOTEBOOK_WIDTH) $(NOTEBOOKS)
	$(VENV)/bin/ruff check --select E501 --line-length $(NOTEBOOK_WIDTH) $(NOTEBOOKS)
	$(VENV)/bin/lint-imports

# Format the code of every chapter and solutions notebook to the column, and regenerate the
# exercises. Only code cells' sources change. First every statement is joined onto one line (ruff
# at a width nothing reaches, which also joins adjacent string literals), so each run starts from
# the same place: then a trailing comment that pushes its line past the column moves above it,
# and strings are split afresh where they cross it (tools/split_long_strings.py), then ruff.
format-notebooks: $(VENV)/.dev-installed
	$(VENV)/bin/ruff format --silent --line-length 1000 $(filter-out exercises/%,$(NOTEBOOKS))
	$(PY) tools/split_long_strings.py $(NOTEBOOK_WIDTH) $(filter-out exercises/%,$(NOTEBOOKS))
	$(VENV)/bin/ruff format --line-length $(NOTEBOOK_WIDTH) $(filter-out exercises/%,$(NOTEBOOKS))
	$(PY) -m book.exercises

setup: $(VENV)/.book-installed encodings vocabularies

setup-test: setup $(VENV)/.dev-installed browser-deps

$(VENV)/.book-installed: requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON_BASE) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-installed: requirements-dev.txt $(VENV)/.book-installed
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

# Verified against tiktoken's own SHA-256 hashes; a no-op (about a second) once in place.
encodings: $(VENV)/.book-installed
	$(PY) -m book.encodings --downloads $(DOWNLOADS)

# Real models' vocabularies (llama.cpp's ggml-vocab-*.gguf and their test vectors), from the
# pinned llama-cpp-python sdist, verified against the SHA-256 the book records; a no-op once
# in place.
vocabularies: $(VENV)/.book-installed
	$(PY) -m book.vocabularies --downloads $(DOWNLOADS)

# The browser test: Debian's Chromium, Playwright's Python driver, and local copies of the
# JavaScript the rendered book loads from a CDN (fetched from the npm registry).
browser-deps: $(VENV)/.dev-installed
	sh tools/ensure_chromium.sh
	$(PY) tools/fetch_widget_js.py

# The fast BPE trainer and encoder against tokenizers and tiktoken, as ratios from one process.
bench: setup
	$(PY) benchmarks/bench_bpe.py

# How adequate each task's cases are: mutants of its reference killed by fixed cases, by hidden
# ones, or equivalent (tools/mutation.py; an hour or more on one core). ARGS passes options, e.g.
# make mutation ARGS="--chapter 05 --jobs 2"; writes benchmarks/mutation.md and README's summary.
mutation: setup
	$(PY) tools/mutation.py $(ARGS)

# Regenerate exercises/ from solutions/ (the single source).
exercises: setup
	$(PY) -m book.exercises

clean:
	rm -rf _build .cache $(VENV)

# The grader's sandbox: Debian's bubblewrap (the grader says so, and grades less isolated, without it).
.PHONY: grader-deps
grader-deps:
	sh tools/ensure_bubblewrap.sh
