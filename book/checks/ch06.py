"""Checks of exercises/06_pretokenization.ipynb. The references are
book.tokenizers.bpe.regex_bpe, book.tokenizers.formats.gpt2_files and, for the last task,
tiktoken itself (offline, book.encodings).

Every task is a variant, an extension or a measurement of the chapter's code: a split pattern
that groups digits from the right, the learned tokens that cross chunk boundaries, an encoder
with a chunk cache, a reader of GPT-2's ``vocab.json`` and ``merges.txt``, and tiktoken's own
algorithm (merge the pair whose joined bytes have the lowest rank, no recovered merges).
Cases use OpenAI's three split patterns and a made-up one, text in several scripts, numbers
in several number systems, contractions in any case, runs of whitespace and emoji, tokenizers
trained here as well as GPT-2's and GPT-4's; the judge adds hidden texts drawn at random.
"""

from __future__ import annotations

import json
import random
from functools import cache

import regex

from book import corpora, walkthroughs
from book.checks.cases import Cases, case_label, check_on_cases, judge_calls, outcome, short_arg
from book.checks.core import Case, check_cases, equal
from book.checks.spec import Call, Task, random_text, window
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


# --- the references ------------------------------------------------------------------------------


def digits_right_reference(text: str) -> list[str]:
    """The chunks of text under cl100k's pattern with digits grouped from the right."""
    return regex.findall(DIGITS_RIGHT_REFERENCE, text)


def crossing_reference(vocab: dict[int, bytes], pattern: str) -> list[int]:
    """Ids >= 256 whose bytes are whole UTF-8 text that the pattern cuts into several chunks."""
    found = []
    for token_id in sorted(vocab):
        try:
            text = vocab[token_id].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if token_id >= 256 and len(split(text, pattern)) > 1:
            found.append(token_id)
    return found


def cached_reference(text: str, merges: list, pattern: str, cache_: dict) -> list:
    """[ids, the cache afterwards]: each chunk's ids from the cache, or computed and stored."""
    ranks = ranks_of(merges)
    ids: list[int] = []
    for chunk in regex.findall(pattern, text):
        if chunk not in cache_:
            cache_[chunk] = merge_lowest_rank(list(chunk.encode("utf-8")), ranks)
        ids += cache_[chunk]
    return [ids, cache_]


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


# --- the cases -----------------------------------------------------------------------------------


def _digits_cases() -> Cases:
    """DIGITS_RIGHT on numbers of every length and system, and text without numbers."""
    notes = [
        "from the right: 1234 is 1 + 234",
        "",
        "",
        "any \\p{N}, not only 0-9",
        "",
        "no numbers",
    ]
    return [((text,), note) for text, note in zip(NUMBER_TEXTS, notes)] + [
        ((text,), "everything else as cl100k_base splits it") for text in TEST_SET[4:12]
    ]


@cache
def _vocabularies() -> dict[str, dict[int, bytes]]:
    """The vocabularies crossing_tokens is checked on."""
    return {
        "byte-level vocab of Shakespeare": ByteTokenizer.train(_english(), 400).vocab,
        "byte-level vocab of the parallel passage": ByteTokenizer.train(
            "\n".join(corpora.parallel().values()), 400
        ).vocab,
        "regex vocab (GPT-2 pattern)": _trained(_english(), 400, "GPT2_PATTERN").vocab,
        "a vocab without merges": ByteTokenizer().vocab,
    }


def _crossing_cases() -> Cases:
    """crossing_tokens on four vocabularies under three patterns (given by name)."""
    return [
        ((label, name), "")
        for label in _vocabularies()
        for name in ("GPT2_PATTERN", "O200K_PATTERN", "WORDS_ONLY")
    ]


def _cache_cases() -> Cases:
    """encode_cached: empty caches, a cache that holds a (wrong) entry, repeated chunks."""
    tok = _trained(_english(), 400, "GPT2_PATTERN")
    merges = list(tok.merges)
    heldout = corpora.english("heldout")[:800]
    return [
        (("the king's men, the king's", merges, "GPT2_PATTERN", {}), "an empty cache fills"),
        ((heldout, merges, "GPT2_PATTERN", {}), "repeated chunks are computed once"),
        ((MIXED, merges, "CL100K_PATTERN", {}), "the pattern decides the chunks"),
        (
            ("the cat and the hat", merges, "GPT2_PATTERN", {" the": [7, 7]}),
            "a chunk in the cache is taken from it, as it is",
        ),
        (("", merges, "GPT2_PATTERN", {"x": [120]}), "no text: the cache stays as it was"),
    ]


def _file_texts(vocab: dict[int, bytes], merges: list) -> tuple[str, str]:
    """The texts of vocab.json and merges.txt."""
    return vocab_text(vocab), merges_text(merges)


@cache
def _files(name: str) -> tuple[str, str]:
    """vocab.json and merges.txt of a tokenizer used by the cases."""
    if name == "gpt2-prefix":
        tok = RegexTokenizer.from_tiktoken(get_encoding("gpt2"))
        vocab, merges = tok.vocab_and_merges()
        keep = {i: b for i, b in vocab.items() if i < 1500}
        return _file_texts(keep, merges[: 1500 - 256])
    tok = _trained(
        corpora.parallel()["Russian"] + MIXED if name == "multi" else _english(),
        330,
        "GPT2_PATTERN",
    )
    return _file_texts(*tok.vocab_and_merges())


def _read_cases() -> Cases:
    """read_gpt2_files on a trained vocabulary, GPT-2's first ranks, and broken files."""
    vocab_json, merges_txt = _files("english")
    return [
        (_files("english"), "a tokenizer trained on Shakespeare"),
        (_files("multi"), "tokens of partial characters: every byte through the table"),
        (_files("gpt2-prefix"), "GPT-2's first 1,500 tokens, bytes in GPT-2's order"),
        ((vocab_json, MERGES_HEADER + "\n"), "no merges"),
        ((vocab_json, merges_txt.replace("\n", "\n\n")), "blank lines are skipped"),
        ((vocab_json, merges_txt + "Ġ t h\n"), "a line of three tokens raises ValueError"),
        (('{"a": 0, "\\u2603": 1}', MERGES_HEADER + "\n"), "a character outside the table raises"),
    ]


def _encode_cases() -> Cases:
    """encode_ranks on the test set with GPT-2's and GPT-4's ranks and a trained tokenizer."""
    return [((text, name), "") for name in ("gpt2", "cl100k_base", "trained") for text in TEST_SET]


# --- the checks the notebook runs ----------------------------------------------------------------

HINTS = {
    "DIGITS_RIGHT": "copy CL100K_PATTERN and replace only its number alternative \\p{N}{1,3}+ by "
    "one that takes 1 to 3 digits when the digits left after them come in threes: "
    "\\p{N}{1,3}(?=(?:\\p{N}{3})*(?!\\p{N})). It must not be possessive, or it cannot give "
    "back a digit.",
    "crossing_tokens": "skip ids below 256 and tokens whose bytes do not decode as UTF-8 (part "
    "of a character); keep the ids whose text regex.findall(pattern, text) cuts into 2+ chunks.",
    "encode_cached": "key the cache by the chunk's text; if a chunk is in the cache use its ids "
    "as they are (even if they look wrong), else encode the chunk alone and store a list. "
    "Return the ids of all chunks, and leave the cache filled.",
    "read_gpt2_files": "invert the byte-to-unicode table (188 printable bytes as themselves, the "
    "other 68 shifted to chr(256 + i) in byte order); vocab.json maps written tokens to ids; "
    "merges.txt has a '#version' line, then 'left right' per line, split on one space. Raise "
    "ValueError for a character outside the table or a line that is not two tokens.",
    "encode_ranks": "for each chunk of the pattern: start from its single bytes; while some "
    "adjacent pair's joined bytes are a token, merge the pair whose joined token has the lowest "
    "rank (the leftmost if tied); the ids are the final parts' ranks. No merge list needed.",
}
POINTS = {
    "DIGITS_RIGHT": 2,
    "crossing_tokens": 2,
    "encode_cached": 3,
    "read_gpt2_files": 3,
    "encode_ranks": 4,
}


def check_digits_right(pattern) -> None:
    """DIGITS_RIGHT: cl100k's pattern with digits grouped in threes from the right."""
    findall = (lambda text: regex.findall(pattern, text)) if isinstance(pattern, str) else pattern
    cases = [
        Case(
            f"regex.findall(DIGITS_RIGHT, {short_arg(text)})" + (f" [{note}]" if note else ""),
            lambda text=text: findall(text),
            digits_right_reference(text),
        )
        for (text,), note in _digits_cases()
    ]
    check_cases(
        "DIGITS_RIGHT",
        {"DIGITS_RIGHT": pattern},
        cases,
        POINTS["DIGITS_RIGHT"],
        HINTS["DIGITS_RIGHT"],
    )


def check_crossing_tokens(crossing_tokens) -> None:
    """crossing_tokens(vocab, pattern) -> sorted ids >= 256 that the pattern cuts in pieces."""
    vocabularies = _vocabularies()
    cases = [
        Case(
            case_label("crossing_tokens", (label, name), note),
            lambda label=label, name=name: outcome(
                crossing_tokens, dict(vocabularies[label]), PATTERNS[name]
            ),
            crossing_reference(vocabularies[label], PATTERNS[name]),
        )
        for (label, name), note in _crossing_cases()
    ]
    check_cases(
        "crossing_tokens",
        {"crossing_tokens": crossing_tokens},
        cases,
        POINTS["crossing_tokens"],
        HINTS["crossing_tokens"],
    )


def _cached_answer(encode_cached):
    """encode_cached as a function returning [ids, cache afterwards], patterns by name."""
    if not callable(encode_cached):
        return encode_cached

    def run(text, merges, pattern_name, cache_):
        return [encode_cached(text, merges, PATTERNS[pattern_name], cache_), cache_]

    return run


def _cached_by_name(text, merges, pattern_name, cache_):
    """The reference with the pattern given by name."""
    return cached_reference(text, merges, PATTERNS[pattern_name], cache_)


def check_encode_cached(encode_cached) -> None:
    """encode_cached(text, merges, pattern, cache) -> ids; cache filled {chunk: ids}."""
    check_on_cases(
        "encode_cached",
        _cached_answer(encode_cached),
        _cached_by_name,
        _cache_cases(),
        POINTS["encode_cached"],
        HINTS["encode_cached"],
    )


def check_read_gpt2_files(read_gpt2_files) -> None:
    """read_gpt2_files(vocab_json, merges_txt) -> (ranks {bytes: id}, merges [(bytes, bytes)])."""
    check_on_cases(
        "read_gpt2_files",
        read_gpt2_files,
        read_gpt2_reference,
        _read_cases(),
        POINTS["read_gpt2_files"],
        HINTS["read_gpt2_files"],
    )


@cache
def _encoding_ranks(name: str) -> dict[bytes, int]:
    """The mergeable ranks of an encoding, or of the tokenizer trained on Shakespeare."""
    if name == "trained":
        return mergeable_ranks(_trained(_english(), 500, "CL100K_PATTERN"))
    return get_encoding(name)._mergeable_ranks


def _pattern_of(name: str) -> str:
    """The split pattern that goes with the ranks of ``name``."""
    return GPT2_PATTERN if name == "gpt2" else CL100K_PATTERN


def _encode_expected(text: str, name: str) -> list[int]:
    """tiktoken's ids, or the trained tokenizer's."""
    if name == "trained":
        return _trained(_english(), 500, "CL100K_PATTERN").encode_ordinary(text)
    return get_encoding(name).encode_ordinary(text)


def check_encode_ranks(encode_ranks) -> None:
    """encode_ranks(text, mergeable_ranks, pattern) -> tiktoken's ids on the test set."""
    cases = [
        Case(
            f"encode_ranks({short_arg(text)}, {name} ranks, its pattern)",
            lambda text=text, name=name: outcome(
                encode_ranks, text, _encoding_ranks(name), _pattern_of(name)
            ),
            _encode_expected(text, name),
        )
        for (text, name), _note in _encode_cases()
    ]
    check_cases(
        "encode_ranks",
        {"encode_ranks": encode_ranks},
        cases,
        POINTS["encode_ranks"],
        HINTS["encode_ranks"],
    )


# --- what the judge needs (see book.checks.core) --------------------------------------------------

# The notebook uses ByteTokenizer (chapter 05), the patterns and tiktoken's ranks; the regex
# tokenizer and GPT-2's file format are the answers.
REFERENCE = (
    "book.tokenizers.bpe.regex_bpe",
    "book.tokenizers.bpe.pretokenize",
    "book.tokenizers.formats.gpt2_files",
    "book.chat",
    "book.analysis",
)
SETUP = """
import regex
from book.encodings import get_encoding
_ranks = {}
def RANKS(name):
    if name not in _ranks:
        _ranks[name] = dict(TRAINED) if name == "trained" else dict(
            get_encoding(name)._mergeable_ranks)
    return _ranks[name]
def PATTERN_OF(name):
    return PATTERNS["GPT2_PATTERN" if name == "gpt2" else "CL100K_PATTERN"]
def cached(function, text, merges, pattern_name, cache):
    return [function(text, merges, PATTERNS[pattern_name], cache), cache]
"""


def _vocab_subset(rng: random.Random, vocab: dict[int, bytes]) -> dict[int, bytes]:
    """The byte tokens of vocab and a random half of its learned tokens."""
    learned = sorted(i for i in vocab if i >= 256)
    keep = set(rng.sample(learned, len(learned) // 2))
    return {i: token for i, token in vocab.items() if i < 256 or i in keep}


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 06's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    texts = [random_text(rng, rng.randint(3, 12)) for _ in range(3)]
    texts.append(window(rng, corpora.english("heldout"), 300))
    numbers = " ".join(str(rng.randint(0, 10 ** rng.randint(1, 12))) for _ in range(8))
    data = {"PATTERNS": PATTERNS, "TRAINED": _encoding_ranks("trained")}

    digits = [
        Call(
            f"regex.findall(DIGITS_RIGHT, {short_arg(text)})" + (f" [{note}]" if note else ""),
            "regex.findall(DIGITS_RIGHT, a0)",
            (text,),
            digits_right_reference(text),
            hidden,
        )
        for cases, hidden in [
            (_digits_cases(), False),
            ([((t,), "") for t in [numbers, *texts]], True),
        ]
        for (text,), note in cases
    ]
    crossing = [
        Call(
            case_label("crossing_tokens", (label, name)),
            "crossing_tokens(dict(a0), PATTERNS[a1])",
            (dict(vocab), name),
            crossing_reference(vocab, PATTERNS[name]),
            hidden,
        )
        for label, vocab, name, hidden in [
            *[
                (label, _vocabularies()[label], name, False)
                for (label, name), _ in _crossing_cases()
            ],
            *[
                (
                    f"part of the {label}",
                    _vocab_subset(rng, dict(vocab)),
                    rng.choice(list(PATTERNS)),
                    True,
                )
                for label, vocab in list(_vocabularies().items())[:3]
            ],
        ]
    ]
    tok = _trained(_english(), 400, "GPT2_PATTERN")
    cache_hidden = [
        ((text, list(tok.merges), rng.choice(list(PATTERNS)), {}), "hidden") for text in texts
    ]
    cached = [
        Call(
            call.label,
            f"cached(encode_cached, {call.expr.split('(', 1)[1]}",
            call.args,
            call.expected,
            call.hidden,
        )
        for call in judge_calls("encode_cached", _cached_by_name, _cache_cases(), False)
        + judge_calls("encode_cached", _cached_by_name, cache_hidden, True)
    ]
    secret = _trained(texts[0] + texts[3], rng.randint(270, 330), "GPT2_PATTERN")
    read_hidden = [(_file_texts(*secret.vocab_and_merges()), "hidden")]
    reads = judge_calls("read_gpt2_files", read_gpt2_reference, _read_cases(), False)
    reads += judge_calls("read_gpt2_files", read_gpt2_reference, read_hidden, True)
    secret_texts = texts + [window(rng, corpora.code("python"), 200)]
    encodes = [
        Call(
            f"encode_ranks({short_arg(text)}, {name} ranks, its pattern)",
            "encode_ranks(a0, RANKS(a1), PATTERN_OF(a1))",
            (text, name),
            _encode_expected(text, name),
            hidden,
        )
        for group, hidden in [
            ([case for case, _ in _encode_cases()], False),
            ([(t, n) for t in secret_texts for n in ("gpt2", "cl100k_base", "trained")], True),
        ]
        for text, name in group
    ]
    # The answer is a string, not a function: one call reads it (any str passes that call).
    digits.insert(0, Call("DIGITS_RIGHT [a pattern string]", "DIGITS_RIGHT", (), A_STRING))
    calls = {
        "DIGITS_RIGHT": digits,
        "crossing_tokens": crossing,
        "encode_cached": cached,
        "read_gpt2_files": reads,
        "encode_ranks": encodes,
    }
    return [
        Task(name, POINTS[name], (name,), calls[name], HINTS[name], _compare, SETUP, data)
        for name in POINTS
    ]


A_STRING = "<any str>"  # the expected value of reading DIGITS_RIGHT itself


def _compare(got, expected) -> bool:
    """Structural equality, except that reading the pattern only needs a str."""
    if expected is A_STRING:
        return isinstance(got, str)
    return equal(got, expected)
