"""Exercise checks: ``chNN`` holds chapter NN's graded tasks as specs, ``demo`` the demo's.

Writing checks for chapter NN: in ``book/checks/chNN.py``, declare one ``spec.TaskSpec`` per
graded task, then ``SPECS`` and ``check, judge_tasks = checks_of(SPECS)`` (``demo.py`` is the
smallest complete example, ``ch05.py`` a chapter's):

    UTF8_SIZE = TaskSpec(
        "utf8_size",                      # the function the learner defines
        utf8_size_reference,              # composed from book.tokenizers where the step is there
        (Group("the examples", 1, examples), Group("random texts", 1, hidden=draw)),
        (Mistake("count bytes, not characters: ...", len), ...),   # at least three, as code
        "UTF-8 spends one to four bytes on a character, ...",      # the hint, never code
    )
    REFERENCE = ("book.tokenizers",)  # what the learner rebuilds: stubs while grading

A task's points are the sum of its groups whose every case passes. Every group must catch every
known mistake; when a learner's outputs agree with a mistake's on the failing cases, the hint
is its ``says``. ``tests/test_check_specs.py`` proves both on seeds 1-20, through the check
cell's path and the judge's. Answers are compared with ``core.equal`` (same types, builtin ==)
unless the spec's ``compare`` says otherwise (``answers.close`` for floats); ``probe`` judges
more than a return value (an argument left unchanged, counts updated in place).

In solutions/NN_slug.ipynb, the check cell sits right below the task's cell:

    # NBVAL_CHECK_OUTPUT
    from book.checks import chNN
    chNN.check("utf8_size", globals().get("utf8_size"))

``globals().get`` hands the check None instead of raising NameError when the learner's cell
failed, so the check can say "not defined yet" in its one line (``core`` makes the lines). These
checks give instant feedback in the notebook; the grade comes from the judge, which reads each
module's ``judge_tasks`` and ``REFERENCE`` (``book.grading``).
"""
