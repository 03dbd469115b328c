"""Chapter 12's papers beside the book's measurements: each paper's headline as the paper
states it, and what the book's code measures of the same thing with a trigram model.

The scales differ by orders of magnitude: the papers train transformers of up to billions of
parameters on billions of tokens, the book counts trigrams on a few plays. Where a headline is
about a measure the book does not take at that scale (BLEU, a 200k vocabulary, FLOP-matched
models), the verdict is "–" and the table shows what the book measured instead; where it is
about the tokenizer itself (dropout 0 is BPE; no under-trained tokens at no cost in
compression; the fewest tokens are not the best model), the book checks it. To keep the
"Claims checked" appendix fast, everything is measured on the first 50,000 characters of the
training plays and the first 20,000 of the held-out one (chapter 12 uses them whole).

>>> [claim.source for claim in CLAIMS][:2]
['provilkov2020', 'provilkov2020']
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

from book import corpora
from book.analysis.bits_per_byte import SweepPoint, model_bits_per_byte, sweep
from book.analysis.metrics import bytes_per_token
from book.analysis.patching import byte_model, next_byte_entropies, patch_starts
from book.claims.core import Claim, show_value
from book.tokenizers import RegexTokenizer
from book.tokenizers.bpe.picky import PickyBPE
from book.tokenizers.bpe.superbpe import train_superbpe

TRAIN_CHARS, HELDOUT_CHARS = 50_000, 20_000
SIZES = (256, 512, 1024, 2048)  # the sweep, cl100k's split
VOCAB = 1024  # the vocabulary of the dropout, SuperBPE and PickyBPE comparisons


def depends(claimed: object, computed: object) -> None:
    """No single verdict: the paper's measure is not the one the book takes."""
    return None


@cache
def texts() -> tuple[str, str]:
    """The training and held-out texts of these claims."""
    return corpora.english("train")[:TRAIN_CHARS], corpora.english("heldout")[:HELDOUT_CHARS]


@cache
def points() -> tuple[SweepPoint, ...]:
    """Bytes per token and trigram bits per byte of cl100k-split BPE at each of SIZES."""
    return tuple(sweep(*texts(), SIZES, ["cl100k"]))


def fewest_tokens_best() -> dict[str, int]:
    """The vocabulary size with the fewest held-out tokens, and the one with the best model."""
    fewest = max(points(), key=lambda point: point.bytes_per_token)
    best = min(points(), key=lambda point: point.bits_per_byte)
    return {"fewest tokens": fewest.vocab_size, "lowest bits per byte": best.vocab_size}


def bpe() -> RegexTokenizer:
    """cl100k-split BPE with VOCAB tokens, from the sweep."""
    return next(p.tokenizer for p in points() if p.vocab_size == VOCAB)


def dropout_zero_is_bpe() -> bool:
    """Whether every held-out word encodes the same with dropout 0 as without."""
    words = {" " + word for word in texts()[1].split()}
    rng = random.Random(0)
    return all(bpe().encode(w, dropout=0.0, seed=rng) == bpe().encode(w) for w in words)


def dropout_bits() -> dict[str, float]:
    """Trigram bits per byte with the training text encoded by BPE and by BPE-dropout 0.1."""
    train, heldout = texts()
    dropped = bpe().encode(train, dropout=0.1, seed=random.Random(0))
    return {
        "BPE": model_bits_per_byte(bpe(), train, heldout),
        "BPE-dropout 0.1": model_bits_per_byte(bpe(), train, heldout, train_ids=dropped),
    }


def superbpe_fewer_tokens() -> float:
    """The share of held-out tokens SuperBPE (transition at 3/4 of VOCAB) saves over BPE."""
    train, heldout = texts()
    superbpe = train_superbpe(train, VOCAB, transition=VOCAB * 3 // 4)
    return 1 - bytes_per_token(bpe(), heldout) / bytes_per_token(superbpe, heldout)


def never_used(tokenizer) -> int:
    """Merged tokens that the tokenizer's own encoding of the training text never uses."""
    used = Counter(tokenizer.encode(texts()[0]))
    return sum(used[i] == 0 for i in tokenizer.vocab if i >= 256)


def picky_against_bpe() -> dict[str, tuple[float, float]]:
    """Never-used tokens and held-out bytes per token: BPE's, then PickyBPE's (threshold 0.9)."""
    picky = PickyBPE.train(texts()[0], VOCAB, threshold=0.9)
    heldout = texts()[1]
    return {
        "never used": (never_used(bpe()), never_used(picky)),
        "bytes per token": (bytes_per_token(bpe(), heldout), bytes_per_token(picky, heldout)),
    }


def no_unused_same_compression(claimed: bool, computed: dict) -> bool:
    """PickyBPE leaves no never-used token and compresses within 1% of BPE."""
    (_, unused), (plain, picky) = computed["never used"], computed["bytes per token"]
    return claimed == (unused == 0 and picky >= 0.99 * plain)


def patch_bytes() -> dict[str, float]:
    """Bytes per patch of the held-out text (a byte 4-gram model's entropies, threshold 3.5
    bits) and bytes per token of BPE."""
    train, heldout = texts()
    data = heldout.encode("utf-8")
    entropies = next_byte_entropies(byte_model(train, order=4), data)
    return {
        "bytes per patch": len(data) / len(patch_starts(entropies, 3.5)),
        "BPE bytes per token": bytes_per_token(bpe(), heldout),
    }


def shown(computed: dict) -> str:
    """Measurements as "name value; ...", each value as the tables write values."""
    return "; ".join(f"{name} {show_value(value)}" for name, value in computed.items())


def shown_pairs(computed: dict) -> str:
    """Pairs of measurements as "name BPE's → the other's; ..."."""
    return "; ".join(
        f"{name} {show_value(a)} (BPE) → {show_value(b)}" for name, (a, b) in computed.items()
    )


CLAIMS = (
    Claim(
        "dropout-zero-is-bpe",
        12,
        "provilkov2020",
        "BPE-dropout with p = 0 is the original BPE",
        True,
        dropout_zero_is_bpe,
    ),
    Claim(
        "dropout-bleu",
        12,
        "provilkov2020",
        "BPE-dropout improves translation quality by up to 2.3 BLEU over BPE (the book: a "
        "trigram model's bits per byte)",
        2.3,
        dropout_bits,
        agrees=depends,
        show=shown,
    ),
    Claim(
        "pathpiece-fewer-tokens",
        12,
        "schmidt2024pathpiece",
        "fewer tokens do not mean a better model (64 models; the book: the vocabulary size "
        "that gives the fewest tokens and the one that gives the lowest bits per byte)",
        True,
        fewest_tokens_best,
        agrees=lambda claimed, computed: (
            claimed == (computed["fewest tokens"] != computed["lowest bits per byte"])
        ),
        show=shown,
    ),
    Claim(
        "superbpe-fewer-tokens",
        12,
        "liu2025superbpe",
        "at a 200k vocabulary, SuperBPE encodes text with up to 33% fewer tokens than BPE "
        "(the book: 1,024 tokens)",
        0.33,
        superbpe_fewer_tokens,
        agrees=depends,
        show=lambda computed: f"{computed:.1%} fewer tokens",
    ),
    Claim(
        "picky-no-undertrained",
        12,
        "chizhov2024picky",
        "PickyBPE “eliminates under-trained tokens, and does not compromise text compression” "
        "(the book: tokens its training text never uses, held-out bytes per token)",
        True,
        picky_against_bpe,
        agrees=no_unused_same_compression,
        show=shown_pairs,
    ),
    Claim(
        "blt-matches-tokens",
        12,
        "pagnoni2024",
        "the Byte Latent Transformer matches tokenization-based models in a FLOP-controlled "
        "study up to 8B parameters (the book: bytes per patch against bytes per token)",
        "matches",
        patch_bytes,
        agrees=depends,
        show=shown,
    ),
)
