"""The seed articles' worked BPE examples, as data: each toy corpus and what its article claims.

Chapter 04 and its exercises put each claim next to what ``book.tokenizers.char_bpe``
computes. Claims are copied verbatim, in the article's own notation: each article's
end-of-word marker is given (``None``: the article uses none), so a reader can reproduce the
article on its own terms with ``initial_splits(freqs, end_of_word=...)`` and ``learn_merges``.
Where a claim is wrong, the comment next to it says so and what the code computes instead
(``tests/test_char_bpe.py`` asserts both). The seed files live in ``shared/seeds/``.

>>> sum(HUG_WORD_FREQS.values()), len(LOW_TEXT.split()), len(CAT_TEXT.split())
(36, 16, 23)
"""

from __future__ import annotations

Pair = tuple[str, str]


# --- hug / pug / pun / bun / hugs -------------------------------------------------------
# Seed 000 (000_b1903d7d18c58edc.txt), "BPE: The Algorithm, Step by Step".
# The article spells words without an end-of-word marker.
HUG_SEED = "000_b1903d7d18c58edc.txt"
HUG_MARKER: str | None = None
HUG_WORD_FREQS: dict[str, int] = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
HUG_CLAIMED_ALPHABET: list[str] = ["b", "g", "h", "n", "p", "s", "u"]
# In the article's listing order. All six counts are right (without a marker). The article
# later calls ("u", "n") "still the runner-up", but here ("p", "u") = 17 beats it; it only
# becomes the top pair once merge 1 has cut ("p", "u") to 12.
HUG_CLAIMED_PAIR_COUNTS: dict[Pair, int] = {
    ("u", "g"): 20,
    ("u", "n"): 16,
    ("h", "u"): 15,
    ("p", "u"): 17,
    ("g", "s"): 5,
    ("b", "u"): 4,
}
HUG_CLAIMED_MERGES: list[tuple[Pair, int]] = [(("u", "g"), 20), (("u", "n"), 16), (("h", "ug"), 15)]
HUG_CLAIMED_VOCAB: list[str] = ["b", "g", "h", "n", "p", "s", "u", "ug", "un", "hug"]
# "bug" encoded with the three merges above.
HUG_CLAIMED_ENCODINGS: dict[str, list[str]] = {"bug": ["b", "ug"]}

# --- low / lower / newest / widest -----------------------------------------------------------
# Seeds 002 (002_e8de4e83d525ba05.txt, "Phase 1: Training the Tokenizer" and "Phase 2") and
# 004 (004_aa78edd21f574234.txt, "Byte Pair Encoding: The Algorithm Step by Step" and
# "Hands-On: Build a BPE Tokenizer from Scratch") train on the same text.
LOW_WORD_FREQS: dict[str, int] = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
LOW_TEXT = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)

# Seed 002 writes the end-of-word marker as "_" and an unknown character as "[UNK]".
LOW_002_SEED = "002_e8de4e83d525ba05.txt"
LOW_002_MARKER = "_"
LOW_002_NUM_MERGES = 5
LOW_002_CLAIMED_MERGES: list[tuple[Pair, int]] = [
    (("e", "s"), 9),
    (("es", "t"), 9),
    (("est", "_"), 9),
    (("l", "o"), 7),
    (("lo", "w"), 7),
]
LOW_002_CLAIMED_VOCAB: set[str] = set("l o w e r n s t i d _ es est est_ lo low".split())
# "b" never occurs in training, hence "[UNK]".
LOW_002_CLAIMED_ENCODINGS: dict[str, list[str]] = {
    "newest binded lowers": "n e w est_ [UNK] i n d e d _ low e r s _".split(),
}

# Seed 004 writes the marker as "</w>", like this book.
LOW_004_SEED = "004_aa78edd21f574234.txt"
LOW_004_MARKER = "</w>"
LOW_004_NUM_MERGES = 10
# In the article's listing order. Wrong: ("w", "e") is 8, not 2 -- the article counts
# "lower" (2) and misses the "w e" inside "newest" (6). The other 13 counts are right.
LOW_004_CLAIMED_PAIR_COUNTS: dict[Pair, int] = {
    ("e", "s"): 9,
    ("s", "t"): 9,
    ("t", "</w>"): 9,
    ("l", "o"): 7,
    ("o", "w"): 7,
    ("n", "e"): 6,
    ("e", "w"): 6,
    ("w", "e"): 2,
    ("w", "</w>"): 5,
    ("e", "r"): 2,
    ("r", "</w>"): 2,
    ("w", "i"): 3,
    ("i", "d"): 3,
    ("d", "e"): 3,
}
LOW_004_CLAIMED_MERGES: list[tuple[Pair, int]] = [
    (("e", "s"), 9),
    (("es", "t"), 9),
    (("est", "</w>"), 9),
    (("l", "o"), 7),
    (("lo", "w"), 7),
    (("n", "e"), 6),
    (("ne", "w"), 6),
    (("new", "est</w>"), 6),
    (("low", "</w>"), 5),
    (("w", "i"), 3),
]
# Wrong: the article prints "Final vocabulary (17 tokens):" above a list of 21 tokens.
# 21 is right: 10 characters + "</w>" + 10 merged tokens.
LOW_004_CLAIMED_VOCAB_SIZE = 17
LOW_004_CLAIMED_VOCAB: list[str] = (
    "d e i l n o r s t w es lo ne wi est low new </w> est</w> low</w> newest</w>".split()
)
# The training words after the ten merges ("Final tokenization").
LOW_004_CLAIMED_SPLITS: dict[str, list[str]] = {
    "low": ["low</w>"],
    "lower": ["low", "e", "r", "</w>"],
    "newest": ["newest</w>"],
    "widest": ["wi", "d", "est</w>"],
}
# The article's printed output; "lowest" and "newer" are not training words. (Its prose
# drops the marker, writing "lowest" as ["low", "est"] and "newer" as [..., "r", ""].)
LOW_004_CLAIMED_ENCODINGS: dict[str, list[str]] = {
    "low": ["low</w>"],
    "lower": ["low", "e", "r", "</w>"],
    "newest": ["newest</w>"],
    "widest": ["wi", "d", "est</w>"],
    "lowest": ["low", "est</w>"],
    "newer": ["new", "e", "r", "</w>"],
}

# --- the cat / sat / mat corpus ------------------------------------------------------------
# Seed 000 (000_b1903d7d18c58edc.txt), "Building BPE from Scratch in Python": no marker,
# 15 merges requested, merges 1-6 listed with their counts.
CAT_SEED = "000_b1903d7d18c58edc.txt"
CAT_MARKER: str | None = None
CAT_TEXT = (
    "the cat sat on the mat the cat and the bat the rat sat on the flat mat that the cat sat on"
)
CAT_NUM_MERGES = 15
CAT_CLAIMED_MERGES: list[tuple[Pair, int]] = [
    (("a", "t"), 12),
    (("t", "h"), 8),
    (("th", "e"), 7),
    (("c", "at"), 3),
    (("s", "at"), 3),
    (("o", "n"), 3),
]
# "Each common word is now a single token!" and the comments on "bat hat". Wrong for
# "bat": merge 10 is ("b", "at") (count 1), so "bat" is one token. Also, training stops
# after 14 merges, not 15: by then every word is a single token. (The article's own code,
# whose Counter.most_common breaks ties the same way, learns these same 14 merges.)
CAT_CLAIMED_ENCODINGS: dict[str, list[str]] = {
    "the cat sat on the mat": ["the", "cat", "sat", "on", "the", "mat"],
    "bat": ["b", "at"],
    "hat": ["h", "at"],
}
