"""llama.cpp's vocabulary files for the tests, from the folder ``$BOOK_VOCABULARIES_DIR``.

``vocabulary_path`` and ``test_vectors`` have the names and results of the book's download
module; until it is merged, they read the flat folder of ``ggml-vocab-*`` files that
``BOOK_VOCABULARIES_DIR`` names (the sdist's ``vendor/llama.cpp/models/``).
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from book.tokenizers.formats.gguf import GgufVocabulary, read_gguf_vocabulary

ENVIRONMENT_VARIABLE = "BOOK_VOCABULARIES_DIR"
TEST_SEPARATOR = "\n__ggml_vocab_test__\n"  # between two texts of a .inp file (test-tokenizer-0)


def _folder() -> Path:
    folder = os.environ.get(ENVIRONMENT_VARIABLE)
    if not folder or not Path(folder).is_dir():
        raise RuntimeError(
            f"set {ENVIRONMENT_VARIABLE} to a folder holding llama.cpp's ggml-vocab-* files "
            "(vendor/llama.cpp/models/ of the llama-cpp-python 0.3.36 sdist: "
            "pip download --no-deps --no-binary :all: llama-cpp-python==0.3.36)"
        )
    return Path(folder)


def vocabulary_path(name: str) -> Path:
    """The path of ``ggml-vocab-<name>.gguf``."""
    return _folder() / f"ggml-vocab-{name}.gguf"


@cache
def vocabulary(name: str) -> GgufVocabulary:
    """The vocabulary ``name``, read once for all the tests."""
    return read_gguf_vocabulary(vocabulary_path(name))


def test_vectors(name: str) -> list[tuple[str, list[int]]]:
    """The texts of ``name``'s ``.inp`` file with the ids of its ``.out`` file, in order.

    As llama.cpp's ``tests/test-tokenizer-0.cpp`` reads them: texts separated by the line
    ``__ggml_vocab_test__`` (the file may end with one), one line of ids per text.
    """
    stem = vocabulary_path(name)
    raw = Path(f"{stem}.inp").read_text(encoding="utf-8")
    texts = raw.split(TEST_SEPARATOR)
    if raw.endswith(TEST_SEPARATOR):
        texts.pop()
    lines = Path(f"{stem}.out").read_text(encoding="utf-8").splitlines()
    assert len(texts) == len(lines), f"{stem}: {len(texts)} texts but {len(lines)} id lines"
    return [(text, [int(i) for i in line.split()]) for text, line in zip(texts, lines)]


test_vectors.__test__ = False  # a function named test_* that pytest must not collect
