"""Hugging Face's ``tokenizer.json``, read for the WordPiece tokenizers the book implements.

``tokenizers`` saves a whole pipeline as one JSON object: ``normalizer``, ``pre_tokenizer``,
``model`` (with its vocabulary ``{token: id}``), ``decoder``, ``post_processor`` and the
``added_tokens`` (``[CLS]``, ``[SEP]``, ... matched whole in the text). BERT's files hold a
``BertNormalizer``, a ``BertPreTokenizer``, a ``WordPiece`` model and a ``WordPiece`` decoder:
those, and nothing else, are what this reader accepts, and it says which part it cannot read.
The post-processor (which adds ``[CLS]`` and ``[SEP]`` around every text) and the
truncation and padding settings are not part of tokenizing a text, and are left out.

>>> import json, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "tokenizer.json")
>>> model = {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
...          "max_input_chars_per_word": 100, "vocab": {"[UNK]": 0, "hi": 1}}
>>> _ = open(path, "w").write(json.dumps({"model": model, "normalizer": None}))
>>> saved = read_tokenizer_json(path)
>>> saved.vocab, saved.model, saved.normalizer, saved.pre_tokenizer
({'[UNK]': 0, 'hi': 1}, {'unk_token': '[UNK]', 'continuing_subword_prefix': '##', \
'max_input_chars_per_word': 100}, None, False)
"""

from __future__ import annotations

import json
from os import PathLike
from pathlib import Path
from typing import NamedTuple

MODEL_OPTIONS = ("unk_token", "continuing_subword_prefix", "max_input_chars_per_word")
NORMALIZER_OPTIONS = ("clean_text", "handle_chinese_chars", "strip_accents", "lowercase")
DECODER_OPTIONS = ("prefix", "cleanup")


class TokenizerJSONError(ValueError):
    """The file is not a ``tokenizer.json`` that this reader can use; the message says why."""


class SavedWordPiece(NamedTuple):
    """What a WordPiece ``tokenizer.json`` holds, as plain data (stages as their options)."""

    vocab: dict[str, int]
    model: dict[str, object]  # the model's options: unk_token, prefix, max chars per word
    normalizer: dict[str, object] | None  # BertNormalizer's options, or None (no normalizer)
    pre_tokenizer: bool  # whether BertPreTokenizer splits the text
    decoder: dict[str, object] | None  # the WordPiece decoder's options, or None (no decoder)
    special_tokens: list[str]  # the added tokens marked special, matched whole in raw text


def read_tokenizer_json(path: str | PathLike) -> SavedWordPiece:
    """Read a ``tokenizer.json`` whose model is WordPiece; anything else is an error that says
    what the file holds and what this reader accepts."""
    try:
        saved = json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TokenizerJSONError(f"{path} is not JSON text: {error}") from None
    if not isinstance(saved, dict) or not isinstance(saved.get("model"), dict):
        raise TokenizerJSONError(
            f"{path} has no 'model' object: not a tokenizer.json written by Hugging Face "
            "tokenizers (Tokenizer.save)"
        )
    model = saved["model"]
    _expect_type(path, "model", model, ("WordPiece",))
    vocab = model.get("vocab")
    if not isinstance(vocab, dict) or not vocab:
        raise TokenizerJSONError(f"{path}: the model has no vocabulary ({{token: id}})")
    options = {name: model[name] for name in MODEL_OPTIONS if name in model}
    normalizer = saved.get("normalizer")
    if normalizer is not None:
        _expect_type(path, "normalizer", normalizer, ("BertNormalizer",))
        normalizer = {name: normalizer[name] for name in NORMALIZER_OPTIONS if name in normalizer}
    pre_tokenizer = saved.get("pre_tokenizer")
    if pre_tokenizer is not None:
        _expect_type(path, "pre_tokenizer", pre_tokenizer, ("BertPreTokenizer",))
    decoder = saved.get("decoder")
    if decoder is not None:
        _expect_type(path, "decoder", decoder, ("WordPiece",))
        decoder = {name: decoder[name] for name in DECODER_OPTIONS if name in decoder}
    specials = _special_tokens(path, saved.get("added_tokens") or [], vocab)
    return SavedWordPiece(vocab, options, normalizer, pre_tokenizer is not None, decoder, specials)


def _expect_type(path, part: str, config: object, accepted: tuple[str, ...]) -> None:
    """Refuse a stage whose type this reader does not implement, naming it."""
    found = config.get("type") if isinstance(config, dict) else None
    if found not in accepted:
        raise TokenizerJSONError(
            f"{path}: the {part} is {found!r}, but this reader implements only "
            f"{' or '.join(accepted)} there (BERT's WordPiece tokenizers)"
        )


def _special_tokens(path, added: list, vocab: dict[str, int]) -> list[str]:
    """The added tokens: special ones, matched in raw text, each a vocabulary entry."""
    specials = []
    for token in added:
        content = token.get("content") if isinstance(token, dict) else None
        plain = token.get("special") and not any(
            token.get(flag) for flag in ("normalized", "lstrip", "rstrip", "single_word")
        )
        if not plain:
            raise TokenizerJSONError(
                f"{path}: the added token {content!r} is not a plain special token (special, "
                "not normalized, no lstrip, rstrip or single_word), which this reader does not "
                "implement"
            )
        if vocab.get(content) != token.get("id"):
            raise TokenizerJSONError(
                f"{path}: the added token {content!r} has id {token.get('id')!r}, but the "
                f"vocabulary gives it {vocab.get(content)!r}"
            )
        specials.append(content)
    return specials
