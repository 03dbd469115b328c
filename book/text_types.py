"""Texts of different kinds, to measure how tokenizers compress each (chapter 09).

Prose and code come from ``book.corpora``; JSON, URLs and numbers are made here, the same
every time: JSON from the parallel passage's own statistics, URLs from a written list, numbers
from a seeded random generator.

>>> kinds = text_types()
>>> list(kinds)
['prose', 'technical prose', 'Python code', 'C code', 'JSON', 'URLs', 'numbers']
>>> json_sample() == json_sample() and number_sample() == number_sample()
True
"""

from __future__ import annotations

import functools
import json
import random

from book import corpora

# Web addresses of the kind a prompt carries: documentation, repositories, searches, tracking
# parameters. Written for the book; they need not resolve.
URLS = (
    "https://docs.python.org/3/library/textwrap.html#textwrap.fill",
    "https://docs.python.org/3/reference/lexical_analysis.html#string-and-bytes-literals",
    "https://github.com/openai/tiktoken/blob/main/tiktoken/core.py",
    "https://github.com/openai/tiktoken/issues?q=is%3Aissue+special+tokens",
    "https://github.com/karpathy/minbpe/blob/master/minbpe/regex.py#L20",
    "https://en.wikipedia.org/wiki/Byte_pair_encoding",
    "https://en.wikipedia.org/wiki/UTF-8#Encoding",
    "https://en.wikipedia.org/wiki/The_Tempest",
    "https://www.unicode.org/charts/PDF/U0900.pdf",
    "https://www.rfc-editor.org/rfc/rfc3629.html",
    "https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E-Instruct",
    "https://huggingface.co/datasets/wikimedia/wikipedia/tree/main/20231101.hi",
    "https://arxiv.org/abs/2305.15425",
    "https://arxiv.org/pdf/1508.07909v5",
    "https://aclanthology.org/2023.emnlp-main.614.pdf",
    "https://pypi.org/project/tiktoken/0.14.0/#files",
    "https://www.google.com/search?q=byte+pair+encoding&hl=en&num=20",
    "https://www.youtube.com/watch?v=zduSFxRajkE&t=1320s",
    "https://shop.example.com/products/4711-blue-widget?color=blue&size=XL&utm_source=newsletter",
    "https://cdn.example.net/static/js/app.3f9a1c2e.min.js",
    "https://api.example.org/v2/users/8d2f41a0-77c3-4a4e-9b1d-5e0c2f6a9e11/orders?limit=50&offset=100",
    "https://maps.example.com/@52.5200066,13.404954,12z",
    "https://mail.example.com/mail/u/0/#inbox/FMfcgzGtwzVbKjvxHqLrXJdWmPcN",
    "ftp://ftp.example.edu/pub/corpora/shakespeare/the-tempest.txt",
    "http://localhost:8888/lab/tree/chapters/09_real_tokenizers.ipynb",
)

NUMBERS_SEED = 8  # the chapter's number, so the sample is the same in every run


@functools.cache
def json_sample() -> str:
    """A JSON document: one record per language of the parallel passage, indented by 2."""
    passages = corpora.parallel()
    records = [
        {
            "language": language.name,
            "code": language.code,
            "scripts": list(language.scripts),
            "characters": len(passages[language.name]),
            "bytes": len(passages[language.name].encode("utf-8")),
            "words": len(passages[language.name].split()),
            "spaces": " " in passages[language.name],
        }
        for language in corpora.parallel_info()
    ]
    return (
        json.dumps({"passage": "parallel.tsv", "languages": records}, indent=2, ensure_ascii=False)
        + "\n"
    )


def url_sample() -> str:
    """The written URLs, one per line."""
    return "\n".join(URLS) + "\n"


@functools.cache
def number_sample(count: int = 400, seed: int = NUMBERS_SEED) -> str:
    """``count`` numbers, ten per line: integers of 1 to 9 digits and prices with two decimals.

    >>> number_sample(4, seed=1).split()
    ['82.71', '70329669', '4522457', '37.15']
    """
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    rng = random.Random(seed)
    numbers = []
    for _ in range(count):
        if rng.random() < 0.25:
            numbers.append(f"{rng.randrange(100_000) / 100:.2f}")
        else:
            digits = rng.randint(1, 9)
            numbers.append(str(rng.randrange(10 ** (digits - 1), 10**digits)))
    lines = [" ".join(numbers[i : i + 10]) for i in range(0, count, 10)]
    return "\n".join(lines) + "\n"


def text_types() -> dict[str, str]:
    """{kind: text} for prose, technical prose, Python and C code, JSON, URLs and numbers."""
    return {
        "prose": corpora.english("all"),
        "technical prose": corpora.technical(),
        "Python code": corpora.code("python"),
        "C code": corpora.code("c"),
        "JSON": json_sample(),
        "URLs": url_sample(),
        "numbers": number_sample(),
    }
