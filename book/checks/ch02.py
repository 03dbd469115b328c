"""Checks of exercises/02_characters.ipynb. The reference is book.tokenizers.characters.

Cases mix a sentence from a published walkthrough, Shakespeare, scripts with multi-byte characters, combining accents,
emoji sequences and empty input, so that no constant or order-dependent shortcut passes.
"""

from __future__ import annotations

from book import corpora
from book.checks.core import Case, check_cases, check_function
from book.tokenizers import UNK, CharTokenizer

TEXTS = [
    "the cat sat on the mat",
    "banana",
    "",
    "Fair is foul, and foul is fair:\nHover through the fog and filthy air.\n",
    "café = cafe\u0301",
    "日本語のテキスト",
    "Ω≈ç√ 👨‍👩‍👧 🇫🇷!",
    "\t\x00\r\n",
]
# The same alphabet in two different orders: ids must follow the given vocabulary.
VOCABS = [
    [" ", "a", "c", "e", "h", "m", "n", "o", "s", "t"],
    ["t", "h", "e", " ", "c", "a", "s", "o", "n", "m"],
    ["é", "日", "\n", "x"],
]


def _shakespeare_sample() -> str:
    """The first speeches of the held-out play: real text with newlines and punctuation."""
    return corpora.english("heldout")[:600]


def error_kind(function, *args) -> str:
    """'ValueError' if function(*args) raises one (or a subclass), else the name, else 'no error'."""
    try:
        function(*args)
    except NotImplementedError:
        raise  # reported as "not attempted"
    except ValueError:
        return "ValueError"
    except Exception as error:  # the learner may raise anything; we report its type
        return type(error).__name__
    return "no error"


def check_build_vocab(build_vocab) -> None:
    """build_vocab(text) -> the distinct characters of text, sorted by code point."""
    texts = [*TEXTS, _shakespeare_sample()]
    check_function("build_vocab", build_vocab,
                   [((text,), CharTokenizer.train(text).chars) for text in texts], points=2,
                   hint="sorted(set(text)) gives each character once, in code-point order.")


def check_encode(encode) -> None:
    """encode(text, vocab, unk) -> ids by position in vocab; unknown: ValueError, or len(vocab)."""
    cases = []
    for vocab in VOCABS:
        for text in ["the mat", "hat", "a\nx日", ""]:
            known = all(ch in vocab for ch in text)
            if known:
                cases.append(Case(f"encode({text!r}, {vocab!r})", lambda t=text, v=vocab: encode(t, list(v)),
                                  CharTokenizer(vocab).encode(text)))
            else:
                cases.append(Case(f"encode({text!r}, {vocab!r}) should raise ValueError",
                                  lambda t=text, v=vocab: error_kind(encode, t, list(v)), "ValueError"))
            cases.append(Case(f"encode({text!r}, {vocab!r}, unk=True)",
                              lambda t=text, v=vocab: encode(t, list(v), True),
                              CharTokenizer(vocab, unk=True).encode(text)))
    check_cases("encode", {"encode": encode}, cases, points=3,
                hint="the id of a character is its index in vocab; with unk=True every unknown "
                     "character gets the id len(vocab); without it, raise ValueError saying which "
                     "character is unknown (a bare dict lookup raises KeyError, which is not a ValueError).")


def check_decode(decode) -> None:
    """decode(ids, vocab) -> the characters; len(vocab) is '<unk>'; other ids raise ValueError."""
    cases = []
    for vocab in VOCABS:
        reference = CharTokenizer(vocab, unk=True)
        for ids in [[0, 1, 2], [3, len(vocab), 0], [len(vocab)] * 2, []]:
            cases.append(Case(f"decode({ids!r}, {vocab!r})", lambda i=ids, v=vocab: decode(list(i), list(v)),
                              reference.decode(ids)))
        for bad in [len(vocab) + 1, -1]:
            cases.append(Case(f"decode([{bad}], {vocab!r}) should raise ValueError",
                              lambda b=bad, v=vocab: error_kind(decode, [b], list(v)), "ValueError"))
    check_cases("decode", {"decode": decode}, cases, points=2,
                hint=f"id len(vocab) decodes to {UNK!r}; an id below 0 or above len(vocab) names no "
                     "character, so raise ValueError (careful: vocab[-1] would silently work).")


def fallback_ids(text: str, vocab: list[str]) -> list[int]:
    """The reference byte-fallback encoding: known characters by index, others as len(vocab) + byte."""
    index = {ch: i for i, ch in enumerate(vocab)}
    ids = []
    for ch in text:
        if ch in index:
            ids.append(index[ch])
        else:
            ids.extend(len(vocab) + byte for byte in ch.encode("utf-8"))
    return ids


def check_byte_fallback(encode_fallback, decode_fallback) -> None:
    """encode_fallback / decode_fallback: unknown characters as UTF-8 bytes, exact round trip."""
    texts = [*TEXTS, _shakespeare_sample(), *corpora.parallel().values()]
    cases = []
    for vocab in VOCABS:
        for text in texts[:7]:
            cases.append(Case(f"encode_fallback({text!r}, {vocab!r})",
                              lambda t=text, v=vocab: encode_fallback(t, list(v)), fallback_ids(text, vocab)))
    vocab = CharTokenizer.train(corpora.english("train")).chars
    for text in texts:
        cases.append(Case(f"decode_fallback(encode_fallback({text[:30]!r}, shakespeare_vocab))",
                          lambda t=text: decode_fallback(encode_fallback(t, list(vocab)), list(vocab)), text))
    check_cases("byte_fallback", {"encode_fallback": encode_fallback, "decode_fallback": decode_fallback},
                cases, points=3,
                hint="an unknown character becomes len(vocab) + b for each byte b of ch.encode('utf-8'); "
                     "to decode, turn every id into bytes (a character's UTF-8 bytes, or the single "
                     "byte id - len(vocab)), join them and decode the bytes once.")


def check_vocab_growth(vocab_growth) -> None:
    """vocab_growth(text) -> distinct characters after reading 1, 2, ..., len(text) characters."""
    def growth(text: str) -> list[int]:
        return [len(set(text[: n + 1])) for n in range(len(text))]

    texts = ["", "aab", "abcabc", "mississippi", "👨‍👩‍👧 ok", _shakespeare_sample()]
    check_function("vocab_growth", vocab_growth, [((text,), growth(text)) for text in texts], points=2,
                   hint="keep a set of the characters seen so far and append its size after each character.")
