"""Checks of exercises/06_pretokenization.ipynb, as one spec per task. The references are
composed from book.tokenizers.bpe (patterns, core, formats.gpt2_files) and, for the last task,
tiktoken itself (offline, book.encodings).

Each task asks for something the chapter did not write: a split that groups digits from the
right, the merges that first glued two chunks together, an encoder with a chunk cache of
bounded size, a reader of GPT-2's ``vocab.json`` and ``merges.txt``, and tiktoken's own
algorithm as its Rust code runs it (merge the pair whose joined bytes have the lowest rank, no
recovered merges, and after a merge look up only the pairs it changed: a probe counts the
look-ups, so the chapter's ``split_token`` with its limit removed earns nothing; it keeps the
count and the table out of the answer's reach by name, and refuses an answer that reaches
tiktoken).
Every group of cases catches every known mistake: hidden cases always carry the traps that
show it (``tests/test_check_specs.py`` proves it on seeds 1-20).
"""

from __future__ import annotations

import json
import random
from collections import OrderedDict
from functools import cache

import regex
import tiktoken

from book import corpora, walkthroughs
from book.checks.spec import (
    Cases,
    Group,
    Mistake,
    TaskSpec,
    checks_of,
    examples_and_drawn,
    random_text,
    window,
)
from book.encodings import get_encoding
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.core import merge_lowest_rank, ranks_of
from book.tokenizers.bpe.patterns import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN, split
from book.tokenizers.bpe.regex_bpe import RegexTokenizer
from book.tokenizers.formats.gpt2_files import (
    MERGES_HEADER,
    merges_text,
    token_bytes_of,
    vocab_text,
)

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


def _regrouped(text: str) -> list[str]:
    """cl100k_base's chunks, with each run of chunks that str.isdigit() accepts regrouped from
    the right: a number written with ½ or Ⅻ is cut where those are."""
    chunks, run = [], ""
    for chunk in [*split(text, CL100K_PATTERN), None]:
        if chunk is not None and chunk.isdigit():
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


def _digits_draw(rng: random.Random) -> tuple:
    """A text with an ASCII number, one of another system and one with a No or Nl character
    inside, among words, a contraction and punctuation."""
    mixed = _number(rng, DIGIT_SYSTEMS[0], 3, 9)
    at = rng.randrange(len(mixed) + 1)
    numbers = [
        _number(rng, DIGIT_SYSTEMS[0]),
        _number(rng, rng.choice(DIGIT_SYSTEMS[1:])),
        mixed[:at] + rng.choice(OTHER_NUMBERS) + mixed[at:],
    ]
    pieces = [random_text(rng, rng.randint(1, 5)), "I'LL", *numbers, "we've"]
    rng.shuffle(pieces)
    return (" ".join(pieces),)


DIGITS_RIGHT = examples_and_drawn(
    "digits_right",
    digits_right_reference,
    (_digits_examples, 1),
    ("random numbers", 1, _digits_draw),
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


def _merges_of(tokenizer) -> list:
    """A tokenizer's merges as pairs of bytes, in rank order."""
    vocab = tokenizer.vocab
    return [(vocab[left], vocab[right]) for (left, right), _count in tokenizer.merges]


# Merges every group carries: a cut inherited from a part (rank 1), a part of a character
# beside a letter (rank 3: not text, so never cut), a letter and a space before a part of a
# character (rank 5: not text, but "a " once the part is dropped), two parts of characters
# whose result is text every pattern cuts, "а " (rank 6: a first crossing, as neither part is
# text).
CROSSING_TRAPS = [
    (b"e", b" "),
    (b"e ", b"t"),
    (b"\xd0", b"\xb0"),
    ("é".encode(), b"\xd0"),
    (b"a", b","),
    (b"a", b" \xd0"),
    (b"\xd0", b"\xb0 "),
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
    """Merges of random pieces of random texts (some cut mid-character), with the traps."""
    cases: Cases = []
    for _ in range(3):
        data = random_text(rng, 12).encode()
        merges = list(CROSSING_TRAPS)
        for _ in range(30):
            i = rng.randrange(len(data) - 2)
            j = rng.randint(i + 1, min(i + 6, len(data) - 1))
            k = rng.randint(j + 1, min(j + 6, len(data)))
            merges.append((data[i:j], data[j:k]))
        rng.shuffle(merges)
        cases.append(((merges, PATTERNS[rng.choice(list(PATTERNS))]), "random"))
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


def _lru_with(refresh=True, keep=0, first_hit=False):
    """encode_lru with a slip: no refresh on a hit (FIFO), keep more or fewer chunks, or a
    first sight counted as a hit."""

    def encode(text, merges, pattern, capacity):
        ranks = ranks_of(merges)
        chunk_cache: OrderedDict[str, list[int]] = OrderedDict()
        ids: list[int] = []
        hits = 0
        for chunk in split(text, pattern):
            found = chunk in chunk_cache
            if found and refresh:
                chunk_cache.move_to_end(chunk)
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
    ),
    "replay the first differing case by hand, writing down the cache after each chunk: which "
    "chunk should have left when it overflowed, and when was that chunk last stored or hit?",
)

# --- Task 4: read_gpt2_files ---------------------------------------------------------------------


def read_gpt2_reference(vocab_json: str, merges_txt: str) -> tuple[dict[bytes, int], list]:
    """(ranks {token bytes: id}, merges [(left bytes, right bytes)]) from the files' texts."""

    def token(written: str) -> bytes:
        try:
            return token_bytes_of(written)
        except KeyError as error:  # a character outside the table
            raise ValueError(str(error)) from None

    ranks = {token(written): token_id for written, token_id in json.loads(vocab_json).items()}
    merges = []
    for number, line in enumerate(merges_txt.splitlines()):
        if (number == 0 and line.startswith("#version")) or not line.strip():
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"line {number + 1} is not two tokens separated by a space: {line!r}")
        merges.append((token(parts[0]), token(parts[1])))
    return ranks, merges


def _read_with(
    order=lambda others: others,
    header=True,
    error=ValueError,
    comments=False,
    any_space=False,
    first_line=False,
):
    """A reader with its own table (shifted bytes in order(others)), that skips the header or
    not, raises error for a character outside the table, skips every line that starts with '#'
    (comments=True), cuts lines at any run of whitespace (any_space=True) and skips the first
    line whatever it holds (first_line=True)."""

    def read(vocab_json, merges_txt):
        printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
        others = order([b for b in range(256) if b not in printable])
        byte_of = {chr(b): b for b in printable} | {chr(256 + i): b for i, b in enumerate(others)}

        def token(written):
            if any(c not in byte_of for c in written):
                raise error(f"{written!r} is outside the table")
            return bytes(byte_of[c] for c in written)

        ranks = {token(w): i for w, i in json.loads(vocab_json).items()}
        merges = []
        for number, line in enumerate(merges_txt.splitlines()):
            if (header and number == 0 and line.startswith("#version")) or not line.strip():
                continue
            if first_line and number == 0:
                continue
            if comments and line.startswith("#"):
                continue
            parts = line.split() if any_space else line.split(" ")
            if len(parts) != 2 or not all(parts):
                raise ValueError(f"line {number + 1}: {line!r}")
            merges.append((token(parts[0]), token(parts[1])))
        return ranks, merges

    return read


def _file_texts(vocab: dict[int, bytes], merges: list) -> tuple[str, str]:
    """The texts of vocab.json and merges.txt."""
    return vocab_text(vocab), merges_text(merges)


GPT2_PREFIX = 2_300  # GPT-2's tokens in its files' case: its merge '# #' makes token 2235


@cache
def _files(name: str) -> tuple[str, str]:
    """vocab.json and merges.txt of a tokenizer used by the cases."""
    if name == "gpt2-prefix":
        tok = RegexTokenizer.from_tiktoken(get_encoding("gpt2"))
        vocab, merges = tok.vocab_and_merges()
        keep = {i: b for i, b in vocab.items() if i < GPT2_PREFIX}
        return _file_texts(keep, merges[: GPT2_PREFIX - 256])
    tok = _trained(
        corpora.parallel()["Russian"] + MIXED if name == "multi" else _english(),
        330,
        "GPT2_PATTERN",
    )
    return _file_texts(*tok.vocab_and_merges())


def _broken(vocab_json: str, merges_txt: str) -> Cases:
    """Files that must raise ValueError: a character outside the table, a line of three
    tokens, a line with a space at its end, two spaces between the tokens."""
    return [
        ((vocab_json.replace('"', '"\\u2603', 1), merges_txt), "a character outside the table"),
        ((vocab_json, merges_txt + "\u0120 t h\n"), "a line of three tokens"),
        ((vocab_json, merges_txt + "\u0120 t \n"), "a space at the end of a line"),
        ((vocab_json, merges_txt + "\u0120  t\n"), "two spaces between the tokens"),
    ]


# Merges of GPT-2 whose lines start with '#' (its vocab.bpe has them at lines 1980, 3987, ...):
# they are merges, not comments.
HASH_MERGES = ["# #", "## ##", "## #", "# $", "#$ #$"]


def _with_hash_merges(merges_txt: str, rng: random.Random | None = None) -> str:
    """merges_txt with GPT-2's merges of '#' after its header: at the end, or at random
    places."""
    lines = merges_txt.splitlines()
    if rng is None:
        return "\n".join(lines + HASH_MERGES) + "\n"
    for merge_line in rng.sample(HASH_MERGES, 2):
        lines.insert(rng.randint(1, len(lines)), merge_line)
    return "\n".join(lines) + "\n"


def _headerless(merges_txt: str) -> str:
    """merges_txt without its '#version' first line: it starts with a merge."""
    return merges_txt.split("\n", 1)[1]


def _read_examples() -> Cases:
    vocab_json, merges_txt = _files("english")
    return [
        ((vocab_json, _headerless(merges_txt)), "no '#version' line"),
        (_files("english"), "a tokenizer trained on Shakespeare"),
        (_files("multi"), "tokens of partial characters: every byte through the table"),
        ((vocab_json, merges_txt.replace("\n", "\n\n")), "blank lines are skipped"),
        ((vocab_json, _with_hash_merges(merges_txt)), "merges of '#' tokens are merges"),
        ((vocab_json, MERGES_HEADER + "\n"), "no merges"),
        *_broken(vocab_json, merges_txt),
    ]


def _gpt2_files() -> Cases:
    files = _files("gpt2-prefix")
    return [
        (files, f"GPT-2's first {GPT2_PREFIX:,} tokens: bytes in GPT-2's order, merges of '#'"),
        ((files[0], _headerless(files[1])), "GPT-2's tokens, no '#version' line"),
        *_broken(*files),
    ]


def _read_hidden(rng: random.Random) -> Cases:
    text = random_text(rng, 30) + window(rng, corpora.english("heldout"), 400)
    secret = _trained(text, rng.randint(270, 330), "GPT2_PATTERN")
    vocab_json, merges_txt = _file_texts(*secret.vocab_and_merges())
    return [
        ((vocab_json, _with_hash_merges(merges_txt, rng)), "random"),
        ((vocab_json, merges_txt.replace("\n", "\n\n", rng.randint(1, 20))), "random"),
        ((vocab_json, _headerless(_with_hash_merges(merges_txt, rng))), "no '#version' line"),
        *_broken(vocab_json, merges_txt),
    ]


READ_GPT2_FILES = TaskSpec(
    "read_gpt2_files",
    read_gpt2_reference,
    (
        Group("the examples", 1, _read_examples),
        Group("GPT-2's own tokens", 1, _gpt2_files),
        Group("random tokenizers", 1, hidden=_read_hidden),
    ),
    (
        Mistake(
            "the 68 bytes that are not printable are shifted to chr(256), chr(257)... in "
            "increasing byte order",
            _read_with(order=lambda others: others[::-1]),
        ),
        Mistake("the '#version' first line is a header, not a merge", _read_with(header=False)),
        Mistake(
            "only a first line that starts with '#version' is a header: a file without one "
            "starts with a merge",
            _read_with(first_line=True),
        ),
        Mistake(
            "a character outside the table must raise ValueError, not another error",
            _read_with(error=KeyError),
        ),
        Mistake(
            "only the first line is a header: merges.txt has no comments, and a line that "
            "starts with '#' after it is a merge of '#' tokens (GPT-2's has '# #')",
            _read_with(comments=True),
        ),
        Mistake(
            "the tokens of a line are separated by exactly one space: a line with a space at "
            "its end, or two spaces between its tokens, is not two tokens",
            _read_with(any_space=True),
        ),
    ),
    "take the first differing token or line: which bytes does the chapter's table give each of "
    "its characters, and which of the file's lines are merges?",
)

# --- Task 5: encode_ranks ------------------------------------------------------------------------

# GPT-2's and cl100k_base's ranks are too big to send with every case: a case names the
# encoding, and the probe loads its ranks once, in the learner's kernel (a small tokenizer's
# ranks are sent as they are). The probe hands the answer the ranks behind a view that counts
# each look-up (and every key, when the answer iterates over them) and returns the ids and
# whether the look-ups stayed within LOOKUPS_PER_BYTE per byte of text. The table and the count
# live in the view's closure, not in attributes, so an answer cannot reset the count or read
# the table by name; and, as chapter 01's probe refuses the codec, this one refuses an answer
# whose code (or a function of the notebook it calls) reaches tiktoken, a table taken from it,
# or what lies behind the view.
LOOKUPS_PER_BYTE = 8
FEW = f"at most {LOOKUPS_PER_BYTE} look-ups per byte"
REACHES_TIKTOKEN = "reaches tiktoken"
REACHES_BEHIND = "reaches behind the ranks it is given"
LOAD_RANKS = f"""
import types
from collections.abc import Mapping

_RANKS = {{}}
# Names through which code reaches tiktoken, or the closure, globals and frames behind the view.
TIKTOKEN_NAMES = {{"tiktoken", "get_encoding", "Encoding", "encode_ordinary", "encode_batch"}}
TIKTOKEN_NAMES |= {{"_mergeable_ranks", "_core_bpe", "CoreBPE", "_encode_single_piece"}}
BEHIND_NAMES = {{"__closure__", "cell_contents", "__globals__", "getclosurevars", "_getframe"}}
BEHIND_NAMES |= {{"f_back", "f_locals", "f_globals", "gc", "get_referents", "get_referrers"}}


def _tiktoken_value(value):
    \"\"\"tiktoken, one of its encodings or functions, or a table of tokens taken from one.\"\"\"
    if isinstance(value, types.ModuleType):
        return value.__name__.split(".")[0] == "tiktoken"
    module = getattr(value, "__module__", None) or type(value).__module__ or ""
    if module.split(".")[0] == "tiktoken" or module == "book.encodings":
        return True
    if isinstance(value, dict) and len(value) > 256:
        return isinstance(next(iter(value)), bytes)
    return False


def _refusal(code, space):
    \"\"\"Why code may not run (a name or a value it reaches), or None.\"\"\"
    names = set(code.co_names) | {{c for c in code.co_consts if isinstance(c, str)}}
    if names & TIKTOKEN_NAMES:
        return {REACHES_TIKTOKEN!r}
    if names & BEHIND_NAMES:
        return {REACHES_BEHIND!r}
    for const in code.co_consts:
        if hasattr(const, "co_names") and (why := _refusal(const, space)):
            return why
    if any(_tiktoken_value(space.get(name)) for name in code.co_names):
        return {REACHES_TIKTOKEN!r}
    return None


def _names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def _refused(function, seen):
    code = getattr(function, "__code__", None)
    if code is None or id(function) in seen:
        return None
    seen.add(id(function))
    space = getattr(function, "__globals__", {{}})
    held = list(function.__defaults__ or ()) + list((function.__kwdefaults__ or {{}}).values())
    held += [cell.cell_contents for cell in function.__closure__ or ()]
    if why := _refusal(code, space):
        return why
    if any(_tiktoken_value(value) for value in held):
        return {REACHES_TIKTOKEN!r}
    for name in sorted(_names(code)):
        called = space.get(name)
        if getattr(called, "__module__", None) == "__main__" and (why := _refused(called, seen)):
            return why
    return None


def _counted(table):
    \"\"\"A read-only view of table that counts look-ups, and the count (a list of one int).\"\"\"
    count = [0]

    class CountedRanks(Mapping):
        __slots__ = ()

        def __getitem__(self, token):
            count[0] += 1
            return table[token]

        def __contains__(self, token):
            count[0] += 1
            return token in table

        def get(self, token, default=None):
            count[0] += 1
            return table.get(token, default)

        def __iter__(self):
            count[0] += len(table)
            return iter(list(table))

        def __len__(self):
            return len(table)

    return CountedRanks(), count


def probe(answer, text, ranks, pattern):
    if why := _refused(answer, set()):
        return why
    if isinstance(ranks, str):
        if ranks not in _RANKS:
            from book.encodings import get_encoding

            _RANKS[ranks] = get_encoding(ranks)._mergeable_ranks
        ranks = _RANKS[ranks]
    counted, count = _counted(ranks)
    ids = answer(text, counted, pattern)
    few = count[0] <= {LOOKUPS_PER_BYTE} * len(text.encode("utf-8", "surrogatepass"))
    return {{"ids": ids, {FEW!r}: few}}
"""

_ENCODINGS: dict[tuple, tuple] = {}  # (pattern, hash of the ranks) -> (ranks, encoder)
_LOADED: dict[tuple, tuple] = {}  # (id, pattern) -> (ranks, encoder), for loaded encodings


def _encoder(mergeable_ranks: dict[bytes, int], pattern: str) -> tiktoken.Encoding:
    """tiktoken's encoder for these ranks, built once: GPT-2's and cl100k's tables (the same
    objects each probe loads) are found by identity, others by content."""
    loaded = _LOADED.get((id(mergeable_ranks), pattern))
    if loaded and loaded[0] is mergeable_ranks:
        return loaded[1]
    key = (pattern, hash(frozenset(mergeable_ranks.items())))
    if key not in _ENCODINGS or _ENCODINGS[key][0] != mergeable_ranks:
        encoding = tiktoken.Encoding(
            "ranks", pat_str=pattern, mergeable_ranks=mergeable_ranks, special_tokens={}
        )
        _ENCODINGS[key] = (dict(mergeable_ranks), encoding)
    if len(mergeable_ranks) > 10_000:  # an encoding's own table: few of them, kept alive
        _LOADED[id(mergeable_ranks), pattern] = (mergeable_ranks, _ENCODINGS[key][1])
    return _ENCODINGS[key][1]


def _table_behind(ranks) -> dict[bytes, int]:
    """The table behind the probe's counting view (ranks itself when it is a table): only the
    reference reads it, the probe refuses an answer that does."""
    for cell in getattr(type(ranks).__len__, "__closure__", None) or ():
        if isinstance(cell.cell_contents, dict):
            return cell.cell_contents
    return ranks


def _tiktoken_ids(text: str, table: dict[bytes, int], pattern: str) -> list[int]:
    """tiktoken's own ids of text for this table and pattern."""
    return _encoder(table, pattern).encode_ordinary(text)


def encode_ranks_reference(text: str, mergeable_ranks: dict[bytes, int], pattern: str) -> list:
    """tiktoken's ids of text for these ranks and this pattern (no special tokens). Through the
    probe it reads the table behind the counting view, so it makes no counted look-up."""
    return _tiktoken_ids(text, _table_behind(mergeable_ranks), pattern)


def _ranks_with(pick):
    """encode_ranks that looks every adjacent pair up again after each merge, as tiktoken's
    _educational.py does, and merges the pair pick(parts, ranks) chooses (an index, or None)."""

    def encode(text, ranks, pattern):
        ids = []
        for chunk in split(text, pattern):
            parts = [bytes([b]) for b in chunk.encode("utf-8")]
            while (i := pick(parts, ranks)) is not None:
                parts[i : i + 2] = [parts[i] + parts[i + 1]]
            ids += [ranks[part] for part in parts]
        return ids

    return encode


def _joinable(parts, ranks):
    return [i for i in range(len(parts) - 1) if parts[i] + parts[i + 1] in ranks]


def _first_found(parts, ranks):
    found = _joinable(parts, ranks)
    return found[0] if found else None


def _leftmost_lowest(parts, ranks):
    found = _joinable(parts, ranks)
    return min(found, key=lambda i: (ranks[parts[i] + parts[i + 1]], i)) if found else None


def _rightmost_lowest(parts, ranks):
    found = _joinable(parts, ranks)
    return max(found, key=lambda i: (-ranks[parts[i] + parts[i + 1]], i)) if found else None


def _lowest_parts(parts, ranks):
    found = _joinable(parts, ranks)
    return min(found, key=lambda i: ranks[parts[i]] + ranks[parts[i + 1]]) if found else None


def _kept_ranks(refresh_left: bool = True):
    """encode_ranks that keeps each adjacent pair's rank and, after a merge, looks up the pair
    on the new piece's right and (refresh_left) on its left."""

    def encode(text, ranks, pattern):
        ids = []
        for chunk in split(text, pattern):
            parts = [bytes([b]) for b in chunk.encode("utf-8")]
            pair_ranks = [ranks.get(a + b) for a, b in zip(parts, parts[1:])]
            while any(rank is not None for rank in pair_ranks):
                _rank, i = min((r, i) for i, r in enumerate(pair_ranks) if r is not None)
                parts[i : i + 2] = [parts[i] + parts[i + 1]]
                del pair_ranks[i]
                if i > 0 and refresh_left:
                    pair_ranks[i - 1] = ranks.get(parts[i - 1] + parts[i])
                if i < len(pair_ranks):
                    pair_ranks[i] = ranks.get(parts[i] + parts[i + 1])
            ids += [ranks[part] for part in parts]
        return ids

    return encode


def _through_tiktoken(text, ranks, pattern):
    """tiktoken's own encoder, built from a copy of the ranks."""
    table = dict(ranks)
    encoding = tiktoken.Encoding("copy", pat_str=pattern, mergeable_ranks=table, special_tokens={})
    return encoding.encode_ordinary(text)


def _count_reset(text, ranks, pattern):
    """Every pair looked up again after each merge, then the count set back to 0 through the
    counting view's closure."""
    ids = _ranks_with(_leftmost_lowest)(text, ranks, pattern)
    for cell in type(ranks).get.__closure__ or ():
        if isinstance(cell.cell_contents, list):
            cell.cell_contents[0] = 0
    return ids


@cache
def _trained_ranks() -> dict[bytes, int]:
    return mergeable_ranks(_trained(_english(), 500, "CL100K_PATTERN"))


# Chunks where the order of merges shows: repeats (the leftmost of equal pairs goes first),
# numbers, and one long run of letters, on which looking every pair up again after each merge
# costs far more than LOOKUPS_PER_BYTE per byte of the whole text.
LONG_WORD = "internationalization" * 8
ENCODE_TRAPS = f" aaaa !!!!???.... 🦙🦙🦙 ==== 1234567 {LONG_WORD}  \n\n   x"


def _source(name: str):
    """The ranks argument of a case: an encoding's name, or the trained tokenizer's ranks."""
    return dict(_trained_ranks()) if name == "trained" else name


def _encode_examples(name: str):
    pattern = GPT2_PATTERN if name == "gpt2" else CL100K_PATTERN
    return lambda: [((text, _source(name), pattern), name) for text in [ENCODE_TRAPS, *TEST_SET]]


def _encode_hidden(rng: random.Random) -> Cases:
    cases: Cases = []
    for name in ("gpt2", "cl100k_base", "trained"):
        pattern = GPT2_PATTERN if name == "gpt2" else CL100K_PATTERN
        texts = [random_text(rng, 10) + ENCODE_TRAPS, window(rng, corpora.code("python"), 200)]
        cases += [((text, _source(name), pattern), f"random, {name}") for text in texts]
    return cases


ENCODE_RANKS = TaskSpec(
    "encode_ranks",
    encode_ranks_reference,
    (
        Group("GPT-2", 1, _encode_examples("gpt2")),
        Group("cl100k_base", 1, _encode_examples("cl100k_base")),
        Group("a tokenizer trained on Shakespeare", 1, _encode_examples("trained")),
        Group("random texts", 1, hidden=_encode_hidden),
    ),
    (
        Mistake(
            "the first pair that joins into a token is not the one to merge: merge the pair "
            "whose joined token has the lowest rank",
            _ranks_with(_first_found),
        ),
        Mistake(
            "when the lowest rank is found at several places, merge the leftmost first",
            _ranks_with(_rightmost_lowest),
        ),
        Mistake(
            "the rank that decides is the joined token's, not the sum of the parts' ranks",
            _ranks_with(_lowest_parts),
        ),
        Mistake(
            "the ids are right, but after each merge every adjacent pair is looked up again "
            "(as the chapter's split_token and tiktoken's _educational.py do): a merge changes "
            "only the pairs that touch the new piece, the others keep their ranks",
            _ranks_with(_leftmost_lowest),
        ),
        Mistake(
            "after a merge the pair on the new piece's left changed too: its old rank belongs "
            "to the piece that was merged away",
            _kept_ranks(refresh_left=False),
        ),
        Mistake(
            "your answer (or a function of the notebook it calls) reaches tiktoken: its module, "
            "an encoding or a table taken from one. Encode with the ranks you are given",
            _through_tiktoken,
        ),
        Mistake(
            "your answer (or a function it calls) reaches behind the ranks it is given, to the "
            "table or the count of look-ups: use the ranks only by looking tokens up",
            _count_reset,
        ),
    ),
    "encode the first differing chunk alone, and decode tiktoken's ids and yours to pieces: "
    "the first place where they part shows the merge your rule chose differently. If only the "
    "look-ups differ, count how many your encoder makes on one long word.",
    probe=LOAD_RANKS,
)

SPECS = (DIGITS_RIGHT, FIRST_CROSSINGS, ENCODE_LRU, READ_GPT2_FILES, ENCODE_RANKS)
check, judge_tasks = checks_of(SPECS)

# The notebook uses ByteTokenizer (chapter 05), the patterns and tiktoken's ranks; the regex
# tokenizer and GPT-2's file format are the answers.
REFERENCE = (
    "book.tokenizers.bpe.regex_bpe",
    "book.tokenizers.bpe.pretokenize",
    "book.tokenizers.formats.gpt2_files",
    "book.chat",
    "book.analysis",
)
