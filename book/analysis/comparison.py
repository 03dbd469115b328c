"""One measurement over many tokenizers at once, as tables (chapter 09: every vendor's vocabulary).

Each function takes ``{label: tokenizer}`` (the book's tokenizers and tiktoken's encodings alike)
and ``{name: text}``, and returns ``{label: {name: value}}``: ``pandas.DataFrame`` of it has a
column per tokenizer and a row per text. Each text is encoded once per tokenizer.

>>> from book.tokenizers import CharTokenizer
>>> chars = CharTokenizer.train("aé日 ")
>>> token_counts({"chars": chars}, {"English": "a a", "French": "é é"})
{'chars': {'English': 3, 'French': 3}}
>>> premiums({"chars": {"English": 4, "Tamil": 6}})
{'chars': {'English': 1.0, 'Tamil': 1.5}}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from book.analysis.metrics import bytes_per_token, oov_share, round_trips, unknown_id
from book.tokenizers.base import Tokenizer, token_piece

Table = dict[str, dict[str, float]]
DIGITS = frozenset(b"0123456789")


def token_counts(
    tokenizers: Mapping[str, Tokenizer], texts: Mapping[str, str]
) -> dict[str, dict[str, int]]:
    """{label: {text name: tokens of that text}} for every tokenizer."""
    return {
        label: {name: len(tok.encode(text)) for name, text in texts.items()}
        for label, tok in tokenizers.items()
    }


def premiums(counts: Mapping[str, Mapping[str, int]], reference: str = "English") -> Table:
    """Each language's **token premium** under each tokenizer: its token count divided by the
    ``reference`` language's count *under the same tokenizer* (Petrov et al.'s measure).

    >>> premiums({"a": {"English": 2, "Hindi": 6}, "b": {"English": 4, "Hindi": 6}})
    {'a': {'English': 1.0, 'Hindi': 3.0}, 'b': {'English': 1.0, 'Hindi': 1.5}}
    """
    table = {}
    for label, by_language in counts.items():
        if by_language.get(reference, 0) <= 0:
            raise ValueError(
                f"{label}: a premium divides by the {reference} count, which is "
                f"{by_language.get(reference, 'missing')}; measure {reference} with it too"
            )
        base = by_language[reference]
        table[label] = {language: n / base for language, n in by_language.items()}
    return table


def bytes_per_token_table(tokenizers: Mapping[str, Tokenizer], texts: Mapping[str, str]) -> Table:
    """{label: {text name: UTF-8 bytes per token}} (``metrics.bytes_per_token`` of each pair)."""
    return {
        label: {name: bytes_per_token(tok, text) for name, text in texts.items()}
        for label, tok in tokenizers.items()
    }


def unknown_shares(tokenizers: Mapping[str, Tokenizer], texts: Mapping[str, str]) -> Table:
    """{label: {text name: share of its tokens that are the unknown token}}: a tokenizer that
    spells text it cannot cover as one ``[UNK]`` looks cheap there, so its premium misleads."""
    return {
        label: {name: oov_share(tok.encode(text), unknown_id(tok)) for name, text in texts.items()}
        for label, tok in tokenizers.items()
    }


def digit_groups(tokenizer: Tokenizer, text: str) -> list[str]:
    """The ASCII digits each token of ``text`` carries, token by token (tokens without digits
    left out): how the tokenizer cuts the numbers of ``text``.

    >>> from book.tokenizers import CharTokenizer
    >>> digit_groups(CharTokenizer.train("x 12"), "12 x")
    ['1', '2']
    """
    groups = []
    for token_id in tokenizer.encode(text):
        digits = bytes(b for b in token_piece(tokenizer, token_id) if b in DIGITS)
        if digits:
            groups.append(digits.decode("ascii"))
    return groups


def digits_per_token(tokenizers: Mapping[str, Tokenizer], text: str) -> dict[str, float]:
    """{label: mean ASCII digits per token that carries any} over the numbers of ``text``."""
    means = {}
    for label, tok in tokenizers.items():
        groups = digit_groups(tok, text)
        if not groups:
            raise ValueError(f"{label}: no token of the text carries a digit; give it numbers")
        means[label] = sum(map(len, groups)) / len(groups)
    return means


def indent_costs(
    tokenizers: Mapping[str, Tokenizer], widths: Iterable[int], line: str = "return x"
) -> dict[str, dict[int, int]]:
    """{label: {width: tokens that indenting ``line`` by ``width`` spaces adds}} (0 for a
    tokenizer that drops the spaces: check it with ``keeps_text`` too).

    >>> from book.tokenizers import CharTokenizer
    >>> indent_costs({"chars": CharTokenizer.train("return x")}, [2])
    {'chars': {2: 2}}
    """
    widths = list(widths)
    if any(width < 0 for width in widths):
        raise ValueError(f"indent widths must be 0 or more spaces, got {widths}")
    return {
        label: {
            width: len(tok.encode(" " * width + line)) - len(tok.encode(line)) for width in widths
        }
        for label, tok in tokenizers.items()
    }


def keeps_text(
    tokenizers: Mapping[str, Tokenizer], texts: Mapping[str, str]
) -> dict[str, dict[str, bool]]:
    """{label: {text name: whether decode(encode(text)) gives the text back}}."""
    return {
        label: {name: round_trips(tok, text) for name, text in texts.items()}
        for label, tok in tokenizers.items()
    }
