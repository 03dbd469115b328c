"""The rendered book's own page fixes: a Sphinx extension (``sphinx.extra_extensions`` in
``_config.yml``).

- ``static/book.css``: code and output blocks hold 79 characters at the theme's 1280 px layout
  (less padding), and wrap instead of scrolling sideways where the window is narrower;
- one copy of each script: sphinx-thebe and sphinx-togglebutton add their inline scripts after
  the builder has started, so Sphinx lists each twice (once from its registry, with the file
  name ``''``, once directly, with ``None``), and the second ``const THEBE_JS_URL`` throws on
  every page;
- a default colour mode (``default_mode``), without which pydata-sphinx-theme logs "invalid
  theme mode" on every page;
- the widget fonts, copied where the widget style sheet looks for them (``widget_fonts``);
- old page addresses that still lead somewhere after the chapters were renumbered
  (``redirects``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

STATIC = Path(__file__).resolve().parent / "static"
# Light: the book's chips and figures are drawn for a light page (the reader can switch).
DEFAULT_MODE = "light"


def set_defaults(app: Any, config: Any) -> None:
    """Add the style sheet's folder and the default colour mode (unless the book sets one)."""
    config.html_static_path.append(str(STATIC))
    config.html_context.setdefault("default_mode", DEFAULT_MODE)


def script_key(script: Any) -> tuple:
    """What makes two script entries the same: the file, and the attributes (the inline body).

    An inline script has no file, which Sphinx writes as ``None`` or ``''`` depending on the
    way it was added; both are the same script on the page.

    >>> from sphinx.builders.html._assets import _JavaScript
    >>> script_key(_JavaScript(None, body="const x = 1")) == script_key(
    ...     _JavaScript("", priority=800, body="const x = 1"))
    True
    """
    attributes = getattr(script, "attributes", {})
    filename = getattr(script, "filename", script) or None
    return (str(filename), tuple(sorted(attributes.items())))


def one_copy_of_each_script(
    app: Any, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    """Drop repeated script entries from a page, keeping the first of each.

    The list is changed in place: it is the builder's own list, to which other extensions'
    handlers of this event still add (pydata-sphinx-theme adds the page's name).
    """
    scripts = context.get("script_files", [])
    seen, kept = set(), []
    for script in scripts:
        key = script_key(script)
        if key not in seen:
            seen.add(key)
            kept.append(script)
    scripts[:] = kept


def copy_widget_fonts(app: Any, exception: Exception | None) -> None:
    """After a successful HTML build, put the widget fonts beside every page with widgets."""
    if exception is None and app.builder.format == "html":
        from book.site.widget_fonts import copy_beside_widget_pages

        copy_beside_widget_pages(Path(app.outdir))


def write_redirect_pages(app: Any, exception: Exception | None) -> None:
    """After a successful HTML build, leave a page at every old address that moved."""
    if exception is None and app.builder.format == "html":
        from book.site.redirects import write_redirects

        write_redirects(Path(app.outdir))


def setup(app: Any) -> dict:
    """Sphinx's entry point."""
    app.connect("config-inited", set_defaults)
    app.add_css_file("book.css")
    # Last among the handlers of the page's context, after every other one has added its scripts.
    app.connect("html-page-context", one_copy_of_each_script, priority=900)
    app.connect("build-finished", copy_widget_fonts)
    app.connect("build-finished", write_redirect_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
