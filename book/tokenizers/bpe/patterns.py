"""The split patterns of OpenAI's tokenizers and of other vendors' (``GGUF_PRE_PATTERNS``:
Llama 3, Qwen, DeepSeek, Falcon, StarCoder, Command-R, ...), for the ``regex`` module
(chapter 06).

OpenAI's are copied character for character from ``tiktoken_ext/openai_public.py`` (tiktoken
0.14.0); a test checks them against the loaded encodings. The others are checked by the ids
they give with each model's vocabulary (``tests/test_gguf_bpe.py``). They need the
third-party ``regex`` module: ``\\p{L}`` (any letter), ``\\p{N}`` (any number) and
possessive quantifiers (``++``, ``?+``, which never give back what they matched) are not in
the standard library's ``re`` before Python 3.11, and ``re`` has no ``\\p{...}`` at all.

>>> split("Hello world's 2024!!", GPT2_PATTERN)
['Hello', ' world', "'s", ' 2024', '!!']
>>> split("Hello world's 2024!!", CL100K_PATTERN)
['Hello', ' world', "'s", ' ', '202', '4', '!!']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

import regex

# GPT-2's pattern as released in 2019 (encoder.py of openai/gpt-2):
GPT2_ORIGINAL_PATTERN = (
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""  # noqa: E501
)

# tiktoken's equivalent that "executes faster"; used by gpt2, r50k_base and p50k_base.
GPT2_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
)

# cl100k_base (GPT-4, GPT-3.5-turbo): case-insensitive contractions, numbers in groups of at
# most three digits, newlines kept apart from other whitespace.
CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""  # noqa: E501

# o200k_base (GPT-4o): words split at case changes (CamelCase -> Camel|Case), contractions
# stay attached to their word.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

PATTERNS = {
    "gpt2": GPT2_PATTERN,
    "r50k_base": GPT2_PATTERN,
    "cl100k_base": CL100K_PATTERN,
    "o200k_base": O200K_PATTERN,
}

# Other vendors' split patterns, by the name llama.cpp gives them in a GGUF file
# (``tokenizer.ggml.pre``). Each is the pre-tokenizer of the model's ``tokenizer.json`` on
# Hugging Face (the pre_tokenizer's Split regexes and Digits steps, before ByteLevel), as
# llama.cpp transcribes it in ``src/llama-vocab.cpp`` (``llm_tokenizer_bpe``; the copy in the
# llama-cpp-python 0.3.36 sdist). A str is one pattern, as OpenAI's; a tuple is several, applied
# in turn as Hugging Face's ``Sequence`` of ``Split(..., behavior="Isolated")`` steps: each cuts
# every piece of the step before into its matches and the text between them (see
# :func:`split`). ``Digits(individual_digits=True)`` is the step ``\p{N}``. The test vectors
# llama.cpp ships (the ids of each model's own tokenizer) match them id for id.

# Llama 3 (meta-llama/Meta-Llama-3-8B, tokenizer.json; the pattern of Meta's tiktoken-based
# tokenizer.py): cl100k_base's, without the possessive quantifiers.
LLAMA3_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""  # noqa: E501
# Qwen1.5 / Qwen2 (Qwen/Qwen1.5-7B, tokenizer.json): Llama 3's with single digits.
QWEN2_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""  # noqa: E501
# Qwen3.5 (Qwen/Qwen3.5-9B-Instruct, tokenizer.json): combining marks (\p{M}) stay in words.
QWEN35_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""  # noqa: E501
# DeepSeek LLM (deepseek-ai/deepseek-llm-7b-base, tokenizer.json): newlines alone; runs of
# Latin, Greek, Cyrillic, Armenian, Georgian, ... letters (an explicit list of ranges) with one
# leading space; runs of ASCII and full-width punctuation; trailing whitespace; runs of CJK
# ideographs and Hangul; runs of digits.
# (Written with escapes: the ranges must stay character for character, unnormalised.)
DEEPSEEK_LLM_LETTERS = (
    "A-Za-z\u00b5\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u01ba\u01bc-\u01bf\u01c4-\u0293\u0295-"
    "\u02af\u0370-\u0373\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c\u038e-"
    "\u03a1\u03a3-\u03f5\u03f7-\u0481\u048a-\u052f\u0531-\u0556\u10a0-\u10c5\u13a0-\u13f5"
    "\u13f8-\u13fd\u1c90-\u1cba\u1cbd-\u1cbf\u1d00-\u1d2b\u1d6b-\u1d77\u1d79-\u1d9a\u1e00"
    "-\u1f15\u1f18-\u1f1d\u1f20-\u1f45\u1f48-\u1f4d\u1f50-\u1f57\u1f59\u1f5b\u1f5d\u1f5f-"
    "\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe\u1fc2-\u1fc4\u1fc6-\u1fcc\u1fd0-\u1fd3\u1fd6-"
    "\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc\u2102\u2107\u210a-\u2113\u2115\u2119-"
    "\u211d\u2124\u2126\u2128\u212a-\u212d\u212f-\u2134\u2139\u213c-\u213f\u2145-\u2149"
    "\u214e\u2183\u2184\u2c00-\u2c7b\u2c7e-\u2ce4\u2ceb-\u2cee\u2cf2\u2cf3\ua640-\ua66d"
    "\ua680-\ua69b\ua722-\ua76f\ua771-\ua787\ua78b-\ua78e\uab70-\uabbf\ufb00-\ufb06\ufb13"
    "-\ufb17\uff21-\uff3a\uff41-\uff5a\U00010400-\U0001044f\U000104b0-\U000104d3"
    "\U000104d8-\U000104fb\U00010c80-\U00010cb2\U00010cc0-\U00010cf2\U000118a0-\U000118df"
    "\U0001e900-\U0001e943"
)
DEEPSEEK_LLM_PUNCTUATION = "!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002"
# CJK ideographs (U+4E00-U+9FA5, U+0800-U+4E00) and Hangul:
CJK_HANGUL = "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+"
DEEPSEEK_LLM_PATTERNS = (
    r"[\r\n]",
    r"\s?[" + DEEPSEEK_LLM_LETTERS + "]+",
    r"\s?[" + DEEPSEEK_LLM_PUNCTUATION + "]+",
    r"\s+$",
    CJK_HANGUL,
    r"\p{N}+",
)
# DeepSeek Coder (deepseek-ai/deepseek-coder-6.7b-base, tokenizer.json): newlines alone, letters
# and punctuation each with one leading space, CJK and Hangul, single digits.
DEEPSEEK_CODER_PATTERNS = (r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", CJK_HANGUL, r"\p{N}")
# Falcon (tiiuae/falcon-7b, tokenizer.json): runs of punctuation (Hugging Face's Punctuation:
# Unicode P and ASCII punctuation), then GPT-2's pattern, then numbers cut into threes.
FALCON_PATTERNS = (r"[\p{P}\$\+<=>\^~\|`]+", GPT2_ORIGINAL_PATTERN, r"[0-9][0-9][0-9]")
# StarCoder 2, Refact, Command-R (bigcode/starcoder2-3b, smallcloudai/Refact-1_6-base,
# CohereForAI/c4ai-command-r-v01, tokenizer.json): single digits, then GPT-2's pattern.
DIGITS_THEN_GPT2 = (r"\p{N}", GPT2_ORIGINAL_PATTERN)
# llama.cpp's "default", for a GGUF file that names no pre-tokenizer (llama.cpp warns that
# generation quality will be degraded): punctuation, GPT-2's pattern, numbers, threes.
LLAMA_CPP_DEFAULT_PATTERNS = (
    r"[\p{P}\$\+<=>\^~\|]+",
    GPT2_ORIGINAL_PATTERN,
    r"\p{N}+",
    r"[0-9][0-9][0-9]",
)

GGUF_PRE_PATTERNS: dict[str, str | tuple[str, ...]] = {
    "default": LLAMA_CPP_DEFAULT_PATTERNS,
    "gpt-2": GPT2_ORIGINAL_PATTERN,
    "mpt": GPT2_ORIGINAL_PATTERN,  # mosaicml/mpt-7b uses GPT-NeoX's tokenizer: GPT-2's split
    "llama-bpe": LLAMA3_PATTERN,
    "qwen2": QWEN2_PATTERN,
    "qwen35": QWEN35_PATTERN,
    "deepseek-llm": DEEPSEEK_LLM_PATTERNS,
    "deepseek-coder": DEEPSEEK_CODER_PATTERNS,
    "falcon": FALCON_PATTERNS,
    "starcoder": DIGITS_THEN_GPT2,
    "refact": DIGITS_THEN_GPT2,
    "command-r": DIGITS_THEN_GPT2,
}

Pattern = str | tuple[str, ...]  # one split pattern, or several applied in turn


class SplitSequence:
    """Several split patterns applied in turn, as Hugging Face's ``Sequence`` of ``Split``
    steps with ``behavior="Isolated"``: each step cuts every piece into its matches and the
    text between them. Has ``findall`` like a compiled pattern.

    >>> SplitSequence([r"\\p{N}", r"\\s+"]).findall("ab 12")
    ['ab', ' ', '1', '2']
    """

    def __init__(self, patterns):
        self.steps = [regex.compile(pattern) for pattern in patterns]

    def findall(self, text: str) -> list[str]:
        pieces = [text] if text else []
        for step in self.steps:
            cut: list[str] = []
            for piece in pieces:
                start = 0
                for match in step.finditer(piece):
                    if match.start() > start:
                        cut.append(piece[start : match.start()])
                    if match.end() > match.start():
                        cut.append(match.group())
                    start = match.end()
                if start < len(piece):
                    cut.append(piece[start:])
            pieces = cut
        return pieces


@lru_cache(maxsize=32)
def compile_pattern(pattern: Pattern) -> regex.Pattern | SplitSequence:
    """``regex.compile(pattern)`` (a :class:`SplitSequence` for a tuple), once per pattern."""
    if isinstance(pattern, tuple):
        return SplitSequence(pattern)
    return regex.compile(pattern)


def split(text: str, pattern: Pattern) -> list[str]:
    """The chunks of ``text`` under a split pattern; joined, they give back ``text``.

    Every character lands in some chunk, because each pattern ends with a catch-all
    alternative for whitespace and the others cover letters, numbers and everything else.

    >>> split("I'LL   go\\n\\n", GPT2_PATTERN)
    ['I', "'", 'LL', '  ', ' go', '\\n\\n']
    >>> split("x 1234567", FALCON_PATTERNS)
    ['x', ' ', '123', '456', '7']
    """
    return compile_pattern(pattern).findall(text)


@lru_cache(maxsize=64)
def special_token_regex(names: frozenset[str]) -> regex.Pattern:
    """A regex matching any of ``names`` literally, as one capturing group.

    Longest name first: where one special token's text begins another's, the longer wins
    (the regex engine takes the first alternative that matches at the leftmost position).

    >>> special_token_regex(frozenset({"<a>", "<a><b>"})).split("x<a><b><a>")
    ['x', '<a><b>', '', '<a>', '']
    """
    alternatives = sorted(names, key=lambda name: (-len(name), name))
    return regex.compile("(" + "|".join(regex.escape(name) for name in alternatives) + ")")


def check_special_names(names: Iterable[str]) -> list[str]:
    """``names`` as a list, refusing an empty or non-str name and a name given twice.

    >>> check_special_names(["<|endoftext|>"])
    ['<|endoftext|>']
    """
    if isinstance(names, str):
        raise TypeError(f"special_tokens must be a collection of names, not one str: {names!r}")
    names = list(names)
    for name in names:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a special token must be a non-empty str, got {name!r}")
    repeated = sorted(name for name, n in Counter(names).items() if n > 1)
    if repeated:
        raise ValueError(f"special tokens must be distinct; {repeated} given more than once")
    return names
