"""Worked examples and claims from published BPE walkthroughs, as data (chapters 04-06).

Each block is one article's toy corpus or text and what the article claims about it, copied
verbatim in the article's own notation; ``*_SOURCE`` is the article's key in
``references.bib``. The chapters put each claim next to what the book's code computes (and
cite the article); where a claim is wrong, the comment next to it says so and what the code
computes instead (``tests/test_walkthroughs.py`` asserts both). Character-level examples give their
article's end-of-word marker (``None``: the article uses none), so a reader can reproduce the
article on its own terms.

>>> sum(HUG_WORD_FREQS.values()), len(LOW_TEXT.split()), len(CAT_TEXT.split())
(36, 16, 23)
>>> len(CAT_HAT_CLAIMED_BYTES), len(CAT_HAT_CLAIMED_AFTER_MERGE_2)
(18, 14)
"""

from __future__ import annotations

# ============================ character-level BPE (chapter 04) ==============================

# --- hug / pug / pun / bun / hugs -------------------------------------------------------
# walkthrough_llms_read_text, "BPE: The Algorithm, Step by Step".
# The article spells words without an end-of-word marker.
HUG_SOURCE = "walkthrough_llms_read_text"
HUG_MARKER: str | None = None
HUG_WORD_FREQS: dict[str, int] = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
HUG_CLAIMED_ALPHABET: list[str] = ["b", "g", "h", "n", "p", "s", "u"]
# In the article's listing order. All six counts are right (without a marker). The article
# later calls ("u", "n") "still the runner-up", but here ("p", "u") = 17 beats it; it only
# becomes the top pair once merge 1 has cut ("p", "u") to 12.
HUG_CLAIMED_PAIR_COUNTS: dict[tuple[str, str], int] = {
    ("u", "g"): 20,
    ("u", "n"): 16,
    ("h", "u"): 15,
    ("p", "u"): 17,
    ("g", "s"): 5,
    ("b", "u"): 4,
}
HUG_CLAIMED_MERGES: list[tuple[tuple[str, str], int]] = [
    (("u", "g"), 20),
    (("u", "n"), 16),
    (("h", "ug"), 15),
]
HUG_CLAIMED_VOCAB: list[str] = ["b", "g", "h", "n", "p", "s", "u", "ug", "un", "hug"]
# "bug" encoded with the three merges above.
HUG_CLAIMED_ENCODINGS: dict[str, list[str]] = {"bug": ["b", "ug"]}

# --- low / lower / newest / widest -----------------------------------------------------------
# walkthrough_how_bpe_works ("Phase 1: Training the Tokenizer" and "Phase 2") and
# walkthrough_text_becomes_numbers ("Byte Pair Encoding: The Algorithm Step by Step" and
# "Hands-On: Build a BPE Tokenizer from Scratch") train on the same text.
LOW_SOURCES = ("walkthrough_how_bpe_works", "walkthrough_text_becomes_numbers")
LOW_WORD_FREQS: dict[str, int] = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
LOW_TEXT = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)

# walkthrough_how_bpe_works writes the end-of-word marker as "_", an unknown character as "[UNK]".
LOW_002_SOURCE = "walkthrough_how_bpe_works"
LOW_002_MARKER = "_"
LOW_002_NUM_MERGES = 5
LOW_002_CLAIMED_MERGES: list[tuple[tuple[str, str], int]] = [
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

# walkthrough_text_becomes_numbers writes the marker as "</w>", like this book.
LOW_004_SOURCE = "walkthrough_text_becomes_numbers"
LOW_004_MARKER = "</w>"
LOW_004_NUM_MERGES = 10
# In the article's listing order. Wrong: ("w", "e") is 8, not 2 -- the article counts
# "lower" (2) and misses the "w e" inside "newest" (6). The other 13 counts are right.
LOW_004_CLAIMED_PAIR_COUNTS: dict[tuple[str, str], int] = {
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
LOW_004_CLAIMED_MERGES: list[tuple[tuple[str, str], int]] = [
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
# walkthrough_llms_read_text, "Building BPE from Scratch in Python": no marker,
# 15 merges requested, merges 1-6 listed with their counts.
CAT_SOURCE = "walkthrough_llms_read_text"
CAT_MARKER: str | None = None
CAT_TEXT = (
    "the cat sat on the mat the cat and the bat the rat sat on the flat mat that the cat sat on"
)
CAT_NUM_MERGES = 15
CAT_CLAIMED_MERGES: list[tuple[tuple[str, str], int]] = [
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


# ============================ byte-level BPE and pre-tokenization (chapters 05-06) ==========

# --- "the cat in the hat" ---------------------------------------------------------------------
# gaurav2026, "BPE Training: Step-by-Step Walkthrough". All right.
CAT_HAT_SOURCE = "gaurav2026"
CAT_HAT_TEXT = "the cat in the hat"
CAT_HAT_CLAIMED_BYTES: list[int] = [
    116,
    104,
    101,
    32,
    99,
    97,
    116,
    32,
    105,
    110,
    32,
    116,
    104,
    101,
    32,
    104,
    97,
    116,
]
# The article's table, which it cuts off after " c" with "...".
CAT_HAT_CLAIMED_PAIR_COUNTS: dict[tuple[int, int], int] = {
    (116, 104): 2,
    (104, 101): 2,
    (101, 32): 2,
    (97, 116): 2,
    (32, 99): 1,
}
# "Winner: (116, 104) = "th" (first pair with highest count)": the book's tie-break.
CAT_HAT_CLAIMED_MERGES: list[tuple[int, int]] = [(116, 104), (256, 101)]
CAT_HAT_CLAIMED_AFTER_MERGE_1: list[int] = [
    256,
    101,
    32,
    99,
    97,
    116,
    32,
    105,
    110,
    32,
    256,
    101,
    32,
    104,
    97,
    116,
]
CAT_HAT_CLAIMED_AFTER_MERGE_2: list[int] = [
    257,
    32,
    99,
    97,
    116,
    32,
    105,
    110,
    32,
    257,
    32,
    104,
    97,
    116,
]
CAT_HAT_CLAIMED_VOCAB: dict[int, bytes] = {256: b"th", 257: b"the"}

# --- "the theme of the theatre" ---------------------------------------------------------------
# walkthrough_text_to_numbers, "Start from bytes, not characters" and the code after.
THEATRE_SOURCE = "walkthrough_text_to_numbers"
THEATRE_TEXT = "the theme of the theatre"
THEATRE_CLAIMED_FIRST_BYTES: list[int] = [116, 104, 101, 32]  # "e.g. [116, 104, 101, 32, ...]"
# The article trains on its own corpus file to vocab_size=512, then asserts this round trip.
THEATRE_VOCAB_SIZE = 512
THEATRE_ROUND_TRIP_TEXT = "the theatre theme"
# Its exercise: "compute len(encode_bpe(text)) / len(text.encode("utf-8")) at vocab_size = 300,
# 500, 1000 ... Where do the gains flatten?" That ratio is tokens per byte (lower is better);
# gaurav2026 defines the compression ratio the other way up, bytes per token (higher is better).
THEATRE_EXERCISE_VOCAB_SIZES: list[int] = [300, 500, 1000]
# "it sees a chunk like theatre as one indivisible symbol": right for " theatre" in GPT-2's,
# GPT-4's and GPT-4o's encodings (chapter 06 checks).
THEATRE_CLAIMED_ONE_TOKEN = " theatre"

# --- bytes of short texts (chapter 01) -----------------------------------------------------
# CS336's handout (cs336_2025, section 2.2) lists the UTF-8 bytes of a greeting, and its first
# lecture (cs336_2025_lecture01, "Byte-based tokenization") those of the globe emoji. All right.
CLAIMED_UTF8_BYTES: dict[str, list[int]] = {
    "hello! \u3053\u3093\u306b\u3061\u306f!": [
        *(104, 101, 108, 108, 111, 33, 32),
        *(227, 129, 147, 227, 130, 147, 227, 129, 171, 227, 129, 161, 227, 129, 175, 33),
    ],
    "\U0001f30d": [0xF0, 0x9F, 0x8C, 0x8D],
}
UTF8_BYTES_SOURCES: dict[str, str] = {
    "hello! \u3053\u3093\u306b\u3061\u306f!": "cs336_2025",
    "\U0001f30d": "cs336_2025_lecture01",
}

# --- pre-tokenization (chapter 06) ------------------------------------------------------------
# gaurav2026, "GPT-2 Pre-tokenization": its pattern (the original GPT-2 one, contractions
# grouped) and "Contractions are split sensibly ("I'll" → "I" + "'ll")". Right.
GPT2_SPLIT_SOURCE = "gaurav2026"
GPT2_SPLIT_PATTERN_CLAIMED = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
)
GPT2_SPLIT_CLAIMED: dict[str, list[str]] = {"I'll": ["I", "'ll"]}

# walkthrough_how_bpe_works, "The Regex Trick That Makes BPE Actually Work": a
# pattern for Python's standard ``re`` module, and the chunks it gives. Right.
DOG_SOURCE = "walkthrough_how_bpe_works"
DOG_RE_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\w+| ?\d+| ?[^\s\w\d]+|\s+"""
DOG_TEXT = "Dog is barking. barking."
DOG_CLAIMED_CHUNKS: list[str] = ["Dog", " is", " barking", ".", " barking", "."]
# "BPE might learn to merge g and . into a g. token": chapter 06 shows such tokens from a
# real training run.
DOG_CLAIMED_JUNK = "g."

# walkthrough_how_bpe_works, "Why Different Models Have Different Tokenizers". Wrong: both
# encodings give 3 tokens, ["def", " calculate", "():"]; neither has "def " (the space goes
# with the next word).
DEF_SOURCE = "walkthrough_how_bpe_works"
DEF_TEXT = "def calculate():"
DEF_CLAIMED_TOKEN_COUNTS: dict[str, int] = {"gpt2": 6, "cl100k_base": 3}  # "~6", "~3"
DEF_CLAIMED_TOKEN = "def "

# walkthrough_llms_read_text, "The Invisible First Step" ("something like"). Half
# wrong: GPT-4 (cl100k_base) splits "tokenizing" into " token" + "izing" as claimed, but the
# ids of the straight-apostrophe text are [40, 2846, 4037, 4954, 420]; 5765 and 2995 are
# "<quote" and " eng". (With the article's curly apostrophe, "’m" is 4344, not 2846.)
GPT4_SOURCE = "walkthrough_llms_read_text"
GPT4_TEXT = "I'm tokenizing this"
GPT4_CLAIMED_IDS: list[int] = [40, 2846, 5765, 2995, 420]
GPT4_CLAIMED_PIECES: list[str] = ["token", "izing"]  # "tokenizing" -> "token" + "izing"

# walkthrough_llms_read_text, "Byte-Level BPE: The GPT-2 Innovation": "256 base byte tokens +
# 50,000 learned merges + 1 special end-of-text token = 50,257 tokens". Right.
GPT2_SIZES_SOURCE = "walkthrough_llms_read_text"
GPT2_CLAIMED_SIZES: dict[str, int] = {"bytes": 256, "merges": 50_000, "special": 1, "total": 50_257}
