"""Checks of exercises/06_pretokenization.ipynb, as one spec per task. The references are
composed from book.tokenizers.bpe (patterns, core).

Each task asks for something the chapter did not write: a split that groups digits from the
right, the merges that first glued two chunks together, and an encoder with a chunk cache of
bounded size. Every group of cases catches every known mistake: hidden cases always carry the
traps that show it (``tests/test_check_specs.py`` proves it on seeds 1-20). The test set and
the small trained tokenizers here serve chapter 08's checks too.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from functools import cache

import regex

from book import corpora, walkthroughs
from book.checks.spec import (
    Cases,
    Group,
    Mistake,
    TaskSpec,
    checks_of,
    drawn_until_caught,
    random_text,
    window,
)
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.core import merge_lowest_rank, ranks_of
from book.tokenizers.bpe.patterns import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN, split
from book.tokenizers.bpe.regex_bpe import RegexTokenizer

WORDS_ONLY = r"\s*\S+|\s+"  # a made-up pattern: a word with the whitespace before it
PATTERNS = {
    "GPT2_PATTERN": GPT2_PATTERN,
    "CL100K_PATTERN": CL100K_PATTERN,
    "O200K_PATTERN": O200K_PATTERN,
    "WORDS_ONLY": WORDS_ONLY,
}
MIXED = "I'LL pay $1234.50, we've  got 3 CamelCase things!\n\n  Ωμέγα 日本語 naïve 🦙🦙 👨‍👩‍👧"
# cl100k_base's pattern with digits grouped in threes from the right, as thousands are.
DIGITS_RIGHT_REFERENCE = CL100K_PATTERN.replace(
    r"\p{N}{1,3}+", r"\p{N}{1,3}(?=(?:\p{N}{3})*(?!\p{N}))"
)
NUMBER_TEXTS = [
    "1 12 123 1234 12345 123456 1234567",
    "1,234,567.89 and 2024-01-31 or 0x1F600",
    "x12345y and 12345678901234567890",
    "Arabic-Indic ١٢٣٤٥ and Devanagari ४५६७, superscript ²³⁴⁵, fraction ½",
    "numbers that are not digits, inside digit runs: x 12½3, Ⅻ1234, 1234½5 and ¼¼¼¼",
    "CJK numerals beside digits: 1234五 and 七万2000",
    MIXED,
    "no numbers here, I'LL say it's fine\n\n  ",
]

# The test set for the last task: prose, code, numbers, whitespace, many scripts, emoji.
TEST_SET = [
    "",
    "a",
    " ",
    "Hello, world!",
    "The quick brown fox jumps over the lazy dog.",
    "I'm tokenizing this, you'RE sure? We'll SEE'S it.",
    "   leading and trailing   ",
    "x=1;y=2\nprint(x+y)  # sum\n\n\n\tdef f(a, b):\n\t\treturn a * b\n",
    '{"id": 12345678, "pi": 3.14159, "ok": true, "tags": ["a", "b"]}',
    "1 12 123 1234 12345 123456 1,234,567.89 2024-01-31 0x1F600",
    "camelCaseName PascalCaseName snake_case_name kebab-case-name ALLCAPS",
    "naïve café Ünïcödé Straße Ωμέγα Привет мир שלום مرحبا नमस्ते こんにちは 你好 안녕하세요 ไทย",
    "👍🏽 👨‍👩‍👧‍👦 🇫🇷 🦙🦙🦙 ❤️ ✨",
    "\r\nwindows\r\nlines\r\n",
    "tabs\t\tand\u00a0nbsp\u3000ideographic",
    "'s 't 're 've 'm 'll 'd 'S 'T 'RE 'VE 'M 'LL 'D",
    "!!!???... --- ***",
    walkthroughs.DOG_TEXT,
    walkthroughs.DEF_TEXT,
    *list(corpora.parallel().values())[::3],
    corpora.english("heldout")[:1500],
    corpora.code("python")[:1500],
]


@cache
def _english(n_chars: int = 4000) -> str:
    """The first ``n_chars`` characters of the training plays."""
    return corpora.english("train")[:n_chars]


@cache
def _trained(text: str, vocab_size: int, pattern_name: str) -> RegexTokenizer:
    """The reference regex tokenizer trained on ``text``."""
    return RegexTokenizer.train(text, vocab_size, pattern=PATTERNS[pattern_name])


def mergeable_ranks(tokenizer: RegexTokenizer) -> dict[bytes, int]:
    """A tokenizer's vocabulary as tiktoken's mergeable ranks {token bytes: id}."""
    return {token: token_id for token_id, token in tokenizer.vocab.items()}


# Digits of other number systems: Arabic-Indic, Devanagari, fullwidth.
DIGIT_SYSTEMS = ("0123456789", "٠١٢٣٤٥٦٧٨٩", "०१२३४५६७८९", "０１２３４５６７８９")


def _number(rng: random.Random, system: str, low: int = 4, high: int = 20) -> str:
    """A number of low to high digits, its length never a multiple of 3 (grouping shows)."""
    length = rng.choice([n for n in range(low, high + 1) if n % 3])
    return "".join(rng.choice(system) for _ in range(length))


# --- Task 1: digits_right ------------------------------------------------------------------------


def digits_right_reference(text: str) -> list[str]:
    """The chunks of text under cl100k's pattern with digits grouped from the right.

    >>> digits_right_reference("x 1234567")
    ['x', ' ', '1', '234', '567']
    """
    return split(text, DIGITS_RIGHT_REFERENCE)


def _digits_with(number: str):
    """digits_right whose number alternative is ``number``."""
    pattern = CL100K_PATTERN.replace(r"\p{N}{1,3}+", number)
    return lambda text: regex.findall(pattern, text)


def _regrouped_by(is_number):
    """digits_right that takes cl100k_base's chunks and regroups from the right each run of
    chunks that is_number accepts."""
    return lambda text: _regrouped(text, is_number)


def _regrouped(text: str, is_number=str.isdigit) -> list[str]:
    """cl100k_base's chunks, with each run of chunks that is_number (str.isdigit) accepts
    regrouped from the right: a number written with ½ or Ⅻ is cut where those are."""
    chunks, run = [], ""
    for chunk in [*split(text, CL100K_PATTERN), None]:
        if chunk is not None and is_number(chunk):
            run += chunk
            continue
        head = len(run) % 3
        chunks += ([run[:head]] if head else []) + [
            run[i : i + 3] for i in range(head, len(run), 3)
        ]
        run = ""
        if chunk is not None:
            chunks.append(chunk)
    return chunks


def _digits_examples() -> Cases:
    return [((text,), "") for text in NUMBER_TEXTS] + [
        ((text,), "everything else as cl100k_base splits it") for text in TEST_SET[4:12]
    ]


# Numbers that are not decimal digits (categories No and Nl): str.isdigit() accepts the
# superscripts and the circled one, not the fractions or the Roman numerals.
OTHER_NUMBERS = "½¼¾⅓ⅫⅣ²³①"
# One text for each kind of character beside a run of digits that decides its groups: a No or
# Nl character after the digits (where a lookahead for decimal digits alone stops too early),
# CJK numerals (letters, category Lo, though str.isnumeric() accepts them), and a letter
# right after the digits (no word boundary there).
NUMBER_KINDS = [
    "a number that ends in other numbers: 12½3, 300², 123½, 1234Ⅻ and 1①",
    "CJK numerals are letters (category Lo), not numbers: 五1234, 1234五 and 七万2000",
    "digits glued to letters: x12345y, 0x1F600 and 12345abc",
]


def _digits_draw(rng: random.Random) -> tuple:
    """A text with an ASCII number, one of another system, one with a No or Nl character
    inside and one beside a CJK numeral (a letter), among words, a contraction and
    punctuation."""
    mixed = _number(rng, DIGIT_SYSTEMS[0], 3, 9)
    at = rng.randrange(len(mixed) + 1)
    numbers = [
        _number(rng, DIGIT_SYSTEMS[0]),
        _number(rng, rng.choice(DIGIT_SYSTEMS[1:])),
        mixed[:at] + rng.choice(OTHER_NUMBERS) + mixed[at:],
        rng.choice(["五", "七万", "三"]) + _number(rng, DIGIT_SYSTEMS[0]),
    ]
    pieces = [random_text(rng, rng.randint(1, 5)), "I'LL", *numbers, "we've"]
    rng.shuffle(pieces)
    return (" ".join(pieces),)


def _digits_hidden(rng: random.Random) -> Cases:
    return drawn_until_caught(rng, _digits_draw, DIGITS_RIGHT)


DIGITS_RIGHT = TaskSpec(
    "digits_right",
    digits_right_reference,
    (
        Group("the examples", 1, _digits_examples),
        Group(
            "numbers of every kind",
            1,
            lambda: [((text,), "") for text in NUMBER_KINDS],
            hidden=_digits_hidden,
        ),
    ),
    (
        Mistake(
            "these are cl100k_base's chunks: its digits are grouped from the left",
            _digits_with(r"\p{N}{1,3}+"),
        ),
        Mistake(
            "a possessive quantifier never gives a digit back, so the leading digits of a "
            "number whose length is not a multiple of 3 are lost",
            _digits_with(r"\p{N}{1,3}+(?=(?:\p{N}{3})*+(?!\p{N}))"),
        ),
        Mistake(
            "only the digits 0-9 are grouped: numbers are any character of category N",
            _digits_with(r"[0-9]{1,3}(?=(?:[0-9]{3})*(?![0-9]))"),
        ),
        Mistake(
            "only decimal digits (category Nd) are grouped: ½, Ⅻ and ² are numbers too "
            "(category N), and your pattern drops them",
            _digits_with(r"\d{1,3}(?=(?:\d{3})*(?!\d))"),
        ),
        Mistake(
            "cl100k_base's chunks regrouped afterwards: a chunk that str.isdigit() refuses (½, "
            "Ⅻ) cuts the number, but it belongs to the same run of numbers as the digits beside "
            "it, and the pattern itself must group that run",
            _regrouped,
        ),
        Mistake(
            "words, contractions and punctuation must split as cl100k_base splits them: change "
            "only its number alternative",
            lambda text: regex.findall(r"\p{N}{1,3}(?=(?:\p{N}{3})*(?!\p{N}))|\S+|\s+", text),
        ),
        Mistake(
            "a number ends where the characters of category N end: a digit followed by ½, ² or "
            "Ⅻ is not the end of its run, so its groups are counted from after them",
            _digits_with(r"\p{N}{1,3}(?=(?:\p{N}{3})*(?!\d))"),
        ),
        Mistake(
            "a number ends where the characters of category N end, not at a word boundary: a "
            "letter right after the digits (12345abc) is no boundary, yet it ends the number",
            _digits_with(r"\p{N}{1,3}(?=(?:\p{N}{3})*\b)"),
        ),
        Mistake(
            "CJK numerals such as 五 and 七 are letters (category Lo), not numbers: "
            "str.isnumeric() accepts them, but they are not of category N",
            _regrouped_by(str.isnumeric),
        ),
    ),
    "only cl100k_base's number alternative may change. At the first differing chunk, count "
    "the characters of that whole number (every character of category N in the run): how "
    "many should its first group hold, and how many does yours?",
)

# --- Task 2: first_crossings ---------------------------------------------------------------------


def _is_cut(token: bytes, pattern: str) -> bool:
    """Whether token is whole UTF-8 text that the pattern cuts into several chunks."""
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return len(split(text, pattern)) > 1


def first_crossings_reference(merges: list, pattern: str) -> list[int]:
    """The ranks of the merges whose result the pattern cuts although neither part is cut.

    >>> first_crossings_reference([(b"e", b" "), (b"e ", b"t"), (b"t", b"h")], GPT2_PATTERN)
    [0]
    """
    return [
        rank
        for rank, (left, right) in enumerate(merges)
        if _is_cut(left + right, pattern)
        and not _is_cut(left, pattern)
        and not _is_cut(right, pattern)
    ]


def _every_crossing(merges, pattern):
    """The chapter's crossing tokens, as ranks: inherited cuts included."""
    return [rank for rank, (left, right) in enumerate(merges) if _is_cut(left + right, pattern)]


def _first_by(is_cut):
    """first_crossings that decides with is_cut(token, pattern) whether a token is cut."""

    def first(merges, pattern):
        return [
            rank
            for rank, (left, right) in enumerate(merges)
            if is_cut(left + right, pattern)
            and not is_cut(left, pattern)
            and not is_cut(right, pattern)
        ]

    return first


def _decoding(errors: str):
    """first_crossings that decodes parts of characters with errors= ("replace" puts U+FFFD
    in their place, "ignore" drops them) and splits that."""
    return _first_by(lambda token, pattern: len(split(token.decode("utf-8", errors), pattern)) > 1)


def _partial_is_cut(token: bytes, pattern: str) -> bool:
    """Whether the pattern cuts token, a part of a character counting as cut."""
    try:
        return len(split(token.decode("utf-8"), pattern)) > 1
    except UnicodeDecodeError:
        return True


def _fullmatch_fails(token: bytes, pattern: str) -> bool:
    """Whether token is whole UTF-8 text that the pattern does not match from end to end."""
    try:
        return regex.fullmatch(pattern, token.decode("utf-8")) is None
    except UnicodeDecodeError:
        return False


def _merges_of(tokenizer) -> list:
    """A tokenizer's merges as pairs of bytes, in rank order."""
    vocab = tokenizer.vocab
    return [(vocab[left], vocab[right]) for (left, right), _count in tokenizer.merges]


# Merges every group carries: a cut inherited from a part (rank 1), a part of a character
# beside a letter (rank 3: not text, so never cut), a letter and a space before a part of a
# character (rank 5: not text, but "a " once the part is dropped), two parts of characters
# whose result is text every pattern cuts, "а " (rank 6: a first crossing, as neither part is
# text), and a contraction and a letter, "'tis" (rank 7: GPT-2's and cl100k's patterns cut it
# after the contraction, though cl100k's alternative for a word after a punctuation mark
# would match it whole; o200k's keeps it whole).
CROSSING_TRAPS = [
    (b"e", b" "),
    (b"e ", b"t"),
    (b"\xd0", b"\xb0"),
    ("é".encode(), b"\xd0"),
    (b"a", b","),
    (b"a", b" \xd0"),
    (b"\xd0", b"\xb0 "),
    (b"'t", b"is"),
]


@cache
def _learned_merges() -> dict[str, list]:
    """Merges learned without a pattern, on Shakespeare and on the parallel passage."""
    return {
        "merges learned on Shakespeare": _merges_of(ByteTokenizer.train(_english(), 400)),
        "merges learned on the parallel passage": _merges_of(
            ByteTokenizer.train("\n".join(corpora.parallel().values()), 400)
        ),
    }


def _crossing_examples() -> Cases:
    cases: Cases = [
        ((CROSSING_TRAPS, PATTERNS[name]), f"made-up merges, {name}")
        for name in ("GPT2_PATTERN", "CL100K_PATTERN")
    ]
    for label, merges in _learned_merges().items():
        cases += [((merges, PATTERNS[name]), f"{label}, {name}") for name in PATTERNS]
    return cases


def _crossing_hidden(rng: random.Random) -> Cases:
    """Merges of random pieces of random texts (some cut mid-character), with the traps: one
    case for each pattern."""
    cases: Cases = []
    for name in PATTERNS:
        data = random_text(rng, 12).encode()
        merges = list(CROSSING_TRAPS)
        for _ in range(30):
            i = rng.randrange(len(data) - 2)
            j = rng.randint(i + 1, min(i + 6, len(data) - 1))
            k = rng.randint(j + 1, min(j + 6, len(data)))
            merges.append((data[i:j], data[j:k]))
        rng.shuffle(merges)
        cases.append(((merges, PATTERNS[name]), "random"))
    return cases


FIRST_CROSSINGS = TaskSpec(
    "first_crossings",
    first_crossings_reference,
    (
        Group("the examples", 1, _crossing_examples),
        Group("random merges", 1, hidden=_crossing_hidden),
    ),
    (
        Mistake(
            "a merge whose part is already cut only inherits the cut: list only the merges "
            "that cut for the first time",
            _every_crossing,
        ),
        Mistake(
            "bytes that are part of a character are not text: decoding them into a stand-in "
            "(U+FFFD, or a lone surrogate) invents a character the pattern can cut",
            _decoding("replace"),
        ),
        Mistake(
            "bytes that are part of a character are not text: decoding with errors='ignore' "
            "drops them and cuts what is left, a text the token does not hold",
            _decoding("ignore"),
        ),
        Mistake(
            "a part of a character is not text, so it is never cut: counting it as cut hides "
            "the merges that join two such parts into text the pattern cuts",
            _first_by(_partial_is_cut),
        ),
        Mistake(
            "a token is cut when the pattern splits it into two or more chunks, which is not "
            "the same as the pattern failing to match it whole: cl100k's pattern can match "
            "'tis whole, yet it splits it after the contraction",
            _first_by(_fullmatch_fails),
        ),
        Mistake(
            "a merge's rank is its place in the list, from 0, not the id of its token",
            lambda merges, pattern: [256 + r for r in first_crossings_reference(merges, pattern)],
        ),
    ),
    "look at the first rank that differs: is that merge's result whole UTF-8 text, does the "
    "pattern cut it, and is either of its parts cut already?",
)

# --- Task 3: encode_lru --------------------------------------------------------------------------


def encode_lru_reference(
    text: str, merges: list, pattern: str, capacity: int
) -> tuple[list[int], int]:
    """(ids, cache hits) of text with a cache of at most capacity chunks, least recently used
    evicted first.

    >>> encode_lru_reference(" a b a c a", [], GPT2_PATTERN, 2)[1]
    2
    """
    ranks = ranks_of(merges)
    chunk_cache: OrderedDict[str, list[int]] = OrderedDict()
    ids: list[int] = []
    hits = 0
    for chunk in split(text, pattern):
        if chunk in chunk_cache:
            hits += 1
            chunk_cache.move_to_end(chunk)
            chunk_ids = chunk_cache[chunk]
        else:
            chunk_ids = merge_lowest_rank(list(chunk.encode("utf-8")), ranks)
            chunk_cache[chunk] = chunk_ids
            if len(chunk_cache) > capacity:
                chunk_cache.popitem(last=False)
        ids += chunk_ids
    return ids, hits


def _lru_with(refresh=True, keep=0, first_hit=False, evict_first=False):
    """encode_lru with a slip: no refresh on a hit (FIFO), keep more or fewer chunks, a first
    sight counted as a hit, or the least recently used evicted before storing when the cache is
    full (an empty cache at capacity 0 has nothing to evict: KeyError)."""

    def encode(text, merges, pattern, capacity):
        ranks = ranks_of(merges)
        chunk_cache: OrderedDict[str, list[int]] = OrderedDict()
        ids: list[int] = []
        hits = 0
        for chunk in split(text, pattern):
            found = chunk in chunk_cache
            if found and refresh:
                chunk_cache.move_to_end(chunk)
            if not found and evict_first and len(chunk_cache) >= capacity:
                chunk_cache.popitem(last=False)
            if not found:
                chunk_cache[chunk] = merge_lowest_rank(list(chunk.encode("utf-8")), ranks)
                if keep is not None and len(chunk_cache) > capacity + keep:
                    chunk_cache.popitem(last=False)
            hits += found or first_hit
            ids += merge_lowest_rank(list(chunk.encode("utf-8")), ranks)
        return ids, hits

    return encode


@cache
def _lru_merges() -> list:
    return list(_trained(_english(), 400, "GPT2_PATTERN").merges)


def _lru_traps(words: list[str]) -> list[str]:
    """Texts whose hits tell LRU from FIFO, from no eviction and from one chunk fewer (cap 2)."""
    a, b, c = words
    return [f" {a} {b} {a} {c} {a}", f" {a} {b} {c} {a}"]


def _lru_examples() -> Cases:
    merges = _lru_merges()
    traps = _lru_traps(["the", "cat", "sat"])
    cases: Cases = [((text, merges, GPT2_PATTERN, 2), "capacity 2") for text in traps]
    cases += [
        ((traps[0], merges, GPT2_PATTERN, size), f"capacity {size}: {note}")
        for size, note in [(0, "no chunk is kept, every chunk is a miss"), (1, "one chunk")]
    ]
    heldout = corpora.english("heldout")[:2000]
    return (
        cases
        + [
            ((heldout, merges, GPT2_PATTERN, size), f"The Tempest, capacity {size}")
            for size in (1, 16, 64)
        ]
        + [(("", merges, GPT2_PATTERN, 3), "no text")]
    )


def _lru_hidden(rng: random.Random) -> Cases:
    merges = _lru_merges()
    words = rng.sample(["the", "king", "and", "of", "naïve", "日本", "sea", "1234"], 3)
    cases: Cases = [((text, merges, GPT2_PATTERN, 2), "random") for text in _lru_traps(words)]
    for _ in range(3):
        text = " ".join(rng.choice(words + ["a", ","]) for _ in range(rng.randint(10, 40)))
        cases.append(((text, merges, PATTERNS[rng.choice(list(PATTERNS))], rng.randint(1, 4)), ""))
    text = window(rng, corpora.english("heldout"), 600)
    cases.append(((text, merges, GPT2_PATTERN, rng.randint(5, 30)), "random"))
    return cases


ENCODE_LRU = TaskSpec(
    "encode_lru",
    encode_lru_reference,
    (
        Group("the examples", 1, _lru_examples),
        Group("random texts", 2, hidden=_lru_hidden),
    ),
    (
        Mistake(
            "a chunk found in the cache is used now: it becomes the most recently used, and "
            "the least recently used goes first (this cache evicts in order of arrival)",
            _lru_with(refresh=False),
        ),
        Mistake(
            "a chunk seen for the first time is a miss, even though it is stored",
            _lru_with(first_hit=True),
        ),
        Mistake(
            "your hits count chunks the cache no longer holds: it keeps at most capacity "
            "chunks, and a chunk that has left it is a miss when it comes back",
            _lru_with(keep=None),
        ),
        Mistake(
            "the cache holds capacity chunks, not one fewer",
            _lru_with(keep=-1),
        ),
        Mistake(
            "a capacity of 0 is allowed: the cache keeps no chunk, and every chunk is a miss "
            "(evicting before storing takes from an empty cache)",
            _lru_with(evict_first=True),
            part="the examples",
        ),
    ),
    "replay the first differing case by hand, writing down the cache after each chunk: which "
    "chunk should have left when it overflowed, and when was that chunk last stored or hit?",
)

SPECS = (DIGITS_RIGHT, FIRST_CROSSINGS, ENCODE_LRU)
check, judge_tasks = checks_of(SPECS)

# The notebook uses ByteTokenizer (chapter 05) and the patterns; the regex tokenizer is the answer
# (and, for chapter 08's checks, which keep the same modules out of reach, GPT-2's file format).
REFERENCE = (
    "book.tokenizers.bpe.regex_bpe",
    "book.tokenizers.bpe.pretokenize",
    "book.tokenizers.formats.gpt2_files",
    "book.chat",
    "book.analysis",
)
