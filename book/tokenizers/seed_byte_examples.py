"""The seed articles' byte-level and pre-tokenization examples, as data: texts and claims.

Chapters 05 and 06 (and their exercises) put each claim next to what the book's code
computes. Claims are copied verbatim from the articles in ``shared/seeds/``; where a claim is
wrong, the comment next to it says so and what the code computes instead
(``tests/test_seed_byte_examples.py`` asserts both). The character-level examples are in
:mod:`book.tokenizers.seed_examples`.

>>> len(CAT_HAT_CLAIMED_BYTES), len(CAT_HAT_CLAIMED_AFTER_MERGE_2)
(18, 14)
"""

from __future__ import annotations

Pair = tuple[int, int]

# --- "the cat in the hat" ---------------------------------------------------------------------
# Seed 001 (001_7b790ea931d43809.txt), "BPE Training: Step-by-Step Walkthrough". All right.
CAT_HAT_SEED = "001_7b790ea931d43809.txt"
CAT_HAT_TEXT = "the cat in the hat"
CAT_HAT_CLAIMED_BYTES: list[int] = [
    116, 104, 101, 32, 99, 97, 116, 32, 105, 110, 32, 116, 104, 101, 32, 104, 97, 116,
]
# The article's table, which it cuts off after " c" with "...".
CAT_HAT_CLAIMED_PAIR_COUNTS: dict[Pair, int] = {
    (116, 104): 2,
    (104, 101): 2,
    (101, 32): 2,
    (97, 116): 2,
    (32, 99): 1,
}
# "Winner: (116, 104) = "th" (first pair with highest count)": the book's tie-break.
CAT_HAT_CLAIMED_MERGES: list[Pair] = [(116, 104), (256, 101)]
CAT_HAT_CLAIMED_AFTER_MERGE_1: list[int] = [
    256, 101, 32, 99, 97, 116, 32, 105, 110, 32, 256, 101, 32, 104, 97, 116,
]
CAT_HAT_CLAIMED_AFTER_MERGE_2: list[int] = [
    257, 32, 99, 97, 116, 32, 105, 110, 32, 257, 32, 104, 97, 116,
]
CAT_HAT_CLAIMED_VOCAB: dict[int, bytes] = {256: b"th", 257: b"the"}

# --- "the theme of the theatre" ---------------------------------------------------------------
# Seed 003 (003_6acc35729a667ba3.txt), "Start from bytes, not characters" and the code after.
THEATRE_SEED = "003_6acc35729a667ba3.txt"
THEATRE_TEXT = "the theme of the theatre"
THEATRE_CLAIMED_FIRST_BYTES: list[int] = [116, 104, 101, 32]  # "e.g. [116, 104, 101, 32, ...]"
# The article trains on its own corpus file to vocab_size=512, then asserts this round trip.
THEATRE_VOCAB_SIZE = 512
THEATRE_ROUND_TRIP_TEXT = "the theatre theme"
# Its exercise: "compute len(encode_bpe(text)) / len(text.encode("utf-8")) at vocab_size = 300,
# 500, 1000 ... Where do the gains flatten?" That ratio is tokens per byte (lower is better);
# seed 001 defines the compression ratio the other way up, bytes per token (higher is better).
THEATRE_EXERCISE_VOCAB_SIZES: list[int] = [300, 500, 1000]
# "it sees a chunk like theatre as one indivisible symbol": right for " theatre" in GPT-2's,
# GPT-4's and GPT-4o's encodings (chapter 06 checks).
THEATRE_CLAIMED_ONE_TOKEN = " theatre"

# --- bytes of single characters ---------------------------------------------------------------
# Seeds 000, 002 and 004 list the UTF-8 bytes of short texts. All right.
CLAIMED_UTF8_BYTES: dict[str, list[int]] = {
    "caf\u00e9 \U0001f680": [99, 97, 102, 195, 169, 32, 240, 159, 154, 128],  # seed 000
    "Hello": [72, 101, 108, 108, 111],  # seed 002
    "\u4e2d": [228, 184, 173],  # seed 004: 中
    "\U0001f600": [240, 159, 152, 128],  # seed 004: 😀
}

# --- pre-tokenization (chapter 06) ------------------------------------------------------------
# Seed 001, "GPT-2 Pre-tokenization": its pattern (the original GPT-2 one, contractions
# grouped) and "Contractions are split sensibly ("I'll" → "I" + "'ll")". Right.
SEED_001_GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
SEED_001_CLAIMED_SPLIT: dict[str, list[str]] = {"I'll": ["I", "'ll"]}

# Seed 002 (002_e8de4e83d525ba05.txt), "The Regex Trick That Makes BPE Actually Work": a
# pattern for Python's standard ``re`` module, and the chunks it gives. Right.
DOG_SEED = "002_e8de4e83d525ba05.txt"
DOG_RE_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\w+| ?\d+| ?[^\s\w\d]+|\s+"""
DOG_TEXT = "Dog is barking. barking."
DOG_CLAIMED_CHUNKS: list[str] = ["Dog", " is", " barking", ".", " barking", "."]
# "BPE might learn to merge g and . into a g. token": chapter 06 shows such tokens from a
# real training run.
DOG_CLAIMED_JUNK = "g."

# Seed 002, "Why Different Models Have Different Tokenizers". Wrong: both encodings give
# 3 tokens, ["def", " calculate", "():"]; neither has "def " (the space goes with the next word).
DEF_TEXT = "def calculate():"
DEF_CLAIMED_TOKEN_COUNTS: dict[str, int] = {"gpt2": 6, "cl100k_base": 3}  # "~6", "~3"
DEF_CLAIMED_TOKEN = "def "

# Seed 000 (000_b1903d7d18c58edc.txt), "The Invisible First Step" ("something like"). Half
# wrong: GPT-4 (cl100k_base) splits "tokenizing" into " token" + "izing" as claimed, but the
# ids of the straight-apostrophe text are [40, 2846, 4037, 4954, 420]; 5765 and 2995 are
# "<quote" and " eng". (With the article's curly apostrophe, "’m" is 4344, not 2846.)
GPT4_SEED = "000_b1903d7d18c58edc.txt"
GPT4_TEXT = "I'm tokenizing this"
GPT4_CLAIMED_IDS: list[int] = [40, 2846, 5765, 2995, 420]
GPT4_CLAIMED_PIECES: list[str] = ["token", "izing"]  # "tokenizing" -> "token" + "izing"

# Seed 000, "Byte-Level BPE: The GPT-2 Innovation": "256 base byte tokens + 50,000 learned
# merges + 1 special end-of-text token = 50,257 tokens". Right.
GPT2_CLAIMED_SIZES: dict[str, int] = {"bytes": 256, "merges": 50_000, "special": 1, "total": 50_257}
