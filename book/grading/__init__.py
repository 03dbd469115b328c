"""The judge behind ``python -m book.grade``: a grade the learner's kernel cannot talk into being.

One module per idea:

- ``sandbox`` where the kernel runs (bubblewrap, limits) and ``launch`` the limits themselves;
- ``stubs`` the copy of the ``book`` package the kernel sees, with the reference stubbed out;
- ``guard`` (runs first in the kernel) the audit hook that refuses processes, network and files;
- ``harness`` (runs last in the kernel) calls the learner's functions and writes plain values;
- ``kernel`` runs the cells with time limits; ``judge`` grades one notebook;
- ``verdict`` compares values with the reference's; ``report`` writes tables, CSV and reports.

What a chapter's check module provides to the judge is described in ``book.checks.core``.
"""
