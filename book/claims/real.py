"""Claims about real tokenizers (chapter 08), each computed with tiktoken's encodings offline.

Most are figures that circulate in introductions to tokenization (vocabulary sizes, example
token counts, language premiums); each record names what settles it: tiktoken's encodings
(``tiktoken2022``), a study (``petrov2023``), or the announcement that made it
(``openai2024gpt4o``).

>>> check_ids = {claim.id for claim in CLAIMS}
>>> {"o200k-hello-ids", "gpt4o-fewer-tokens"} <= check_ids
True
"""

from __future__ import annotations

import functools

import tiktoken

from book import corpora
from book.analysis.metrics import tokens_per_word
from book.claims.core import Claim, approx, between
from book.encodings import get_encoding

TIKTOKEN = "tiktoken2022"  # what settles a claim about an encoding: the encoding itself
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"

# Example texts and the o200k_base token counts printed for them in introductions.
O200K_COUNTS = {
    "The capital of France is Paris.": 7,
    "def fibonacci(n):\n    if n <= 1:\n        return n": 14,
    "E = mc²": 4,
    "こんにちは世界": 2,
    "مرحبا بالعالم": 4,
    "Hello 😀 World 🌍": 5,
}
O200K_IDS = {
    "Hello, world! How are you?": [13225, 11, 2375, 0, 3253, 553, 481, 30],
    "The capital of France is Paris.": [976, 9029, 328, 10128, 382, 12650, 13],
    "Hello": [13225],
}
# A slice of GPT-2's vocabulary as it is sometimes listed.
GPT2_SLICE = {
    0: "!",
    1: '"',
    262: "the",
    263: "in",
    464: "of",
    15496: "Hello",
    50256: "<|endoftext|>",
}
# OpenAI's announcement of GPT-4o: how many times fewer tokens its tokenizer needs than
# GPT-4's, language by language (six of its twenty languages; on OpenAI's own sample texts).
GPT4O_FEWER_TOKENS = {
    "Hindi": 2.9,
    "Russian": 1.7,
    "Korean": 1.7,
    "Chinese": 1.4,
    "Japanese": 1.4,
    "English": 1.1,
}


def count(name: str, text: str) -> int:
    """Tokens of ``text`` under tiktoken encoding ``name``."""
    return len(get_encoding(name).encode(text))


def pieces(name: str, text: str) -> list[str]:
    """The tokens of ``text`` under ``name``, each decoded on its own."""
    enc = get_encoding(name)
    return [enc.decode([token_id]) for token_id in enc.encode(text)]


def vocab_counts(name: str) -> dict[str, int]:
    """Ordinary tokens, merges, special tokens and n_vocab of encoding ``name``.

    >>> vocab_counts("gpt2")
    {'ordinary': 50256, 'merges': 50000, 'special': 1, 'n_vocab': 50257}
    """
    enc = get_encoding(name)
    ordinary = len(enc.token_byte_values())
    return {
        "ordinary": ordinary,
        "merges": ordinary - 256,
        "special": len(enc.special_tokens_set),
        "n_vocab": enc.n_vocab,
    }


@functools.cache
def premiums(name: str) -> dict[str, float]:
    """{language: tokens of its parallel passage / tokens of the English one} under ``name``."""
    counts = {lang: count(name, text) for lang, text in corpora.parallel().items()}
    return {lang: n / counts["English"] for lang, n in counts.items()}


def largest_premium(name: str) -> tuple[str, float]:
    """The language with the largest premium under ``name``, and that premium."""
    language = max(premiums(name), key=premiums(name).get)
    return language, premiums(name)[language]


def _sizes_agree(claimed: dict[str, tuple[int, str, bool]], computed: dict[str, dict]) -> bool:
    """Each claimed size equals the named count exactly, or within 5% when it says "~"."""
    return all(
        computed[name][field] == value if exact else approx(0.05)(value, computed[name][field])
        for name, (value, field, exact) in claimed.items()
    )


def _sizes_claim(claim_id: str, says: str, claimed: dict) -> Claim:
    """A claim about vocabulary sizes: {encoding: (value, which count, exact?)}."""
    return Claim(
        claim_id,
        8,
        TIKTOKEN,
        says,
        claimed,
        lambda: {name: vocab_counts(name) for name in claimed},
        agrees=_sizes_agree,
        show=lambda v: "; ".join(
            f"{name}: {c['ordinary']:,} ordinary, {c['merges']:,} merges, n_vocab {c['n_vocab']:,}"
            for name, c in v.items()
        ),
    )


CLAIMS: list[Claim] = [
    *[
        Claim(
            f"o200k-count-{i}",
            8,
            TIKTOKEN,
            f"{text!r} is {n} tokens under o200k_base (an example count printed in introductions)",
            n,
            lambda text=text: count("o200k_base", text),
        )
        for i, (text, n) in enumerate(O200K_COUNTS.items())
    ],
    Claim(
        "o200k-hello-ids",
        8,
        TIKTOKEN,
        "o200k_base ids as introductions print them: 'Hello, world! How are you?' → [13225, "
        "11, 2375, 0, 3253, 553, 481, 30]; 'The capital of France is Paris.' → [976, 9029, …]; "
        "'Hello' → 13225",
        O200K_IDS,
        lambda: {text: get_encoding("o200k_base").encode(text) for text in O200K_IDS},
        show=lambda v: "the same ids",
    ),
    Claim(
        "family-emoji-tokens",
        8,
        TIKTOKEN,
        "the family emoji (four emoji joined by zero-width joiners) becomes 5 or more tokens, "
        "a common warning",
        5,
        lambda: count("o200k_base", FAMILY),
        agrees=lambda claimed, computed: computed >= claimed,
        show=lambda v: f"{v} tokens under o200k_base ({count('gpt2', FAMILY)} under gpt2)",
    ),
    Claim(
        "gpt2-vocab-slice",
        8,
        TIKTOKEN,
        "GPT-2's ids as sometimes listed: 0 !, 1 \", 262 the, 263 in, 464 of, 15496 Hello, "
        "50256 <|endoftext|>",
        GPT2_SLICE,
        lambda: {i: get_encoding("gpt2").decode([i]) for i in GPT2_SLICE},
        show=lambda v: (
            "; ".join(f"{i} is {token!r}" for i, token in v.items() if token != GPT2_SLICE[i])
            + f"; the other {sum(token == GPT2_SLICE[i] for i, token in v.items())} are right"
        ),
    ),
    _sizes_claim(
        "vocab-sizes",
        "the vocabulary sizes usually quoted: GPT-2 50,257, GPT-4 100,256, GPT-4o about "
        "200,000 (and r50k_base about 50,000)",
        {
            "gpt2": (50_257, "n_vocab", True),
            "r50k_base": (50_000, "ordinary", False),
            "cl100k_base": (100_256, "ordinary", True),
            "o200k_base": (200_000, "n_vocab", False),
        },
    ),
    _sizes_claim(
        "vocab-merges",
        "the merge counts usually quoted: 50,000 for GPT-2, about 100,000 for GPT-4, about "
        "200,000 for GPT-4o",
        {
            "gpt2": (50_000, "merges", True),
            "cl100k_base": (100_000, "merges", False),
            "o200k_base": (200_000, "merges", False),
        },
    ),
    Claim(
        "harmony-variant",
        8,
        TIKTOKEN,
        "o200k_harmony is o200k_base with additional special tokens",
        True,
        lambda: (
            get_encoding("o200k_harmony").token_byte_values()
            == get_encoding("o200k_base").token_byte_values(),
            vocab_counts("o200k_harmony"),
        ),
        agrees=lambda claimed, computed: (
            computed[0] == claimed
            and computed[1]["special"] > vocab_counts("o200k_base")["special"]
        ),
        show=lambda v: (
            f"same ordinary tokens; {v[1]['special']:,} special tokens (o200k_base: "
            f"{vocab_counts('o200k_base')['special']}), n_vocab {v[1]['n_vocab']:,}"
        ),
    ),
    Claim(
        "gpt5-harmony",
        8,
        TIKTOKEN,
        "GPT-5 uses the o200k_harmony encoding (said in introductions); tiktoken's table of "
        "models settles it",
        "o200k_harmony",
        lambda: tiktoken.encoding_name_for_model("gpt-5"),
        show=lambda v: (
            f"tiktoken {tiktoken.__version__} maps gpt-5 to {v} and gpt-oss to "
            f"{tiktoken.encoding_name_for_model('gpt-oss-120b')}"
        ),
    ),
    Claim(
        "gpt2-380-381",
        8,
        TIKTOKEN,
        "under GPT-2 a number can be one token and the next one two: \u201c380\u201d one "
        "token, \u201c381\u201d \u201c38\u201d + \u201c1\u201d",
        ([" 380"], [" 38", "1"]),
        lambda: (pieces("gpt2", " 380"), pieces("gpt2", " 381")),
        show=lambda v: f"gpt2, after a space: {v[0]} and {v[1]}",
    ),
    Claim(
        "123456-split",
        8,
        TIKTOKEN,
        "\u201c123456\u201d might be tokenized as 123 + 456 (or 12 + 345 + 6, or six digits)",
        ["123", "456"],
        lambda: pieces("o200k_base", "123456"),
        agrees=lambda claimed, computed: (
            computed == claimed
            and all(pieces(name, "123456") == claimed for name in ("gpt2", "cl100k_base"))
        ),
        show=lambda v: " + ".join(v) + " under gpt2, cl100k_base and o200k_base",
    ),
    Claim(
        "hello-world-space",
        8,
        TIKTOKEN,
        "\u201cHello world\u201d is Hello + \u2018 world\u2019: the space goes with the next word",
        ["Hello", " world"],
        lambda: pieces("o200k_base", "Hello world"),
        show=lambda v: " + ".join(map(repr, v)),
    ),
    Claim(
        "helloworld-split",
        8,
        TIKTOKEN,
        "\u201cHelloworld\u201d might become Hello + world or Hellow + orld",
        [["Hello", "world"], ["Hellow", "orld"]],
        lambda: {
            name: pieces(name, "Helloworld") for name in ("gpt2", "cl100k_base", "o200k_base")
        },
        agrees=lambda claimed, computed: any(split in claimed for split in computed.values()),
        show=lambda v: "; ".join(f"{name}: {' + '.join(split)}" for name, split in v.items()),
    ),
    Claim(
        "english-tokens-per-word",
        8,
        "openai_tokens_help",
        "English runs at about 1.2-1.4 tokens per word, a range quoted around OpenAI's rule "
        "of thumb of 100 tokens for 75 words (1.33 per word)",
        (1.2, 1.4),
        lambda: {
            "the plays": tokens_per_word(get_encoding("o200k_base"), corpora.english("all")),
            "the English passage": tokens_per_word(
                get_encoding("o200k_base"), corpora.parallel()["English"]
            ),
        },
        agrees=lambda claimed, computed: all(
            between(claimed, round(v, 2)) for v in computed.values()
        ),
        show=lambda v: "o200k_base: " + ", ".join(f"{name} {tpw:.2f}" for name, tpw in v.items()),
    ),
    Claim(
        "premium-up-to-15",
        8,
        "petrov2023",
        "the same text translated into different languages can differ in tokenization length "
        "\u201cup to 15 times\u201d",
        15,
        lambda: largest_premium("gpt2"),
        agrees=lambda claimed, computed: computed[1] <= claimed,
        show=lambda v: f"largest on the book's passage: {v[1]:.1f}× ({v[0]}, gpt2)",
    ),
    Claim(
        "premium-up-to-5",
        8,
        "petrov2023",
        "some languages need up to 5 times as many tokens as English (a figure that "
        "circulates; premiums on parallel text, as Petrov et al. measure them, settle it)",
        5,
        lambda: largest_premium("cl100k_base"),
        agrees=lambda claimed, computed: computed[1] <= claimed,
        show=lambda v: (
            f"cl100k_base: up to {v[1]:.1f}× ({v[0]}); o200k_base: up to "
            f"{largest_premium('o200k_base')[1]:.1f}× ({largest_premium('o200k_base')[0]})"
        ),
    ),
    Claim(
        "premium-hindi-japanese",
        8,
        "petrov2023",
        "an English-trained tokenizer needs 3-4 times as many tokens for Hindi or Japanese (a "
        "figure that circulates; premiums on parallel text settle it)",
        (3, 4),
        lambda: {lang: premiums("gpt2")[lang] for lang in ("Hindi", "Japanese")},
        agrees=lambda claimed, computed: all(between(claimed, v) for v in computed.values()),
        show=lambda v: "gpt2: " + ", ".join(f"{lang} {p:.1f}×" for lang, p in v.items()),
    ),
    Claim(
        "gpt4o-fewer-tokens",
        8,
        "openai2024gpt4o",
        "GPT-4o's tokenizer needs fewer tokens than GPT-4's: "
        + ", ".join(f"{lang} {ratio}×" for lang, ratio in GPT4O_FEWER_TOKENS.items())
        + " fewer (on OpenAI's own texts)",
        GPT4O_FEWER_TOKENS,
        lambda: {
            lang: count("cl100k_base", corpora.parallel()[lang])
            / count("o200k_base", corpora.parallel()[lang])
            for lang in GPT4O_FEWER_TOKENS
        },
        agrees=lambda claimed, computed: all(
            approx(0.1)(ratio, computed[lang]) for lang, ratio in claimed.items()
        ),
        show=lambda v: (
            "the book's passage: " + ", ".join(f"{lang} {ratio:.2f}×" for lang, ratio in v.items())
        ),
    ),
]
