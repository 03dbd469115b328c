"""Checks of exercises/03_words.ipynb. The references are small functions written here.

Each task asks for something the chapter did not write: a word split that keeps the spacing
(so the round trip is exact), a vocabulary under a budget in bytes, the tail of a Zipfian
text counted by types and by tokens with a question, a lowercase vocabulary with a record of
what lowercasing lost, and the smallest vocabulary for a target OOV rate. Cases mix
Shakespeare with apostrophes, numbers, accents (precomposed and combining), scripts with
vowel signs, emoji, whitespace runs and ties in the counts, so no constant or shortcut passes.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import regex

from book import corpora
from book.analysis import oov_curve
from book.checks.answers import choice, close, result_or_error, verdict
from book.checks.core import Case, check_cases, check_function
from book.checks.spec import Call, Task, calls_of, random_text, window
from book.tokenizers.basic.words import split_words, word_counts

TEXTS = [
    "When the hurlyburly's done,\nWhen the battle's lost and won.",
    "'Gainst my captivity. Hail, brave friend!",
    "Don't panic: it's 42, not 3.14...",
    "well-known   dogs' bones\t(and cats’) — I’m sure",
    "Zürich, naïve café = cafe\u0301",
    "हिन्दी भाषा, русский язык!",
    "emoji 👍🏽 and #hashtags & 100% [brackets]",
    "  two\u00a0spaces\r\n\n",
    "",
    "   ",
]
WORD = r"[\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)*"
SPLIT_PATTERN = regex.compile(rf"{WORD}|\p{{N}}+|\s+|[^\s\p{{L}}\p{{M}}\p{{N}}]")


def _tempest_words(limit: int | None = None) -> list[str]:
    """The words of the held-out play (the first ``limit`` of them)."""
    return split_words(corpora.english("heldout"))[:limit]


def _label(name: str, args: tuple, names: dict[int, str] | None = None) -> str:
    """A call as the learner reads it, long arguments named (names: position -> name)."""
    shown = [repr(arg) for arg in args]
    for position, name_ in (names or {}).items():
        shown[position] = name_
    text = f"{name}({', '.join(shown)})"
    return text if len(text) <= 160 else text[:159] + "…"


# --- Task 1: a word split that keeps the spacing ----------------------------------------------

SPLIT_HINT = (
    r"one regex, four alternatives in this order: [\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)* for words, "
    r"\p{N}+ for numbers, \s+ for a run of whitespace (one token per run, not per space), and "
    r"any other single character; ''.join(tokens) must give the text back."
)


def split_keep_spaces_reference(text: str) -> list[str]:
    """Words, numbers, whitespace runs and single other characters; they join to text.

    >>> split_keep_spaces_reference("Don't  go!\\n")
    ["Don't", '  ', 'go', '!', '\\n']
    """
    return SPLIT_PATTERN.findall(text)


def _split_texts() -> list[str]:
    """The fixed texts: made-up ones and the start of the held-out play."""
    return [*TEXTS, corpora.english("heldout")[:800]]


def check_split_keep_spaces(split_keep_spaces) -> None:
    """split_keep_spaces(text) -> tokens, whitespace runs included, that join back to text."""
    check_function(
        "split_keep_spaces",
        split_keep_spaces,
        [((text,), split_keep_spaces_reference(text)) for text in _split_texts()],
        points=3,
        hint=SPLIT_HINT,
    )


# --- Task 2: a vocabulary under a budget in bytes ---------------------------------------------

BUDGET_HINT = (
    "rank by count, ties by first occurrence (a stable sort on -count), then add words in that "
    "order while the total of len(word.encode('utf-8')) stays at most max_bytes (bytes, not "
    "characters: 'naïve' takes 6); stop at the first word that does not fit; do not sort words "
    "in place; a negative max_bytes raises ValueError."
)


def vocab_under_budget_reference(words: list[str], max_bytes: int) -> list[str]:
    """The longest prefix of the frequency ranking whose UTF-8 bytes add up to max_bytes or less.

    >>> vocab_under_budget_reference("b a c a c d".split(), 2)
    ['a', 'c']
    """
    if max_bytes < 0:
        raise ValueError(f"max_bytes must be 0 or more, not {max_bytes}")
    counts = Counter(words)
    vocab, used = [], 0
    for word in sorted(counts, key=lambda word: -counts[word]):
        used += len(word.encode("utf-8"))
        if used > max_bytes:
            break
        vocab.append(word)
    return vocab


def _budget_calls() -> list[tuple]:
    """The fixed cases: ties, scripts where bytes and characters differ, the held-out play."""
    toy = "b a c a c d".split()
    accents = ["naïve", "cafe", "naïve", "日本", "cafe", "日本", "x"]
    calls = [(toy, budget) for budget in (0, 1, 2, 3, 4, 100)]
    calls += [(accents, budget) for budget in (4, 5, 6, 9, 10, 15, 16, 17)]
    calls += [([], 10), (_tempest_words(3000), 300), (_tempest_words(3000), 2000), (toy, -1)]
    return calls


def _budget_names(args: tuple) -> dict[int, str]:
    """Name the held-out words in labels instead of listing them."""
    return {0: "tempest_words"} if len(args[0]) > 50 else {}


def check_vocab_under_budget(vocab_under_budget) -> None:
    """vocab_under_budget(words, max_bytes) -> top words whose UTF-8 sizes fit the budget."""
    cases = [
        Case(
            _label("vocab_under_budget", args, _budget_names(args)),
            lambda args=args: result_or_error(vocab_under_budget, list(args[0]), args[1]),
            result_or_error(vocab_under_budget_reference, *args),
        )
        for args in _budget_calls()
    ]
    words = "b a c a c d".split()
    cases.append(
        Case(
            "words after vocab_under_budget(words, 3) are unchanged",
            lambda: _words_after(vocab_under_budget, list(words), 3),
            words,
        )
    )
    check_cases(
        "vocab_under_budget",
        {"vocab_under_budget": vocab_under_budget},
        cases,
        points=3,
        hint=BUDGET_HINT,
    )


def _words_after(function, words: list[str], max_bytes: int) -> list[str]:
    """words after function(words, max_bytes): a function must not change its input."""
    function(words, max_bytes)
    return words


# --- Task 3: the tail, by types and by tokens, and a question ---------------------------------

HAPAX_CASES = [
    ("a b a c".split(), 4),
    ("a b a c".split(), 2),
    ("a b a c".split(), 3),
    ("a b a c".split(), 99),
    ("a a a".split(), 3),
    ("x y z".split(), 1),
    ([], 5),
    ("a b".split(), 0),
]
HAPAX_SIZES = (1_000, 10_000, None)  # None: every word of the plays
TAIL_ANSWER = "c"  # over half the types are seen once, yet they are under a tenth of the tokens
HAPAX_HINT = (
    "read words[:n] (all of them when n is larger); the first share is the distinct words "
    "(types) seen exactly once divided by the number of distinct words, the second is the "
    "running words (tokens) that are those words divided by the number of words read; n < 1 or "
    "no words raises ValueError. tail_shares is [hapax_share(play_words, n) for n in (1_000, "
    "10_000, len(play_words))]; tail_answer is one letter."
)


def hapax_share_reference(words: list[str], n: int) -> tuple[float, float]:
    """(share of types seen once, share of tokens that are those) among the first n words.

    >>> hapax_share_reference("a b a c".split(), 4)
    (0.6666666666666666, 0.5)
    """
    if n < 1 or not words:
        raise ValueError("read at least one word")
    read = words[:n]
    counts = Counter(read)
    once = sum(1 for count in counts.values() if count == 1)
    return once / len(counts), once / len(read)


@cache
def _play_words() -> tuple[str, ...]:
    """The words of the three plays, as the exercise notebook gives them to the learner."""
    return tuple(regex.findall(r"\p{L}+(?:'\p{L}+)*", corpora.english("all")))


def play_words() -> list[str]:
    """The words of the three plays (letters with inner apostrophes), in order."""
    return list(_play_words())


def tail_shares_reference() -> list[tuple[float, float]]:
    """hapax_share over the first 1,000 and 10,000 words of the plays, and over all of them."""
    words = play_words()
    return [hapax_share_reference(words, size or len(words)) for size in HAPAX_SIZES]


def check_hapax(hapax_share, tail_shares, tail_answer) -> None:
    """hapax_share(words, n); its shares over the plays; the letter of the statement they back."""
    cases = [
        Case(
            _label("hapax_share", args),
            lambda args=args: result_or_error(hapax_share, list(args[0]), args[1]),
            result_or_error(hapax_share_reference, *args),
        )
        for args in HAPAX_CASES
    ]
    cases.append(
        Case("tail_shares", lambda: verdict(tail_shares, tail_shares_reference(), close), "right")
    )
    cases.append(Case("tail_answer", lambda: choice(tail_answer, TAIL_ANSWER), "right"))
    check_cases(
        "hapax",
        {"hapax_share": hapax_share, "tail_shares": tail_shares, "tail_answer": tail_answer},
        cases,
        points=3,
        hint=HAPAX_HINT,
        compare=close,
    )


# --- Task 4: a lowercase vocabulary, and a record of what lowercasing lost --------------------

FOLD_VOCAB = ["the", " ", "cat", "sat", "on", "mat", ".", ",", "\n"]
FOLD_TEXTS = [
    "the cat sat on the mat.",
    "The Cat SAT on the mat",
    "the  cat\n",
    "The dog sat.",
    "McBeth, the CAT",
    "İstanbul the",
    "",
]
FOLD_HINT = (
    "tokens from your split_keep_spaces; the id is the index of token.lower() in vocab "
    "(len(vocab) when absent); record[i] is None when the token is exactly vocab[id], else the "
    "original token; decode takes record[i] when it is not None, else vocab[id], and joins with "
    "''; it raises ValueError for an id outside 0 … len(vocab), for the <unk> id without a "
    "record, and when ids and record differ in length."
)


def encode_folded_reference(text: str, vocab: list[str]) -> tuple[list[int], list[str | None]]:
    """Ids of the lowercased tokens, and the original token wherever it is not the entry.

    >>> encode_folded_reference("The cat", ["the", " ", "cat"])
    ([0, 1, 2], ['The', None, None])
    """
    stoi = {token: i for i, token in enumerate(vocab)}
    ids, record = [], []
    for token in split_keep_spaces_reference(text):
        token_id = stoi.get(token.lower(), len(vocab))
        ids.append(token_id)
        record.append(None if token_id < len(vocab) and vocab[token_id] == token else token)
    return ids, record


def decode_folded_reference(ids: list[int], record: list[str | None], vocab: list[str]) -> str:
    """The text back: each recorded token, else the vocabulary entry."""
    if len(ids) != len(record):
        raise ValueError(f"{len(ids)} ids but {len(record)} record entries")
    pieces = []
    for token_id, kept in zip(ids, record):
        if not 0 <= token_id <= len(vocab) or (kept is None and token_id == len(vocab)):
            raise ValueError(f"id {token_id} names no token")
        pieces.append(vocab[token_id] if kept is None else kept)
    return "".join(pieces)


@cache
def _plays_lower() -> tuple[str, ...]:
    """The lowercased tokens of the training plays seen at least twice, most frequent first."""
    counts = Counter(token.lower() for token in SPLIT_PATTERN.findall(corpora.english("train")))
    return tuple(token for token, count in counts.most_common() if count >= 2)


def plays_lower_vocab() -> list[str]:
    """A fresh copy of the lowercase vocabulary of the plays (min_freq 2)."""
    return list(_plays_lower())


def _decode_errors() -> list[tuple]:
    """Calls of decode_folded that must raise ValueError."""
    n = len(FOLD_VOCAB)
    return [([0, 1], [None], FOLD_VOCAB), ([n], [None], FOLD_VOCAB), ([n + 1], ["x"], FOLD_VOCAB)]


def check_encode_decode_folded(encode_folded, decode_folded) -> None:
    """encode_folded(text, vocab) -> (ids, record); decode_folded(ids, record, vocab) -> text."""
    cases = [
        Case(
            _label("encode_folded", (text, FOLD_VOCAB)),
            lambda text=text: encode_folded(text, list(FOLD_VOCAB)),
            encode_folded_reference(text, FOLD_VOCAB),
        )
        for text in FOLD_TEXTS
    ]
    vocab = plays_lower_vocab()
    for text in [corpora.english("heldout")[:300], *FOLD_TEXTS, TEXTS[3], TEXTS[4]]:
        cases.append(
            Case(
                f"decode_folded(*encode_folded({text[:40]!r}, plays_vocab), plays_vocab)",
                lambda text=text: decode_folded(*encode_folded(text, list(vocab)), list(vocab)),
                text,
            )
        )
    cases.append(
        Case(
            "decode_folded([0, 2], [None, 'Cat'], VOCAB)",
            lambda: decode_folded([0, 2], [None, "Cat"], list(FOLD_VOCAB)),
            "theCat",
        )
    )
    for args in _decode_errors():
        cases.append(
            Case(
                _label("decode_folded", args, {2: "VOCAB"}) + " should raise",
                lambda args=args: result_or_error(decode_folded, *args),
                "ValueError",
            )
        )
    check_cases(
        "encode_decode_folded",
        {"encode_folded": encode_folded, "decode_folded": decode_folded},
        cases,
        points=3,
        hint=FOLD_HINT,
    )


# --- Task 5: the smallest vocabulary for a target OOV rate (unchanged) ------------------------

SMALLEST_HINT = (
    "rank the training words by count (ties by first occurrence) and grow the vocabulary one "
    "word at a time until the OOV rate is at most target; return None if even the whole "
    "training vocabulary stays above it."
)


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
    calls = [
        ((train, tempest, target), _smallest(train, tempest, target))
        for target in (0.5, 0.3, 0.2, 0.15, 0.05)
    ]
    toy_train, toy_heldout = "a a a b b c".split(), "a b c d".split()
    calls += [
        ((toy_train, toy_heldout, target), _smallest(toy_train, toy_heldout, target))
        for target in (1.0, 0.75, 0.5, 0.3, 0.25, 0.2)
    ]
    check_function("smallest_vocab", smallest_vocab, calls, points=2, hint=SMALLEST_HINT)


# --- what the judge needs (see book.checks.core) ----------------------------------------------

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")


def _random_words(rng: random.Random, n: int) -> list[str]:
    """n words from a small alphabet with accents and scripts, so that counts tie."""
    return [rng.choice(["a", "b", "the", "cat", "naïve", "日本", "x", "Ωμέγα"]) for _ in range(n)]


def _fold_label(args: tuple) -> str:
    """encode_folded(text, VOCAB)."""
    return _label("encode_folded", args, {1: "VOCAB"})


def _round_trip(vocab: list[str], texts: list[str], hidden: bool) -> list[Call]:
    """decode_folded(*encode_folded(text, vocab), vocab) must give every text back."""
    return [
        Call(
            f"decode_folded(*encode_folded({text[:40]!r}, plays_vocab), plays_vocab)",
            "decode_folded(*encode_folded(a0, a1), a1)",
            (text, vocab),
            text,
            hidden,
        )
        for text in texts
    ]


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 03's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    texts = [random_text(rng, rng.randint(1, 10)) for _ in range(4)]
    texts.append(window(rng, corpora.english("heldout"), 400))
    lists = [_random_words(rng, rng.randint(1, 30)) for _ in range(3)]
    budget_hidden = [(words, rng.randint(0, 40)) for words in lists]
    budget_hidden.append((lists[0], -rng.randint(1, 9)))
    probe = Call(
        "words after vocab_under_budget(words, max_bytes) are unchanged",
        "[vocab_under_budget(a0, a1), a0][1]",
        (lists[1], 12),
        lists[1],
        hidden=True,
    )
    hapax_hidden = [(words, rng.randint(1, 35)) for words in lists]
    passage = regex.findall(r"\p{L}+(?:'\p{L}+)*", window(rng, corpora.english("heldout"), 4000))
    hapax_hidden.append((passage, rng.randint(50, 900)))
    lower = plays_lower_vocab()
    sentences = [
        "".join(
            rng.choice(["the", "The", "CAT", "cat", " ", "  ", "\n", ".", "dog", "Mat"])
            for _ in range(12)
        )
        for _ in range(3)
    ]
    decode_hidden = [([rng.randint(0, len(FOLD_VOCAB) - 1)], [None], FOLD_VOCAB)]
    decode_hidden.append(([len(FOLD_VOCAB) + rng.randint(1, 9)], ["x"], FOLD_VOCAB))
    folded = calls_of(
        "encode_folded",
        [(t, FOLD_VOCAB) for t in FOLD_TEXTS],
        encode_folded_reference,
        label=_fold_label,
    )
    folded += calls_of(
        "encode_folded",
        [(t, FOLD_VOCAB) for t in sentences],
        encode_folded_reference,
        hidden=True,
        label=_fold_label,
    )
    folded += _round_trip(
        lower, [corpora.english("heldout")[:300], *FOLD_TEXTS, TEXTS[3], TEXTS[4]], False
    )
    folded += _round_trip(lower, texts, True)
    folded.append(
        Call(
            "decode_folded([0, 2], [None, 'Cat'], VOCAB)",
            "decode_folded(a0, a1, a2)",
            ([0, 2], [None, "Cat"], FOLD_VOCAB),
            "theCat",
        )
    )
    folded += calls_of("decode_folded", _decode_errors(), decode_folded_reference)
    folded += calls_of("decode_folded", decode_hidden, decode_folded_reference, hidden=True)
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
    budget = vocab_under_budget_reference
    return [
        Task(
            "split_keep_spaces",
            3,
            ("split_keep_spaces",),
            calls_of(
                "split_keep_spaces", [(t,) for t in _split_texts()], split_keep_spaces_reference
            )
            + calls_of(
                "split_keep_spaces", [(t,) for t in texts], split_keep_spaces_reference, hidden=True
            ),
            hint=SPLIT_HINT,
        ),
        Task(
            "vocab_under_budget",
            3,
            ("vocab_under_budget",),
            calls_of(
                "vocab_under_budget",
                _budget_calls(),
                budget,
                label=lambda args: _label("vocab_under_budget", args, _budget_names(args)),
            )
            + calls_of("vocab_under_budget", budget_hidden, budget, hidden=True)
            + [probe],
            hint=BUDGET_HINT,
        ),
        Task(
            "hapax",
            3,
            ("hapax_share", "tail_shares", "tail_answer"),
            calls_of("hapax_share", HAPAX_CASES, hapax_share_reference)
            + calls_of(
                "hapax_share",
                hapax_hidden,
                hapax_share_reference,
                hidden=True,
                label=lambda args: _label("hapax_share", args, {0: "words"}),
            )
            + [
                Call("tail_shares", "tail_shares", (), tail_shares_reference()),
                Call("tail_answer", "tail_answer", (), TAIL_ANSWER),
            ],
            hint=HAPAX_HINT,
            compare=close,
        ),
        Task(
            "encode_decode_folded",
            3,
            ("encode_folded", "decode_folded"),
            folded,
            hint=FOLD_HINT,
        ),
        Task(
            "smallest_vocab",
            2,
            ("smallest_vocab",),
            smallest,
            data={"TRAIN": train, "HELD": small},
            hint=SMALLEST_HINT,
        ),
    ]
