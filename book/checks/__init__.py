"""Exercise checks: ``core`` is the framework, ``chNN`` holds chapter NN's checks.

Writing checks for chapter NN: create ``book/checks/chNN.py`` with one function per graded task.
Each takes the learner's answers (None when undefined) and prints one line via ``core``:

    from book.checks.core import Case, check_cases, check_function, check_value, raised

    def check_utf8_length(utf8_length) -> None:
        check_function("utf8_length", utf8_length, [((0x41,), 1), ((0xE9,), 2)], points=2,
                       hint="compare the code point with 0x7F, 0x7FF and 0xFFFF.")

- ``check_function(task, func, [(args_tuple, expected), ...], points, hint)`` calls func(*args);
- ``check_value(task, value, expected, points, hint)`` checks a variable;
- ``check_cases(task, {"encode": encode, ...}, [Case(label, lambda: ..., expected), ...],
  points, hint)`` for anything else (several functions, properties, ``raised(f, x)`` for
  expected errors).

Answers are compared with ``core.equal`` (same types, builtin ==) unless ``compare=`` says
otherwise. The task name (letters, digits, ``_.-``) must be unique in its notebook. These
checks give instant feedback in the notebook; the grade comes from the judge, which reads each
module's ``judge_tasks`` and ``REFERENCE`` (see ``book.checks.core``).

In solutions/NN_slug.ipynb, the check cell sits right below the task's cell:

    # NBVAL_CHECK_OUTPUT
    from book.checks import chNN
    chNN.check_utf8_length(globals().get("utf8_length"))

``globals().get`` hands the check None instead of raising NameError when the learner's cell failed,
so the check can say "not defined yet" in its one line.
"""

from book.checks.core import (
    Case,
    Result,
    check_cases,
    check_function,
    check_value,
    equal,
    raised,
    run_cases,
)

__all__ = [
    "Case",
    "Result",
    "check_cases",
    "check_function",
    "check_value",
    "equal",
    "raised",
    "run_cases",
]
