"""Checks of exercises/05_byte_bpe.ipynb. The reference is book.tokenizers.byte_bpe.

Cases mix the walkthroughs' texts, texts full of ties (where "first in the data" differs from the
smallest pair and from the last seen), overlapping pairs (``aaaa``), several scripts and
emoji (tokens that hold part of a character), and Shakespeare, so that no constant passes.
"""

from __future__ import annotations

import random

import codecs
from collections.abc import Callable
from functools import cache

from book import corpora
from book.checks.core import Case, check_cases, check_function, show
from book.checks.spec import Call, Raises, Task, calls_of, function_task, random_text, window
from book import walkthroughs
from book.tokenizers.bpe_core import build_vocab, get_pair_counts, merge, train_naive
from book.tokenizers.byte_bpe import ByteTokenizer
from book.analysis.compression import bytes_per_token_curve

TIES = "zy ab yz ba"  # every pair occurs once: the first one seen, (z, y), must win
OVERLAP = "aaaa aaab baaa"
MIXED = "Ωμέγα Ωμέγα naïve café 日本語 日本 🦙🦙 👨‍👩‍👧"
TEXTS = [walkthroughs.CAT_HAT_TEXT, walkthroughs.THEATRE_TEXT, TIES, OVERLAP, MIXED]


@cache
def _shakespeare(n_chars: int = 3000) -> str:
    """The first ``n_chars`` characters of the training plays."""
    return corpora.english("train")[:n_chars]


@cache
def _tokenizer(text: str, vocab_size: int) -> ByteTokenizer:
    """The reference tokenizer trained on ``text``."""
    return ByteTokenizer.train(text, vocab_size)


def _merges(text: str, vocab_size: int) -> list[tuple[tuple[int, int], int]]:
    """The reference merges: the obvious trainer, on the text's bytes."""
    return train_naive([text.encode("utf-8")], vocab_size - 256)


def _short(value) -> str:
    """A short label for a big argument: its first items and how many there are."""
    if isinstance(value, (list, dict)) and len(value) > 4:
        items = list(value.items()) if isinstance(value, dict) else value
        return f"[{', '.join(show(item, 30) for item in items[:2])}, … {len(value)} items]"
    return show(value, 60)


def check_get_pair_counts(get_pair_counts_) -> None:
    """get_pair_counts(ids) -> {pair: count}, in order of first occurrence."""
    inputs = [[], [5], [1, 2, 3, 1, 2], [7, 7, 7], [7, 7, 7, 7, 7], [300, 256, 300, 256, 300]]
    inputs += [list(text.encode("utf-8")) for text in [*TEXTS, _shakespeare()]]
    cases = [Case(f"list(get_pair_counts({_short(ids)}).items())",
                  lambda ids=ids: list(get_pair_counts_(list(ids)).items()), list(get_pair_counts(ids).items()))
             for ids in inputs]
    check_cases("get_pair_counts", {"get_pair_counts": get_pair_counts_}, cases, points=2,
                hint="loop over zip(ids, ids[1:]) and build a plain dict, so that pairs keep the order "
                     "in which they first occur; overlapping pairs all count ([7, 7, 7] has (7, 7) twice).")


def check_merge(merge_) -> None:
    """merge(ids, pair, new_id) -> new list with pair replaced left to right; input unchanged."""
    cat = list(walkthroughs.CAT_HAT_TEXT.encode("utf-8"))
    calls = [(cat, (116, 104), 256), (cat, (97, 116), 300), (cat, (1, 2), 256), ([], (1, 2), 256),
             ([1, 2], (1, 2), 256), ([7, 7, 7], (7, 7), 256), ([7, 7, 7, 7], (7, 7), 256),
             ([1, 2, 1, 2, 2, 1], (2, 1), 999), ([256, 101, 256, 101], (256, 101), 257), ([3, 1, 2], (1, 2), 256)]
    cases = [Case(f"merge({_short(ids)}, {pair}, {new_id})",
                  lambda ids=ids, pair=pair, new_id=new_id: merge_(list(ids), pair, new_id),
                  merge(ids, pair, new_id))
             for ids, pair, new_id in calls]

    def input_after_call():
        ids = list(cat)
        merge_(ids, (116, 104), 256)
        return ids

    cases.append(Case("the ids passed to merge(ids, (116, 104), 256) afterwards", input_after_call, cat))
    check_cases("merge", {"merge": merge_}, cases, points=2,
                hint="walk i from 0; when (ids[i], ids[i + 1]) is the pair, append new_id and skip 2, "
                     "else append ids[i] and skip 1. Build a new list; do not change the one given.")


def check_train(train) -> None:
    """train(text, vocab_size) -> [(pair, count), ...] with the book's tie-break."""
    calls = []
    for text in TEXTS:
        for vocab_size in (256, 258, 262, 280):
            calls.append(((text, vocab_size), _merges(text, vocab_size)))
    calls.append((("a", 300), []))
    calls.append((("", 300), []))
    calls.append(((_shakespeare(), 300), _merges(_shakespeare(), 300)))
    check_function("train", train, calls, points=3,
                   hint="start from list(text.encode('utf-8')); for new_id in range(256, vocab_size): "
            "count, "
                        "pick max(counts, key=counts.get) (the first of equal maxima), record (pair, count), "
                        "merge. Stop early when no pair is left.")


def check_build_vocab(build_vocab_) -> None:
    """build_vocab(merges) -> {id: bytes}: the 256 bytes, then one entry per merge."""
    merge_lists = [[], _merges(walkthroughs.CAT_HAT_TEXT, 258), _merges(MIXED, 280), _merges(_shakespeare(), 300),
                   [((97, 97), 3), ((256, 256), 1), ((98, 257), 1)]]
    calls = [((merges,), build_vocab(merges)) for merges in merge_lists]
    check_function("build_vocab", build_vocab_, calls, points=2,
                   hint="vocab = {i: bytes([i]) for i in range(256)}, then for each merge in order, "
                        "vocab[256 + rank] = vocab[left] + vocab[right].")


def check_encode(encode) -> None:
    """encode(text, merges) -> ids: the text's bytes with the merges applied in order."""
    english = _tokenizer(_shakespeare(), 300)
    multi = _tokenizer(MIXED, 280)
    # The order matters here: (b, c) first makes "abc" -> a + bc, not ab + c.
    ordered = ByteTokenizer([((98, 99), 1), ((97, 98), 1), ((97, 256), 1)])
    calls = []
    for tok, texts in [(english, ["the king", corpora.english("heldout")[:400], "naïve 🦙", ""]),
                       (multi, ["日本語", "Ωμέγα 🦙", "unseen text"]),
                       (ordered, ["abc", "ab", "abcab", "cab"])]:
        calls += [((text, list(tok.merges)), tok.encode(text)) for text in texts]
    check_function("encode", encode, calls, points=2,
                   hint="start from list(text.encode('utf-8')) and apply merge(ids, pair, 256 + rank) for "
                        "every merge, in the order of the list (or merge the lowest-ranked pair present, "
                        "again and again).")


def _strict_outcome(decode: Callable, ids: list[int], vocab: dict[int, bytes]) -> str:
    """What a strict decode does: the text, or the name of the error class it raises."""
    try:
        return decode(ids, vocab, "strict")
    except UnicodeDecodeError:
        return "raises UnicodeDecodeError"


def check_decode(decode) -> None:
    """decode(ids, vocab, errors="replace") -> text; invalid bytes become U+FFFD or raise."""
    tok = _tokenizer(MIXED, 280)
    vocab = dict(tok.vocab)
    cases = []
    for text in [MIXED, "Ωμέγα", "caf\u00e9", "🦙", "plain"]:
        ids = tok.encode(text)
        for cut in sorted({len(ids), max(len(ids) - 1, 0), 1}):
            part = ids[:cut]
            expected = tok.decode(part)
            cases.append(Case(f"decode({_short(part)}, vocab)", lambda p=part: decode(list(p), vocab), expected))
            outcome = "raises UnicodeDecodeError" if "\ufffd" in expected else expected
            cases.append(Case(f"decode({_short(part)}, vocab, 'strict')",
                              lambda p=part: _strict_outcome(decode, list(p), vocab), outcome))
    cases.append(Case("decode([], vocab)", lambda: decode([], vocab), ""))
    check_cases("decode", {"decode": decode}, cases, points=2,
                hint="b''.join(vocab[i] for i in ids).decode('utf-8', errors=errors): 'replace' shows "
                     "U+FFFD for an unfinished character, 'strict' raises UnicodeDecodeError.")


def reference_stream_decode(ids: list[int], vocab: dict[int, bytes]) -> list[str]:
    """The text that each id completes: an incremental UTF-8 decoder fed one token at a time."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    return [decoder.decode(vocab[i]) for i in ids]


def check_stream_decode(stream_decode) -> None:
    """stream_decode(ids, vocab) -> one string per id: the characters that id completes."""
    tok = _tokenizer(MIXED, 280)
    english = _tokenizer(_shakespeare(), 300)
    cases = []
    for t, text in [(tok, MIXED), (tok, "日本語 Ωμέγα"), (tok, "🦙 ok"), (english, "naïve 👨‍👩‍👧 the king"),
                    (ByteTokenizer(), "é€😀")]:
        ids = t.encode(text)
        for part in (ids, ids[:-1], ids[: len(ids) // 2]):
            vocab = dict(t.vocab)
            cases.append(Case(f"stream_decode({_short(part)}, vocab)",
                              lambda p=part, v=vocab: stream_decode(list(p), v), reference_stream_decode(part, vocab)))
    cases.append(Case("stream_decode([], vocab)", lambda: stream_decode([], dict(tok.vocab)), []))
    check_cases("stream_decode", {"stream_decode": stream_decode}, cases, points=3,
                hint="keep a buffer of bytes; after adding each token's bytes, emit the longest prefix "
                     "that is whole characters and keep the rest (or use codecs.getincrementaldecoder('utf-8')()).")


def check_bytes_per_token(bytes_per_token_) -> None:
    """bytes_per_token(text, merges, vocab_sizes) -> [UTF-8 bytes / tokens, one per vocab size]."""
    english = _tokenizer(corpora.english("train")[:20_000], 600)
    heldout = corpora.english("heldout")[:3000]
    multi = _tokenizer(MIXED, 280)
    calls = []
    for tok, text, sizes in [(english, heldout, [256, 300, 400, 600]), (english, heldout, [600, 256]),
                             (english, MIXED, [256, 450]), (multi, MIXED, [256, 270, 280]),
                             (multi, "日本語", [280])]:
        expected = bytes_per_token_curve(tok, text, [v - 256 for v in sizes])
        calls.append(((text, list(tok.merges), list(sizes)), expected))

    def close(got, expected) -> bool:
        return (isinstance(got, list) and len(got) == len(expected)
                and all(isinstance(g, float) and abs(g - e) < 1e-9 for g, e in zip(got, expected)))

    check_function("bytes_per_token", bytes_per_token_, calls, points=2, compare=close,
                   hint="for each vocab size v, encode with the first v - 256 merges only, and divide "
                        "len(text.encode('utf-8')) by the number of ids.")


# --- what the judge needs (see book.checks.core) --------------------------------------------------

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")
AFTER_CALL = """
def after_call(function, value, *args):
    function(value, *args)
    return value
"""


def _bytes_per_token_close(got, expected) -> bool:
    """A list of floats equal to the expected ones up to rounding."""
    return (
        isinstance(got, list)
        and len(got) == len(expected)
        and all(isinstance(g, float) and abs(g - e) < 1e-9 for g, e in zip(got, expected))
    )


def _decode_calls(tok: ByteTokenizer, texts: list[str], hidden: bool) -> list[Call]:
    """decode of whole and cut token sequences, with errors='replace' and 'strict'."""
    calls = []
    for text in texts:
        ids = tok.encode(text)
        for cut in sorted({len(ids), max(len(ids) - 1, 0), 1}):
            part = ids[:cut]
            expected = tok.decode(part)
            calls.append(
                Call(
                    f"decode({_short(part)}, vocab)",
                    "decode(a0, dict(VOCAB))",
                    (part,),
                    expected,
                    hidden,
                )
            )
            strict = Raises("UnicodeDecodeError") if "\ufffd" in expected else expected
            calls.append(
                Call(
                    f"decode({_short(part)}, vocab, 'strict')",
                    "decode(a0, dict(VOCAB), 'strict')",
                    (part,),
                    strict,
                    hidden,
                )
            )
    return calls


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 05's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    texts = [random_text(rng, rng.randint(2, 10)) for _ in range(3)]
    texts.append(window(rng, corpora.english("heldout"), 300))
    pair_inputs = [[], [5], [1, 2, 3, 1, 2], [7, 7, 7], [7, 7, 7, 7, 7], [300, 256, 300, 256, 300]]
    pair_inputs += [list(text.encode("utf-8")) for text in [*TEXTS, _shakespeare()]]
    secret_ids = [list(text.encode("utf-8")) for text in texts] + [
        [rng.choice([7, 8, 300]) for _ in range(20)]
    ]
    cat = list(walkthroughs.CAT_HAT_TEXT.encode("utf-8"))
    merge_args = [
        (cat, (116, 104), 256),
        (cat, (97, 116), 300),
        (cat, (1, 2), 256),
        ([], (1, 2), 256),
        ([1, 2], (1, 2), 256),
        ([7, 7, 7], (7, 7), 256),
        ([7, 7, 7, 7], (7, 7), 256),
        ([1, 2, 1, 2, 2, 1], (2, 1), 999),
        ([256, 101, 256, 101], (256, 101), 257),
        ([3, 1, 2], (1, 2), 256),
    ]
    merge_hidden = [
        (ids, (ids[i], ids[i + 1]) if len(ids) > 1 else (1, 2), rng.randint(256, 5000))
        for ids in secret_ids
        for i in [rng.randrange(max(len(ids) - 1, 1))]
    ]
    merges = calls_of("merge", merge_args, merge) + calls_of(
        "merge", merge_hidden, merge, hidden=True
    )
    merges.append(
        Call(
            "the ids passed to merge(ids, (116, 104), 256) afterwards",
            "after_call(merge, a0, a1, a2)",
            (cat, (116, 104), 256),
            cat,
        )
    )
    train_fixed = [(text, size) for text in TEXTS for size in (256, 258, 262, 280)]
    train_fixed += [("a", 300), ("", 300), (_shakespeare(), 300)]
    merge_lists = [
        [],
        _merges(walkthroughs.CAT_HAT_TEXT, 258),
        _merges(MIXED, 280),
        _merges(_shakespeare(), 300),
        [((97, 97), 3), ((256, 256), 1), ((98, 257), 1)],
    ]
    english, multi = _tokenizer(_shakespeare(), 300), _tokenizer(MIXED, 280)
    ordered = ByteTokenizer([((98, 99), 1), ((97, 98), 1), ((97, 256), 1)])
    encode_calls = []
    for tok, fixed, secret in [
        (english, ["the king", corpora.english("heldout")[:400], "naïve 🦙", ""], texts),
        (multi, ["日本語", "Ωμέγα 🦙", "unseen text"], texts[:2]),
        (ordered, ["abc", "ab", "abcab", "cab"], ["".join(rng.choice("abc") for _ in range(9))]),
    ]:
        reference = lambda text, merges, tok=tok: tok.encode(text)  # noqa: E731
        encode_calls += calls_of("encode", [(text, list(tok.merges)) for text in fixed], reference)
        encode_calls += calls_of(
            "encode", [(text, list(tok.merges)) for text in secret], reference, hidden=True
        )
    stream = []
    for t, text, hidden in [
        (multi, MIXED, False),
        (multi, "日本語 Ωμέγα", False),
        (multi, "🦙 ok", False),
        (english, "naïve 👨‍👩‍👧 the king", False),
        (ByteTokenizer(), "é€😀", False),
        (multi, texts[0], True),
        (english, texts[1], True),
    ]:
        ids = t.encode(text)
        vocab = dict(t.vocab)
        for part in (ids, ids[:-1], ids[: len(ids) // 2]):
            stream.append(
                Call(
                    f"stream_decode({_short(part)}, vocab)",
                    "stream_decode(a0, a1)",
                    (part, vocab),
                    reference_stream_decode(part, vocab),
                    hidden,
                )
            )
    curve_tok = _tokenizer(corpora.english("train")[:20_000], 600)
    heldout = corpora.english("heldout")[:3000]
    curve_fixed = [
        (curve_tok, heldout, [256, 300, 400, 600]),
        (curve_tok, heldout, [600, 256]),
        (curve_tok, MIXED, [256, 450]),
        (multi, MIXED, [256, 270, 280]),
        (multi, "日本語", [280]),
    ]
    curve_hidden = [
        (curve_tok, text, sorted(rng.sample(range(256, 601), 3))) for text in texts if text.strip()
    ]
    curves = [
        Call(
            f"bytes_per_token({_short(text)}, merges, {sizes})",
            "bytes_per_token(a0, a1, a2)",
            (text, list(tok.merges), sizes),
            bytes_per_token_curve(tok, text, [v - 256 for v in sizes]),
            hidden,
        )
        for calls, hidden in [(curve_fixed, False), (curve_hidden, True)]
        for tok, text, sizes in calls
    ]
    return [
        Task(
            "get_pair_counts",
            2,
            ("get_pair_counts",),
            [
                Call(
                    f"list(get_pair_counts({_short(ids)}).items())",
                    "list(get_pair_counts(a0).items())",
                    (ids,),
                    list(get_pair_counts(ids).items()),
                    hidden,
                )
                for inputs, hidden in [(pair_inputs, False), (secret_ids, True)]
                for ids in inputs
            ],
            hint="loop over zip(ids, ids[1:]) and build a plain dict, so that pairs keep the order "
            "in which they first occur; overlapping pairs all count ([7, 7, 7] has (7, 7) twice).",
        ),
        Task(
            "merge",
            2,
            ("merge",),
            merges,
            setup=AFTER_CALL,
            hint="walk i from 0; when (ids[i], ids[i + 1]) is the pair, append new_id and skip 2, "
            "else append ids[i] and skip 1. Build a new list; do not change the one given.",
        ),
        function_task(
            "train",
            3,
            train_fixed,
            _merges,
            hidden=[(text, rng.randint(256, 300)) for text in texts],
            hint="start from list(text.encode('utf-8')); for new_id in range(256, vocab_size): "
            "count, "
            "pick max(counts, key=counts.get) (the first of equal maxima), record (pair, count), "
            "merge. Stop early when no pair is left.",
        ),
        function_task(
            "build_vocab",
            2,
            [(merges,) for merges in merge_lists],
            build_vocab,
            hidden=[(_merges(text, rng.randint(257, 290)),) for text in texts],
            hint="vocab = {i: bytes([i]) for i in range(256)}, then for each merge in order, "
            "vocab[256 + rank] = vocab[left] + vocab[right].",
        ),
        Task(
            "encode",
            2,
            ("encode",),
            encode_calls,
            hint="start from list(text.encode('utf-8')) and apply merge(ids, pair, 256 + rank) for "
            "every merge, in the order of the list (or merge the lowest-ranked pair present, "
            "again and again).",
        ),
        Task(
            "decode",
            2,
            ("decode",),
            _decode_calls(multi, [MIXED, "Ωμέγα", "caf\u00e9", "🦙", "plain"], False)
            + _decode_calls(multi, texts[:2], True)
            + [Call("decode([], vocab)", "decode([], dict(VOCAB))", (), "")],
            data={"VOCAB": dict(multi.vocab)},
            hint="b''.join(vocab[i] for i in ids).decode('utf-8', errors=errors): 'replace' shows "
            "U+FFFD for an unfinished character, 'strict' raises UnicodeDecodeError.",
        ),
        Task(
            "stream_decode",
            3,
            ("stream_decode",),
            stream
            + [Call("stream_decode([], vocab)", "stream_decode([], a0)", (dict(multi.vocab),), [])],
            hint="keep a buffer of bytes; after adding each token's bytes, emit the longest prefix "
            "that is whole characters and keep the rest (or use "
            "codecs.getincrementaldecoder('utf-8')()).",
        ),
        Task(
            "bytes_per_token",
            2,
            ("bytes_per_token",),
            curves,
            compare=_bytes_per_token_close,
            hint="for each vocab size v, encode with the first v - 256 merges only, and divide "
            "len(text.encode('utf-8')) by the number of ids.",
        ),
    ]
