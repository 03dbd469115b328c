"""WordPiece: training by its score, greedy longest match, BERT pre-tokenization."""

from __future__ import annotations

import functools
from collections import Counter

import pytest
from gguf_fakes import fake_vocabulary
from hypothesis import given
from hypothesis import strategies as st

from book import corpora
from book.tokenizers import Tokenizer
from book.tokenizers.errors import UnknownIdError
from book.tokenizers.formats.sentencepiece_model import ModelPiece
from book.tokenizers.wordpiece.decoder import WordPieceDecoder
from book.tokenizers.wordpiece.model import greedy_longest_match
from book.tokenizers.wordpiece.normalizer import (
    BertNormalizer,
    clean_text,
    lowercase,
    strip_accents,
)
from book.tokenizers.wordpiece.pre_tokenizer import BertPreTokenizer, is_punctuation
from book.tokenizers.wordpiece.train import train_vocab, wordpiece_score
from book.tokenizers.wordpiece.wordpiece import BERT_SPECIAL_TOKENS, WordPiece, words_of

# The corpus of the Hugging Face course's WordPiece section, with bert-base-cased's
# pre-tokenization, and the last 25 entries of the vocabulary the course prints for 70 tokens.
COURSE_CORPUS = [
    "This is the Hugging Face Course.",
    "This chapter is about tokenization.",
    "This section shows several tokenizer algorithms.",
    "Hopefully, you will be able to understand how they are trained and generate tokens.",
]
COURSE_VOCAB_TAIL = [
    "ab",
    "##fu",
    "Fa",
    "Fac",
    "##ct",
    "##ful",
    "##full",
    "##fully",
    "Th",
    "ch",
    "##hm",
    "cha",
    "chap",
    "chapt",
    "##thm",
    "Hu",
    "Hug",
    "Hugg",
    "sh",
    "th",
    "is",
    "##thms",
    "##za",
    "##zat",
    "##ut",
]


def naive_train(words: dict[str, int], vocab_size: int, specials=("[UNK]",), by_count=False):
    """The obvious trainer: recount every symbol and pair after every merge."""
    splits = {w: [w[0]] + ["##" + c for c in w[1:]] for w in words}
    vocab = list(specials) + sorted({s for sp in splits.values() for s in sp})
    merges = []
    while len(vocab) < vocab_size:
        symbols, pairs = Counter(), {}
        for word, n in words.items():
            sp = splits[word]
            for s in sp:
                symbols[s] += n
            for pair in zip(sp, sp[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
        if not pairs:
            break
        scores = {
            p: float(c) if by_count else c / (symbols[p[0]] * symbols[p[1]])
            for p, c in pairs.items()
        }
        best = max(scores, key=scores.get)
        new = best[0] + best[1].removeprefix("##")
        merges.append((best, scores[best]))
        if new not in vocab:
            vocab.append(new)
        for word, sp in splits.items():
            out, i = [], 0
            while i < len(sp):
                if sp[i : i + 2] == list(best):
                    out.append(new)
                    i += 2
                else:
                    out.append(sp[i])
                    i += 1
            splits[word] = out
    return vocab, merges


def test_score_prefers_pairs_of_rare_parts():
    assert wordpiece_score(5, 5, 20) == 0.05
    assert wordpiece_score(20, 20, 40) > wordpiece_score(20, 400, 400)


def test_greedy_longest_match_takes_the_longest_entry_each_time():
    vocab = {"un", "##aff", "##able", "##a", "##ff", "aff"}
    assert greedy_longest_match("unaffable", vocab) == ["un", "##aff", "##able"]
    # Greedy, not optimal: "##ab" would leave "##le", which is missing, so the word is lost
    # although "##a" + "##ble" would cover it.
    assert greedy_longest_match("xable", {"x", "##ab", "##a", "##ble"}) == ["[UNK]"]


def test_a_word_that_cannot_be_covered_is_unknown_as_a_whole():
    tok = WordPiece.from_vocab(["[UNK]", "play", "##ing", "##s"])
    assert tok.tokenize("playing plays playx") == ["play", "##ing", "play", "##s", "[UNK]"]
    assert tok.encode("playx") == [0]


def test_max_input_chars_per_word():
    tok = WordPiece.from_vocab(["[UNK]", "a", "##a"], max_input_chars_per_word=5)
    assert tok.tokenize("aaaaa") == ["a"] + ["##a"] * 4
    assert tok.tokenize("aaaaaa aa") == ["[UNK]", "a", "##a"]
    default = WordPiece.from_vocab(["[UNK]", "a", "##a"])
    assert default.tokenize("a" * 100) == ["a"] + ["##a"] * 99
    assert default.tokenize("a" * 101) == ["[UNK]"]


def test_from_vocab_takes_a_mapping_or_a_list():
    as_list = WordPiece.from_vocab(["[UNK]", "hi", "##s"])
    as_map = WordPiece.from_vocab({"##s": 2, "[UNK]": 0, "hi": 1})
    assert as_list.vocab == as_map.vocab and as_map.encode("his") == [1, 2]
    assert isinstance(as_list, Tokenizer) and as_list.n_vocab == 3


@pytest.mark.parametrize(
    "vocab, message",
    [
        ([], "the vocabulary is empty"),
        (["hi", "there"], "no unknown token '[UNK]'"),
        (["[UNK]", "hi", "hi"], "holds 'hi' twice"),
        ({"[UNK]": 0, "hi": 2}, "ids must be 0, 1, ..., n - 1"),
        (["[UNK]", ""], "non-empty str"),
    ],
)
def test_bad_vocabularies_raise_clear_errors(vocab, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        WordPiece.from_vocab(vocab)


def test_a_custom_unknown_token_must_be_in_the_vocabulary():
    assert WordPiece.from_vocab(["<unk>", "a"], unk_token="<unk>").tokenize("b") == ["<unk>"]
    with pytest.raises(ValueError, match="unk_token="):
        WordPiece.from_vocab(["[UNK]", "a"], unk_token="<unk>")


def test_decode_glues_continuations_and_rejects_unknown_ids():
    tok = WordPiece.from_vocab(["[UNK]", "play", "##ing", "!", "##s"])
    assert tok.decode([1, 2, 3, 1, 4, 0]) == "playing! plays [UNK]"  # tokenizers' cleanup
    plain = WordPiece.from_vocab(tok.vocab, decoder=WordPieceDecoder(cleanup=False))
    assert plain.decode([1, 2, 3, 1, 4, 0]) == "playing ! plays [UNK]"
    assert WordPiece.from_vocab(tok.vocab, decoder=None).decode([1, 2, 3]) == "play ##ing !"
    assert tok.decode([]) == ""
    assert tok.token_bytes(2) == b"##ing"
    with pytest.raises(UnknownIdError):
        tok.decode([5])


@pytest.mark.parametrize("score", ["wordpiece", "frequency"])
def test_training_matches_the_obvious_trainer_on_shakespeare(score):
    words = Counter(words_of(corpora.english("train")[:40_000], BertNormalizer()))
    assert train_vocab(words, 500, score=score) == naive_train(
        words, 500, by_count=score == "frequency"
    )


def test_late_training_with_many_ties_matches_the_obvious_trainer():
    # Small text, large vocabulary: most merges are ties between pairs seen once.
    text = corpora.english("heldout")[:3_000] + " naïve 日本語 🦙"
    words = Counter(words_of(text, BertNormalizer()))
    for score in ("wordpiece", "frequency"):
        assert train_vocab(words, 600, score=score) == naive_train(
            words, 600, by_count=score == "frequency"
        )


def test_training_reproduces_the_course_vocabulary():
    cased = BertNormalizer(lowercase=False)
    words = Counter(word for sentence in COURSE_CORPUS for word in words_of(sentence, cased))
    vocab, _ = train_vocab(words, 70, special_tokens=BERT_SPECIAL_TOKENS)
    assert vocab[-25:] == COURSE_VOCAB_TAIL
    assert (vocab, _) == naive_train(words, 70, BERT_SPECIAL_TOKENS)


def test_the_course_word_counts_give_its_first_merges():
    words = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    _, merges = train_vocab(words, 10)
    assert merges[:2] == [(("##g", "##s"), 1 / 20), (("h", "##u"), 1 / 36)]


def test_vocab_size_counts_everything():
    text = corpora.english("train")[:20_000]
    tok = WordPiece.train(text, 400)
    assert tok.n_vocab == 400 and tok.vocab[:5] == list(BERT_SPECIAL_TOKENS)
    assert WordPiece.train("ab ab", 10).n_vocab == 5 + 3  # [PAD].., a, ##b, ab: nothing left
    with pytest.raises(ValueError, match="vocab_size must be an int >= "):
        WordPiece.train(text, 20)


def test_ties_go_to_the_pair_seen_first():
    # Every pair scores 1: "z ##y" comes first in the text, "a ##b" last.
    _, merges = train_vocab({"zy": 1, "ab": 1}, 7)
    assert [pair for pair, _score in merges] == [("z", "##y"), ("a", "##b")]


def test_frequency_score_is_bpe_like():
    _, merges = train_vocab(
        {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 10, score="frequency"
    )
    assert merges[0] == (("##u", "##g"), 20.0)
    with pytest.raises(ValueError, match="score must be"):
        train_vocab({"a": 1}, 5, score="count")


def test_bert_normalizer_and_pre_tokenizer_steps():
    assert clean_text("a\x00b\ufffdc\u200bd\te\u3000f") == "abcd e f"
    assert strip_accents("Ångström crème") == "Angstrom creme"
    assert lowercase("İSTANBUL ΣΑΣ") == "i̇stanbul σασ"
    assert words_of("don't stop—ever!") == ["don", "'", "t", "stop", "—", "ever", "!"]
    assert [is_punctuation(c) for c in "$^`~§"] == [True, True, True, True, True]
    assert words_of("中文 text", BertNormalizer()) == ["中", "文", "text"]
    assert words_of("中文 text") == ["中文", "text"]  # the padding is the normalizer's
    assert words_of("Éa", BertNormalizer(lowercase=True, strip_accents=False)) == ["éa"]
    assert words_of("Éa", BertNormalizer(lowercase=False, strip_accents=True)) == ["Ea"]
    assert BertPreTokenizer().pre_tokenize_str(" a, b") == [
        ("a", (1, 2)),
        (",", (2, 3)),
        ("b", (4, 5)),
    ]
    assert words_of("a b", pre_tokenizer=None) == ["a b"]


@given(st.text(max_size=60))
def test_round_trip_on_a_vocabulary_trained_on_the_text(text):
    plain = WordPieceDecoder(cleanup=False)
    tok = WordPiece.train(text + " seed", 200, special_tokens=["[UNK]"], decoder=plain)
    words = tok.words(text)
    assert tok.decode(tok.encode(text)) == " ".join(words)
    assert tok.unk_id not in tok.encode(text)


@functools.cache
def shakespeare_wordpiece() -> WordPiece:
    """A small WordPiece trained on the start of the training plays."""
    return WordPiece.train(corpora.english("train")[:5_000], 300)


@given(st.text(max_size=60))
def test_pieces_rebuild_the_words(text):
    tok = shakespeare_wordpiece()
    pieces = tok.tokenize(text)
    words = tok.words(text)
    rebuilt = " ".join(pieces).replace(" ##", "")
    assert len(pieces) >= len(words)
    if "[UNK]" not in pieces:
        assert rebuilt == " ".join(words)


def test_from_gguf_undoes_llama_cpps_spelling_and_adds_cls_and_sep():
    pieces = [
        ModelPiece("[PAD]", 0.0, "control"),
        ModelPiece("[UNK]", 0.0, "control"),
        ModelPiece("[CLS]", 0.0, "control"),
        ModelPiece("[SEP]", 0.0, "control"),
        ModelPiece("▁play", 0.0),
        ModelPiece("ing", 0.0),
        ModelPiece("[unused0]", 0.0),
    ]
    special_ids = {"pad": 0, "unk": 1, "cls": 2, "sep": 3}
    tok = WordPiece.from_gguf(fake_vocabulary("bert", pieces, special_ids=special_ids))
    assert tok.vocab[4:] == ["play", "##ing", "[unused0]"]
    assert tok.tokenize("Playing") == ["play", "##ing"]
    assert tok.encode("playing", add_special_tokens=True) == [2, 4, 5, 3]
    with pytest.raises(ValueError, match="names no unknown token"):
        WordPiece.from_gguf(fake_vocabulary("bert", pieces))
    with pytest.raises(ValueError, match="'t5' is not WordPiece"):
        WordPiece.from_gguf(fake_vocabulary("t5", pieces, special_ids=special_ids))
