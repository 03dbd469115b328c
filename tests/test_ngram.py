"""Tests of the token-level n-gram language model (book.analysis.ngram)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from book.analysis.ngram import NGramModel

N_VOCAB = 6
documents = st.lists(
    st.lists(st.integers(0, N_VOCAB - 1), min_size=1, max_size=30), min_size=1, max_size=4
)
contexts = st.lists(st.integers(0, N_VOCAB - 1), max_size=4)


def interpolated(model_tables, context, token_id, n_vocab, discount):
    """The smoothing formula written out once more, recursively, from plain count dicts."""
    if context is None:
        return 1.0 / n_vocab
    table = model_tables.get(tuple(context))
    shorter = context[1:] if context else None
    lower = interpolated(model_tables, shorter, token_id, n_vocab, discount)
    if not table:
        return lower
    total = sum(table.values())
    return max(table.get(token_id, 0) - discount, 0) / total + discount * len(table) / total * lower


def test_hand_computed_bigram():
    # Training ids 1 2 3 1 2 4: after 1 came 2 twice; unigram counts 1:2, 2:2, 3:1, 4:1.
    model = NGramModel.train([[1, 2, 3, 1, 2, 4]], n_vocab=5, order=2)
    unigram_2 = (2 - 0.75) / 6 + 0.75 * 4 / 6 * (1 / 5)
    assert model.prob([], 2) == pytest.approx(unigram_2)
    assert model.prob([1], 2) == pytest.approx((2 - 0.75) / 2 + 0.75 * 1 / 2 * unigram_2)
    # id 0 never occurs: only the uniform share, passed down through both levels.
    assert model.prob([1], 0) == pytest.approx(0.75 * 1 / 2 * 0.75 * 4 / 6 * (1 / 5))
    assert model.count(2) == 2 and model.count(0) == 0 and model.seen == {1, 2, 3, 4}
    assert model.n_tokens == 6


def test_trigram_matches_the_formula_written_out():
    ids = [0, 1, 2, 0, 1, 3, 0, 1, 2, 2, 4]
    model = NGramModel.train([ids], n_vocab=N_VOCAB, order=3)
    tables = {}
    for i, token_id in enumerate(ids):
        for k in range(min(3, i + 1)):
            counts = tables.setdefault(tuple(ids[i - k : i]), {})
            counts[token_id] = counts.get(token_id, 0) + 1
    for context in ([0, 1], [1, 2], [5, 1], [2], [], [3, 3]):
        for token_id in range(N_VOCAB):
            expected = interpolated(tables, context[-2:], token_id, N_VOCAB, 0.75)
            assert model.prob(context, token_id) == pytest.approx(expected)


@settings(max_examples=60, deadline=None)
@given(documents, contexts, st.integers(1, 4), st.floats(0.1, 0.9))
def test_probs_sum_to_one_and_agree_with_prob(docs, context, order, discount):
    model = NGramModel.train(docs, n_vocab=N_VOCAB, order=order, discount=discount)
    p = model.probs(context)
    assert p.shape == (N_VOCAB,) and (p > 0).all()
    assert float(p.sum()) == pytest.approx(1.0)
    for token_id in range(N_VOCAB):
        assert model.prob(context, token_id) == pytest.approx(p[token_id])


@settings(max_examples=40, deadline=None)
@given(documents, contexts)
def test_only_the_last_order_minus_one_ids_count(docs, context):
    model = NGramModel.train(docs, n_vocab=N_VOCAB, order=2)
    assert np.array_equal(model.probs([5, 5, *context]), model.probs(([5, 5, *context])[-1:]))


def test_unseen_ids_cannot_be_told_apart():
    # Ids 4 and 5 never occur in training: as a context they give the same prediction (the
    # shorter context's), and as a next id they get the same, smallest probability.
    model = NGramModel.train([[0, 1, 2, 0, 1, 3]], n_vocab=N_VOCAB, order=3)
    assert np.array_equal(model.probs([0, 4]), model.probs([0, 5]))
    assert np.array_equal(model.probs([0, 4]), model.probs([]))
    p = model.probs([0, 1])
    assert p[4] == p[5] == p.min() and p[2] > p[4]


def test_documents_do_not_share_contexts():
    model = NGramModel.train([[0, 1], [2, 3]], n_vocab=4, order=2)
    assert model.next_counts([1]) == {} and model.next_counts([2]) == {3: 1}
    assert model.next_counts([]) == {0: 1, 1: 1, 2: 1, 3: 1}


def test_surprisal_is_minus_log2_of_prob():
    ids = [0, 1, 2, 0, 1, 2]
    model = NGramModel.train([ids], n_vocab=4, order=3)
    bits = model.surprisal([0, 1, 3])
    assert bits[0] == pytest.approx(-math.log2(model.prob([], 0)))
    assert bits[2] == pytest.approx(-math.log2(model.prob([0, 1], 3)))
    assert bits[1] < bits[2]  # 1 always followed 0; 3 never followed 0 1


def test_training_is_deterministic():
    docs = [[3, 1, 4, 1, 5], [2, 6, 5, 3, 5]]
    first = NGramModel.train(docs, n_vocab=7)
    second = NGramModel.train(list(reversed(docs)), n_vocab=7)
    assert np.array_equal(first.probs([1, 5]), second.probs([1, 5]))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_vocab": 0}, "n_vocab must be a positive int"),
        ({"n_vocab": 4, "order": 0}, "order must be an int >= 1"),
        ({"n_vocab": 4, "discount": 1.0}, "discount must be between 0 and 1"),
        ({"n_vocab": 4, "discount": 0}, "discount must be between 0 and 1"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        NGramModel(**kwargs)


def test_ids_outside_the_vocabulary_are_refused():
    with pytest.raises(ValueError, match=r"id 4 is outside 0\.\.3"):
        NGramModel.train([[0, 4]], n_vocab=4)
    model = NGramModel.train([[0, 1]], n_vocab=4)
    with pytest.raises(ValueError, match="id -1 is outside"):
        model.probs([-1])
    with pytest.raises(ValueError, match="id 9 is outside"):
        model.prob([0], 9)
    with pytest.raises(ValueError, match="at most 2 ids"):
        model.next_counts([0, 1, 2])


def test_repr_says_what_it_was_trained_on():
    model = NGramModel.train([[0, 1, 1]], n_vocab=3, order=2)
    assert repr(model) == "NGramModel(order=2, n_vocab=3, trained on 3 ids, 2 distinct)"
