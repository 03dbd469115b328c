"""book.vendors: each model's tokenizer, loaded once, and the date its source gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from book import vendors, vocabularies
from book.encodings import ENCODINGS

BIB = (Path(__file__).parents[1] / "references.bib").read_text(encoding="utf-8")


def test_each_model_has_a_source_a_month_and_a_citation():
    keys = set(re.findall(r"^@\w+\{([^,]+),", BIB, flags=re.M))
    for label, model in vendors.MODELS.items():
        assert model.source in ENCODINGS or model.source in vocabularies.VOCABULARIES, label
        assert re.fullmatch(r"(19|20)\d\d-(0[1-9]|1[0-2])", model.released), label
        assert model.cite in keys, label
    releases = [model.released for model in vendors.MODELS.values()]
    assert releases == sorted(releases)  # listed oldest first


def test_a_tokenizer_is_loaded_once():
    assert vendors.load("Llama 2") is vendors.load("Llama 2")
    assert list(vendors.tokenizers(["Phi-3", "GPT-2"])) == ["Phi-3", "GPT-2"]


def test_an_unknown_model_is_refused_with_the_known_ones():
    with pytest.raises(KeyError, match="unknown model 'Llama 7'.*Llama 3"):
        vendors.load("Llama 7")


def test_sizes_by_year_give_each_vocabularys_n_vocab():
    rows = vendors.sizes_by_year(["Phi-3", "BERT", "GPT-2", "Llama 2"])
    assert [(r["tokenizer"], r["year"], r["n_vocab"]) for r in rows] == [
        ("BERT", 2018, 30_522),  # BERT's WordPiece vocabulary
        ("GPT-2", 2019, 50_257),
        ("Llama 2", 2023, 32_000),
        ("Phi-3", 2024, 32_064),  # Llama 2's and 64 more
    ]
