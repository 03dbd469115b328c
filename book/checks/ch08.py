"""Checks of exercises/08_real_tokenizers.ipynb. The reference is tiktoken, loaded offline.

Every expected value is computed here from the encodings themselves (``book.encodings``), on
texts that mix scripts, emoji, numbers and whitespace, so that no constant passes.
"""

from __future__ import annotations

import random

import math
from collections.abc import Mapping

from book import corpora
from book.checks.core import Case, check_cases, check_function, check_value, raised
from book.checks.spec import Task, calls_of, function_task, random_text, value_task, window
from book.encodings import get_encoding
from book.text_types import json_sample, number_sample, url_sample

TEXTS = [
    "Hello, world! How are you?",
    "",
    "   trailing and leading spaces   ",
    "def fibonacci(n):\n    return n if n <= 1 else fibonacci(n-1) + fibonacci(n-2)\n",
    "In 1887, Maria asked for 3 books: 1,234,567 words at $2.50 each.",
    "नमस्ते दुनिया — こんにちは世界 — مرحبا بالعالم",
    "👨‍👩‍👧‍👦 and 🌍 and a <|endoftext|> in plain text",
]
ENCODINGS = ("gpt2", "cl100k_base", "o200k_base")


def _n_tokens(text: str, encoding_name: str) -> int:
    """Tokens of text, with special tokens' text counted as ordinary text."""
    return len(get_encoding(encoding_name).encode_ordinary(text))


def _cost_close(got, expected) -> bool:
    """(n_tokens, usd): the count exactly, the price up to rounding."""
    return (isinstance(got, tuple) and len(got) == 2 and type(got[0]) is int and got[0] == expected[0]
            and isinstance(got[1], float) and math.isclose(got[1], expected[1], rel_tol=1e-9, abs_tol=1e-15))


def check_prompt_cost(prompt_cost) -> None:
    """prompt_cost(text, encoding_name, usd_per_million) -> (tokens, price in USD)."""
    cases = []
    for i, text in enumerate([*TEXTS, corpora.parallel()["Hindi"], corpora.code("c")]):
        name = ENCODINGS[i % len(ENCODINGS)]
        price = [2.5, 0.15, 10.0, 1.1][i % 4]
        n = _n_tokens(text, name)
        cases.append(((text, name, price), (n, n * price / 1_000_000)))
    cases.append(((TEXTS[4], "o200k_base", 0.0), (_n_tokens(TEXTS[4], "o200k_base"), 0.0)))
    check_function("prompt_cost", prompt_cost, cases, points=3, compare=_cost_close,
                   hint="n = len(enc.encode_ordinary(text)) with enc = get_encoding(encoding_name); "
                        "the price is n * usd_per_million / 1_000_000, returned as (n, float).")


def _premium(passages: Mapping[str, str], encoding_names, reference: str) -> dict[str, dict[str, float]]:
    """The reference premium table: {encoding: {language: tokens / tokens of reference}}."""
    table = {}
    for name in encoding_names:
        counts = {language: _n_tokens(text, name) for language, text in passages.items()}
        table[name] = {language: n / counts[reference] for language, n in counts.items()}
    return table


def _table_close(got, expected) -> bool:
    """Nested dicts with the same keys in the same order and floats equal up to rounding.

    An expected str is the name of an exception the call must raise (see ``raised``).
    """
    if isinstance(expected, str):
        return got == expected
    if not isinstance(got, dict) or list(got) != list(expected):
        return False
    return all(isinstance(got[name], dict) and list(got[name]) == list(expected[name])
               and all(isinstance(got[name][lang], float)
                       and math.isclose(got[name][lang], ratio, rel_tol=1e-9)
                       for lang, ratio in expected[name].items())
               for name in expected)


def check_premium_table(premium_table) -> None:
    """premium_table(passages, encoding_names, reference) -> {encoding: {language: ratio}}."""
    passages = corpora.parallel()
    some = {language: passages[language] for language in ["Hindi", "French", "Amharic", "Chinese"]}
    made_up = {"plain": "the cat sat on the mat", "shout": "THE CAT SAT ON THE MAT",
               "spaced": "t h e  c a t"}
    calls = [
        ((passages, ["gpt2", "o200k_base"], "English"), _premium(passages, ["gpt2", "o200k_base"], "English")),
        ((some, ["cl100k_base"], "French"), _premium(some, ["cl100k_base"], "French")),
        ((made_up, list(ENCODINGS), "spaced"), _premium(made_up, ENCODINGS, "spaced")),
    ]
    cases = [Case(f"premium_table(passages of {list(args[0])[:4]}…, {args[1]}, {args[2]!r})",
                  lambda args=args: premium_table(*args), expected) for args, expected in calls]
    cases.append(Case("premium_table(passages, ['o200k_base'], 'Klingon') should raise ValueError",
                      lambda: raised(premium_table, some, ["o200k_base"], "Klingon"), "ValueError"))
    check_cases("premium_table", {"premium_table": premium_table}, cases, points=3, compare=_table_close,
                hint="count each passage's tokens once per encoding, then divide by the count of the "
                     "reference language; keep the order of encoding_names and of passages; raise "
                     "ValueError when reference is not a key of passages.")


def check_tokens_only_in(tokens_only_in) -> None:
    """tokens_only_in(text, other, encoding_name) -> sorted ids text uses and other never does."""
    def expected(text: str, other: str, name: str) -> list[int]:
        enc = get_encoding(name)
        return sorted(set(enc.encode_ordinary(text)) - set(enc.encode_ordinary(other)))

    python, plays = corpora.code("python"), corpora.english("all")
    calls = [
        ("the cat sat on the mat", "the dog sat", "gpt2"),
        ("the dog sat", "the cat sat on the mat", "gpt2"),
        ("same text", "same text", "o200k_base"),
        ("", "anything", "cl100k_base"),
        ("Hello 😀 World 🌍", "Hello World", "cl100k_base"),
        (python, plays, "r50k_base"),
        (plays, python, "r50k_base"),
        (json_sample(), url_sample(), "o200k_base"),
    ]
    check_function("tokens_only_in", tokens_only_in,
                   [((text, other, name), expected(text, other, name)) for text, other, name in calls],
                   points=3,
                   hint="encode both texts, take the set difference of their ids, and return it as a "
                        "sorted list of ints.")


def check_digit_chunks(digit_chunks) -> None:
    """digit_chunks(digits) -> the chunks cl100k_base cuts a run of ASCII digits into."""
    cl100k = get_encoding("cl100k_base")
    runs = ["7", "42", "123", "1234", "1887", "20240101", "1234567", "0000000000", "3141592653589",
            *number_sample(40, seed=3).replace(".", " ").split()]
    calls = [((run,), [cl100k.decode_single_token_bytes(i).decode() for i in cl100k.encode(run)])
             for run in runs]
    check_function("digit_chunks", digit_chunks, calls, points=2,
                   hint="cl100k's pattern \\p{N}{1,3} takes up to three digits at a time from the left, "
                        "so only the last chunk can be shorter.")


def check_split_years(split_years) -> None:
    """split_years == years 1900–2099 that gpt2 encodes as more than one token after a space."""
    gpt2 = get_encoding("gpt2")
    expected = [year for year in range(1900, 2100) if len(gpt2.encode(f" {year}")) > 1]
    check_value("split_years", split_years, expected, points=2,
                hint="encode ' 1900', ' 1901', ... (with the space, as a year appears in a sentence) "
            "and "
                     "keep the years whose encoding has more than one id, in increasing order.")


# --- what the judge needs (see book.checks.core) --------------------------------------------------

# tiktoken is the tool of this chapter, so it stays; the book's measurements are out of reach.
REFERENCE = ("book.analysis",)


def _prompt_cost_reference(text: str, name: str, price: float) -> tuple[int, float]:
    """(tokens, USD) with special tokens' text counted as ordinary text."""
    n = _n_tokens(text, name)
    return n, n * price / 1_000_000


def _premium_reference(passages: dict[str, str], names: list[str], reference: str) -> dict:
    """The premium table, or ValueError for an unknown reference language."""
    if reference not in passages:
        raise ValueError(f"{reference!r} is not a language of passages")
    return _premium(passages, names, reference)


def _tokens_only_in_reference(text: str, other: str, name: str) -> list[int]:
    """Sorted ids that text uses and other never does."""
    enc = get_encoding(name)
    return sorted(set(enc.encode_ordinary(text)) - set(enc.encode_ordinary(other)))


def _digit_chunks_reference(run: str) -> list[str]:
    """cl100k_base's chunks of a run of digits."""
    cl100k = get_encoding("cl100k_base")
    return [cl100k.decode_single_token_bytes(i).decode() for i in cl100k.encode(run)]


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 08's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    texts = [random_text(rng, rng.randint(1, 12)) for _ in range(3)] + [
        window(rng, corpora.code("python"), 300)
    ]
    cost_fixed = [
        (text, ENCODINGS[i % 3], [2.5, 0.15, 10.0, 1.1][i % 4])
        for i, text in enumerate([*TEXTS, corpora.parallel()["Hindi"], corpora.code("c")])
    ]
    cost_fixed.append((TEXTS[4], "o200k_base", 0.0))
    cost_hidden = [(text, rng.choice(ENCODINGS), round(rng.uniform(0.05, 20), 2)) for text in texts]
    passages = corpora.parallel()
    some = {language: passages[language] for language in ["Hindi", "French", "Amharic", "Chinese"]}
    made_up = {
        "plain": "the cat sat on the mat",
        "shout": "THE CAT SAT ON THE MAT",
        "spaced": "t h e  c a t",
    }
    chosen = rng.sample(sorted(passages), 4)
    secret = {language: passages[language] for language in chosen}
    premium_fixed = [
        (passages, ["gpt2", "o200k_base"], "English"),
        (some, ["cl100k_base"], "French"),
        (made_up, list(ENCODINGS), "spaced"),
        (some, ["o200k_base"], "Klingon"),
    ]
    premium_hidden = [
        (secret, rng.sample(ENCODINGS, 2), rng.choice(chosen)),
        ({f"t{i}": text for i, text in enumerate(texts)}, ["cl100k_base"], "t1"),
    ]
    premium = calls_of(
        "premium_table",
        premium_fixed,
        _premium_reference,
        label=lambda args: (
            f"premium_table(passages of {list(args[0])[:4]}…, {args[1]}, {args[2]!r})"
        ),
    )
    premium += calls_of(
        "premium_table",
        premium_hidden,
        _premium_reference,
        hidden=True,
        label=lambda args: (
            f"premium_table(passages of {list(args[0])[:4]}…, {args[1]}, {args[2]!r})"
        ),
    )
    python, plays = corpora.code("python"), corpora.english("all")
    only_fixed = [
        ("the cat sat on the mat", "the dog sat", "gpt2"),
        ("the dog sat", "the cat sat on the mat", "gpt2"),
        ("same text", "same text", "o200k_base"),
        ("", "anything", "cl100k_base"),
        ("Hello 😀 World 🌍", "Hello World", "cl100k_base"),
        (python, plays, "r50k_base"),
        (plays, python, "r50k_base"),
        (json_sample(), url_sample(), "o200k_base"),
    ]
    only_hidden = [(a, b, rng.choice(ENCODINGS)) for a, b in zip(texts, texts[1:] + texts[:1])]
    runs = [
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
    secret_runs = [
        "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25))) for _ in range(6)
    ]
    gpt2 = get_encoding("gpt2")
    return [
        function_task(
            "prompt_cost",
            3,
            cost_fixed,
            _prompt_cost_reference,
            hidden=cost_hidden,
            compare=_cost_close,
            hint="n = len(enc.encode_ordinary(text)) with enc = get_encoding(encoding_name); "
            "the price is n * usd_per_million / 1_000_000, returned as (n, float).",
        ),
        Task(
            "premium_table",
            3,
            ("premium_table",),
            premium,
            compare=_table_close,
            hint="count each passage's tokens once per encoding, then divide by the count of the "
            "reference language; keep the order of encoding_names and of passages; raise "
            "ValueError when reference is not a key of passages.",
        ),
        function_task(
            "tokens_only_in",
            3,
            only_fixed,
            _tokens_only_in_reference,
            hidden=only_hidden,
            hint="encode both texts, take the set difference of their ids, and return it as a "
            "sorted list of ints.",
        ),
        function_task(
            "digit_chunks",
            2,
            [(run,) for run in runs],
            _digit_chunks_reference,
            hidden=[(run,) for run in secret_runs],
            hint="cl100k's pattern \\p{N}{1,3} takes up to three digits at a time from the left, "
            "so only the last chunk can be shorter.",
        ),
        value_task(
            "split_years",
            2,
            [year for year in range(1900, 2100) if len(gpt2.encode(f" {year}")) > 1],
            hint="encode ' 1900', ' 1901', ... (with the space, as a year appears in a sentence) "
            "and "
            "keep the years whose encoding has more than one id, in increasing order.",
        ),
    ]
