"""Checks of exercises/04_char_bpe.ipynb, as one spec per task. The reference is
book.tokenizers.bpe.char_bpe.

Every task is a variant, an extension or a measurement of the chapter's code: what a merge
saves (overlapping pairs save less than they count), training with CS336's lexicographic
tie-break, the ranks the tie-break decides, a byte fallback for unknown characters and its
decoder, and checking a walkthrough's pair counts. Each task's known mistakes are code; every
group of cases catches each of them (``tests/test_check_specs.py`` proves it on seeds 1-20).
"""

from __future__ import annotations

import random
from functools import cache
from itertools import islice

from book import corpora, walkthroughs
from book.checks.spec import (
    Cases,
    Group,
    Mistake,
    TaskSpec,
    checks_of,
    drawn_until_caught,
    random_text,
)
from book.tokenizers.bpe.char_bpe import (
    apply_merges,
    initial_splits,
    merge_pair,
    pair_counts,
    word_freqs,
)
from book.tokenizers.bpe.core import joined, merge, train_naive, training_rounds

TIES = {"zy": 1, "ab": 1, "yz": 1, "ba": 1}  # every pair ties: first seen ('z', 'y'), greatest too
LATE_TIE = {"xa": 2, "ab": 1, "ba": 3, "cab": 1}  # ties appear only after some merges
FIRST_NOT_GREATEST = {"ab": 2, "ba": 2, "cd": 1}  # first seen ('a', 'b'), greatest ('b', 'a')
OVERLAP = {"aaaa": 2, "aaab": 1, "b": 5, "baaa": 1}
# CS336's case: ('BA', 'A') and ('B', 'ZZ') tie; as pairs ('BA', 'A') is greater, as joined
# strings 'BZZ' > 'BAA'.
CS336 = {"BA": 5, "ZZ": 5, "BAA": 3, "BZZ": 3}
LOW, HUG = walkthroughs.LOW_WORD_FREQS, walkthroughs.HUG_WORD_FREQS


@cache
def _english_freqs(n_words: int = 3000) -> dict[str, int]:
    """Word frequencies of the first ``n_words`` words of the training plays."""
    return word_freqs(" ".join(corpora.english("train").split()[:n_words]))


def _random_freqs(rng: random.Random, letters: str = "abcde") -> dict[str, int]:
    """Word frequencies of made-up words over a small alphabet: many ties and overlaps."""
    words = sorted(
        {
            "".join(rng.choice(letters) for _ in range(rng.randint(1, 6)))
            for _ in range(rng.randint(2, 8))
        }
    )  # sorted first: a set's order depends on the process's hash seed, and so would the draw
    rng.shuffle(words)
    return {word: rng.randint(1, 9) for word in words}


def _cs336_like(rng: random.Random) -> dict[str, int]:
    """A corpus where CS336's two ties meet: (xy, y) and (x, zz), with z > y."""
    x, y, z = rng.sample("bcdefgh", 3)
    y, z = sorted((y, z))
    big, small = rng.randint(4, 9), rng.randint(2, 3)
    words = {x + y: big, z + z: big, x + y + y: small, x + z + z: small}
    return dict(sorted(words.items(), key=lambda _: rng.random()))


# --- Task 1: merge_and_save ----------------------------------------------------------------------


def merge_and_save_reference(splits: dict, freqs: dict[str, int], pair: tuple) -> tuple:
    """(the splits with pair merged, tokens the merge removes from the corpus)."""
    merged = merge_pair(splits, pair)
    saved = sum((len(splits[w]) - len(merged[w])) * freqs.get(w, 0) for w in splits)
    return merged, saved


# The splits must come back unchanged: the probe returns [answer, splits unchanged].
UNCHANGED = """
def probe(answer, splits, *args):
    kept = {word: tuple(symbols) for word, symbols in splits.items()}
    return [answer(splits, *args), splits == kept]
"""


def _save_examples() -> Cases:
    overlap, low = initial_splits(OVERLAP, None), initial_splits(LOW)
    return [
        ((initial_splits(HUG), HUG, ("u", "g")), "each word counted as often as it occurs"),
        ((low, LOW, ("e", "s")), ""),
        ((low, LOW, ("t", "</w>")), "a pair with the marker"),
        ((low, LOW, ("x", "y")), "a pair that never occurs saves 0"),
        ((overlap, OVERLAP, ("a", "a")), "a pair that overlaps itself saves less than its count"),
        ((merge_pair(overlap, ("a", "a")), OVERLAP, ("aa", "aa")), "merged symbols"),
        (
            ({"abc": ("ab", "c"), "bc": ("b", "c")}, {"abc": 2, "bc": 3}, ("b", "c")),
            "merges join whole symbols, not substrings",
        ),
        ((initial_splits(_english_freqs(400)), _english_freqs(400), ("t", "h")), "Shakespeare"),
    ]


def _save_draw(rng: random.Random) -> tuple:
    """One random case: words over 'ab' with a weighted run of a's (an overlap) among them."""
    freqs, marker = _random_freqs(rng, "ab"), rng.choice([None, "</w>"])
    freqs["a" * rng.randint(3, 7)] = rng.randint(2, 5)
    splits = initial_splits(freqs, marker)
    pair = rng.choice([("a", "a"), rng.choice(sorted(pair_counts(splits, freqs)))])
    return splits, freqs, pair


def _save_hidden(rng: random.Random) -> Cases:
    return drawn_until_caught(rng, _save_draw, MERGE_AND_SAVE)


def _save_counted(splits, freqs, pair):
    return merge_pair(splits, pair), pair_counts(splits, freqs).get(pair, 0)


def _save_unweighted(splits, freqs, pair):
    merged = merge_pair(splits, pair)
    return merged, sum(len(splits[w]) - len(merged[w]) for w in splits)


def _save_in_place(splits, freqs, pair):
    saved = merge_and_save_reference(splits, freqs, pair)[1]
    for word in splits:
        splits[word] = tuple(merge(splits[word], pair, joined(0, pair)))
    return splits, saved


MERGE_AND_SAVE = TaskSpec(
    "merge_and_save",
    merge_and_save_reference,
    (Group("examples", 1, _save_examples), Group("random corpora", 1, hidden=_save_hidden)),
    (
        Mistake(
            "saved is not the pair's count: a pair that overlaps itself (a a a) is counted "
            "twice but merges once; count the symbols each word loses",
            _save_counted,
        ),
        Mistake("each word counts as often as it occurs in the corpus", _save_unweighted),
        Mistake(
            "build the new splits in a new dict: the splits you are given must not change",
            _save_in_place,
        ),
    ),
    "saved is what the merge removes: for each word, the symbols it loses times its frequency.",
    probe=UNCHANGED,
)

# --- Task 2: train_bpe ---------------------------------------------------------------------------


def train_reference(
    freqs: dict[str, int], num_merges: int, end_of_word: str | None = "</w>", tie_break="first"
) -> list:
    """The merges with either tie-break (ValueError for another rule)."""
    splits = initial_splits(freqs, end_of_word)
    sequences = {splits[word]: freq for word, freq in freqs.items()}
    return train_naive(sequences, num_merges, joined, tie_break=tie_break)


def _train_with(pick):
    """A trainer that picks the pair among the tied ones with pick(tied, tie_break)."""

    def train(freqs, num_merges, end_of_word="</w>", tie_break="first"):
        if tie_break not in ("first", "lexicographic"):
            raise ValueError(tie_break)
        splits, merges = initial_splits(freqs, end_of_word), []
        for _ in range(num_merges):
            counts = pair_counts(splits, freqs)
            if not counts:
                break
            tied = [pair for pair, n in counts.items() if n == max(counts.values())]
            best = pick(tied, tie_break)
            merges.append((best, counts[best]))
            splits = merge_pair(splits, best)
        return merges

    return train


def _rules(freqs: dict, marker, sizes=(3, 12, 40)) -> Cases:
    return [
        ((dict(freqs), n, marker, rule), "") for rule in ("first", "lexicographic") for n in sizes
    ]


def _train_walkthroughs() -> Cases:
    cases = _rules(HUG, "</w>") + _rules(HUG, None) + _rules(LOW, "</w>") + _rules(LOW, "_")
    cases += [
        ((dict(CS336), 3, None, "lexicographic"), "CS336's tie: compare pairs, not joined strings"),
        ((dict(FIRST_NOT_GREATEST), 2, None), "the default tie_break is 'first'"),
        ((dict(TIES), 2, None, "last"), "any other rule raises ValueError"),
    ]
    english = _english_freqs()
    return cases + [
        ((english, 30, "</w>", "lexicographic"), "Shakespeare, greatest pair wins ties"),
        ((english, 30, "</w>", "first"), "Shakespeare, first in the data wins ties"),
    ]


def _train_ties() -> Cases:
    cases = []
    for freqs, marker in [
        (TIES, None),
        (FIRST_NOT_GREATEST, None),
        (LATE_TIE, "</w>"),
        (OVERLAP, None),
        (CS336, None),
        (CS336, "</w>"),
    ]:
        cases += _rules(freqs, marker, (1, 4, 12))
    return cases


def _train_hidden(rng: random.Random) -> Cases:
    cases = []
    for freqs in [_random_freqs(rng), _random_freqs(rng, "ab")]:
        marker = rng.choice([None, "</w>", "_"])
        for rule in ("first", "lexicographic"):
            cases.append(((freqs, rng.randint(4, 15), marker, rule), "random"))
    return [*cases, ((_cs336_like(rng), rng.randint(3, 6), None, "lexicographic"), "random")]


TRAIN_BPE = TaskSpec(
    "train_bpe",
    train_reference,
    (
        Group("the walkthroughs", 1, _train_walkthroughs),
        Group("ties", 1, _train_ties),
        Group("random corpora", 1, hidden=_train_hidden),
    ),
    (
        Mistake(
            "your tie-break compares the joined strings (a + b), not the pairs: CS336's "
            "('BA', 'A') beats ('B', 'ZZ') because 'BA' > 'B'",
            _train_with(
                lambda tied, rule: (
                    max(tied, key=lambda p: p[0] + p[1]) if rule == "lexicographic" else tied[0]
                )
            ),
        ),
        Mistake(
            "this is the chapter's trainer: it ignores tie_break, so 'lexicographic' still "
            "takes the pair seen first",
            _train_with(lambda tied, rule: tied[0]),
        ),
        Mistake(
            "'lexicographic' takes the greatest of the tied pairs, not the smallest",
            _train_with(lambda tied, rule: min(tied) if rule == "lexicographic" else tied[0]),
        ),
        Mistake(
            "'first' takes the tied pair that occurs first in the data, not the last one seen",
            _train_with(lambda tied, rule: max(tied) if rule == "lexicographic" else tied[-1]),
        ),
    ),
    "among the pairs with the top count, 'first' takes the one seen first in the data and "
    "'lexicographic' the greatest pair (compared part by part); stop when no pair is left.",
)

# --- Task 3: tie_ranks ---------------------------------------------------------------------------


def tie_ranks_reference(freqs: dict[str, int], num_merges: int, end_of_word="</w>") -> list:
    """(rank, number of pairs tied at the top) for each rank the book's tie-break decided."""
    return [(rank, n) for rank, n in _tops(freqs, num_merges, end_of_word) if n > 1]


def _tops(freqs, num_merges, end_of_word) -> list[tuple[int, int]]:
    """(rank, number of pairs at the top count) for every rank trained."""
    splits = initial_splits(freqs, end_of_word)
    sequences = {splits[word]: freq for word, freq in freqs.items()}
    tops = []
    for done in islice(training_rounds(sequences, joined), num_merges):
        top = done.merge[1]
        tops.append((done.rank, sum(count == top for count in done.counts.values())))
    return tops


def _tie_examples() -> Cases:
    return [
        ((HUG, 6, "</w>"), ""),
        ((HUG, 6, None), "no marker"),
        ((LOW, 10, "</w>"), ""),
        ((dict(TIES), 4, None), "every pair tied: count them all"),
        ((dict(LATE_TIE), 6, "</w>"), "ties appear only after some merges"),
        (({"ab": 3}, 5, None), "no tie, and training stops after one merge"),
        ((word_freqs(walkthroughs.CAT_TEXT), 15, None), "ranks count from 0"),
        ((_english_freqs(), 120, "</w>"), "Shakespeare"),
    ]


def _tie_draw(rng: random.Random) -> tuple:
    """One random case: random words, four two-letter words tied, or one pair far on top."""
    kind = rng.choice(["random", "all tied", "unique top"])
    if kind == "all tied":
        freqs = {"".join(rng.sample("vwxyz", 2)): 1 for _ in range(4)}
    else:
        freqs = _random_freqs(rng)
        if kind == "unique top":
            freqs["q" * rng.randint(2, 4)] = 20
    return freqs, rng.randint(3, 15), rng.choice([None, "</w>"])


def _tie_hidden(rng: random.Random) -> Cases:
    return drawn_until_caught(rng, _tie_draw, TIE_RANKS)


TIE_RANKS = TaskSpec(
    "tie_ranks",
    tie_ranks_reference,
    (Group("examples", 1, _tie_examples), Group("random corpora", 1, hidden=_tie_hidden)),
    (
        Mistake(
            "ranks count from 0, as merges do",
            lambda f, n, eow="</w>": [(r + 1, k) for r, k in tie_ranks_reference(f, n, eow)],
        ),
        Mistake(
            "count every pair that has the top count, not just two",
            lambda f, n, eow="</w>": [(r, 2) for r, _ in tie_ranks_reference(f, n, eow)],
        ),
        Mistake(
            "a rank with one pair alone at the top is not a tie",
            lambda f, n, eow="</w>": _tops(f, n, eow),
        ),
    ),
    "before each merge of the book's trainer, count the pairs whose count equals the top "
    "count; a rank is a tie when there are two or more.",
)

# --- Task 4: encode_fallback ---------------------------------------------------------------------


def byte_token(byte: int) -> str:
    """SentencePiece's spelling of a fallback byte: byte_token(233) -> '<0xE9>'."""
    return f"<0x{byte:02X}>"


def _encode_with(spell_unknown, order=1, marker=True):
    def encode(text: str, merges: list, alphabet: list[str]) -> list[str]:
        known, tokens = set(alphabet), []
        for word in text.split():
            symbols: list[str] = []
            for ch in word:
                symbols += [ch] if ch in known else spell_unknown(ch)
            tokens += apply_merges((*symbols, *["</w>"] * marker), merges[::order])
        return tokens

    return encode


encode_fallback_reference = _encode_with(lambda ch: [byte_token(b) for b in ch.encode("utf-8")])


@cache
def _english_merges(num_merges: int = 200) -> tuple[list, list[str]]:
    """Merges learned on 3,000 words of the plays, and their alphabet."""
    freqs = _english_freqs()
    return train_reference(freqs, num_merges), sorted({ch for word in freqs for ch in word})


@cache
def _low_model() -> tuple[list, list[str]]:
    return train_reference(LOW, 10), sorted(set("".join(LOW)))


FALLBACK_TEXTS = [
    ("lowest newer", "every character known"),
    ("café", "an unknown two-byte character: one token per byte, not per character"),
    ("Ωμέγα 日本語", "unknown characters of 2 and 3 bytes"),
    ("🦙 👨‍👩‍👧", "emoji: 4 bytes each, joiners too"),
    ("  lower\tnewest\n", "whitespace runs"),
    ("", "no words"),
    ("naïve Straße widest", ""),
]


def _encode_examples() -> Cases:
    low, alphabet = _low_model()
    merges, english = _english_merges()
    ordered = [(("b", "c"), 1), (("a", "b"), 1), (("a", "bc"), 1)]
    return [((text, low, alphabet), note) for text, note in FALLBACK_TEXTS] + [
        (("abc cab é", ordered, ["a", "b", "c"]), "merges replayed in rank order"),
        (("Full fathom five, Ariel! naïve 🦙", merges, english), "Shakespeare's merges"),
    ]


def _fallback_text(rng: random.Random) -> str:
    """A random text with an unknown accented letter and an English word in it."""
    return " ".join(
        [
            random_text(rng, rng.randint(2, 6)),
            rng.choice(["café", "naïve", "Ωμέγα"]),
            rng.choice(["lowest", "the", "newer"]),
        ]
    )


def _encode_hidden(rng: random.Random) -> Cases:
    merges, english = _english_merges()
    low, alphabet = _low_model()
    return [
        ((_fallback_text(rng), merges, english), "random"),
        ((_fallback_text(rng), low, alphabet), "random"),
    ]


ENCODE_FALLBACK = TaskSpec(
    "encode_fallback",
    encode_fallback_reference,
    (Group("examples", 1, _encode_examples), Group("random texts", 1, hidden=_encode_hidden)),
    (
        Mistake(
            "an unknown character becomes one token per UTF-8 byte, not one per character",
            _encode_with(lambda ch: [f"<0x{ord(ch):02X}>"]),
        ),
        Mistake(
            "write the hex digits in upper case, as SentencePiece does",
            _encode_with(lambda ch: [f"<0x{b:02x}>" for b in ch.encode("utf-8")]),
        ),
        Mistake(
            "replay the merges in rank order, first merge first",
            _encode_with(lambda ch: [byte_token(b) for b in ch.encode("utf-8")], order=-1),
        ),
        Mistake(
            "every word ends with the marker '</w>' before the merges",
            _encode_with(lambda ch: [byte_token(b) for b in ch.encode("utf-8")], marker=False),
        ),
    ),
    "spell each word with its known characters and, for an unknown one, one byte token per "
    "UTF-8 byte; add the marker, then replay the merges in rank order.",
)

# --- Task 5: decode_fallback ---------------------------------------------------------------------

BYTE_TOKENS = {byte_token(b): bytes([b]) for b in range(256)}


def _decode_with(errors="strict", per_token=False, marker_late=False, keep_space=False):
    def decode(tokens: list[str]) -> str:
        def piece(token):
            text = token if marker_late else token.replace("</w>", " ")
            return BYTE_TOKENS.get(token) or text.encode("utf-8")

        pieces = [piece(t) for t in tokens]
        if per_token:
            text = "".join(p.decode("utf-8", "replace") for p in pieces)
        else:
            text = b"".join(pieces).decode("utf-8", errors)
        text = text.replace("</w>", " ") if marker_late else text
        return text if keep_space else text.removesuffix(" ")

    return decode


decode_fallback_reference = _decode_with()


def _decode_examples() -> Cases:
    low, alphabet = _low_model()
    cases: Cases = [
        ((encode_fallback_reference(text, low, alphabet),), note) for text, note in FALLBACK_TEXTS
    ]
    return cases + [
        ((["<0xE2>", "<0x82>", "<0xAC>", "</w>", "5", "</w>"],), "bytes of one character"),
        ((["lo", "w", "</w>", "<0x41>", "</w>"],), "a byte token of an ASCII letter"),
        ((["new", "est</w>", "low</w>"],), "the marker inside a token"),
        ((["<0xC3>", "</w>"],), "a broken byte sequence: decode strictly, raise"),
        ((["<0x3C>", "<0x2F>", "w", "<0x3E>", "</w>"],), "bytes that spell the marker are text"),
        (([],), "no tokens"),
    ]


def _decode_hidden(rng: random.Random) -> Cases:
    low, alphabet = _low_model()
    tokens = encode_fallback_reference(_fallback_text(rng), low, alphabet)
    spelled = [byte_token(b) for b in b"</w>"]
    rng.shuffle(spelled)  # the marker's bytes, in some order: still text
    at = rng.choice([0] + [i + 1 for i, token in enumerate(tokens) if token == "</w>"])
    broken = [byte_token(rng.choice([0xC3, 0xE2, 0xF0, 0x80])), "</w>"]
    return [
        ((tokens,), "random"),
        ((tokens[:at] + [byte_token(b) for b in b"</w>"] + tokens[at:],), "random"),
        ((tokens[:at] + spelled + ["</w>"] + tokens[at:],), "random"),
        ((tokens + broken,), "random"),
    ]


DECODE_FALLBACK = TaskSpec(
    "decode_fallback",
    decode_fallback_reference,
    (Group("examples", 1, _decode_examples), Group("random tokens", 1, hidden=_decode_hidden)),
    (
        Mistake(
            "join the bytes of all tokens before decoding: one character can span several "
            "byte tokens",
            _decode_with(per_token=True),
        ),
        Mistake("drop the space after the last word", _decode_with(keep_space=True)),
        Mistake(
            "'</w>' is a space only in a token that is not a byte token: bytes that spell "
            "it are text",
            _decode_with(marker_late=True),
        ),
        Mistake(
            "decode strictly: a broken byte sequence is an error, not a '\ufffd'",
            _decode_with(errors="replace"),
        ),
    ),
    "each byte token is one byte and every other token its UTF-8 text with '</w>' as a space; "
    "decode all the bytes at once.",
)

# --- Task 6: wrong_counts ------------------------------------------------------------------------


def wrong_counts_reference(claimed: dict, freqs: dict[str, int], end_of_word: str | None) -> dict:
    """The claimed pairs whose true count differs, with the true count (0 if absent)."""
    counts = pair_counts(initial_splits(freqs, end_of_word), freqs)
    return {pair: counts.get(pair, 0) for pair, n in claimed.items() if counts.get(pair, 0) != n}


def _wrong_examples() -> Cases:
    made_up = {("x", "y"): 3, ("u", "g"): 19, ("h", "u"): 15}
    claims = walkthroughs.LOW_MISCOUNTED_PAIR_COUNTS
    hug = walkthroughs.HUG_CLAIMED_PAIR_COUNTS
    return [
        ((claims, LOW, "</w>"), ""),
        ((claims, LOW, None), "no marker: pairs with </w> never occur, count 0"),
        ((hug, HUG, None), ""),
        ((hug, HUG, "</w>"), ""),
        ((made_up, HUG, None), "keep the order of claimed"),
    ]


def _wrong_hidden(rng: random.Random) -> Cases:
    cases = []
    for marker in (None, "</w>", rng.choice([None, "</w>"])):
        freqs = _random_freqs(rng)
        counts = pair_counts(initial_splits(freqs, "</w>"), freqs)
        claimed = {pair: n + rng.choice([0, 0, 1, -1]) for pair, n in counts.items()}
        claimed[("q", "z")] = rng.randint(1, 5)  # never occurs
        word = rng.choice(list(freqs))
        claimed[(word[-1], "</w>")] = counts[(word[-1], "</w>")]  # right only with the marker
        claimed[rng.choice(list(counts))] += 1
        cases.append(((claimed, freqs, marker), "random"))
    return cases


WRONG_COUNTS = TaskSpec(
    "wrong_counts",
    wrong_counts_reference,
    (
        Group("the walkthroughs' claims", 1, _wrong_examples),
        Group("random claims", 1, hidden=_wrong_hidden),
    ),
    (
        Mistake(
            "spell the words with end_of_word as given: with None there is no marker",
            lambda c, f, eow: wrong_counts_reference(c, f, "</w>"),
        ),
        Mistake(
            "a claimed pair that never occurs has count 0, so its claim is wrong",
            lambda c, f, eow: {p: n for p, n in wrong_counts_reference(c, f, eow).items() if n},
        ),
        Mistake(
            "return the true counts of the wrong claims, not the claimed ones",
            lambda c, f, eow: {p: c[p] for p in wrong_counts_reference(c, f, eow)},
        ),
    ),
    "count the pairs of the words as spelled with end_of_word, and keep each claimed pair "
    "whose true count differs from the claim, in the order of claimed.",
)

SPECS = (MERGE_AND_SAVE, TRAIN_BPE, TIE_RANKS, ENCODE_FALLBACK, DECODE_FALLBACK, WRONG_COUNTS)
check, judge_tasks = checks_of(SPECS)

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")
