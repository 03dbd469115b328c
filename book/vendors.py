"""The tokenizers of many vendors' models, each loaded once per process, with when it came out.

OpenAI's encodings come from tiktoken (``book.encodings``), the others from llama.cpp's
vocabulary files (``book.vocabularies``), read by the book's own tokenizers. ``MODELS`` says
for each: the vendor, the model, where the tokenizer comes from, and the month the model was
released as its source states it (``cite`` is the key in ``references.bib``). A vocabulary
shared by several models is dated by the first model released with it (XLM-R's, which
nomic-embed reuses; Llama 2's, which Phi-3 extends by 64 tokens, is listed under both).

>>> MODELS["Llama 3"].vendor, MODELS["Llama 3"].source, MODELS["Llama 3"].year
('Meta', 'llama-bpe', 2024)
>>> sorted({model.vendor for model in MODELS.values()})[:3]
['Alibaba', 'BigCode', 'Cohere']
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from book import vocabularies
from book.encodings import ENCODINGS, get_encoding


@dataclass(frozen=True)
class Model:
    """A model's tokenizer: ``source`` is a tiktoken encoding name or a ``book.vocabularies``
    name; ``released`` is ``"YYYY-MM"`` as ``cite`` gives it."""

    vendor: str
    model: str
    source: str
    released: str
    cite: str

    @property
    def year(self) -> int:
        """The year of ``released``."""
        return int(self.released[:4])


# Oldest first. Each date is the one its source gives (a paper's first arXiv version, a release
# post, a model card); GPT-2's "gpt2" encoding is r50k_base under another name.
MODELS: dict[str, Model] = {
    "BERT": Model("Google", "BERT (bge-small-en-v1.5)", "bert-bge", "2018-10", "devlin2019"),
    "GPT-2": Model("OpenAI", "GPT-2", "gpt2", "2019-02", "radford2019"),
    "XLM-R": Model(
        "Meta", "XLM-R (nomic-embed-text-v2)", "nomic-bert-moe", "2019-11", "conneau2020"
    ),
    "GPT-NeoX": Model("EleutherAI", "GPT-NeoX-20B", "gpt-neox", "2022-04", "black2022gptneox"),
    "GPT-4": Model("OpenAI", "GPT-4, GPT-3.5-turbo", "cl100k_base", "2023-03", "openai2023gpt4"),
    "Llama 2": Model("Meta", "Llama 2", "llama-spm", "2023-07", "touvron2023llama2"),
    "Falcon": Model("TII", "Falcon-7B", "falcon", "2023-11", "almazrouei2023falcon"),
    "DeepSeek": Model("DeepSeek", "DeepSeek LLM 7B", "deepseek-llm", "2024-01", "deepseek2024llm"),
    "Qwen1.5": Model("Alibaba", "Qwen1.5-7B", "qwen2", "2024-02", "qwen2024qwen15blog"),
    "StarCoder2": Model(
        "BigCode", "StarCoder2-3B", "starcoder", "2024-02", "lozhkov2024starcoder2"
    ),
    "Command-R": Model("Cohere", "Command R", "command-r", "2024-03", "cohere2024commandrdocs"),
    "Llama 3": Model("Meta", "Llama 3", "llama-bpe", "2024-04", "meta2024llama3blog"),
    "Phi-3": Model("Microsoft", "Phi-3-mini", "phi-3", "2024-04", "abdin2024phi3"),
    "GPT-4o": Model("OpenAI", "GPT-4o", "o200k_base", "2024-05", "openai2024gpt4o"),
    "Gemma 4": Model("Google", "Gemma 4", "gemma-4", "2026-04", "google2026gemma4"),
}


def _check(label: str) -> Model:
    if label not in MODELS:
        raise KeyError(f"unknown model {label!r}: the book has {', '.join(MODELS)}")
    return MODELS[label]


@functools.cache
def load(label: str):
    """The tokenizer of model ``label`` (a key of ``MODELS``), loaded once per process.

    >>> load("GPT-2") is load("GPT-2")
    True
    """
    source = _check(label).source
    if source in ENCODINGS:
        return get_encoding(source)
    return vocabularies.load(source)


def tokenizers(labels=None) -> dict:
    """{label: tokenizer} for ``labels`` (default: every model, oldest first)."""
    return {label: load(label) for label in (MODELS if labels is None else labels)}


def sizes_by_year(labels=None) -> list[dict[str, object]]:
    """One row per model, oldest first: vendor, model, released, year and ``n_vocab``."""
    rows = []
    for label in MODELS if labels is None else labels:
        model = _check(label)
        rows.append(
            {
                "tokenizer": label,
                "vendor": model.vendor,
                "model": model.model,
                "released": model.released,
                "year": model.year,
                "n_vocab": load(label).n_vocab,
            }
        )
    return sorted(rows, key=lambda row: row["released"])
