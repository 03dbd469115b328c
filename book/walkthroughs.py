"""Worked examples of BPE as their primary sources print them, as data (chapters 04-06, 09).

Each block is one worked example in its source's own notation: the corpus or text, and what
the source says the algorithm gives on it. ``*_SOURCE`` is the source's key in
``references.bib``: Sennrich et al.'s Algorithm 1 (the *low, lower, newest, widest*
dictionary), the Hugging Face course's BPE section (*hug, pug, pun, bun, hugs*), CS336's
assignment handout (the same dictionary on bytes, and GPT-2's split pattern) and its first
lecture (*the cat in the hat*); for chapter 09, the ids and counts of real encodings that
Karpathy's lecture, his minbpe README and OpenAI's help article print. :mod:`book.claims.bpe`
and :mod:`book.claims.real` put each claim next to what the book's code computes;
``tests/test_char_bpe.py`` and ``tests/test_walkthroughs_bytes.py`` assert both.
Character-level examples give their source's end-of-word marker (``None``: the source uses
none), so a reader can reproduce each on its own terms. The chapters' own example
texts (the cat/sat/mat sentence, *the theme of the theatre*, ...) are here too, with no
source: they are the book's.

>>> sum(HUG_WORD_FREQS.values()), len(LOW_TEXT.split()), len(CAT_TEXT.split())
(36, 16, 23)
>>> len(CAT_HAT_CLAIMED_BYTES), len(CS336_LOW_CLAIMED_MERGES)
(18, 12)
"""

from __future__ import annotations

# ============================ character-level BPE (chapter 04) ==============================

# --- hug / pug / pun / bun / hugs -------------------------------------------------------
# The Hugging Face course, chapter 6, section "Byte-Pair Encoding tokenization". It spells
# words without an end-of-word marker and writes an unknown character as "[UNK]".
HUG_SOURCE = "hf_course_bpe"
HUG_MARKER: str | None = None
HUG_WORD_FREQS: dict[str, int] = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
HUG_CLAIMED_ALPHABET: list[str] = ["b", "g", "h", "n", "p", "s", "u"]
# The two pair counts the course states before the first merge ("15 times", "20 times").
HUG_CLAIMED_PAIR_COUNTS: dict[tuple[str, str], int] = {("h", "u"): 15, ("u", "g"): 20}
HUG_CLAIMED_MERGES: list[tuple[tuple[str, str], int]] = [
    (("u", "g"), 20),
    (("u", "n"), 16),
    (("h", "ug"), 15),
]
HUG_CLAIMED_VOCAB: list[str] = ["b", "g", "h", "n", "p", "s", "u", "ug", "un", "hug"]
# Words encoded with the three merges above; "m" and "t" are not in the alphabet.
HUG_CLAIMED_ENCODINGS: dict[str, list[str]] = {
    "bug": ["b", "ug"],
    "mug": ["[UNK]", "ug"],
    "thug": ["[UNK]", "hug"],
}

# --- low / lower / newest / widest -----------------------------------------------------------
# Sennrich et al. (2016), Algorithm 1: the dictionary {'l o w </w>': 5, 'l o w e r </w>': 2,
# 'n e w e s t </w>': 6, 'w i d e s t </w>': 3} and num_merges = 10. The marker "</w>" is a
# symbol of its own; the paper's code picks max(pairs, key=pairs.get), which on Python 3.7 or
# later (dicts keep insertion order) is the first of equal maxima: the book's rule.
LOW_SOURCE = "sennrich2016"
LOW_MARKER = "</w>"
LOW_NUM_MERGES = 10
LOW_WORD_FREQS: dict[str, int] = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
LOW_TEXT = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)

# CS336's assignment handout, section 2.4, "Example (bpe_example)", calls the same dictionary
# "a stylized example from Sennrich et al. [2016]" and trains byte-level BPE on it: no marker,
# and ties go to "the lexicographically greater pair". All of it is right.
CS336_LOW_SOURCE = "cs336_2025"
CS336_LOW_MARKER: str | None = None
CS336_LOW_CLAIMED_PAIR_COUNTS: dict[tuple[str, str], int] = {
    ("l", "o"): 7,
    ("o", "w"): 7,
    ("w", "e"): 8,
    ("e", "r"): 2,
    ("w", "i"): 3,
    ("i", "d"): 3,
    ("d", "e"): 3,
    ("e", "s"): 9,
    ("s", "t"): 9,
    ("n", "e"): 6,
    ("e", "w"): 6,
}
# "The pair ('es') and ('st') are tied, so we take the lexicographically greater pair, ('st')."
CS336_LOW_CLAIMED_FIRST_MERGE: tuple[str, str] = ("s", "t")
CS336_LOW_CLAIMED_MERGES: list[tuple[str, str]] = [
    tuple(merge.split())  # type: ignore[misc]
    for merge in [
        "s t", "e st", "o w", "l ow", "w est", "n e",
        "ne west", "w i", "wi d", "wid est", "low e", "lowe r",
    ]
]  # fmt: skip
# "If we take 6 merges ... the word newest would tokenize as [ne, west]."
CS336_LOW_CLAIMED_ENCODINGS: dict[str, list[str]] = {"newest": ["ne", "west"]}

# A table of the pair counts with the marker that has one count wrong: ("w", "e") counted in
# "lower" only (2), not also in "newest" (8 in all). Chapter 04's exercise on checking a
# table's arithmetic uses it; no source is cited for it.
LOW_MISCOUNTED_PAIR_COUNTS: dict[tuple[str, str], int] = {
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

# --- the cat / sat / mat sentence --------------------------------------------------------
# The book's own example of a corpus on which training runs out of pairs: without a marker,
# 14 merges make every word one token, the last ones from pairs that occur once.
CAT_TEXT = (
    "the cat sat on the mat the cat and the bat the rat sat on the flat mat that the cat sat on"
)
CAT_NUM_MERGES = 15


# ============================ byte-level BPE and pre-tokenization (chapters 05-06) ==========

# --- "the cat in the hat" ---------------------------------------------------------------------
# CS336, lecture 1 (lecture_01.py): train_bpe(string, num_merges=3) on this text. Its loop
# picks max(counts, key=counts.get) over an insertion-ordered dict, the book's tie-break.
CAT_HAT_SOURCE = "cs336_2025_lecture1"
CAT_HAT_TEXT = "the cat in the hat"
CAT_HAT_NUM_MERGES = 3
CAT_HAT_CLAIMED_BYTES: list[int] = [
    116, 104, 101, 32, 99, 97, 116, 32, 105, 110, 32, 116, 104, 101, 32, 104, 97, 116,
]  # fmt: skip
# The merges as the lecture's code records them: pair -> new index (256 + i).
CAT_HAT_CLAIMED_MERGES: dict[tuple[int, int], int] = {
    (116, 104): 256,
    (256, 101): 257,
    (257, 32): 258,
}
CAT_HAT_CLAIMED_VOCAB: dict[int, bytes] = {256: b"th", 257: b"the", 258: b"the "}

# --- the book's own byte-level example texts ---------------------------------------------
THEATRE_TEXT = "the theme of the theatre"
# Chapter 05's exercise measures compression at these vocabulary sizes (and more).
THEATRE_EXERCISE_VOCAB_SIZES: list[int] = [300, 500, 1000]


# ============================ chapters 01-03 (book.claims.text) ================================
# --- bytes of short texts (chapter 01) -----------------------------------------------------
# CS336's handout (cs336_2025, section 2.2) lists the UTF-8 bytes of a greeting, and its first
# lecture (cs336_2025_lecture1, "Byte-based tokenization") those of the globe emoji. All right.
CLAIMED_UTF8_BYTES: dict[str, list[int]] = {
    "hello! \u3053\u3093\u306b\u3061\u306f!": [
        *(104, 101, 108, 108, 111, 33, 32),
        *(227, 129, 147, 227, 130, 147, 227, 129, 171, 227, 129, 161, 227, 129, 175, 33),
    ],
    "\U0001f30d": [0xF0, 0x9F, 0x8C, 0x8D],
}
UTF8_BYTES_SOURCES: dict[str, str] = {
    "hello! \u3053\u3093\u306b\u3061\u306f!": "cs336_2025",
    "\U0001f30d": "cs336_2025_lecture1",
}

# --- pre-tokenization (chapter 06) ------------------------------------------------------------
# CS336's handout, section 2.4, prints GPT-2's pattern with the contractions grouped (as in
# tiktoken's pull request 234, which it names) and splits one sentence with it. All right.
GPT2_SPLIT_SOURCE = "cs336_2025"
GPT2_SPLIT_PATTERN_CLAIMED = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
)
GPT2_SPLIT_CLAIMED: dict[str, list[str]] = {
    "some text that i'll pre-tokenize": [
        "some", " text", " that", " i", "'ll", " pre", "-", "tokenize",
    ],
}  # fmt: skip

# GPT-2's paper, section 2.2, on BPE without a split: "We observed BPE including many versions
# of common words like dog since they occur in many variations such as dog. dog! dog?".
DOG_SOURCE = "radford2019"
DOG_CLAIMED_VARIANTS: list[str] = ["dog.", "dog!", "dog?"]
# A pattern for Python's standard ``re`` module that circulates as a stand-in for GPT-2's
# (\w for \p{L}), and a sentence to split with it: the book's own check of it.
DOG_RE_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\w+| ?\d+| ?[^\s\w\d]+|\s+"""
DOG_TEXT = "Dog is barking. barking."

# Sample texts for chapter 08's parity checks and the exercises of chapters 06 and 08.
DEF_TEXT = "def calculate():"
GPT4_TEXT = "I'm tokenizing this"

# ============================ chapter 09 (its claims tables) ==================================
# Token ids and counts for real encodings as three primary sources print them; chapter 09's
# claims tables (book.claims.real) put them next to what tiktoken's encodings give.
# Karpathy's minbpe README, "inference: GPT-4 comparison": cl100k_base's ids for one text.
MINBPE_SOURCE = "karpathy2024minbpe"
MINBPE_TEXT = "hello123!!!? (안녕하세요!) 😉"
MINBPE_CLAIMED_IDS: list[int] = [
    15339, 4513, 12340, 30, 320, 31495, 230, 75265, 243, 92245, 16715, 57037,
]  # fmt: skip
# Karpathy's lecture (minbpe's lecture.md, "Visual preview of tokenization"), gpt2's tokens in
# the tiktokenizer app: the ids of a sentence's first words, and how six numbers are cut.
LECTURE_SOURCE = "karpathy2024tokenizer"
LECTURE_TEXT = "Tokenization is at the"
LECTURE_CLAIMED_IDS: dict[str, list[int]] = {
    "Tokenization": [30642, 1634],
    " is": [318],
    " at": [379],
    " the": [262],
}
LECTURE_SUMS = ("127 + 677 = 804", "1275 + 6773 = 8041")
LECTURE_CLAIMED_NUMBERS: dict[str, list[str]] = {
    "127": ["127"],
    "677": [" 6", "77"],
    "804": [" 8", "04"],
    "1275": ["12", "75"],
    "6773": [" 6", "77", "3"],
    "8041": [" 8", "041"],
}
# OpenAI's help article "What are tokens and how to count them?": two of its examples, in its
# spelling (a typographic apostrophe in the quote).
TOKENS_HELP_SOURCE = "openai_tokens_help"
COMO_ESTAS = "Cómo estás"
COMO_ESTAS_CLAIMED_TOKENS = 5  # "contains 5 tokens for 10 characters"
GRETZKY_QUOTE = "You miss 100% of the shots you don\u2019t take"
GRETZKY_CLAIMED_TOKENS = 11

# GPT-2's paper, section 2.2: "The vocabulary is expanded to 50,257." The parts are read from
# GPT-2's files (256 single bytes, 50,000 merges, <|endoftext|>), as tiktoken loads them.
GPT2_SIZES_SOURCE = "radford2019"
GPT2_CLAIMED_N_VOCAB = 50_257
