"""The claims registry: every claim sourced, every walkthrough claim covered, verdicts that bite."""

import re

import pytest
from notebook_paths import ROOT, toc_files

from book import claims, walkthroughs
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
        ("utf8-cjk-three-bytes", False),  # Han above U+FFFF takes 4 bytes
        ("char-256-covers-english", False),  # names and symbols outside windows-1252
        ("char-compression-1", False),  # 1.0 only where a character is one byte (Latin scripts)
        ("zipf-exponent", None),  # least squares 1.01, maximum likelihood 0.90
        ("hug-encode", True),  # m and t are not in the alphabet: [UNK]
        ("cs336-low-merges", True),  # the greater pair wins ties, as the handout says
        ("cat-hat-merges", True),  # the lecture's max() takes the first of equal counts
        ("gpt2-word-variants", True),  # 'lord, ', ', my lord, ', ...
        ("def-count-gpt2", False),  # 3 tokens, not 6
        ("gpt4-ids", False),  # 5765 and 2995 are "<quote" and " eng"
        ("gpt2-vocab-slice", False),  # 262 is " the", 263 "er", 464 "The"
        ("premium-hindi-japanese", False),  # Hindi 6.7x under gpt2
        ("gpt5-harmony", False),  # tiktoken maps gpt-5 to o200k_base
        ("gpt4o-fewer-tokens", True),  # each ratio within 10% on the book's passage
    ],
)
def test_known_verdicts(checked, claim_id, agrees):
    assert checked[claim_id].agrees is agrees, checked[claim_id].shown


def test_three_of_the_seven_gpt2_ids_are_wrong(checked):
    computed = checked["gpt2-vocab-slice"].computed
    assert {i: computed[i] for i in (262, 263, 464)} == {262: " the", 263: "er", 464: "The"}


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
    table = claims.table(["hug-encode", "gpt2-vocab-slice"])
    lines = table.markdown.splitlines()
    assert len(lines) == 2 + 2
    assert "{cite}`hf_course_bpe`" in lines[2]
    assert "\\[UNK\\]" in lines[2] and "\\<\\|endoftext\\|\\>" in lines[3]
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
        Claim("x", 11, "rfc3629", "x", 1, lambda: 1)


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
