"""references.bib: every entry findable by a reader, and nothing the rendered page shows raw."""

import re

from notebook_paths import ROOT

BIB = (ROOT / "references.bib").read_text(encoding="utf-8")
ENTRIES = re.findall(r"^@(\w+)\{([^,\s]+),(.*?)^\}", BIB, re.M | re.S)
# Where a reader finds a source: a link, a DOI, an arXiv id, or the venue it appeared in.
FINDABLE = ("url", "doi", "eprint", "journal", "booktitle", "publisher", "isbn")
# LaTeX the bibliography renderer (pybtex through sphinxcontrib-bibtex) turns into text;
# anything else, \texttt{...} for one, reaches the page as written.
RENDERED = {"url"}


def fields(body: str) -> dict[str, str]:
    return {name.lower(): value for name, value in re.findall(r"^\s*(\w+)\s*=\s*(.*)$", body, re.M)}


def test_the_bibliography_has_entries():
    assert len(ENTRIES) > 20, "the entry pattern no longer matches references.bib"


def test_every_entry_says_where_a_reader_finds_it():
    lost = []
    for _kind, key, body in ENTRIES:
        found = fields(body)
        linked = "\\url{" in found.get("howpublished", "") or "\\url{" in found.get("note", "")
        if not linked and not any(name in found for name in FINDABLE):
            lost.append(key)
    assert not lost, f"entries with no URL, DOI or venue: {lost}"


def test_no_latex_command_reaches_the_page_raw():
    raw = {
        key: sorted(set(commands) - RENDERED)
        for _kind, key, body in ENTRIES
        if (commands := re.findall(r"\\([A-Za-z]+)", body)) and set(commands) - RENDERED
    }
    assert not raw, f"LaTeX commands the rendered bibliography prints as written: {raw}"


def test_each_key_names_one_entry():
    # A repeated key makes the bibliography parser drop the file's data: every citation breaks.
    keys = [key for _kind, key, _body in ENTRIES]
    assert not {key for key in keys if keys.count(key) > 1}


def test_every_citation_in_a_notebook_names_an_entry():
    keys = {key for _kind, key, _body in ENTRIES}
    cited = {
        (path.relative_to(ROOT).as_posix(), key.strip())
        for folder in ("chapters", "solutions", "exercises", "appendix")
        for path in sorted((ROOT / folder).glob("*.ipynb"))
        for group in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", path.read_text(encoding="utf-8"))
        for key in group.split(",")
    }
    assert not {(where, key) for where, key in cited if key not in keys}
