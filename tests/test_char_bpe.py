"""Tests of the character-level BPE (book.tokenizers.bpe.char_bpe) and the walkthroughs' examples.

Each walkthrough example is run twice where it matters: on the article's own terms (its own
end-of-word marker, or none) to check its claims, and with this book's tokenizer (``</w>``).
Where a claim is wrong, the test asserts the computed value and says what the article claims.
"""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from book import corpora as book_corpora
from book import walkthroughs
from book.analysis.curves import tokens_after_merges
from book.show import showcase
from book.tokenizers import UNK_TOKEN, ByteTokenizer, Tokenizer
from book.tokenizers.bpe.char_bpe import (
    END_OF_WORD,
    CharBPE,
    apply_merges,
    initial_splits,
    learn_merges,
    merge_pair,
    pair_counts,
    word_freqs,
)
from book.tokenizers.bpe.core import build_vocab
from book.tokenizers.bpe.trace import Step
from book.tokenizers.bpe.train import train_merges
from book.tokenizers.errors import UnknownIdError, UnknownTokenError


def train(data, num_merges: int, *, unk: bool = False, tie_break: str = "first") -> CharBPE:
    """``CharBPE.train`` asked for ``num_merges`` merges: alphabet + ``</w>`` + merges (+ unk)."""
    freqs = word_freqs(data) if isinstance(data, str) else data
    alphabet = {ch for word in freqs if isinstance(word, str) for ch in word}
    vocab_size = len(alphabet) + 1 + unk + num_merges
    return CharBPE.train(data, vocab_size, unk=unk, tie_break=tie_break)


def article_terms_vocab(freqs: dict[str, int], marker: str | None, num_merges: int) -> list[str]:
    """The vocabulary as the articles list it: alphabet (and marker), then merged tokens."""
    merges, _ = learn_merges(initial_splits(freqs, end_of_word=marker), freqs, num_merges)
    alphabet = sorted({ch for word in freqs for ch in word})
    return alphabet + ([marker] if marker else []) + [a + b for (a, b), _ in merges]


# --- the pure functions, one by one --------------------------------------------------------


def test_word_freqs_counts_in_order_of_first_occurrence():
    assert list(word_freqs("b a b\tc\n a")) == ["b", "a", "c"]
    assert word_freqs("b a b\tc\n a") == {"b": 2, "a": 2, "c": 1}
    assert word_freqs("  \n ") == {}


def test_initial_splits_appends_the_marker_as_its_own_symbol():
    assert initial_splits({"low": 5, "a": 1}) == {
        "low": ("l", "o", "w", "</w>"),
        "a": ("a", "</w>"),
    }
    assert initial_splits({"low": 5}, end_of_word=None) == {"low": ("l", "o", "w")}
    assert initial_splits({"low": 5}, end_of_word="_") == {"low": ("l", "o", "w", "_")}


def test_pair_counts_are_weighted_and_ordered_by_first_occurrence():
    freqs = {"ab": 3, "ba": 2}
    counts = pair_counts(initial_splits(freqs), freqs)
    assert list(counts.items()) == [
        (("a", "b"), 3),
        (("b", "</w>"), 3),
        (("b", "a"), 2),
        (("a", "</w>"), 2),
    ]


def test_pair_counts_count_overlapping_pairs():
    assert pair_counts({"aaa": ("a", "a", "a")}, {"aaa": 5}) == {("a", "a"): 10}


def test_merge_pair_replaces_left_to_right_without_overlap():
    merged = merge_pair({"4": ("a",) * 4, "3": ("a",) * 3, "ab": ("a", "b"), "": ()}, ("a", "a"))
    assert merged == {"4": ("aa", "aa"), "3": ("aa", "a"), "ab": ("a", "b"), "": ()}
    assert merge_pair({"ab": ("a", "b")}, ("b", "a")) == {"ab": ("a", "b")}


def test_merge_pair_returns_new_splits_and_leaves_the_input_alone():
    splits = {"hug": ("h", "u", "g", "</w>"), "pun": ("p", "u", "n", "</w>")}
    merged = merge_pair(splits, ("u", "g"))
    assert merged == {"hug": ("h", "ug", "</w>"), "pun": ("p", "u", "n", "</w>")}
    assert splits["hug"] == ("h", "u", "g", "</w>")


def test_learn_merges_stops_early_when_every_word_is_one_token():
    freqs = {"ab": 2, "b": 1}
    merges, splits = learn_merges(initial_splits(freqs), freqs, 100)
    assert merges == [(("b", "</w>"), 3), (("a", "b</w>"), 2)]  # 2 merges of the 100 asked
    assert splits == {"ab": ("ab</w>",), "b": ("b</w>",)}


def test_learn_merges_with_zero_merges_learns_nothing():
    freqs = {"ab": 2}
    assert learn_merges(initial_splits(freqs), freqs, 0) == ([], initial_splits(freqs))


def test_apply_merges_replays_in_training_order():
    merges = [(("b", "c"), 5), (("a", "b"), 4)]
    # ("a", "b") would apply first if order were ignored; in training order "bc" wins.
    assert apply_merges(("a", "b", "c", "</w>"), merges) == ("a", "bc", "</w>")
    assert apply_merges(("a", "b", "d", "</w>"), merges) == ("ab", "d", "</w>")


def test_ties_go_to_the_pair_seen_first_in_the_training_data():
    # Every pair has count 1, so the order of the training data alone decides.
    assert train({"ab": 1, "ba": 1}, 1).merges == [(("a", "b"), 1)]
    assert train({"ba": 1, "ab": 1}, 1).merges == [(("b", "a"), 1)]
    assert train("ba ab", 1).merges == [(("b", "a"), 1)]


def test_train_on_text_equals_train_on_its_word_freqs():
    text = "the cat sat on the mat"
    assert train(text, 8).merges == train(word_freqs(text), 8).merges


def test_train_stops_early_and_says_so_in_len_merges():
    bpe = train("aa aa b", 50)
    assert bpe.merges == [(("a", "a"), 2), (("aa", "</w>"), 2), (("b", "</w>"), 1)]
    assert bpe.tokenize("aa b") == ["aa</w>", "b</w>"]


@pytest.mark.parametrize("vocab_size", [5, 0, 1.5, "9", True, None])
def test_train_rejects_a_vocab_size_below_the_alphabet_and_names_the_minimum(vocab_size):
    with pytest.raises(ValueError, match=r"vocab_size must be an int >= 6 .*5 characters.*</w>"):
        CharBPE.train("low lower", vocab_size)
    with pytest.raises(ValueError, match=r"vocab_size must be an int >= 7 .*<unk>"):
        CharBPE.train("low lower", 6, unk=True)


@pytest.mark.parametrize("num_merges", [-1, 1.5, "3", True, None])
def test_learn_merges_rejects_a_bad_num_merges(num_merges):
    freqs = {"low": 1}
    with pytest.raises(ValueError, match="num_merges must be an int >= 0"):
        learn_merges(initial_splits(freqs), freqs, num_merges)


def test_satisfies_the_tokenizer_interface():
    bpe = train("low lower newer wider", 5, unk=True)
    assert isinstance(bpe, Tokenizer)
    assert bpe.n_vocab == len(bpe.vocab) and bpe.unk_id == bpe.n_vocab - 1
    assert [bpe.token_bytes(i) for i in bpe.encode("lower")] == [b"low", b"er</w>"]
    assert bpe.token_bytes(bpe.unk_id) == b"<unk>"
    assert train("ab", 1).unk_id is None
    with pytest.raises(UnknownIdError):
        bpe.token_bytes(bpe.n_vocab)


def test_lexicographic_tie_break_prefers_the_greater_pair_of_bytes():
    assert train({"ab": 1, "ba": 1}, 1, tie_break="lexicographic").merges == [(("b", "a"), 1)]
    # UTF-8 bytes compare like code points: "é" (c3 a9) is greater than "z".
    merges = train({"az": 1, "aé": 1}, 1, tie_break="lexicographic").merges
    assert merges == [(("é", "</w>"), 1)]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("", "no words"),
        ("  \n", "no words"),
        ({}, "no words"),
        ({"a b": 1}, "without whitespace"),
        ({"": 1}, "non-empty"),
        ({"ab": 0}, "int >= 1"),
        ({"ab": 1.0}, "int >= 1"),
        ("a</w>b", "end-of-word marker"),
    ],
)
def test_train_rejects_bad_training_data(data, message):
    with pytest.raises(ValueError, match=message):
        train(data, 3)


def test_unk_string_is_reserved_only_when_unk_is_on():
    train("x<unk>y", 3)
    with pytest.raises(ValueError, match="reserves"):
        train("x<unk>y", 3, unk=True)


# --- the CharBPE class ---------------------------------------------------------------------


def test_vocab_is_alphabet_then_marker_then_merges_then_unk():
    bpe = train("low lower", 3, unk=True)
    assert bpe.vocab == ["e", "l", "o", "r", "w", "</w>", "lo", "low", "low</w>", "<unk>"]
    assert bpe.n_vocab == 10
    assert bpe.token_to_id["<unk>"] == 9
    # Turning <unk> on renumbers nothing.
    assert train("low lower", 3).vocab == bpe.vocab[:-1]


def test_vocab_lists_a_string_spelled_by_two_merges_once():
    merges = [(("a", "b"), 3), (("ab", "c"), 2), (("b", "c"), 2), (("a", "bc"), 1)]
    bpe = CharBPE(merges, ["a", "b", "c"])
    assert bpe.vocab == ["a", "b", "c", "</w>", "ab", "abc", "bc"]
    assert bpe.encode("abc") == [5, 3]


def test_tokenize_encode_decode_on_an_unseen_word():
    bpe = train(walkthroughs.LOW_WORD_FREQS, 10)
    assert bpe.tokenize("lowest") == ["low", "est</w>"]
    ids = bpe.encode("lowest")
    assert [bpe.vocab[i] for i in ids] == ["low", "est</w>"]
    assert bpe.decode(ids) == "lowest"


def test_decode_normalises_whitespace_and_that_is_all_it_loses():
    bpe = train(walkthroughs.LOW_TEXT, 10)
    text = "\n  newest\t\tlowest   low \n"
    assert bpe.decode(bpe.encode(text)) == "newest lowest low"


def test_empty_text():
    bpe = train("ab", 1)
    assert bpe.tokenize("") == [] and bpe.encode(" \n") == [] and bpe.decode([]) == ""
    assert bpe.trace("") == [Step(None, None, None, None, ())]


def test_unseen_character_raises_by_default_naming_it_and_the_fix():
    bpe = train(walkthroughs.LOW_TEXT, 5)
    with pytest.raises(UnknownTokenError) as info:
        bpe.encode("newest binded")
    assert info.value.token == "b"
    assert info.value.position == 7
    message = str(info.value)
    assert "'b' (U+0062)" in message and "position 7" in message and "unk=True" in message
    with pytest.raises(UnknownTokenError):
        bpe.trace("binded")


def test_unseen_characters_become_unk_when_trained_with_unk():
    bpe = train(walkthroughs.LOW_TEXT, 5, unk=True)
    assert bpe.tokenize("bé") == ["<unk>", "<unk>", "</w>"]
    assert bpe.encode("bé") == [bpe.n_vocab - 1, bpe.n_vocab - 1, bpe.token_to_id["</w>"]]
    assert bpe.decode(bpe.encode("a newest")) == "<unk> newest"


@pytest.mark.parametrize("bad_id", [-1, 21, 10**9, "3", 2.0, None, True])
def test_decode_rejects_ids_outside_the_vocabulary(bad_id):
    bpe = train(walkthroughs.LOW_TEXT, 10)
    assert bpe.n_vocab == 21
    with pytest.raises(UnknownIdError, match="valid ids are 0 to 20"):
        bpe.decode([0, bad_id])


def test_text_containing_the_marker_is_rejected_with_a_fix():
    bpe = train("a b", 1)
    with pytest.raises(ValueError, match="end-of-word marker"):
        bpe.encode("a</w>")


def test_repr():
    assert repr(train("low lower", 3)) == "CharBPE(n_vocab=9, merges=3, unk=False)"


# --- the trace -----------------------------------------------------------------------------


def test_trace_of_the_hug_corpus_step_by_step():
    bpe = train(walkthroughs.HUG_WORD_FREQS, 20)
    steps = bpe.trace("hugs bun")
    initial = ("h", "u", "g", "s", "</w>", "b", "u", "n", "</w>")
    assert steps[0] == Step(None, None, None, None, initial)
    assert [(s.rank, s.pair, s.new, s.count, s.pieces) for s in steps[1:]] == [
        (0, ("u", "g"), "ug", 20, ("h", "ug", "s", "</w>", "b", "u", "n", "</w>")),
        (1, ("u", "n"), "un", 16, ("h", "ug", "s", "</w>", "b", "un", "</w>")),
        (2, ("un", "</w>"), "un</w>", 16, ("h", "ug", "s", "</w>", "b", "un</w>")),
        (3, ("h", "ug"), "hug", 15, ("hug", "s", "</w>", "b", "un</w>")),
        (8, ("hug", "s"), "hugs", 5, ("hugs", "</w>", "b", "un</w>")),
        (9, ("hugs", "</w>"), "hugs</w>", 5, ("hugs</w>", "b", "un</w>")),
        (10, ("b", "un</w>"), "bun</w>", 4, ("hugs</w>", "bun</w>")),
    ]


def test_trace_uses_unk_like_tokenize():
    bpe = train(walkthroughs.LOW_TEXT, 5, unk=True)
    steps = bpe.trace("blow")
    assert steps[0].pieces == ("<unk>", "l", "o", "w", "</w>")
    assert steps[-1].pieces == tuple(bpe.tokenize("blow")) == ("<unk>", "low", "</w>")


def check_trace(bpe: CharBPE, text: str) -> None:
    """The trace invariants: start, end, shrinking pieces, increasing ranks, true labels."""
    steps = bpe.trace(text)
    words = text.split()
    assert steps[0].rank is None and steps[0].pieces == tuple(
        symbol for word in words for symbol in (*word, END_OF_WORD)
    )
    assert steps[-1].pieces == tuple(bpe.tokenize(text))
    for before, after in pairwise(steps):
        assert after.n_tokens <= before.n_tokens - 1
        assert before.rank is None or after.rank > before.rank
        assert after.pair == bpe.merges[after.rank][0]
        assert after.count == bpe.merges[after.rank][1]
        assert after.new == after.pair[0] + after.pair[1]
        assert after.new in after.pieces


def test_trace_invariants_on_the_walkthrough_corpora():
    check_trace(train(walkthroughs.HUG_WORD_FREQS, 20), "hug bug hugs pun pun")
    check_trace(train(walkthroughs.LOW_TEXT, 10), "lowest newer widest low low")
    check_trace(train(walkthroughs.CAT_TEXT, 15), walkthroughs.CAT_TEXT)


# --- the Hugging Face course: hug / pug / pun / bun / hugs --------------------------------


def test_hug_on_its_own_terms_no_marker():
    freqs, marker = walkthroughs.HUG_WORD_FREQS, walkthroughs.HUG_MARKER
    splits = initial_splits(freqs, end_of_word=marker)
    counts = pair_counts(splits, freqs)
    claimed = walkthroughs.HUG_CLAIMED_PAIR_COUNTS
    assert {pair: counts[pair] for pair in claimed} == claimed  # h+u 15, u+g 20
    assert max(counts, key=counts.get) == ("u", "g")  # "that honor belongs to ("u", "g")"
    # "The most frequent pair at this stage is ("u", "n")": after merge 1 ('p', 'u') is 12.
    after_first = pair_counts(merge_pair(splits, ("u", "g")), freqs)
    assert max(after_first, key=after_first.get) == ("u", "n") and after_first[("p", "u")] == 12
    merges, _ = learn_merges(splits, freqs, 3)
    assert merges == walkthroughs.HUG_CLAIMED_MERGES
    assert article_terms_vocab(freqs, marker, 3) == walkthroughs.HUG_CLAIMED_VOCAB
    assert sorted({ch for word in freqs for ch in word}) == walkthroughs.HUG_CLAIMED_ALPHABET
    for word, tokens in walkthroughs.HUG_CLAIMED_ENCODINGS.items():
        symbols = tuple(ch if ch in walkthroughs.HUG_CLAIMED_ALPHABET else "[UNK]" for ch in word)
        assert list(apply_merges(symbols, merges)) == tokens, word


def test_hug_with_the_end_of_word_marker():
    bpe = train(walkthroughs.HUG_WORD_FREQS, 3)
    # Differs from the article from merge 3 on: ('un', '</w>') = 16 (pun 12 + bun 4) beats
    # ('h', 'ug') = 15, which comes 4th. Counts with the marker add ('g', '</w>') = 15,
    # ('n', '</w>') = 16 and ('s', '</w>') = 5 to the article's six.
    assert bpe.merges == [(("u", "g"), 20), (("u", "n"), 16), (("un", "</w>"), 16)]
    assert bpe.vocab == ["b", "g", "h", "n", "p", "s", "u", "</w>", "ug", "un", "un</w>"]
    assert bpe.tokenize("bug") == ["b", "ug", "</w>"]  # the article: ["b", "ug"]
    full = train(walkthroughs.HUG_WORD_FREQS, 100)
    assert full.merges == [
        (("u", "g"), 20),
        (("u", "n"), 16),
        (("un", "</w>"), 16),
        (("h", "ug"), 15),  # tie with ('ug', '</w>') = 15: 'h ug' comes first in "hug"
        (("p", "un</w>"), 12),
        (("hug", "</w>"), 10),
        (("p", "ug"), 5),
        (("pug", "</w>"), 5),
        (("hug", "s"), 5),
        (("hugs", "</w>"), 5),
        (("b", "un</w>"), 4),
    ]
    assert full.tokenize("bug") == ["b", "ug", "</w>"]


# --- Sennrich et al.'s Algorithm 1 and CS336's handout: low / lower / newest / widest ------


def test_low_text_is_the_word_freqs():
    assert word_freqs(walkthroughs.LOW_TEXT) == walkthroughs.LOW_WORD_FREQS


def test_low_as_algorithm_1_runs_it():
    # Algorithm 1: the marker a symbol of its own, ten merges, max(pairs, key=pairs.get).
    freqs = walkthroughs.LOW_WORD_FREQS
    merges, splits = learn_merges(
        initial_splits(freqs, end_of_word=walkthroughs.LOW_MARKER), freqs, 10
    )
    assert merges == [
        (("e", "s"), 9),  # first of the three 9s: es, st, t</w>
        (("es", "t"), 9),
        (("est", "</w>"), 9),
        (("l", "o"), 7),
        (("lo", "w"), 7),
        (("n", "e"), 6),
        (("ne", "w"), 6),
        (("new", "est</w>"), 6),
        (("low", "</w>"), 5),
        (("w", "i"), 3),
    ]
    assert {w: list(s) for w, s in splits.items()} == {
        "low": ["low</w>"],
        "lower": ["low", "e", "r", "</w>"],
        "newest": ["newest</w>"],
        "widest": ["wi", "d", "est</w>"],
    }
    bpe = train(walkthroughs.LOW_TEXT, walkthroughs.LOW_NUM_MERGES)
    assert bpe.merges == merges and bpe.n_vocab == 10 + 1 + 10  # letters, </w>, merges


def test_low_on_bytes_as_cs336s_handout_trains_it():
    freqs = walkthroughs.LOW_WORD_FREQS
    counts = pair_counts(initial_splits(freqs, end_of_word=None), freqs)
    assert counts == walkthroughs.CS336_LOW_CLAIMED_PAIR_COUNTS  # every count, and no other pair
    # The lexicographic tie-break of the book's trainer is the handout's rule.
    words = {word.encode(): n for word, n in freqs.items()}
    merges = train_merges(words, 100, tie_break="lexicographic")
    vocab = build_vocab(merges)
    spelled = [(vocab[a].decode(), vocab[b].decode()) for (a, b), _ in merges]
    assert spelled == walkthroughs.CS336_LOW_CLAIMED_MERGES
    assert spelled[0] == walkthroughs.CS336_LOW_CLAIMED_FIRST_MERGE
    six = ByteTokenizer(merges[:6])
    tokens = [six.vocab[i].decode() for i in six.encode("newest")]
    assert tokens == walkthroughs.CS336_LOW_CLAIMED_ENCODINGS["newest"]
    # The book's own rule learns another first merge: e+s, the first of the tied pairs.
    assert train_merges(words, 1)[0][0] == (ord("e"), ord("s"))


def test_low_miscounted_table_has_exactly_one_wrong_count():
    freqs = walkthroughs.LOW_WORD_FREQS
    counts = pair_counts(initial_splits(freqs), freqs)
    table = walkthroughs.LOW_MISCOUNTED_PAIR_COUNTS
    assert set(counts) == set(table)  # the same 14 pairs
    wrong = {pair: (n, counts[pair]) for pair, n in table.items() if counts[pair] != n}
    assert wrong == {("w", "e"): (2, 8)}  # 2 counts "lower" only; "newest" adds 6


def test_low_trained_to_exhaustion():
    bpe = train(walkthroughs.LOW_TEXT, 100)
    assert len(bpe.merges) == 15
    assert bpe.merges[10:] == [
        (("wi", "d"), 3),
        (("wid", "est</w>"), 3),
        (("low", "e"), 2),
        (("lowe", "r"), 2),
        (("lower", "</w>"), 2),
    ]


# --- the book's cat / sat / mat sentence -----------------------------------------------


def test_cat_without_a_marker_runs_out_of_pairs():
    freqs = word_freqs(walkthroughs.CAT_TEXT)
    splits = initial_splits(freqs, end_of_word=None)
    merges, final = learn_merges(splits, freqs, walkthroughs.CAT_NUM_MERGES)
    # Asked for 15 merges, it stops after 14: every word is then a single token.
    assert len(merges) == 14
    assert all(len(symbols) == 1 for symbols in final.values())
    assert merges == [
        (("a", "t"), 12),
        (("t", "h"), 8),
        (("th", "e"), 7),
        (("c", "at"), 3),
        (("s", "at"), 3),
        (("o", "n"), 3),
        (("m", "at"), 2),
        (("a", "n"), 1),
        (("an", "d"), 1),
        (("b", "at"), 1),
        (("r", "at"), 1),
        (("f", "l"), 1),
        (("fl", "at"), 1),
        (("th", "at"), 1),
    ]

    def encode(text: str) -> list[str]:
        return [token for word in text.split() for token in apply_merges(tuple(word), merges)]

    sentence = "the cat sat on the mat"
    assert encode(sentence) == sentence.split()
    assert encode("hat") == ["h", "at"] and encode("bat") == ["bat"]  # b+at: a pair seen once


def test_cat_with_the_end_of_word_marker():
    bpe = train(walkthroughs.CAT_TEXT, walkthroughs.CAT_NUM_MERGES)
    # ('t', '</w>') = 12 ties ('a', 't') = 12; 'a t' comes first in "cat". Then the marker
    # pulls 'at</w>' (12) ahead of the article's merge 2, ('t', 'h') = 8.
    assert bpe.merges == [
        (("a", "t"), 12),
        (("at", "</w>"), 12),
        (("t", "h"), 8),
        (("th", "e"), 7),
        (("the", "</w>"), 7),
        (("c", "at</w>"), 3),
        (("s", "at</w>"), 3),
        (("o", "n"), 3),
        (("on", "</w>"), 3),
        (("m", "at</w>"), 2),
        (("a", "n"), 1),
        (("an", "d"), 1),
        (("and", "</w>"), 1),
        (("b", "at</w>"), 1),
        (("r", "at</w>"), 1),
    ]
    sentence = "the cat sat on the mat"
    assert bpe.tokenize(sentence) == [word + END_OF_WORD for word in sentence.split()]
    assert bpe.tokenize("bat hat") == ["bat</w>", "h", "at</w>"]
    assert len(train(walkthroughs.CAT_TEXT, 100).merges) == 18


# --- properties ----------------------------------------------------------------------------

# No "w" and no "u", so neither "</w>" nor "<unk>" can be spelled; both are tested above.
LETTERS = "abcde<>/é中😀"
SPACES = " \t\n"
words = st.text(alphabet=LETTERS, min_size=1, max_size=6)
separators = st.sampled_from([" ", "  ", "\n", "\t "])
corpora = st.lists(st.tuples(words, separators), min_size=1, max_size=12).map(
    lambda parts: "".join(word + space for word, space in parts)
)
merge_counts = st.integers(min_value=0, max_value=40)


def text_over(chars: str) -> st.SearchStrategy[str]:
    """Texts made of ``chars`` and whitespace."""
    return st.text(alphabet=st.sampled_from(sorted(set(chars)) + list(SPACES)), max_size=40)


@given(corpus=corpora, num_merges=merge_counts)
def test_training_is_deterministic(corpus, num_merges):
    first, second = train(corpus, num_merges), train(corpus, num_merges)
    assert first.merges == second.merges and first.vocab == second.vocab
    assert train(word_freqs(corpus), num_merges).merges == first.merges


@given(corpus=corpora, num_merges=merge_counts, data=st.data())
def test_round_trip_normalises_whitespace(corpus, num_merges, data):
    bpe = train(corpus, num_merges)
    text = data.draw(text_over("".join(corpus.split())))
    assert bpe.decode(bpe.encode(text)) == " ".join(text.split())


@given(corpus=corpora, num_merges=merge_counts, data=st.data())
def test_pieces_spell_each_word_back(corpus, num_merges, data):
    bpe = train(corpus, num_merges)
    text = data.draw(text_over("".join(corpus.split())))
    for word in text.split():
        pieces = bpe.tokenize(word)
        assert 1 <= len(pieces) <= len(word) + 1
        assert "".join(pieces).removesuffix(END_OF_WORD) == word
        assert pieces[-1].endswith(END_OF_WORD)
        assert not any(END_OF_WORD in piece for piece in pieces[:-1])
        assert all(piece in bpe.token_to_id for piece in pieces)
    assert len(bpe.tokenize(text)) >= len(text.split())


@given(corpus=corpora, num_merges=merge_counts)
def test_merge_counts_never_increase_and_early_stop_means_done(corpus, num_merges):
    bpe = train(corpus, num_merges)
    counts = [count for _, count in bpe.merges]
    assert counts == sorted(counts, reverse=True)
    assert len(bpe.vocab) == len(set(bpe.vocab)) == bpe.n_vocab
    assert len(bpe.merges) <= num_merges
    if len(bpe.merges) < num_merges:
        assert all(len(bpe.tokenize(word)) == 1 for word in corpus.split())


@given(corpus=corpora, num_merges=merge_counts, data=st.data())
def test_trace_properties(corpus, num_merges, data):
    bpe = train(corpus, num_merges)
    check_trace(bpe, corpus)
    check_trace(bpe, data.draw(text_over("".join(corpus.split()))))


@given(corpus=corpora, num_merges=merge_counts, data=st.data())
def test_unseen_characters_raise_or_become_unk(corpus, num_merges, data):
    seen = "".join(corpus.split())
    before = data.draw(text_over(seen))
    after = data.draw(text_over(seen))
    unseen = data.draw(st.sampled_from("xyzü🚀"))
    text = before + unseen + after
    with pytest.raises(UnknownTokenError) as info:
        train(corpus, num_merges).encode(text)
    assert info.value.token == unseen and info.value.position == len(before)
    bpe = train(corpus, num_merges, unk=True)
    ids = bpe.encode(text)
    assert bpe.token_to_id[UNK_TOKEN] == bpe.n_vocab - 1
    assert ids.count(bpe.n_vocab - 1) == 1
    assert bpe.decode(ids) == " ".join(text.replace(unseen, UNK_TOKEN).split())


# --- the fast trainer: what CharBPE.train learns is what the obvious loop learns ----------------

# A tiny alphabet makes ties and overlapping pairs ("aaa") common, the cases that break tie-breaks.
WORDS = st.text(alphabet="abc", min_size=1, max_size=7)
WORD_FREQS = st.dictionaries(WORDS, st.integers(1, 5), min_size=1, max_size=8)
TIE_BREAKS = st.sampled_from(["first", "lexicographic"])


def naive_merges(freqs, num_merges: int, tie_break: str = "first", marker="</w>"):
    """The reference: ``learn_merges`` (count everything, merge the best, repeat)."""
    if tie_break == "first":
        return learn_merges(initial_splits(freqs, end_of_word=marker), freqs, num_merges)[0]
    from book.tokenizers.bpe.core import joined, train_naive

    splits = initial_splits(freqs, end_of_word=marker)
    sequences = {splits[word]: freq for word, freq in freqs.items()}
    return train_naive(sequences, num_merges, joined, tie_break=tie_break)


@settings(max_examples=300, deadline=None)
@given(WORD_FREQS, st.integers(0, 30), TIE_BREAKS)
def test_fast_training_learns_what_the_naive_loop_learns(freqs, num_merges, tie_break):
    fast = train(freqs, num_merges, tie_break=tie_break).merges
    assert fast == naive_merges(freqs, num_merges, tie_break)


@settings(max_examples=100, deadline=None)
@given(WORD_FREQS, st.integers(0, 30), st.sampled_from([None, "_"]))
def test_fast_trainer_with_another_marker_or_none(freqs, num_merges, marker):
    from book.tokenizers.bpe.core import joined

    splits = initial_splits(freqs, end_of_word=marker)
    sequences = {splits[word]: freq for word, freq in freqs.items()}
    assert train_merges(sequences, num_merges, joined) == naive_merges(
        freqs, num_merges, "first", marker
    )


@pytest.mark.parametrize(
    "freqs",
    [walkthroughs.HUG_WORD_FREQS, walkthroughs.LOW_WORD_FREQS, word_freqs(walkthroughs.CAT_TEXT)],
)
def test_fast_training_on_the_worked_examples(freqs):
    assert train(freqs, 40).merges == naive_merges(freqs, 40)


def test_fast_training_on_the_english_corpus():
    freqs = word_freqs(book_corpora.english("train"))
    assert train(freqs, 40).merges == naive_merges(freqs, 40)


def test_train_stops_early_and_keeps_unk():
    bpe = train("ab ab", 10, unk=True)
    assert bpe.merges == [(("a", "b"), 2), (("ab", "</w>"), 2)]
    assert bpe.tokenize("abc") == ["ab", "<unk>", "</w>"]


# --- tokens after k merges (book.analysis.curves) ---------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    WORD_FREQS,
    st.lists(st.text(alphabet="abcd", min_size=1, max_size=6), min_size=1, max_size=12),
    st.integers(0, 15),
)
def test_curve_equals_encoding_with_each_prefix(train_freqs, heldout_words, num_merges):
    bpe = train(train_freqs, num_merges, unk=True)  # "d" never occurs in training: <unk>
    text = " ".join(heldout_words)
    checkpoints = list(range(len(bpe.merges) + 1))
    expected = [
        len(CharBPE(bpe.merges[:k], bpe.alphabet, unk=True).encode(text)) for k in checkpoints
    ]
    assert tokens_after_merges(bpe.merges, word_freqs(text), checkpoints) == expected


def test_curve_keeps_the_order_and_repeats_of_the_checkpoints():
    bpe = train(walkthroughs.LOW_TEXT, 10)
    counts = tokens_after_merges(bpe.merges, walkthroughs.LOW_WORD_FREQS, [10, 0, 10, 3])
    assert counts == [
        len(CharBPE(bpe.merges[:k], bpe.alphabet).encode(walkthroughs.LOW_TEXT))
        for k in [10, 0, 10, 3]
    ]


def test_curve_without_a_marker_counts_characters_only():
    assert tokens_after_merges([], {"abc": 2}, [0], end_of_word=None) == [6]


@pytest.mark.parametrize("checkpoint", [-1, 2, True, 1.0])
def test_curve_rejects_checkpoints_outside_the_merges(checkpoint):
    with pytest.raises(ValueError, match="between 0 and 1"):
        tokens_after_merges([(("a", "b"), 1)], {"ab": 1}, [checkpoint])


# --- chapter 04's example -----------------------------------------------------------------------


def test_chapter_example_tokenizer_and_text():
    bpe = showcase.english_char_bpe()
    assert len(bpe.merges) == showcase.ENGLISH_MERGES
    assert set(showcase.STEPPER_TEXT.replace(" ", "")) <= set(bpe.alphabet)
    assert showcase.STEPPER_TEXT in " ".join(book_corpora.english("heldout").split())
    trace = bpe.trace(showcase.STEPPER_TEXT)
    assert len(trace) > 2 and trace[-1].pieces == tuple(bpe.tokenize(showcase.STEPPER_TEXT))
