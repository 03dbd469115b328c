"""Tests for book.show.viewer: a text as chips under tiktoken's and the book's tokenizers."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from book.encodings import get_encoding
from book.show.fallback import HIDE_STATIC_CSS
from book.show.viewer import (
    NEEDS_JS,
    TokenViewer,
    compare,
    ids_view,
    load,
    special_ids,
    token_piece,
    token_view,
    token_viewer,
)
from book.tokenizers.basic.characters import CharTokenizer
from book.tokenizers.basic.words import WordTokenizer
from book.tokenizers.bpe.char_bpe import CharBPE
from book.tokenizers.bpe.regex_bpe import RegexTokenizer

ENCODINGS = ["gpt2", "cl100k_base", "o200k_base"]


class PageParser(HTMLParser):
    """Collects every tag name, the text of each chip, of each id and of the header."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.chips: list[str] = []
        self.ids: list[str] = []
        self.head = ""
        self._where: list[str] = []  # the kind of each open element we are inside

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.add(tag)
        classes = dict(attrs).get("class", "").split()
        kind = next((k for k in ("tfs-chip", "tfs-id", "tfs-tokview-head") if k in classes), "")
        if kind == "tfs-chip":
            self.chips.append("")
        elif kind == "tfs-id":
            self.ids.append("")
        self._where.append(kind)

    def handle_endtag(self, tag: str) -> None:
        if self._where:
            self._where.pop()

    def handle_data(self, data: str) -> None:
        if "tfs-id" in self._where:
            self.ids[-1] += data
        elif "tfs-chip" in self._where:
            self.chips[-1] += data
        elif "tfs-tokview-head" in self._where:
            self.head += data


def parse(html_text: str) -> PageParser:
    """Parse a rendered view."""
    parser = PageParser()
    parser.feed(html_text)
    return parser


@pytest.mark.parametrize("name", ENCODINGS)
def test_a_multi_token_emoji_shows_as_hex_bytes_not_replacement_characters(name):
    view = token_view("🌍", name)
    assert view.n_tokens > 1 and b"".join(view.pieces) == "🌍".encode()
    page = parse(view.html())
    assert page.chips == [f"<{' '.join(f'{b:02x}' for b in piece)}>" for piece in view.pieces]
    assert "\ufffd" not in view.html()


def test_a_whole_character_token_shows_as_the_character():
    view = token_view("😀", "o200k_base")
    assert view.pieces == ("😀".encode(),)
    assert parse(view.html()).chips == ["😀"]


@pytest.mark.parametrize("name", ENCODINGS)
def test_script_in_the_text_is_shown_never_executed(name):
    text = '<script>alert("x")</script><img src=x onerror=alert(1)> & &amp;'
    html_text = token_view(text, name).html()
    page = parse(html_text)
    assert page.tags <= {"style", "div", "span", "b"}
    assert "<script" not in html_text and "<img" not in html_text
    assert "".join(page.chips).replace("·", " ") == text


@given(st.text(max_size=40))
@example("a <|fim_middle|> b")
def test_any_text_gives_only_the_viewers_own_markup(text):
    if any(special in text for special in get_encoding("cl100k_base").special_tokens_set):
        # As tiktoken's encode: the text of a special token is refused unless allowed_special
        # names it (hypothesis draws such strings from the constants in the book's modules).
        with pytest.raises(ValueError, match="disallowed special token"):
            token_view(text, "cl100k_base")
        return
    view = token_view(text, "cl100k_base")
    assert b"".join(view.pieces) == text.encode("utf-8")
    assert parse(view.html()).tags <= {"style", "div", "span", "b"}


def test_whitespace_is_visible_and_ids_are_shown():
    view = token_view("a b\n\tc", "gpt2")
    page = parse(view.html())
    assert "·" in "".join(page.chips) and "↵" in "".join(page.chips) and "→" in "".join(page.chips)
    assert page.ids == [str(i) for i in view.ids]


def test_header_gives_count_and_bytes_per_token():
    view = token_view("Hello, world! How are you?", "o200k_base")
    assert (view.n_tokens, view.n_bytes) == (8, 26)
    assert view.bytes_per_token == 26 / 8
    assert parse(view.html()).head == "o200k_base · 8 tokens · 26 bytes · 3.25 bytes per token"
    assert repr(view) == "TokenView('o200k_base', 8 tokens, 3.25 bytes per token)"


def test_empty_text_has_no_tokens_and_still_renders():
    view = token_view("", "gpt2")
    assert (view.n_tokens, view.bytes_per_token) == (0, 0.0)
    assert parse(view.html()).chips == []


def test_the_style_sheet_can_be_left_out():
    view = token_view("hi", "gpt2")
    assert "<style>" in view.html() and "<style>" not in view.html(css=False)
    assert view._repr_html_() == view.html()


def test_label_replaces_the_name():
    assert token_view("hi", "gpt2", label="GPT-2").name == "GPT-2"


def test_book_tokenizers_are_shown_with_their_own_pieces():
    chars = CharTokenizer.train("the cat")
    words = WordTokenizer.train("the cat sat", unk=True)
    bpe = CharBPE([(("a", "t"), 2)], ["a", "c", "t"])
    regex_bpe = RegexTokenizer([((104, 105), 2)], special_tokens={"<|end|>": 300})
    assert token_view("tac", chars).pieces == (b"t", b"a", b"c")
    assert token_view("the dog", words).pieces == (b"the", b"<unk>")
    assert token_view("cat", bpe).pieces == (b"c", b"at", b"</w>")
    assert token_view("hi!", regex_bpe).pieces == (b"hi", b"!")
    assert token_view("hi", chars.__class__.train("hi")).name == "CharTokenizer"


def test_special_tokens_are_outlined():
    view = token_view("hi<|endoftext|>", "gpt2", allowed_special="all")
    assert view.ids[-1] == 50256 and view.highlight == (len(view.ids) - 1,)
    assert view.html().count('class="tfs-chip tfs-hl"') == 1
    regex_bpe = RegexTokenizer([((104, 105), 2)], special_tokens={"<|end|>": 300})
    assert token_view("hi<|end|>", regex_bpe, allowed_special="all").highlight == (1,)
    assert special_ids(regex_bpe) == {300}
    assert special_ids(CharTokenizer.train("a")) == frozenset()


def test_special_token_text_is_refused_unless_allowed():
    with pytest.raises(ValueError, match="disallowed special token"):
        token_view("<|endoftext|>", "gpt2")


def test_unknown_encoding_names_the_choices():
    with pytest.raises(ValueError, match="cl100k_base"):
        load("p99k_base")


def test_a_tokenizer_without_pieces_is_refused_with_advice():
    class Opaque:
        def encode(self, text):
            return [1]

    with pytest.raises(TypeError, match="decode_single_token_bytes"):
        token_view("x", Opaque())


def test_token_piece_reads_each_kind_of_tokenizer():
    assert token_piece(get_encoding("gpt2"), 262) == b" the"
    assert token_piece(WordTokenizer(["a"], unk=True), 1) == b"<unk>"


def test_ids_view_shows_ids_made_without_encode():
    tok = RegexTokenizer([((104, 105), 2)], special_tokens={"<|end|>": 300})
    view = ids_view(tok, [256, 300, 256], label="by hand")
    assert view.pieces == (b"hi", b"<|end|>", b"hi") and view.highlight == (1,)
    assert view.text == "hi<|end|>hi" and view.name == "by hand"
    assert "<b>1</b> token ·" in ids_view(tok, [256]).html()
    assert "<b>3</b> tokens ·" in view.html()


def test_compare_shows_each_tokenizer_once_with_one_style_sheet():
    views = compare("Hello world", {"mine": CharTokenizer.train("Helo wrd"), "o200k": "o200k_base"})
    assert [view.name for view in views.views] == ["mine", "o200k"]
    assert [view.n_tokens for view in views.views] == [11, 2]
    assert views.html().count("<style>") == 2  # the chips' and the viewer's, once each
    assert views._repr_html_() == views.html()
    assert repr(views).count("TokenView(") == 2


def test_widget_shows_every_encoding_and_switches():
    widget = token_viewer("Hello 🌍")
    assert widget.tokenizer == "gpt2" and widget.view.n_tokens == 4
    widget.tokenizer = "o200k_base"
    assert widget._stack.selected_index == 2 and widget.view.n_tokens == 3
    assert widget.view_html == widget.view.html(css=False)
    with pytest.raises(ValueError, match="no tokenizer"):
        widget.tokenizer = "p50k_base"
    widget.close()


def test_widget_retokenizes_typed_text():
    widget = TokenViewer("a", ["gpt2", "o200k_base"])
    widget._text_box.value = "strawberry"  # what typing in the browser does
    assert widget.text == "strawberry" and widget.view.ids == tuple(
        get_encoding("gpt2").encode("strawberry")
    )
    widget.close()


def test_widget_shows_an_error_instead_of_failing():
    widget = TokenViewer("<|endoftext|> <b>", ["o200k_base"])
    assert widget.view is None
    assert "cannot encode this text" in widget.view_html and "<b>" not in widget.view_html
    widget.text = "fine"
    assert widget.view.n_tokens == 1
    widget.close()


def test_widget_takes_labelled_book_tokenizers():
    widget = TokenViewer("the cat", {"characters": CharTokenizer.train("the cat")})
    assert widget.tokenizer == "characters" and widget.view.n_tokens == 7
    widget.close()


def test_widget_needs_a_tokenizer():
    with pytest.raises(ValueError, match="at least one tokenizer"):
        TokenViewer("x", [])


def test_static_copy_shows_every_tokenizer_and_the_widget_hides_it():
    widget = TokenViewer("Hi 🌍", ["gpt2", "o200k_base"])
    static = widget.static_html()
    assert 'class="tfs-static"' in static and NEEDS_JS in static
    for name in ("gpt2", "o200k_base"):
        widget.tokenizer = name
        assert widget.view_html in static  # each tokenizer's view, as the menu would show it
    assert HIDE_STATIC_CSS not in static  # else the copy would hide itself
    assert HIDE_STATIC_CSS in widget.children[0].value  # the widget's own style sheet
    widget.close()


def test_displaying_the_widget_shows_the_static_copy_first(monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, **kw: shown.append(obj))
    widget = TokenViewer("Hi", ["gpt2"])
    widget._ipython_display_()
    assert shown[0].data == widget.static_html()
    assert "application/vnd.jupyter.widget-view+json" in shown[1]
    widget.close()
