"""Checks of exercises/02_characters.ipynb, as one spec per task. The references are small
functions written here (the chapter's tokenizer sorts by code point and breaks ties by first
occurrence; none of these steps exists in book.tokenizers).

Each task asks for something the chapter did not write: a vocabulary ordered by frequency with
a size limit, another policy for unknown characters (fold to known characters, and record what
was changed), a byte-fallback decoder that says which ids were lost, and the smallest
vocabulary with which byte fallback reaches a target of bytes per token. Each task's known
mistakes are code; every group of cases catches each of them (hidden cases are drawn until they
do; ``tests/test_check_specs.py`` proves it on seeds 1-20).
"""

from __future__ import annotations

import random
import unicodedata
from collections import Counter
from functools import cache

from book import corpora
from book.checks.spec import Cases, Mistake, checks_of, examples_and_drawn, random_text, window


@cache
def _plays_chars() -> tuple[str, ...]:
    """The characters of the training plays, sorted (computed once)."""
    return tuple(sorted(set(corpora.english("train"))))


def _plays_vocab() -> list[str]:
    """The plays' characters as a fresh list: a vocabulary with no digit and no accent."""
    return list(_plays_chars())


# --- Task 1: build_vocab -------------------------------------------------------------------------

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


def build_vocab_reference(text: str, max_size: int | None = None) -> list[str]:
    """The max_size most frequent characters, most frequent first, ties by code point.

    >>> build_vocab_reference("banana"), build_vocab_reference("abcabc", 2)
    (['a', 'n', 'b'], ['a', 'b'])
    """
    if max_size is not None and max_size < 0:
        raise ValueError(f"max_size must be None or at least 0, not {max_size}")
    counts = Counter(text)
    return sorted(counts, key=lambda ch: (-counts[ch], ch))[:max_size]


def _vocab_with(rank=None, limit=None, negative_ok=False):
    """build_vocab with one slip: how it ranks, how it applies max_size, or no ValueError."""

    def build_vocab(text, max_size=None):
        if max_size is not None and max_size < 0 and not negative_ok:
            raise ValueError(max_size)
        ranked = rank(text) if rank else build_vocab_reference(text)
        return limit(ranked, max_size) if limit else ranked[:max_size]

    return build_vocab


def _vocab_examples() -> Cases:
    cases: Cases = [((text, size), "") for text in VOCAB_TEXTS for size in MAX_SIZES]
    return [*cases, (("banana", -1), "a negative max_size raises ValueError")]


def _vocab_draw(rng: random.Random) -> tuple:
    text = "".join(rng.choice("abcxyzé日 ") for _ in range(rng.randint(2, 20)))
    if rng.random() < 0.3:
        text = random_text(rng, rng.randint(1, 5))
    return text, rng.choice([None, 0, -rng.randint(1, 3), *range(1, 8)])


BUILD_VOCAB = examples_and_drawn(
    "build_vocab",
    build_vocab_reference,
    (_vocab_examples, 1),
    ("random texts", 1, _vocab_draw),
    (
        Mistake(
            "characters with the same count go in code-point order, not in the order they "
            "first occur",
            _vocab_with(rank=lambda text: [ch for ch, _ in Counter(text).most_common()]),
        ),
        Mistake(
            "this is the chapter's vocabulary, sorted by code point: rank by count first",
            _vocab_with(rank=lambda text: sorted(set(text))),
        ),
        Mistake(
            "max_size 0 means an empty vocabulary; only None means no limit",
            _vocab_with(limit=lambda ranked, size: ranked[: size or None]),
        ),
        Mistake(
            "a negative max_size is a mistake of the caller: raise ValueError",
            _vocab_with(negative_ok=True),
        ),
    ),
    "count every occurrence of each character, order the characters by count, largest first, "
    "settling equal counts by the characters themselves, and keep at most max_size of them.",
)

# --- Task 2: encode_nearest ----------------------------------------------------------------------

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


def _fold(ch: str, form: str = "NFKD", keep_marks: bool = False) -> list[str]:
    """The characters ch decomposes into, combining marks dropped (unless keep_marks)."""
    decomposed = unicodedata.normalize(form, ch)
    return [c for c in decomposed if keep_marks or not unicodedata.category(c).startswith("M")]


def _nearest_with(form="NFKD", keep_marks=False, first_only=False, id_positions=False):
    """encode_nearest with one slip: the normal form, marks kept, one id per character, or
    positions counted in ids."""

    def encode_nearest(text, vocab):
        stoi = {ch: i for i, ch in enumerate(vocab)}
        ids, changed = [], []
        for position, ch in enumerate(text):
            if ch in stoi:
                ids.append(stoi[ch])
                continue
            changed.append((len(ids) if id_positions else position, ch))
            base = _fold(ch, form, keep_marks)
            if base and all(c in stoi for c in base):
                ids.extend(stoi[c] for c in base[: 1 if first_only else None])
            else:
                ids.append(len(vocab))
        return ids, changed

    return encode_nearest


def encode_nearest_reference(text: str, vocab: list[str]) -> tuple[list[int], list[tuple]]:
    """Ids with unknown characters folded to known ones; (position, character) of each change.

    >>> encode_nearest_reference("né½", ["n", "e", "1", "⁄", "2"])
    ([0, 1, 2, 3, 4], [(1, 'é'), (2, '½')])
    """
    return _nearest_with()(text, vocab)


def _nearest_learning(text, vocab):
    """The right encoding, after adding every unknown character to the vocabulary."""
    result = encode_nearest_reference(text, vocab)
    vocab.extend(ch for _, ch in result[1] if ch not in vocab)
    return result


# The vocabulary must come back unchanged: the probe returns [answer, vocab unchanged].
VOCAB_UNCHANGED = """
def probe(answer, text, vocab):
    kept = list(vocab)
    return [answer(text, vocab), vocab == kept]
"""


def _nearest_examples() -> Cases:
    cases: Cases = [((text, _plays_vocab()), "the plays' characters") for text in NEAREST_TEXTS]
    return cases + [((text, list(v)), "") for v in SMALL_VOCABS for text in NEAREST_TEXTS[:7]]


def _nearest_draw(rng: random.Random) -> tuple:
    folds = ["é", "ﬁ", "½", "Ｆ", "ü", "e\u0301", "①", "Ⅻ", "ß", "日", "ﬂ", "ñ"]
    text = random_text(rng, rng.randint(1, 4)) + "".join(rng.sample(folds, 4))
    vocab = rng.choice([_plays_vocab(), *SMALL_VOCABS, sorted(set("abcdefghilnstuv1⁄2IX "))])
    return text, list(vocab)


ENCODE_NEAREST = examples_and_drawn(
    "encode_nearest",
    encode_nearest_reference,
    (_nearest_examples, 2),
    ("random texts", 1, _nearest_draw),
    (
        Mistake(
            "compatibility characters decompose too: a ligature, a full-width letter or a "
            "fraction is made of known characters; the canonical decomposition leaves them whole",
            _nearest_with(form="NFD"),
        ),
        Mistake(
            "drop the combining marks: what is left of an accented letter is its base letter",
            _nearest_with(keep_marks=True),
        ),
        Mistake(
            "composing keeps é as it is: decompose, so that the base letter can be found",
            _nearest_with(form="NFC"),
        ),
        Mistake(
            "one unknown character can become several ids: every base character it holds",
            _nearest_with(first_only=True),
        ),
        Mistake(
            "a change is recorded at its position in the text, not in the ids",
            _nearest_with(id_positions=True),
        ),
        Mistake(
            "do not change the vocabulary you are given: it stays as it came",
            _nearest_learning,
        ),
    ),
    "keep a known character's id; take an unknown one apart into the characters it is made of, "
    "leave out the accents and other marks, and use those if all are known, else the id after "
    "the last entry; record every character not encoded as itself.",
    probe=VOCAB_UNCHANGED,
)

# --- Task 3: decode_report -----------------------------------------------------------------------

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


def _bytes_of(ids: list[int], vocab: list[str]) -> tuple[bytes, list[int]]:
    """The bytes of byte-fallback ids, and the position in ids each byte came from."""
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
    return bytes(data), owner


def _report_with(first_only=False):
    """decode_report, or (first_only) one that records only the first id of a replaced run."""

    def decode_report(ids, vocab):
        data, owner = _bytes_of(ids, vocab)
        pieces, lost, start = [], set(), 0
        while True:  # what errors="replace" does, keeping the span of every replacement
            try:
                pieces.append(data[start:].decode("utf-8"))
                break
            except UnicodeDecodeError as error:
                pieces.append(data[start : start + error.start].decode("utf-8") + "\ufffd")
                end = start + (error.start + 1 if first_only else error.end)
                lost.update(owner[start + error.start : end])
                start += error.end
        return "".join(pieces), sorted(lost)

    return decode_report


def decode_report_reference(ids: list[int], vocab: list[str]) -> tuple[str, list[int]]:
    """The text of byte-fallback ids (errors='replace') and the positions of the ids it lost.

    >>> decode_report_reference([0, 2 + 0xE4, 2 + 0xBD], ["h", "i"])
    ('h�', [1, 2])
    """
    return _report_with()(ids, vocab)


def _report_byte_by_byte(ids, vocab):
    """Every byte id decoded alone: every non-ASCII character is lost."""
    _bytes_of(ids, vocab)  # the same errors
    pieces, lost = [], []
    for index, token_id in enumerate(ids):
        if token_id < len(vocab):
            pieces.append(vocab[token_id])
            continue
        pieces.append(bytes([token_id - len(vocab)]).decode("utf-8", errors="replace"))
        if pieces[-1] == "\ufffd":
            lost.append(index)
    return "".join(pieces), lost


def _report_text_positions(ids, vocab):
    """Lost positions counted in the decoded text instead of in ids."""
    text, _ = decode_report_reference(ids, vocab)
    return text, [i for i, ch in enumerate(text) if ch == "\ufffd"]


def _report_lenient(ids, vocab):
    """Ids outside the range are skipped instead of refused."""
    return decode_report_reference([i for i in ids if 0 <= i < len(vocab) + 256], vocab)


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


def _report_draw(rng: random.Random) -> tuple:
    """Byte-fallback ids of a text, cut short, with an id dropped, or with a stray id."""
    text = random_text(rng, rng.randint(1, 5))
    chars = sorted(set(text))
    vocab = rng.sample(chars, max(1, len(chars) // 2))
    ids = _fallback_ids(text, vocab)
    at = rng.randint(0, len(ids))
    how = rng.randrange(4)
    if how == 0:
        ids = ids[:at]
    elif how == 1 and ids:
        ids = ids[: min(at, len(ids) - 1)] + ids[min(at, len(ids) - 1) + 1 :]
    elif how == 2:
        ids = ids[:at] + [len(vocab) + rng.choice([0x80, 0xA9, 0xC3, 0xE4, 0xF0, 0xFF])] + ids[at:]
    else:
        ids = ids[:at] + [rng.choice([-1, len(vocab) + 256, len(vocab) + 300])] + ids[at:]
    return ids, vocab


def _report_examples() -> Cases:
    return [((list(ids), REPORT_VOCAB), "") for ids in REPORT_IDS]


DECODE_REPORT = examples_and_drawn(
    "decode_report",
    decode_report_reference,
    (_report_examples, 2),
    ("damaged ids", 1, _report_draw),
    (
        Mistake(
            "a character's bytes belong together: a byte id decoded alone is lost unless it "
            "is ASCII",
            _report_byte_by_byte,
        ),
        Mistake(
            "lost lists positions in ids, not in the text",
            _report_text_positions,
        ),
        Mistake(
            "every id with a byte in a replaced run is lost, not only the first of the run",
            _report_with(first_only=True),
        ),
        Mistake(
            "an id that is neither a character nor a byte names nothing: raise ValueError",
            _report_lenient,
        ),
    ),
    "turn every id into its bytes, join them all and decode them at once the way "
    "errors='replace' does, noting which ids the bytes of each replaced run came from.",
)

# --- Task 4: fallback_budget ---------------------------------------------------------------------


def _count_tokens(text: str, known: set[str]) -> int:
    """Tokens of text under byte fallback with the characters of known."""
    return sum(1 if ch in known else len(ch.encode("utf-8")) for ch in text)


def _per_token(text: str, known: set[str]) -> float:
    """UTF-8 bytes per token when the characters outside known fall back to their bytes."""
    return len(text.encode("utf-8")) / _count_tokens(text, known)


def _budget_with(per_token=_per_token, reached=float.__ge__, shift=0, order=list):
    """fallback_budget with one slip: the measure, the comparison, the k returned, or the
    order of the ranking."""

    def fallback_budget(text, ranked, target):
        if not text:
            raise ValueError("an empty text has no tokens")
        ranked = order(ranked)
        for k in range(len(ranked) + 1):
            if reached(float(per_token(text, set(ranked[:k]))), float(target)):
                return max(k + shift, 0)
        return None

    return fallback_budget


def fallback_budget_reference(text: str, ranked: list[str], target: float) -> int | None:
    """The smallest k with which byte fallback over ranked[:k] gives text at least target UTF-8
    bytes per token (None: not even all of ranked does).

    >>> fallback_budget_reference("你a", ["你", "a"], 2.0), fallback_budget_reference("ab", [], 2)
    (1, None)
    """
    return _budget_with()(text, ranked, target)


def _multilingual_ranking() -> list[str]:
    """The reference's build_vocab of all the parallel passages together."""
    return build_vocab_reference("".join(corpora.parallel().values()))


def _budget_examples() -> Cases:
    chinese = corpora.parallel()["Chinese"]
    cases: Cases = [
        (("你a", ["你", "a"], 2.0), "exactly the target counts"),
        (("你好你", ["你", "好"], 2.0), ""),
        (("你好你", ["好", "你"], 2.0), "the order of ranked matters"),
        (("hé", ["h", "é"], 1.5), ""),
        (("hello", ["h", "e"], 1.0), "nothing known is one byte per token"),
        (("ab", ["a", "b"], 2.0), "never reached: None"),
        (("👍🏽 ok", ["o", "k", " ", "🏽", "👍"], 2.5), ""),
        (("", ["a"], 1.0), "an empty text raises ValueError"),
        ((chinese, _multilingual_ranking(), 2.0), "the Chinese passage, all the passages' ranking"),
        ((chinese, _multilingual_ranking(), 2.5), "the Chinese passage, all the passages' ranking"),
    ]
    return cases


def _budget_draw(rng: random.Random) -> tuple:
    """A passage window or a made-up text, a ranking of its characters, and a target that one
    k reaches exactly (so that 'at least' is tested)."""
    language = rng.choice(sorted(corpora.parallel()))
    text = window(rng, corpora.parallel()[language], rng.randint(5, 60))
    if rng.random() < 0.4:
        text = random_text(rng, rng.randint(1, 5))
    ranked = build_vocab_reference(text)
    k = rng.randint(0, len(ranked))
    target = _per_token(text, set(ranked[:k])) if text else 1.0
    return text, ranked, rng.choice([target, target, round(target + 0.05, 2)])


FALLBACK_BUDGET = examples_and_drawn(
    "fallback_budget",
    fallback_budget_reference,
    (_budget_examples, 2),
    ("random texts", 1, _budget_draw),
    (
        Mistake(
            "an unknown character falls back to one token per UTF-8 byte, not to one token",
            _budget_with(per_token=lambda text, known: len(text.encode("utf-8")) / len(text)),
        ),
        Mistake(
            "bytes per token counts the text's UTF-8 bytes, not its characters",
            _budget_with(per_token=lambda text, known: len(text) / _count_tokens(text, known)),
        ),
        Mistake(
            "reaching the target exactly is enough: at least, not more than",
            _budget_with(reached=float.__gt__),
        ),
        Mistake(
            "the answer is the size of the first vocabulary that reaches the target, not of the "
            "last one that does not",
            _budget_with(shift=-1),
        ),
        Mistake(
            "the vocabulary of size k is the first k characters of ranked, in its order",
            _budget_with(order=sorted),
        ),
    ),
    "try the vocabularies made of the first 0, 1, 2, … characters of ranked and return the size "
    "of the first that gives target bytes per token or more, counting an unknown character as "
    "one token per byte of its UTF-8 encoding.",
)


SPECS = (BUILD_VOCAB, ENCODE_NEAREST, DECODE_REPORT, FALLBACK_BUDGET)
check, judge_tasks = checks_of(SPECS)

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")
