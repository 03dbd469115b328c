"""Checks of exercises/06_pretokenization.ipynb. The references are book.tokenizers.regex_bpe and,
for the last task, tiktoken itself (through book.encodings, offline).

Cases use all three of OpenAI's split patterns and a made-up one, text in several scripts,
numbers, contractions in any case, runs of whitespace and emoji, and tokenizers trained here
as well as GPT-2's and GPT-4's, so that no constant or shortcut passes.
"""

from __future__ import annotations

import random

from functools import cache

from book import corpora
from book.checks.core import Case, check_cases, check_function, show
from book.checks.spec import Call, Task, random_text, window
from book.encodings import get_encoding
from book import walkthroughs
from book.tokenizers.byte_bpe import ByteTokenizer
from book.tokenizers.patterns import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN, split
from book.tokenizers.pretokenize import chunk_counts
from book.tokenizers.regex_bpe import RegexTokenizer, recover_merges

WORDS_ONLY = r"\s*\S+|\s+"  # a made-up pattern: a word with the whitespace before it
PATTERNS = {"GPT2_PATTERN": GPT2_PATTERN, "CL100K_PATTERN": CL100K_PATTERN,
            "O200K_PATTERN": O200K_PATTERN, "WORDS_ONLY": WORDS_ONLY}
MIXED = "I'LL pay $1234.50, we've  got 3 CamelCase things!\n\n  Ωμέγα 日本語 naïve 🦙🦙 👨‍👩‍👧"

# The check's test set for the last task: prose, code, numbers, whitespace, many scripts, emoji.
TEST_SET = [
    "", "a", " ", "Hello, world!", "The quick brown fox jumps over the lazy dog.",
    "I'm tokenizing this, you'RE sure? We'll SEE'S it.", "   leading and trailing   ",
    "x=1;y=2\nprint(x+y)  # sum\n\n\n\tdef f(a, b):\n\t\treturn a * b\n",
    '{"id": 12345678, "pi": 3.14159, "ok": true, "tags": ["a", "b"]}',
    "1 12 123 1234 12345 123456 1,234,567.89 2024-01-31 0x1F600",
    "camelCaseName PascalCaseName snake_case_name kebab-case-name ALLCAPS",
    "naïve café Ünïcödé Straße Ωμέγα Привет мир שלום مرحبا नमस्ते こんにちは 你好 안녕하세요 ไทย",
    "👍🏽 👨‍👩‍👧‍👦 🇫🇷 🦙🦙🦙 ❤️ ✨", "\r\nwindows\r\nlines\r\n", "tabs\t\tand\u00a0nbsp\u3000ideographic",
    "'s 't 're 've 'm 'll 'd 'S 'T 'RE 'VE 'M 'LL 'D", "!!!???... --- ***", walkthroughs.DOG_TEXT, walkthroughs.DEF_TEXT,
    *list(corpora.parallel().values())[::3], corpora.english("heldout")[:1500], corpora.code("python")[:1500],
]


@cache
def _english(n_chars: int = 4000) -> str:
    """The first ``n_chars`` characters of the training plays."""
    return corpora.english("train")[:n_chars]


@cache
def _trained(text: str, vocab_size: int, pattern_name: str) -> RegexTokenizer:
    """The reference regex tokenizer trained on ``text``."""
    return RegexTokenizer.train(text, vocab_size, pattern=PATTERNS[pattern_name])


def _short(value) -> str:
    """A short label for a big argument: its first items and how many there are."""
    if isinstance(value, str) and len(value) > 40:
        return repr(value[:30] + "…")
    if isinstance(value, (list, dict)) and len(value) > 4:
        items = list(value.items()) if isinstance(value, dict) else value
        return f"[{', '.join(show(item, 30) for item in items[:2])}, … {len(value)} items]"
    return show(value, 60)


def _pattern_label(pattern: str) -> str:
    """The name a learner sees for a pattern."""
    return next((name for name, p in PATTERNS.items() if p == pattern), repr(pattern))


def check_chunk_counts(chunk_counts_) -> None:
    """chunk_counts(text, pattern) -> {chunk as UTF-8 bytes: count}, in order of first occurrence."""
    cases = []
    for text in ["", walkthroughs.DOG_TEXT, MIXED, _english()]:
        for pattern in PATTERNS.values():
            cases.append(Case(f"list(chunk_counts({_short(text)}, {_pattern_label(pattern)}).items())",
                              lambda t=text, p=pattern: list(chunk_counts_(t, p).items()),
                              list(chunk_counts(text, pattern).items())))
    check_cases("chunk_counts", {"chunk_counts": chunk_counts_}, cases, points=2,
                hint="for chunk in regex.findall(pattern, text): count chunk.encode('utf-8') in a "
            "plain "
                     "dict, so chunks keep the order in which they first occur.")


def _reference_crossing(vocab: dict[int, bytes], pattern: str) -> list[int]:
    """Ids >= 256 whose bytes are whole UTF-8 text that the pattern cuts into several chunks."""
    found = []
    for token_id in sorted(vocab):
        if token_id < 256:
            continue
        try:
            text = vocab[token_id].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(split(text, pattern)) > 1:
            found.append(token_id)
    return found


def check_crossing_tokens(crossing_tokens) -> None:
    """crossing_tokens(vocab, pattern) -> sorted ids >= 256 that the pattern splits in several chunks."""
    vocabularies = {
        "byte-level vocab of Shakespeare": ByteTokenizer.train(_english(), 400).vocab,
        "byte-level vocab of the parallel passage": ByteTokenizer.train("\n".join(corpora.parallel().values()), 400).vocab,
        "regex vocab (GPT-2 pattern)": _trained(_english(), 400, "GPT2_PATTERN").vocab,
        "a vocab without merges": ByteTokenizer().vocab,
    }
    cases = []
    for label, vocab in vocabularies.items():
        for pattern in (GPT2_PATTERN, O200K_PATTERN, WORDS_ONLY):
            cases.append(Case(f"crossing_tokens({label}, {_pattern_label(pattern)})",
                              lambda v=vocab, p=pattern: crossing_tokens(dict(v), p),
                              _reference_crossing(vocab, pattern)))
    check_cases("crossing_tokens", {"crossing_tokens": crossing_tokens}, cases, points=2,
                hint="skip ids below 256 and tokens whose bytes do not decode as UTF-8 (part of a "
                     "character); keep the ids whose text regex.findall(pattern, text) cuts into 2+ chunks.")


def check_train_regex(train_regex) -> None:
    """train_regex(text, vocab_size, pattern) -> [(pair, count), ...] learned within chunks."""
    calls = []
    for text, sizes in [(walkthroughs.DOG_TEXT, [256, 260, 300]), (MIXED, [270, 300]), ("aaaa aaab baaa zy yz", [262])]:
        for pattern_name, pattern in PATTERNS.items():
            for vocab_size in sizes:
                calls.append(((text, vocab_size, pattern), _trained(text, vocab_size, pattern_name).merges))
    calls.append(((_english(), 320, GPT2_PATTERN), _trained(_english(), 320, "GPT2_PATTERN").merges))
    check_function("train_regex", train_regex, calls, points=3,
                   hint="count each distinct chunk once with its frequency; each round add freq for every "
                        "pair inside each chunk, take max(pair_counts, key=pair_counts.get), record "
                        "(pair, count) and merge it in every chunk. Stop early when no pair is left.")


def check_encode_regex(encode_regex) -> None:
    """encode_regex(text, merges, pattern) -> ids: each chunk encoded on its own."""
    calls = []
    for pattern_name, texts in [("GPT2_PATTERN", ["the king's men, 1234 of them", MIXED, corpora.english("heldout")[:500]]),
                                ("CL100K_PATTERN", ["the king's men, 1234 of them", MIXED]),
                                ("WORDS_ONLY", ["the king's men,  of them", "日本語 🦙"])]:
        tok = _trained(_english(), 400, pattern_name)
        calls += [((text, list(tok.merges), PATTERNS[pattern_name]), tok.encode_ordinary(text)) for text in texts]
    # Merges learned without a pattern join bytes across chunks; encoding must still not.
    byte_level = ByteTokenizer.train(_english(), 400)
    for text in ["the king's men, of them", corpora.english("heldout")[:500]]:
        expected = RegexTokenizer(byte_level.merges, GPT2_PATTERN).encode_ordinary(text)
        calls.append(((text, list(byte_level.merges), GPT2_PATTERN), expected))
    check_function("encode_regex", encode_regex, calls, points=2,
                   hint="for chunk in regex.findall(pattern, text): start from "
            "list(chunk.encode('utf-8')) "
                        "and apply the merges to that chunk alone (in order, or lowest rank first).")


def _ranks_of(tokenizer: RegexTokenizer) -> dict[bytes, int]:
    """A tokenizer's vocabulary as tiktoken-style mergeable ranks {token bytes: id}."""
    return {token: token_id for token_id, token in tokenizer.vocab.items()}


@cache
def _gpt2_prefix(n_ranks: int = 3000) -> dict[bytes, int]:
    """GPT-2's tokens of rank below ``n_ranks``: itself a valid set of mergeable ranks."""
    return {token: rank for token, rank in get_encoding("gpt2")._mergeable_ranks.items() if rank < n_ranks}


def check_recover(recover) -> None:
    """recover(mergeable_ranks) -> (byte_ids, [pair, ...]) equivalent to tiktoken's ranks."""
    identity = {bytes([b]): b for b in range(256)}
    ranks_list = {
        "ranks of ab, abc": identity | {b"ab": 256, b"abc": 257},
        "ranks where b+c comes first": identity | {b"bc": 256, b"abc": 257, b"ab": 258, b"abab": 259},
        "ranks in a shuffled byte order": {bytes([b]): (b * 7 + 3) % 256 for b in range(256)} | {b"hi": 256, b"hi!": 257},
        "ranks of a tokenizer trained on Shakespeare": _ranks_of(_trained(_english(), 400, "GPT2_PATTERN")),
        "GPT-2's first 3,000 ranks": _gpt2_prefix(),
    }
    cases = []
    for label, ranks in ranks_list.items():
        byte_ids, merges = recover_merges(ranks)
        cases.append(Case(f"recover({label})", lambda r=ranks: recover(dict(r)),
                          (byte_ids, [pair for pair, _count in merges])))
    check_cases("recover", {"recover": recover}, cases, points=3,
                   hint="byte_ids[b] = ranks[bytes([b])]; for each token from rank 256 on, run BPE on its "
                        "bytes using only tokens of lower rank until two parts remain: their ranks are "
                        "the merged pair.")


def check_build_encoder(build_encoder) -> None:
    """build_encoder(mergeable_ranks, pattern) -> encode(text) giving tiktoken's ids on the test set."""
    cases = []
    trained = _trained(_english(), 500, "CL100K_PATTERN")
    targets = [("gpt2", get_encoding("gpt2")._mergeable_ranks, GPT2_PATTERN, get_encoding("gpt2").encode_ordinary),
               ("cl100k_base", get_encoding("cl100k_base")._mergeable_ranks, CL100K_PATTERN,
                get_encoding("cl100k_base").encode_ordinary),
               ("a tokenizer trained on Shakespeare", _ranks_of(trained), CL100K_PATTERN, trained.encode_ordinary)]
    for name, ranks, pattern, reference in targets:
        built = {}

        def encoder(ranks=ranks, pattern=pattern, built=built):
            if "encode" not in built:  # build once per encoding, as a real program would
                built["encode"] = build_encoder(ranks, pattern)
            return built["encode"]

        for text in TEST_SET:
            cases.append(Case(f"build_encoder({name} ranks, its pattern)({_short(text)})",
                              lambda e=encoder, t=text: e()(t), reference(text)))
    check_cases("build_encoder", {"build_encoder": build_encoder}, cases, points=4,
                hint="recover byte_ids and merges once (Task 5), then encode like Task 4: split with "
            "the "
                     "pattern, map each byte b to byte_ids[b], merge the lowest-ranked pair until none is "
                     "left; merge r creates id 256 + r, which is tiktoken's id.")


# --- what the judge needs (see book.checks.core) --------------------------------------------------

# The notebook uses ByteTokenizer (chapter 05) and the patterns; the regex tokenizer is the answer.
REFERENCE = (
    "book.tokenizers.regex_bpe",
    "book.tokenizers.pretokenize",
    "book.chat",
    "book.analysis",
)
ENCODER_SETUP = """
from book.encodings import get_encoding
_built = {}
def encoder(name):
    if name not in _built:  # build once per encoding, as a real program would
        ranks = dict(TRAINED) if name == "trained" else dict(get_encoding(name)._mergeable_ranks)
        pattern = PATTERNS["GPT2_PATTERN" if name == "gpt2" else "CL100K_PATTERN"]
        _built[name] = build_encoder(ranks, pattern)
    return _built[name]
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
    chunk_calls = [
        Call(
            f"list(chunk_counts({_short(text)}, {name}).items())",
            "list(chunk_counts(a0, PATTERNS[a1]).items())",
            (text, name),
            list(chunk_counts(text, pattern).items()),
            hidden,
        )
        for group, hidden in [
            (["", walkthroughs.DOG_TEXT, MIXED, _english()], False),
            (texts, True),
        ]
        for text in group
        for name, pattern in PATTERNS.items()
    ]
    vocabularies = {
        "byte-level vocab of Shakespeare": ByteTokenizer.train(_english(), 400).vocab,
        "byte-level vocab of the parallel passage": ByteTokenizer.train(
            "\n".join(corpora.parallel().values()), 400
        ).vocab,
        "regex vocab (GPT-2 pattern)": _trained(_english(), 400, "GPT2_PATTERN").vocab,
        "a vocab without merges": ByteTokenizer().vocab,
    }
    crossing = [
        Call(
            f"crossing_tokens({label}, {name})",
            "crossing_tokens(dict(a0), PATTERNS[a1])",
            (dict(vocab), name),
            _reference_crossing(vocab, PATTERNS[name]),
            False,
        )
        for label, vocab in vocabularies.items()
        for name in ("GPT2_PATTERN", "O200K_PATTERN", "WORDS_ONLY")
    ]
    for label, vocab in list(vocabularies.items())[:3]:
        name, part = rng.choice(list(PATTERNS)), _vocab_subset(rng, dict(vocab))
        crossing.append(
            Call(
                f"crossing_tokens(part of the {label}, {name})",
                "crossing_tokens(dict(a0), PATTERNS[a1])",
                (part, name),
                _reference_crossing(part, PATTERNS[name]),
                True,
            )
        )
    train = [
        Call(
            f"train_regex({_short(text)}, {size}, {name})",
            "train_regex(a0, a1, PATTERNS[a2])",
            (text, size, name),
            _trained(text, size, name).merges,
            hidden,
        )
        for group, hidden in [
            (
                [
                    (walkthroughs.DOG_TEXT, [256, 260, 300]),
                    (MIXED, [270, 300]),
                    ("aaaa aaab baaa zy yz", [262]),
                ],
                False,
            ),
            ([(text, [rng.randint(258, 300)]) for text in texts], True),
        ]
        for text, sizes in group
        for name in PATTERNS
        for size in sizes
    ]
    train.append(
        Call(
            f"train_regex({_short(_english())}, 320, GPT2_PATTERN)",
            "train_regex(a0, a1, PATTERNS[a2])",
            (_english(), 320, "GPT2_PATTERN"),
            _trained(_english(), 320, "GPT2_PATTERN").merges,
        )
    )
    encode = []
    for name, fixed in [
        ("GPT2_PATTERN", ["the king's men, 1234 of them", MIXED, corpora.english("heldout")[:500]]),
        ("CL100K_PATTERN", ["the king's men, 1234 of them", MIXED]),
        ("WORDS_ONLY", ["the king's men,  of them", "日本語 🦙"]),
    ]:
        tok = _trained(_english(), 400, name)
        encode += [
            Call(
                f"encode_regex({_short(text)}, merges, {name})",
                "encode_regex(a0, a1, PATTERNS[a2])",
                (text, list(tok.merges), name),
                tok.encode_ordinary(text),
                hidden,
            )
            for group, hidden in [(fixed, False), (texts[:2], True)]
            for text in group
        ]
    byte_level = ByteTokenizer.train(_english(), 400)
    crossing_merges = RegexTokenizer(byte_level.merges, GPT2_PATTERN)
    encode += [
        Call(
            f"encode_regex({_short(text)}, byte-level merges, GPT2_PATTERN)",
            "encode_regex(a0, a1, PATTERNS[a2])",
            (text, list(byte_level.merges), "GPT2_PATTERN"),
            crossing_merges.encode_ordinary(text),
            hidden,
        )
        for text, hidden in [
            ("the king's men, of them", False),
            (corpora.english("heldout")[:500], False),
            (texts[2], True),
        ]
    ]
    identity = {bytes([b]): b for b in range(256)}
    ranks_list = [
        ("ranks of ab, abc", identity | {b"ab": 256, b"abc": 257}, False),
        (
            "ranks where b+c comes first",
            identity | {b"bc": 256, b"abc": 257, b"ab": 258, b"abab": 259},
            False,
        ),
        (
            "ranks in a shuffled byte order",
            {bytes([b]): (b * 7 + 3) % 256 for b in range(256)} | {b"hi": 256, b"hi!": 257},
            False,
        ),
        (
            "ranks of a tokenizer trained on Shakespeare",
            _ranks_of(_trained(_english(), 400, "GPT2_PATTERN")),
            False,
        ),
        ("GPT-2's first 3,000 ranks", _gpt2_prefix(), False),
        ("GPT-2's first ranks (hidden size)", _gpt2_prefix(rng.randint(300, 2999)), True),
        (
            "ranks of a tokenizer trained on hidden text",
            _ranks_of(_trained(texts[3] + texts[0], rng.randint(270, 320), "CL100K_PATTERN")),
            True,
        ),
    ]
    recover = []
    for label, ranks, hidden in ranks_list:
        byte_ids, merges = recover_merges(ranks)
        recover.append(
            Call(
                f"recover({label})",
                "recover(dict(a0))",
                (ranks,),
                (byte_ids, [pair for pair, _ in merges]),
                hidden,
            )
        )
    trained = _trained(_english(), 500, "CL100K_PATTERN")
    secret_texts = texts + [window(rng, corpora.code("python"), 200)]
    encoders = [
        Call(
            f"build_encoder({label} ranks, its pattern)({_short(text)})",
            f"encoder({name!r})(a0)",
            (text,),
            reference(text),
            hidden,
        )
        for name, label, reference in [
            ("gpt2", "gpt2", get_encoding("gpt2").encode_ordinary),
            ("cl100k_base", "cl100k_base", get_encoding("cl100k_base").encode_ordinary),
            ("trained", "a tokenizer trained on Shakespeare", trained.encode_ordinary),
        ]
        for group, hidden in [(TEST_SET, False), (secret_texts, True)]
        for text in group
    ]
    return [
        Task(
            "chunk_counts",
            2,
            ("chunk_counts",),
            chunk_calls,
            data={"PATTERNS": PATTERNS},
            hint="for chunk in regex.findall(pattern, text): count chunk.encode('utf-8') in a "
            "plain "
            "dict, so chunks keep the order in which they first occur.",
        ),
        Task(
            "crossing_tokens",
            2,
            ("crossing_tokens",),
            crossing,
            data={"PATTERNS": PATTERNS},
            hint="skip ids below 256 and tokens whose bytes do not decode as UTF-8 (part of a "
            "character); keep the ids whose text regex.findall(pattern, text) cuts into 2+ chunks.",
        ),
        Task(
            "train_regex",
            3,
            ("train_regex",),
            train,
            data={"PATTERNS": PATTERNS},
            hint="count each distinct chunk once with its frequency; each round add freq for every "
            "pair inside each chunk, take max(pair_counts, key=pair_counts.get), record "
            "(pair, count) and merge it in every chunk. Stop early when no pair is left.",
        ),
        Task(
            "encode_regex",
            2,
            ("encode_regex",),
            encode,
            data={"PATTERNS": PATTERNS},
            hint="for chunk in regex.findall(pattern, text): start from "
            "list(chunk.encode('utf-8')) "
            "and apply the merges to that chunk alone (in order, or lowest rank first).",
        ),
        Task(
            "recover",
            3,
            ("recover",),
            recover,
            hint="byte_ids[b] = ranks[bytes([b])]; for each token from rank 256 on, run BPE on its "
            "bytes using only tokens of lower rank until two parts remain: their ranks are "
            "the merged pair.",
        ),
        Task(
            "build_encoder",
            4,
            ("build_encoder",),
            encoders,
            setup=ENCODER_SETUP,
            data={"PATTERNS": PATTERNS, "TRAINED": _ranks_of(trained)},
            hint="recover byte_ids and merges once (Task 5), then encode like Task 4: split with "
            "the "
            "pattern, map each byte b to byte_ids[b], merge the lowest-ranked pair until none is "
            "left; merge r creates id 256 + r, which is tiktoken's id.",
        ),
    ]
