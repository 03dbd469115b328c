"""Old page addresses that keep working after the book's chapters were renumbered (issue 30).

Chapters 08-10 became 09-11 when "Reading real tokenizers" took slot 08, and two sections left
their chapters for appendices. After an HTML build, each old page that no longer exists gets a
small page that sends the reader on: a ``meta refresh`` for any browser, and a script that keeps
the ``#section`` of the old address, or follows a section to the page it moved to.

>>> redirect_target("chapters/09_fast_bpe", "the-cost-model")
'appendix/a_counting_on_a_cluster#the-cost-model'
>>> redirect_target("chapters/08_real_tokenizers", "gotcha-case")
'chapters/09_real_tokenizers#gotcha-case'
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path

RENAMED = {"08_real_tokenizers": "09_real_tokenizers", "09_fast_bpe": "10_fast_bpe"}
RENAMED["10_beyond_bpe"] = "11_beyond_bpe"
# Every renamed chapter had its exercises and solutions under the same name.
PAGES = {
    f"{folder}/{old}": f"{folder}/{new}"
    for folder in ("chapters", "exercises", "solutions")
    for old, new in RENAMED.items()
}
CLUSTER = "appendix/a_counting_on_a_cluster"
# Sections whose page changed: old page -> {old section id: new page#section}.
MOVED_SECTIONS = {
    "chapters/09_fast_bpe": {
        "ch09-dask": f"{CLUSTER}#beyond-one-machine",
        "beyond-one-machine-counting-on-a-dask-cluster": f"{CLUSTER}#beyond-one-machine",
        "what-is-distributed-and-what-is-not": f"{CLUSTER}#what-is-distributed-and-what-is-not",
        "the-cost-model": f"{CLUSTER}#the-cost-model",
        "the-same-code-on-a-real-cluster": f"{CLUSTER}#the-same-code-on-a-real-cluster",
    }
}


def redirect_target(old_page: str, section: str = "") -> str:
    """Where an old page (and one of its sections) lives now, as ``page#section``."""
    moved = MOVED_SECTIONS.get(old_page, {})
    if section in moved:
        return moved[section]
    return PAGES[old_page] + (f"#{section}" if section else "")


def redirect_html(old_page: str) -> str:
    """The HTML of the page left at ``old_page``'s address."""
    here = os.path.dirname(old_page)
    new = os.path.relpath(PAGES[old_page], here) + ".html"
    sections = {
        section: os.path.relpath(target.split("#")[0], here) + ".html#" + target.split("#")[1]
        for section, target in MOVED_SECTIONS.get(old_page, {}).items()
    }
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Moved to {html.escape(new)}</title>
<meta http-equiv="refresh" content="0; url={html.escape(new)}">
<link rel="canonical" href="{html.escape(new)}">
<script>
const moved = {json.dumps(sections)};
const section = location.hash.slice(1);
location.replace(moved[section] || "{new}" + location.hash);
</script>
</head>
<body>
<p>This page moved: <a href="{html.escape(new)}">{html.escape(new)}</a>.</p>
</body>
</html>
"""


def write_redirects(outdir: Path) -> list[Path]:
    """Write the page of every old address that the build did not fill; the pages written."""
    written = []
    for old_page in PAGES:
        path = outdir / f"{old_page}.html"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(redirect_html(old_page), encoding="utf-8")
            written.append(path)
    return written
