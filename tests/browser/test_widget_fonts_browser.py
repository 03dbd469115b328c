"""Where html-manager's style sheets look for the widget fonts, read from its own script.

``book.site.widget_fonts`` copies the fonts into the folders named by ``WHERE``. Each bundled
module that references a font takes its public path from its AMD ``module.uri``, which is its
``define()`` name resolved against the page's folder: the folders are those names' folders.
"""

from __future__ import annotations

import posixpath
import re

import pytest

from book.site.widget_fonts import FONTS, WHERE, sha256

pytestmark = [pytest.mark.browser]

DEFINE = re.compile(r'define\("([^"]+)"')


def test_fonts_are_copied_where_each_module_with_fonts_looks(widget_js):
    embed = widget_js.cdn_url("@jupyter-widgets/html-manager", "dist/embed-amd.js")
    path = widget_js.local_path(embed)
    assert path is not None, f"{embed} is not in .cache/widget-js"
    script = path.read_text(encoding="utf-8")
    modules = [(match.start(), match.group(1)) for match in DEFINE.finditer(script)]
    folders = set()
    for name in FONTS:
        for match in re.finditer(re.escape(name), script):
            module = [defined for start, defined in modules if start < match.start()][-1]
            folders.add(posixpath.dirname(module))
    assert folders == {where.as_posix() for where in WHERE}
    # The same files html-manager ships beside its script, byte for byte (by SHA-256).
    for name, (_, expected) in FONTS.items():
        assert sha256((path.parent / name).read_bytes()) == expected, name
