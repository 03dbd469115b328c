"""Checks of exercises/08_reading_tokenizers.ipynb, as one spec per task. The references are
composed from book.tokenizers.formats.gpt2_files, book.tokenizers.bpe and tiktoken itself
(offline, book.encodings).

Each task asks for something the chapter did not write: a reader of GPT-2's ``vocab.json`` and
``merges.txt``, tiktoken's own algorithm as its Rust code runs it (merge the pair whose joined
bytes have the lowest rank, no recovered merges, and after a merge look up only the pairs it
changed: a probe counts the look-ups, so the chapter's ``split_token`` with its limit removed
earns nothing; it keeps the count and the table out of the answer's reach by name, and refuses
an answer that reaches tiktoken), and tiktoken's ranks from a vocabulary and merges.
Tasks 1 and 3 are graded by parts, the malformed files (task 1) and the errors (task 3) a part of
their own: a known mistake that breaks one part loses its points only, any other fails every
group, and the hidden cases carry the traps that show it (``tests/test_check_specs.py`` proves
it on seeds 1-20, ``tests/test_checks_ch08.py`` for the mistakes a reviewer wrote).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from functools import cache

import tiktoken

from book import corpora
from book.checks import ch06
from book.checks.ch06 import MIXED, TEST_SET, _english, _trained, mergeable_ranks
from book.checks.ch10 import EOT, SymbolPair, _byte_merges
from book.checks.spec import Cases, Group, Mistake, TaskSpec, checks_of, random_text, window
from book.encodings import get_encoding
from book.tokenizers.bpe.patterns import CL100K_PATTERN, GPT2_PATTERN, split
from book.tokenizers.bpe.pretokenize import training_chunk_counts
from book.tokenizers.bpe.regex_bpe import RegexTokenizer
from book.tokenizers.formats.gpt2_files import (
    MERGES_HEADER,
    merges_text,
    token_bytes_of,
    vocab_text,
)

# --- Task 1: read_gpt2_files ---------------------------------------------------------------------


def read_gpt2_reference(vocab_json: str, merges_txt: str) -> tuple[dict[bytes, int], list]:
    """(ranks {token bytes: id}, merges [(left bytes, right bytes)]) from the files' texts."""

    def token(written: str) -> bytes:
        try:
            return token_bytes_of(written)
        except KeyError as error:  # a character outside the table
            raise ValueError(str(error)) from None

    ranks = {token(written): token_id for written, token_id in json.loads(vocab_json).items()}
    merges = []
    for number, line in enumerate(merges_txt.splitlines()):
        if (number == 0 and line.startswith("#version")) or not line.strip():
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"line {number + 1} is not two tokens separated by a space: {line!r}")
        merges.append((token(parts[0]), token(parts[1])))
    return ranks, merges


def _read_with(
    order=lambda others: others,
    header=True,
    error=ValueError,
    comments=False,
    any_space=False,
    first_line=False,
    below_256=False,
    empty_tokens=False,
):
    """A reader with its own table (shifted bytes in order(others)), that skips the header or
    not, raises error for a character outside the table, skips every line that starts with '#'
    (comments=True), cuts lines at any run of whitespace (any_space=True), skips the first
    line whatever it holds (first_line=True), reads a character below 256 outside the table as
    its own code (below_256=True) and takes a line cut into two strings, one of them empty, for
    a merge (empty_tokens=True)."""

    def read(vocab_json, merges_txt):
        printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
        others = order([b for b in range(256) if b not in printable])
        byte_of = {chr(b): b for b in printable} | {chr(256 + i): b for i, b in enumerate(others)}
        if below_256:
            byte_of = {chr(b): b for b in range(256)} | byte_of

        def token(written):
            if any(c not in byte_of for c in written):
                raise error(f"{written!r} is outside the table")
            return bytes(byte_of[c] for c in written)

        ranks = {token(w): i for w, i in json.loads(vocab_json).items()}
        merges = []
        for number, line in enumerate(merges_txt.splitlines()):
            if (header and number == 0 and line.startswith("#version")) or not line.strip():
                continue
            if first_line and number == 0:
                continue
            if comments and line.startswith("#"):
                continue
            parts = line.split() if any_space else line.split(" ")
            if len(parts) != 2 or not (empty_tokens or all(parts)):
                raise ValueError(f"line {number + 1}: {line!r}")
            merges.append((token(parts[0]), token(parts[1])))
        return ranks, merges

    return read


def _file_texts(vocab: dict[int, bytes], merges: list) -> tuple[str, str]:
    """The texts of vocab.json and merges.txt."""
    return vocab_text(vocab), merges_text(merges)


GPT2_PREFIX = 2_300  # GPT-2's tokens in its files' case: its merge '# #' makes token 2235


@cache
def _files(name: str) -> tuple[str, str]:
    """vocab.json and merges.txt of a tokenizer used by the cases."""
    if name == "gpt2-prefix":
        tok = RegexTokenizer.from_tiktoken(get_encoding("gpt2"))
        vocab, merges = tok.vocab_and_merges()
        keep = {i: b for i, b in vocab.items() if i < GPT2_PREFIX}
        return _file_texts(keep, merges[: GPT2_PREFIX - 256])
    tok = _trained(
        corpora.parallel()["Russian"] + MIXED if name == "multi" else _english(),
        330,
        "GPT2_PATTERN",
    )
    return _file_texts(*tok.vocab_and_merges())


# Characters the table does not write: below 256 (a space, a control character, the soft
# hyphen U+00AD, which the table shifts) and above it.
OUTSIDE = {"\u2603": "a snowman", " ": "a space", "\u0007": "a control character"}
OUTSIDE |= {"\u00ad": "U+00AD, a byte the table shifts"}


def _broken(vocab_json: str, merges_txt: str) -> Cases:
    """Files that must raise ValueError: a character outside the table in a token of each file,
    a line of three tokens, a line with a space at its end or its start, two spaces between the
    tokens."""
    outside = [
        ((vocab_json.replace('"', '"' + json.dumps(c)[1:-1], 1), merges_txt), f"{what} in vocab")
        for c, what in OUTSIDE.items()
    ]
    outside += [
        ((vocab_json, merges_txt + f"t {c}\n"), f"{what} in a merge")
        for c, what in OUTSIDE.items()
        if c != " "
    ]
    return [
        *outside,
        ((vocab_json, merges_txt + "\u0120 t h\n"), "a line of three tokens"),
        ((vocab_json, merges_txt + "\u0120 t \n"), "a space at the end of a line"),
        ((vocab_json, merges_txt + "t \n"), "one token and a space"),
        ((vocab_json, merges_txt + " t\n"), "a space, then one token"),
        ((vocab_json, merges_txt + "\u0120  t\n"), "two spaces between the tokens"),
    ]


# Merges of GPT-2 whose lines start with '#' (its vocab.bpe has them at lines 1980, 3987, ...):
# they are merges, not comments.
HASH_MERGES = ["# #", "## ##", "## #", "# $", "#$ #$"]


def _with_hash_merges(merges_txt: str, rng: random.Random | None = None) -> str:
    """merges_txt with GPT-2's merges of '#' after its header: at the end, or at random
    places."""
    lines = merges_txt.splitlines()
    if rng is None:
        return "\n".join(lines + HASH_MERGES) + "\n"
    for merge_line in rng.sample(HASH_MERGES, 2):
        lines.insert(rng.randint(1, len(lines)), merge_line)
    return "\n".join(lines) + "\n"


def _headerless(merges_txt: str) -> str:
    """merges_txt without its '#version' first line: it starts with a merge."""
    return merges_txt.split("\n", 1)[1]


def _read_examples() -> Cases:
    vocab_json, merges_txt = _files("english")
    return [
        ((vocab_json, _headerless(merges_txt)), "no '#version' line"),
        (_files("english"), "a tokenizer trained on Shakespeare"),
        (_files("multi"), "tokens of partial characters: every byte through the table"),
        ((vocab_json, merges_txt.replace("\n", "\n\n")), "blank lines are skipped"),
        ((vocab_json, _with_hash_merges(merges_txt)), "merges of '#' tokens are merges"),
        ((vocab_json, MERGES_HEADER + "\n"), "no merges"),
    ]


def _gpt2_files() -> Cases:
    files = _files("gpt2-prefix")
    return [
        (files, f"GPT-2's first {GPT2_PREFIX:,} tokens: bytes in GPT-2's order, merges of '#'"),
        ((files[0], _headerless(files[1])), "GPT-2's tokens, no '#version' line"),
    ]


def _malformed() -> Cases:
    return _broken(*_files("english")) + _broken(*_files("gpt2-prefix"))[-1:]


def _read_hidden(rng: random.Random) -> Cases:
    text = random_text(rng, 30) + window(rng, corpora.english("heldout"), 400)
    secret = _trained(text, rng.randint(270, 330), "GPT2_PATTERN")
    vocab_json, merges_txt = _file_texts(*secret.vocab_and_merges())
    return [
        ((vocab_json, _with_hash_merges(merges_txt, rng)), "random"),
        ((vocab_json, merges_txt.replace("\n", "\n\n", rng.randint(1, 20))), "random"),
        ((vocab_json, _headerless(_with_hash_merges(merges_txt, rng))), "no '#version' line"),
    ]


def _malformed_hidden(rng: random.Random) -> Cases:
    secret = _trained(random_text(rng, 30), rng.randint(270, 330), "GPT2_PATTERN")
    return _broken(*_file_texts(*secret.vocab_and_merges()))


READ_PART, MALFORMED_PART = "reading the files", "malformed files"
READ_GPT2_FILES = TaskSpec(
    "read_gpt2_files",
    read_gpt2_reference,
    (
        Group(READ_PART, 3, lambda: _read_examples() + _gpt2_files(), _read_hidden),
        Group(MALFORMED_PART, 1, _malformed, _malformed_hidden),
    ),
    (
        Mistake(
            "the 68 bytes that are not printable are shifted to chr(256), chr(257)... in "
            "increasing byte order",
            _read_with(order=lambda others: others[::-1]),
            READ_PART,
        ),
        Mistake(
            "the '#version' first line is a header, not a merge",
            _read_with(header=False),
            READ_PART,
        ),
        Mistake(
            "only a first line that starts with '#version' is a header: a file without one "
            "starts with a merge",
            _read_with(first_line=True),
            READ_PART,
        ),
        Mistake(
            "a character outside the table must raise ValueError, not another error",
            _read_with(error=KeyError),
            MALFORMED_PART,
        ),
        Mistake(
            "only the first line is a header: merges.txt has no comments, and a line that "
            "starts with '#' after it is a merge of '#' tokens (GPT-2's has '# #')",
            _read_with(comments=True),
            READ_PART,
        ),
        Mistake(
            "the tokens of a line are separated by exactly one space: a line with a space at "
            "its end, or two spaces between its tokens, is not two tokens",
            _read_with(any_space=True),
            MALFORMED_PART,
        ),
        Mistake(
            "a character the table does not write is outside it, even below 256: GPT-2's files "
            "write a space, a control character or the soft hyphen U+00AD as a shifted one",
            _read_with(below_256=True),
            MALFORMED_PART,
        ),
        Mistake(
            "a line with a space at its start or its end holds one token, not two",
            _read_with(empty_tokens=True),
            MALFORMED_PART,
        ),
    ),
    "take the first differing token or line: which bytes does the chapter's table give each of "
    "its characters, and which of the file's lines are merges?",
)

# --- Task 2: encode_ranks ------------------------------------------------------------------------

# GPT-2's and cl100k_base's ranks are too big to send with every case: a case names the
# encoding, and the probe loads its ranks once, in the learner's kernel (a small tokenizer's
# ranks are sent as they are). The probe hands the answer the ranks behind a view that counts
# each look-up (and every key, when the answer iterates over them) and returns the ids and
# whether the look-ups stayed within LOOKUPS_PER_BYTE per byte of text. The table and the count
# live in the view's closure, not in attributes, so an answer cannot reset the count or read
# the table by name; and, as chapter 01's probe refuses the codec, this one refuses an answer
# whose code (or a function of the notebook it calls) reaches tiktoken, a table taken from it,
# or what lies behind the view.
LOOKUPS_PER_BYTE = 8
FEW = f"at most {LOOKUPS_PER_BYTE} look-ups per byte"
REACHES_TIKTOKEN = "reaches tiktoken"
REACHES_BEHIND = "reaches behind the ranks it is given"
LOAD_RANKS = f"""
import types
from collections.abc import Mapping

_RANKS = {{}}
# Names through which code reaches tiktoken, or the closure, globals and frames behind the view.
TIKTOKEN_NAMES = {{"tiktoken", "get_encoding", "Encoding", "encode_ordinary", "encode_batch"}}
TIKTOKEN_NAMES |= {{"_mergeable_ranks", "_core_bpe", "CoreBPE", "_encode_single_piece"}}
BEHIND_NAMES = {{"__closure__", "cell_contents", "__globals__", "getclosurevars", "_getframe"}}
BEHIND_NAMES |= {{"f_back", "f_locals", "f_globals", "gc", "get_referents", "get_referrers"}}


def _tiktoken_value(value):
    \"\"\"tiktoken, one of its encodings or functions, or a table of tokens taken from one.\"\"\"
    if isinstance(value, types.ModuleType):
        return value.__name__.split(".")[0] == "tiktoken"
    module = getattr(value, "__module__", None) or type(value).__module__ or ""
    if module.split(".")[0] == "tiktoken" or module == "book.encodings":
        return True
    if isinstance(value, dict) and len(value) > 256:
        return isinstance(next(iter(value)), bytes)
    return False


def _refusal(code, space):
    \"\"\"Why code may not run (a name or a value it reaches), or None.\"\"\"
    names = set(code.co_names) | {{c for c in code.co_consts if isinstance(c, str)}}
    if names & TIKTOKEN_NAMES:
        return {REACHES_TIKTOKEN!r}
    if names & BEHIND_NAMES:
        return {REACHES_BEHIND!r}
    for const in code.co_consts:
        if hasattr(const, "co_names") and (why := _refusal(const, space)):
            return why
    if any(_tiktoken_value(space.get(name)) for name in code.co_names):
        return {REACHES_TIKTOKEN!r}
    return None


def _names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def _refused(function, seen):
    code = getattr(function, "__code__", None)
    if code is None or id(function) in seen:
        return None
    seen.add(id(function))
    space = getattr(function, "__globals__", {{}})
    held = list(function.__defaults__ or ()) + list((function.__kwdefaults__ or {{}}).values())
    held += [cell.cell_contents for cell in function.__closure__ or ()]
    if why := _refusal(code, space):
        return why
    if any(_tiktoken_value(value) for value in held):
        return {REACHES_TIKTOKEN!r}
    for name in sorted(_names(code)):
        called = space.get(name)
        if getattr(called, "__module__", None) == "__main__" and (why := _refused(called, seen)):
            return why
    return None


def _counted(table):
    \"\"\"A read-only view of table that counts look-ups, and the count (a list of one int).\"\"\"
    count = [0]

    class CountedRanks(Mapping):
        __slots__ = ()

        def __getitem__(self, token):
            count[0] += 1
            return table[token]

        def __contains__(self, token):
            count[0] += 1
            return token in table

        def get(self, token, default=None):
            count[0] += 1
            return table.get(token, default)

        def __iter__(self):
            count[0] += len(table)
            return iter(list(table))

        def __len__(self):
            return len(table)

    return CountedRanks(), count


def probe(answer, text, ranks, pattern):
    if why := _refused(answer, set()):
        return why
    if isinstance(ranks, str):
        if ranks not in _RANKS:
            from book.encodings import get_encoding

            _RANKS[ranks] = get_encoding(ranks)._mergeable_ranks
        ranks = _RANKS[ranks]
    counted, count = _counted(ranks)
    ids = answer(text, counted, pattern)
    few = count[0] <= {LOOKUPS_PER_BYTE} * len(text.encode("utf-8", "surrogatepass"))
    return {{"ids": ids, {FEW!r}: few}}
"""

_ENCODINGS: dict[tuple, tuple] = {}  # (pattern, hash of the ranks) -> (ranks, encoder)
_LOADED: dict[tuple, tuple] = {}  # (id, pattern) -> (ranks, encoder), for loaded encodings


def _encoder(mergeable_ranks: dict[bytes, int], pattern: str) -> tiktoken.Encoding:
    """tiktoken's encoder for these ranks, built once: GPT-2's and cl100k's tables (the same
    objects each probe loads) are found by identity, others by content."""
    loaded = _LOADED.get((id(mergeable_ranks), pattern))
    if loaded and loaded[0] is mergeable_ranks:
        return loaded[1]
    key = (pattern, hash(frozenset(mergeable_ranks.items())))
    if key not in _ENCODINGS or _ENCODINGS[key][0] != mergeable_ranks:
        encoding = tiktoken.Encoding(
            "ranks", pat_str=pattern, mergeable_ranks=mergeable_ranks, special_tokens={}
        )
        _ENCODINGS[key] = (dict(mergeable_ranks), encoding)
    if len(mergeable_ranks) > 10_000:  # an encoding's own table: few of them, kept alive
        _LOADED[id(mergeable_ranks), pattern] = (mergeable_ranks, _ENCODINGS[key][1])
    return _ENCODINGS[key][1]


def _table_behind(ranks) -> dict[bytes, int]:
    """The table behind the probe's counting view (ranks itself when it is a table): only the
    reference reads it, the probe refuses an answer that does."""
    for cell in getattr(type(ranks).__len__, "__closure__", None) or ():
        if isinstance(cell.cell_contents, dict):
            return cell.cell_contents
    return ranks


def _tiktoken_ids(text: str, table: dict[bytes, int], pattern: str) -> list[int]:
    """tiktoken's own ids of text for this table and pattern."""
    return _encoder(table, pattern).encode_ordinary(text)


def encode_ranks_reference(text: str, mergeable_ranks: dict[bytes, int], pattern: str) -> list:
    """tiktoken's ids of text for these ranks and this pattern (no special tokens). Through the
    probe it reads the table behind the counting view, so it makes no counted look-up."""
    return _tiktoken_ids(text, _table_behind(mergeable_ranks), pattern)


def _ranks_with(pick):
    """encode_ranks that looks every adjacent pair up again after each merge, as tiktoken's
    _educational.py does, and merges the pair pick(parts, ranks) chooses (an index, or None)."""

    def encode(text, ranks, pattern):
        ids = []
        for chunk in split(text, pattern):
            parts = [bytes([b]) for b in chunk.encode("utf-8")]
            while (i := pick(parts, ranks)) is not None:
                parts[i : i + 2] = [parts[i] + parts[i + 1]]
            ids += [ranks[part] for part in parts]
        return ids

    return encode


def _joinable(parts, ranks):
    return [i for i in range(len(parts) - 1) if parts[i] + parts[i + 1] in ranks]


def _first_found(parts, ranks):
    found = _joinable(parts, ranks)
    return found[0] if found else None


def _leftmost_lowest(parts, ranks):
    found = _joinable(parts, ranks)
    return min(found, key=lambda i: (ranks[parts[i] + parts[i + 1]], i)) if found else None


def _rightmost_lowest(parts, ranks):
    found = _joinable(parts, ranks)
    return max(found, key=lambda i: (-ranks[parts[i] + parts[i + 1]], i)) if found else None


def _lowest_parts(parts, ranks):
    found = _joinable(parts, ranks)
    return min(found, key=lambda i: ranks[parts[i]] + ranks[parts[i + 1]]) if found else None


def _leftmost(pair_ranks: list) -> int:
    return min((r, i) for i, r in enumerate(pair_ranks) if r is not None)[1]


def _rightmost(pair_ranks: list) -> int:
    return max((-r, i) for i, r in enumerate(pair_ranks) if r is not None)[1]


def _first(pair_ranks: list) -> int:
    return next(i for i, r in enumerate(pair_ranks) if r is not None)


def _joined_rank(ranks, left: bytes, right: bytes):
    return ranks.get(left + right)


def _parts_rank(ranks, left: bytes, right: bytes):
    """The sum of the parts' ranks, for a pair that joins into a token."""
    return ranks[left] + ranks[right] if left + right in ranks else None


def _kept_ranks(refresh_left: bool = True, pick=_leftmost, rank=_joined_rank):
    """encode_ranks that keeps each adjacent pair's rank(ranks, left, right) and, after merging
    the pair pick(pair ranks) chooses, looks up the pair on the new piece's right and
    (refresh_left) on its left: tiktoken's few look-ups, with the rule a mistake changes."""

    def encode(text, ranks, pattern):
        ids = []
        for chunk in split(text, pattern):
            parts = [bytes([b]) for b in chunk.encode("utf-8")]
            pair_ranks = [rank(ranks, a, b) for a, b in zip(parts, parts[1:])]
            while any(r is not None for r in pair_ranks):
                i = pick(pair_ranks)
                parts[i : i + 2] = [parts[i] + parts[i + 1]]
                del pair_ranks[i]
                if i > 0 and refresh_left:
                    pair_ranks[i - 1] = rank(ranks, parts[i - 1], parts[i])
                if i < len(pair_ranks):
                    pair_ranks[i] = rank(ranks, parts[i], parts[i + 1])
            ids += [ranks[part] for part in parts]
        return ids

    return encode


def _through_tiktoken(text, ranks, pattern):
    """tiktoken's own encoder, built from a copy of the ranks."""
    table = dict(ranks)
    encoding = tiktoken.Encoding("copy", pat_str=pattern, mergeable_ranks=table, special_tokens={})
    return encoding.encode_ordinary(text)


def _count_reset(text, ranks, pattern):
    """Every pair looked up again after each merge, then the count set back to 0 through the
    counting view's closure."""
    ids = _ranks_with(_leftmost_lowest)(text, ranks, pattern)
    for cell in type(ranks).get.__closure__ or ():
        if isinstance(cell.cell_contents, list):
            cell.cell_contents[0] = 0
    return ids


@cache
def _trained_ranks() -> dict[bytes, int]:
    return mergeable_ranks(_trained(_english(), 500, "CL100K_PATTERN"))


# Chunks where the order of merges shows: repeats (the leftmost of equal pairs goes first),
# numbers, and one long run of letters, on which looking every pair up again after each merge
# costs far more than LOOKUPS_PER_BYTE per byte of the whole text.
LONG_WORD = "internationalization" * 8
ENCODE_TRAPS = f" aaaa !!!!???.... 🦙🦙🦙 ==== 1234567 {LONG_WORD}  \n\n   x"


def _source(name: str):
    """The ranks argument of a case: an encoding's name, or the trained tokenizer's ranks."""
    return dict(_trained_ranks()) if name == "trained" else name


def _encode_examples(name: str):
    pattern = GPT2_PATTERN if name == "gpt2" else CL100K_PATTERN
    return lambda: [((text, _source(name), pattern), name) for text in [ENCODE_TRAPS, *TEST_SET]]


def _encode_hidden(rng: random.Random) -> Cases:
    cases: Cases = []
    for name in ("gpt2", "cl100k_base", "trained"):
        pattern = GPT2_PATTERN if name == "gpt2" else CL100K_PATTERN
        texts = [random_text(rng, 10) + ENCODE_TRAPS, window(rng, corpora.code("python"), 200)]
        cases += [((text, _source(name), pattern), f"random, {name}") for text in texts]
    return cases


FIRST_FOUND = (
    "the first pair that joins into a token is not the one to merge: merge the pair whose "
    "joined token has the lowest rank"
)
RIGHTMOST = "when the lowest rank is found at several places, merge the leftmost first"
PARTS_SUM = "the rank that decides is the joined token's, not the sum of the parts' ranks"
ENCODE_RANKS = TaskSpec(
    "encode_ranks",
    encode_ranks_reference,
    (
        Group("GPT-2", 1, _encode_examples("gpt2")),
        Group("cl100k_base", 1, _encode_examples("cl100k_base")),
        Group("a tokenizer trained on Shakespeare", 1, _encode_examples("trained")),
        Group("random texts", 1, hidden=_encode_hidden),
    ),
    (
        # Each rule's mistake twice: with every pair looked up again, and with tiktoken's few
        # look-ups, so the hint names it whichever way the answer looks pairs up.
        *(
            Mistake(says, encoder)
            for says, rescan, kept in (
                (FIRST_FOUND, _first_found, _kept_ranks(pick=_first)),
                (RIGHTMOST, _rightmost_lowest, _kept_ranks(pick=_rightmost)),
                (PARTS_SUM, _lowest_parts, _kept_ranks(rank=_parts_rank)),
            )
            for encoder in (_ranks_with(rescan), kept)
        ),
        Mistake(
            "the ids are right, but after each merge every adjacent pair is looked up again "
            "(as the chapter's split_token and tiktoken's _educational.py do): a merge changes "
            "only the pairs that touch the new piece, the others keep their ranks",
            _ranks_with(_leftmost_lowest),
        ),
        Mistake(
            "after a merge the pair on the new piece's left changed too: its old rank belongs "
            "to the piece that was merged away",
            _kept_ranks(refresh_left=False),
        ),
        Mistake(
            "your answer (or a function of the notebook it calls) reaches tiktoken: its module, "
            "an encoding or a table taken from one. Encode with the ranks you are given",
            _through_tiktoken,
        ),
        Mistake(
            "your answer (or a function it calls) reaches behind the ranks it is given, to the "
            "table or the count of look-ups: use the ranks only by looking tokens up",
            _count_reset,
        ),
    ),
    "encode the first differing chunk alone, and decode tiktoken's ids and yours to pieces: "
    "the first place where they part shows the merge your rule chose differently. If only the "
    "look-ups differ, count how many your encoder makes on one long word.",
    probe=LOAD_RANKS,
)

# --- Task 3: tiktoken_ranks ----------------------------------------------------------------------


def tiktoken_ranks_reference(vocab: dict[int, bytes], merges: list[SymbolPair], mistake: str = ""):
    """{bytes: id} of the bytes and merged tokens; ids of merges must grow with their order."""
    ids = {token: token_id for token_id, token in vocab.items()}
    ranks = {}
    for byte in range(256):
        if bytes([byte]) not in ids:
            if mistake == "bytes":
                continue
            raise ValueError(f"the vocabulary has no token for byte {byte}")
        ranks[bytes([byte])] = ids[bytes([byte])]
    last = -1
    for left, right in merges:
        token = left + right
        if token not in ids:
            raise ValueError(f"merge {(left, right)} makes {token!r}, which is not in vocab")
        grows = ids[token] > last or (mistake == "equal" and ids[token] == last)
        if not grows and mistake != "order":
            raise ValueError("the ids of merged tokens must grow with the merges' order")
        last = ranks[token] = ids[token]
    if mistake == "specials":
        return {**ranks, **{token: i for token, i in ids.items() if token not in ranks}}
    if mistake == "spelling":  # only the tokens spelled <|...|> taken for specials
        others = {t: i for t, i in ids.items() if not (t.startswith(b"<|") and t.endswith(b"|>"))}
        return {**ranks, **others}
    return ranks


def _ranks_mistake(mistake: str) -> Callable:
    return lambda vocab, merges: tiktoken_ranks_reference(vocab, merges, mistake)


def _by_merge_order(vocab: dict[int, bytes], merges: list[SymbolPair]) -> dict:
    """Ranks numbered 0-255 for bytes and 256, 257, ... for merges: not the vocabulary's ids."""
    ranks = {bytes([b]): b for b in range(256)}
    for k, (left, right) in enumerate(merges):
        ranks[left + right] = 256 + k
    return ranks


@cache
def _gpt2_vocab(n_merges: int = 300) -> tuple[dict, list]:
    """GPT-2's bytes (in its order), its first merges and <|endoftext|> at 50256."""
    ranks = get_encoding("gpt2")._mergeable_ranks  # tiktoken keeps them private
    vocab = {rank: token for token, rank in ranks.items() if rank < 256 + n_merges}
    vocab[50256] = EOT.encode()
    merges = RegexTokenizer.from_tiktoken("gpt2").vocab_and_merges()[1][:n_merges]
    return vocab, merges


def _cs336_vocab(text: str, n_merges: int) -> tuple[dict, list]:
    """CS336's order: <|endoftext|> at 0, bytes 1-256, then one token per merge."""
    merges = _byte_merges(training_chunk_counts(text, GPT2_PATTERN), n_merges)
    vocab = {0: EOT.encode(), **{1 + b: bytes([b]) for b in range(256)}}
    for left, right in merges:
        vocab[len(vocab)] = left + right
    return vocab, merges


PLAIN = {b: bytes([b]) for b in range(256)} | {256: b"ab", 257: b"abc"}


def _ranks_cases() -> Cases:
    """tiktoken_ranks: three id orders, specials left out."""
    vocab, merges = _cs336_vocab(corpora.english("train")[:4000], 40)
    bos_pad = PLAIN | {258: b"<s>", 259: b"[PAD]"}
    return [
        ((PLAIN, [(b"a", b"b"), (b"ab", b"c")]), ""),
        ((bos_pad, [(b"a", b"b"), (b"ab", b"c")]), "specials spelled otherwise are left out"),
        ((vocab, merges), "CS336's order: the special token at id 0 is left out"),
        (_gpt2_vocab(), "GPT-2's byte order; <|endoftext|> at 50256 is left out"),
        (({b: bytes([b]) for b in range(256)}, []), "bytes only"),
    ]


def _ranks_errors() -> Cases:
    """Every ValueError: ids that fall, a merge repeated (its id does not grow), a byte or a
    merge's token missing."""
    vocab, merges = _cs336_vocab(corpora.english("train")[:4000], 40)
    swapped = dict(vocab)
    swapped[257], swapped[258] = vocab[258], vocab[257]
    no_byte = {i: t for i, t in vocab.items() if t != b"e"}
    no_token = {i: t for i, t in vocab.items() if t != vocab[260]}
    return [
        ((swapped, merges), "ids that fall with the merges' order raise ValueError"),
        ((PLAIN, [(b"a", b"b"), (b"a", b"b")]), "a merge repeated: its id does not grow"),
        ((PLAIN, [(b"a", b"b"), (b"ab", b"c"), (b"a", b"bc")]), "two merges make one token"),
        ((no_byte, merges[:3]), "a byte missing raises ValueError"),
        *(
            (({i: t for i, t in PLAIN.items() if i != byte}, []), f"byte {byte} missing")
            for byte in (0, 255)
        ),
        ((no_token, merges), "a merge whose token is missing raises ValueError"),
    ]


def _random_vocab(rng: random.Random, broken: str = "") -> tuple:
    """A vocabulary trained on random text, numbered in a random valid order (or broken)."""
    merges = _byte_merges(training_chunk_counts(random_text(rng, 30), GPT2_PATTERN), 20)
    byte_ids = rng.sample(range(300), 256)
    vocab = {token_id: bytes([b]) for b, token_id in enumerate(byte_ids)}
    next_id = 300
    for left, right in merges:
        next_id += rng.randint(1, 3)
        vocab[next_id] = left + right
    ids = [i for i, t in vocab.items() if len(t) > 1]
    # two special tokens: GPT-2's spelling and another one (Llama's, BERT's)
    vocab[next_id + 1] = EOT.encode()
    vocab[next_id + 2] = rng.choice([b"<s>", b"</s>", b"<pad>", b"[PAD]", b"[CLS]"])
    if broken == "order" and len(ids) > 1:
        a, b = rng.sample(ids, 2)
        vocab[a], vocab[b] = vocab[b], vocab[a]
    if broken == "byte":
        del vocab[rng.choice(byte_ids)]
    if broken == "token" and ids:
        del vocab[rng.choice(ids)]
    return (vocab, merges)


def _ranks_hidden(rng: random.Random) -> Cases:
    """Two valid vocabularies, each with a special token spelled like GPT-2's and one spelled
    otherwise."""
    return [(_random_vocab(rng), "hidden") for _ in range(2)]


def _ranks_errors_hidden(rng: random.Random) -> Cases:
    """A vocabulary whose merged ids fall, one missing a byte, one missing a merge's token."""
    return [(_random_vocab(rng, kind), "hidden") for kind in ("order", "byte", "token")]


RANKS_PART, ERRORS_PART = "the ranks", "errors"
TIKTOKEN_RANKS = TaskSpec(
    "tiktoken_ranks",
    tiktoken_ranks_reference,
    (
        Group(RANKS_PART, 2, _ranks_cases, _ranks_hidden),
        Group(ERRORS_PART, 1, _ranks_errors, _ranks_errors_hidden),
    ),
    (
        Mistake(
            "special tokens are left out: tiktoken takes them apart",
            _ranks_mistake("specials"),
            RANKS_PART,
        ),
        Mistake(
            "merged ids that do not grow with the merges' order raise ValueError",
            _ranks_mistake("order"),
            ERRORS_PART,
        ),
        Mistake(
            "the ids must grow: a merge repeated, or two merges that make one token, give an "
            "id no larger than the one before and raise ValueError",
            _ranks_mistake("equal"),
            ERRORS_PART,
        ),
        Mistake(
            "a byte missing from vocab raises ValueError", _ranks_mistake("bytes"), ERRORS_PART
        ),
        Mistake(
            "special tokens are not known by their spelling: <s> and [PAD] are specials too",
            _ranks_mistake("spelling"),
            RANKS_PART,
        ),
        Mistake("a token's rank is its id in vocab, not its place in the merges", _by_merge_order),
    ),
    "the ranks must hold exactly the 256 bytes and the merges' tokens, each at its id in "
    "vocab; a token missing from vocab, or merged ids that fall in merge order, raise "
    "ValueError.",
)

SPECS = (READ_GPT2_FILES, ENCODE_RANKS, TIKTOKEN_RANKS)
check, judge_tasks = checks_of(SPECS)

# The same modules as chapter 06's are out of reach: GPT-2's file format, the regex tokenizer and
# its tiktoken export are the answers here.
REFERENCE = ch06.REFERENCE
