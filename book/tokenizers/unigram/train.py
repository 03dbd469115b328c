"""Training a Unigram vocabulary by EM, as SentencePiece's trainer does [Kudo 2018].

1. **Seed.** Start far too big: every character, plus the substrings that occur at least twice
   (and are followed by at least two different characters), at most ``max_piece_length`` long,
   never across a space or a change of script. Score each by frequency x length.
2. **EM.** E-step: for every word, the expected number of times each piece is used, summed
   over all segmentations weighted by their probability (:func:`book.tokenizers.lattice.marginals`).
   M-step: the new log-probability of each piece from its expected count; pieces expected less
   than half a time are dropped. SentencePiece uses digamma instead of log here (a Bayesian
   flavour of EM that favours dropping rare pieces); so do we.
3. **Prune.** For each piece, how much would the corpus's likelihood drop if the piece were
   removed and its uses went to its second-best segmentation? Keep the 75 % that cost most.
4. Repeat 2-3 until the vocabulary is within 10 % of the target, then keep the characters
   and the highest-scoring pieces.

Training sees words: the text's lines are normalized (``▁`` for spaces, see
:mod:`book.tokenizers.unigram.sentencepiece_text`) and cut before each ``▁``, so ``▁the`` is a word.

>>> text = "the cat sat on the mat\\nthe hat sat\\nthe cat ate the hat\\n" * 3
>>> [p.piece for p in train_pieces(text, 20)]
['<unk>', '▁', 'e', 'h', 't', 'at', 'c', '▁sat', '▁hat', 's', 'a', 'm', 'n', 'o']
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from book.tokenizers.base import N_BYTES, UNK_TOKEN, check_train_vocab_size
from book.tokenizers.formats.sentencepiece_model import ModelPiece
from book.tokenizers.unigram.lattice import (
    UNK_PENALTY,
    PieceTable,
    build_lattice,
    f32,
    marginals,
    nbest,
    path_score,
    piece_table,
    viterbi,
)
from book.tokenizers.unigram.scripts import script
from book.tokenizers.unigram.sentencepiece_text import SPACE, byte_piece, normalize

UNK_CHAR = "\u2585"  # stands for a character too rare to keep (SentencePiece uses the same)
BOUNDARY = "\x1f"  # SentencePiece's pre-tokenization boundary: never part of a piece
# SentencePiece's trainer defaults, under the names of its flags.
MAX_SENTENCE_BYTES = 4192  # longer lines are skipped (max_sentence_length)
CHARACTER_COVERAGE = 0.9995  # the rarest characters, beyond this share, become unknown
MAX_PIECE_LENGTH = 16
SEED_SENTENCEPIECE_SIZE = 1_000_000  # frequent substrings kept in the first vocabulary
SHRINKING_FACTOR = 0.75  # each pruning keeps this share of the pieces
NUM_SUB_ITERATIONS = 2  # EM steps between two prunings

Pieces = list[tuple[str, float]]  # (piece, score) while training


def digamma(x: float) -> float:
    """The digamma function (derivative of log Gamma), by SentencePiece's series.

    >>> round(digamma(1.0), 6)  # minus the Euler-Mascheroni constant
    -0.577216
    """
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 0.5
    xx = 1 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    return (
        result
        + math.log(x)
        + xx2 / 24
        - 7 / 960 * xx4
        + 31 / 8064 * xx4 * xx2
        - 127 / 30720 * xx4 * xx4
    )


def sentences(text: str) -> Counter[str]:
    """The normalized lines of ``text`` with their counts (empty and overlong lines dropped).

    >>> sentences("the cat\\n\\nthe cat\\n")
    Counter({'▁the▁cat': 2})
    """
    lines = (
        normalize(line)
        for line in text.split("\n")
        if len(line.encode("utf-8")) <= MAX_SENTENCE_BYTES
    )
    return Counter(line for line in lines if line)


def required_chars(counts: Counter[str], coverage: float) -> dict[str, int]:
    """The most frequent characters that together make up ``coverage`` of all characters.

    The rest are too rare to keep and will be unknown.

    >>> required_chars(Counter({"▁aab": 1, "▁c": 1}), coverage=0.6)
    {'a': 2, '▁': 2}
    """
    char_counts: Counter[str] = Counter()
    for sentence, count in counts.items():
        for ch in sentence:
            char_counts[ch] += count
    total = sum(char_counts.values())
    kept, covered = {}, 0
    for ch, count in sorted(char_counts.items(), key=lambda item: (-item[1], item[0])):
        if covered / total >= coverage:
            break
        covered += count
        if ch != BOUNDARY:
            kept[ch] = count
    return kept


def sentence_words(counts: Counter[str]) -> Counter[str]:
    """The words of the sentences, each starting at a ``▁``, with their counts.

    >>> sentence_words(Counter({"▁the▁cat": 2, "▁the": 1}))
    Counter({'▁the': 3, '▁cat': 2})
    """
    words: Counter[str] = Counter()
    for sentence, count in counts.items():
        for word in sentence.replace(SPACE, "\0" + SPACE).split("\0"):
            if word:
                words[word] += count
    return words


def script_class(ch: str) -> str:
    """The script a piece must not change (digits are "Common": they split off letters)."""
    name = script(ch)
    if name in ("Hiragana", "Katakana") or ch == "\u30fc":
        return "Han"  # Japanese mixes these freely within a word
    return name


def is_valid_piece(piece: str, max_piece_length: int = MAX_PIECE_LENGTH) -> bool:
    """Whether SentencePiece's trainer may propose ``piece``: see the module docstring.

    >>> [is_valid_piece(p, 16) for p in ["▁king", "king,", "ki▁ng", "▁123", "日本語です"]]
    [True, False, False, True, True]
    """
    if not piece or len(piece) > max_piece_length:
        return False
    if any(ch in piece for ch in (UNK_CHAR, BOUNDARY, " ", "\0")):
        return False
    previous = None
    for pos, ch in enumerate(piece):
        if ch == SPACE:
            if pos > 0:
                return False
            continue
        name = script_class(ch)
        if name == "Inherited":
            name = previous  # a combining mark belongs to the letter before it
        if None not in (name, previous) and name != previous:
            return False
        previous = name
    return True


def to_log_probs(pieces: Pieces) -> Pieces:
    """Scores made log-probabilities: log(score / sum of scores).

    Scores are kept as 32-bit floats, as SentencePiece keeps them, so that pieces with equal
    counts get exactly equal scores (and are then ordered by their text, as there).
    """
    log_total = math.log(math.fsum(score for _, score in pieces))
    return [(piece, f32(math.log(score) - log_total)) for piece, score in pieces]


def seed_pieces(
    sentences: Counter[str],
    chars: Iterable[tuple[str, int]],
    max_piece_length: int = MAX_PIECE_LENGTH,
    seed_size: int = SEED_SENTENCEPIECE_SIZE,
) -> Pieces:
    """The initial vocabulary: the characters, then frequent substrings by frequency x length.

    A substring qualifies when it occurs at least twice and is followed by at least two
    different things (bytes, or the end of a line): these are the substrings that
    SentencePiece's suffix array of the text's UTF-8 bytes enumerates (the inner nodes of the
    suffix tree that end between two characters).

    >>> seed = seed_pieces(Counter({"▁hug▁pug": 3, "▁hugs▁hug": 2}), [("u", 9)], 16, 9)
    >>> [piece for piece, _ in seed]
    ['u', '▁hug', 'hug', 'ug']
    """
    counts: Counter[str] = Counter()
    followers: dict[str, int] = {}  # the first byte seen after a substring, or -2 if several
    for sentence, count in sentences.items():
        for start in range(len(sentence)):
            for end in range(start + 2, min(len(sentence), start + max_piece_length) + 1):
                if sentence[end - 1] == SPACE:
                    break  # a space can only start a piece
                piece = sentence[start:end]
                # SentencePiece's suffix array works on bytes: only the first byte of what
                # follows counts, so two different Devanagari letters (both E0 A4 ..) do not
                # make a branch.
                after = sentence[end].encode("utf-8")[0] if end < len(sentence) else -1
                counts[piece] += count
                if followers.setdefault(piece, after) != after:
                    followers[piece] = -2
    frequent = [
        (piece, f32(count * len(piece)))
        for piece, count in counts.items()
        if count >= 2 and followers[piece] == -2 and is_valid_piece(piece, max_piece_length)
    ]
    # higher score first, then longer (in bytes), then by text
    frequent.sort(key=lambda item: (-item[1], -len(item[0].encode("utf-8")), item[0]))
    seed = sorted(chars, key=lambda item: (-item[1], item[0])) + frequent[:seed_size]
    return to_log_probs([(piece, float(score)) for piece, score in seed])


def _table(pieces: Pieces) -> tuple[PieceTable, tuple[int, float]]:
    """What ``build_lattice`` needs: the pieces (ids are their indices) and the unknown node."""
    table = piece_table({piece: (i, score) for i, (piece, score) in enumerate(pieces)})
    return table, (-1, min(score for _, score in pieces) - UNK_PENALTY)


def e_step(pieces: Pieces, words: Counter[str]) -> tuple[list[float], float]:
    """Expected uses of each piece in all the words, and the objective (-log-likelihood per word).

    >>> expected, _ = e_step([("▁", -1.0), ("a", -1.0), ("▁a", -1.0)], Counter({"▁a": 2}))
    >>> [round(x, 3) for x in expected]
    [0.538, 0.538, 1.462]
    """
    table, unk = _table(pieces)
    expected = [0.0] * len(pieces)
    log_likelihood = 0.0
    for word, count in words.items():
        used, log_z = marginals(build_lattice(word, table, unk))
        for piece_id, uses in used.items():
            if piece_id >= 0:
                expected[piece_id] += count * uses
        log_likelihood += count * log_z
    return expected, -log_likelihood / sum(words.values())


def m_step(pieces: Pieces, expected: list[float]) -> Pieces:
    """New scores from expected counts; pieces expected fewer than 0.5 times are dropped.

    >>> pieces = [("a", -1.0), ("b", -1.0), ("c", -1.0)]
    >>> [(p, round(s, 3)) for p, s in m_step(pieces, [3.0, 1.0, 0.2])]
    [('a', -0.333), ('b', -1.833)]
    """
    kept = [(piece, count) for (piece, _), count in zip(pieces, expected) if count >= 0.5]
    log_total = digamma(math.fsum(count for _, count in kept))
    return [(piece, f32(digamma(count) - log_total)) for piece, count in kept]


def prune(pieces: Pieces, words: Counter[str], target: int, shrinking_factor: float) -> Pieces:
    """Keep the pieces whose removal would cost the corpus most likelihood (see step 3).

    A piece whose own best segmentation is not itself is dropped; a piece with no other
    segmentation (a character) is always kept.
    """
    table, unk = _table(pieces)
    keep_always = [True] * len(pieces)
    alternatives: list[list[int]] = [[] for _ in pieces]
    for i, (piece, _) in enumerate(pieces):
        best = nbest(build_lattice(piece, table, unk), 2)
        if len(best) == 1:
            continue
        if len(best[0][0]) >= 2:
            keep_always[i] = False
        else:
            alternatives[i] = [node.piece_id for node in best[1][0]]

    freq = [0.0] * len(pieces)  # uses of each piece in the best segmentations of all words
    for word, count in words.items():
        for node in viterbi(build_lattice(word, table, unk)):
            if node.piece_id >= 0:
                freq[node.piece_id] += count
    total = math.fsum(freq)

    kept: Pieces = []
    losses = []
    for i, piece_score in enumerate(pieces):
        if freq[i] == 0 or not keep_always[i]:
            continue
        if not alternatives[i]:
            kept.append(piece_score)
            continue
        # Pretend every use of piece i goes to its alternative segmentation instead.
        logprob = math.log(freq[i]) - math.log(total)
        log_total_alt = math.log(total + freq[i] * (len(alternatives[i]) - 1))
        logprob_alt = math.fsum(
            math.log(freq[n] + freq[i]) - log_total_alt for n in alternatives[i]
        )
        losses.append((freq[i] / total * (logprob - logprob_alt), i))
    size = max(target, int(shrinking_factor * len(pieces)))
    for _, i in sorted(losses, key=lambda item: (-item[0], item[1])):
        if len(kept) == size:
            break
        kept.append(pieces[i])
    return kept


def drop_unreachable(pieces: Pieces) -> Pieces:
    """Drop the pieces that Viterbi would never choose: their parts together score higher.

    >>> [p for p, _ in drop_unreachable([("a", -1.0), ("b", -1.0), ("ab", -2.5)])]
    ['a', 'b']
    """
    table, unk = _table(pieces)
    kept = []
    for i, (piece, score) in enumerate(pieces):
        lattice = build_lattice(piece, table, unk)
        lattice[0] = [node for node in lattice[0] if node.piece_id != i]  # without itself
        if len(piece) > 1 and path_score(viterbi(lattice)) > score:
            continue
        kept.append((piece, score))
    return kept


def finalize(pieces: Pieces, chars: dict[str, int], size: int) -> Pieces:
    """The final ``size`` pieces: every required character, then the best-scoring pieces.

    A character that EM dropped comes back just above the lowest score. Sorted by score.
    """
    scores = dict(pieces)
    low, penalty = min(scores.values()), 0.0
    final: dict[str, float] = {}
    for ch, _ in sorted(chars.items(), key=lambda item: (-item[1], item[0])):
        if ch in scores:
            final[ch] = scores[ch]
        else:  # a little apart, so that no two returning characters tie
            final[ch] = f32(low + penalty)
            penalty += 0.0001
    for piece, score in sorted(pieces, key=lambda item: (-item[1], item[0])):
        if len(final) >= size:
            break
        final.setdefault(piece, score)
    return sorted(final.items(), key=lambda item: (-item[1], item[0]))


def train_pieces(text: str, vocab_size: int, *, byte_fallback: bool = False) -> list[ModelPiece]:
    """The pieces of a Unigram model trained on ``text``, in id order (the unknown first).

    SentencePiece's trainer with its defaults (the constants above), and its ``byte_fallback``.
    """
    meta = [ModelPiece(UNK_TOKEN, 0.0, "unknown")]
    if byte_fallback:
        meta += [ModelPiece(byte_piece(b), 0.0, "byte") for b in range(N_BYTES)]
    counts = sentences(text)
    if not counts:
        raise ValueError(
            "the training text has no characters to learn from (it is empty or "
            "only spaces and newlines)"
        )
    chars = required_chars(counts, CHARACTER_COVERAGE)
    check_train_vocab_size(
        vocab_size,
        len(meta) + len(chars),
        f"{len(meta)} special pieces and the {len(chars)} characters to cover",
    )
    counts = Counter(
        {"".join(ch if ch in chars else UNK_CHAR for ch in s): n for s, n in counts.items()}
    )
    pieces = seed_pieces(counts, chars.items())
    words = sentence_words(counts)
    desired = int(vocab_size * 1.1)
    while True:
        for _ in range(NUM_SUB_ITERATIONS):
            expected, _objective = e_step(pieces, words)
            pieces = m_step(pieces, expected)
        pieces = prune(pieces, words, desired, SHRINKING_FACTOR)
        if len(pieces) <= desired:
            break
    final = finalize(drop_unreachable(pieces), chars, vocab_size - len(meta))
    return meta + [ModelPiece(piece, score) for piece, score in final]
