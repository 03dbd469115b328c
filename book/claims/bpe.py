"""The walkthroughs' claims about BPE and special tokens (chapters 04-07), each computed here.

Every claim recorded in :mod:`book.walkthroughs` is here; the data (texts, corpora, claimed
values) stays there, the computation lives here.

>>> len({claim.id for claim in CLAIMS}) == len(CLAIMS)
True
"""

from __future__ import annotations

import functools
import re

import regex

from book import corpora
from book import walkthroughs as w
from book.chat import LLAMA3, LLAMA31, ChatTemplate, encode_chat
from book.claims.core import Claim, show_value
from book.encodings import get_encoding
from book.tokenizers import ByteTokenizer
from book.tokenizers.bpe.char_bpe import apply_merges, initial_splits, learn_merges, pair_counts
from book.tokenizers.bpe.core import build_vocab, get_pair_counts, merge
from book.tokenizers.bpe.patterns import GPT2_ORIGINAL_PATTERN, split
from book.tokenizers.bpe.regex_bpe import RegexTokenizer

ENCODINGS = ("gpt2", "cl100k_base", "o200k_base")
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
    """The three merges of the hug/pug/pun/bun/hugs walkthrough (no marker)."""
    return char_training(w.HUG_WORD_FREQS, w.HUG_MARKER, 3)[0]


def low_merges(marker: str, num_merges: int):
    """(merges, splits) of the low/lower/newest/widest corpus with ``marker``."""
    return char_training(w.LOW_WORD_FREQS, marker, num_merges)


@functools.cache
def cat_merges():
    """All merges of the cat/sat/mat corpus (no marker), as many as it has."""
    freqs: dict[str, int] = {}
    for word in w.CAT_TEXT.split():
        freqs[word] = freqs.get(word, 0) + 1
    return char_training(freqs, w.CAT_MARKER, w.CAT_NUM_MERGES)[0], sorted(set(w.CAT_TEXT) - {" "})


def cat_tokens(text: str) -> list[str]:
    """The tokens of ``text`` under the cat corpus's merges."""
    merges, alphabet = cat_merges()
    return [token for word in text.split() for token in char_encode(word, None, merges, alphabet)]


def runner_up(counts: dict) -> tuple:
    """The second most frequent pair (ties: first in the data)."""
    ranked = sorted(counts, key=lambda pair: -counts[pair])
    return ranked[1], counts[ranked[1]]


# ---------------------------------------- byte level (chapters 05-06) -------------------


def cat_hat_merges():
    """The first two byte-level merges of "the cat in the hat" (the book's tie-break)."""
    return ByteTokenizer.train(w.CAT_HAT_TEXT, 258).merges


@functools.cache
def plays_bytes(vocab_size: int) -> ByteTokenizer:
    """Byte-level BPE (no split pattern) trained on the two training plays."""
    return ByteTokenizer.train(corpora.english("train"), vocab_size)


def junk_tokens() -> list[bytes]:
    """Learned tokens of plain byte-level BPE that glue a letter to the punctuation after it."""
    tok = plays_bytes(1024)
    learned = [tok.vocab[i] for i in range(256, tok.n_vocab)]
    return [token for token in learned if regex.search(rb"[a-z][.,;:!?]", token)]


def same_splits(pattern: str) -> bool:
    """Whether ``pattern`` splits the test texts exactly as GPT-2's original pattern does."""
    return all(regex.findall(pattern, t) == split(t, GPT2_ORIGINAL_PATTERN) for t in SPLIT_TEXTS)


def pieces(name: str, text: str) -> list[str]:
    """The tokens of ``text`` under tiktoken encoding ``name``, as text."""
    enc = get_encoding(name)
    return [enc.decode([token_id]) for token_id in enc.encode(text)]


def _show_merges(merges) -> str:
    """Merges as 'u+g (20), u+n (16)'."""
    return ", ".join(f"{a}+{b} ({count})" for (a, b), count in merges)


CLAIMS: list[Claim] = [
    # ---- hug / pug / pun / bun / hugs
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
        "first pair counts: u+g 20, u+n 16, h+u 15, p+u 17, g+s 5, b+u 4",
        w.HUG_CLAIMED_PAIR_COUNTS,
        lambda: first_counts(w.HUG_WORD_FREQS, w.HUG_MARKER),
        agrees=lambda claimed, computed: all(computed.get(p) == c for p, c in claimed.items()),
        show=lambda v: ", ".join(f"{a}+{b} {c}" for (a, b), c in v.items()),
        uses=("HUG_CLAIMED_PAIR_COUNTS",),
    ),
    Claim(
        "hug-runner-up",
        4,
        w.HUG_SOURCE,
        "u+n (16) is \u201cstill the runner-up\u201d when the second merge is chosen",
        (("u", "n"), 16),
        lambda: runner_up(first_counts(w.HUG_WORD_FREQS, w.HUG_MARKER)),
        show=lambda v: (
            f"before the first merge the runner-up is {v[0][0]}+{v[0][1]} ({v[1]}); u+n "
            "leads only after the first merge cuts p+u to 12"
        ),
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
        "hug-bug",
        4,
        w.HUG_SOURCE,
        "\u201cbug\u201d is encoded as b + ug",
        w.HUG_CLAIMED_ENCODINGS["bug"],
        lambda: char_encode("bug", w.HUG_MARKER, hug_merges(), w.HUG_CLAIMED_ALPHABET),
        show=" + ".join,
        uses=("HUG_CLAIMED_ENCODINGS",),
    ),
    # ---- low / lower / newest / widest, marker "_"
    Claim(
        "low-underscore-merges",
        4,
        w.LOW_002_SOURCE,
        "five merges (marker _): e+s, es+t, est+_, l+o, lo+w",
        w.LOW_002_CLAIMED_MERGES,
        lambda: low_merges(w.LOW_002_MARKER, w.LOW_002_NUM_MERGES)[0],
        show=_show_merges,
        uses=("LOW_002_CLAIMED_MERGES",),
    ),
    Claim(
        "low-underscore-vocab",
        4,
        w.LOW_002_SOURCE,
        "the vocabulary after five merges: l o w e r n s t i d _ es est est_ lo low",
        w.LOW_002_CLAIMED_VOCAB,
        lambda: set(
            char_vocab(
                w.LOW_WORD_FREQS,
                w.LOW_002_MARKER,
                low_merges(w.LOW_002_MARKER, w.LOW_002_NUM_MERGES)[0],
            )
        ),
        show=lambda v: f"{len(v)} tokens: " + " ".join(sorted(v, key=lambda t: (len(t), t))),
        uses=("LOW_002_CLAIMED_VOCAB",),
    ),
    Claim(
        "low-underscore-encode",
        4,
        w.LOW_002_SOURCE,
        "\u201cnewest binded lowers\u201d becomes n e w est_ [UNK] i n d e d _ low e r s _",
        w.LOW_002_CLAIMED_ENCODINGS["newest binded lowers"],
        lambda: [
            token
            for word in "newest binded lowers".split()
            for token in char_encode(
                word,
                w.LOW_002_MARKER,
                low_merges(w.LOW_002_MARKER, w.LOW_002_NUM_MERGES)[0],
                {ch for word in w.LOW_WORD_FREQS for ch in word},
            )
        ],
        show=" ".join,
        uses=("LOW_002_CLAIMED_ENCODINGS",),
    ),
    # ---- low / lower / newest / widest, marker "</w>"
    Claim(
        "low-eow-pair-counts",
        4,
        w.LOW_004_SOURCE,
        "first pair counts with </w>, among them w+e 2 (from \u201clower\u201d)",
        w.LOW_004_CLAIMED_PAIR_COUNTS,
        lambda: first_counts(w.LOW_WORD_FREQS, w.LOW_004_MARKER),
        agrees=lambda claimed, computed: all(computed.get(p) == c for p, c in claimed.items()),
        show=lambda v: (
            f"13 of the 14 counts are right; w+e is {v[('w', 'e')]} "
            "(\u201clower\u201d 2 + \u201cnewest\u201d 6)"
        ),
        uses=("LOW_004_CLAIMED_PAIR_COUNTS",),
    ),
    Claim(
        "low-eow-merges",
        4,
        w.LOW_004_SOURCE,
        "ten merges: e+s, es+t, est+</w>, l+o, lo+w, n+e, ne+w, new+est</w>, low+</w>, w+i",
        w.LOW_004_CLAIMED_MERGES,
        lambda: low_merges(w.LOW_004_MARKER, w.LOW_004_NUM_MERGES)[0],
        show=_show_merges,
        uses=("LOW_004_CLAIMED_MERGES",),
    ),
    Claim(
        "low-eow-vocab-size",
        4,
        w.LOW_004_SOURCE,
        "\u201cFinal vocabulary (17 tokens)\u201d",
        w.LOW_004_CLAIMED_VOCAB_SIZE,
        lambda: len(
            char_vocab(
                w.LOW_WORD_FREQS,
                w.LOW_004_MARKER,
                low_merges(w.LOW_004_MARKER, w.LOW_004_NUM_MERGES)[0],
            )
        ),
        show=lambda v: f"{v} tokens (10 characters, </w>, 10 merges), as its own list shows",
        uses=("LOW_004_CLAIMED_VOCAB_SIZE",),
    ),
    Claim(
        "low-eow-vocab",
        4,
        w.LOW_004_SOURCE,
        "the final vocabulary lists d e i l n o r s t w es lo ne wi est low new </w> est</w> "
        "low</w> newest</w>",
        set(w.LOW_004_CLAIMED_VOCAB),
        lambda: set(
            char_vocab(
                w.LOW_WORD_FREQS,
                w.LOW_004_MARKER,
                low_merges(w.LOW_004_MARKER, w.LOW_004_NUM_MERGES)[0],
            )
        ),
        show=lambda v: f"the same {len(v)} tokens",
        uses=("LOW_004_CLAIMED_VOCAB",),
    ),
    Claim(
        "low-eow-splits",
        4,
        w.LOW_004_SOURCE,
        "after ten merges: low</w>; low e r </w>; newest</w>; wi d est</w>",
        w.LOW_004_CLAIMED_SPLITS,
        lambda: {
            word: list(symbols)
            for word, symbols in low_merges(w.LOW_004_MARKER, w.LOW_004_NUM_MERGES)[1].items()
        },
        show=lambda v: "; ".join(" ".join(symbols) for symbols in v.values()),
        uses=("LOW_004_CLAIMED_SPLITS",),
    ),
    Claim(
        "low-eow-encode",
        4,
        w.LOW_004_SOURCE,
        "unseen words: lowest → low est</w>, newer → new e r </w>",
        w.LOW_004_CLAIMED_ENCODINGS,
        lambda: {
            word: char_encode(
                word,
                w.LOW_004_MARKER,
                low_merges(w.LOW_004_MARKER, w.LOW_004_NUM_MERGES)[0],
                {ch for word in w.LOW_WORD_FREQS for ch in word},
            )
            for word in w.LOW_004_CLAIMED_ENCODINGS
        },
        show=lambda v: "; ".join(f"{word} → {' '.join(tokens)}" for word, tokens in v.items()),
        uses=("LOW_004_CLAIMED_ENCODINGS",),
    ),
    # ---- the cat / sat / mat corpus
    Claim(
        "cat-merges",
        4,
        w.CAT_SOURCE,
        "the first six merges: a+t (12), t+h (8), th+e (7), c+at (3), s+at (3), o+n (3)",
        w.CAT_CLAIMED_MERGES,
        lambda: cat_merges()[0][: len(w.CAT_CLAIMED_MERGES)],
        show=_show_merges,
        uses=("CAT_CLAIMED_MERGES",),
    ),
    *[
        Claim(
            f"cat-encode-{'sentence' if ' ' in text else text}",
            4,
            w.CAT_SOURCE,
            f"\u201c{text}\u201d is encoded as {' + '.join(tokens)}",
            tokens,
            lambda text=text: cat_tokens(text),
            show=lambda v: " + ".join(v) + f" ({len(cat_merges()[0])} merges learned)",
            uses=("CAT_CLAIMED_ENCODINGS",),
        )
        for text, tokens in w.CAT_CLAIMED_ENCODINGS.items()
    ],
    # ---- "the cat in the hat", byte level
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
        "cat-hat-pair-counts",
        5,
        w.CAT_HAT_SOURCE,
        "pair counts: (116, 104) 2, (104, 101) 2, (101, 32) 2, (97, 116) 2, (32, 99) 1",
        w.CAT_HAT_CLAIMED_PAIR_COUNTS,
        lambda: get_pair_counts(list(w.CAT_HAT_TEXT.encode("utf-8"))),
        agrees=lambda claimed, computed: all(computed.get(p) == c for p, c in claimed.items()),
        show=lambda v: ", ".join(f"{p} {c}" for p, c in list(v.items())[:5]) + ", …",
        uses=("CAT_HAT_CLAIMED_PAIR_COUNTS",),
    ),
    Claim(
        "cat-hat-merges",
        5,
        w.CAT_HAT_SOURCE,
        "the first merge is (116, 104), \u201cfirst pair with highest count\u201d; the second "
        "is (256, 101)",
        w.CAT_HAT_CLAIMED_MERGES,
        lambda: [pair for pair, _count in cat_hat_merges()],
        uses=("CAT_HAT_CLAIMED_MERGES",),
    ),
    Claim(
        "cat-hat-after-merge-1",
        5,
        w.CAT_HAT_SOURCE,
        "after the first merge, 16 tokens: [256, 101, 32, 99, …]",
        w.CAT_HAT_CLAIMED_AFTER_MERGE_1,
        lambda: merge(list(w.CAT_HAT_TEXT.encode("utf-8")), cat_hat_merges()[0][0], 256),
        uses=("CAT_HAT_CLAIMED_AFTER_MERGE_1",),
    ),
    Claim(
        "cat-hat-after-merge-2",
        5,
        w.CAT_HAT_SOURCE,
        "after the second merge, 14 tokens: [257, 32, 99, 97, 116, …]",
        w.CAT_HAT_CLAIMED_AFTER_MERGE_2,
        lambda: ByteTokenizer(cat_hat_merges()).encode(w.CAT_HAT_TEXT),
        uses=("CAT_HAT_CLAIMED_AFTER_MERGE_2",),
    ),
    Claim(
        "cat-hat-vocab",
        5,
        w.CAT_HAT_SOURCE,
        'the vocabulary gains 256: b"th" and 257: b"the"',
        w.CAT_HAT_CLAIMED_VOCAB,
        lambda: {i: build_vocab(cat_hat_merges())[i] for i in (256, 257)},
        uses=("CAT_HAT_CLAIMED_VOCAB",),
    ),
    Claim(
        "theatre-first-bytes",
        5,
        w.THEATRE_SOURCE,
        "\u201cthe theme of the theatre\u201d starts with the bytes [116, 104, 101, 32, …]",
        w.THEATRE_CLAIMED_FIRST_BYTES,
        lambda: list(w.THEATRE_TEXT.encode("utf-8"))[:4],
        uses=("THEATRE_CLAIMED_FIRST_BYTES",),
    ),
    Claim(
        "theatre-round-trip",
        5,
        w.THEATRE_SOURCE,
        f"trained to {w.THEATRE_VOCAB_SIZE} ids, byte-level BPE gives back "
        f"\u201c{w.THEATRE_ROUND_TRIP_TEXT}\u201d exactly",
        w.THEATRE_ROUND_TRIP_TEXT,
        lambda: plays_bytes(w.THEATRE_VOCAB_SIZE).decode(
            plays_bytes(w.THEATRE_VOCAB_SIZE).encode(w.THEATRE_ROUND_TRIP_TEXT)
        ),
        show=lambda v: f"{v!r} (trained on the two plays)",
        uses=("THEATRE_ROUND_TRIP_TEXT", "THEATRE_VOCAB_SIZE"),
    ),
    # ---- pre-tokenization and tiktoken (chapter 06)
    Claim(
        "theatre-one-token",
        6,
        w.THEATRE_SOURCE,
        "a model \u201csees a chunk like theatre as one indivisible symbol\u201d",
        {name: 1 for name in ENCODINGS},
        lambda: {
            name: len(get_encoding(name).encode(w.THEATRE_CLAIMED_ONE_TOKEN)) for name in ENCODINGS
        },
        show=lambda v: "' theatre': " + ", ".join(f"{n} {c} token" for n, c in v.items()),
        uses=("THEATRE_CLAIMED_ONE_TOKEN",),
    ),
    Claim(
        "gpt2-pattern",
        6,
        w.GPT2_SPLIT_SOURCE,
        "GPT-2's split pattern is '(?:[sdmt]|ll|ve|re)| ?\\p{L}+| ?\\p{N}+| …",
        True,
        lambda: same_splits(w.GPT2_SPLIT_PATTERN_CLAIMED),
        show=lambda v: "splits like GPT-2's original pattern" if v else "splits differently",
        uses=("GPT2_SPLIT_PATTERN_CLAIMED",),
    ),
    Claim(
        "gpt2-pattern-contractions",
        6,
        w.GPT2_SPLIT_SOURCE,
        "contractions are split sensibly: \u201cI'll\u201d → \u201cI\u201d + \u201c'll\u201d",
        w.GPT2_SPLIT_CLAIMED["I'll"],
        lambda: split("I'll", GPT2_ORIGINAL_PATTERN),
        show=" + ".join,
        uses=("GPT2_SPLIT_CLAIMED",),
    ),
    Claim(
        "dog-chunks",
        6,
        w.DOG_SOURCE,
        "re.findall splits \u201cDog is barking. barking.\u201d into Dog, ' is', ' barking', '.', "
        "' barking', '.'",
        w.DOG_CLAIMED_CHUNKS,
        lambda: re.findall(w.DOG_RE_PATTERN, w.DOG_TEXT),
        uses=("DOG_CLAIMED_CHUNKS",),
    ),
    Claim(
        "dog-junk",
        6,
        w.DOG_SOURCE,
        f"without a split pattern, BPE \u201cmight learn\u201d junk like {w.DOG_CLAIMED_JUNK!r}",
        True,
        lambda: junk_tokens(),
        agrees=lambda claimed, computed: bool(computed) == claimed,
        show=lambda v: (
            f"{len(v)} of the {plays_bytes(1024).n_vocab - 256} tokens learned on "
            f"the plays glue a word's end to punctuation, e.g. {', '.join(map(repr, v[:4]))}"
        ),
        uses=("DOG_CLAIMED_JUNK",),
    ),
    *[
        Claim(
            f"def-count-{name}",
            6,
            w.DEF_SOURCE,
            f"\u201cdef calculate():\u201d is ~{claimed} tokens under {name}",
            claimed,
            lambda name=name: len(get_encoding(name).encode(w.DEF_TEXT)),
            show=lambda v, name=name: f"{v}: {pieces(name, w.DEF_TEXT)}",
            uses=("DEF_CLAIMED_TOKEN_COUNTS",),
        )
        for name, claimed in w.DEF_CLAIMED_TOKEN_COUNTS.items()
    ],
    Claim(
        "def-token",
        6,
        w.DEF_SOURCE,
        f"GPT-4's tokenizer \u201clearned {w.DEF_CLAIMED_TOKEN!r} as one token\u201d",
        True,
        lambda: w.DEF_CLAIMED_TOKEN in pieces("cl100k_base", w.DEF_TEXT),
        show=lambda v: (
            f"it splits into {pieces('cl100k_base', w.DEF_TEXT)}: the space goes with the next word"
        ),
        uses=("DEF_CLAIMED_TOKEN",),
    ),
    Claim(
        "gpt4-ids",
        6,
        w.GPT4_SOURCE,
        f"GPT-4 sees \u201cI’m tokenizing this\u201d as {w.GPT4_CLAIMED_IDS}",
        w.GPT4_CLAIMED_IDS,
        lambda: get_encoding("cl100k_base").encode(w.GPT4_TEXT),
        show=lambda v: f"{v} (with ’: {get_encoding('cl100k_base').encode('I’m tokenizing this')})",
        uses=("GPT4_CLAIMED_IDS",),
    ),
    Claim(
        "gpt4-pieces",
        6,
        w.GPT4_SOURCE,
        "GPT-4 splits \u201ctokenizing\u201d into \u201ctoken\u201d + \u201cizing\u201d",
        True,
        lambda: pieces("cl100k_base", w.GPT4_TEXT),
        agrees=lambda claimed, computed: (
            ([piece.strip() for piece in computed[-3:-1]] == w.GPT4_CLAIMED_PIECES) == claimed
        ),
        show=lambda v: " | ".join(v),
        uses=("GPT4_CLAIMED_PIECES",),
    ),
    Claim(
        "gpt2-sizes",
        6,
        w.GPT2_SIZES_SOURCE,
        "GPT-2: 256 byte tokens + 50,000 merges + 1 special token = 50,257",
        w.GPT2_CLAIMED_SIZES,
        lambda: gpt2_sizes(),
        show=lambda v: ", ".join(f"{k} {show_value(n)}" for k, n in v.items()),
        uses=("GPT2_CLAIMED_SIZES",),
    ),
    # ---- special tokens (chapter 07)
    Claim(
        "chat-markup-overhead",
        7,
        "meta2024llama31template",
        "Llama's chat format adds 20-30 tokens of markup to a 500-word system prompt (a figure "
        "repeated in introductions); Llama 3.1's template settles it",
        (20, 30),
        lambda: {
            template.name: (markup_overhead(500, template), markup_overhead(5, template))
            for template in (LLAMA3, LLAMA31)
        },
        agrees=lambda claimed, computed: claimed[0] <= computed["Llama 3.1"][0] <= claimed[1],
        show=lambda v: (
            f"Llama 3.1: {v['Llama 3.1'][0]} tokens (markers and its date lines); Llama 3: "
            f"{v['Llama 3'][0]} (markers only); around a 5-word message: "
            f"{v['Llama 3.1'][1]} and {v['Llama 3'][1]}"
        ),
    ),
]


@functools.cache
def llama3_style_tokenizer() -> RegexTokenizer:
    """cl100k_base's merges with Llama 3's four chat special tokens after its vocabulary."""
    tok = RegexTokenizer.from_tiktoken("cl100k_base")
    tok.register_special_tokens(
        {name: tok.n_vocab + i for i, name in enumerate(LLAMA3.special_tokens)}
    )
    return tok


def markup_overhead(n_words: int, template: ChatTemplate = LLAMA3) -> int:
    """Tokens that a Llama template adds to one system message of ``n_words`` words."""
    tok = llama3_style_tokenizer()
    content = " ".join(corpora.english("heldout").split()[:n_words])
    message = [{"role": "system", "content": content}]
    total = len(encode_chat(tok, message, template, add_generation_prompt=False))
    return total - len(tok.encode_ordinary(content))


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
