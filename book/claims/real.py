"""Claims about real tokenizers (chapter 09), each computed with tiktoken's encodings offline.

Each record cites the source that makes the claim: the encodings' definitions in tiktoken
(``tiktoken_openai_public``), the ids and counts that Karpathy's lecture and minbpe README
print (``karpathy2024tokenizer``, ``karpathy2024minbpe``), OpenAI's help article
(``openai_tokens_help``), a study (``petrov2023``), or the announcement that made it
(``openai2024gpt4o``); the texts and claimed values are in :mod:`book.walkthroughs`.

>>> check_ids = {claim.id for claim in CLAIMS}
>>> {"minbpe-gpt4-ids", "gpt4o-fewer-tokens"} <= check_ids
True
"""

from __future__ import annotations

import functools

from book import corpora
from book import walkthroughs as w
from book.analysis.metrics import tokens_per_word
from book.claims.core import Claim, approx, approx_each
from book.encodings import get_encoding

ENCODINGS = ("gpt2", "cl100k_base", "o200k_base")
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
# The sizes the encodings' names give (r50k, cl100k, o200k: about 50, 100 and 200 thousand).
NAMED_SIZES = {"r50k_base": 50_000, "cl100k_base": 100_000, "o200k_base": 200_000}


def count(name: str, text: str) -> int:
    """Tokens of ``text`` under tiktoken encoding ``name``."""
    return len(get_encoding(name).encode(text))


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


def spelled_by(
    name: str, texts: tuple[str, ...], parts: list[str], strip: bool = True
) -> dict[str, list[int]]:
    """For each part, the ids of the first run of tokens of one of texts that spells it
    (the spaces around it aside, unless strip is False).

    >>> spelled_by("gpt2", ("127 + 677",), ["127", "677"])
    {'127': [16799], '677': [718, 3324]}
    """
    enc = get_encoding(name)
    found: dict[str, list[int]] = {}
    for text in texts:
        ids = enc.encode(text)
        for start in range(len(ids)):
            for end in range(start + 1, len(ids) + 1):
                part = enc.decode(ids[start:end])
                part = part.strip() if strip else part
                if part in parts and part not in found:
                    found[part] = ids[start:end]
    return {part: found[part] for part in parts if part in found}


def gpt2_pieces(ids: list[int]) -> list[str]:
    """gpt2's tokens for ids, each decoded on its own."""
    return [get_encoding("gpt2").decode([token_id]) for token_id in ids]


def english_rates() -> dict[str, tuple[float, float]]:
    """(tokens per word, characters per token) of the plays and the English passage, o200k."""
    enc = get_encoding("o200k_base")
    texts = {
        "the plays": corpora.english("all"),
        "the English passage": corpora.parallel()["English"],
    }
    return {
        name: (tokens_per_word(enc, text), len(text) / len(enc.encode(text)))
        for name, text in texts.items()
    }


CLAIMS: list[Claim] = [
    Claim(
        "minbpe-gpt4-ids",
        9,
        w.MINBPE_SOURCE,
        f"cl100k_base (GPT-4's encoding) gives {w.MINBPE_TEXT!r} the ids {w.MINBPE_CLAIMED_IDS}",
        w.MINBPE_CLAIMED_IDS,
        lambda: get_encoding("cl100k_base").encode(w.MINBPE_TEXT),
        show=lambda v: "the same ids" if v == w.MINBPE_CLAIMED_IDS else str(v),
        uses=("MINBPE_CLAIMED_IDS",),
    ),
    Claim(
        "vocab-sizes",
        9,
        "tiktoken_openai_public",
        "the encodings' names give their sizes: r50k_base about 50,000 tokens, cl100k_base "
        "about 100,000, o200k_base about 200,000",
        NAMED_SIZES,
        lambda: {name: vocab_counts(name) for name in NAMED_SIZES},
        agrees=lambda claimed, computed: all(
            approx(0.05)(size, computed[name]["n_vocab"]) for name, size in claimed.items()
        ),
        show=lambda v: "; ".join(
            f"{name}: {c['ordinary']:,} ordinary, {c['merges']:,} merges, n_vocab {c['n_vocab']:,}"
            for name, c in v.items()
        ),
    ),
    Claim(
        "harmony-variant",
        9,
        "tiktoken_openai_public",
        "o200k_harmony is o200k_base's split pattern and ranks with more special tokens",
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
        "english-tokens-per-word",
        9,
        "openai_tokens_help",
        "for English, 100 tokens are about 75 words (1.33 tokens per word)",
        100 / 75,
        lambda: {name: rates[0] for name, rates in english_rates().items()},
        agrees=approx_each(0.1),
        show=lambda v: (
            "depends on the text; o200k_base: "
            + ", ".join(f"{name} {tpw:.2f}" for name, tpw in v.items())
        ),
    ),
    Claim(
        "english-characters-per-token",
        9,
        "openai_tokens_help",
        "for English, 1 token is about 4 characters",
        4,
        lambda: {name: rates[1] for name, rates in english_rates().items()},
        agrees=approx_each(0.1),
        show=lambda v: "o200k_base: " + ", ".join(f"{name} {cpt:.2f}" for name, cpt in v.items()),
    ),
    Claim(
        "gpt4o-fewer-tokens",
        9,
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
    Claim(
        "premium-up-to-15",
        9,
        "petrov2023",
        "the same text translated into different languages can differ in tokenization length "
        "\u201cup to 15 times\u201d",
        15,
        lambda: largest_premium("gpt2"),
        agrees=lambda claimed, computed: computed[1] <= claimed,
        show=lambda v: f"largest on the book's passage: {v[1]:.1f}× ({v[0]}, gpt2)",
    ),
    Claim(
        "lecture-gpt2-ids",
        9,
        w.LECTURE_SOURCE,
        "gpt2's ids: \u201cTokenization\u201d is 30642 then 1634, \u201c is\u201d 318, "
        "\u201c at\u201d 379, \u201c the\u201d 262",
        w.LECTURE_CLAIMED_IDS,
        lambda: spelled_by("gpt2", (w.LECTURE_TEXT,), list(w.LECTURE_CLAIMED_IDS), strip=False),
        show=lambda v: f"the same ids, in {w.LECTURE_TEXT!r}",
        uses=("LECTURE_CLAIMED_IDS",),
    ),
    Claim(
        "lecture-gpt2-numbers",
        9,
        w.LECTURE_SOURCE,
        "gpt2 cuts the numbers of \u201c127 + 677 = 804\u201d and \u201c1275 + 6773 = "
        "8041\u201d arbitrarily: "
        + ", ".join(
            f"{n} " + " + ".join(map(repr, p)) for n, p in w.LECTURE_CLAIMED_NUMBERS.items()
        ),
        w.LECTURE_CLAIMED_NUMBERS,
        lambda: {
            number: gpt2_pieces(ids)
            for number, ids in spelled_by(
                "gpt2", w.LECTURE_SUMS, list(w.LECTURE_CLAIMED_NUMBERS)
            ).items()
        },
        show=lambda v: (
            "; ".join(
                f"{n} is " + " + ".join(map(repr, p))
                for n, p in v.items()
                if p != w.LECTURE_CLAIMED_NUMBERS[n]
            )
            + "; the other numbers as said"
        ),
        uses=("LECTURE_CLAIMED_NUMBERS",),
    ),
    Claim(
        "help-como-estas",
        9,
        w.TOKENS_HELP_SOURCE,
        f"\u201c{w.COMO_ESTAS}\u201d contains {w.COMO_ESTAS_CLAIMED_TOKENS} tokens for 10 "
        "characters",
        w.COMO_ESTAS_CLAIMED_TOKENS,
        lambda: {name: count(name, w.COMO_ESTAS) for name in ENCODINGS},
        agrees=lambda claimed, computed: (
            None if len({n == claimed for n in computed.values()}) > 1 else claimed in computed
        ),
        show=lambda v: (
            "depends on the encoding: " + ", ".join(f"{name} {n}" for name, n in v.items())
        ),
        uses=("COMO_ESTAS_CLAIMED_TOKENS",),
    ),
    Claim(
        "help-gretzky",
        9,
        w.TOKENS_HELP_SOURCE,
        f"\u201c{w.GRETZKY_QUOTE}\u201d = {w.GRETZKY_CLAIMED_TOKENS} tokens",
        w.GRETZKY_CLAIMED_TOKENS,
        lambda: {
            name: (
                count(name, w.GRETZKY_QUOTE),
                count(name, w.GRETZKY_QUOTE.replace("\u2019", "'")),
            )
            for name in ENCODINGS
        },
        agrees=lambda claimed, computed: (
            None
            if len({n == claimed for pair in computed.values() for n in pair}) > 1
            else claimed == next(iter(computed.values()))[0]
        ),
        show=lambda v: (
            "depends on the encoding and the apostrophe (typographic U+2019 or straight "
            "U+0027): " + ", ".join(f"{name} {a} or {b}" for name, (a, b) in v.items())
        ),
        uses=("GRETZKY_CLAIMED_TOKENS",),
    ),
]
