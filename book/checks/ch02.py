"""Checks of exercises/02_characters.ipynb, as one spec per task. The references are small
functions written here (the chapter's tokenizer sorts its characters by code point; none of
these steps exists in book.tokenizers).

Each task asks for something the chapter did not write: a vocabulary ordered by frequency with
a size limit, another policy for unknown characters (fold to known characters, and record what
was changed), a byte-fallback decoder that says which ids were lost, and the smallest
vocabulary with which byte fallback reaches a target of bytes per token. Each task's known
mistakes are code; every group of cases catches each of them (hidden cases are drawn until they
do), except a mistake that names the one part it breaks, such as an id outside the range let
through, which only the examples hold (``tests/test_check_specs.py`` proves both on seeds 1-20).
"""

from __future__ import annotations

import codecs
import random
import unicodedata
from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import groupby

from book import corpora
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


def _vocab_with(rank=None, limit=None, smallest=0):
    """build_vocab with one slip: how it ranks, how it applies max_size, or the smallest
    max_size it accepts."""

    def build_vocab(text, max_size=None):
        if max_size is not None and max_size < smallest:
            raise ValueError(max_size)
        ranked = rank(text) if rank else build_vocab_reference(text)
        return limit(ranked, max_size) if limit else ranked[:max_size]

    return build_vocab


def _ties_reversed(text: str) -> list[str]:
    """Most frequent first, but equal counts in descending code-point order."""
    counts = Counter(text)
    return sorted(counts, key=lambda ch: (counts[ch], ch), reverse=True)


def _cut_before_ties(text: str, max_size: int | None = None) -> list[str]:
    """The max_size most common characters by Counter.most_common, then put in order: the
    cut keeps the first-occurring of equal counts."""
    if max_size is not None and max_size < 0:
        raise ValueError(max_size)
    counts = Counter(text)
    kept = [ch for ch, _ in counts.most_common(max_size)]
    return sorted(kept, key=lambda ch: (-counts[ch], ch))


def _vocab_examples() -> Cases:
    cases: Cases = [((text, size), "") for text in VOCAB_TEXTS for size in MAX_SIZES]
    return [*cases, (("banana", -1), "a negative max_size raises ValueError")]


def _vocab_draw(rng: random.Random) -> tuple:
    """A made-up text and a max_size of at least 0: a missing ValueError for a negative size
    costs the examples alone."""
    pieces = [*"abcxyzé日 ", "e\u0301"]  # é composed and decomposed
    text = "".join(rng.choice(pieces) for _ in range(rng.randint(2, 20)))
    if rng.random() < 0.3:
        text = random_text(rng, rng.randint(1, 5))
    return text, rng.choice([None, 0, *range(1, 8)])


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
            "of two characters with the same count, the smaller code point comes first: your "
            "ties run backwards",
            _vocab_with(rank=_ties_reversed),
        ),
        Mistake(
            "count the characters of the text as they are: normalizing it first joins a letter "
            "and its combining accent into one character, which changes what there is to count",
            _vocab_with(
                rank=lambda text: build_vocab_reference(unicodedata.normalize("NFC", text))
            ),
        ),
        Mistake(
            "equal counts at the cut are settled by code point too: cutting before the ties "
            "are ordered keeps the characters that occur first instead",
            _cut_before_ties,
        ),
        Mistake(
            "max_size 0 means an empty vocabulary; only None means no limit",
            _vocab_with(limit=lambda ranked, size: ranked[: size or None]),
        ),
        Mistake(
            "max_size 0 is allowed: it asks for an empty vocabulary; only a negative "
            "max_size is an error",
            _vocab_with(smallest=1),
        ),
    ),
    "look at the first differing position: the character expected there occurs more often "
    "than the one you put there, or as often with a smaller code point; and max_size caps the "
    "length (None: no cap; a negative size is an error).",
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
    "Tiếng Việt: ầ ǖ",  # two levels: ầ is â and a grave, â is a and a circumflex
]
SMALL_VOCABS = [
    [" ", "a", "c", "e", "f", "i", "n", "v"],
    ["t", "h", "e", " ", "c", "a", "s", "o", "n", "m"],
    ["é", "日", "\n", "x", "1", "⁄", "2", "I", "X"],
    # the parts of ো, ொ and ஔ (vowel signs and a length mark: marks of category Mc), what
    # is left of Thai ำ without its mark, and a combining acute accent
    ["ে", "া", "ெ", "ா", "ஒ", "ௗ", "\u0e32", "\u0301", "e", "n", "c", "a", "f", " "],
]


def _one_level(ch: str) -> str:
    """ch's decomposition as the Unicode data lists it, one level deep (a tag such as <compat>
    dropped), or ch itself."""
    parts = [p for p in unicodedata.decomposition(ch).split() if not p.startswith("<")]
    return "".join(chr(int(p, 16)) for p in parts) or ch


def _is_mark(c: str) -> bool:
    """Whether c is a mark: a general category that starts with M (Mn, Mc, Me)."""
    return unicodedata.category(c).startswith("M")


def _fold(
    ch: str,
    form: str = "NFKD",
    keep_marks: bool = False,
    ascii_only: bool = False,
    is_mark=_is_mark,
) -> list[str]:
    """The characters ch decomposes into, marks dropped (unless keep_marks), and with
    ascii_only everything beyond ASCII dropped too (encode("ascii", "ignore"))."""
    decomposed = _one_level(ch) if form == "one level" else unicodedata.normalize(form, ch)
    if ascii_only:
        return list(decomposed.encode("ascii", "ignore").decode("ascii"))
    return [c for c in decomposed if keep_marks or not is_mark(c)]


def _nearest_with(
    form="NFKD",
    keep_marks=False,
    first_only=False,
    id_positions=False,
    partial=False,
    unk_only=False,
    empty_folds=False,
    ascii_only=False,
    is_mark=_is_mark,
):
    """encode_nearest with one slip: the normal form, marks kept, one id per character,
    positions counted in ids, a fold with unknown parts, only <unk> recorded, a character of
    marks alone folded to nothing, only the ASCII of a decomposition kept, or a narrower
    test of what a mark is."""

    def encode_nearest(text, vocab):
        stoi = {ch: i for i, ch in enumerate(vocab)}
        ids, changed = [], []
        for position, ch in enumerate(text):
            if ch in stoi:
                ids.append(stoi[ch])
                continue
            first_id = len(ids)
            base = _fold(ch, form, keep_marks, ascii_only, is_mark)
            folds = (bool(base) or empty_folds) and all(c in stoi for c in base)
            if folds or (partial and any(c in stoi for c in base)):
                ids.extend(stoi.get(c, len(vocab)) for c in base[: 1 if first_only else None])
            else:
                ids.append(len(vocab))
            if not (unk_only and folds):
                changed.append((first_id if id_positions else position, ch))
        return ids, changed

    return encode_nearest


def encode_nearest_reference(text: str, vocab: list[str]) -> tuple[list[int], list[tuple]]:
    """Ids with unknown characters folded to known ones; (position, character) of each change.

    >>> encode_nearest_reference("né½", ["n", "e", "1", "⁄", "2"])
    ([0, 1, 2, 3, 4], [(1, 'é'), (2, '½')])
    """
    return _nearest_with()(text, vocab)


def _nearest_keeping_known_parts(text, vocab):
    """A fold with unknown parts keeps the known ones and drops the others (<unk> only when
    none is known)."""
    ids, changed = [], []
    for position, ch in enumerate(text):
        part_ids, part_changed = _nearest_with(partial=True)(ch, vocab)
        ids += [i for i in part_ids if i < len(vocab)] or part_ids
        changed += [(position, c) for _, c in part_changed]
    return ids, changed


def _nearest_appending_unk(text, vocab):
    """The right encoding, and "<unk>" appended to the vocabulary it was given."""
    result = encode_nearest_reference(text, vocab)
    vocab.append("<unk>")
    return result


# The vocabulary must come back unchanged: the probe returns what the answer returned, or
# VOCAB_CHANGED when the answer changed the vocabulary (whatever it returned), so that every
# answer that changes it agrees with the known mistake that does.
VOCAB_CHANGED = "the answer changed the vocab it was given"
VOCAB_UNCHANGED = f"""
def probe(answer, text, vocab):
    kept = list(vocab)
    returned = answer(text, vocab)
    return returned if vocab == kept else {VOCAB_CHANGED!r}
"""


def _nearest_examples() -> Cases:
    cases: Cases = [((text, _plays_vocab()), "the plays' characters") for text in NEAREST_TEXTS]
    cases += [((text, list(v)), "") for v in SMALL_VOCABS for text in NEAREST_TEXTS[:7]]
    marks = "Bengali, Tamil and Thai vowel signs are marks"
    return cases + [(("নো, கொ ஔ né ทำ", list(SMALL_VOCABS[-1])), marks)]


# Vocabularies that know only some of the parts of a ligature, a fraction or a numeral; the
# last knows the vowel signs that make ো and ொ, ஔ's ஒ but not its length mark ௗ, and the
# า of Thai ำ.
PART_VOCABS = [
    "abcdefghilnstuv1⁄2IX ",
    "abcdefhlnostuX1 ",
    "abcefnostu \u09c7\u09be\u0bc6\u0bbe\u0b92\u0e32",
]


def _nearest_draw(rng: random.Random) -> tuple:
    # accented letters, compatibility characters, and vowel signs of Bengali, Tamil and Thai
    folds = [*"éﬁ½Ｆü①Ⅻß日ﬂñầǖ\u09cb\u0bca\u0b94\u0e33", "e\u0301"]
    text = random_text(rng, rng.randint(1, 4)) + "".join(rng.sample(folds, 4))
    parts = [sorted(set(chars)) for chars in PART_VOCABS]
    vocab = rng.choice([_plays_vocab(), *SMALL_VOCABS, *parts])
    return text, list(vocab)


PARTIAL_FOLD = (
    "a character folds only when every character it is made of is known; otherwise the whole "
    "character becomes one <unk>"
)

ENCODE_NEAREST = examples_and_drawn(
    "encode_nearest",
    encode_nearest_reference,
    (_nearest_examples, 2),
    ("random texts", 1, _nearest_draw),
    (
        Mistake(
            "a decomposition can hold characters that decompose again (ầ is â and a grave, â is "
            "a and a circumflex): decompose all the way down",
            _nearest_with(form="one level"),
        ),
        Mistake(
            "compatibility characters decompose too: a ligature, a full-width letter or a "
            "fraction is made of known characters; the canonical decomposition leaves them whole",
            _nearest_with(form="NFD"),
        ),
        Mistake(
            "compatibility composition puts the accent back on the letter, so é stays é: "
            "decompose, so that the base letter can be found",
            _nearest_with(form="NFKC"),
        ),
        Mistake(
            "drop the combining marks: what is left of an accented letter is its base letter",
            _nearest_with(keep_marks=True),
        ),
        Mistake(
            "a mark is any character whose category starts with M, not only the nonspacing "
            "ones (Mn): the spacing vowel signs of Bengali or Tamil (Mc) are dropped too",
            _nearest_with(is_mark=lambda c: unicodedata.category(c) == "Mn"),
        ),
        Mistake(
            "a mark is any character whose category starts with M, whatever its combining "
            "class: the vowel signs of Bengali ো (Mc) and the nikhahit of Thai ำ (Mn) have "
            "class 0 and are dropped too",
            _nearest_with(is_mark=lambda c: unicodedata.combining(c) != 0),
        ),
        Mistake(
            "composing keeps é as it is: decompose, so that the base letter can be found",
            _nearest_with(form="NFC"),
        ),
        Mistake(
            "one unknown character can become several ids: every base character it holds",
            _nearest_with(first_only=True),
        ),
        Mistake(PARTIAL_FOLD, _nearest_with(partial=True)),
        Mistake(PARTIAL_FOLD, _nearest_keeping_known_parts),
        Mistake(
            "changed records the folded characters too, not only those that became <unk>",
            _nearest_with(unk_only=True),
        ),
        Mistake(
            "drop only the marks: a base character beyond ASCII (the fraction slash of ½, the "
            "ε of έ) stays, and must be known for the character to fold",
            _nearest_with(ascii_only=True),
        ),
        Mistake(
            "a character that is all marks (a lone combining accent) leaves nothing once the "
            "marks are gone: it becomes <unk>, it does not vanish",
            _nearest_with(empty_folds=True),
        ),
        Mistake(
            "a change is recorded at its position in the text, not in the ids",
            _nearest_with(id_positions=True),
        ),
        Mistake(
            "do not change the vocabulary you are given: it stays as it came",
            _nearest_appending_unk,
        ),
    ),
    "find the character of the text behind the first differing element: is it in vocab, and "
    "what is left of its compatibility decomposition once the marks are gone? changed "
    "must list every character that did not become its own id.",
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
    # lead bytes whose second byte has a narrower range: overlong, surrogate, past U+10FFFF
    _b(0xE0, 0x80, 0x80),
    [0, *_b(0xED, 0xA0, 0x80), 1],
    _b(0xF0, 0x80, 0x80, 0x80),
    _b(0xF4, 0x90, 0x80, 0x80),
    # a real U+FFFD, from its bytes or from the vocabulary, is text and loses nothing
    [0, *_b(0xEF, 0xBF, 0xBD), 1],
    [*_b(0xEF, 0xBF, 0xBD, 0xE4), 0],
    # ids that are neither a character nor a byte
    [0, len(REPORT_VOCAB) + 256],
    [-1],
    [0, -len(REPORT_VOCAB) - 1],
]
# Damage of each kind, in every group: a character cut short before a known one, a stray
# continuation byte, a lead byte where a continuation belongs, an overlong form of two and of
# three bytes, a surrogate, a value past U+10FFFF, and a four-byte character that is whole.
REPORT_TRAPS = [
    [0, *_b(0xE4, 0xBD), 1],
    [3, *_b(0xA9), 2],
    _b(0xC3, 0xE4, 0xBD, 0xA0),
    _b(0xC0, 0x80, 0x68),
    [2, *_b(0xE0, 0x80, 0x80)],
    [0, *_b(0xED, 0xA0, 0x80), 1],
    _b(0xF4, 0x90, 0x80, 0x80),
    [*_b(0xF0, 0x9F, 0x8C, 0x8D), 4],
]
# A vocabulary that holds U+FFFD itself.
REPLACEMENT_VOCAB = ["h", "\ufffd", "i"]


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


def _report_with(first_only=False, one_per_run=False):
    """decode_report, or with one slip: only the first id of a replaced part recorded
    (first_only), or one U+FFFD for adjacent replaced parts together (one_per_run)."""

    def decode_report(ids, vocab):
        data, owner = _bytes_of(ids, vocab)
        pieces, lost, start = [], set(), 0
        while True:  # what errors="replace" does, keeping the span of every replacement
            try:
                pieces.append(data[start:].decode("utf-8"))
                break
            except UnicodeDecodeError as error:
                valid = data[start : start + error.start].decode("utf-8")
                joined = one_per_run and not valid and pieces and pieces[-1].endswith("\ufffd")
                pieces.append(valid if joined else valid + "\ufffd")
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


def _report_whole_runs(ids, vocab):
    """Every id of a run of byte ids lost when the run's bytes alone do not decode."""
    text, _ = decode_report_reference(ids, vocab)
    lost, run = [], []
    for index in [*range(len(ids)), None]:
        if index is not None and ids[index] >= len(vocab):
            run.append(index)
            continue
        if _report_with()([ids[i] for i in run], vocab)[1]:
            lost += run
        run = []
    return text, lost


def _sequence_length(lead: int) -> int:
    """The length of a UTF-8 sequence that starts with the byte lead (0: none starts so)."""
    if lead < 0x80:
        return 1
    for low, high, length in [(0xC2, 0xDF, 2), (0xE0, 0xEF, 3), (0xF0, 0xF4, 4)]:
        if low <= lead <= high:
            return length
    return 0


def _report_continuations_only(ids, vocab):
    """A hand-written validator that checks a continuation byte is 0x80-0xBF, and not the
    narrower second-byte ranges after E0, ED, F0 and F4: a sequence those break is one
    replaced part instead of one per byte."""
    data, owner = _bytes_of(ids, vocab)
    text, lost, at = "", set(), 0
    while at < len(data):
        length = _sequence_length(data[at])
        end = at + 1
        while end < min(at + length, len(data)) and 0x80 <= data[end] <= 0xBF:
            end += 1
        if length and end == at + length:
            try:
                text += data[at:end].decode("utf-8")
                at = end
                continue
            except UnicodeDecodeError:
                pass
        text += "\ufffd"
        lost.update(owner[at:end])
        at = end
    return text, sorted(lost)


def _report_incremental(ids, vocab):
    """An incremental decoder fed id by id: when an id's output holds U+FFFD, every id since
    the last output is lost, the one that broke off a cut sequence and decoded too."""
    data, owner = _bytes_of(ids, vocab)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    text, lost, pending = "", set(), []
    for index, pairs in groupby(zip(data, owner), key=lambda pair: pair[1]):
        pending.append(index)
        piece = decoder.decode(bytes(byte for byte, _ in pairs))
        if piece:
            lost.update(pending if "\ufffd" in piece else [])
            pending, text = [], text + piece
    piece = decoder.decode(b"", final=True)
    lost.update(pending if "\ufffd" in piece else [])
    return text + piece, sorted(lost)


def _report_nothing_lost(ids, vocab):
    """The right text, and nothing reported lost."""
    return decode_report_reference(ids, vocab)[0], []


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
    """Byte-fallback ids of a text, cut short, with an id dropped, or with stray bytes (ids
    outside the range are the examples' cases)."""
    text = random_text(rng, rng.randint(1, 5))
    chars = sorted(set(text))
    vocab = rng.sample(chars, max(1, len(chars) // 2))
    ids = _fallback_ids(text, vocab)
    at = rng.randint(0, len(ids))
    how = rng.randrange(3)
    if how == 0:
        ids = ids[:at]
    elif how == 1 and ids:
        ids = ids[: min(at, len(ids) - 1)] + ids[min(at, len(ids) - 1) + 1 :]
    elif how == 2:  # one or two stray bytes: two make adjacent replaced parts
        strays = rng.choices([0x80, 0xA9, 0xC3, 0xE4, 0xF0, 0xFF], k=rng.randint(1, 2))
        if rng.random() < 0.5:  # a lead byte, then a continuation byte it does not allow
            strays = rng.choice([[0xE0, 0x80, 0x80], [0xED, 0xA0], [0xF0, 0x8F], [0xF4, 0x90]])
        ids = ids[:at] + [len(vocab) + byte for byte in strays] + ids[at:]
    return ids, vocab


def _report_examples() -> Cases:
    cases = [((list(ids), REPORT_VOCAB), "") for ids in REPORT_IDS + REPORT_TRAPS]
    real = "a real U+FFFD is no loss"
    return cases + [
        (([1, 0, 1], REPLACEMENT_VOCAB), real),
        (([0, 1, 3 + 0xE4], REPLACEMENT_VOCAB), real),
    ]


def _report_traps() -> Cases:
    return [((list(ids), REPORT_VOCAB), "") for ids in REPORT_TRAPS]


def _report_hidden(rng: random.Random) -> Cases:
    return drawn_until_caught(rng, _report_draw, DECODE_REPORT, group="damaged ids")


DECODE_REPORT = TaskSpec(
    "decode_report",
    decode_report_reference,
    (
        Group("the examples", 2, _report_examples),
        Group("damaged ids", 1, _report_traps, _report_hidden),
    ),
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
            "every id with a byte in a replaced part is lost, not only the first of the part",
            _report_with(first_only=True),
        ),
        Mistake(
            "errors='replace' writes one U+FFFD for each maximal invalid part, so two bad "
            "parts in a row give two, not one for the whole run of bad bytes",
            _report_with(one_per_run=True),
        ),
        Mistake(
            "after E0, ED, F0 and F4 UTF-8 allows fewer second bytes (no overlong forms, no "
            "surrogates, nothing past U+10FFFF): a second byte outside that range already "
            "breaks the sequence, so the lead byte is a replaced part of its own",
            _report_continuations_only,
        ),
        Mistake(
            "the text is right, but lost must name every id whose bytes were replaced",
            _report_nothing_lost,
        ),
        Mistake(
            "an id whose own bytes decode is not lost, even when the U+FFFD of the cut sequence "
            "before it appears only once it arrives",
            _report_incremental,
        ),
        Mistake(
            "lost names only the ids whose own bytes were replaced: the other byte ids of the "
            "same run decoded into characters",
            _report_whole_runs,
        ),
        Mistake(
            "an id that is neither a character nor a byte names nothing: raise ValueError",
            _report_lenient,
            part="the examples",
        ),
    ),
    "text must be what a decoder that puts U+FFFD for each maximal invalid part gives for "
    "the bytes of all the ids together, and "
    "lost exactly the ids that gave a byte to a replaced part: write out the failing "
    "case's bytes and mark where each id's begin.",
)

# --- Task 4: fallback_budget ---------------------------------------------------------------------


def _count_tokens(text: str, known: set[str]) -> int:
    """Tokens of text under byte fallback with the characters of known."""
    return sum(1 if ch in known else len(ch.encode("utf-8")) for ch in text)


def _per_token(text: str, known: set[str]) -> float:
    """UTF-8 bytes per token when the characters outside known fall back to their bytes."""
    return len(text.encode("utf-8")) / _count_tokens(text, known)


def _budget_with(
    per_token=_per_token,
    reached=float.__ge__,
    shift=0,
    order=list,
    start=0,
    unreached=None,
    present_only=False,
):
    """fallback_budget with one slip: the measure, the comparison, the k returned, the order
    of the ranking, the first k tried, what it returns when no k reaches the target
    (unreached(ranked)), or k counted over only the ranked characters the text holds."""

    def fallback_budget(text, ranked, target):
        if not text:
            raise ValueError("an empty text has no tokens")
        ranked = [ch for ch in order(ranked) if ch in text or not present_only]
        for k in range(start, len(ranked) + 1):
            if reached(float(per_token(text, set(ranked[:k]))), float(target)):
                return max(k + shift, 0)
        return unreached(ranked) if unreached else None

    return fallback_budget


def fallback_budget_reference(text: str, ranked: list[str], target: float) -> int | None:
    """The smallest k with which byte fallback over ranked[:k] gives text at least target UTF-8
    bytes per token (None: not even all of ranked does).

    >>> fallback_budget_reference("你a", ["你", "a"], 2.0), fallback_budget_reference("ab", [], 2)
    (1, None)
    """
    return _budget_with()(text, ranked, target)


def unambiguous(text: str, ranked: list[str], target: float) -> bool:
    """Whether every way of comparing bytes per token with target agrees for every k.

    Bytes per token is a fraction: an answer may divide (bytes / tokens >= target) or multiply
    (bytes >= target * tokens). The two agree whenever the fraction equals target exactly or
    lies clearly away from it; a target a rounding error away from a fraction splits them (the
    float 25 / 11 is reached by dividing 25 by 11, but 11 times it is more than 25), so no
    case has one.

    >>> unambiguous("你a", ["你", "a"], 2.0), unambiguous("你" * 7 + "abcd", ["你"], 25 / 11)
    (True, False)
    >>> 25 / 11 >= 25 / 11, 25 >= 25 / 11 * 11
    (True, False)
    """
    n_bytes, wanted = len(text.encode("utf-8")), Fraction(target)
    for k in range(len(ranked) + 1 if text else 0):
        ratio = Fraction(n_bytes, _count_tokens(text, set(ranked[:k])))
        if ratio != wanted and abs(ratio - wanted) < Fraction(1, 10**9):
            return False
    return True


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
        (("你ab", ["你", "a", "b"], 1.67), "5/3 bytes per token is less than 1.67"),
        (("👍🏽 ok", ["o", "k", " ", "🏽", "👍"], 2.5), ""),
        (("你好你", ["a", "你", "好"], 2.0), "ranked may hold characters the text lacks"),
        ((chinese, _multilingual_ranking(), 2.0), "the Chinese passage, all the passages' ranking"),
        ((chinese, _multilingual_ranking(), 2.5), "the Chinese passage, all the passages' ranking"),
    ]
    return cases


def _budget_draw(rng: random.Random) -> tuple:
    """A passage window or a made-up text, a ranking of its characters (now and then of a
    longer text that holds it, as the chapter ranks all the passages), and a target that one
    k reaches exactly (so that 'at least' is tested), that rounds from one (so that rounding
    is), or 1.0, which no vocabulary is needed for. Never empty: the group's fixed case
    is the empty text."""
    language = rng.choice(sorted(corpora.parallel()))
    text = window(rng, corpora.parallel()[language], rng.randint(5, 60))
    if rng.random() < 0.4:
        text = random_text(rng, rng.randint(1, 5))
    ranked = build_vocab_reference(text)
    if rng.random() < 0.5:
        ranked = build_vocab_reference(text + random_text(rng, rng.randint(1, 5)))
    k = rng.randint(0, len(ranked))
    exact = _per_token(text, set(ranked[:k]))
    for target in rng.sample([exact, round(exact, 2), round(exact + 0.05, 2), 1.0], 4):
        if unambiguous(text, ranked, target):
            return text, ranked, target
    return text, ranked, 1.0


def _budget_empty() -> Cases:
    """A fixed case of the drawn group: a missing ValueError, a slip no known mistake makes,
    costs this group's point alone."""
    return [(("", ["a"], 1.0), "an empty text raises ValueError")]


def _budget_hidden(rng: random.Random) -> Cases:
    """Drawn cases that catch every known mistake."""
    return drawn_until_caught(rng, _budget_draw, FALLBACK_BUDGET)


FALLBACK_BUDGET = TaskSpec(
    "fallback_budget",
    fallback_budget_reference,
    (
        Group("the examples", 2, _budget_examples),
        Group("random texts", 1, _budget_empty, _budget_hidden),
    ),
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
            "compare bytes per token with the target as it is: rounded first, a ratio just "
            "below the target can pass for it",
            _budget_with(per_token=lambda text, known: round(_per_token(text, known), 2)),
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
            "the empty vocabulary is a candidate too: with k = 0 every token is one byte, "
            "which may already reach the target",
            _budget_with(start=1),
        ),
        Mistake(
            "when not even all of ranked reaches the target, the answer is None, not the size "
            "of ranked",
            _budget_with(unreached=len),
        ),
        Mistake(
            "the vocabulary of size k is the first k characters of ranked, in its order",
            _budget_with(order=sorted),
        ),
        Mistake(
            "k counts the first characters of ranked as they are, those the text lacks "
            "included: each takes a place in the vocabulary",
            _budget_with(present_only=True),
        ),
    ),
    "work out bytes per token by hand for the failing case, with the vocabulary of the size "
    "you returned and of one less: the answer is the first size at which the text reaches "
    "the target, and None if even all of ranked does not (an empty text is an error).",
)


SPECS = (BUILD_VOCAB, ENCODE_NEAREST, DECODE_REPORT, FALLBACK_BUDGET)
check, judge_tasks = checks_of(SPECS)

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")
