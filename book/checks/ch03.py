"""Checks of exercises/03_words.ipynb, as one spec per task. The references are composed from
book.tokenizers.basic.words.

Each task asks for something the chapter did not write: a word split that keeps the spacing
(so the round trip is exact), a vocabulary under a budget in bytes, the tail of a Zipfian text
counted by types and by tokens, a lowercase encoder with a record of what lowercasing lost and
its decoder, and the training words past the top k that would make the most held-out words known.
Each task's known mistakes are code; every group of cases catches each of them (hidden cases
are drawn until they do; ``tests/test_check_specs.py`` proves it on seeds 1-20).
"""

from __future__ import annotations

import random
import unicodedata
from collections import Counter
from collections.abc import Callable

import regex

from book import corpora
from book.checks.answers import close
from book.checks.spec import (
    Cases,
    Group,
    Mistake,
    TaskSpec,
    checks_of,
    drawn_until_caught,
    examples_and_drawn,
    random_text,
    window,
)
from book.tokenizers.basic.words import split_words, vocab_from_counts, word_counts

TEXTS = [
    "When the hurlyburly's done,\nWhen the battle's lost and won.",
    "'Gainst my captivity. Hail, brave friend!",
    "Don't panic: it's 42, not 3.14...",
    "well-known   dogs' bones\t(and cats’) — I’m sure",
    "Zürich, naïve café = cafe\u0301",
    "हिन्दी भाषा, русский язык!",
    "emoji 👍🏽 and #hashtags & 100% [brackets]",
    "  two\u00a0spaces\r\n\n",
    "route66 and x_1 or A4, the 2nd",
    "",
    "   ",
]
WORD = r"[\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)*"
REST = r"\p{N}+|\s+|[^\s\p{L}\p{M}\p{N}]"  # after a word: a number, whitespace, one other
SPLIT_PATTERN = regex.compile(rf"{WORD}|{REST}")


def _tempest_words(limit: int | None = None) -> list[str]:
    """The words of the held-out play (the first ``limit`` of them)."""
    return split_words(corpora.english("heldout"))[:limit]


# A small alphabet of words with accents and scripts, so that counts tie.
WORD_POOL = ["a", "b", "the", "cat", "naïve", "日本", "x", "Ωμέγα", "The", "cafe\u0301"]


def _random_words(rng: random.Random, n: int) -> list[str]:
    """n words of the pool."""
    return [rng.choice(WORD_POOL) for _ in range(n)]


def _with_errors(name, reference, examples, drawn, errors, mistakes, hint, **options) -> TaskSpec:
    """A task of three parts, a point each: the examples, cases drawn until they catch every
    mistake that is not an error's, and the errors (each ValueError the statement names, with
    cases beside them that are none). A forgotten error costs its part only."""
    group, draw = drawn
    spec = TaskSpec(
        name,
        reference,
        (
            Group("the examples", 1, examples),
            Group(group, 1, hidden=lambda rng: drawn_until_caught(rng, draw, spec, group=group)),
            Group("errors", 1, errors),
        ),
        mistakes,
        hint,
        **options,
    )
    return spec


# --- Task 1: split_keep_spaces -------------------------------------------------------------------


def split_keep_spaces_reference(text: str) -> list[str]:
    """Words, numbers, whitespace runs and single other characters; they join to text.

    >>> split_keep_spaces_reference("Don't  go!\\n")
    ["Don't", '  ', 'go', '!', '\\n']
    """
    return SPLIT_PATTERN.findall(text)


def _split_with(pattern: str) -> Callable[[str], list[str]]:
    compiled = regex.compile(pattern)
    return lambda text: compiled.findall(text)


# Texts that each separate a known mistake from the rule, with what they target.
TARGETED = [
    ("rock'n'roll, fish'n'chips", "an apostrophe between letters, more than once"),
    ("In ١٨٨٧, 10½ miles, x² + y²", "numbers of any script, ½ and ² too"),
    ("می\u200cخواهم", "a zero-width non-joiner is not a letter"),
    ("I ❤️ 1️⃣", "a mark after a symbol or a digit"),
    ("x²², 3¾ 👍🏽🇫🇷", "numbers of numeric characters, a character at a time"),
    ("Wait?! No...", "other characters one at a time"),
    ("l'e\u0301te\u0301, नमस्ते’स्ते", "combining marks after the apostrophe too"),
    ("it‘s ‘Tis", "‘ (U+2018) is not one of the two apostrophes"),
    ("a\u00a0 b\u3000\u3000c \u2003\n", "no-break and ideographic spaces are whitespace"),
]


def _split_examples() -> Cases:
    cases: Cases = [((text,), "") for text in TEXTS]
    cases += [((text,), note) for text, note in TARGETED]
    return cases + [((corpora.english("heldout")[:800],), "the start of The Tempest")]


def _split_text(rng: random.Random) -> tuple:
    traps = ["x_1", "a2b", "'Gainst", "dogs'", "cafe\u0301", "  ", "\n\n", "I’m", "4u"]
    traps += ["rock'n'roll", "١٨٨٧", "10½", "x²", "می\u200cخواهم", "❤️", "1️⃣", "?!", "..."]
    traps += ["l'e\u0301te\u0301", "it‘s", "\u00a0 ", "\u3000\u3000", "x²²", "👍🏽", "🇫🇷"]
    parts = [random_text(rng, rng.randint(1, 6)), *rng.sample(traps, 3)]
    return (" ".join(parts),)


SPLIT_KEEP_SPACES = examples_and_drawn(
    "split_keep_spaces",
    split_keep_spaces_reference,
    (_split_examples, 2),
    ("random texts", 1, _split_text),
    (  # a mistake that agrees with a learner on the failing cases names it: specific ones first
        Mistake(
            "letters taken as \\w without digits and '_' still take in more than letters and "
            "marks (the zero-width non-joiner of Persian words, for one), and \\d leaves out "
            "numbers such as ½",
            _split_with(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+|\s+|[^\w\s]|_"),
        ),
        Mistake(
            "\\w matches digits and '_' too, so it glues letters to them: a word is letters "
            "and combining marks only",
            _split_with(r"\w+(?:['’]\w+)*|\s+|[^\w\s]"),
        ),
        Mistake(
            "this is the chapter's split_words: it drops the whitespace, so the text cannot "
            "come back from the tokens",
            split_words,
        ),
        Mistake(
            "this is the chapter's split: it drops the whitespace, so the text cannot come "
            "back from the tokens",
            _split_with(r"\p{L}+(?:'\p{L}+)*|\p{N}+|[^\s\p{L}\p{N}]"),
        ),
        Mistake(
            "a run of whitespace is one token, not one token per character",
            _split_with(rf"{WORD}|\p{{N}}+|\s|[^\s\p{{L}}\p{{M}}\p{{N}}]"),
        ),
        Mistake(
            "a combining mark belongs to the word it follows: words are letters and marks",
            _split_with(r"\p{L}+(?:['’]\p{L}+)*|\p{N}+|\s+|[^\s\p{L}\p{N}]"),
        ),
        Mistake(
            "an apostrophe joins two words only between two letters: in 'Gainst and dogs' "
            "it is a token of its own",
            _split_with(r"[\p{L}\p{M}'’]+|\p{N}+|\s+|[^\s\p{L}\p{M}\p{N}]"),
        ),
        Mistake(
            "the apostrophe inside a word is ' or the typographic ’: I’m is one word, as I'm is",
            _split_with(rf"[\p{{L}}\p{{M}}]+(?:'[\p{{L}}\p{{M}}]+)*|{REST}"),
        ),
        Mistake(
            "an apostrophe can join a word to the next any number of times: rock'n'roll is "
            "one word, not two",
            _split_with(rf"[\p{{L}}\p{{M}}]+(?:['’][\p{{L}}\p{{M}}]+)?|{REST}"),
        ),
        Mistake(
            "a number is not only 0 to 9: digits of other scripts (١٨٨٧), ½ and ² are "
            "numbers too, and a character that no alternative matches is dropped, so the "
            "tokens no longer join back to the text",
            _split_with(rf"{WORD}|[0-9]+|\s+|[^\s\p{{L}}\p{{M}}\p{{N}}]"),
        ),
        Mistake(
            "\\d matches decimal digits only: ½ and ² are numbers too, and a character that "
            "no alternative matches is dropped, so the tokens no longer join back to the text",
            _split_with(rf"{WORD}|\d+|\s+|[^\s\p{{L}}\p{{M}}\p{{N}}]"),
        ),
        Mistake(
            "a combining mark need not follow a letter (the variation selector after ❤, the "
            "keycap after 1): it is still part of a word token, and a character that no "
            "alternative matches is dropped, so the tokens no longer join back to the text",
            _split_with(
                r"(?:\p{L}\p{M}*)+(?:['’](?:\p{L}\p{M}*)+)*|\p{N}+|\s+|[^\s\p{L}\p{M}\p{N}]"
            ),
        ),
        Mistake(
            "a number is a run of every numeric character, not only decimal digits: 10½ and "
            "x²² hold one number each",
            _split_with(rf"(?s){WORD}|\d+|\s+|."),
        ),
        Mistake(
            "a character of none of the other kinds is one token on its own, even where it "
            "makes one grapheme with the next: 👍🏽 is two tokens",
            _split_with(rf"(?s){WORD}|\p{{N}}+|\s+|\X"),
        ),
        Mistake(
            "whitespace is every Unicode space, the no-break space (U+00A0) and the "
            "ideographic space (U+3000) too: a run of them is one token",
            _split_with(rf"(?s){WORD}|\p{{N}}+|[ \t\n\r\f\v]+|."),
        ),
        Mistake(
            "after an apostrophe a word goes on with letters and combining marks, as before "
            "it: l'été written with combining accents is one word",
            _split_with(rf"[\p{{L}}\p{{M}}]+(?:['’]\p{{L}}+)*|{REST}"),
        ),
        Mistake(
            "only ' and ’ join two words: ‘ (U+2018) opens a quotation, a token of its own",
            _split_with(rf"[\p{{L}}\p{{M}}]+(?:['’‘][\p{{L}}\p{{M}}]+)*|{REST}"),
        ),
        Mistake(
            "a run of punctuation is one token per character: '?!' is two tokens",
            _split_with(rf"{WORD}|\p{{N}}+|\s+|[^\s\p{{L}}\p{{M}}\p{{N}}]+"),
        ),
    ),
    "each token is one of the four kinds the task lists, and the tokens join back to the "
    "text: find the kind of token at the first difference.",
)

# --- Task 2: vocab_under_budget ------------------------------------------------------------------


def vocab_under_budget_reference(words: list[str], max_bytes: int) -> list[str]:
    """The longest prefix of the frequency ranking whose UTF-8 bytes add up to max_bytes or less.

    >>> vocab_under_budget_reference("b a c a c d".split(), 2)
    ['a', 'c']
    """
    if max_bytes < 0:
        raise ValueError(f"max_bytes must be 0 or more, not {max_bytes}")
    vocab, used = [], 0
    for word in vocab_from_counts(word_counts(words)):
        used += len(word.encode("utf-8"))
        if used > max_bytes:
            break
        vocab.append(word)
    return vocab


def _budget_with(
    size=lambda w: len(w.encode("utf-8")), skip=False, rank=None, strict=False, check=True
):
    """A budgeted vocabulary with one slip: the size of a word, skipping words that do not fit,
    the ranking, stopping when the budget is reached, or no error for a negative budget."""

    def budget(words, max_bytes):
        if check and max_bytes < 0:
            raise ValueError(max_bytes)
        ranked = rank(words) if rank else vocab_from_counts(word_counts(words))
        vocab, used = [], 0
        for word in ranked:
            if used + size(word) > max_bytes or (strict and used + size(word) == max_bytes):
                if skip:
                    continue
                break
            used += size(word)
            vocab.append(word)
        return vocab

    return budget


def _rank_in_place(words: list[str]) -> list[str]:
    """The right ranking, got by sorting the caller's list."""
    counts = Counter(words)
    words.sort(key=lambda word: -counts[word])
    return list(dict.fromkeys(words))


# The words must come back unchanged: the probe returns [answer, words unchanged].
UNCHANGED = """
def probe(answer, words, max_bytes):
    kept = list(words)
    return [answer(words, max_bytes), words == kept]
"""


def _budget_examples() -> Cases:
    toy = "b a c a c d".split()
    accents = ["naïve", "cafe", "naïve", "日本", "cafe", "日本", "x"]
    cases: Cases = [((list(toy), budget), "") for budget in (0, 1, 2, 3, 4, 100)]
    cases += [((list(accents), budget), "bytes, not characters") for budget in (4, 5, 6, 9, 10)]
    cases += [((list(accents), budget), "") for budget in (15, 16, 17)]
    cases += [
        ((["x", "yy", "z", "yy", "z", "x"], 3), "stop at the first word that does not fit"),
        ((["cafe\u0301", "cafe\u0301", "x"], 6), "a combining accent takes bytes of its own"),
        (([], 10), "no words"),
    ]
    tempest = _tempest_words(3000)
    return cases + [((tempest, n), "The Tempest") for n in (300, 2000)]


def _budget_errors() -> Cases:
    """Negative budgets, and beside them budgets that are no error: 0, and the traps."""
    toy, accents = "b a c a c d".split(), ["naïve", "cafe", "naïve", "日本", "cafe", "日本", "x"]
    cases: Cases = [
        ((list(toy), -1), "a negative budget raises ValueError"),
        (([], -1), "a negative budget raises ValueError, with no words too"),
        ((list(accents), -100), "a negative budget raises ValueError"),
    ]
    return cases + [
        ((list(toy), 0), "a budget of 0 is no error"),
        ((list(accents), 10), "no error: bytes, not characters"),
        ((["x", "yy", "z", "yy", "z", "x"], 3), "no error: stop at the first that does not fit"),
        ((["cafe\u0301", "cafe\u0301", "x"], 6), "no error: a combining accent's bytes"),
        ((list(toy), 4), "no error: a budget taken exactly"),
        ((["aaa", "aaa", "bb", "c"], 4), "no error: stop though a later word fits"),
    ]


def _budget_draw(rng: random.Random) -> tuple:
    return _random_words(rng, rng.randint(3, 30)), rng.randint(0, 40)


VOCAB_UNDER_BUDGET = _with_errors(
    "vocab_under_budget",
    vocab_under_budget_reference,
    _budget_examples,
    ("random words", _budget_draw),
    _budget_errors,
    (  # specific first: the first mistake that agrees on the failing cases is named
        Mistake(
            "a word's size is the UTF-8 bytes of the word as given: normalising it first "
            "changes the count ('cafe' with a combining accent takes 6 bytes, 'café' 5)",
            _budget_with(size=lambda w: len(unicodedata.normalize("NFC", w).encode("utf-8"))),
        ),
        Mistake(
            "the budget is in UTF-8 bytes, not characters: 'naïve' takes 6",
            _budget_with(size=len),
        ),
        Mistake(
            "stop at the first word that does not fit, even if a later one would",
            _budget_with(skip=True),
        ),
        Mistake(
            "words with the same count keep the order of their first occurrence, not the "
            "alphabet's",
            _budget_with(rank=lambda words: sorted(set(words), key=lambda w: (-words.count(w), w))),
        ),
        Mistake(
            "do not change the list you are given: rank a copy of it",
            _budget_with(rank=_rank_in_place),
        ),
        Mistake(
            "a vocabulary that takes exactly max_bytes fits: at most, not under",
            _budget_with(strict=True),
        ),
        Mistake(
            "a negative max_bytes is an error: raise ValueError, do not return an empty list",
            _budget_with(check=False),
            part="errors",
        ),
    ),
    "the answer is a start of the ranking (count, then first occurrence) and its words' UTF-8 "
    "bytes add up to at most max_bytes: check your ranking, then your sizes.",
    probe=UNCHANGED,
)

# --- Task 3: hapax_share -------------------------------------------------------------------------


def hapax_share_reference(words: list[str], n: int) -> tuple[float, float]:
    """(share of types seen once, share of tokens that are those) among the first n words.

    >>> hapax_share_reference("a b a c".split(), 4)
    (0.6666666666666666, 0.5)
    """
    if n < 1 or not words:
        raise ValueError("read at least one word")
    read = words[:n]
    counts = word_counts(read)
    once = sum(1 for count in counts.values() if count == 1)
    return once / len(counts), once / len(read)


def _hapax_with(shares=None, error=lambda words, n: n < 1 or not words):
    """hapax_share with shares(read, words) as its value, or with error(words, n) deciding
    when to raise ValueError."""

    def hapax(words, n):
        if error(words, n):
            raise ValueError("read at least one word")
        if shares is None:
            read = words[:n]
            once = _once(read)
            return once / len(set(read)), once / len(read)
        return shares(words[:n], words)

    return hapax


def _shares_over_n(words: list[str], n: int) -> tuple[float, float]:
    """hapax_share that divides by n, though fewer than n words may be there to read."""
    if n < 1 or not words:
        raise ValueError("read at least one word")
    once = _once(words[:n])
    return once / len(set(words[:n])), once / n


def _once(read: list[str]) -> int:
    return sum(1 for count in Counter(read).values() if count == 1)


def _once_in_all_words(read: list[str], words: list[str]) -> tuple[float, float]:
    """The two shares of the words read, with "seen once" counted over every word."""
    whole = Counter(words)
    once = {word for word in read if whole[word] == 1}
    return len(once) / len(set(read)), sum(word in once for word in read) / len(read)


HAPAX_CASES = [
    ("a b a c".split(), 4),
    ("a b a c".split(), 2),
    ("a b a c".split(), 3),
    ("a b a c d d".split(), 99),
    ("a a a".split(), 3),
    ("x y z x y w".split(), 4),
]
# The errors part: n below 1, no words; beside them n = 1 (the smallest n that reads a word),
# and cases that are no error.
HAPAX_ERRORS = [
    (([], 5), "no words: ValueError"),
    (([], 0), "no words and n = 0: ValueError"),
    (("a b".split(), 0), "n = 0: ValueError"),
    (("a b c".split(), -1), "a negative n: ValueError"),
    (("a b a c".split(), 1), "n = 1 is no error"),
    (("b a".split(), 1), "n = 1 is no error"),
    (("a b a c d d".split(), 99), "no error"),
    (("x y z x y w".split(), 4), "no error"),
    (("a b b c c c d".split(), 7), "no error"),
]


def _hapax_examples() -> Cases:
    words = regex.findall(r"\p{L}+(?:'\p{L}+)*", corpora.english("heldout"))
    cases: Cases = [(args, "") for args in HAPAX_CASES]
    return cases + [((words, n), "The Tempest") for n in (1_000, 10_000)]


def _hapax_draw(rng: random.Random) -> tuple:
    """Words of The Tempest or made up, and n from 2 (n = 1 is the errors part's boundary)."""
    if rng.random() < 0.3:
        passage = window(rng, corpora.english("heldout"), 3000)
        words = regex.findall(r"\p{L}+(?:'\p{L}+)*", passage)
        return words, rng.randint(50, 600)
    words = _random_words(rng, rng.randint(2, 30))
    return words, rng.randint(2, 35)


HAPAX_SHARE = _with_errors(
    "hapax_share",
    hapax_share_reference,
    _hapax_examples,
    ("random words", _hapax_draw),
    lambda: list(HAPAX_ERRORS),
    (
        Mistake(
            "the two shares are the other way round: the first is about distinct words",
            _hapax_with(
                lambda read, words: (_once(read) / len(read), _once(read) / len(set(read)))
            ),
        ),
        Mistake(
            "read only the first n words: the shares are of those, not of every word",
            _hapax_with(lambda read, words: hapax_share_reference(words, len(words))),
        ),
        Mistake(
            "the second share is over the running words read, not over the distinct ones",
            _hapax_with(lambda read, words: (_once(read) / len(set(read)),) * 2),
        ),
        Mistake(
            "a word is seen once when it occurs once among the words read: what comes after "
            "the first n words does not count",
            _hapax_with(_once_in_all_words),
        ),
        Mistake(
            "when n is larger than the list, only len(words) words are read: divide by the "
            "number of words read, not by n",
            _shares_over_n,
        ),
        Mistake(
            "a word seen once is seen exactly once among the words read, not once or twice",
            _hapax_with(
                lambda read, words: (
                    sum(c <= 2 for c in Counter(read).values()) / len(set(read)),
                    sum(c for c in Counter(read).values() if c <= 2) / len(read),
                )
            ),
        ),
        Mistake(
            "an empty list of words is an error too: raise ValueError when there is no word "
            "to read, not only when n is below 1",
            _hapax_with(error=lambda words, n: n < 1),
            part="errors",
        ),
        Mistake(
            "n below 1 is an error too: raise ValueError when n is 0 or negative, not only "
            "for an empty list",
            _hapax_with(error=lambda words, n: not words),
            part="errors",
        ),
        Mistake(
            "n = 1 reads one word, which is no error: only n below 1 raises ValueError",
            _hapax_with(error=lambda words, n: n <= 1 or not words),
            part="errors",
        ),
    ),
    "the first share is about distinct words (types), the second about running words "
    "(tokens); both count only the first n words.",
    compare=close,
)

# --- Task 4: encode_folded, and Task 5: decode_folded --------------------------------------------

FOLD_VOCAB = ["the", " ", "cat", "sat", "on", "mat", ".", ",", "\n", "straße"]
FOLD_TEXTS = [
    "the cat sat on the mat.",
    "The Cat SAT on the mat",
    "the  cat\n",
    "The dog sat.",
    "McBeth, the CAT",
    "İstanbul the",
    "the sAT on the mAT, cAT",
    "Straße, STRASSE straße",
    "",
]


def encode_folded_reference(
    tokens: list[str], vocab: list[str]
) -> tuple[list[int], list[str | None]]:
    """Ids of the lowercased tokens, and the original token wherever it is not the entry.

    >>> encode_folded_reference(["The", " ", "cat"], ["the", " ", "cat"])
    ([0, 1, 2], ['The', None, None])
    """
    stoi = _first_index(vocab)
    ids, record = [], []
    for token in tokens:
        token_id = stoi.get(token.lower(), len(vocab))
        ids.append(token_id)
        record.append(None if token_id < len(vocab) and vocab[token_id] == token else token)
    return ids, record


def _first_index(vocab: list[str]) -> dict[str, int]:
    """Each entry's index in vocab; an entry listed twice keeps its first, as list.index."""
    stoi: dict[str, int] = {}
    for i, token in enumerate(vocab):
        stoi.setdefault(token, i)
    return stoi


def _last_index(vocab: list[str]) -> dict[str, int]:
    """A mistake: an entry listed twice takes its last index (a dict built in one pass)."""
    return {token: i for i, token in enumerate(vocab)}


def _encode_with(fold=str.lower, keep=None, unk=None, index=_first_index):
    """encode_folded with one slip: how tokens fold, when a token is recorded, the <unk> id,
    which index an entry listed twice gives."""

    def encode(tokens, vocab):
        stoi = index(vocab)
        ids, record = [], []
        for token in tokens:
            token_id = stoi.get(fold(token), len(vocab) if unk is None else unk)
            ids.append(token_id)
            right = None if token_id in range(len(vocab)) and vocab[token_id] == token else token
            record.append(keep(token, right) if keep else right)
        return ids, record

    return encode


def _unknown_lowercased(tokens: list[str], vocab: list[str]) -> tuple[list[int], list]:
    """encode_folded that records an unknown token lowercased, so its capitals are lost."""
    ids, record = encode_folded_reference(tokens, vocab)
    return ids, [kept.lower() if i == len(vocab) else kept for i, kept in zip(ids, record)]


def _first_capital_only(tokens: list[str], vocab: list[str]) -> tuple[list[int], list]:
    """encode_folded that records a known token only when its first letter is a capital."""
    ids, record = encode_folded_reference(tokens, vocab)
    return ids, [
        None if kept and i < len(vocab) and not kept[:1].isupper() else kept
        for i, kept in zip(ids, record)
    ]


def _fold_examples() -> Cases:
    cases: Cases = [
        ((split_keep_spaces_reference(text), list(FOLD_VOCAB)), "") for text in FOLD_TEXTS
    ]
    twice = [*FOLD_VOCAB, "the", "cat"]
    tokens = split_keep_spaces_reference("The cat, the CAT sat")
    return cases + [((tokens, twice), "an entry listed twice: its first index")]


def _fold_tokens(rng: random.Random) -> list[str]:
    pool = ["the", "The", "CAT", "cat", " ", "  ", "\n", ".", "dog", "Dog", "Mat"]
    pool += ["Straße", "straße", "sAT", "cAT"]
    return [rng.choice(pool) for _ in range(rng.randint(1, 14))]


def _encode_draw(rng: random.Random) -> tuple:
    """Random tokens, and the vocabulary, half the time with one entry listed twice."""
    vocab = list(FOLD_VOCAB)
    if rng.random() < 0.5:
        vocab.insert(rng.randint(0, len(vocab)), rng.choice(FOLD_VOCAB))
    return _fold_tokens(rng), vocab


ENCODE_FOLDED = examples_and_drawn(
    "encode_folded",
    encode_folded_reference,
    (_fold_examples, 2),
    ("random tokens", 1, _encode_draw),
    (
        Mistake(
            "record a token whenever it is not exactly its entry: an unknown lowercase word "
            "is lost too, not only a capitalised one",
            _encode_with(keep=lambda token, right: token if token != token.lower() else None),
        ),
        Mistake(
            "record only the tokens that differ from their entry: None for the others",
            _encode_with(keep=lambda token, right: token),
        ),
        Mistake(
            "lowercase, do not casefold: casefolding turns 'Straße' into 'strasse', which is "
            "not the vocabulary's entry",
            _encode_with(fold=str.casefold),
        ),
        Mistake("the <unk> id is len(vocab), one past the last entry", _encode_with(unk=-1)),
        Mistake(
            "an entry listed twice gives its first index, as list.index does, not its last",
            _encode_with(index=_last_index),
        ),
        Mistake(
            "the record keeps the token as written: an unknown word keeps its capitals there, "
            "since nothing else can give them back",
            _unknown_lowercased,
        ),
        Mistake(
            "a capital anywhere in a known token is lost when it is lowered, not only the "
            "first letter's: 'sAT' must be recorded too",
            _first_capital_only,
        ),
    ),
    "the record must hold whatever the vocabulary entry cannot give back: compare your ids "
    "first, then your record, at the first difference.",
)


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


def _decode_with(piece, sep=""):
    """decode_folded with the right errors, piece(token_id, kept, vocab) and sep."""

    def decode(ids, record, vocab):
        decode_folded_reference(ids, record, vocab)  # the same errors
        return sep.join(piece(i, kept, vocab) for i, kept in zip(ids, record))

    return decode


def _decode_unchecked(forgotten: str):
    """decode_folded that forgets one of its errors: the lengths, a negative id, the <unk> id
    without a record, or an id past <unk>."""

    def decode(ids, record, vocab):
        if forgotten != "length" and len(ids) != len(record):
            raise ValueError("ids and record differ in length")
        pieces = []
        for token_id, kept in zip(ids, record):
            wrong = {
                "negative": token_id < 0,
                "past": token_id > len(vocab),
                "unk": token_id == len(vocab) and kept is None,
            }
            if any(found for name, found in wrong.items() if name != forgotten):
                raise ValueError(f"id {token_id} names no token")
            if kept is None:  # a negative id counts from the end, where it is not caught
                kept = "<unk>" if token_id == len(vocab) else vocab[token_id]
            pieces.append(kept)
        return "".join(pieces)

    return decode


def _decode_examples() -> Cases:
    cases: Cases = [
        ((*encode_folded_reference(split_keep_spaces_reference(text), FOLD_VOCAB), FOLD_VOCAB), "")
        for text in FOLD_TEXTS
    ]
    return cases + [(([0, 2], [None, "Cat"], FOLD_VOCAB), "the record wins over the entry")]


def _decode_errors() -> Cases:
    """Each ValueError of the statement, and beside them the ids and records that are none:
    the last entry, the <unk> id with its record, a record beside an entry."""
    n, vocab = len(FOLD_VOCAB), FOLD_VOCAB
    return [
        (([0, 1], [None], vocab), "ids and record differ in length: ValueError"),
        (([0], [None, None], vocab), "record longer than ids: ValueError"),
        (([n], [None], vocab), "the <unk> id without a record: ValueError"),
        (([n + 1], ["x"], vocab), "an id past <unk>: ValueError"),
        (([-1, 0], [None, None], vocab), "a negative id: ValueError"),
        (([0, -1], [None, "x"], vocab), "a negative id with a record: ValueError"),
        (([n - 1, 1, n], [None, None, "Dog"], vocab), "no error: the last entry, <unk> recorded"),
        (([0, 2], [None, "Cat"], vocab), "no error: the record wins over the entry"),
    ]


def _decode_draw(rng: random.Random) -> tuple:
    return (*encode_folded_reference(_fold_tokens(rng), FOLD_VOCAB), list(FOLD_VOCAB))


DECODE_FOLDED = _with_errors(
    "decode_folded",
    decode_folded_reference,
    _decode_examples,
    ("random records", _decode_draw),
    _decode_errors,
    (
        Mistake(
            "the record holds the original token: use it wherever it is not None",
            _decode_with(lambda i, kept, vocab: vocab[i] if i < len(vocab) else kept),
        ),
        Mistake(
            "the tokens already hold their spacing: join them with ''",
            _decode_with(lambda i, kept, vocab: vocab[i] if kept is None else kept, sep=" "),
        ),
        Mistake(
            "an unknown token comes back from its record, not as '<unk>'",
            _decode_with(lambda i, kept, vocab: vocab[i] if i < len(vocab) else "<unk>"),
        ),
        Mistake(
            "ids and record of different lengths are an error: raise ValueError, do not cut "
            "them to the shorter",
            _decode_unchecked("length"),
            part="errors",
        ),
        Mistake(
            "a negative id names no token: raise ValueError, do not let Python count from "
            "the end of the vocabulary",
            _decode_unchecked("negative"),
            part="errors",
        ),
        Mistake(
            "the <unk> id with no record names no token: raise ValueError, do not write '<unk>'",
            _decode_unchecked("unk"),
            part="errors",
        ),
        Mistake(
            "an id past the <unk> id names no token: raise ValueError",
            _decode_unchecked("past"),
            part="errors",
        ),
    ),
    "each id gives its vocabulary entry, unless the record holds the original token there.",
)

# --- Task 6: best_additions ----------------------------------------------------------------------


def best_additions_reference(
    train_words: list[str], heldout_words: list[str], k: int, m: int
) -> list[tuple[str, int]]:
    """The m training words outside the top k that would make the most held-out words known,
    with how many each makes known (ties in training rank order; none that makes none known).

    >>> best_additions_reference("a a b b c d".split(), "d d c x".split(), 1, 2)
    [('d', 2), ('c', 1)]
    """
    held = word_counts(heldout_words)
    rest = vocab_from_counts(word_counts(train_words))[k:]
    gains = {word: held[word] for word in rest if held[word] > 0}
    return [(word, gains[word]) for word in vocab_from_counts(gains, max_size=m)]


def _additions_with(candidates):
    """best_additions whose candidates(rest, held, train_words) are the words to rank."""

    def additions(train_words, heldout_words, k, m):
        held = word_counts(heldout_words)
        rest = vocab_from_counts(word_counts(train_words))[k:]
        gains = {word: held[word] for word in candidates(rest, held, train_words, k)}
        return [(word, gains[word]) for word in vocab_from_counts(gains, max_size=m)]

    return additions


def _chapter_growth(train_words, heldout_words, k, m):
    """The chapter's way to grow the vocabulary: the next m words by training count."""
    held = word_counts(heldout_words)
    return [(word, held[word]) for word in vocab_from_counts(word_counts(train_words))[k:][:m]]


def _with_zeros(train_words, heldout_words, k, m):
    """best_additions that keeps the words the held-out text never uses."""
    held = word_counts(heldout_words)
    rest = vocab_from_counts(word_counts(train_words))[k:]
    return sorted(((word, held[word]) for word in rest), key=lambda item: -item[1])[:m]


def _additions_examples() -> Cases:
    train, tempest = split_words(corpora.english("train")), _tempest_words(3000)
    toy_train, toy_heldout = "a a a b b c d d e".split(), "e b c d c e f f c b g".split()
    cases: Cases = [((toy_train, toy_heldout, k, 3), "") for k in (0, 1, 2, 3)]
    cases.append(((toy_train, toy_heldout, 2, 0), "m = 0"))
    cases.append(((toy_train, "c c x".split(), 0, 4), "fewer than m words make any known"))
    return cases + [((train, tempest, k, 5), "the plays and The Tempest") for k in (100, 1000)]


def _additions_draw(rng: random.Random) -> tuple:
    train, heldout = _random_words(rng, rng.randint(3, 25)), _random_words(rng, rng.randint(3, 25))
    return train, heldout, rng.randint(0, 4), rng.randint(1, 5)


def _additions_hidden(rng: random.Random) -> Cases:
    """Drawn cases, and two where every candidate ties (each word once in both texts): only
    the training rank order can order them, whatever order a set or the held-out text has."""
    cases = drawn_until_caught(rng, _additions_draw, BEST_ADDITIONS)
    for _ in range(2):
        train = rng.sample(WORD_POOL, len(WORD_POOL))
        heldout = rng.sample(train, len(train))
        cases.append(((train, heldout, rng.randint(0, 2), len(train)), "random: every one ties"))
    return cases


BEST_ADDITIONS = TaskSpec(
    "best_additions",
    best_additions_reference,
    (
        Group("the examples", 1, _additions_examples),
        Group("random words", 1, hidden=_additions_hidden),
    ),
    (
        Mistake(
            "this is the chapter's way to grow the vocabulary, by training count: rank the "
            "candidates by how many held-out words each makes known",
            _chapter_growth,
        ),
        Mistake(
            "only training words can be added: a held-out word the training text never has "
            "has no id to give",
            _additions_with(
                lambda rest, held, train, k: [w for w in held if w in rest or w not in train]
            ),
        ),
        Mistake(
            "a word the held-out text never uses makes nothing known: leave it out",
            _with_zeros,
        ),
        Mistake(
            "the k most frequent training words are in the vocabulary already: only words "
            "outside the top k are candidates",
            _additions_with(lambda rest, held, train, k: [w for w in held if w in set(train)]),
        ),
        Mistake(
            "words that make as many known keep their training rank order, not the order of "
            "the held-out text",
            _additions_with(lambda rest, held, train, k: [w for w in held if w in rest]),
        ),
    ),
    "what ranks a candidate is how many held-out words it would make known; check which "
    "training words are candidates, then the order of ties.",
)

SPECS = (
    SPLIT_KEEP_SPACES,
    VOCAB_UNDER_BUDGET,
    HAPAX_SHARE,
    ENCODE_FOLDED,
    DECODE_FOLDED,
    BEST_ADDITIONS,
)
check, judge_tasks = checks_of(SPECS)

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")
