"""Helpers for the tests of book/checks: read the one line a check prints."""


def line(capsys, check, *answers) -> str:
    """The one line a check prints for the given answers (it must print exactly one)."""
    check(*answers)
    out = capsys.readouterr().out
    assert out.count("\n") == 1, out
    return out


def passes(capsys, check, *answers) -> bool:
    """Whether the line a check prints says it passed."""
    return line(capsys, check, *answers).startswith("✔")
