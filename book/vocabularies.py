"""Real models' vocabularies (llama.cpp's ``ggml-vocab-*.gguf``), provided offline and verified.

llama.cpp keeps in ``models/`` the vocabulary of a model of each tokenizer kind it supports,
as GGUF files holding only the tokenizer, and for most of them test vectors: ``.gguf.inp``
(texts) and ``.gguf.out`` (the ids Hugging Face's tokenizer gives for each text). The source
distribution of ``llama-cpp-python`` on PyPI carries them under ``vendor/llama.cpp/models/``,
so ``pip download`` fetches them where nothing but a package registry is reachable.

Run ``python -m book.vocabularies`` once (``make`` does it): it downloads that pinned sdist
with pip, extracts only those files, checks each against the SHA-256 recorded in ``FILES``
and writes it into the cache folder (inside the virtual environment, or
``$BOOK_VOCABULARIES_DIR``). A file whose hash differs is never written. Where nobody ran it
(Binder, Colab), the first use of a vocabulary does the same, saying so, and where PyPI cannot
be reached it says what to do. Nothing is committed
to the book: the files are their models' authors' (``OWNERS`` says whose and under which
licence).

>>> sorted(name for name in VOCABULARIES if name.startswith("deepseek"))
['deepseek-coder', 'deepseek-llm']
"""

from __future__ import annotations

import argparse
import os
import sys
import tarfile
import tempfile
from pathlib import Path

from book.encodings import pip_download, sha256
from book.tokenizers.gguf import load_gguf

REQUIREMENT = "llama-cpp-python==0.3.36"
MEMBER_DIR = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/"
ENVIRONMENT_VARIABLE = "BOOK_VOCABULARIES_DIR"
TEST_SEPARATOR = "\n__ggml_vocab_test__\n"  # between two texts of a .inp file (test-tokenizer-0)

# SHA-256 of each file of the sdist's models/ folder that the book uses, as `sha256sum` prints
# them (so `sha256sum -c` can check a copy).
SHA256SUMS = """
7c53c3c516ac67c7ca12977b9690fdea3d2ef13bbaed6378f98191a13ef5ca00  ggml-vocab-aquila.gguf
4f5b955697f3bd3108070b1d5936c7eb9fc542b81c6932e59abddec75bca1963  ggml-vocab-baichuan.gguf
fbcbe22278fb302694d5f4a41bfe48c5f90e8e3554eab1c0435387dff654a854  ggml-vocab-bert-bge.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-bert-bge.gguf.inp
8f95b1d4e5680634af06ac5a1b19f15ddeb743d3a6240056625e4345a4b06917  ggml-vocab-bert-bge.gguf.out
a2f8cfea952ef7c391a6d92a1c309d0bd32e36384d9b9230569a7425732f27d9  ggml-vocab-command-r.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-command-r.gguf.inp
d2a601336e422b60a264858c01b14c5d37575fe1f9adfcafc2f3b3707903903f  ggml-vocab-command-r.gguf.out
91cb1379f2e33af1c4866b194622b7a0e12e8f0c9dba7ba2f10d55978730bec1  ggml-vocab-deepseek-coder.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-deepseek-coder.gguf.inp
c2cea4584b0487e67fbd81f491bb44f89238722062126120d2c412edb3dbd853  ggml-vocab-deepseek-coder.gguf.out
867f77537b54565f0d81d508c04edc41aa1d4ffc1a92745f225b4c1b02755f76  ggml-vocab-deepseek-llm.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-deepseek-llm.gguf.inp
87cfc1a8a9a7ef25d04d28c26a67b6a620af7be938c9bd0feeb4d319b9302832  ggml-vocab-deepseek-llm.gguf.out
9f0bf8b0733680398b72e652e90f260f43782f326e75545fc0e49611a5ba35ad  ggml-vocab-falcon.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-falcon.gguf.inp
f8c80a0483582ef195c2129b69bb2e4e421b0f31ed7b35d84b63511d7ebae7cd  ggml-vocab-falcon.gguf.out
58b1ba0b57f3b4d7c468ba4ffd91ad85190346a3d7ad7e71d1cabaae8a14bb65  ggml-vocab-gemma-4.gguf
0528aa007b06965f980181d252b5dff7bb170a77af6157bd48bba56885374448  ggml-vocab-gemma-4.gguf.inp
ba8c596bcd05e97e62566fa994b42eeaeffd6a4e4b4a4abe7b5b689aa6b43bf3  ggml-vocab-gemma-4.gguf.out
cedc56ca6e2e89f63e781696d1fd76b4b1d49e6720dee86463e915f6e90016ac  ggml-vocab-gpt-2.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-gpt-2.gguf.inp
48e8c4cb3ad5c37915b225f872222567c1c4dd4d66951aa53460c8d152ff6d60  ggml-vocab-gpt-2.gguf.out
ae593a7f9b8bb174ed4f5019e41530463e4dac7aa06e42dee8aa650d2bdac53d  ggml-vocab-gpt-neox.gguf
97272e430d53bc7688f52d5e0ad8ea8f163ede9f1bbd1694feaa504797d5d96e  ggml-vocab-llama-bpe.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-llama-bpe.gguf.inp
118abf2034a197fc5c9dec5204dfdeee7004c7c70952ae577f66b99e212fab9b  ggml-vocab-llama-bpe.gguf.out
16c3724582d59aa8bf84711894e833f916ee46a31d80e21312759c48bf8d0e69  ggml-vocab-llama-spm.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-llama-spm.gguf.inp
ad6905c925c49c022974fe67e030382e8a4f56eb4489a0b9481dcedb1ec73b29  ggml-vocab-llama-spm.gguf.out
59dc382612866d1fc6c11ea531318d327598f3412d9c8f8600607cdf3030898f  ggml-vocab-mpt.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-mpt.gguf.inp
9d0982a7e7950b81bc2e325fb61bb7e295d2238934ab889737494de2dc4d906b  ggml-vocab-mpt.gguf.out
90a6746926454784a98389ad36a36d89bc9cfc81db9cb0f33c941bcc959fe5f9  ggml-vocab-nomic-bert-moe.gguf
967d7190d11c4842eab697079d98d56c2116e10eb617be355a2733bfc132e326  ggml-vocab-phi-3.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-phi-3.gguf.inp
ad6905c925c49c022974fe67e030382e8a4f56eb4489a0b9481dcedb1ec73b29  ggml-vocab-phi-3.gguf.out
44c2f46b715f585c6ab513970e8a006bfa5badd6108560054921cf598d154d8c  ggml-vocab-qwen2.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-qwen2.gguf.inp
de785bb305cc6fa9d43908ed5da337f853c0b79e971348fcfb9f0915a39c5363  ggml-vocab-qwen2.gguf.out
63ed952ff338996cf0bdf24a7b10015124273f75c6dc9bb427356aa3f67ec62c  ggml-vocab-qwen35.gguf
0fc6547e7876cd5b2ef64a9d319c6e39040eb53986660bd4227ed7ddef017a94  ggml-vocab-qwen35.gguf.inp
5efe225820325303857d0a087a8d59216f0d1e9a9e31133e7a5b44c3c4e1e9ca  ggml-vocab-qwen35.gguf.out
ac3ceda902fed91ccf74312b305d9b86c37e4f8e35fa9cc6ef3ce34fca7d4678  ggml-vocab-refact.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-refact.gguf.inp
c7e5c1c5dc1dfd3e0d56576bf699d2aca0b760b80779523ea9d323aad6cd1b88  ggml-vocab-refact.gguf.out
fedb892b4e1bd3c1f2fcdae356440b14fb458f4264d586e5c987ed93df4e174d  ggml-vocab-starcoder.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-starcoder.gguf.inp
3ef12183c57ad076f9defd8e5eb454f509f5f0865cad35646abb4c4b2d2c5764  ggml-vocab-starcoder.gguf.out
"""
FILES = {name: digest for digest, name in (line.split() for line in SHA256SUMS.split("\n") if line)}

HF = "https://huggingface.co/"
# Whose each vocabulary is: the model llama.cpp made it from (convert_hf_to_gguf_update.py of
# the pinned llama.cpp, which also wrote the .out ids with that model's Hugging Face tokenizer)
# and the licence on its model card. The GGUF files are distributed with llama.cpp (MIT).
OWNERS = {
    "aquila": ("BAAI/Aquila-7B", "BAAI Aquila Model License", HF + "BAAI/Aquila-7B"),
    "baichuan": (
        "baichuan-inc/Baichuan-7B",
        "Baichuan-7B model license",
        HF + "baichuan-inc/Baichuan-7B/blob/main/License%20Agreement%20for%20Baichuan%207B.pdf",
    ),
    "bert-bge": ("BAAI/bge-small-en-v1.5", "MIT", HF + "BAAI/bge-small-en-v1.5"),
    "command-r": (
        "CohereForAI/c4ai-command-r-v01",
        "CC-BY-NC 4.0",
        "https://creativecommons.org/licenses/by-nc/4.0/",
    ),
    "deepseek-coder": (
        "deepseek-ai/deepseek-coder-6.7b-base",
        "DeepSeek License",
        "https://github.com/deepseek-ai/DeepSeek-Coder/blob/main/LICENSE-MODEL",
    ),
    "deepseek-llm": (
        "deepseek-ai/deepseek-llm-7b-base",
        "DeepSeek License",
        "https://github.com/deepseek-ai/DeepSeek-LLM/blob/main/LICENSE-MODEL",
    ),
    "falcon": ("tiiuae/falcon-7b", "Apache 2.0", "https://www.apache.org/licenses/LICENSE-2.0"),
    "gemma-4": (
        "google/gemma-4-E2B-it",  # every Gemma 4 model has this tokenizer
        "Apache 2.0",
        "https://ai.google.dev/edge/litert-lm/models/gemma-4",
    ),
    "gpt-2": (
        "openai-community/gpt2",
        "MIT",
        "https://github.com/openai/gpt-2/blob/master/LICENSE",
    ),
    "gpt-neox": (
        "EleutherAI/gpt-neox-20b",
        "Apache 2.0",
        "https://www.apache.org/licenses/LICENSE-2.0",
    ),
    "llama-bpe": (
        "meta-llama/Meta-Llama-3-8B",
        "Meta Llama 3 Community License",
        "https://llama.meta.com/llama3/license/",
    ),
    "llama-spm": (
        "meta-llama/Llama-2-7b-hf",
        "Llama 2 Community License",
        "https://ai.meta.com/llama/license/",
    ),
    "mpt": ("mosaicml/mpt-7b", "Apache 2.0", "https://www.apache.org/licenses/LICENSE-2.0"),
    "nomic-bert-moe": (
        "nomic-ai/nomic-embed-text-v2-moe",
        "Apache 2.0",
        "https://www.apache.org/licenses/LICENSE-2.0",
    ),
    "phi-3": (
        "microsoft/Phi-3-mini-4k-instruct",
        "MIT",
        HF + "microsoft/Phi-3-mini-4k-instruct/blob/main/LICENSE",
    ),
    "qwen2": (
        "Qwen/Qwen1.5-7B",
        "Tongyi Qianwen License",
        HF + "Qwen/Qwen1.5-7B/blob/main/LICENSE",
    ),
    "qwen35": (
        "Qwen/Qwen3.5-9B-Instruct",
        "Apache 2.0",
        "https://www.apache.org/licenses/LICENSE-2.0",
    ),
    "refact": (
        "smallcloudai/Refact-1_6-base",
        "BigScience OpenRAIL-M",
        "https://www.bigcode-project.org/docs/pages/bigcode-openrail/",
    ),
    "starcoder": (
        "bigcode/starcoder2-3b",
        "BigCode OpenRAIL-M",
        "https://www.bigcode-project.org/docs/pages/bigcode-openrail/",
    ),
}

VOCABULARIES = tuple(sorted(OWNERS))


class VocabularySetupError(RuntimeError):
    """The vocabulary files could not be provided or found; the message says what to do."""


HOW_TO_FETCH = (
    "Provide the files once, with access to PyPI: in a terminal `python -m book.vocabularies` "
    "(or `make`); in a notebook `!python -m book.vocabularies` in a cell."
)
SDIST_MEGABYTES = 76  # the size of the sdist that a first use downloads


def default_cache_dir() -> Path:
    """The folder: ``$BOOK_VOCABULARIES_DIR`` if set, else one inside this Python environment."""
    if os.environ.get(ENVIRONMENT_VARIABLE):
        return Path(os.environ[ENVIRONMENT_VARIABLE])
    in_environment = Path(sys.prefix) / "share" / "book-vocabularies"
    if in_environment.is_dir() or os.access(sys.prefix, os.W_OK):
        return in_environment
    return Path.home() / ".cache" / "book-vocabularies"  # a read-only system Python


def is_cached(cache: Path, name: str) -> bool:
    """Whether ``cache`` holds a correct copy of file ``name``."""
    path = cache / name
    return path.is_file() and sha256(path.read_bytes()) == FILES[name]


def extract_verified(archive: Path, names, cache: Path) -> None:
    """Write the files ``names`` of the sdist ``archive`` into ``cache``, each only if its
    SHA-256 is the recorded one."""
    cache.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        for name in names:
            try:
                member = tar.extractfile(MEMBER_DIR + name)
            except KeyError:
                member = None
            if member is None:
                raise VocabularySetupError(
                    f"{archive.name} holds no {MEMBER_DIR + name}: is it {REQUIREMENT}?"
                )
            data = member.read()
            if sha256(data) != FILES[name]:
                raise VocabularySetupError(
                    f"{name}: SHA-256 {sha256(data)} but the book records {FILES[name]}; the "
                    f"file was NOT installed. Is {archive.name} the sdist of {REQUIREMENT}?"
                )
            tmp = cache / f"{name}.tmp"
            tmp.write_bytes(data)
            tmp.replace(cache / name)  # atomic: a reader never sees half a file


def provision(
    cache: Path | None = None, downloads: Path | None = None, sdist: Path | None = None
) -> Path:
    """Put every file of ``FILES`` into ``cache``, verified; return the folder.

    ``sdist``: an already downloaded ``llama_cpp_python-0.3.36.tar.gz`` (no network needed).
    """
    cache = cache or default_cache_dir()
    missing = [name for name in FILES if not is_cached(cache, name)]
    if not missing:
        return cache
    if sdist is not None:
        extract_verified(sdist, missing, cache)
        return cache
    with tempfile.TemporaryDirectory() as tmp:
        try:
            archive = pip_download_sdist(downloads or Path(tmp))
        except Exception as error:  # pip's own message says why (offline, proxy, ...)
            raise VocabularySetupError(
                f"could not download {REQUIREMENT} (the source of the vocabulary files) from "
                f"PyPI: {error}\nCheck that PyPI is reachable and run again, or pass "
                f"--sdist PATH to a copy of llama_cpp_python-0.3.36.tar.gz. {HOW_TO_FETCH}"
            ) from None
        extract_verified(archive, missing, cache)
    return cache


def pip_download_sdist(dest: Path) -> Path:
    """The sdist of ``REQUIREMENT`` (not a wheel: only the sdist holds llama.cpp's models/)."""
    return pip_download(REQUIREMENT, dest, "--no-binary", ":all:")


def vocabulary_path(name: str) -> Path:
    """The verified ``ggml-vocab-<name>.gguf`` in the cache; a clear error if it is not there.

    >>> vocabulary_path("gpt-2").name
    'ggml-vocab-gpt-2.gguf'
    """
    return _cached(f"ggml-vocab-{_known(name)}.gguf")


def load(name: str):
    """The book's tokenizer of vocabulary ``name``, read from its verified file.

    >>> load("gpt-2").encode("Hello world")
    [15496, 995]
    """
    return load_gguf(vocabulary_path(name))


def has_test_vectors(name: str) -> bool:
    """Whether llama.cpp ships test vectors (``.inp`` and ``.out``) for vocabulary ``name``."""
    return f"ggml-vocab-{_known(name)}.gguf.out" in FILES


def test_vectors(name: str) -> list[tuple[str, list[int]]]:
    """The texts of ``name``'s ``.inp`` file with the ids of its ``.out`` file, in order.

    As llama.cpp's ``tests/test-tokenizer-0.cpp`` reads them: texts separated by the line
    ``__ggml_vocab_test__``, one line of space-separated ids per text.

    >>> text, ids = test_vectors("gpt-2")[-1]
    >>> len(ids) > 0
    True
    """
    if not has_test_vectors(name):
        raise VocabularySetupError(f"llama.cpp ships no test vectors for {name!r}")
    stem = f"ggml-vocab-{name}.gguf"
    raw = _cached(stem + ".inp").read_text(encoding="utf-8")
    texts = raw.split(TEST_SEPARATOR)
    if raw.endswith(TEST_SEPARATOR):
        texts.pop()  # the file ends with a separator: no text after it
    lines = _cached(stem + ".out").read_text(encoding="utf-8").splitlines()
    if len(texts) != len(lines):
        raise VocabularySetupError(
            f"{stem}.inp holds {len(texts)} texts but {stem}.out {len(lines)} lines of ids"
        )
    return [(text, [int(i) for i in line.split()]) for text, line in zip(texts, lines)]


test_vectors.__test__ = False  # a function named test_* that pytest must not collect


def _known(name: str) -> str:
    if name not in OWNERS:
        raise VocabularySetupError(
            f"unknown vocabulary {name!r}: the book provides {', '.join(VOCABULARIES)}"
        )
    return name


def _cached(file_name: str) -> Path:
    """The path of ``file_name`` in the cache, checked against its recorded SHA-256; the first
    use where nobody provided the files (Binder, Colab) provides them."""
    cache = default_cache_dir()
    if not (cache / file_name).is_file():
        print(
            f"{file_name} is not in {cache} yet: fetching the vocabulary files once from PyPI "
            f"({REQUIREMENT}, {SDIST_MEGABYTES} MB)...",
            file=sys.stderr,
        )
        try:
            provision(cache)
        except VocabularySetupError as error:
            raise VocabularySetupError(f"{file_name} is not in {cache}: {error}") from None
    if not is_cached(cache, file_name):
        raise VocabularySetupError(
            f"{cache / file_name} is not the file the book records (its SHA-256 differs): "
            f"delete it and fetch it again. {HOW_TO_FETCH}"
        )
    return cache / file_name


def main(argv: list[str] | None = None) -> int:
    """Command line: provision the vocabulary files and report where they are."""
    parser = argparse.ArgumentParser(
        prog="python -m book.vocabularies", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir())
    parser.add_argument("--downloads", type=Path, help="keep the downloaded sdist here")
    parser.add_argument("--sdist", type=Path, help="use this llama_cpp_python-0.3.36.tar.gz")
    args = parser.parse_args(argv)
    try:
        cache = provision(args.cache_dir, args.downloads, args.sdist)
    except VocabularySetupError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{len(FILES)} vocabulary files of {len(OWNERS)} models verified in {cache}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
