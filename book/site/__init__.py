"""The rendered book's own page fixes: a Sphinx extension (``sphinx.extra_extensions`` in
``_config.yml``).

- ``static/book.css``: code and output blocks hold 79 characters at the theme's 1280 px layout
  (less padding), and wrap instead of scrolling sideways where the window is narrower;
- one copy of each script: jupyter-book adds sphinx-thebe's and sphinx-togglebutton's inline
  scripts twice, and the second ``const THEBE_JS_URL`` throws on every page;
- a default colour mode (``default_mode``), without which pydata-sphinx-theme logs "invalid
  theme mode" on every page;
- the widget fonts, copied where the widget style sheet looks for them (``widget_fonts``).
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

    >>> from sphinx.builders.html._assets import _JavaScript
    >>> script_key(_JavaScript(None, body="const x = 1")) == script_key(
    ...     _JavaScript(None, priority=800, body="const x = 1"))
    True
    """
    attributes = getattr(script, "attributes", {})
    return (str(getattr(script, "filename", script)), tuple(sorted(attributes.items())))


def one_copy_of_each_script(
    app: Any, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    """Drop repeated script entries from a page, keeping the first of each."""
    seen, kept = set(), []
    for script in context.get("script_files", []):
        key = script_key(script)
        if key not in seen:
            seen.add(key)
            kept.append(script)
    context["script_files"] = kept


def copy_widget_fonts(app: Any, exception: Exception | None) -> None:
    """After a successful HTML build, put the widget fonts beside every page with widgets."""
    if exception is None and app.builder.format == "html":
        from book.site.widget_fonts import copy_beside_widget_pages

        copy_beside_widget_pages(Path(app.outdir))


def setup(app: Any) -> dict:
    """Sphinx's entry point."""
    app.connect("config-inited", set_defaults)
    app.add_css_file("book.css")
    app.connect("html-page-context", one_copy_of_each_script)
    app.connect("build-finished", copy_widget_fonts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
