"""The lattice of a Unigram model: every way to cut a text into pieces, and the best ones.

A *node* is one piece found in the text, from character ``start`` to ``end``, with the piece's
score (its log-probability). A *path* is a run of nodes from position 0 to the end of the text,
each starting where the last one ended; its score is the sum of its nodes' scores, i.e. the
log-probability of that segmentation under the unigram model. Everything a Unigram tokenizer
does is a question about paths:

- :func:`viterbi`: the best path (encoding);
- :func:`nbest`: the ``n`` best paths;
- :func:`sample_path`: a random path, likelier paths more often (subword regularisation);
- :func:`marginals`: how often each node is used, averaged over all paths weighted by their
  probability (the E-step of training).

>>> table = piece_table({"a": (1, -2.0), "b": (2, -2.0), "ab": (3, -3.0)})
>>> lattice = build_lattice("ab", table)
>>> [(n.start, n.end, n.piece_id) for n in viterbi(lattice)]
[(0, 2, 3)]
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Mapping
from typing import NamedTuple

_FLOAT32 = struct.Struct("f")


class Node(NamedTuple):
    """One piece in the text: characters ``start`` to ``end``, its id and score."""

    start: int
    end: int
    piece_id: int
    score: float


# nodes[i] lists the nodes that start at character i, shortest first.
Lattice = list[list[Node]]
PieceTable = dict[str, "tuple[int, float] | None"]
_NOT_A_PREFIX = ()
SCORE_RESET = 100_000.0  # see viterbi
UNK_PENALTY = 10.0  # an unknown character scores this far below the rarest piece (SentencePiece)
_new_node = tuple.__new__  # Node(...) without the Python-level __new__: lattices are built often


def f32(x: float) -> float:
    """``x`` rounded to single precision, the float SentencePiece stores and adds scores in.

    >>> f32(0.1)
    0.10000000149011612
    """
    return _FLOAT32.unpack(_FLOAT32.pack(x))[0]


def piece_table(scores: Mapping[str, tuple[int, float]]) -> PieceTable:
    """Every prefix of every piece -> (id, score) if it is a piece itself, else None.

    A dictionary used as a trie: looking up longer and longer substrings can stop at the first
    one that starts no piece.

    >>> piece_table({"ab": (0, -1.0)})
    {'a': None, 'ab': (0, -1.0)}
    """
    table: PieceTable = dict.fromkeys(
        {piece[:end] for piece in scores for end in range(1, len(piece))}
    )
    table.update(scores)
    return table


def build_lattice(text: str, table: PieceTable, unk: tuple[int, float] | None = None) -> Lattice:
    """The nodes of ``text``: every piece of ``table`` (see ``piece_table``) found in it.

    With ``unk`` = (id, score), a character that no one-character piece covers gets an
    unknown node, so that a path always exists (SentencePiece does the same).

    >>> table = piece_table({"a": (0, -1.0), "bc": (1, -1.0)})
    >>> [[n[:3] for n in row] for row in build_lattice("abc", table, unk=(9, -20.0))]
    [[(0, 1, 0)], [(1, 2, 9), (1, 3, 1)], [(2, 3, 9)]]
    """
    lattice: Lattice = []
    size = len(text)
    for start in range(size):
        row = []
        for end in range(start + 1, size + 1):
            hit = table.get(text[start:end], _NOT_A_PREFIX)
            if hit is _NOT_A_PREFIX:
                break  # no piece starts with this substring: longer ones will not either
            if hit is not None:
                row.append(_new_node(Node, (start, end, hit[0], hit[1])))
        if unk is not None and not (row and row[0].end == start + 1):
            row.insert(0, _new_node(Node, (start, start + 1, unk[0], unk[1])))
        lattice.append(row)
    return lattice


def nodes_by_end(lattice: Lattice) -> list[list[Node]]:
    """The same nodes grouped by the position where they end (index 0 is always empty)."""
    ending: list[list[Node]] = [[] for _ in range(len(lattice) + 1)]
    for row in lattice:
        for node in row:
            ending[node.end].append(node)
    return ending


def viterbi(lattice: Lattice) -> list[Node]:
    """The best path: the nodes of the segmentation with the highest total score.

    Done exactly as SentencePiece's encoder (version 0.2.3) does it, so that both pick the
    same path even where two paths score (almost) the same: scores are added in single
    precision (32-bit floats), a tie keeps the path found first (the one whose last piece
    starts earliest), and once the running score passes -100,000 it is subtracted from every
    score kept so far, so that single precision keeps its resolution on long texts.

    >>> lattice = build_lattice("aa", piece_table({"a": (0, -1.0), "aa": (1, -2.0)}))
    >>> [n.piece_id for n in viterbi(lattice)]  # a tie: "aa" ends the first path found
    [1]
    """
    size = len(lattice)
    best_score: list[float | None] = [0.0] + [None] * size
    best_node: list[Node | None] = [None] * (size + 1)
    frontier = 0  # the furthest position a node has reached so far
    for start, row in enumerate(lattice):
        base = best_score[start]
        if base is None:
            continue  # no path reaches this position
        if abs(base) > SCORE_RESET:
            for i in range(start, frontier + 1):
                if best_score[i] is not None:
                    best_score[i] = f32(best_score[i] - base)
            base = 0.0
        for node in row:
            frontier = max(frontier, node.end)
            candidate = f32(node.score + base)
            if best_score[node.end] is None or candidate > best_score[node.end]:
                best_score[node.end] = candidate
                best_node[node.end] = node
    if size and best_node[size] is None:
        raise ValueError("no segmentation covers the whole text: some character has no piece")
    path, end = [], size
    while end > 0:
        node = best_node[end]
        path.append(node)
        end = node.start
    return path[::-1]


def path_score(path: list[Node]) -> float:
    """The log-probability of a segmentation: the sum of its nodes' scores.

    >>> path_score([Node(0, 1, 0, -1.5), Node(1, 2, 0, -1.5)])
    -3.0
    """
    return math.fsum(node.score for node in path)


def nbest(lattice: Lattice, n: int) -> list[tuple[list[Node], float]]:
    """The ``n`` best paths with their scores, best first (fewer if the text has fewer).

    Keeps, for each position, the ``n`` best partial paths that end there: the ``n`` best
    whole paths are among the extensions of those. Equal scores keep the order found.

    >>> table = piece_table({"a": (0, -1.0), "b": (1, -1.5), "ab": (2, -3.0)})
    >>> lattice = build_lattice("ab", table)
    >>> [([x.piece_id for x in path], score) for path, score in nbest(lattice, 3)]
    [([0, 1], -2.5), ([2], -3.0)]
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    # best[e]: up to n entries (score, node, index of the entry at node.start it extends)
    best: list[list[tuple[float, Node | None, int]]] = [[(0.0, None, -1)]]
    for ending in nodes_by_end(lattice)[1:]:
        candidates = [
            (score + node.score, node, k)
            for node in ending
            for k, (score, _, _) in enumerate(best[node.start])
        ]
        candidates.sort(key=lambda entry: -entry[0])  # stable: equal scores keep their order
        best.append(candidates[:n])
    results = []
    for score, node, k in best[len(lattice)]:
        path = []
        while node is not None:
            path.append(node)
            score_k, node, k = best[node.start][k]
        results.append((path[::-1], score))
    return results


def logaddexp(a: float, b: float) -> float:
    """log(exp(a) + exp(b)) without overflow or underflow.

    >>> round(logaddexp(math.log(0.25), math.log(0.5)), 12) == round(math.log(0.75), 12)
    True
    """
    if a < b:
        a, b = b, a
    if b == -math.inf:
        return a
    return a + math.log1p(math.exp(b - a))


def forward(lattice: Lattice, theta: float = 1.0) -> list[float]:
    """alpha[i]: the log of the summed probability of all partial paths from 0 to i.

    ``theta`` scales every score first (probabilities to the power ``theta``). Going through
    the starts in order, alpha[start] is complete before its nodes extend it.

    >>> table = piece_table({"a": (0, math.log(0.5)), "b": (1, math.log(0.5)),
    ...                      "ab": (2, math.log(0.25))})
    >>> round(math.exp(forward(build_lattice("ab", table))[-1]), 6)  # 0.5 * 0.5 + 0.25
    0.5
    """
    alpha = [0.0] + [-math.inf] * len(lattice)
    for start, row in enumerate(lattice):
        before = alpha[start]
        for node in row:
            alpha[node[1]] = logaddexp(alpha[node[1]], before + theta * node[3])
    return alpha


def sample_path(lattice: Lattice, rng: random.Random, theta: float = 1.0) -> list[Node]:
    """A random path, each drawn with probability proportional to exp(theta * its score).

    Forward filtering, backward sampling: ``forward`` sums the probability of everything
    that can come before each position; walking back from the end, each step picks the last
    node with probability (its weight x everything before it) / (everything up to here).
    """
    alpha = forward(lattice, theta)
    ending = nodes_by_end(lattice)
    path, end = [], len(lattice)
    while end > 0:
        weights = [
            math.exp(alpha[node.start] + theta * node.score - alpha[end]) for node in ending[end]
        ]
        node = rng.choices(ending[end], weights=weights)[0]
        path.append(node)
        end = node.start
    return path[::-1]


def marginals(lattice: Lattice) -> tuple[dict[int, float], float]:
    """The expected number of uses of each piece id over all paths, and log Z.

    Z sums the probabilities of all paths (the text's probability under the model); a node
    is used with probability alpha[start] * p(node) * beta[end] / Z, where beta sums what can
    come after it. These expected counts are the E-step of Unigram training.

    >>> lattice = build_lattice("ab", piece_table({"a": (0, math.log(0.5)), "b": (1, math.log(0.5)),
    ...                                "ab": (2, math.log(0.25))}))
    >>> counts, log_z = marginals(lattice)
    >>> {piece_id: round(count, 6) for piece_id, count in counts.items()}
    {0: 0.5, 2: 0.5, 1: 0.5}
    """
    alpha = forward(lattice)
    beta = [-math.inf] * len(lattice) + [0.0]
    for start in range(len(lattice) - 1, -1, -1):
        for node in lattice[start]:
            beta[start] = logaddexp(beta[start], node[3] + beta[node[1]])
    log_z = alpha[-1]
    counts: dict[int, float] = {}
    for start, row in enumerate(lattice):
        before = alpha[start] - log_z
        for _, end, piece_id, score in row:
            used = math.exp(before + score + beta[end])
            counts[piece_id] = counts.get(piece_id, 0.0) + used
    return counts, log_z
