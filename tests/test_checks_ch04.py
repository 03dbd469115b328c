"""The checks of chapter 04's exercises pass right answers and catch plausible wrong ones."""

import pytest
from check_helpers import line, passes

from book.checks import ch04
from book.checks.ch04 import (
    decode_fallback_reference,
    encode_fallback_reference,
    merge_and_save_reference,
    tie_ranks_reference,
    train_reference,
    wrong_counts_reference,
)
from book.tokenizers.bpe.char_bpe import apply_merges, initial_splits, merge_pair, pair_counts


def test_right_answers_pass(capsys):
    assert passes(capsys, ch04.check_merge_and_save, merge_and_save_reference)
    assert passes(capsys, ch04.check_train_bpe, train_reference)
    assert passes(capsys, ch04.check_tie_ranks, tie_ranks_reference)
    assert passes(capsys, ch04.check_encode_fallback, encode_fallback_reference)
    assert passes(capsys, ch04.check_decode_fallback, decode_fallback_reference)
    assert passes(capsys, ch04.check_wrong_counts, wrong_counts_reference)


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch04.check_train_bpe, not_yet)
    assert "not defined" in line(capsys, ch04.check_tie_ranks, None)


def save_is_the_count(splits, freqs, pair):
    """The pair's weighted count instead of the tokens removed: wrong where the pair overlaps."""
    return merge_pair(splits, pair), pair_counts(splits, freqs).get(pair, 0)


def save_in_place(splits, freqs, pair):
    saved = merge_and_save_reference(splits, freqs, pair)[1]
    splits.update(merge_pair(splits, pair))
    return splits, saved


@pytest.mark.parametrize(
    "wrong",
    [
        save_is_the_count,
        save_in_place,
        lambda s, f, p: (merge_pair(s, p), sum(len(s[w]) - len(merge_pair(s, p)[w]) for w in s)),
        lambda s, f, p: ({w: list(t) for w, t in merge_pair(s, p).items()}, 0),  # lists
    ],
    ids=["count-not-saving", "mutates-input", "unweighted", "lists"],
)
def test_merge_and_save_catches(capsys, wrong):
    assert not passes(capsys, ch04.check_merge_and_save, wrong)


def test_merge_and_save_names_the_overlap(capsys):
    assert "overlaps itself" in line(capsys, ch04.check_merge_and_save, save_is_the_count)
    assert "unchanged" in line(capsys, ch04.check_merge_and_save, save_in_place)


def train_with(pick, freqs, num_merges, end_of_word="</w>", tie_break="first"):
    """A trainer that chooses the pair with pick(counts, tie_break); the rest is right."""
    splits, merges = initial_splits(freqs, end_of_word), []
    for _ in range(num_merges):
        counts = pair_counts(splits, freqs)
        if not counts:
            break
        best = pick(counts, tie_break)
        merges.append((best, counts[best]))
        splits = merge_pair(splits, best)
    return merges


def tied(counts):
    return [pair for pair, n in counts.items() if n == max(counts.values())]


@pytest.mark.parametrize(
    "pick",
    [
        lambda counts, rule: tied(counts)[0],  # ignores the rule
        lambda counts, rule: tied(counts)[0] if rule == "first" else min(tied(counts)),  # smallest
        lambda counts, rule: tied(counts)[-1] if rule == "first" else max(tied(counts)),  # last
        lambda counts, rule: max(counts),  # greatest pair regardless of count
    ],
    ids=["ignores-rule", "smallest-wins", "last-seen-wins", "not-most-frequent"],
)
def test_train_bpe_catches_wrong_tie_breaks(capsys, pick):
    assert not passes(capsys, ch04.check_train_bpe, lambda *args: train_with(pick, *args))


def test_train_bpe_catches_no_error_for_an_unknown_rule(capsys):
    def lenient(freqs, num_merges, end_of_word="</w>", tie_break="first"):
        rule = tie_break if tie_break in ("first", "lexicographic") else "first"
        return train_reference(freqs, num_merges, end_of_word, rule)

    assert "ValueError" in line(capsys, ch04.check_train_bpe, lenient)


@pytest.mark.parametrize(
    "wrong",
    [
        lambda f, n, eow="</w>": [(r + 1, k) for r, k in tie_ranks_reference(f, n, eow)],  # from 1
        lambda f, n, eow="</w>": [(r, 2) for r, _ in tie_ranks_reference(f, n, eow)],  # pairs of 2
        lambda f, n, eow="</w>": tie_ranks_reference(f, n, "</w>"),  # ignores the marker
        lambda f, n, eow="</w>": (
            [(r, k) for r, k in tie_ranks_reference(f, n + 5, eow) if r < n] + [(n, 2)]
        ),  # one round too many
    ],
    ids=["off-by-one", "always-two", "ignores-marker", "extra-round"],
)
def test_tie_ranks_catches(capsys, wrong):
    assert not passes(capsys, ch04.check_tie_ranks, wrong)


def fallback_per_character(text, merges, alphabet):
    """One <U+XXXX>-style token per unknown character instead of one per byte."""
    tokens = []
    for word in text.split():
        symbols = tuple(ch if ch in alphabet else f"<0x{ord(ch):02X}>" for ch in word)
        tokens += apply_merges((*symbols, "</w>"), merges)
    return tokens


@pytest.mark.parametrize(
    "wrong",
    [
        fallback_per_character,
        lambda t, m, a: [x.lower() for x in encode_fallback_reference(t, m, a)],  # lower-case hex
        lambda t, m, a: encode_fallback_reference(t, m[::-1], a),  # merges in reverse
        lambda t, m, a: [x for x in encode_fallback_reference(t, m, a) if x != "</w>"],  # no marker
    ],
    ids=["characters-not-bytes", "lowercase-hex", "reverse-order", "drops-marker"],
)
def test_encode_fallback_catches(capsys, wrong):
    assert not passes(capsys, ch04.check_encode_fallback, wrong)


def decode_token_by_token(tokens):
    """Decodes each byte token on its own: breaks every multi-byte character."""
    out = []
    for token in tokens:
        if token.startswith("<0x"):
            out.append(bytes([int(token[3:5], 16)]).decode("utf-8", errors="replace"))
        else:
            out.append(token.replace("</w>", " "))
    return "".join(out).removesuffix(" ")


@pytest.mark.parametrize(
    "wrong",
    [
        decode_token_by_token,
        lambda tokens: decode_fallback_reference(tokens) + " ",  # keeps the last space
        lambda tokens: (
            b"".join(
                bytes([int(t[3:5], 16)]) if t.startswith("<0x") else t.encode() for t in tokens
            )
            .decode()
            .replace("</w>", " ")
            .removesuffix(" ")
        ),  # replaces the marker after decoding: bytes spelling it too
        lambda tokens: (
            b"".join(
                bytes([int(t[3:5], 16)]) if t.startswith("<0x") else t.encode() for t in tokens
            )
            .decode("utf-8", errors="replace")
            .replace("</w>", " ")
            .removesuffix(" ")
        ),  # replaces instead of raising
    ],
    ids=["token-by-token", "trailing-space", "marker-after-decoding", "not-strict"],
)
def test_decode_fallback_catches(capsys, wrong):
    assert not passes(capsys, ch04.check_decode_fallback, wrong)


@pytest.mark.parametrize(
    "wrong",
    [
        lambda claimed, freqs, eow: {("w", "e"): 8},  # the one answer the chapter shows
        lambda claimed, freqs, eow: wrong_counts_reference(claimed, freqs, "</w>"),
        lambda claimed, freqs, eow: {
            p: c for p, c in wrong_counts_reference(claimed, freqs, eow).items() if c
        },  # drops pairs that never occur
        lambda claimed, freqs, eow: {
            p: claimed[p] for p in wrong_counts_reference(claimed, freqs, eow)
        },  # the claims, not the true counts
    ],
    ids=["constant", "ignores-marker", "drops-zero", "claimed-values"],
)
def test_wrong_counts_catches(capsys, wrong):
    assert not passes(capsys, ch04.check_wrong_counts, wrong)


def test_lexicographic_reference_is_cs336s_rule():
    freqs = {"ab": 2, "ba": 2, "cd": 1}
    assert train_reference(freqs, 1, None, "first") == [(("a", "b"), 2)]
    assert train_reference(freqs, 1, None, "lexicographic") == [(("b", "a"), 2)]


def test_byte_fallback_round_trips_any_text():
    from hypothesis import given
    from hypothesis import strategies as st

    merges = train_reference({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
    alphabet = sorted(set("lowernstid"))

    @given(st.lists(st.text(min_size=1).map(lambda s: "".join(s.split())).filter(bool)))
    def round_trip(words):
        text = " ".join(words)
        tokens = encode_fallback_reference(text, merges, alphabet)
        assert decode_fallback_reference(tokens) == text

    round_trip()
