"""The two tasks on other vendors' tokenizers (book/checks/ch09.py), beyond what
tests/test_check_specs.py proves of every spec (the reference earns every point; each known
mistake loses exactly the part it names, on seeds 1-20, by the check cell and the judge): the
points the statements give, and the references against the vendors' own tokenizers."""

from __future__ import annotations

from book.checks.ch09 import PREMIUMS_ACROSS, SPLIT_COMMAND_R
from book.vocabularies import load


def test_the_statement_gives_each_part_its_points():
    assert [(g.name, g.points) for g in SPLIT_COMMAND_R.groups] == [
        ("GPT-2's rules between numbers", 3),
        ("every number character alone", 2),
        ("whitespace before a number", 1),
    ]
    assert [(g.name, g.points) for g in PREMIUMS_ACROSS.groups] == [
        ("premiums", 3),
        ("no reference count", 1),
    ]


def test_the_split_is_command_rs_own():
    # Command-R's byte-level BPE encodes each chunk on its own: the reference's chunks, encoded
    # one by one, give the ids of the whole text (the model's tokenizer matches llama.cpp's
    # test vectors, tests/test_gguf_bpe.py).
    command_r = load("command-r")
    text = "In 2024, x² cost $1,000 and  7 cats: don't   ½ ٣٤ 第五章\n\n  9 done"
    chunks = SPLIT_COMMAND_R.reference(text)
    assert "".join(chunks) == text
    assert [i for chunk in chunks for i in command_r.encode(chunk)] == command_r.encode(text)
    assert chunks[:7] == ["In", " ", "2", "0", "2", "4", ","] and " 第五章" in chunks


def test_premiums_match_the_analysis_module():
    from book.analysis.comparison import premiums

    counts = {"a": {"English": 55, "Hindi": 110}, "b": {"Hindi": 60, "English": 50}}
    assert PREMIUMS_ACROSS.reference(counts, "English") == premiums(counts, "English")
