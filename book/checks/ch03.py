"""Checks of exercises/03_words.ipynb. The reference is book.tokenizers.words.

Cases mix Shakespeare with apostrophes, numbers, accents (precomposed and combining), scripts
with vowel signs, emoji and ties in the counts, so that no constant or shortcut passes.
"""

from __future__ import annotations

import random

import math

from book import corpora
from book.checks.core import Case, check_cases, check_function
from book.checks.spec import Call, Task, calls_of, function_task, random_text, window
from book.checks.ch02 import result_or_error as error_kind
from book.analysis import oov_curve, oov_rate
from book.tokenizers.base import UNK
from book.tokenizers.words import (
    WordTokenizer,
    split_words,
    vocab_from_counts,
    word_counts,
)

TEXTS = [
    "When the hurlyburly's done,\nWhen the battle's lost and won.",
    "'Gainst my captivity. Hail, brave friend!",
    "Don't panic: it's 42, not 3.14...",
    "well-known   dogs' bones\t(and cats’) — I’m sure",
    "Zürich, naïve café = cafe\u0301",
    "हिन्दी भाषा, русский язык!",
    "emoji 👍🏽 and #hashtags & 100% [brackets]",
    "",
    "   ",
]
VOCAB = ["the", ",", "cat", "sat", "on", "mat", "."]


def _tempest_words(limit: int | None = None) -> list[str]:
    """The words of the held-out play (the first ``limit`` of them)."""
    return split_words(corpora.english("heldout"))[:limit]


def _close(got, expected) -> bool:
    """Floats equal up to rounding; None only equals None."""
    if expected is None or got is None:
        return got is expected
    return math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)


def check_split_words(split_words_) -> None:
    """split_words(text) -> words (letters, marks, inner apostrophes), numbers, single other characters."""
    texts = [*TEXTS, corpora.english("heldout")[:800]]
    check_function("split_words", split_words_, [((text,), split_words(text)) for text in texts], points=3,
                   name="split_words",
                   hint=r"with the regex module: [\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)* for words, \p{N}+ "
                        r"for numbers, and one character of anything else that is not whitespace.")


def check_build_vocab(build_vocab) -> None:
    """build_vocab(words, min_freq, max_size) -> most frequent first, ties by first occurrence."""
    tempest = _tempest_words(3000)
    calls = []
    for words in ["b a c a c d".split(), "x y z".split(), "the cat sat on the mat".split(), [], tempest]:
        for min_freq, max_size in [(1, None), (2, None), (1, 3), (3, 0), (1, 100)]:
            expected = vocab_from_counts(word_counts(words), min_freq=min_freq, max_size=max_size)
            calls.append(((words, min_freq, max_size), expected))
    check_function("build_vocab", build_vocab, calls, points=3,
                   hint="count with collections.Counter, sort by count with a stable sort (sorted with "
                        "key=-count keeps first-occurrence order among ties), drop counts below min_freq, "
                        "then keep the first max_size (all of them when max_size is None).")


def check_oov_rate(oov_rate_) -> None:
    """oov_rate(vocab, words) -> the share of running words not in vocab."""
    tempest = _tempest_words(3000)
    train_vocab = vocab_from_counts(word_counts(split_words(corpora.english("train"))))
    calls = [
        ((["the", "cat"], "the dog the cat".split()), 0.25),
        ((["a"], ["a", "a"]), 0.0),
        (([], ["a", "b"]), 1.0),
        ((["The"], ["the", "The", "THE"]), oov_rate(["The"], ["the", "The", "THE"])),
        ((train_vocab[:100], tempest), oov_rate(train_vocab[:100], tempest)),
        ((train_vocab, tempest), oov_rate(train_vocab, tempest)),
    ]
    check_function("oov_rate", oov_rate_, calls, points=2, compare=_close, name="oov_rate",
                   hint="count every occurrence (tokens, not distinct words) and divide by len(words); "
                        "turn vocab into a set first, or it will be slow.")


def check_encode_decode(encode, decode) -> None:
    """encode(text, vocab) with <unk> = len(vocab); decode(ids, vocab) joins words with spaces."""
    reference = WordTokenizer(VOCAB, unk=True)
    cases = []
    for text in ["the cat sat on the mat.", "the dog sat, on the mat", "The Cat", "", " the\n\tcat "]:
        cases.append(Case(f"encode({text!r}, VOCAB)", lambda t=text: encode(t, list(VOCAB)), reference.encode(text)))
    for ids in [[0, 2, 3], [7, 1, 0], [], [6, 6]]:
        cases.append(Case(f"decode({ids!r}, VOCAB)", lambda i=ids: decode(list(i), list(VOCAB)), reference.decode(ids)))
    for bad in [8, -1]:
        cases.append(Case(f"decode([{bad}], VOCAB) should raise ValueError",
                          lambda b=bad: error_kind(decode, [b], list(VOCAB)), "ValueError"))
    train = corpora.english("train")
    big = WordTokenizer.train(train, min_freq=2, unk=True)
    line = "You did supplant your brother Prospero."
    cases.append(Case(f"encode({line!r}, shakespeare_vocab)", lambda: encode(line, list(big.vocab)), big.encode(line)))
    check_cases("encode_decode", {"encode": encode, "decode": decode}, cases, points=3,
                hint=f"split with your split_words, look each word up in a dict (unknown words get "
                     f"len(vocab)); decode maps len(vocab) to {UNK!r}, joins with ' ' and raises "
                     "ValueError for any other id outside the vocabulary.")


def _smallest(train_words: list[str], heldout_words: list[str], target: float) -> int | None:
    """The reference: the first size whose OOV rate is at most target, from book's oov_curve."""
    sizes = range(len(set(train_words)) + 1)
    for size, rate in zip(sizes, oov_curve(word_counts(train_words), heldout_words, sizes)):
        if rate <= target:
            return size
    return None


def check_smallest_vocab(smallest_vocab) -> None:
    """smallest_vocab(train_words, heldout_words, target) -> fewest top words with OOV <= target."""
    train = split_words(corpora.english("train"))
    tempest = _tempest_words(2000)
    calls = [((train, tempest, target), _smallest(train, tempest, target)) for target in (0.5, 0.3, 0.2, 0.15, 0.05)]
    toy_train, toy_heldout = "a a a b b c".split(), "a b c d".split()
    calls += [((toy_train, toy_heldout, target), _smallest(toy_train, toy_heldout, target))
              for target in (1.0, 0.75, 0.5, 0.3, 0.25, 0.2)]
    check_function("smallest_vocab", smallest_vocab, calls, points=2,
                   hint="rank the training words by count (your build_vocab) and grow the vocabulary one "
                        "word at a time until the OOV rate is at most target; return None if even the "
                        "whole training vocabulary stays above it.")


# --- what the judge needs (see book.checks.core) --------------------------------------------------

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")


def _random_words(rng: random.Random, n: int) -> list[str]:
    """n words from a small alphabet, so that counts tie and min_freq matters."""
    return [rng.choice(["a", "b", "c", "the", "cat", "sat", "mat", "x", "y"]) for _ in range(n)]


def _build_vocab_reference(words: list[str], min_freq: int, max_size: int | None) -> list[str]:
    """The reference vocabulary: most frequent first, ties by first occurrence."""
    return vocab_from_counts(word_counts(words), min_freq=min_freq, max_size=max_size)


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 03's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    texts = [random_text(rng, rng.randint(1, 10)) for _ in range(4)]
    texts.append(window(rng, corpora.english("heldout"), 400))
    tempest = _tempest_words(3000)
    lists = [_random_words(rng, rng.randint(1, 30)) for _ in range(3)]
    vocab_fixed = [
        (words, min_freq, max_size)
        for words in [
            "b a c a c d".split(),
            "x y z".split(),
            "the cat sat on the mat".split(),
            [],
            tempest,
        ]
        for min_freq, max_size in [(1, None), (2, None), (1, 3), (3, 0), (1, 100)]
    ]
    vocab_hidden = [
        (words, rng.randint(1, 3), rng.choice([None, rng.randint(0, 6)])) for words in lists
    ]
    train_vocab = vocab_from_counts(word_counts(split_words(corpora.english("train"))))
    oov_fixed = [
        (["the", "cat"], "the dog the cat".split()),
        (["a"], ["a", "a"]),
        ([], ["a", "b"]),
        (["The"], ["the", "The", "THE"]),
        (train_vocab[:100], tempest),
        (train_vocab, tempest),
    ]
    oov_hidden = [
        (sorted(set(rng.sample(words, rng.randint(0, len(words))))), words) for words in lists
    ]
    oov_hidden.append((train_vocab[: rng.randint(10, 2000)], tempest[rng.randint(0, 1000) :]))
    reference = WordTokenizer(VOCAB, unk=True)
    big = WordTokenizer.train(corpora.english("train"), min_freq=2, unk=True)
    sentences = [
        " ".join(rng.choice(VOCAB + ["dog", "The", "ran"]) for _ in range(rng.randint(0, 9)))
        for _ in range(3)
    ]
    encode_decode = [
        Call(
            f"encode({text!r}, VOCAB)",
            "encode(a0, a1)",
            (text, VOCAB),
            reference.encode(text),
            hidden,
        )
        for text, hidden in [
            (t, False)
            for t in [
                "the cat sat on the mat.",
                "the dog sat, on the mat",
                "The Cat",
                "",
                " the\n\tcat ",
            ]
        ]
        + [(t, True) for t in sentences]
    ]
    ids_lists = [[0, 2, 3], [7, 1, 0], [], [6, 6], [8], [-1]]
    hidden_ids = [[rng.randint(0, len(VOCAB)) for _ in range(rng.randint(0, 8))] for _ in range(3)]
    hidden_ids.append([rng.choice([len(VOCAB) + rng.randint(1, 5), -rng.randint(1, 5)])])
    encode_decode += calls_of("decode", [(ids, VOCAB) for ids in ids_lists], _decode_words)
    encode_decode += calls_of(
        "decode", [(ids, VOCAB) for ids in hidden_ids], _decode_words, hidden=True
    )
    line = window(rng, corpora.english("heldout"), 120)
    encode_decode += [
        Call(
            f"encode({text!r}, shakespeare_vocab)",
            "encode(a0, a1)",
            (text, list(big.vocab)),
            big.encode(text),
            text == line,
        )
        for text in ["You did supplant your brother Prospero.", line]
    ]
    train = split_words(corpora.english("train"))
    small = _tempest_words(2000)
    toy_train, toy_heldout = "a a a b b c".split(), "a b c d".split()
    smallest = [
        Call(
            f"smallest_vocab(train_words, tempest_words, {target})",
            "smallest_vocab(list(TRAIN), list(HELD), a0)",
            (target,),
            _smallest(train, small, target),
            hidden,
        )
        for target, hidden in [(t, False) for t in (0.5, 0.3, 0.2, 0.15, 0.05)]
        + [(round(rng.uniform(0.05, 0.6), 3), True) for _ in range(3)]
    ]
    smallest += calls_of(
        "smallest_vocab",
        [(toy_train, toy_heldout, t) for t in (1.0, 0.75, 0.5, 0.3, 0.25, 0.2)],
        _smallest,
    )
    smallest += calls_of(
        "smallest_vocab",
        [(words, _random_words(rng, 6), round(rng.uniform(0, 1), 2)) for words in lists],
        _smallest,
        hidden=True,
    )
    return [
        function_task(
            "split_words",
            3,
            [(text,) for text in [*TEXTS, corpora.english("heldout")[:800]]],
            split_words,
            hidden=[(text,) for text in texts],
            hint=r"with the regex module: [\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)* for words, \p{N}+ "
            r"for numbers, and one character of anything else that is not whitespace.",
        ),
        function_task(
            "build_vocab",
            3,
            vocab_fixed,
            _build_vocab_reference,
            hidden=vocab_hidden,
            hint="count with collections.Counter, sort by count with a stable sort (sorted with "
            "key=-count keeps first-occurrence order among ties), drop counts below min_freq, "
            "then keep the first max_size (all of them when max_size is None).",
        ),
        function_task(
            "oov_rate",
            2,
            oov_fixed,
            oov_rate,
            hidden=oov_hidden,
            compare=_close,
            hint="count every occurrence (tokens, not distinct words) and divide by len(words); "
            "turn vocab into a set first, or it will be slow.",
        ),
        Task(
            "encode_decode",
            3,
            ("encode", "decode"),
            encode_decode,
            hint=f"split with your split_words, look each word up in a dict (unknown words get "
            f"len(vocab)); decode maps len(vocab) to {UNK!r}, joins with ' ' and raises "
            "ValueError for any other id outside the vocabulary.",
        ),
        Task(
            "smallest_vocab",
            2,
            ("smallest_vocab",),
            smallest,
            data={"TRAIN": train, "HELD": small},
            hint="rank the training words by count (your build_vocab) and grow the vocabulary one "
            "word at a time until the OOV rate is at most target; return None if even the "
            "whole training vocabulary stays above it.",
        ),
    ]


def _decode_words(ids: list[int], vocab: list[str]) -> str:
    """The reference word decoder: ValueError for an id outside 0..len(vocab)."""
    if any(not 0 <= i <= len(vocab) for i in ids):
        raise ValueError("unknown id")
    return WordTokenizer(vocab, unk=True).decode(ids)
