"""Checks of exercises/08_real_tokenizers.ipynb. The reference is tiktoken, loaded offline.

Every expected value is computed here from the encodings themselves (``book.encodings``), on
texts that mix scripts, emoji, numbers and whitespace, so that no constant passes. The tasks
ask for what the chapter did not write: passages of at most N tokens that never cut a
character, the share of tokens that are parts of characters (with a question), where each
token starts in the text, digit chunks in both directions, and which years GPT-2 splits.
"""

from __future__ import annotations

import random

from book import corpora
from book.checks.answers import choice, close, result_or_error, verdict
from book.checks.core import Case, check_cases, check_function, check_value
from book.checks.spec import Call, Task, calls_of, function_task, random_text, value_task, window
from book.encodings import get_encoding
from book.text_types import number_sample

ENCODINGS = ("gpt2", "cl100k_base", "o200k_base")
PASSAGE_NAMES = ("Hindi", "Amharic", "Chinese")  # labels name a passage instead of printing it


def _pieces(text: str, encoding_name: str) -> list[bytes]:
    """The bytes of every token of text, special tokens' text counted as ordinary text."""
    enc = get_encoding(encoding_name)
    return [enc.decode_single_token_bytes(i) for i in enc.encode_ordinary(text)]


def _continues(piece: bytes) -> bool:
    """True when a token starts with a UTF-8 continuation byte (10xxxxxx): inside a character."""
    return 0x80 <= piece[0] < 0xC0


def _shown(text: str) -> str:
    """A text in a label: a passage by its name, anything else as a short repr."""
    for name in PASSAGE_NAMES:
        if text == corpora.parallel()[name]:
            return f"passages[{name!r}]"
    return repr(text) if len(text) <= 50 else repr(text[:49]) + "…"


def _label(name: str, args: tuple) -> str:
    """A call as the learner reads it, long texts shortened."""
    shown = [
        _shown(arg) if isinstance(arg, str) and i == 0 else repr(arg) for i, arg in enumerate(args)
    ]
    return f"{name}({', '.join(shown)})"


# --- Task 1: passages of at most max_tokens tokens that never cut a character -------------------

PASSAGES_HINT = (
    "encode once with encode_ordinary and take at most max_tokens ids per passage; when the next "
    "token starts with a continuation byte (0x80–0xBF, so the passage would end inside a "
    "character) give tokens back until it does not; a character that alone needs more than "
    "max_tokens tokens goes whole into one passage; decode each passage's bytes, so that "
    "''.join(passages) == text; max_tokens < 1 raises ValueError."
)


def passages_reference(text: str, encoding_name: str, max_tokens: int) -> list[str]:
    """Consecutive passages of at most max_tokens tokens, cut only between characters.

    >>> passages_reference(" 🌍 and", "gpt2", 1)
    [' 🌍', ' and']
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, not {max_tokens}")
    pieces = _pieces(text, encoding_name)
    cut_before = [j == len(pieces) or not _continues(pieces[j]) for j in range(len(pieces) + 1)]
    passages, i = [], 0
    while i < len(pieces):
        j = min(i + max_tokens, len(pieces))
        while j > i and not cut_before[j]:
            j -= 1
        if j == i:  # one character needs more than max_tokens tokens: it goes whole
            j = i + 1
            while not cut_before[j]:
                j += 1
        passages.append(b"".join(pieces[i:j]).decode("utf-8"))
        i = j
    return passages


def _passages_calls() -> list[tuple]:
    """The fixed cases: emoji and scripts that tokens cut inside characters, code, specials."""
    passages = corpora.parallel()
    return [
        ("Hello, world! How are you?", "o200k_base", 3),
        ("", "gpt2", 5),
        (" 🌍 and 😀", "gpt2", 1),
        (" 🌍 and 😀", "gpt2", 2),
        ("नमस्ते दुनिया", "gpt2", 4),
        ("नमस्ते दुनिया", "o200k_base", 1),
        (passages["Amharic"], "o200k_base", 7),
        (passages["Chinese"], "cl100k_base", 10),
        (corpora.code("python")[:600], "cl100k_base", 16),
        ("a <|endoftext|> b", "cl100k_base", 2),
        ("abc", "gpt2", 0),
    ]


def check_passages_by_tokens(passages_by_tokens) -> None:
    """passages_by_tokens(text, encoding_name, max_tokens) -> passages, no character cut."""
    cases = [
        Case(
            _label("passages_by_tokens", args),
            lambda args=args: result_or_error(passages_by_tokens, *args),
            result_or_error(passages_reference, *args),
        )
        for args in _passages_calls()
    ]
    check_cases(
        "passages_by_tokens",
        {"passages_by_tokens": passages_by_tokens},
        cases,
        points=3,
        hint=PASSAGES_HINT,
    )


# --- Task 2: the share of tokens that are parts of characters, and a question ----------------

PARTIAL_TEXTS = [
    ("Hello, world!", "o200k_base"),
    ("", "gpt2"),
    (" 🌍", "gpt2"),
    (" 🌍", "o200k_base"),
    ("नमस्ते दुनिया", "gpt2"),
    ("नमस्ते दुनिया", "o200k_base"),
    ("naïve café 日本語 👨‍👩‍👧", "cl100k_base"),
]
PARTIAL_ANSWER = "b"  # every script but Ethiopic gets mostly whole characters under o200k_base
PARTIAL_HINT = (
    "encode_ordinary, then count the ids whose decode_single_token_bytes(i) is not valid UTF-8 "
    "on its own (.decode('utf-8') raises UnicodeDecodeError), divided by the number of ids "
    "(0.0 for an empty text); partial_top3 is the three languages of corpora.parallel() with "
    "the highest share under o200k_base, highest first; partial_answer is one letter."
)


def partial_share_reference(text: str, encoding_name: str) -> float:
    """The share of text's tokens that are not whole UTF-8 characters on their own.

    >>> partial_share_reference(" 🌍", "gpt2")
    1.0
    """
    pieces = _pieces(text, encoding_name)
    if not pieces:
        return 0.0
    partial = 0
    for piece in pieces:
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            partial += 1
    return partial / len(pieces)


def partial_top3_reference() -> list[str]:
    """The three languages whose passages have the most partial tokens under o200k_base."""
    passages = corpora.parallel()
    shares = {name: partial_share_reference(text, "o200k_base") for name, text in passages.items()}
    return sorted(shares, key=shares.get, reverse=True)[:3]


def check_partial_share(partial_share, partial_top3, partial_answer) -> None:
    """partial_share(text, encoding_name); the top three languages; the letter for the change."""
    cases = [
        Case(
            _label("partial_share", args),
            lambda args=args: partial_share(*args),
            partial_share_reference(*args),
        )
        for args in PARTIAL_TEXTS
    ]
    cases.append(
        Case("partial_top3", lambda: verdict(partial_top3, partial_top3_reference()), "right")
    )
    cases.append(Case("partial_answer", lambda: choice(partial_answer, PARTIAL_ANSWER), "right"))
    check_cases(
        "partial_share",
        {
            "partial_share": partial_share,
            "partial_top3": partial_top3,
            "partial_answer": partial_answer,
        },
        cases,
        points=3,
        hint=PARTIAL_HINT,
        compare=close,
    )


# --- Task 3: where each token starts in the text ----------------------------------------------

STARTS_CASES = [
    ("hello world", "gpt2"),
    ("", "o200k_base"),
    (" 🌍 hi 你好", "gpt2"),
    (" 🌍 hi 你好", "o200k_base"),
    ("naïve café", "cl100k_base"),
    ("cafe\u0301 👨‍👩‍👧‍👦!", "gpt2"),
    ("नमस्ते दुनिया", "cl100k_base"),
    ("x<|endoftext|>y", "cl100k_base"),
]
STARTS_HINT = (
    "a character starts at every byte that is not a continuation byte (0x80–0xBF): count them "
    "token by token; a token that begins with a continuation byte starts inside the character "
    "before, so its start is that count minus one; starts are character positions (str "
    "indices), not byte positions, and not the lengths of tokens decoded with errors='replace'."
)


def token_starts_reference(text: str, encoding_name: str) -> list[int]:
    """The index in text of the character where each token starts (tiktoken's offsets).

    >>> token_starts_reference(" 🌍 hi", "gpt2")
    [0, 1, 1, 2]
    """
    enc = get_encoding(encoding_name)
    return enc.decode_with_offsets(enc.encode_ordinary(text))[1]


def check_token_starts(token_starts) -> None:
    """token_starts(text, encoding_name) -> the character index where each token starts."""
    check_function(
        "token_starts",
        token_starts,
        [(args, token_starts_reference(*args)) for args in STARTS_CASES],
        points=3,
        hint=STARTS_HINT,
    )


# --- Task 4: digit chunks, from the left as cl100k_base cuts them, and from the right ---------

DIGIT_RUNS = [
    "",
    "7",
    "42",
    "123",
    "1234",
    "1887",
    "20240101",
    "1234567",
    "0000000000",
    "3141592653589",
    *number_sample(40, seed=3).replace(".", " ").split(),
]
DIGITS_HINT = (
    "from the left, as cl100k's \\p{N}{1,3}: take three digits at a time from the start, so "
    "only the last chunk can be shorter; from the right, as people group thousands: only the "
    "first chunk can be shorter (len(digits) % 3 digits, or 3 when that is 0); '' gives []."
)


def digit_chunks_reference(digits: str, from_right: bool = False) -> list[str]:
    """Chunks of three digits, from the left as cl100k_base cuts them or from the right.

    >>> digit_chunks_reference("1234567"), digit_chunks_reference("1234567", True)
    (['123', '456', '7'], ['1', '234', '567'])
    """
    if not from_right:
        cl100k = get_encoding("cl100k_base")
        return [cl100k.decode_single_token_bytes(i).decode() for i in cl100k.encode(digits)]
    if not digits:
        return []
    head = len(digits) % 3 or 3  # from the right, only the first chunk can be short
    return [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]


def _digit_calls() -> list[tuple]:
    """Every run from the left (the default) and from the right."""
    return [(run,) for run in DIGIT_RUNS] + [(run, True) for run in DIGIT_RUNS]


def check_digit_chunks(digit_chunks) -> None:
    """digit_chunks(digits, from_right=False) -> chunks of up to three digits."""
    check_function(
        "digit_chunks",
        digit_chunks,
        [(args, digit_chunks_reference(*args)) for args in _digit_calls()],
        points=2,
        hint=DIGITS_HINT,
    )


# --- Task 5: which years does GPT-2 split? (unchanged) ----------------------------------------

YEARS_HINT = (
    "encode ' 1900', ' 1901', ... (with the space, as a year appears in a sentence) and keep "
    "the years whose encoding has more than one id, in increasing order."
)


def split_years_reference() -> list[int]:
    """Years 1900–2099 that gpt2 encodes as more than one token after a space."""
    gpt2 = get_encoding("gpt2")
    return [year for year in range(1900, 2100) if len(gpt2.encode(f" {year}")) > 1]


def check_split_years(split_years) -> None:
    """split_years == years 1900–2099 that gpt2 encodes as more than one token after a space."""
    check_value("split_years", split_years, split_years_reference(), points=2, hint=YEARS_HINT)


# --- what the judge needs (see book.checks.core) ----------------------------------------------

# tiktoken is the tool of this chapter, so it stays; the book's measurements are out of reach.
REFERENCE = ("book.analysis",)


_PARTIAL_ANSWERS = ("partial_share", "partial_top3", "partial_answer")


def _passages_label(args: tuple) -> str:
    """passages_by_tokens(passages['Amharic'], 'o200k_base', 7)."""
    return _label("passages_by_tokens", args)


def _partial_label(args: tuple) -> str:
    """partial_share('नमस्ते दुनिया', 'gpt2')."""
    return _label("partial_share", args)


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 08's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    texts = [random_text(rng, rng.randint(1, 12)) for _ in range(4)]
    texts.append(window(rng, corpora.code("python"), 300))
    passages_hidden = [(text, rng.choice(ENCODINGS), rng.randint(1, 9)) for text in texts]
    partial_hidden = [(text, rng.choice(ENCODINGS)) for text in texts]
    starts_hidden = [(text, rng.choice(ENCODINGS)) for text in texts]
    secret_runs = [
        "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25))) for _ in range(6)
    ]
    digits_hidden = [(run, rng.random() < 0.5) for run in secret_runs]
    partial = calls_of(
        "partial_share", PARTIAL_TEXTS, partial_share_reference, label=_partial_label
    )
    partial += calls_of(
        "partial_share",
        partial_hidden,
        partial_share_reference,
        hidden=True,
        label=_partial_label,
    )
    partial += [
        Call("partial_top3", "partial_top3", (), partial_top3_reference()),
        Call("partial_answer", "partial_answer", (), PARTIAL_ANSWER),
    ]
    return [
        Task(
            "passages_by_tokens",
            3,
            ("passages_by_tokens",),
            calls_of(
                "passages_by_tokens", _passages_calls(), passages_reference, label=_passages_label
            )
            + calls_of(
                "passages_by_tokens",
                passages_hidden,
                passages_reference,
                hidden=True,
                label=_passages_label,
            ),
            hint=PASSAGES_HINT,
        ),
        Task("partial_share", 3, _PARTIAL_ANSWERS, partial, hint=PARTIAL_HINT, compare=close),
        function_task(
            "token_starts",
            3,
            STARTS_CASES,
            token_starts_reference,
            hidden=starts_hidden,
            hint=STARTS_HINT,
        ),
        function_task(
            "digit_chunks",
            2,
            _digit_calls(),
            digit_chunks_reference,
            hidden=digits_hidden,
            hint=DIGITS_HINT,
        ),
        value_task("split_years", 2, split_years_reference(), hint=YEARS_HINT),
    ]
