"""Checks of exercises/02_characters.ipynb. The references are small functions written here.

Each task asks for something the chapter did not write: a vocabulary ordered by frequency with
a size limit, another policy for unknown characters (fold to a known character, and record
what was changed), a byte-fallback decoder that says which ids were lost, and a measurement
with a question. Cases mix Shakespeare, scripts with multi-byte characters, combining accents,
compatibility characters (ligatures, full-width letters, numerals), emoji and empty input.
"""

from __future__ import annotations

import random
import unicodedata
from collections import Counter
from functools import cache

from book import corpora
from book.checks.answers import choice, close, readable, result_or_error, verdict
from book.checks.core import Case, check_cases
from book.checks.spec import Call, Task, calls_of, random_text, window


def _label(name: str, args: tuple, vocab_name: str | None = None) -> str:
    """A call as the learner reads it, long vocabularies named instead of listed."""
    shown = [readable(arg) for arg in args]
    if vocab_name:
        shown[-1] = vocab_name
    return f"{name}({', '.join(shown)})"


@cache
def _plays_chars() -> tuple[str, ...]:
    """The characters of the training plays, sorted (computed once)."""
    return tuple(sorted(set(corpora.english("train"))))


def _plays_vocab() -> list[str]:
    """The plays' characters as a fresh list: a vocabulary with no digit and no accent."""
    return list(_plays_chars())


# --- Task 1: a vocabulary ordered by frequency, with a size limit -----------------------------

VOCAB_TEXTS = [
    "banana",
    "abcabc",
    "the cat sat on the mat",
    "",
    "mississippi",
    "ba",
    "日本語の日本",
    "café = cafe\u0301",
    "Fair is foul, and foul is fair:\nHover through the fog and filthy air.\n",
]
MAX_SIZES = [None, 0, 1, 3, 100]
VOCAB_HINT = (
    "count every occurrence (collections.Counter), most frequent first, and break ties by code "
    "point, not by first occurrence: sorted(counts, key=lambda ch: (-counts[ch], ch)); then keep "
    "the first max_size (all of them when max_size is None); a negative max_size raises "
    "ValueError."
)


def build_vocab_reference(text: str, max_size: int | None = None) -> list[str]:
    """The max_size most frequent characters, most frequent first, ties by code point.

    >>> build_vocab_reference("banana"), build_vocab_reference("abcabc", 2)
    (['a', 'n', 'b'], ['a', 'b'])
    """
    if max_size is not None and max_size < 0:
        raise ValueError(f"max_size must be None or at least 0, not {max_size}")
    counts = Counter(text)
    return sorted(counts, key=lambda ch: (-counts[ch], ch))[:max_size]


def _vocab_calls() -> list[tuple]:
    """The fixed cases: every text with every limit, one negative limit."""
    calls = [(text, max_size) for text in VOCAB_TEXTS for max_size in MAX_SIZES]
    return [*calls, ("banana", -1)]


def check_build_vocab(build_vocab) -> None:
    """build_vocab(text, max_size) -> characters most frequent first, ties by code point."""
    cases = [
        Case(
            _label("build_vocab", args),
            lambda args=args: result_or_error(build_vocab, *args),
            result_or_error(build_vocab_reference, *args),
        )
        for args in _vocab_calls()
    ]
    check_cases("build_vocab", {"build_vocab": build_vocab}, cases, points=2, hint=VOCAB_HINT)


# --- Task 2: unknown characters folded to known ones, with a record ---------------------------

NEAREST_TEXTS = [
    "the cat sat",
    "naïve café",
    "cafe\u0301 crème brûlée",
    "ﬁne ½ Ⅻ ①",
    "Ｆｕｌｌ ｗｉｄｔｈ",
    "Zürich, 2024!",
    "Ωmega 日本",
    "\u0301",
    "",
]
SMALL_VOCABS = [
    [" ", "a", "c", "e", "f", "i", "n", "v"],
    ["t", "h", "e", " ", "c", "a", "s", "o", "n", "m"],
    ["é", "日", "\n", "x", "1", "⁄", "2", "I", "X"],
]
NEAREST_HINT = (
    "a known character keeps its id; an unknown one is decomposed with "
    "unicodedata.normalize('NFKD', ch) and its combining marks dropped (unicodedata.category "
    "starts with 'M'); if what is left is non-empty and all known, those ids go in (one "
    "character can give several: 'ﬁ' -> 'f', 'i'), else the <unk> id len(vocab); record "
    "(position in text, original character) for every character not encoded as itself, and "
    "do not change vocab."
)


def encode_nearest_reference(text: str, vocab: list[str]) -> tuple[list[int], list[tuple]]:
    """Ids with unknown characters folded to known ones; (position, character) of each change.

    >>> encode_nearest_reference("né½", ["n", "e"])
    ([0, 1, 2], [(1, 'é'), (2, '½')])
    """
    stoi = {ch: i for i, ch in enumerate(vocab)}
    ids, changed = [], []
    for position, ch in enumerate(text):
        if ch in stoi:
            ids.append(stoi[ch])
            continue
        changed.append((position, ch))
        decomposed = unicodedata.normalize("NFKD", ch)
        base = [c for c in decomposed if not unicodedata.category(c).startswith("M")]
        if base and all(c in stoi for c in base):
            ids.extend(stoi[c] for c in base)
        else:
            ids.append(len(vocab))
    return ids, changed


def _nearest_calls() -> list[tuple[str, list[str], str | None]]:
    """(text, vocab, the vocab's name in labels or None) of the fixed cases."""
    calls = [(text, _plays_vocab(), "plays_vocab") for text in NEAREST_TEXTS]
    calls += [(text, vocab, None) for vocab in SMALL_VOCABS for text in NEAREST_TEXTS[:7]]
    return calls


def check_encode_nearest(encode_nearest) -> None:
    """encode_nearest(text, vocab) -> (ids, [(position, character) of every change])."""
    cases = [
        Case(
            _label("encode_nearest", (text, vocab), name),
            lambda text=text, vocab=vocab: encode_nearest(text, list(vocab)),
            encode_nearest_reference(text, vocab),
        )
        for text, vocab, name in _nearest_calls()
    ]
    vocab = SMALL_VOCABS[0]
    cases.append(
        Case(
            "vocab after encode_nearest('naïve ﬁne', vocab) is unchanged",
            lambda: _after_call(encode_nearest, "naïve ﬁne", list(vocab)),
            vocab,
        )
    )
    check_cases(
        "encode_nearest",
        {"encode_nearest": encode_nearest},
        cases,
        points=3,
        hint=NEAREST_HINT,
    )


def _after_call(function, text: str, vocab: list[str]) -> list[str]:
    """vocab after function(text, vocab): a function must not change its input."""
    function(text, vocab)
    return vocab


# --- Task 3: decode byte fallback, and say which ids were lost --------------------------------

REPORT_VOCAB = ["h", "i", " ", "é", "\n"]


def _b(*values: int) -> list[int]:
    """Byte-fallback ids of byte values for REPORT_VOCAB."""
    return [len(REPORT_VOCAB) + value for value in values]


REPORT_IDS = [
    [],
    [0, 1],
    [0, 1, 2, *_b(0xE4, 0xBD, 0xA0)],
    [0, *_b(0xE4, 0xBD)],
    _b(0x80),
    [*_b(0xE4), 0],
    _b(0xC3, 0xA9),
    [3, *_b(0xA9)],
    [*_b(0xF0, 0x9F, 0x8C, 0x8D), 2, *_b(0xF0, 0x9F)],
    _b(0xE4, 0xE4, 0xBD, 0xA0),
    _b(0xC0, 0x80),
    _b(0x68, 0x69, 0x0A),
    [0, len(REPORT_VOCAB) + 256],
    [-1],
]
REPORT_HINT = (
    "turn every id into bytes (a character's UTF-8 bytes, or the byte id - len(vocab)), join "
    "them and decode once with errors='replace' (a character's bytes belong together: a byte "
    "id decoded alone is lost unless it is ASCII); lost lists positions in ids, not in the "
    "text, of every id with a byte in a replaced run; an id outside 0 … len(vocab) + 255 raises "
    "ValueError."
)


def decode_report_reference(ids: list[int], vocab: list[str]) -> tuple[str, list[int]]:
    """The text of byte-fallback ids (errors='replace') and the positions of the ids it lost.

    >>> decode_report_reference([0, 2 + 0xE4, 2 + 0xBD], ["h", "i"])
    ('h�', [1, 2])
    """
    data, owner = bytearray(), []
    for index, token_id in enumerate(ids):
        if not 0 <= token_id < len(vocab) + 256:
            raise ValueError(f"id {token_id} is neither a character nor a byte")
        piece = (
            vocab[token_id].encode("utf-8")
            if token_id < len(vocab)
            else bytes([token_id - len(vocab)])
        )
        data += piece
        owner += [index] * len(piece)
    pieces, lost, start = [], set(), 0
    while True:  # what errors="replace" does, keeping the span of every replacement
        try:
            pieces.append(bytes(data[start:]).decode("utf-8"))
            break
        except UnicodeDecodeError as error:
            pieces.append(bytes(data[start : start + error.start]).decode("utf-8") + "\ufffd")
            lost.update(owner[start + error.start : start + error.end])
            start += error.end
    return "".join(pieces), sorted(lost)


def check_decode_report(decode_report) -> None:
    """decode_report(ids, vocab) -> (text with U+FFFD, positions of the ids that were lost)."""
    cases = [
        Case(
            _label("decode_report", (ids, REPORT_VOCAB)),
            lambda ids=ids: result_or_error(decode_report, list(ids), list(REPORT_VOCAB)),
            result_or_error(decode_report_reference, ids, REPORT_VOCAB),
        )
        for ids in REPORT_IDS
    ]
    check_cases(
        "decode_report", {"decode_report": decode_report}, cases, points=3, hint=REPORT_HINT
    )


# --- Task 4: bytes per token with byte fallback, and two questions ----------------------------

FALLBACK_CASES = [
    ("hi", ["h", "i"]),
    ("hé", ["h", "é"]),
    ("hé", ["h"]),
    ("你好", ["你"]),
    ("你好", []),
    ("👍🏽", ["👍", "🏽"]),
    ("e\u0301", ["e"]),
    ("", ["a"]),
]
TARGET = 2.0  # bytes per token the Chinese passage must reach
FALLBACK_ANSWER = "c"  # every id carries one byte: ASCII characters and fallback bytes alike
FALLBACK_HINT = (
    "a known character is one token, an unknown one one token per UTF-8 byte; bytes per token "
    "is len(text.encode('utf-8')) divided by that count (ValueError for an empty text). "
    "chinese_budget is the smallest k for which the Chinese passage reaches 2.0 with your "
    "build_vocab(multilingual, k) from Task 1; fallback_answer is one letter."
)


def fallback_bytes_per_token_reference(text: str, vocab: list[str]) -> float:
    """UTF-8 bytes per token when unknown characters fall back to their bytes.

    >>> fallback_bytes_per_token_reference("你好", ["你"])
    1.5
    """
    if not text:
        raise ValueError("an empty text has no tokens")
    known = set(vocab)
    n_tokens = sum(1 if ch in known else len(ch.encode("utf-8")) for ch in text)
    return len(text.encode("utf-8")) / n_tokens


def chinese_budget_reference() -> int | None:
    """The smallest k with which the Chinese passage reaches TARGET bytes per token."""
    passages = corpora.parallel()
    multilingual, chinese = "".join(passages.values()), passages["Chinese"]
    ranked = build_vocab_reference(multilingual)
    for k in range(len(ranked) + 1):
        if fallback_bytes_per_token_reference(chinese, ranked[:k]) >= TARGET:
            return k
    return None


def check_fallback_measure(fallback_bytes_per_token, chinese_budget, fallback_answer) -> None:
    """fallback_bytes_per_token(text, vocab); the smallest k for Chinese; the letter for why."""
    cases = [
        Case(
            _label("fallback_bytes_per_token", args),
            lambda args=args: result_or_error(fallback_bytes_per_token, *args),
            result_or_error(fallback_bytes_per_token_reference, *args),
        )
        for args in FALLBACK_CASES
    ]
    cases.append(
        Case(
            "fallback_bytes_per_token(passages['Hindi'], plays_vocab)",
            lambda: fallback_bytes_per_token(corpora.parallel()["Hindi"], _plays_vocab()),
            1.0,
        )
    )
    cases.append(
        Case(
            "chinese_budget",
            lambda: verdict(chinese_budget, chinese_budget_reference()),
            "right",
        )
    )
    cases.append(Case("fallback_answer", lambda: choice(fallback_answer, FALLBACK_ANSWER), "right"))
    check_cases(
        "fallback_measure",
        {
            "fallback_bytes_per_token": fallback_bytes_per_token,
            "chinese_budget": chinese_budget,
            "fallback_answer": fallback_answer,
        },
        cases,
        points=3,
        hint=FALLBACK_HINT,
        compare=close,
    )


# --- what the judge needs (see book.checks.core) ----------------------------------------------

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")


def _random_vocab(rng: random.Random, text: str) -> list[str]:
    """Some of the characters of text, in a random order: ids must follow the given vocabulary."""
    chars = sorted(set(text))
    rng.shuffle(chars)
    return chars[: max(1, len(chars) - rng.randint(0, 3))]


def _fallback_ids(text: str, vocab: list[str]) -> list[int]:
    """Byte-fallback ids: known characters by index, others as len(vocab) + byte."""
    index = {ch: i for i, ch in enumerate(vocab)}
    ids = []
    for ch in text:
        if ch in index:
            ids.append(index[ch])
        else:
            ids.extend(len(vocab) + byte for byte in ch.encode("utf-8"))
    return ids


def _damaged_ids(rng: random.Random, text: str, vocab: list[str]) -> list[int]:
    """Byte-fallback ids of text, cut short, with one id dropped, or with a stray byte id."""
    ids = _fallback_ids(text, vocab)
    how = rng.randrange(3)
    position = rng.randint(0, len(ids))
    if how == 0:
        return ids[:position]
    if how == 1 and ids:
        return ids[: min(position, len(ids) - 1)] + ids[min(position, len(ids) - 1) + 1 :]
    return ids[:position] + [len(vocab) + rng.choice([0x80, 0xA9, 0xC3, 0xE4, 0xF0, 0xFF])]


def _nearest_label(args: tuple) -> str:
    """encode_nearest(text, plays_vocab) when the vocabulary is the plays'."""
    name = "plays_vocab" if args[1] == _plays_vocab() else None
    return _label("encode_nearest", args, name)


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 02's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    texts = [random_text(rng, rng.randint(1, 8)) for _ in range(4)]
    texts.append(window(rng, corpora.english("heldout"), 300))
    vocabs = [_random_vocab(rng, text) for text in texts]
    plays = _plays_vocab()
    vocab_hidden = [(text, rng.choice([None, rng.randint(0, 12)])) for text in texts]
    vocab_hidden.append((texts[0], -rng.randint(1, 5)))
    nearest_fixed = [(text, vocab) for text, vocab, _ in _nearest_calls()]
    nearest_hidden = [(text, plays) for text in texts] + list(zip(texts, vocabs))
    probe = "".join(rng.choice("naïve ﬁne café ½") for _ in range(12))
    mutation = Call(
        "vocab after encode_nearest(text, vocab) is unchanged",
        "[encode_nearest(a0, a1), a1][1]",
        (probe, list(SMALL_VOCABS[0])),
        SMALL_VOCABS[0],
        hidden=True,
    )
    report_hidden = [(_damaged_ids(rng, text, vocab), vocab) for text, vocab in zip(texts, vocabs)]
    report_hidden.append(([rng.randint(0, 300) for _ in range(12)], ["a", "b", "ü"]))
    fallback_hidden = [(text, vocab) for text, vocab in zip(texts, vocabs)]
    fallback_hidden.append((texts[1], plays))
    per_token = fallback_bytes_per_token_reference
    return [
        Task(
            "build_vocab",
            2,
            ("build_vocab",),
            calls_of("build_vocab", _vocab_calls(), build_vocab_reference)
            + calls_of("build_vocab", vocab_hidden, build_vocab_reference, hidden=True),
            hint=VOCAB_HINT,
        ),
        Task(
            "encode_nearest",
            3,
            ("encode_nearest",),
            calls_of(
                "encode_nearest", nearest_fixed, encode_nearest_reference, label=_nearest_label
            )
            + calls_of(
                "encode_nearest",
                nearest_hidden,
                encode_nearest_reference,
                hidden=True,
                label=_nearest_label,
            )
            + [mutation],
            hint=NEAREST_HINT,
        ),
        Task(
            "decode_report",
            3,
            ("decode_report",),
            calls_of(
                "decode_report",
                [(ids, REPORT_VOCAB) for ids in REPORT_IDS],
                decode_report_reference,
            )
            + calls_of("decode_report", report_hidden, decode_report_reference, hidden=True),
            hint=REPORT_HINT,
        ),
        Task(
            "fallback_measure",
            3,
            ("fallback_bytes_per_token", "chinese_budget", "fallback_answer"),
            calls_of("fallback_bytes_per_token", FALLBACK_CASES, per_token)
            + calls_of("fallback_bytes_per_token", fallback_hidden, per_token, hidden=True)
            + [
                Call("chinese_budget", "chinese_budget", (), chinese_budget_reference()),
                Call("fallback_answer", "fallback_answer", (), FALLBACK_ANSWER),
            ],
            hint=FALLBACK_HINT,
            compare=close,
        ),
    ]
