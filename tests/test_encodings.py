"""The offline tiktoken encodings: right files, right hashes, right cache keys, no network."""

import hashlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load

from book import encodings
from book.encodings import ENCODINGS, EncodingSetupError


@pytest.fixture(scope="module")
def provisioned_cache() -> Path:
    """The cache folder that `make` filled (or this run fills, reusing `make`'s downloads)."""
    downloads = Path(__file__).resolve().parents[1] / ".cache" / "downloads"
    return encodings.provision(ENCODINGS, downloads=downloads if downloads.is_dir() else None)


def test_cache_key_is_what_tiktoken_reads(tmp_path, monkeypatch):
    """tiktoken must find our file under our key: write a tiny file and let tiktoken read it."""
    url = "https://example.invalid/tiny.tiktoken"
    data = b"YQ== 0\n"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    encodings.write_verified(tmp_path, url, data, hashlib.sha256(data).hexdigest())
    assert tiktoken.load.read_file_cached(url, hashlib.sha256(data).hexdigest()) == data


def test_expected_hashes_come_from_tiktoken():
    """Each encoding names its files with the hashes in tiktoken_ext/openai_public.py."""
    import inspect

    import tiktoken_ext.openai_public as public

    source = inspect.getsource(public)
    for name in ENCODINGS:
        for url, expected in encodings.expected_files(name).items():
            assert url in source and expected in source, (name, url)
    assert len(encodings.expected_files("gpt2")) == 2  # vocab.bpe + encoder.json


def test_every_provisioned_file_matches_tiktokens_hash(provisioned_cache):
    for name in ENCODINGS:
        for url, expected in encodings.expected_files(name).items():
            path = provisioned_cache / encodings.cache_key(url)
            assert hashlib.sha256(path.read_bytes()).hexdigest() == expected, url


def test_gpt2_files_rebuilt_byte_for_byte(provisioned_cache):
    r50k_url = next(iter(encodings.expected_files("r50k_base")))
    vocab_bpe, encoder_json = encodings.gpt2_files(
        (provisioned_cache / encodings.cache_key(r50k_url)).read_bytes()
    )
    hashes = {url.rsplit("/", 1)[1]: h for url, h in encodings.expected_files("gpt2").items()}
    assert hashlib.sha256(vocab_bpe).hexdigest() == hashes["vocab.bpe"]
    assert hashlib.sha256(encoder_json).hexdigest() == hashes["encoder.json"]


def test_p50k_file_rebuilt_byte_for_byte(provisioned_cache):
    r50k_url = next(iter(encodings.expected_files("r50k_base")))
    p50k = encodings.p50k_file((provisioned_cache / encodings.cache_key(r50k_url)).read_bytes())
    ((url, expected),) = encodings.expected_files("p50k_base").items()
    assert url.endswith("p50k_base.tiktoken") and hashlib.sha256(p50k).hexdigest() == expected
    encoding = encodings.get_encoding("p50k_base")
    assert encoding.decode_single_token_bytes(50280) == b" " * 25 and encoding.n_vocab == 50_281


def test_encodings_load_with_the_network_cut_off(provisioned_cache):
    """In a fresh Python whose downloader raises, all four names load and encode."""
    script = textwrap.dedent(
        """
        import tiktoken, tiktoken.load
        def no_network(url):
            raise RuntimeError(f"network used for {url}")
        tiktoken.load.read_file = no_network
        for name in ("gpt2", "r50k_base", "cl100k_base", "o200k_base"):
            enc = tiktoken.get_encoding(name)
            assert enc.decode(enc.encode("héllo wörld 🌍")) == "héllo wörld 🌍"
            print(name, enc.n_vocab)
        """
    )
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(provisioned_cache)}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "gpt2",
        "50257",
        "r50k_base",
        "50257",
        "cl100k_base",
        "100277",
        "o200k_base",
        "200019",
    ]


def test_gpt2_and_r50k_are_the_same_tokenizer(provisioned_cache):
    text = "GPT-2's ranks are r50k_base's: 12345 tokens,  spaces\tand ünïcödé 🙂"
    assert encodings.get_encoding("gpt2").encode(text) == encodings.get_encoding(
        "r50k_base"
    ).encode(text)


def test_a_file_with_the_wrong_hash_is_never_written(tmp_path):
    with pytest.raises(EncodingSetupError, match="NOT installed"):
        encodings.write_verified(
            tmp_path, "https://example.invalid/x.tiktoken", b"tampered", "0" * 64
        )
    assert list(tmp_path.iterdir()) == []


def test_a_corrupted_cache_file_is_detected_and_replaced(tmp_path, provisioned_cache):
    url, expected = next(iter(encodings.expected_files("r50k_base").items()))
    (tmp_path / encodings.cache_key(url)).write_bytes(b"corrupted")
    assert not encodings.is_cached(tmp_path, url, expected)
    downloads = Path(__file__).resolve().parents[1] / ".cache" / "downloads"
    encodings.provision(
        ["r50k_base"], cache=tmp_path, downloads=downloads if downloads.is_dir() else None
    )
    assert encodings.is_cached(tmp_path, url, expected)


def test_unknown_encoding_name_is_a_clear_error():
    with pytest.raises(ValueError, match="the book provides gpt2, r50k_base"):
        encodings.expected_files("p50k_base_typo")


def test_missing_files_without_network_say_what_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))

    def no_network(url):
        raise ConnectionError("no network")

    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})  # forget encodings loaded earlier
    with pytest.raises(EncodingSetupError, match="run `!python -m book.encodings` in a cell"):
        encodings.get_encoding("cl100k_base")


def test_regex_tokenizer_keeps_the_recovered_merges_and_never_trusts_a_bad_file(
    tmp_path, monkeypatch
):
    """The cached load is from_tiktoken's tokenizer; a damaged or foreign file is recomputed."""
    from book.tokenizers import RegexTokenizer

    encodings.get_encoding("gpt2")  # tiktoken's own files stay where they are
    monkeypatch.setattr(encodings, "default_cache_dir", lambda: tmp_path)
    expected = RegexTokenizer.from_tiktoken("gpt2")
    first = encodings.regex_tokenizer("gpt2")
    (saved,) = tmp_path.glob("gpt2-*.merges.json")
    assert first.merges == expected.merges and first.vocab == expected.vocab
    swapped = saved.read_text().replace("[[", "[[1, 0], [", 1)  # one merge too many
    for damaged in ("{not json", '{"byte_ids": []}', swapped):
        saved.write_text(damaged)
        again = encodings.regex_tokenizer("gpt2")
        assert again.merges == expected.merges and again.pattern == expected.pattern
        assert again.special_tokens == expected.special_tokens
    assert encodings._cached_merges(saved, encodings.get_encoding("gpt2")._mergeable_ranks)
