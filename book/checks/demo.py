"""Checks of the demo exercise notebook (tests/fixtures/solutions/99_demo.ipynb).

It is the smallest complete example of a chapter's check module, one check per kind of task,
and the tests of the exercise system run against it.
"""

import random

from book.checks.core import Case, check_cases, check_function, check_value
from book.checks.spec import Call, Task, function_task, random_text, value_task


def check_char_codes(char_codes) -> None:
    """Check char_codes(text) -> the code point of every character of text."""
    check_function(
        "char_codes",
        char_codes,
        [
            (("abc",), [97, 98, 99]),
            (("é€",), [233, 8364]),
            (("",), []),
        ],
        points=2,
        hint="ord(ch) gives the code point of one character.",
    )


def check_euro_bytes(euro_bytes) -> None:
    """Check euro_bytes == the number of UTF-8 bytes of '€'."""
    check_value(
        "euro_bytes",
        euro_bytes,
        3,
        points=1,
        hint="count the bytes of the encoded string, not its characters.",
    )


def check_round_trip(encode, decode) -> None:
    """Check decode(encode(text)) == text and that encode gives UTF-8 byte values."""
    texts = ["hello", "héllo wörld", "日本", "👋🏽"]
    check_cases(
        "round_trip",
        {"encode": encode, "decode": decode},
        [
            Case("encode('é')", lambda: encode("é"), [195, 169]),
            *[
                Case(f"decode(encode({text!r}))", lambda text=text: decode(encode(text)), text)
                for text in texts
            ],
        ],
        points=3,
        hint="str.encode('utf-8') and bytes.decode('utf-8') are inverses.",
    )


# --- what the judge needs (see book.checks.core): tasks as data, hidden cases from rng ------------


def judge_tasks(rng: random.Random) -> list[Task]:
    """The demo's tasks: fixed cases as above, hidden ones drawn from rng."""
    hidden_texts = [random_text(rng, rng.randint(1, 8)) for _ in range(5)]
    round_trip = [Call("encode('é')", "encode(a0)", ("é",), [195, 169])]
    round_trip += [
        Call(
            f"decode(encode({text!r}))",
            "decode(encode(a0))",
            (text,),
            text,
            hidden=text in hidden_texts,
        )
        for text in ["hello", "héllo wörld", "日本", "👋🏽", *hidden_texts]
    ]
    return [
        function_task(
            "char_codes",
            2,
            [("abc",), ("é€",), ("",)],
            lambda text: [ord(ch) for ch in text],
            hidden=[(text,) for text in hidden_texts],
            hint="ord(ch) gives the code point of one character.",
        ),
        value_task(
            "euro_bytes", 1, 3, hint="count the bytes of the encoded string, not its characters."
        ),
        Task(
            "round_trip",
            3,
            ("encode", "decode"),
            round_trip,
            hint="str.encode('utf-8') and bytes.decode('utf-8') are inverses.",
        ),
    ]
