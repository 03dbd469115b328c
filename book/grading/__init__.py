"""The judge behind ``python -m book.grade``: a grade the learner's kernel cannot talk into being.

One module per idea:

- ``workers`` grades a class, each notebook in a process of its own, ``--jobs`` at a time;
  ``submission`` tells which exercise a notebook is and who submitted it;
- ``sandbox`` what the kernel sees (an allow-list, in bubblewrap) and its environment;
  ``launch`` starts it with limits and nothing of the grader's environment;
- ``stubs`` the copy of the ``book`` package the kernel sees, with the reference stubbed out;
- ``guard`` (runs first in the kernel) the audit hook that refuses, reports, and makes the calls;
- ``harness`` (run by the guard, one call at a time) calls the learner's functions, as data;
- ``channel`` the pipes between the judge and the kernel; ``record`` the shape of every line;
- ``kernel`` runs the cells with time limits and output caps; ``calls`` makes the calls;
  ``judge`` grades one notebook;
- ``verdict`` compares values with the reference's; ``report`` writes tables, CSV and reports.

What a chapter's check module provides to the judge is described in ``book.checks``.
"""
