"""Tests for book.show.chips: a segmentation rendered as coloured, escaped HTML chips."""

from __future__ import annotations

import ast
from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st

from book.show.chips import (
    CHIP_COLORS,
    CHIPS_CSS,
    VISIBLE_WHITESPACE,
    ZERO_WIDTH,
    chips_html,
    color_index,
    hex_label,
    piece_html,
)


class ChipParser(HTMLParser):
    """Collects each chip's attributes and text, and every tag name seen."""

    def __init__(self) -> None:
        super().__init__()
        self.chips: list[dict] = []
        self.tags: set[str] = set()
        self._depth = 0  # >0 while inside a chip

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.add(tag)
        attributes = dict(attrs)
        if "tfs-chip" in attributes.get("class", "").split():
            self.chips.append({**attributes, "text": ""})
            self._depth = 1
        elif self._depth:
            self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self._depth:
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._depth:
            self.chips[-1]["text"] += data


def parse(html_text: str) -> ChipParser:
    """Parse rendered chips."""
    parser = ChipParser()
    parser.feed(html_text)
    return parser


def title_piece(title: str) -> str | bytes:
    """The exact piece a chip's tooltip names (``repr`` after an optional ``id N:``)."""
    return ast.literal_eval(title.split(": ", 1)[1] if title.startswith("id ") else title)


pieces_text = st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=12)
pieces_bytes = st.lists(st.binary(min_size=1, max_size=6), min_size=1, max_size=12)


@given(st.one_of(pieces_text, pieces_bytes))
def test_one_chip_per_piece_and_the_tooltip_names_the_exact_piece(pieces):
    chips = parse(chips_html(pieces)).chips
    assert [title_piece(chip["title"]) for chip in chips] == pieces


@given(pieces_text)
def test_piece_text_never_becomes_markup(pieces):
    # Whatever the pieces hold ("<script>", quotes, "&"), the only tags are the chips' own.
    assert parse(chips_html(pieces, css=False)).tags <= {"div", "span"}


def test_html_is_escaped_in_text_and_tooltip():
    html_text = chips_html(['<b>"x"</b>', "&amp;"], css=False)
    assert "<b>" not in html_text
    assert "&lt;b&gt;" in html_text and "&amp;amp;" in html_text
    assert [chip["text"] for chip in parse(html_text).chips] == ['<b>"x"</b>', "&amp;"]


@pytest.mark.parametrize("char", sorted(VISIBLE_WHITESPACE))
def test_whitespace_is_made_visible(char):
    text = parse(chips_html([f"a{char}b"])).chips[0]["text"]
    assert text == f"a{VISIBLE_WHITESPACE[char]}b"


def test_control_characters_show_as_control_pictures():
    assert parse(chips_html(["\x00\x1b"])).chips[0]["text"] == "\u2400\u241b"


def test_end_of_word_marker_is_shown_apart_from_the_text():
    assert piece_html("g</w>") == 'g<span class="tfs-eow">&lt;/w&gt;</span>'
    # Every tokenizer shows its tokens as bytes (token_bytes), character-level BPE's too.
    assert piece_html(b"g</w>") == piece_html("g</w>")


def test_bytes_that_are_whole_utf8_show_as_text():
    assert parse(chips_html(["é".encode()])).chips[0]["text"] == "é"


def test_partial_utf8_shows_as_hex():
    partial = "你".encode()[:2]
    assert hex_label(partial) == "<" + " ".join(f"{b:02x}" for b in partial) + ">"
    assert parse(chips_html([partial])).chips[0]["text"] == hex_label(partial)


def test_ids_are_shown_and_colour_the_chips():
    pieces, ids = ["a", "b", "c"], [3, 4, 3 + len(CHIP_COLORS)]
    chips = parse(chips_html(pieces, ids)).chips
    assert [chip["text"] for chip in chips] == [p + str(i) for p, i in zip(pieces, ids)]
    # Same id modulo the palette size, same colour: colours come from ids when given.
    assert chips[0]["style"] == chips[2]["style"] == f"background:{CHIP_COLORS[3]}"


@given(st.one_of(pieces_text, pieces_bytes))
def test_neighbouring_chips_never_share_a_colour(pieces):
    styles = [chip["style"] for chip in parse(chips_html(pieces)).chips]
    assert all(left != right for left, right in zip(styles, styles[1:]))


def test_ids_must_match_pieces():
    with pytest.raises(ValueError, match="one id per piece"):
        chips_html(["a", "b"], [1])


def test_same_piece_same_colour_from_the_palette():
    chips = parse(chips_html(["hu", "g", "hu"])).chips
    assert chips[0]["style"] == chips[2]["style"]
    assert all(chip["style"].removeprefix("background:") in CHIP_COLORS for chip in chips)
    assert color_index("hu") == color_index(b"hu")  # the same text keeps its colour as bytes


def test_highlight_outlines_the_given_positions():
    chips = parse(chips_html(["a", "b", "c"], highlight=[0, 2])).chips
    assert ["tfs-hl" in chip["class"] for chip in chips] == [True, False, True]


def test_newlines_break_the_row_unless_asked_not_to():
    assert chips_html(["a\n", "b"], css=False).count("tfs-br") == 1
    assert "tfs-br" not in chips_html(["a\n", "b"], break_lines=False, css=False)


def test_style_sheet_is_optional():
    assert chips_html(["a"]).startswith(CHIPS_CSS)
    assert "<style>" not in chips_html(["a"], css=False)


def test_a_lone_end_of_word_token_is_shown_full_size():
    # Some trainers keep </w> as a token of its own until a merge joins it to a character.
    assert 'class="tfs-eow tfs-solo"' in piece_html("</w>")
    assert "tfs-solo" not in piece_html("g</w>")


@pytest.mark.parametrize("char", sorted(ZERO_WIDTH))
def test_zero_width_characters_are_named_not_hidden(char):
    family = "\U0001f468" + char + "\U0001f469"
    html_text = chips_html([family])
    assert ZERO_WIDTH[char] in html_text and char not in html_text
