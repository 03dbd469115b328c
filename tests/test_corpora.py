"""Tests for book.corpora and the files it ships in book/data/."""

import ast
import hashlib
import re
import unicodedata
from importlib.resources import files
from pathlib import Path

import pytest
import regex

from book import corpora

DATA_DIR = Path(str(files("book") / "data"))
DATA_FILES = sorted(
    path.relative_to(DATA_DIR).as_posix() for path in DATA_DIR.rglob("*") if path.is_file()
)
# Control, format, private-use, surrogate and unassigned code points; "\n" is allowed everywhere.
FORBIDDEN_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn"}

# SHA-256 of each split: a regenerated or edited corpus must be a deliberate change.
SPLIT_SHA256 = {
    "train": "0077a8bbf76e79d2bab552ac6958668df20fb8c8bc1fa4daa9be85543190d7ac",
    "heldout": "261da3cc75ccf338630d16203e3452cea1ddd20538936335adcc1e7cc298360b",
}


def forbidden_characters(text: str, allowed: str = "\n") -> set[str]:
    """Characters of ``text`` that are control/format/unassigned or U+FFFD, except ``allowed``."""
    return {
        char
        for char in set(text)
        if char not in allowed
        and (char == "\ufffd" or unicodedata.category(char) in FORBIDDEN_CATEGORIES)
    }


def all_texts() -> dict[str, str]:
    """Every text the loaders return, keyed by a readable label."""
    texts = {f"sample({name!r})": corpora.sample(name) for name in corpora.available()}
    texts |= {f"english({split!r})": corpora.english(split) for split in corpora.SPLITS}
    texts |= {f"plays()[{title!r}]": text for title, text in corpora.plays().items()}
    texts |= {f"parallel()[{name!r}]": text for name, text in corpora.parallel().items()}
    return texts


# --- the loaders -----------------------------------------------------------------------------


@pytest.mark.parametrize("label", sorted(all_texts()))
def test_every_loader_returns_nonempty_nfc_text(label: str) -> None:
    text = all_texts()[label]
    assert isinstance(text, str) and text.strip(), f"{label} is empty"
    assert unicodedata.is_normalized("NFC", text), f"{label} is not NFC"


def test_available_names_match_sample() -> None:
    assert corpora.available() == (
        "english",
        "english-train",
        "english-heldout",
        "technical",
        "code",
        "code-c",
    )
    assert corpora.sample("english-heldout") == corpora.english("heldout")
    assert corpora.sample("technical") == corpora.technical()
    assert corpora.sample("code-c") == corpora.code("c")


@pytest.mark.parametrize(
    "call, valid",
    [
        (lambda: corpora.english("test"), "'train', 'heldout', 'all'"),
        (lambda: corpora.plays("validation"), "'train', 'heldout', 'all'"),
        (lambda: corpora.code("rust"), "'python', 'c'"),
        (lambda: corpora.sample("shakespeare"), "'english', 'english-train'"),
    ],
)
def test_unknown_names_raise_value_error_listing_valid_ones(call, valid: str) -> None:
    with pytest.raises(ValueError, match=re.escape(valid)):
        call()


def test_missing_file_says_what_to_do() -> None:
    with pytest.raises(FileNotFoundError, match="book/data/no-such-file.txt is missing"):
        corpora.read_data("no-such-file.txt")


def test_results_are_cached_and_safe_to_mutate() -> None:
    assert corpora.english("train") is corpora.english("train")
    first = corpora.parallel()
    first.clear()
    assert corpora.parallel(), "mutating a returned dict must not change the next result"
    infos = corpora.parallel_info()
    infos.clear()
    assert corpora.parallel_info()


# --- the English train / held-out split ------------------------------------------------------


def test_split_partitions_all() -> None:
    train, heldout = corpora.english("train"), corpora.english("heldout")
    assert train + heldout == corpora.english("all")
    assert set(corpora.plays("train")).isdisjoint(corpora.plays("heldout"))
    assert list(corpora.plays("train")) + list(corpora.plays("heldout")) == list(corpora.plays())
    assert 0.2 < len(heldout) / (len(train) + len(heldout)) < 0.4


def test_split_is_deterministic() -> None:
    before = {split: corpora.english(split) for split in corpora.SPLITS}
    corpora.english.cache_clear()
    corpora.read_data.cache_clear()
    assert {split: corpora.english(split) for split in corpora.SPLITS} == before
    digests = {
        split: hashlib.sha256(corpora.english(split).encode("utf-8")).hexdigest()
        for split in SPLIT_SHA256
    }
    assert digests == SPLIT_SHA256, "the corpus changed: update SPLIT_SHA256 and the data README"


def test_english_is_plain_speech_without_markup() -> None:
    text = corpora.english("all")
    assert not set(text) & set("_*#[]\\<>"), "markdown or markup left in the plays"
    assert "\n\n\n" not in text.rstrip("\n")
    assert "MACBETH" not in text, "speaker names must not be part of the speeches"
    assert "When shall we three meet again\nIn thunder, lightning, or in rain?" in text
    assert corpora.english("heldout").endswith("Let your indulgence set me free.\n\n")


# --- technical prose and code ----------------------------------------------------------------


def test_technical_is_the_python_reference() -> None:
    text = corpora.technical()
    assert text.startswith("Identifiers and keywords\n")
    assert 'The "try" statement\n' in text and "str.split(sep=None" in text


@pytest.mark.parametrize("path", corpora.CODE_FILES["python"])
def test_python_sample_is_valid_python(path: str) -> None:
    ast.parse(corpora.read_data(path), filename=path)


def test_c_sample_is_c() -> None:
    text = corpora.code("c")
    assert "#include <stdint.h>" in text and "int main(void)" in text
    assert text.count("{") == text.count("}")


# --- the parallel passage --------------------------------------------------------------------


def test_parallel_languages_and_order() -> None:
    infos = corpora.parallel_info()
    assert len(infos) >= 12
    assert [info.name for info in infos] == list(corpora.parallel())
    assert infos[0] == corpora.Language("English", "en", "Latin")
    codes = [info.code for info in infos]
    assert len(set(codes)) == len(codes), "duplicate ISO 639-1 codes"
    assert all(re.fullmatch(r"[a-z]{2}", code) for code in codes)
    assert len({script for info in infos for script in info.scripts}) >= 10


@pytest.mark.parametrize("info", corpora.parallel_info(), ids=lambda info: info.code)
def test_parallel_text_is_written_in_its_declared_scripts(info: corpora.Language) -> None:
    text = corpora.parallel()[info.name]
    declared = [regex.compile(rf"\p{{Script={script}}}") for script in info.scripts]
    neutral = regex.compile(r"[\p{Script=Common}\p{Script=Inherited}]")
    strays = {
        char
        for char in regex.findall(r"\p{L}", text)
        if not neutral.match(char) and not any(pattern.match(char) for pattern in declared)
    }
    assert not strays, f"{info.name}: letters outside {info.script}: {sorted(strays)}"
    for script, pattern in zip(info.scripts, declared):
        assert pattern.search(text), f"{info.name}: declares {script} but has no such letter"


@pytest.mark.parametrize("info", corpora.parallel_info(), ids=lambda info: info.code)
def test_parallel_text_is_clean_and_keeps_the_numbers(info: corpora.Language) -> None:
    text = corpora.parallel()[info.name]
    assert not forbidden_characters(text, allowed=""), "control or replacement characters"
    assert text == text.strip() and "  " not in text
    numbers = sorted(int(digits) for digits in regex.findall(r"\p{Nd}+", text))
    assert numbers == [3, 12, 1887], f"{info.name}: numbers {numbers}, expected 1887, 3 and 12"


def test_english_passage_has_a_proper_noun_and_a_few_sentences() -> None:
    english = corpora.parallel()["English"]
    assert "Maria" in english
    assert 3 <= english.count(". ") + 1 <= 5


# --- the files -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", DATA_FILES)
def test_data_file_is_clean_utf8(path: str) -> None:
    raw = (DATA_DIR / path).read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf"), "no byte-order mark"
    text = raw.decode("utf-8")
    assert b"\r" not in raw, "line ends must be \\n"
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert unicodedata.is_normalized("NFC", text)
    tab = "\t" if path.endswith(".tsv") else ""
    assert not forbidden_characters(text, allowed="\n" + tab)


def test_readme_mentions_every_file_with_its_size() -> None:
    readme = (DATA_DIR / "README.md").read_text(encoding="utf-8")
    sizes = {
        path: int(size.replace(",", ""))
        for path, size in re.findall(r"^\| `([^`]+)` \| ([\d,]+) \|", readme, flags=re.M)
    }
    for path in DATA_FILES:
        if path == "README.md":
            continue
        assert path in sizes, f"book/data/README.md has no table row for {path}"
        assert sizes[path] == len(corpora.read_data(path).encode("utf-8")), f"size of {path}"


def test_sizes_are_within_bounds() -> None:
    def kib(text: str) -> float:
        return len(text.encode("utf-8")) / 1024

    assert 150 <= kib(corpora.english("all")) <= 300
    assert 50 <= kib(corpora.technical()) <= 100
    assert 20 <= kib(corpora.code("python")) + kib(corpora.code("c")) <= 40
    assert kib("".join(corpora.parallel().values())) <= 20
    assert sum((DATA_DIR / path).stat().st_size for path in DATA_FILES) < 1_000_000
