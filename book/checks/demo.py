"""Checks of the demo exercise notebook (tests/fixtures/solutions/99_demo.ipynb).

It is the smallest complete example of a chapter's check module, one check per kind of task,
and the tests of the exercise system run against it.
"""

from book.checks.core import Case, check_cases, check_function, check_value


def check_char_codes(char_codes) -> None:
    """Check char_codes(text) -> the code point of every character of text."""
    check_function("char_codes", char_codes, [
        (("abc",), [97, 98, 99]),
        (("é€",), [233, 8364]),
        (("",), []),
    ], points=2, hint="ord(ch) gives the code point of one character.")


def check_euro_bytes(euro_bytes) -> None:
    """Check euro_bytes == the number of UTF-8 bytes of '€'."""
    check_value("euro_bytes", euro_bytes, 3, points=1,
                hint="count the bytes of the encoded string, not its characters.")


def check_round_trip(encode, decode) -> None:
    """Check decode(encode(text)) == text and that encode gives UTF-8 byte values."""
    texts = ["hello", "héllo wörld", "日本", "👋🏽"]
    check_cases("round_trip", {"encode": encode, "decode": decode}, [
        Case("encode('é')", lambda: encode("é"), [195, 169]),
        *[Case(f"decode(encode({text!r}))", lambda text=text: decode(encode(text)), text) for text in texts],
    ], points=3, hint="str.encode('utf-8') and bytes.decode('utf-8') are inverses.")
