"""Checks of exercises/12_choosing_a_tokenizer.ipynb, as one spec per task. The references are
book.tokenizers.bpe.dropout, book.tokenizers.bpe.superbpe (with the book's trainer),
book.analysis.bits_per_byte and book.analysis.patching.

The tasks, each a variant the chapter did not write out: BPE-dropout on a word's ids with the
book's merges and a given generator (the probe hands it scripted draws and counts them), the
pair SuperBPE's stage two merges next, bits per byte from a model's per-token losses in nats,
and BLT's patch lengths from entropies and a threshold. Each task's statement is split into
parts (groups) with their points: the central computation, its edge rules, the errors it
raises. Every group holds a case of the central computation, so each known mistake (a
misconception of the central computation) earns 0 (``tests/test_check_specs.py`` proves it on
seeds 1-20); a slip at an edge or a missing error costs only its group
(``tests/test_checks_ch12.py``).
"""

from __future__ import annotations

import math
import random
from functools import cache

from book import corpora
from book.analysis.bits_per_byte import bits_per_byte
from book.analysis.patching import byte_model, next_byte_entropies, patch_starts, patches
from book.checks.answers import close
from book.checks.spec import Cases, Group, Mistake, TaskSpec, checks_of, random_text
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.core import get_pair_counts, merge_lowest_rank, ranks_of
from book.tokenizers.bpe.dropout import check_dropout, merge_with_dropout
from book.tokenizers.bpe.superbpe import allowed_superword
from book.tokenizers.bpe.train import train_merges


@cache
def _english() -> ByteTokenizer:
    """Byte-level BPE trained on the first 3,000 characters of the training plays."""
    return ByteTokenizer.train(corpora.english("train")[:3000], 300)


def _word(rng: random.Random) -> str:
    """A word of held-out text with its space, as a split pattern would give it."""
    words = corpora.english("heldout")[:4000].split()
    return " " + rng.choice([w for w in words if len(w) > 4])


# --- Task 1: dropout_encode ----------------------------------------------------------------------

# The probe hands the answer a generator whose random() gives the case's draws in order (a list),
# or random.Random(seed)'s (an int), and returns [the ids, how many draws were used]: the
# statement fixes which candidate each draw decides. A case whose last argument is True also
# gets the caller's list after the call, which must be unchanged.
DRAWS = """
import random


class Draws:
    def __init__(self, draws):
        self.source = random.Random(draws) if isinstance(draws, int) else None
        self.draws, self.used = draws, 0

    def random(self):
        self.used += 1
        if self.source is not None:
            return self.source.random()
        if self.used > len(self.draws):
            raise IndexError("the generator has no draws left: too many were used")
        return self.draws[self.used - 1]


def probe(answer, ids, merges, dropout, draws, caller=False):
    rng = Draws(draws)
    result = [answer(ids, merges, dropout, rng), rng.used]
    return [*result, ids] if caller else result
"""


def dropout_encode_reference(ids: list[int], merges: list, dropout: float, rng) -> list[int]:
    """ids merged as BPE encodes, each candidate merge skipped when rng.random() < dropout."""
    return merge_with_dropout(ids, ranks_of(merges), check_dropout(dropout), rng)


def _dropout_by_position(ids, merges, dropout, rng):
    """Candidates tried left to right, whatever their rank."""
    ranks, ids = ranks_of(merges), list(ids)
    check_dropout(dropout)
    while True:
        kept = next(
            (
                i
                for i, pair in enumerate(zip(ids, ids[1:]))
                if pair in ranks and rng.random() >= dropout
            ),
            None,
        )
        if kept is None:
            return ids
        ids[kept : kept + 2] = [256 + ranks[ids[kept], ids[kept + 1]]]


def _dropout_once_per_merge(ids, merges, dropout, rng):
    """Each merge dropped or kept once for the whole word, then plain BPE with those kept."""
    check_dropout(dropout)
    kept = {pair: rank for rank, (pair, _) in enumerate(merges) if rng.random() >= dropout}
    return merge_lowest_rank(list(ids), kept)


def _dropout_inverted(ids, merges, dropout, rng):
    """A candidate kept with probability dropout."""
    return merge_with_dropout(ids, ranks_of(merges), 1 - check_dropout(dropout), rng)


def _plain_bpe(ids, merges, dropout, rng):
    """The chapter's encoder: plain BPE, the draws unused."""
    check_dropout(dropout)
    return merge_lowest_rank(list(ids), ranks_of(merges))


# ab, bc, abc, cd: a = 97, b = 98, c = 99, d = 100.
ABCD = [((97, 98), 5), ((98, 99), 4), ((256, 99), 3), ((99, 100), 2)]
# bc first, then ab: merging by position (ab first) makes another token of "abc".
BC_FIRST = [((98, 99), 1), ((97, 98), 1), ((257, 99), 1), ((97, 256), 1)]
ABC, CDAB = [97, 98, 99], [99, 100, 97, 98]


def _dropout_examples() -> Cases:
    english = _english()
    word = " spirits"
    return [
        (([97, 98, 99, 100], ABCD, 0.5, [0.9, 0.9]), "each step merges the best candidate kept"),
        (([97, 98, 99, 100], ABCD, 0.5, [0.1, 0.9]), "ab skipped: bc, the next by rank"),
        ((CDAB, ABCD, 0.5, [0.9, 0.1]), "ab outranks cd, though cd comes first"),
        (
            ([97, 98, 97, 98], ABCD, 0.5, [0.9, 0.9]),
            "the kept candidate merges at its position only: the other ab is the next step's",
        ),
        (([97, 98, 97, 98], ABCD, 0.5, [0.1, 0.9, 0.2]), "equal ranks: the leftmost first"),
        (([97, 98, 99, 100], ABCD, 0.5, [0.1, 0.1, 0.9, 0.9]), "a skipped merge is drawn again"),
        ((list("日本".encode()), _multi_byte(), 0.3, 7), "multi-byte characters"),
        ((list(word.encode()), list(english.merges), 0.2, 12), word),
    ]


def _multi_byte() -> list:
    """The merges of '日本' and '本日': tokens that hold parts of characters."""
    return list(ByteTokenizer.train("日本 本日 日本", 262).merges)


def _dropout_edges() -> Cases:
    english = _english()
    word = list(b" spirits")
    return [
        ((ABC, BC_FIRST, 0.0, 3), "dropout 0 is BPE: by rank, not by position"),
        ((word, list(english.merges), 0.0, 3), "dropout 0 is BPE"),
        (([97, 98, 97, 98], ABCD, 0.0, 3), "dropout 0: one draw and one position each step"),
        (([97, 98, 99, 100], ABCD, 1.0, [0.5] * 4), "dropout 1: every candidate skipped"),
        (([97, 98, 97, 98], ABCD, 1.0, [0.5] * 2), "dropout 1: a draw for each position of ab"),
        ((ABC, ABCD, 0.0, 3, True), "the caller's ids stay unchanged (the last value)"),
        ((CDAB, ABCD, 0.25, [0.25, 0.1]), "a draw equal to dropout keeps the merge"),
        (([], ABCD, 0.5, []), "no ids"),
        (([97], ABCD, 0.5, []), "one id"),
        (([100, 99, 98], ABCD, 0.5, [0.9]), "the pair at the last position"),
    ]


def _dropout_errors() -> Cases:
    return [
        (([97, 98], ABCD, -0.1, [0.5]), "dropout below 0 raises ValueError"),
        (([97, 98], ABCD, 1.5, [0.5]), "dropout above 1 raises ValueError"),
        (([97, 98], ABCD, math.nan, [0.5]), "a NaN dropout raises ValueError"),
        (([], ABCD, 1.5, []), "dropout above 1 raises ValueError, even with no ids"),
        (([97], ABCD, math.nan, []), "a NaN dropout raises ValueError, even with one id"),
        ((CDAB, ABCD, 0.2, [0.5, 0.1]), "dropout 0.2 is a probability: no error"),
        (([100, 97], ABCD, 0, []), "dropout 0, an int, is a probability: no error"),
        (([100, 97], ABCD, 1, []), "dropout 1, an int, is a probability: no error"),
    ]


def _dropout_hidden(rng: random.Random) -> Cases:
    english = _english()
    return [
        (
            (list(_word(rng).encode()), list(english.merges), rng.choice([0.1, 0.3, 0.5]), seed),
            "random",
        )
        for seed in rng.sample(range(1000), 3)
    ]


def _dropout_hidden_edges(rng: random.Random) -> Cases:
    english = _english()
    ids = list(_word(rng).encode())
    draws = [rng.choice([0.1, 0.9]) for _ in range(len(ids))]
    return [
        ((ids, list(english.merges), 0.0, rng.randrange(1000)), "random"),
        ((ids, list(english.merges), 1.0, draws), "random"),
    ]


DROPOUT_MISTAKES = (
    Mistake(
        "candidates are tried by rank (lowest first, the leftmost of equal ranks), not by "
        "position in the ids",
        _dropout_by_position,
    ),
    Mistake(
        "each step draws again, once for each candidate it tries: a merge skipped in one step "
        "may be kept in the next",
        _dropout_once_per_merge,
    ),
    Mistake(
        "dropout is the probability of skipping a candidate: skip it when the draw is below "
        "dropout, keep it otherwise",
        _dropout_inverted,
    ),
    Mistake(
        "this is plain BPE: the task skips candidates at random, one draw from the generator "
        "for each candidate tried",
        _plain_bpe,
    ),
)

DROPOUT_ENCODE = TaskSpec(
    "dropout_encode",
    dropout_encode_reference,
    (
        Group("rank order, one draw per candidate", 2, _dropout_examples, _dropout_hidden),
        Group(
            "dropout 0 and 1, a draw equal to dropout, no ids, the caller's list",
            1,
            _dropout_edges,
            _dropout_hidden_edges,
        ),
        Group("errors", 1, _dropout_errors),
    ),
    DROPOUT_MISTAKES,
    "each step lists the adjacent pairs that are merges, lowest rank first and the leftmost "
    "of equal ranks first, draws once for each in that order until a draw is not below "
    "dropout, and merges that one; a step that keeps none ends the encoding.",
    probe=DRAWS,
)

# --- Task 2: next_superword ----------------------------------------------------------------------


def next_superword_reference(chunks: dict, vocab: dict[int, bytes]) -> tuple | None:
    """The merge stage two makes next: the most frequent pair, first occurring of equals, whose
    token SuperBPE allows; None when it allows none."""
    unused = max(vocab) + 1

    def allow(pair: tuple[int, int]) -> bool:
        return allowed_superword(vocab[pair[0]] + vocab[pair[1]])

    best = train_merges(chunks, 1, lambda rank, pair: unused, allow=allow)
    return best[0] if best else None


def _superword_if(allow, weighted=True, across=False):
    """next_superword with another rule for a token (allow(left's bytes, right's bytes)),
    unweighted chunks, or pairs across them."""

    def next_superword(chunks, vocab):
        counts: dict = {}
        sequences = [sum(chunks, ())] if across else list(chunks)
        for symbols in sequences:
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + (chunks.get(symbols, 1) if weighted else 1)
        allowed = {pair: n for pair, n in counts.items() if allow(vocab[pair[0]], vocab[pair[1]])}
        if not allowed:
            return None
        best = max(allowed, key=allowed.__getitem__)
        return best, allowed[best]

    return next_superword


def _allowed(left: bytes, right: bytes) -> bool:
    return allowed_superword(left + right)


def _words(token: bytes) -> int:
    return len([word for word in token.split(b" ") if word])


RULES = "four words and no ': '"

SPACE_MISTAKES = (
    Mistake(
        "stage two lifts the whitespace boundary: a token may span words, up to four of them",
        _superword_if(lambda left, right: b" " not in (left + right).strip(b" ")),
    ),
    Mistake(
        "a chunk stands for as many occurrences as its count: each of its pairs counts that often",
        _superword_if(_allowed, weighted=False),
    ),
    Mistake(
        "pairs never span two chunks: the last id of one and the first of the next are no pair",
        _superword_if(_allowed, across=True),
    ),
    Mistake(
        "only the space byte separates words: a newline or a tab does not",
        _superword_if(
            lambda left, right: len((left + right).split()) <= 4 and _allowed(left, right)
        ),
        RULES,
    ),
    Mistake(
        "a word is a run of bytes between spaces: leading, trailing or repeated spaces add none",
        _superword_if(
            lambda left, right: (left + right).count(b" ") < 4 and b": " not in left + right
        ),
        RULES,
    ),
    Mistake(
        "the colon rule looks at the joined bytes: a part ending in a colon and one starting "
        "with a space make ': '",
        _superword_if(
            lambda left, right: (
                _words(left + right) <= 4 and b": " not in left and b": " not in right
            )
        ),
        RULES,
    ),
    Mistake(
        "a word cut by the join counts once: count the words of the joined bytes, not of each part",
        _superword_if(
            lambda left, right: _words(left) + _words(right) <= 4 and b": " not in left + right
        ),
        RULES,
    ),
)


def _vocab(*tokens: bytes) -> dict[int, bytes]:
    """The 256 bytes, then tokens as ids 256, 257, ..."""
    return {**{i: bytes([i]) for i in range(256)}, **dict(enumerate(tokens, start=256))}


# ids 256..: "the", " cat", " sat", " on", " mat", ": ", "Q"
WORDS = _vocab(b"the", b" cat", b" sat", b" on", b" mat", b": ", b"Q")
THE, CAT, SAT, ON, MAT, COLON, Q = range(256, 263)
SPACE = 32
# A case every mistake gets wrong and no rule of a token decides: the most frequent pair spans
# words; it is not the most frequent unweighted, nor across the chunks. Its top count is unique.
ALL_WRONG = {(THE, CAT, SAT, ON, MAT): 3, (THE, CAT): 2, (MAT, THE): 1, (THE, THE): 1}


def _superword_examples() -> Cases:
    return [
        ((ALL_WRONG, WORDS), "words joined across spaces, weighted by the chunks' counts"),
        (({(THE, CAT): 2, (CAT, SAT): 3}, WORDS), "the most frequent pair wins"),
        (({(ord("a"), SPACE, ord("b")): 4, (SPACE, ord("b")): 1}, WORDS), "a space at either end"),
    ]


@cache
def _english_chunks() -> dict:
    """The first 40 lines of held-out text as stage-two chunks, encoded with Shakespeare's
    merges (their most frequent pairs tie)."""
    english = _english()
    lines = corpora.english("heldout").splitlines()[:40]
    chunks: dict = {}
    for line in lines:
        if line.strip():
            ids = tuple(english.encode(line))
            chunks[ids] = chunks.get(ids, 0) + 1
    return chunks


def _superword_rules() -> Cases:
    return [
        ((ALL_WRONG, WORDS), "every rule at once"),
        (
            ({(256, 257): 2, (258, 259, 258): 1}, _vocab(b"a b c", b" d", b"e f", b" g")),
            "4 words",
        ),
        (({(256, 257, 258): 2, (258, 259): 1}, _vocab(b"a b c", b" d e", b"x", b"y")), "5 words"),
        (({(256, 257): 2, (258, 259): 1}, _vocab(b"a b", b"  c  ", b"x", b"y")), "runs of spaces"),
        (({(256, 257): 2, (258, 259): 1}, _vocab(b"a\nb c d", b" e", b"x", b"y")), "a newline"),
        (({(256, 257): 2, (258, 259): 1}, _vocab(b"a\tb c d", b" e", b"x", b"y")), "a tab"),
        (
            ({(256, 257): 2, (257, 258): 1}, _vocab(b" a b c", b"d e", b" x")),
            "a word cut by the join counts once: ' a b cd e' is 4 words",
        ),
        (({(Q, COLON): 3, (THE, CAT): 1}, WORDS), "': ' is refused"),
        (({(Q, COLON): 2}, WORDS), "no pair allowed: None"),
        (({(ord(":"), SPACE): 2, (THE, CAT): 1}, WORDS), "a colon, then a space: refused"),
        (({(ord(":"), ord("x")): 2, (SPACE, ord(":")): 1}, WORDS), "a colon alone is allowed"),
        (({(256, 257): 1}, _vocab(b" by the", b" way of")), "four words, a space first"),
        (({(256, 257): 1}, _vocab(b" by the way", b" of it")), "five words: None"),
    ]


def _superword_ties() -> Cases:
    return [
        ((ALL_WRONG, WORDS), "every rule at once"),
        (({(CAT, SAT): 1, (THE, CAT): 1}, WORDS), "a tie: the pair that occurs first wins"),
        ((_english_chunks(), dict(_english().vocab)), "Shakespeare's lines: three pairs tie"),
        (({(CAT, SAT, THE, CAT): 1}, WORDS), "a tie within a chunk: the leftmost"),
        (({(THE, THE, THE): 1, (CAT, SAT): 2}, WORDS), "overlapping pairs count each time"),
        (({(THE,): 4, (CAT,): 1}, WORDS), "no pairs: None"),
        (({}, WORDS), "no chunks: None"),
    ]


def _superword_draw(rng: random.Random) -> tuple:
    """Chunks of random words, spaces and repeats: stage two's input, where no token holds a
    colon or more than two words (those rules are the second part's) and no id follows itself
    (overlapping pairs are the third part's)."""
    tokens = [b"the", b" cat", b" sat", b" on", b" ", b"a", b" b"]
    vocab = _vocab(*tokens)
    ids = list(range(256, 256 + len(tokens)))
    chunks: dict = {}
    for _ in range(rng.randint(3, 8)):
        chunk, length = [rng.choice(ids)], rng.randint(2, 7)
        while len(chunk) < length:
            chunk.append(rng.choice([i for i in ids if i != chunk[-1]]))
        chunks[tuple(chunk)] = rng.randint(1, 4)
    return chunks, vocab


def _superword_hidden(rng: random.Random) -> Cases:
    """Random chunks whose most frequent pair is unique: ties are the third part's."""
    cases: Cases = []
    while len(cases) < 4:
        chunks, vocab = _superword_draw(rng)
        counts: dict = {}
        for chunk, count in chunks.items():
            get_pair_counts(chunk, counts, count)
        top = sorted(counts.values(), reverse=True)
        if len(top) == 1 or (top and top[0] > top[1]):
            cases.append(((chunks, vocab), "random"))
    return cases


NEXT_SUPERWORD = TaskSpec(
    "next_superword",
    next_superword_reference,
    (
        Group("the most frequent allowed pair", 2, _superword_examples, _superword_hidden),
        Group(RULES, 1, _superword_rules),
        Group("ties, overlaps, no pairs", 1, _superword_ties),
    ),
    SPACE_MISTAKES,
    "count each adjacent pair within each chunk, the chunk's count times; keep the pairs whose "
    "joined bytes hold at most four words (runs between space bytes) and no colon followed by "
    "a space; the most frequent wins, and of equal counts the one that occurs first.",
)

# --- Task 3: bits_per_byte_from_losses -----------------------------------------------------------


class _Losses:
    """A model whose surprisal of the ids it is given is their losses, in bits."""

    def surprisal(self, losses: list[float]) -> list[float]:
        return [loss / math.log(2) for loss in losses]


def bits_per_byte_reference(losses: list[float], text: str) -> float:
    """Bits per byte of text from its tokens' losses in nats (a model's cross-entropy)."""
    bad = [loss for loss in losses if not loss >= 0]
    if bad:
        raise ValueError(f"a loss is -ln p, 0 or more (inf when p = 0), got {bad[0]!r}")
    return bits_per_byte(_Losses(), losses, text)


def _per_character(losses, text):
    """Divides by the characters."""
    return bits_per_byte_reference(losses, "x" * len(text))


def _in_nats(losses, text):
    return bits_per_byte_reference(losses, text) * math.log(2)


def _no_losses_first(losses, text):
    """No losses give 0.0 before the text is checked."""
    return 0.0 if not losses else bits_per_byte_reference(losses, text)


def _per_token(losses, text):
    size = len(text.encode("utf-8"))
    return bits_per_byte_reference(losses, text) * size / len(losses) if losses else 0.0


LOSSES_MISTAKES = (
    Mistake(
        "divide by the text's UTF-8 bytes, not its characters: 'é' is one character, two bytes",
        _per_character,
    ),
    Mistake("the losses are in nats: one bit is ln 2 nats, so divide their sum by ln 2", _in_nats),
    Mistake(
        "bits per byte divides the whole loss by the bytes, not the mean loss per token; a "
        "tokenizer with longer tokens has fewer of them",
        _per_token,
    ),
    Mistake(
        "an empty text raises ValueError, even with no losses: there is nothing to divide by",
        _no_losses_first,
        "errors",
    ),
)

NAÏVE = " naïve café, 日本語 🦙"  # 1, 2, 3 and 4 bytes a character


def _losses_central() -> Cases:
    return [
        (([2.0, 1.5, 0.25, 3.0], NAÏVE), "bytes, not characters or tokens"),
        (([0.6931471805599453] * 4, "abcd"), "ln 2 nats per byte: 1 bit per byte"),
        (([5.0, 0.5], "日本"), "three bytes a character"),
        (([1.0], "🦙"), "one token, four bytes"),
        (([1.0, 2.0], "cafe\u0301"), "a decomposed é (e, then an accent): its bytes as given"),
    ]


def _losses_edges() -> Cases:
    return [
        (([2.0, 1.5, 0.25, 3.0], NAÏVE), "bytes, not characters or tokens"),
        (([0.0, 0.0], "ab"), "probability 1 for every token: 0 bits"),
        (([1.0, math.inf], "ab"), "a probability 0: infinitely many bits"),
        (([], "ab"), "no losses: 0 bits"),
        (([0.0], "a"), "one byte, one certain token"),
    ]


def _losses_errors() -> Cases:
    return [
        (([2.0, 1.5, 0.25, 3.0], NAÏVE), "bytes, not characters or tokens"),
        (([1.0], ""), "no text: ValueError"),
        (([], ""), "no text and no losses: ValueError"),
        (([1.0, -0.5], "ab"), "a negative loss: ValueError"),
        (([math.nan], "ab"), "a NaN loss: ValueError"),
        (([-math.inf], "ab"), "a loss of -inf: ValueError"),
        (([math.inf, math.nan], "ab"), "a NaN loss after an inf: ValueError"),
        (([math.inf, -1.0], "ab"), "a negative loss after an inf: ValueError"),
    ]


def _losses_hidden(rng: random.Random) -> Cases:
    cases: Cases = []
    for _ in range(3):
        text = random_text(rng, rng.randint(2, 8)) or "x"
        losses = [rng.uniform(0.0, 12.0) for _ in range(rng.randint(1, len(text)))]
        cases.append(((losses, text), "random"))
    return cases


BITS_PER_BYTE = TaskSpec(
    "bits_per_byte_from_losses",
    bits_per_byte_reference,
    (
        Group("the losses in bits over the bytes", 2, _losses_central, _losses_hidden),
        Group("certain tokens, impossible tokens, no losses", 1, _losses_edges),
        Group("errors", 1, _losses_errors),
    ),
    LOSSES_MISTAKES,
    "add up every token's loss, turn the sum from nats into bits, and divide by the number of "
    "bytes the text takes in UTF-8.",
    compare=close,
)

# --- Task 4: patch_lengths -----------------------------------------------------------------------


def patch_lengths_reference(
    entropies: list[float], threshold: float, monotonic: bool = False
) -> list[int]:
    """The lengths of the patches that start at byte 0 and at each byte above threshold (or,
    monotonic, rising above the previous byte's entropy by more than threshold)."""
    starts = patch_starts(entropies, threshold, monotonic=monotonic)
    return [len(patch) for patch in patches(bytes(len(entropies)), starts)]


def _lengths_from(starts_of):
    def patch_lengths(entropies, threshold, monotonic=False):
        patch_starts([], threshold)  # the reference's errors
        starts = starts_of(entropies, threshold, monotonic)
        return [b - a for a, b in zip(starts, [*starts[1:], len(entropies)], strict=True)]

    return patch_lengths


def _starts_above_only(entropies, threshold, monotonic):
    """Byte 0 starts a patch only when its own entropy is above the threshold."""
    starts = patch_starts(entropies, threshold, monotonic=monotonic)[1:]
    first = entropies[:1] and entropies[0] > threshold
    return [0, *starts] if first else starts


def _starts_after(entropies, threshold, monotonic):
    """A patch ends at the byte above the threshold: the next one starts after it."""
    starts = patch_starts(entropies, threshold, monotonic=monotonic)
    return [0, *(t + 1 for t in starts[1:] if t + 1 < len(entropies))] if starts else []


def _as_starts(entropies, threshold, monotonic=False):
    patch_starts([], threshold)
    return patch_starts(entropies, threshold, monotonic=monotonic)


PATCH_MISTAKES = (
    Mistake(
        "byte 0 always starts the first patch, whatever its entropy",
        _lengths_from(_starts_above_only),
    ),
    Mistake(
        "a byte that is hard to predict begins a new patch: the patch before it ends at the "
        "byte before",
        _lengths_from(_starts_after),
    ),
    Mistake("return each patch's length in bytes, not where the patches start", _as_starts),
)

# Entropies in bits where byte 0 is low and rises are exact in binary: each rule's cuts differ
# from every mistake's.
RISING = [1.0, 0.5, 4.0, 3.5, 0.25, 6.0, 1.0, 7.5]


def _patch_global() -> Cases:
    return [
        ((RISING, 3.0, False), "byte 0 low, then three bytes above"),
        (([8.0, 1.0, 3.0, 0.5], 2.0, False), "the chapter's example"),
        (([0.5, 2.5, 2.5, 0.5, 2.5], 2.0, False), "two high bytes in a row: two patches"),
        ((_sentence_entropies(), 3.0, False), "a sentence, entropies of the book's byte model"),
    ]


@cache
def _entropy_model():
    return byte_model(corpora.english("train")[:20_000], order=3)


@cache
def _sentence_entropies() -> list[float]:
    return next_byte_entropies(_entropy_model(), b"Full fathom five thy father lies;")


def _patch_monotonic() -> Cases:
    return [
        ((RISING, 3.0, True), "rises: from 0.5 to 4.0, from 0.25 to 6.0, from 1.0 to 7.5"),
        (([8.0, 1.0, 3.0, 0.5], 1.5, True), "the chapter's example"),
        (([1.0, 3.0, 6.0, 6.5], 1.5, True), "a rise after a rise: each compared with its previous"),
        (([1.0, 3.0], 2.0, True), "a rise equal to the threshold: no new patch"),
        ((_sentence_entropies(), 1.0, True), "a sentence"),
    ]


def _patch_edges() -> Cases:
    return [
        ((RISING, 3.0, False), "byte 0 low, then three bytes above"),
        (([], 2.0, False), "no bytes"),
        (([0.1], 2.0, False), "one byte: one patch"),
        (([1.0, 2.0, 3.0], 2.0, False), "an entropy equal to the threshold: no new patch"),
        (([0.5, 0.5, 7.0], 2.0, False), "the last byte starts a patch"),
        (([8.0, 8.0, 8.0], 8.0, False), "the largest entropy, equal to the threshold"),
        (([0.0, 0.0, 0.0], 0.0, False), "certain bytes and a threshold of 0"),
        (([1.0, 3.0, 0.5], -1.0, False), "a negative threshold: every byte starts a patch"),
    ]


def _patch_errors() -> Cases:
    return [
        ((RISING, 3.0, False), "byte 0 low, then three bytes above"),
        (([1.0, 2.0], math.nan, False), "a NaN threshold raises ValueError"),
        (([], math.nan, True), "a NaN threshold raises ValueError, even with no bytes"),
        (([1.0, 2.0], "2", False), "a threshold that is no number raises ValueError"),
        (([1.0, 4.0], 3, False), "an int threshold is a number: no error"),
    ]


def _patch_draw(rng: random.Random, monotonic: bool) -> tuple:
    """Entropies of a random text under the book's byte model, and a threshold equal to none of
    them (nor to a rise): which bytes start a patch is decided by more than rounding."""
    text = random_text(rng, rng.randint(2, 6))
    entropies = next_byte_entropies(_entropy_model(), text.encode())
    values = [b - a for a, b in zip(entropies, entropies[1:])] if monotonic else entropies
    threshold = round(rng.uniform(0.5, 5.0), 3) + 0.0005
    while any(abs(value - threshold) < 1e-6 for value in values):
        threshold += 0.001
    return entropies, threshold, monotonic


def _patch_hidden(monotonic: bool):
    return lambda rng: [(_patch_draw(rng, monotonic), "random") for _ in range(3)]


PATCH_LENGTHS = TaskSpec(
    "patch_lengths",
    patch_lengths_reference,
    (
        Group("the global threshold", 2, _patch_global, _patch_hidden(False)),
        Group("the monotonic rule", 1, _patch_monotonic, _patch_hidden(True)),
        Group("no bytes, one byte, entropies equal to the threshold", 1, _patch_edges),
        Group("errors", 1, _patch_errors),
    ),
    PATCH_MISTAKES,
    "byte 0 starts the first patch; a later byte starts a new one when its entropy is above "
    "the threshold (monotonic: when it exceeds the previous byte's entropy by more than the "
    "threshold); each patch runs to the byte before the next start.",
)

SPECS = (DROPOUT_ENCODE, NEXT_SUPERWORD, BITS_PER_BYTE, PATCH_LENGTHS)
check, judge_tasks = checks_of(SPECS)

# The answers need none of the book's tokenizers or measurements: they are out of reach while
# grading.
REFERENCE = ("book.tokenizers", "book.analysis")
