"""The claims registry: every claim sourced, every walkthrough claim covered, verdicts that bite."""

import re

import pytest
from notebook_paths import ROOT, toc_files

from book import claims, walkthroughs
from book.claims import frontier
from book.claims.core import Claim, cell, check, claims_table

# Library parity and whole-corpus runs: make test runs them, make test-fast does not.
pytestmark = pytest.mark.slow

APPENDIX = "appendix/claims_checked"


def bib_keys() -> set[str]:
    """The keys of references.bib."""
    return set(re.findall(r"^@\w+\{([^,\s]+),", (ROOT / "references.bib").read_text(), re.M))


def test_every_source_is_in_the_bibliography():
    missing = {claim.id: claim.source for claim in claims.CLAIMS if claim.source not in bib_keys()}
    assert not missing, f"sources not in references.bib: {missing}"


def test_every_claim_of_the_walkthroughs_is_checked():
    claimed = {name for name in dir(walkthroughs) if "CLAIMED" in name}
    used = {name for claim in claims.CLAIMS for name in claim.uses}
    assert claimed - used == set(), f"walkthrough claims no Claim checks: {sorted(claimed - used)}"
    assert used <= set(dir(walkthroughs)), f"unknown names: {sorted(used - set(dir(walkthroughs)))}"


def test_ids_are_unique_and_claims_are_in_chapter_order():
    ids = [claim.id for claim in claims.CLAIMS]
    assert len(ids) == len(set(ids))
    chapters = [claim.chapter for claim in claims.CLAIMS]
    assert chapters == sorted(chapters)


def test_no_reader_visible_text_says_seed():
    for claim in claims.CLAIMS:
        assert "seed" not in claim.says.lower(), claim.id
        assert "seed" not in claim.source.lower(), claim.id


@pytest.fixture(scope="module")
def checked() -> dict[str, claims.Checked]:
    return {row.claim.id: row for row in claims.table().rows}


def test_every_claim_computes_and_is_shown(checked):
    assert len(checked) == len(claims.CLAIMS)
    for row in checked.values():
        assert row.shown.strip(), row.claim.id
        assert "\n" not in row.shown


@pytest.mark.parametrize(
    ("claim_id", "agrees"),
    [
        ("utf8-family-emoji", True),  # 4 emoji + 3 joiners, 4 * 4 + 3 * 3 = 25 bytes
        ("utf8-never-bytes", True),  # C0 C1 and F5 to FF: RFC 3629, section 1
        ("char-fewer-unknowns", True),  # 0% of The Tempest's characters, 11.2% of its word tokens
        ("char-compression-cs336", True),  # 20 bytes / 13 tokens; 1.00 to 2.87 on the passages
        ("zipf-exponent", None),  # least squares 1.01, maximum likelihood 0.90
        ("hug-encode", True),  # m and t are not in the alphabet: [UNK]
        ("cs336-low-merges", True),  # the greater pair wins ties, as the handout says
        ("cat-hat-merges", True),  # the lecture's max() takes the first of equal counts
        ("gpt2-word-variants", True),  # 'lord, ', ', my lord, ', ...
        ("minbpe-gpt4-ids", True),  # the README's ids are cl100k_base's
        ("english-tokens-per-word", None),  # the plays 1.40, the English passage 1.20
        ("gpt4o-fewer-tokens", True),  # each ratio within 10% on the book's passage
        ("lecture-gpt2-numbers", False),  # 6773 is ' 6' + '773', not ' 6' + '77' + '3'
        ("help-como-estas", None),  # 5 tokens under gpt2, 3 under cl100k_base, 2 under o200k
        ("dropout-zero-is-bpe", True),  # every held-out word, with dropout 0 and without
        ("dropout-bleu", None),  # BLEU against a trigram model's bits per byte (2.90, 2.98)
        ("pathpiece-fewer-tokens", True),  # fewest tokens at 2,048, lowest bits per byte at 512
        ("superbpe-fewer-tokens", None),  # 33% at 200k against 3% at 1,024
        ("picky-no-undertrained", True),  # never used 14 -> 0, bytes per token 2.56 -> 2.57
        ("blt-matches-tokens", None),  # FLOP-matched models against bytes per patch
    ],
)
def test_known_verdicts(checked, claim_id, agrees):
    assert checked[claim_id].agrees is agrees, checked[claim_id].shown


def test_the_lecture_is_right_but_for_6773(checked):
    computed = checked["lecture-gpt2-numbers"].computed
    assert {n: p for n, p in computed.items() if p != walkthroughs.LECTURE_CLAIMED_NUMBERS[n]} == {
        "6773": [" 6", "773"]
    }


def test_chapter_12s_verdicts_bite():
    picky = frontier.no_unused_same_compression
    assert picky(True, {"never used": (14, 0), "bytes per token": (2.56, 2.56)})
    assert not picky(True, {"never used": (14, 1), "bytes per token": (2.56, 2.56)})
    assert not picky(True, {"never used": (14, 0), "bytes per token": (2.56, 2.50)})
    fewest = claims.get("pathpiece-fewer-tokens").agrees
    assert fewest(True, {"fewest tokens": 2048, "lowest bits per byte": 512})
    assert not fewest(True, {"fewest tokens": 2048, "lowest bits per byte": 2048})


def test_a_wrong_claimed_value_is_caught():
    right = claims.get("utf8-family-emoji")
    wrong = Claim(right.id, right.chapter, right.source, right.says, (4, 3, 24), right.compute)
    assert check(right).agrees and not check(wrong).agrees


def test_a_verdict_that_depends_on_the_measure_is_neither_tick_nor_cross():
    fits = {"one way": 1.0, "another": 0.8}
    open_claim = Claim(
        "demo-fits",
        3,
        "zipf1949",
        "about 1",
        1.0,
        lambda: fits,
        agrees=lambda claimed, computed: None,
    )
    row = check(open_claim)
    table = claims_table([row, check(claims.get("cs336-code-points"))])
    assert row.agrees is None and table.markdown.splitlines()[2].endswith("| – |")
    assert (table.n_agree, table.n_disagree) == (1, 0)


def test_table_cites_each_source_and_escapes_markdown():
    table = claims.table(["hug-encode", "help-gretzky"])
    lines = table.markdown.splitlines()
    assert len(lines) == 2 + 2
    assert "{cite}`hf_course_bpe`" in lines[2]
    assert "\\[UNK\\]" in lines[2] and "cl100k\\_base 12 or 12" in lines[3]
    assert all(line.count("|") - line.count("\\|") == 6 for line in lines)


def test_cell_escapes_everything_markdown_would_read():
    assert cell("a*b_c`d[e]f<g>h|i$j~k{l}m#n\\o") == (
        "a\\*b\\_c\\`d\\[e\\]f\\<g\\>h\\|i\\$j\\~k\\{l\\}m\\#n\\\\o"
    )


def test_unknown_claim_id_says_what_exists():
    with pytest.raises(KeyError, match="utf8-"):
        claims.get("utf8-nonsense")


def test_claim_rejects_bad_ids_and_chapters():
    with pytest.raises(ValueError, match="one word"):
        Claim("two words", 1, "rfc3629", "x", 1, lambda: 1)
    with pytest.raises(ValueError, match="chapter"):
        Claim("x", 13, "rfc3629", "x", 1, lambda: 1)


def test_appendix_is_in_the_back_matter_before_the_bibliography():
    files = toc_files()
    assert APPENDIX in files
    assert files.index(APPENDIX) == files.index("bibliography") - 1
    assert (ROOT / f"{APPENDIX}.ipynb").exists()


@pytest.mark.slow
def test_appendix_runs_and_lists_every_claim():
    import nbformat
    from nbclient import NotebookClient

    path = ROOT / f"{APPENDIX}.ipynb"
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(path.parent)}}).execute()
    shown = "".join(
        output.get("data", {}).get("text/markdown", "")
        for nb_cell in nb.cells
        if nb_cell.cell_type == "code"
        for output in nb_cell.outputs
    )
    for claim in claims.CLAIMS:
        assert cell(claim.says) in shown, claim.id
