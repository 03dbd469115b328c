"""The worked examples' claims about BPE (chapters 04-06), computed.

Every claim recorded in :mod:`book.walkthroughs` is here; the data (texts, corpora, claimed
values) stays there, the computation lives here. Each cites the primary source of its worked
example: Sennrich et al.'s paper, the Hugging Face course, CS336's handout and lecture, GPT-2's
paper.

>>> len({claim.id for claim in CLAIMS}) == len(CLAIMS)
True
"""

from __future__ import annotations

import functools

import regex

from book import corpora
from book import walkthroughs as w
from book.claims.core import Claim, show_value
from book.encodings import get_encoding
from book.tokenizers import ByteTokenizer
from book.tokenizers.bpe.char_bpe import apply_merges, initial_splits, learn_merges, pair_counts
from book.tokenizers.bpe.core import build_vocab
from book.tokenizers.bpe.patterns import GPT2_ORIGINAL_PATTERN, split
from book.tokenizers.bpe.train import train_merges

# Texts on which two split patterns must agree to count as the same pattern.
SPLIT_TEXTS = ["I'll go", "it's 2024  now!!\n\n", "Don't   stop", "we've 3 cats'", " x\t\ty "]


# ---------------------------------------- character level (chapter 04) -------------------


def char_training(freqs: dict[str, int], marker: str | None, num_merges: int):
    """(merges, final splits) of character-level BPE on word frequencies with a marker."""
    splits = initial_splits(freqs, end_of_word=marker)
    return learn_merges(splits, freqs, num_merges)


def first_counts(freqs: dict[str, int], marker: str | None) -> dict[tuple[str, str], int]:
    """The pair counts before the first merge."""
    return pair_counts(initial_splits(freqs, end_of_word=marker), freqs)


def char_vocab(freqs: dict[str, int], marker: str | None, merges) -> list[str]:
    """The alphabet (sorted), the marker, then each merge's new symbol."""
    alphabet = sorted({ch for word in freqs for ch in word})
    return [*alphabet, *([marker] if marker else []), *(a + b for (a, b), _ in merges)]


def char_encode(word: str, marker: str | None, merges, alphabet, unk: str = "[UNK]") -> list[str]:
    """One word's symbols after the merges; a character outside the alphabet is ``unk``."""
    symbols = tuple(ch if ch in alphabet else unk for ch in word) + ((marker,) if marker else ())
    return list(apply_merges(symbols, merges))


def hug_merges():
    """The three merges of the Hugging Face course's hug/pug/pun/bun/hugs corpus (no marker)."""
    return char_training(w.HUG_WORD_FREQS, w.HUG_MARKER, 3)[0]


def cs336_low_merges(num_merges: int) -> list[tuple[str, str]]:
    """Byte-level merges of the low/lower/newest/widest dictionary, ties to the greater pair."""
    words = {word.encode("utf-8"): n for word, n in w.LOW_WORD_FREQS.items()}
    merges = train_merges(words, num_merges, tie_break="lexicographic")
    vocab = build_vocab(merges)
    return [(vocab[a].decode("utf-8"), vocab[b].decode("utf-8")) for (a, b), _ in merges]


def cs336_low_encode(word: str, num_merges: int) -> list[str]:
    """``word``'s tokens under the first ``num_merges`` of those merges."""
    merges = train_merges(
        {word.encode("utf-8"): n for word, n in w.LOW_WORD_FREQS.items()},
        num_merges,
        tie_break="lexicographic",
    )
    tok = ByteTokenizer(merges)
    return [tok.vocab[i].decode("utf-8") for i in tok.encode(word)]


# ---------------------------------------- byte level (chapters 05-06) -------------------


def cat_hat_merges():
    """CS336 lecture 1's three merges of "the cat in the hat" (the book's tie-break)."""
    return ByteTokenizer.train(w.CAT_HAT_TEXT, 256 + w.CAT_HAT_NUM_MERGES).merges


@functools.cache
def plays_bytes(vocab_size: int) -> ByteTokenizer:
    """Byte-level BPE (no split pattern) trained on the two training plays."""
    return ByteTokenizer.train(corpora.english("train"), vocab_size)


# Chapter 06 trains this tokenizer (no split pattern, the training plays, 4,096 ids).
CH06_BYTE_LEVEL_SIZE = 4096


def word_variants(word: str) -> list[str]:
    """Learned tokens of chapter 06's byte-level tokenizer that hold ``word`` (its versions).

    >>> "lord, " in word_variants("lord")
    True
    """
    tok = plays_bytes(CH06_BYTE_LEVEL_SIZE)
    learned = [tok.vocab[i].decode("utf-8", "replace") for i in range(256, tok.n_vocab)]
    return [token for token in learned if word in token]


def same_splits(pattern: str) -> bool:
    """Whether ``pattern`` splits the test texts exactly as GPT-2's original pattern does."""
    return all(regex.findall(pattern, t) == split(t, GPT2_ORIGINAL_PATTERN) for t in SPLIT_TEXTS)


def _show_merges(merges) -> str:
    """Merges as 'u+g (20), u+n (16)'."""
    return ", ".join(f"{a}+{b} ({count})" for (a, b), count in merges)


CLAIMS: list[Claim] = [
    # ---- hug / pug / pun / bun / hugs (the Hugging Face course)
    Claim(
        "hug-alphabet",
        4,
        w.HUG_SOURCE,
        "the base vocabulary of hug/pug/pun/bun/hugs is b g h n p s u",
        w.HUG_CLAIMED_ALPHABET,
        lambda: sorted({ch for word in w.HUG_WORD_FREQS for ch in word}),
        show=" ".join,
        uses=("HUG_CLAIMED_ALPHABET",),
    ),
    Claim(
        "hug-pair-counts",
        4,
        w.HUG_SOURCE,
        "before any merge, h+u occurs 15 times and u+g, the most frequent pair, 20",
        w.HUG_CLAIMED_PAIR_COUNTS,
        lambda: first_counts(w.HUG_WORD_FREQS, w.HUG_MARKER),
        agrees=lambda claimed, computed: (
            all(computed.get(p) == c for p, c in claimed.items())
            and max(computed, key=computed.get) == ("u", "g")
        ),
        show=lambda v: ", ".join(f"{a}+{b} {c}" for (a, b), c in v.items()),
        uses=("HUG_CLAIMED_PAIR_COUNTS",),
    ),
    Claim(
        "hug-merges",
        4,
        w.HUG_SOURCE,
        "the first three merges are u+g (20), u+n (16), h+ug (15)",
        w.HUG_CLAIMED_MERGES,
        hug_merges,
        show=_show_merges,
        uses=("HUG_CLAIMED_MERGES",),
    ),
    Claim(
        "hug-vocab",
        4,
        w.HUG_SOURCE,
        "after three merges the vocabulary is b g h n p s u ug un hug",
        w.HUG_CLAIMED_VOCAB,
        lambda: char_vocab(w.HUG_WORD_FREQS, w.HUG_MARKER, hug_merges()),
        show=" ".join,
        uses=("HUG_CLAIMED_VOCAB",),
    ),
    Claim(
        "hug-encode",
        4,
        w.HUG_SOURCE,
        "bug → b ug; mug → [UNK] ug; thug → [UNK] hug",
        w.HUG_CLAIMED_ENCODINGS,
        lambda: {
            word: char_encode(word, w.HUG_MARKER, hug_merges(), w.HUG_CLAIMED_ALPHABET)
            for word in w.HUG_CLAIMED_ENCODINGS
        },
        show=lambda v: "; ".join(f"{word} → {' '.join(tokens)}" for word, tokens in v.items()),
        uses=("HUG_CLAIMED_ENCODINGS",),
    ),
    # ---- low / lower / newest / widest on bytes (CS336's handout)
    Claim(
        "cs336-low-pair-counts",
        4,
        w.CS336_LOW_SOURCE,
        "before any merge: lo 7, ow 7, we 8, er 2, wi 3, id 3, de 3, es 9, st 9, ne 6, ew 6",
        w.CS336_LOW_CLAIMED_PAIR_COUNTS,
        lambda: first_counts(w.LOW_WORD_FREQS, w.CS336_LOW_MARKER),
        show=lambda v: ", ".join(f"{a}{b} {c}" for (a, b), c in v.items()),
        uses=("CS336_LOW_CLAIMED_PAIR_COUNTS",),
    ),
    Claim(
        "cs336-low-tie",
        4,
        w.CS336_LOW_SOURCE,
        "es and st tie at 9; the lexicographically greater pair, st, is merged first",
        w.CS336_LOW_CLAIMED_FIRST_MERGE,
        lambda: cs336_low_merges(1)[0],
        show=lambda v: f"{v[0]}+{v[1]}",
        uses=("CS336_LOW_CLAIMED_FIRST_MERGE",),
    ),
    Claim(
        "cs336-low-merges",
        4,
        w.CS336_LOW_SOURCE,
        "the twelve merges are s t, e st, o w, l ow, w est, n e, ne west, w i, wi d, wid est, "
        "low e, lowe r",
        w.CS336_LOW_CLAIMED_MERGES,
        lambda: cs336_low_merges(100),
        show=lambda v: f"{len(v)} merges: " + ", ".join(" ".join(pair) for pair in v),
        uses=("CS336_LOW_CLAIMED_MERGES",),
    ),
    Claim(
        "cs336-low-newest",
        4,
        w.CS336_LOW_SOURCE,
        "with the first six merges, newest is tokenized as ne west",
        w.CS336_LOW_CLAIMED_ENCODINGS,
        lambda: {word: cs336_low_encode(word, 6) for word in w.CS336_LOW_CLAIMED_ENCODINGS},
        show=lambda v: "; ".join(f"{word} → {' '.join(tokens)}" for word, tokens in v.items()),
        uses=("CS336_LOW_CLAIMED_ENCODINGS",),
    ),
    # ---- "the cat in the hat", byte level (CS336's lecture 1)
    Claim(
        "cat-hat-bytes",
        5,
        w.CAT_HAT_SOURCE,
        "\u201cthe cat in the hat\u201d is the 18 bytes [116, 104, 101, 32, …, 104, 97, 116]",
        w.CAT_HAT_CLAIMED_BYTES,
        lambda: list(w.CAT_HAT_TEXT.encode("utf-8")),
        uses=("CAT_HAT_CLAIMED_BYTES",),
    ),
    Claim(
        "cat-hat-merges",
        5,
        w.CAT_HAT_SOURCE,
        "three merges: (116, 104) → 256, (256, 101) → 257, (257, 32) → 258",
        w.CAT_HAT_CLAIMED_MERGES,
        lambda: {pair: 256 + rank for rank, (pair, _count) in enumerate(cat_hat_merges())},
        uses=("CAT_HAT_CLAIMED_MERGES",),
    ),
    Claim(
        "cat-hat-vocab",
        5,
        w.CAT_HAT_SOURCE,
        'the vocabulary gains 256: b"th", 257: b"the" and 258: b"the "',
        w.CAT_HAT_CLAIMED_VOCAB,
        lambda: {i: build_vocab(cat_hat_merges())[i] for i in (256, 257, 258)},
        uses=("CAT_HAT_CLAIMED_VOCAB",),
    ),
    # ---- pre-tokenization and tiktoken (chapters 06 and 08)
    Claim(
        "gpt2-pattern",
        6,
        w.GPT2_SPLIT_SOURCE,
        "GPT-2's split pattern is '(?:[sdmt]|ll|ve|re)| ?\\p{L}+| ?\\p{N}+| …",
        True,
        lambda: same_splits(w.GPT2_SPLIT_PATTERN_CLAIMED),
        show=lambda v: "splits like GPT-2's own pattern" if v else "splits differently",
        uses=("GPT2_SPLIT_PATTERN_CLAIMED",),
    ),
    Claim(
        "gpt2-pattern-split",
        6,
        w.GPT2_SPLIT_SOURCE,
        "\u201csome text that i'll pre-tokenize\u201d splits into some, ' text', ' that', ' i', "
        "\"'ll\", ' pre', -, tokenize",
        w.GPT2_SPLIT_CLAIMED,
        lambda: {text: split(text, GPT2_ORIGINAL_PATTERN) for text in w.GPT2_SPLIT_CLAIMED},
        show=lambda v: " | ".join(chunk for chunks in v.values() for chunk in chunks),
        uses=("GPT2_SPLIT_CLAIMED",),
    ),
    Claim(
        "gpt2-word-variants",
        6,
        w.DOG_SOURCE,
        "BPE without a split includes \u201cmany versions of common words like dog\u201d "
        "(dog. dog! dog?)",
        True,
        lambda: word_variants("lord"),
        agrees=lambda claimed, computed: (len(computed) > 1) == claimed,
        show=lambda v: (
            f"{len(v)} of the {CH06_BYTE_LEVEL_SIZE - 256:,} tokens learned on the plays hold "
            f"lord, e.g. {', '.join(map(repr, v[:4]))}"
        ),
        uses=("DOG_CLAIMED_VARIANTS",),
    ),
    Claim(
        "gpt2-sizes",
        8,
        w.GPT2_SIZES_SOURCE,
        "GPT-2's vocabulary has 50,257 tokens",
        w.GPT2_CLAIMED_N_VOCAB,
        lambda: gpt2_sizes()["total"],
        show=lambda v: ", ".join(f"{k} {show_value(n)}" for k, n in gpt2_sizes().items()),
        uses=("GPT2_CLAIMED_N_VOCAB",),
    ),
]


def gpt2_sizes() -> dict[str, int]:
    """GPT-2's single-byte tokens, merges, special tokens and n_vocab, read from tiktoken."""
    enc = get_encoding("gpt2")
    ordinary = enc.token_byte_values()
    single = sum(len(token) == 1 for token in ordinary)
    return {
        "bytes": single,
        "merges": len(ordinary) - single,
        "special": len(enc.special_tokens_set),
        "total": enc.n_vocab,
    }
