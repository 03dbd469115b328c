"""Checks of exercises/02_characters.ipynb. The reference is book.tokenizers.characters.

Cases mix a sentence from a published walkthrough, Shakespeare, scripts with multi-byte characters, combining accents,
emoji sequences and empty input, so that no constant or order-dependent shortcut passes.
"""

from __future__ import annotations

import random

from book import corpora
from book.checks.core import Case, check_cases, check_function
from book.checks.spec import Call, Task, calls_of, function_task, random_text, window
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
                hint="an unknown character becomes len(vocab) + b for each byte b of "
            "ch.encode('utf-8'); "
                     "to decode, turn every id into bytes (a character's UTF-8 bytes, or the single "
                     "byte id - len(vocab)), join them and decode the bytes once.")


def check_vocab_growth(vocab_growth) -> None:
    """vocab_growth(text) -> distinct characters after reading 1, 2, ..., len(text) characters."""
    def growth(text: str) -> list[int]:
        return [len(set(text[: n + 1])) for n in range(len(text))]

    texts = ["", "aab", "abcabc", "mississippi", "👨‍👩‍👧 ok", _shakespeare_sample()]
    check_function("vocab_growth", vocab_growth, [((text,), growth(text)) for text in texts], points=2,
                   hint="keep a set of the characters seen so far and append its size after each character.")


# --- what the judge needs (see book.checks.core) --------------------------------------------------

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")


def _random_vocab(rng: random.Random, text: str) -> list[str]:
    """Some of the characters of text, in a random order: ids must follow the given vocabulary."""
    chars = sorted(set(text))
    rng.shuffle(chars)
    return chars[: max(1, len(chars) - rng.randint(0, 3))]


def _encode_reference(text: str, vocab: list[str], unk: bool = False) -> list[int]:
    """The reference encoder (ValueError for an unknown character unless unk)."""
    return CharTokenizer(vocab, unk=unk).encode(text)


def _decode_reference(ids: list[int], vocab: list[str]) -> str:
    """The reference decoder (id len(vocab) is '<unk>'; any other unknown id: ValueError)."""
    if any(not 0 <= i <= len(vocab) for i in ids):
        raise ValueError("unknown id")
    return CharTokenizer(vocab, unk=True).decode(ids)


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 02's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    texts = [random_text(rng, rng.randint(1, 8)) for _ in range(4)]
    texts.append(window(rng, corpora.english("heldout"), 300))
    vocabs = [_random_vocab(rng, text) for text in texts[:3]]
    encode_fixed = [
        args
        for vocab in VOCABS
        for text in ["the mat", "hat", "a\nx日", ""]
        for args in [(text, vocab), (text, vocab, True)]
    ]
    encode_hidden = [
        args for vocab, text in zip(vocabs, texts) for args in [(text, vocab), (text, vocab, True)]
    ]
    decode_fixed = [
        (ids, vocab)
        for vocab in VOCABS
        for ids in [[0, 1, 2], [3, len(vocab), 0], [len(vocab)] * 2, [], [len(vocab) + 1], [-1]]
    ]
    decode_hidden = [([rng.randint(0, len(v)) for _ in range(8)], v) for v in vocabs]
    decode_hidden += [
        ([0, rng.choice([len(v) + rng.randint(1, 9), -rng.randint(1, 9)])], v) for v in vocabs
    ]
    shakespeare = CharTokenizer.train(corpora.english("train")).chars
    fallback = [(text, vocab) for vocab in VOCABS for text in TEXTS[:7]]
    round_trips = [*TEXTS, _shakespeare_sample(), *corpora.parallel().values()]
    return [
        function_task(
            "build_vocab",
            2,
            [(text,) for text in [*TEXTS, _shakespeare_sample()]],
            lambda text: CharTokenizer.train(text).chars,
            hidden=[(text,) for text in texts],
            hint="sorted(set(text)) gives each character once, in code-point order.",
        ),
        Task(
            "encode",
            3,
            ("encode",),
            calls_of("encode", encode_fixed, _encode_reference)
            + calls_of("encode", encode_hidden, _encode_reference, hidden=True),
            hint="the id of a character is its index in vocab; with unk=True every unknown "
            "character gets the id len(vocab); without it, raise ValueError saying which "
            "character is unknown (a bare dict lookup raises KeyError, which is not a ValueError).",
        ),
        Task(
            "decode",
            2,
            ("decode",),
            calls_of("decode", decode_fixed, _decode_reference)
            + calls_of("decode", decode_hidden, _decode_reference, hidden=True),
            hint=f"id len(vocab) decodes to {UNK!r}; an id below 0 or above len(vocab) names no "
            "character, so raise ValueError (careful: vocab[-1] would silently work).",
        ),
        Task(
            "byte_fallback",
            3,
            ("encode_fallback", "decode_fallback"),
            calls_of("encode_fallback", fallback, fallback_ids)
            + calls_of("encode_fallback", list(zip(texts, vocabs)), fallback_ids, hidden=True)
            + [
                Call(
                    f"decode_fallback(encode_fallback({text[:30]!r}, shakespeare_vocab))",
                    "decode_fallback(encode_fallback(a0, a1), a1)",
                    (text, shakespeare),
                    text,
                    hidden=text in texts,
                )
                for text in round_trips + texts
            ],
            hint="an unknown character becomes len(vocab) + b for each byte b of "
            "ch.encode('utf-8'); "
            "to decode, turn every id into bytes (a character's UTF-8 bytes, or the single "
            "byte id - len(vocab)), join them and decode the bytes once.",
        ),
        function_task(
            "vocab_growth",
            2,
            [
                (text,)
                for text in ["", "aab", "abcabc", "mississippi", "👨‍👩‍👧 ok", _shakespeare_sample()]
            ],
            lambda text: [len(set(text[: n + 1])) for n in range(len(text))],
            hidden=[(text,) for text in texts],
            hint="keep a set of the characters seen so far and append its size after each "
            "character.",
        ),
    ]
