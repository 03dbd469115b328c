"""Checks of exercises/05_byte_bpe.ipynb. The reference is book.tokenizers.byte_bpe.

Every task is a variant, an extension or a measurement of the chapter's code: expanding ids
to bytes through the merges alone, training with a minimum count, merging while updating the
pair counts in place (chapter 9's idea), a streaming decoder that holds back truncated
characters and replaces invalid bytes at once, and compression at several vocabulary sizes.
Cases mix the walkthroughs' texts, texts full of ties, overlapping pairs (``7 7 7 7``), many
scripts and emoji (tokens that hold part of a character), invalid UTF-8 of every kind (lone
continuation bytes, bad continuations, overlong forms, surrogates, bytes F5-FF), and
Shakespeare; the judge adds hidden texts and byte sequences drawn at random. Where a case
targets one mistake, its label says which.
"""

from __future__ import annotations

import random
from functools import cache
from itertools import islice

from book import corpora, walkthroughs
from book.analysis.compression import bytes_per_token_curve
from book.checks.cases import Cases, check_on_cases, judge_calls, outcome
from book.checks.core import Case
from book.checks.spec import Call, Task, random_text, window
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.core import build_vocab, get_pair_counts, merge, training_rounds

TIES = "zy ab yz ba"  # every pair occurs once: the first one seen, (z, y), must win
OVERLAP = "aaaa aaab baaa"
MIXED = "Ωμέγα Ωμέγα naïve café 日本語 日本 🦙🦙 👨‍👩‍👧"
TEXTS = [walkthroughs.CAT_HAT_TEXT, walkthroughs.THEATRE_TEXT, TIES, OVERLAP, MIXED]
# Byte sequences that are not UTF-8, and why (the stream decoder must replace them at once).
INVALID = {
    "a lone continuation byte": b"\x80",
    "a lead byte, then a byte that cannot continue it": b"\xc3(",
    "an overlong '/'": b"\xc0\xaf",
    "a surrogate": b"\xed\xa0\x80",
    "a second byte out of range for E0": b"\xe0\x80\x80",
    "above U+10FFFF": b"\xf4\x90\x80\x80",
    "bytes F5-FF never occur": b"\xf5\xff",
}


@cache
def _shakespeare(n_chars: int = 3000) -> str:
    """The first ``n_chars`` characters of the training plays."""
    return corpora.english("train")[:n_chars]


@cache
def _tokenizer(text: str, vocab_size: int) -> ByteTokenizer:
    """The reference tokenizer trained on ``text``."""
    return ByteTokenizer.train(text, vocab_size)


# --- the references ------------------------------------------------------------------------------


def to_bytes_reference(ids: list[int], merges: list) -> bytes:
    """The bytes of ids through the merges (ValueError for an id no merge created)."""
    vocab = build_vocab(merges)
    for token_id in ids:
        if token_id not in vocab:
            raise ValueError(f"id {token_id} is not a byte and no merge created it")
    return b"".join(vocab[token_id] for token_id in ids)


def train_reference(text: str, vocab_size: int, min_count: int = 1) -> list:
    """Merges with the book's tie-break, stopping at vocab_size or below min_count."""
    merges = []
    for done in islice(training_rounds([text.encode("utf-8")]), max(0, vocab_size - 256)):
        if done.merge[1] < min_count:
            break
        merges.append(done.merge)
    return merges


def updated_reference(ids: list[int], pair: tuple, new_id: int, counts: dict) -> list:
    """[merged ids, the pair counts of the merged ids, whether ids stayed unchanged]."""
    merged = merge(ids, pair, new_id)
    return [merged, get_pair_counts(merged), True]


def stream_decode_reference(ids: list[int], vocab: dict[int, bytes]) -> list[str]:
    """The text certain after each id: truncated characters wait, invalid bytes are replaced.

    Python's incremental decoder waits one byte too long on some invalid pairs (``ED A0``), so
    the reference decodes the pending bytes strictly and reads the error: "unexpected end of
    data" at the very end is a truncated character, every other error is invalid at once.

    >>> stream_decode_reference([0xC3, 0xA9, 0xED, 0xA0], {i: bytes([i]) for i in range(256)})
    ['', 'é', '', '\\ufffd\\ufffd']
    """
    pieces, pending = [], b""
    for token_id in ids:
        pending += vocab[token_id]
        text = ""
        while pending:
            try:
                text, pending = text + pending.decode("utf-8"), b""
            except UnicodeDecodeError as error:
                good = pending[: error.start].decode("utf-8")
                if error.reason == "unexpected end of data" and error.end == len(pending):
                    text, pending = text + good, pending[error.start :]
                    break
                text, pending = text + good + "\ufffd", pending[error.end :]
        pieces.append(text)
    return pieces


def bytes_per_token_reference(text: str, merges: list, vocab_sizes: list[int]) -> list[float]:
    """UTF-8 bytes of text per token with the first v - 256 merges, for each size v."""
    return bytes_per_token_curve(ByteTokenizer(merges), text, [v - 256 for v in vocab_sizes])


def close(got, expected) -> bool:
    """A list of floats equal to the expected ones up to rounding."""
    return (
        isinstance(got, list)
        and len(got) == len(expected)
        and all(isinstance(g, float) and abs(g - e) < 1e-9 for g, e in zip(got, expected))
    )


# --- the cases -----------------------------------------------------------------------------------


def _to_bytes_cases() -> Cases:
    """to_bytes: bytes, the walkthrough's merges, nested merges, unknown ids."""
    cat = train_reference(walkthroughs.CAT_HAT_TEXT, 258)
    mixed = train_reference(MIXED, 280)
    nested = [((97, 97), 3), ((256, 256), 1), ((98, 257), 1)]
    english = _tokenizer(_shakespeare(), 300)
    return [
        (([], cat), "no ids"),
        (([104, 105, 0, 255], cat), "ids below 256 are bytes"),
        (([257, 32, 99, 97, 116], cat), "the walkthrough's merges"),
        (([258, 256, 257], nested), "merges of merges"),
        ((english.encode(corpora.english("heldout")[:300]), list(english.merges)), "Shakespeare"),
        ((_tokenizer(MIXED, 280).encode(MIXED), mixed), "tokens that hold part of a character"),
        (([256 + len(cat)], cat), "the first id no merge made: 256 + len(merges) raises"),
        (([104, 300], cat), "an id no merge made raises ValueError"),
    ]


def _train_cases() -> Cases:
    """train: every text at several sizes and minimum counts, empty and tiny texts."""
    cases: Cases = []
    for text in TEXTS:
        for vocab_size in (256, 258, 262, 280):
            for min_count in (1, 2, 3):
                cases.append(((text, vocab_size, min_count), ""))
    cases += [
        (("a", 300, 1), "no pair at all"),
        (("", 300, 2), "an empty text"),
        (("aaab", 300, 2), "the count equal to min_count still merges"),
        ((_shakespeare(), 300, 4), "Shakespeare"),
    ]
    return cases


def _update_args(ids: list[int], pair: tuple, new_id: int) -> tuple:
    """The arguments of merge_and_update: ids, pair, new id, and the pair counts of ids."""
    return (ids, pair, new_id, get_pair_counts(ids))


def _update_cases() -> Cases:
    """merge_and_update: overlaps, neighbours, absent pairs, pairs at both ends, real text."""
    cat = list(walkthroughs.CAT_HAT_TEXT.encode("utf-8"))
    shakespeare = list(_shakespeare(600).encode("utf-8"))
    return [
        (_update_args([1, 2, 3], (1, 2), 9), ""),
        (_update_args(cat, (116, 104), 256), "neighbours on both sides"),
        (_update_args([7, 7, 7], (7, 7), 256), "an overlap: one (7, 7) is removed, not two"),
        (_update_args([7, 7, 7, 7], (7, 7), 256), "two merges side by side: (256, 256)"),
        (_update_args([7, 7, 7, 7, 7], (7, 7), 256), "an odd run"),
        (_update_args([1, 2, 1, 2, 1, 2], (1, 2), 300), "(2, 1) between merges disappears"),
        (_update_args([1, 2, 3, 1, 2], (3, 1), 300), "a pair that occurs once"),
        (_update_args([5, 6], (1, 2), 300), "a pair that does not occur changes nothing"),
        (_update_args([], (1, 2), 300), "no ids"),
        (_update_args(shakespeare, (101, 32), 256), "Shakespeare"),
    ]


def _stream_inputs() -> list[tuple[list[int], dict[int, bytes], str]]:
    """(ids, vocab, note) for the stream decoder: truncated and invalid, in tokens and bytes."""
    multi, english = _tokenizer(MIXED, 280), _tokenizer(_shakespeare(), 300)
    byte_vocab = {i: bytes([i]) for i in range(256)}
    inputs = []
    for tok, text in [(multi, MIXED), (multi, "🦙 ok"), (english, "naïve 👨‍👩‍👧 the king")]:
        ids = tok.encode(text)
        vocab = dict(tok.vocab)
        inputs += [(ids, vocab, "whole text"), (ids[:-1], vocab, "cut: a character may wait")]
    for note, data in INVALID.items():
        inputs.append((list(b"ok " + data + " é!".encode()), byte_vocab, f"invalid: {note}"))
    inputs += [
        (list("é€😀".encode()), byte_vocab, "truncated characters wait for their last byte"),
        (list(b"\xf0\x9f\x98"), byte_vocab, "a truncated character at the end is never shown"),
        (list(b"\xf0\x9f(\x80a"), byte_vocab, "truncated, then proven invalid by the next byte"),
        (
            [0xE9, 0x80, 0x41],
            {**byte_vocab, 0xE9: b"\xe2\x82", 0x80: b"\xac\x80"},
            "one token completes a character and starts an invalid byte",
        ),
        ([], byte_vocab, "no ids"),
    ]
    return inputs


def _stream_cases() -> Cases:
    """stream_decode cases."""
    return [((ids, vocab), note) for ids, vocab, note in _stream_inputs()]


def _bpt_cases() -> Cases:
    """bytes_per_token: sizes in any order, held-out English, many scripts."""
    english = _tokenizer(corpora.english("train")[:20_000], 600)
    heldout = corpora.english("heldout")[:3000]
    multi = _tokenizer(MIXED, 280)
    return [
        ((heldout, list(english.merges), [256, 300, 400, 600]), ""),
        ((heldout, list(english.merges), [600, 256]), "sizes in the order given"),
        ((MIXED, list(english.merges), [256, 450]), "other scripts"),
        ((MIXED, list(multi.merges), [256, 270, 280]), ""),
        (("日本語", list(multi.merges), [280]), ""),
    ]


# --- the checks the notebook runs ----------------------------------------------------------------

HINTS = {
    "to_bytes": "an id below 256 is bytes([id]); id 256 + rank is merges[rank]'s two parts, each "
    "expanded in turn (rank = id - 256, not id - 255). Raise ValueError for an id that is "
    "neither a byte nor made by a merge.",
    "train": "the chapter's loop, but before merging check the best pair's count: stop when it "
    "is below min_count (a count equal to min_count still merges). New ids are 256, 257, ... "
    "in order; ties go to the pair seen first.",
    "merge_and_update": "for each merged place: the pair itself -1; the pair on the left "
    "(left, a) becomes (left, new_id) and the pair on the right (b, right) becomes "
    "(new_id, right). Take left from the merged list, not from ids: after a merge just "
    "before ([7, 7, 7, 7]) it is new_id. Delete pairs that reach 0; return a new list.",
    "stream_decode": "keep a buffer of pending bytes; after each id, decode strictly and read the "
    "UnicodeDecodeError: 'unexpected end of data' reaching the end is a truncated character "
    "(keep those bytes), any other error is invalid bytes (emit '\\ufffd' for "
    "pending[start:end] at once and go on). codecs' incremental decoder waits one byte too "
    "long on some invalid pairs (ED A0).",
    "bytes_per_token": "for each vocab size v, encode with the first v - 256 merges only, and "
    "divide len(text.encode('utf-8')) by the number of ids, as a float.",
}
POINTS = {
    "to_bytes": 2,
    "train": 3,
    "merge_and_update": 3,
    "stream_decode": 3,
    "bytes_per_token": 2,
}
REFERENCES = {
    "to_bytes": to_bytes_reference,
    "train": train_reference,
    "merge_and_update": updated_reference,
    "stream_decode": stream_decode_reference,
    "bytes_per_token": bytes_per_token_reference,
}
CASES = {
    "to_bytes": _to_bytes_cases,
    "train": _train_cases,
    "merge_and_update": _update_cases,
    "stream_decode": _stream_cases,
    "bytes_per_token": _bpt_cases,
}


def _updated(merge_and_update):
    """merge_and_update as a function of its arguments giving what the check compares."""

    def run(ids, pair, new_id, counts):
        kept = list(ids)
        merged = merge_and_update(ids, pair, new_id, counts)
        return [merged, counts, ids == kept]

    return run


def _check(task: str, answer) -> None:
    """Run the task's cases against its reference."""
    check_on_cases(task, answer, REFERENCES[task], CASES[task](), POINTS[task], HINTS[task])


def check_to_bytes(to_bytes) -> None:
    """to_bytes(ids, merges) -> the bytes of ids, expanded through the merges."""
    _check("to_bytes", to_bytes)


def check_train(train) -> None:
    """train(text, vocab_size, min_count) -> [(pair, count), ...] with the book's tie-break."""
    default = Case(
        "train('aaab', 258) [min_count is 1 by default]",
        lambda: outcome(train, "aaab", 258),
        train_reference("aaab", 258),
    )
    check_on_cases(
        "train", train, train_reference, _train_cases(), POINTS["train"], HINTS["train"], [default]
    )


def check_merge_and_update(merge_and_update) -> None:
    """merge_and_update(ids, pair, new_id, counts) -> merged ids; counts updated in place."""
    answer = _updated(merge_and_update) if callable(merge_and_update) else merge_and_update
    check_on_cases(
        "merge_and_update",
        answer,
        updated_reference,
        _update_cases(),
        POINTS["merge_and_update"],
        HINTS["merge_and_update"],
    )


def check_stream_decode(stream_decode) -> None:
    """stream_decode(ids, vocab) -> one string per id, truncated and invalid bytes handled."""
    _check("stream_decode", stream_decode)


def check_bytes_per_token(bytes_per_token) -> None:
    """bytes_per_token(text, merges, vocab_sizes) -> [UTF-8 bytes / tokens, one per size]."""
    check_on_cases(
        "bytes_per_token",
        bytes_per_token,
        bytes_per_token_reference,
        _bpt_cases(),
        POINTS["bytes_per_token"],
        HINTS["bytes_per_token"],
        compare=close,
    )


# --- what the judge needs (see book.checks.core) --------------------------------------------------

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")
UPDATED = """
def updated(function, ids, pair, new_id, counts):
    kept = list(ids)
    merged = function(ids, pair, new_id, counts)
    return [merged, counts, ids == kept]
"""


def _hidden(rng: random.Random) -> dict[str, Cases]:
    """Hidden cases of every task, drawn from rng."""
    texts = [random_text(rng, rng.randint(2, 10)) for _ in range(3)]
    texts.append(window(rng, corpora.english("heldout"), 300))
    english, multi = _tokenizer(_shakespeare(), 300), _tokenizer(MIXED, 280)
    to_bytes = [((english.encode(text), list(english.merges)), "hidden") for text in texts[:2]]
    to_bytes.append(((multi.encode(texts[2]), list(multi.merges)), "hidden"))
    train = [((text, rng.randint(256, 300), rng.randint(1, 4)), "hidden") for text in texts]
    update = []
    for text in texts:
        ids = list(text.encode("utf-8"))
        pairs = list(get_pair_counts(ids)) or [(1, 2)]
        update.append((_update_args(ids, rng.choice(pairs), rng.randint(256, 999)), "hidden"))
    runs = [rng.choice([7, 7, 8, 300]) for _ in range(rng.randint(5, 25))]
    update.append((_update_args(runs, (7, 7), 301), "hidden"))
    byte_vocab = {i: bytes([i]) for i in range(256)}
    pool = [bytes([b]) for b in rng.sample(range(256), 40)]
    pool += [ch.encode() for ch in "aé€😀"] + list(INVALID.values())
    stream = [((english.encode(texts[0]), dict(english.vocab)), "hidden")]
    for _ in range(3):
        data = b"".join(rng.choice(pool) for _ in range(rng.randint(3, 12)))
        stream.append(((list(data), byte_vocab), "hidden"))
    tok = _tokenizer(corpora.english("train")[:20_000], 600)
    bpt = [
        ((text, list(tok.merges), sorted(rng.sample(range(256, 601), 3))), "hidden")
        for text in texts
        if text.strip()
    ]
    return {
        "to_bytes": to_bytes,
        "train": train,
        "merge_and_update": update,
        "stream_decode": stream,
        "bytes_per_token": bpt,
    }


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 05's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    hidden = _hidden(rng)
    tasks = []
    for name in POINTS:
        reference = REFERENCES[name]
        calls = judge_calls(name, reference, CASES[name](), False)
        calls += judge_calls(name, reference, hidden[name], True)
        setup, compare = "", close if name == "bytes_per_token" else None
        if name == "merge_and_update":
            calls = [
                Call(
                    call.label,
                    f"updated(merge_and_update, {call.expr.split('(', 1)[1]}",
                    call.args,
                    call.expected,
                    call.hidden,
                )
                for call in calls
            ]
            setup = UPDATED
        if name == "train":
            calls.append(
                Call(
                    "train('aaab', 258) [min_count is 1 by default]",
                    "train(a0, a1)",
                    ("aaab", 258),
                    train_reference("aaab", 258),
                )
            )
        extra = {"compare": compare} if compare else {}
        tasks.append(Task(name, POINTS[name], (name,), calls, HINTS[name], setup=setup, **extra))
    return tasks
