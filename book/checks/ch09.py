"""Checks of exercises/09_real_tokenizers.ipynb, as one spec per task. The reference is
tiktoken, loaded offline (``book.encodings``).

No task is a chapter cell with a line added: passages of at most N tokens that never cut a
character, the share of tokens that are pieces of characters, where each token starts in the
text, cl100k_base with digits grouped from the right, and how an encoding cuts the numbers of
a sentence (in context, not alone). In tasks 1-5 every group of cases catches each known mistake
but one, which names the group it breaks (``tests/test_check_specs.py`` proves both on seeds
1-20).

Tasks 6 and 7 use other vendors' vocabularies and are graded by the parts of their statements
(issue 28). ``split_command_r`` rebuilds the pre-tokenizer that Command-R and StarCoder 2
describe in their ``tokenizer.json``: two Split steps in turn, every number character alone,
then GPT-2's original pattern on each piece between. Parts: GPT-2's rules on text without
numbers (3), every number character a chunk of its own, ASCII or not, decimal or not (2),
whitespace before a number cut in the piece before it (1).

``premiums_across`` computes the token premium of each language under each vendor's tokenizer
from token counts. Parts: the premiums, each tokenizer's counts divided by its own count of the
reference language, that language kept at 1.0, in a new dict that leaves ``counts`` unchanged
(3), and a ``ValueError`` when a tokenizer has no count, or a count of 0, for the reference
language (1).

Each part's fixed cases cover the statement's input classes and boundaries; each known mistake
names the part it breaks (``Mistake.part``) and loses that part's points, the others kept
(``tests/test_vendor_tasks.py`` proves it).
"""

from __future__ import annotations

import functools
import math
import random

import regex
import tiktoken

from book import corpora
from book.checks.answers import close
from book.checks.ch06 import DIGITS_RIGHT_REFERENCE
from book.checks.spec import (
    Cases,
    Group,
    Mistake,
    TaskSpec,
    checks_of,
    drawn_until_caught,
    random_text,
    window,
)
from book.encodings import get_encoding
from book.tokenizers.bpe.patterns import (
    CL100K_PATTERN,
    DIGITS_THEN_GPT2,
    GPT2_ORIGINAL_PATTERN,
    split,
)

ENCODINGS = ("gpt2", "cl100k_base", "o200k_base")
DIGIT_RUN = regex.compile(r"\p{N}+")  # what cl100k_base's \p{N}{1,3} cuts into chunks
ASCII_RUN = regex.compile("[0-9]+")  # the digits a learner may take for all of them
DECIMAL_RUN = regex.compile(r"\d+")  # decimal digits of every script, but not ², ½ or Ⅻ


def _pieces(text: str, encoding_name: str, encode: str = "encode_ordinary") -> list[bytes]:
    """The bytes of every token of text, special tokens' text counted as ordinary text."""
    enc = get_encoding(encoding_name)
    return [enc.decode_single_token_bytes(i) for i in getattr(enc, encode)(text)]


def _continues(piece: bytes) -> bool:
    """True when a token starts with a UTF-8 continuation byte (10xxxxxx): inside a character."""
    return 0x80 <= piece[0] < 0xC0


# --- Task 1: passages of at most max_tokens tokens that never cut a character -------------------


def passages_reference(text: str, encoding_name: str, max_tokens: int) -> list[str]:
    """Consecutive passages of at most max_tokens tokens, cut only between characters.

    >>> passages_reference(" 🌍 and", "gpt2", 1)
    [' 🌍', ' and']
    """
    return _passages(text, encoding_name, max_tokens)


def _passages(
    text, encoding_name, max_tokens, encode="encode_ordinary", back=True, whole=True, starts=None
):
    """The reference with its choices as switches (the known mistakes turn one off); starts
    says whether a token starts a character (by default: its first byte does)."""
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, not {max_tokens}")
    pieces = _pieces(text, encoding_name, encode)
    starts = starts or (lambda piece: not _continues(piece))
    cut_before = [j == len(pieces) or starts(pieces[j]) for j in range(len(pieces) + 1)]
    passages, i = [], 0
    while i < len(pieces):
        j = min(i + max_tokens, len(pieces))
        if back:
            while j > i and not cut_before[j]:
                j -= 1
        else:  # goes on to the end of the character instead of giving tokens back
            while not cut_before[j]:
                j += 1
        if j == i:  # one character needs more than max_tokens tokens
            j = i + 1
            while whole and not cut_before[j]:
                j += 1
        passages.append(b"".join(pieces[i:j]).decode("utf-8", "replace"))
        i = j
    return passages


def _passages_zero_only(text, encoding_name, max_tokens):
    if max_tokens == 0:
        raise ValueError(max_tokens)
    return _passages(text, encoding_name, max(max_tokens, 1))


def _passages_by_decoding(text, encoding_name, max_tokens):
    """Gives tokens back while the decoded passage holds a '\ufffd', a real one included."""
    if max_tokens < 1:
        raise ValueError(max_tokens)
    enc = get_encoding(encoding_name)
    ids, passages, i = enc.encode_ordinary(text), [], 0
    while i < len(ids):
        j = min(i + max_tokens, len(ids))
        while j > i and REPLACEMENT in enc.decode(ids[i:j]):
            j -= 1
        if j == i:
            j = i + 1
            while j < len(ids) and REPLACEMENT in enc.decode(ids[i:j]):
                j += 1
        passages.append(enc.decode(ids[i:j]))
        i = j
    return passages


def _passages_every(text, encoding_name, max_tokens):
    if max_tokens < 1:
        raise ValueError(max_tokens)
    enc = get_encoding(encoding_name)
    ids = enc.encode_ordinary(text)
    return [enc.decode(ids[i : i + max_tokens]) for i in range(0, len(ids), max_tokens)]


EMOJI = " 🌍 and 😀 ok"  # gpt2: each emoji is three tokens, the first holding the space
REPLACEMENT = "\ufffd"  # a real character in the text, which a token may hold whole


def _passages_examples() -> Cases:
    return [
        (("Hello, world! How are you?", "o200k_base", 3), ""),
        ((EMOJI, "gpt2", 2), "give tokens back rather than cut a character"),
        ((EMOJI, "gpt2", 1), "a character that needs more tokens than allowed goes whole"),
        (("a <|endoftext|> b", "cl100k_base", 2), "a special token's text is text"),
        ((f"ok {REPLACEMENT} fine", "gpt2", 2), "a real '\ufffd' is a whole character"),
        (("", "gpt2", 5), "no text"),
        (("abc", "gpt2", 0), "max_tokens < 1 raises ValueError"),
        (("abc", "gpt2", -2), "a negative max_tokens too"),
    ]


def _passages_scripts() -> Cases:
    passages = corpora.parallel()
    return [
        (("नमस्ते दुनिया 🙂", "gpt2", 4), ""),
        (("नमस्ते दुनिया", "o200k_base", 1), ""),
        ((passages["Amharic"][:200] + " 👨‍👩‍👧", "o200k_base", 7), "Amharic"),
        ((passages["Chinese"][:200] + "<|endoftext|>", "gpt2", 10), "Chinese"),
        (("日本語 🦙🦙 ok", "gpt2", 1), ""),
        ((f"नमस्ते {REPLACEMENT} दुनिया 🙂", "o200k_base", 2), "a real '\ufffd'"),
        (("नमस्ते", "gpt2", -1), "max_tokens < 1 raises ValueError"),
    ]


def _passages_hidden(rng: random.Random) -> Cases:
    """Random texts with emoji and a real '\ufffd', drawn until tokens must be given back and
    a character needs more tokens than allowed (rejection sampling: targeted, and the same for
    one rng)."""
    code = window(rng, corpora.code("python"), 300)
    while True:
        emoji = rng.sample(["🦙", "👍🏽", "🌍", "😀", "👨‍👩‍👧"], 2)
        text = (
            f"{random_text(rng, rng.randint(1, 4))} {emoji[0]} ab {emoji[1]}"
            f"{REPLACEMENT} x<|endoftext|>"
        )
        args = (text, "gpt2", rng.randint(2, 4))
        expected = passages_reference(*args)
        short = (text, "gpt2", 1)
        if (
            _passages(*args, back=False) != expected
            and _passages_by_decoding(*args) != expected
            and _passages(*short, whole=False) != passages_reference(*short)
        ):
            return [
                (args, "random"),
                (short, "random"),
                ((code, "cl100k_base", 9), "random"),
                ((text, "o200k_base", -rng.randint(1, 9)), "random"),
            ]


PASSAGES = TaskSpec(
    "passages_by_tokens",
    passages_reference,
    (
        Group("examples", 1, _passages_examples),
        Group("scripts and emoji", 1, _passages_scripts),
        Group("random texts", 1, hidden=_passages_hidden),
    ),
    (
        Mistake(
            "cutting the ids every max_tokens tokens cuts characters in half: a passage may end "
            "only before a token that starts a character",
            _passages_every,
        ),
        Mistake(
            "a passage holds at most max_tokens tokens: give tokens back to the start of the "
            "character, do not go on to its end",
            lambda text, name, n: _passages(text, name, n, back=False),
        ),
        Mistake(
            "a character that alone needs more than max_tokens tokens goes whole into one passage",
            lambda text, name, n: _passages(text, name, n, whole=False),
        ),
        Mistake(
            "a '\ufffd' in the decoded passage is not proof of a cut character: the text may "
            "hold a real one (U+FFFD, three valid bytes); look at the bytes of the tokens",
            _passages_by_decoding,
        ),
        Mistake(
            "encode with encode_ordinary: a special token's text in a document is text",
            lambda text, name, n: _passages(text, name, n, encode="encode"),
        ),
        Mistake(
            "a passage may hold max_tokens tokens, not one fewer",
            lambda text, name, n: _passages(text, name, max(n - 1, 1)) if n > 0 else 1 / 0,
        ),
        Mistake(
            "max_tokens below 1 is an error, a negative one as well as 0",
            _passages_zero_only,
        ),
        Mistake(
            "a passage may end before a token that starts a character even when that token "
            "is not a whole character",
            lambda text, name, n: _passages(
                text, name, n, starts=lambda piece: not _invalid(piece)
            ),
        ),
    ),
    "each passage holds at most max_tokens tokens, as many as fit, and ends only where the next "
    "token starts a character; compare your passages with the tokens around the first one that "
    "differs.",
)

# --- Task 2: the share of tokens that are pieces of characters ---------------------------------


def partial_share_reference(text: str, encoding_name: str) -> float:
    """The share of text's tokens that are not whole UTF-8 characters on their own.

    >>> partial_share_reference(" 🌍", "gpt2")
    1.0
    """
    return _share(text, encoding_name, _invalid)


def _invalid(piece: bytes) -> bool:
    try:
        piece.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _share(text, encoding_name, is_partial, encode="encode_ordinary") -> float:
    pieces = _pieces(text, encoding_name, encode)
    return sum(map(is_partial, pieces)) / len(pieces) if pieces else 0.0


def _same_share(got, expected) -> bool:
    """Shares equal up to rounding: an int 0 for no text is the same share as 0.0."""
    number = isinstance(got, (int, float)) and not isinstance(got, bool)
    return number and math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)


def _share_examples() -> Cases:
    return [
        (("Hello, world!", "o200k_base"), ""),
        ((" 🌍", "gpt2"), ""),
        (("नमस्ते दुनिया", "gpt2"), ""),
        ((f"naïve café {REPLACEMENT} 日本語 👨‍👩‍👧", "cl100k_base"), "a real '\ufffd' is whole"),
        (("", "gpt2"), "no text: 0.0"),
        (("नमस्ते<|endoftext|>", "o200k_base"), "a special token's text is text"),
    ]


def _share_replacement() -> Cases:
    return [
        ((f"ok {REPLACEMENT}{REPLACEMENT} नमस्ते", "gpt2"), ""),
        ((f"{REPLACEMENT} naïve 🦙", "o200k_base"), ""),
        ((f"<|endoftext|>{REPLACEMENT}", "cl100k_base"), "a special token's text is text"),
    ]


def _share_hidden(rng: random.Random) -> Cases:
    text = random_text(rng, rng.randint(2, 10))
    return [
        ((f"{text} {REPLACEMENT} नमस्ते 🦙<|endoftext|>", name), "random")
        for name in rng.sample(ENCODINGS, 2)
    ]


PARTIAL_SHARE = TaskSpec(
    "partial_share",
    partial_share_reference,
    (
        Group("scripts", 1, _share_examples),
        Group("the replacement character", 1, _share_replacement),
        Group("random texts", 1, hidden=_share_hidden),
    ),
    (
        Mistake(
            "'\ufffd' in a decoded token is not proof: the text may hold a real '\ufffd' "
            "(U+FFFD, three valid bytes); test whether the bytes are valid UTF-8",
            lambda text, name: _share(
                text,
                name,
                lambda piece: REPLACEMENT in piece.decode("utf-8", "replace"),
            ),
        ),
        Mistake(
            "a token that starts a character but ends inside it is a piece too, not only one "
            "that starts with a continuation byte",
            lambda text, name: _share(text, name, _continues),
        ),
        Mistake(
            "a token with bytes above 127 may be whole characters (é, 日): count the tokens "
            "whose bytes are not valid UTF-8 on their own",
            lambda text, name: _share(text, name, lambda piece: max(piece) >= 0x80),
        ),
        Mistake(
            "a token that holds a space and the first bytes of a character is a piece too: "
            "decoding it with errors='ignore' hides that",
            lambda text, name: _share(
                text, name, lambda piece: not piece.decode("utf-8", "ignore")
            ),
        ),
        Mistake(
            "encode with encode_ordinary: a special token's text in a document is text, and "
            "encode refuses it",
            lambda text, name: _share(text, name, _invalid, encode="encode"),
        ),
    ),
    "the share counts the ordinary tokens of the text (special tokens' texts as plain text) "
    "that are not whole characters, out "
    "of all its tokens; look at the tokens of the first case that differs in the chapter's "
    "viewer.",
    compare=_same_share,
)

# --- Task 3: where each token starts in the text ----------------------------------------------


# The task rules out decode_with_offsets, which gives the same numbers. While the answer runs,
# the probe swaps the code of tiktoken's function for one that counts its calls: every name the
# answer may reach it by (the class attribute, or the function saved under another name) is
# that one function object, so each call is counted; an answer that made any returns a marker.
# The count and the original function are kept in a generator's frame, out of the answer's reach
# while grading (see ``sealed``). (The grader refuses sys.setprofile, which would watch calls
# without touching tiktoken.)
NO_OFFSETS = """
def probe(answer, text, encoding_name):
    import types

    import tiktoken.core

    function = tiktoken.core.Encoding.__dict__["decode_with_offsets"]
    code, defaults = function.__code__, function.__defaults__
    secret = object()

    def calls(original):  # counts the calls in its frame, sealed while grading
        made, reply = 0, None
        while True:
            message = yield reply
            if type(message) is tuple and len(message) == 1 and message[0] is secret:
                reply = made
                continue
            made += 1
            try:
                reply = ("ok", original(*message))
            except Exception as error:
                reply = ("error", error)

    server = calls(types.FunctionType(code, function.__globals__, function.__name__))
    next(server)

    def counted(self, tokens, server=server):
        outcome, value = server.send((self, tokens))
        if outcome == "error":
            raise value
        return value

    function.__code__, function.__defaults__ = counted.__code__, counted.__defaults__
    try:
        starts = answer(text, encoding_name)
    finally:
        function.__code__, function.__defaults__ = code, defaults
    return "called decode_with_offsets" if server.send((secret,)) else starts
"""


def token_starts_reference(text: str, encoding_name: str) -> list[int]:
    """The index in text of the character where each token starts: the number of whole
    characters in the bytes before the token (the numbers tiktoken's decode_with_offsets gives,
    worked out without it, as the task asks).

    >>> token_starts_reference(" 🌍 hi", "gpt2")
    [0, 1, 1, 2]
    """
    starts, before = [], b""
    for piece in _pieces(text, encoding_name):
        starts.append(len(before.decode("utf-8", "ignore")))  # a cut character is dropped
        before += piece
    return starts


def _starts_by_offsets(text, encoding_name):
    enc = get_encoding(encoding_name)
    return enc.decode_with_offsets(enc.encode_ordinary(text))[1]


def _starts_by(length):
    """Starts as running sums of length(token bytes)."""

    def starts(text, encoding_name):
        out, total = [], 0
        for piece in _pieces(text, encoding_name):
            out.append(total)
            total += length(piece)
        return out

    return starts


def _starts_stripping_replacements(text, encoding_name):
    """Starts from the prefix decoded with errors='replace', its trailing U+FFFD stripped."""
    starts, before = [], b""
    for piece in _pieces(text, encoding_name):
        starts.append(len(before.decode("utf-8", "replace").rstrip("\ufffd")))
        before += piece
    return starts


def _lead_bytes(piece: bytes) -> int:
    return sum(not 0x80 <= byte < 0xC0 for byte in piece)


def _starts_examples() -> Cases:
    return [
        (("hello world", "gpt2"), ""),
        ((" 🌍 hi 你好", "gpt2"), "tokens that start inside a character"),
        ((" 🌍 hi 你好", "o200k_base"), ""),
        (("naïve café 🙂", "cl100k_base"), ""),
        (("", "o200k_base"), "no text"),
        (("ok \ufffd fine", "gpt2"), "a real U+FFFD in the text"),
    ]


def _starts_scripts() -> Cases:
    return [
        (("cafe\u0301 👨‍👩‍👧‍👦!", "gpt2"), "a family emoji is seven characters"),
        (("नमस्ते दुनिया 🦙", "cl100k_base"), ""),
        (("x<|endoftext|>y 👍🏽", "cl100k_base"), "a special token's text is text"),
        (("\ufffd🦙x", "gpt2"), "a real U+FFFD before an emoji"),
    ]


def _starts_hidden(rng: random.Random) -> Cases:
    text = random_text(rng, rng.randint(2, 10))
    mark = rng.choice(["", "\ufffd"])  # a real U+FFFD, half the time
    cases = [((f"{text} 🦙 {text}", name), "random") for name in ("gpt2", rng.choice(ENCODINGS))]
    return cases + [((f"{text} \ufffd{mark}🦙 {text}", "gpt2"), "random")]


TOKEN_STARTS = TaskSpec(
    "token_starts",
    token_starts_reference,
    (
        Group("examples", 1, _starts_examples),
        Group("scripts and emoji", 1, _starts_scripts),
        Group("random texts", 1, hidden=_starts_hidden),
    ),
    (
        Mistake("starts are str indices, counted in characters, not in bytes", _starts_by(len)),
        Mistake(
            "a token decoded on its own with errors='replace' has the wrong length: count the "
            "characters that start in its bytes",
            _starts_by(lambda piece: len(piece.decode("utf-8", "replace"))),
        ),
        Mistake(
            "a token that begins with a continuation byte was counted from the next character: "
            "it starts at the character its first byte belongs to",
            _starts_by(_lead_bytes),
        ),
        Mistake(
            "a U+FFFD can be a character of the text: stripping it from the decoded prefix "
            "loses real characters; count the characters whose bytes are all there",
            _starts_stripping_replacements,
        ),
        Mistake(
            "the task asks for the starts worked out from the tokens' bytes: decode_with_offsets "
            "gives the numbers the check compares with, and calling it, under whatever name, "
            "earns nothing",
            _starts_by_offsets,
        ),
    ),
    "a token's start is the str index of the character that holds its first byte; compare your "
    "starts with the tokens of the first case that differs.",
    probe=NO_OFFSETS,
)

# --- Task 4: cl100k_base with digits grouped from the right ------------------------------------


@functools.cache
def _cl100k_with(pattern: str) -> tiktoken.Encoding:
    """cl100k_base's ranks under another split pattern (no special tokens)."""
    cl100k = get_encoding("cl100k_base")
    return tiktoken.Encoding(
        "cl100k_base with another split pattern",
        pat_str=pattern,
        mergeable_ranks=cl100k._mergeable_ranks,
        special_tokens={},
    )


def _digits_by(number: str):
    """The encoder whose split pattern is cl100k_base's with ``number`` for its digits."""
    pattern = CL100K_PATTERN.replace(r"\p{N}{1,3}+", number)
    return lambda text: _cl100k_with(pattern).encode_ordinary(text)


def encode_digits_from_right_reference(text: str) -> list[int]:
    """cl100k_base's ids, each run of digits in groups of three from the right: its split
    pattern with chapter 06's right-grouped number alternative, so that every other token is
    cl100k_base's own.

    >>> cl100k = get_encoding("cl100k_base")
    >>> [cl100k.decode([i]) for i in encode_digits_from_right_reference("in  1234567")]
    ['in', ' ', ' ', '1', '234', '567']
    """
    return _cl100k_with(DIGITS_RIGHT_REFERENCE).encode_ordinary(text)


def _groups_from_right(run: str) -> list[str]:
    head = len(run) % 3 or 3  # from the right, only the first group can be short
    return [run[:head]] + [run[i : i + 3] for i in range(head, len(run), 3)]


def _reversed_groups(run: str) -> list[str]:
    backwards = run[::-1]
    return [backwards[i : i + 3] for i in range(0, len(backwards), 3)][::-1]


def _encode_runs(groups):
    """The text between digit runs encoded alone; each group of a run on its own."""

    def encode(text: str) -> list[int]:
        enc = get_encoding("cl100k_base")
        ids, start = [], 0
        for match in DIGIT_RUN.finditer(text):
            ids += enc.encode_ordinary(text[start : match.start()])
            for group in groups(match.group()):
                ids += enc.encode_ordinary(group)
            start = match.end()
        return ids + enc.encode_ordinary(text[start:])

    return encode


def _spaced_then_dropped(text: str) -> list[int]:
    enc = get_encoding("cl100k_base")
    spaced = DIGIT_RUN.sub(lambda m: " ".join(_groups_from_right(m.group())), text)
    return [i for i in enc.encode_ordinary(spaced) if i != enc.encode_single_token(" ")]


def _digits_examples() -> Cases:
    return [
        (("in 1234567 days",), ""),
        (("1,234,567 and 3.14159",), "every run on its own"),
        (("20240101 1887 42",), ""),
        (("in  12345 days,\n\n  1234 nights",), "whitespace before a number, as cl100k_base"),
        (("a 1234½-mile road",), "½ is a digit of the run: category N"),
        (("300² and 123½",), "a run that ends in ² or ½: they count in its threes"),
        (("no digits",), ""),
        (("",), "no text"),
    ]


def _digits_draw(rng: random.Random) -> tuple[str]:
    """A text whose numbers show each mistake: four or more digits, not a multiple of three,
    one after a run of whitespace and one ending in a digit outside 0-9."""
    numbers = [str(rng.randint(10**3, 10**9)) for _ in range(3)]
    numbers = [n if len(n) % 3 else n + "1" for n in numbers]
    space = rng.choice(["  ", "   ", "\n\n  ", "\t "])
    other = rng.choice("½¼²³")
    words = [random_text(rng, rng.randint(1, 3)) for _ in range(3)]
    text = f"{words[0]}{space}{numbers[0]} {words[1]} {numbers[1]}{other} {words[2]} {numbers[2]}"
    return (text,)


def _digits_hidden(rng: random.Random) -> Cases:
    return drawn_until_caught(rng, _digits_draw, ENCODE_DIGITS, at_least=2)


ENCODE_DIGITS = TaskSpec(
    "encode_digits_from_right",
    encode_digits_from_right_reference,
    (
        Group("numbers", 1, _digits_examples),
        Group("random numbers", 1, hidden=_digits_hidden),
    ),
    (
        Mistake(
            "this is cl100k_base as it is: it groups digits from the left; group them from "
            "the right, so that the last group holds the units",
            lambda text: get_encoding("cl100k_base").encode_ordinary(text),
        ),
        Mistake(
            "grouping the reversed digits works, but each group must be turned back too",
            _encode_runs(_reversed_groups),
        ),
        Mistake(
            "the text around a number is cut as cl100k_base cuts it in context: encoding the "
            "text between the numbers on its own joins the spaces before a number that "
            "cl100k_base keeps apart",
            _encode_runs(_groups_from_right),
        ),
        Mistake(
            "only the digits 0-9 are grouped from the right: a run of digits is every character "
            "Unicode counts as a number (category N), ½ and ² included",
            _digits_by(r"[0-9]{1,3}(?=(?:[0-9]{3})*(?![0-9]))|\p{N}{1,3}+"),
        ),
        Mistake(
            "the lookahead counts every character of category N, as the run does: \\d leaves "
            "out ² and ½, so '300²' is grouped as if they were not part of it",
            _digits_by(r"\p{N}{1,3}(?=(?:\p{N}{3})*(?!\d))"),
            "numbers",
        ),
        Mistake(
            "a possessive quantifier never gives a digit back, so the leading digits of a "
            "number whose length is not a multiple of 3 are lost",
            _digits_by(r"\p{N}{1,3}+(?=(?:\p{N}{3})*+(?!\p{N}))"),
        ),
        Mistake(
            "the text's own spaces are tokens too: only the digits may be cut otherwise than "
            "cl100k_base cuts them",
            _spaced_then_dropped,
        ),
    ),
    "the ids must be cl100k_base's everywhere but inside runs of digits; compare your tokens "
    "with cl100k_base's on the first case that differs.",
)

# --- Task 5: how an encoding cuts the numbers of a sentence ------------------------------------


def digit_pieces_reference(text: str, encoding_name: str) -> list[list[str]]:
    """For each run of digits in text, the pieces the encoding's tokens cut it into.

    >>> digit_pieces_reference("in 381 AD", "gpt2")
    [['38', '1']]
    """
    return _cut_runs(text, set(token_starts_reference(text, encoding_name)))


def _cut_runs(text: str, starts: set[int], runs: regex.Pattern = DIGIT_RUN) -> list[list[str]]:
    """Each match of runs in text, cut at the starts that fall inside it."""
    pieces = []
    for match in runs.finditer(text):
        cuts = [match.start(), *sorted(s for s in starts if match.start() < s < match.end())]
        pieces.append([text[a:b] for a, b in zip(cuts, [*cuts[1:], match.end()])])
    return pieces


def _pieces_alone(text, encoding_name):
    enc = get_encoding(encoding_name)
    return [
        [enc.decode([i]) for i in enc.encode_ordinary(m.group())] for m in DIGIT_RUN.finditer(text)
    ]


def _pieces_digit_tokens(text, encoding_name):
    enc = get_encoding(encoding_name)
    pieces, run = [], []
    for i in enc.encode_ordinary(text):
        token = enc.decode([i])
        if token.isdigit():
            run.append(token)
        elif run:
            pieces, run = [*pieces, run], []
    return pieces + ([run] if run else [])


def _pieces_spaced_alone(text, encoding_name):
    """Each run encoded alone after a space, as numbers in a sentence are, spaces dropped."""
    enc = get_encoding(encoding_name)
    pieces = [
        [enc.decode([i]).strip() for i in enc.encode_ordinary(" " + run)]
        for run in DIGIT_RUN.findall(text)
    ]
    return [[piece for piece in run if piece] for run in pieces]


def _pieces_at_byte_starts(text, encoding_name):
    """The reference's cuts at the tokens' byte offsets, taken for str indices."""
    starts, offset = set(), 0
    for piece in _pieces(text, encoding_name):
        starts.add(offset)
        offset += len(piece)
    return _cut_runs(text, starts)


def _pieces_digits_of_tokens(text, encoding_name):
    """The digits of each token, a run lasting as long as tokens with digits follow."""
    enc = get_encoding(encoding_name)
    pieces, run = [], []
    for i in enc.encode_ordinary(text):
        digits = "".join(DIGIT_RUN.findall(enc.decode([i])))
        if digits:
            run.append(digits)
        elif run:
            pieces, run = [*pieces, run], []
    return pieces + ([run] if run else [])


def _pieces_ascii(text, encoding_name):
    """The reference's cuts, for runs of 0-9 only."""
    return _cut_runs(text, set(token_starts_reference(text, encoding_name)), ASCII_RUN)


def _pieces_decimal(text, encoding_name):
    """The reference's cuts, for runs of decimal digits only (\\d)."""
    return _cut_runs(text, set(token_starts_reference(text, encoding_name)), DECIMAL_RUN)


def _pieces_isdigit(text, encoding_name):
    """The reference's cuts, for runs of the characters str.isdigit accepts (², not ½ or Ⅻ)."""
    digits = sorted({ch for ch in text if ch.isdigit()})
    if not digits:
        return []
    runs = regex.compile(f"[{regex.escape(''.join(digits))}]+")
    return _cut_runs(text, set(token_starts_reference(text, encoding_name)), runs)


def _pieces_examples() -> Cases:
    return [
        (("in 381 AD", "gpt2"), "the space belongs to the token"),
        (("in 380 and 381, 127 and 677", "gpt2"), ""),
        (("(381) and $381, not 381", "gpt2"), "no space before a number"),
        (("a café 381 km from 1910 1966", "gpt2"), "str indices, and one run per number"),
        (("in ४५६७, 1910 1966", "gpt2"), "another script's digits are digits"),
        (("in ४५६७ and 1234567", "cl100k_base"), ""),
        (("x² = 4 and 1½ cups", "gpt2"), "² and ½ are in category N too"),
        (("Chapter Ⅻ, 1234² m", "o200k_base"), ""),
        (("in 381 and 2024", "o200k_base"), ""),
        (("no numbers", "gpt2"), ""),
    ]


def _split_in_context(rng: random.Random) -> str:
    """A number gpt2 cuts differently after a space than alone, and not in threes."""
    gpt2 = get_encoding("gpt2")
    while True:
        number = str(rng.randint(100, 99_999))
        spaced = [gpt2.decode([i]).strip() for i in gpt2.encode_ordinary(f" {number}")]
        alone = [gpt2.decode([i]) for i in gpt2.encode_ordinary(number)]
        if spaced != alone and spaced != regex.findall(r"\p{N}{1,3}", number):
            return number


def _pieces_hidden(rng: random.Random) -> Cases:
    """gpt2 with a number cut in context, after a space, after a non-ASCII word and right after
    punctuation, then years in a row; under the others, a number ending in a character of
    category N that is not a decimal digit (² or ³, which str.isdigit counts, then ½, ¼ or Ⅻ,
    which it does not), and numbers of another digit system."""
    number = _split_in_context(rng)
    years = " ".join(str(rng.randint(1900, 2099)) for _ in range(3))
    word = rng.choice(["café", "naïve", "日本", "Ωμέγα"])
    other = "".join(rng.choice("०१२३४५६७८९") for _ in range(rng.randint(4, 7)))
    return [
        ((f"{random_text(rng, 2)} {word} {number} ({number}) in {years}", "gpt2"), "random"),
        (
            (
                f"{number} x {rng.randint(10**4, 10**8)}{rng.choice('²³')} "
                f"{rng.randint(1, 99)}{rng.choice('½¼Ⅻ')} {other}",
                rng.choice(ENCODINGS[1:]),
            ),
            "random",
        ),
    ]


DIGIT_PIECES = TaskSpec(
    "digit_pieces",
    digit_pieces_reference,
    (
        Group("sentences", 1, _pieces_examples),
        Group("random numbers", 1, hidden=_pieces_hidden),
    ),
    (
        Mistake(
            "a number in a sentence comes after a space, and gpt2 cuts ' 381' otherwise than "
            "'381': cut the tokens of the whole text",
            _pieces_alone,
        ),
        Mistake(
            "only cl100k_base and o200k_base cut digits in threes; gpt2's cuts come from its "
            "merges",
            lambda text, name: [regex.findall(r"\p{N}{1,3}", m) for m in DIGIT_RUN.findall(text)],
        ),
        Mistake(
            "a token may hold a space and digits (' 38'): its digits are a piece too",
            _pieces_digit_tokens,
        ),
        Mistake(
            "a number is not always after a space: in '(381)' or at the start of the text gpt2 "
            "cuts it as it cuts '381' alone, so cut the tokens of the whole text",
            _pieces_spaced_alone,
        ),
        Mistake(
            "the cuts are str indices, counted in characters: a byte offset is past the right "
            "place once the text before it has a character of several bytes",
            _pieces_at_byte_starts,
        ),
        Mistake(
            "each run of digits is one number: a token that starts with a space starts a new "
            "one, as ' 1966' after '1910' does",
            _pieces_digits_of_tokens,
        ),
        Mistake(
            "a run of digits is every character of category N, digits of other systems "
            "(४५६७) included",
            _pieces_ascii,
        ),
        Mistake(
            "a run of digits is every character of category N: \\d leaves out ², ½ and Ⅻ, "
            "which are numbers but not decimal digits",
            _pieces_decimal,
        ),
        Mistake(
            "a run of digits is every character of category N: str.isdigit leaves out ½ and Ⅻ",
            _pieces_isdigit,
        ),
    ),
    "each piece is the part of one run of digits that one token of the whole text holds; "
    "compare your pieces with the tokens around the first number that differs.",
)

# --- Task 6: Command-R's split, rebuilt from its two described steps

GPT2_PART = "GPT-2's rules between numbers"
NUMBERS_PART = "every number character alone"
SPACE_PART = "whitespace before a number"


def split_command_r_reference(text: str) -> list[str]:
    """Command-R's chunks: ``\\p{N}`` characters alone, then GPT-2's pattern between them."""
    return split(text, DIGITS_THEN_GPT2)


def _gpt2_cases():
    # No number character anywhere: the answer is GPT-2's original pattern alone.
    texts = [
        ("", "empty"),
        ("a", "one letter"),
        ("Hello world", "words"),
        ("don't we've", "contractions"),
        ("I'M HERE", "capital contraction: not one of GPT-2's"),
        ("x  y", "two spaces before a word"),
        ("end   ", "trailing spaces"),
        ("a\n\nb", "newlines"),
        ("tab\there", "a tab"),
        ("  lead", "leading spaces"),
        ("¿Qué? ¡Sí!", "punctuation runs"),
        ("naïve café 日本語", "non-ASCII letters"),
        ("👍🏽 ok", "emoji"),
        ("a\u00a0b", "a no-break space"),
    ]
    return [((text,), note) for text, note in texts]


def _gpt2_hidden(rng: random.Random):
    """Made-up texts of words, scripts, emoji and whitespace runs, their numbers taken out."""
    return [((regex.sub(r"\p{N}", "", random_text(rng)),), "random") for _ in range(4)]


def _number_cases():
    texts = [
        ("2024", "ASCII digits"),
        ("7", "one digit, alone"),
        ("a1b2", "digits inside a word"),
        ("3.14", "a decimal point"),
        ("$1,000", "a price"),
        ("x² + y²", "superscripts are numbers"),
        ("½ cup", "a fraction character"),
        ("٣٤ ٥", "Arabic-Indic digits"),
        ("Ⅻ chapters", "a Roman numeral character"),
        ("第五章", "a Han numeral inside a word is a letter"),
        ("v1.2.3", "version number"),
        (" 12", "a space before digits"),
        ("a ½", "a space before a fraction character"),
        ("x²³", "a run of superscripts"),
        ("ⅫⅫ", "a run of Roman numeral characters"),
        ("n = ¾ or ² and ٣", "a space before numbers that are not 0 to 9"),
    ]
    return [((text,), note) for text, note in texts]


def _space_cases():
    texts = [
        ("a  1", "two spaces before a digit"),
        ("x \n 2", "space, newline, space before a digit"),
        ("n =  4", "an operator and two spaces"),
        ("  7", "the text starts with spaces"),
        ("a\t\t9", "tabs before a digit"),
    ]
    return [((text,), note) for text, note in texts]


def _isolating(numbers: str, then: str = GPT2_ORIGINAL_PATTERN):
    return lambda text: split(text, (numbers, then))


def _one_pattern(text: str) -> list[str]:
    return split(text, GPT2_ORIGINAL_PATTERN.replace(r" ?\p{N}+", r"\p{N}"))


def _isnumeric_alone(text: str) -> list[str]:
    chunks, start = [], 0
    for i, ch in enumerate(text):
        if ch.isnumeric():
            chunks += split(text[start:i], GPT2_ORIGINAL_PATTERN) + [ch]
            start = i + 1
    return chunks + split(text[start:], GPT2_ORIGINAL_PATTERN)


SPLIT_COMMAND_R = TaskSpec(
    "split_command_r",
    split_command_r_reference,
    (
        Group(GPT2_PART, 3, _gpt2_cases, _gpt2_hidden),
        Group(NUMBERS_PART, 2, _number_cases),
        Group(SPACE_PART, 1, _space_cases),
    ),
    (
        Mistake(
            "each number character is a chunk of its own, not each run of them",
            _isolating(r"\p{N}+"),
            NUMBERS_PART,
        ),
        Mistake(
            "a number character is any Unicode number (superscripts, fractions, other scripts' "
            "digits), not only 0 to 9",
            _isolating(r"[0-9]"),
            NUMBERS_PART,
        ),
        Mistake(
            "a number character is any character of category N: \\d leaves out superscripts, "
            "fractions and Roman numeral characters",
            _isolating(r"\d"),
            NUMBERS_PART,
        ),
        Mistake(
            "a number character is one of Unicode's numbers (category N); a Han numeral is a "
            "letter to Unicode, although Python calls it numeric",
            _isnumeric_alone,
            NUMBERS_PART,
        ),
        Mistake(
            "the steps run one after the other: the whitespace before a number is cut in the "
            "piece before the number, where it is followed by nothing (cutting by GPT-2's "
            "pattern first gives the same chunks)",
            _one_pattern,
            SPACE_PART,
        ),
        Mistake(
            "GPT-2's contractions are lower case only: an upper-case one is punctuation and "
            "letters",
            _isolating(r"\p{N}", "(?i:" + GPT2_ORIGINAL_PATTERN.replace("|'d|", "|'d)|", 1)),
            GPT2_PART,
        ),
        Mistake(
            "a run of spaces before a word leaves its last space to the word",
            _isolating(r"\p{N}", GPT2_ORIGINAL_PATTERN.replace(r"\s+(?!\S)|", "")),
            GPT2_PART,
        ),
    ),
    "cut the text in two steps: first every number character alone, keeping the text between "
    "them, then each piece between by GPT-2's original pattern.",
)


# --- Task 7: the premium of each language under each vendor's tokenizer

PREMIUMS_PART = "premiums"
ERRORS_PART = "no reference count"


def premiums_across_reference(counts: dict, reference: str) -> dict:
    """{tokenizer: {language: count / that tokenizer's count of reference}}."""
    table = {}
    for tokenizer, by_language in counts.items():
        base = by_language.get(reference, 0)
        if base <= 0:
            raise ValueError(f"{tokenizer} has no tokens for {reference}")
        table[tokenizer] = {language: n / base for language, n in by_language.items()}
    return table


def _premium_cases():
    cases = [
        ({}, "English", "no tokenizers"),
        ({"Llama 3": {"English": 55}}, "English", "only the reference language"),
        ({"Llama 3": {"English": 55, "Hindi": 110}}, "English", "one tokenizer"),
        (
            {"Llama 3": {"English": 55, "Hindi": 110}, "Gemma 4": {"English": 50, "Hindi": 60}},
            "English",
            "each tokenizer its own English count",
        ),
        ({"Qwen": {"Chinese": 20, "English": 60}}, "English", "the reference is not first"),
        ({"Qwen": {"English": 60, "Chinese": 20}}, "English", "a premium below 1"),
        ({"BERT": {"English": 3, "Amharic": 1}}, "English", "a premium of one third"),
        ({"GPT-2": {"English": 55, "Tamil": 742}}, "English", "a premium above 10"),
        ({"x": {"English": 4, "Thai": 0}}, "English", "a language with no tokens"),
        ({"x": {"Hindi": 8, "English": 2}}, "Hindi", "another reference language"),
        ({"x": {"English": 1, "Greek": 7}}, "English", "a reference count of 1"),
    ]
    return [((counts, reference), note) for counts, reference, note in cases]


def _premium_hidden(rng: random.Random):
    """Counts of 1 to 4 tokenizers for 1 to 6 languages, every reference count at least 1."""
    languages = ["English", "Hindi", "Tamil", "Amharic", "Chinese", "Greek"]
    cases = []
    for _ in range(4):
        chosen = rng.sample(languages, rng.randint(1, len(languages)))
        reference = rng.choice(chosen)
        counts = {
            f"tokenizer {k}": {
                lang: rng.randint(1 if lang == reference else 0, 800) for lang in chosen
            }
            for k in range(rng.randint(1, 4))
        }
        cases.append(((counts, reference), "random"))
    return cases


def _error_cases():
    cases = [
        ({"x": {"Hindi": 8}}, "English", "no count for the reference"),
        ({"x": {"English": 0, "Hindi": 8}}, "English", "a reference count of 0"),
        ({"a": {"English": 5}, "b": {"Hindi": 8}}, "English", "the second tokenizer lacks it"),
        ({"a": {"English": 0}}, "English", "only the reference, at 0"),
    ]
    return [((counts, reference), note) for counts, reference, note in cases]


def _first_tokenizers_base(counts: dict, reference: str) -> dict:
    checked = premiums_across_reference(counts, reference)  # raises where the reference does
    base = next(iter(counts.values()), {}).get(reference, 1)
    return {t: {lang: n / base for lang, n in by.items()} for t in checked for by in [counts[t]]}


def _inverted(counts: dict, reference: str) -> dict:
    premiums_across_reference(counts, reference)
    return {
        t: {lang: by[reference] / n if n else 0.0 for lang, n in by.items()}
        for t, by in counts.items()
    }


def _without_reference(counts: dict, reference: str) -> dict:
    table = premiums_across_reference(counts, reference)
    return {t: {lang: p for lang, p in by.items() if lang != reference} for t, by in table.items()}


def _dividing_freely(counts: dict, reference: str) -> dict:
    return {t: {lang: n / by[reference] for lang, n in by.items()} for t, by in counts.items()}


def _in_place(counts: dict, reference: str) -> dict:
    """Right premiums, written over the caller's counts, which it returns."""
    for tokenizer, by_language in counts.items():
        base = by_language.get(reference, 0)
        if base <= 0:
            raise ValueError(f"{tokenizer} has no tokens for {reference}")
        for language in by_language:
            by_language[language] /= base
    return counts


# "counts must not change": the probe returns [the answer's result, counts left unchanged].
COUNTS_UNCHANGED = """
import copy


def probe(answer, counts, reference):
    kept = copy.deepcopy(counts)
    return [answer(counts, reference), counts == kept]
"""


def _skipping_bad(counts: dict, reference: str) -> dict:
    good = {t: by for t, by in counts.items() if by.get(reference, 0) > 0}
    return premiums_across_reference(good, reference)


PREMIUMS_ACROSS = TaskSpec(
    "premiums_across",
    premiums_across_reference,
    (
        Group(PREMIUMS_PART, 3, _premium_cases, _premium_hidden),
        Group(ERRORS_PART, 1, _error_cases),
    ),
    (
        Mistake(
            "each tokenizer's premiums divide by its own count of the reference language",
            _first_tokenizers_base,
            PREMIUMS_PART,
        ),
        Mistake(
            "a premium is the language's count over the reference's, not the other way round",
            _inverted,
            PREMIUMS_PART,
        ),
        Mistake(
            "the reference language keeps its row, at a premium of 1.0",
            _without_reference,
            PREMIUMS_PART,
        ),
        Mistake(
            "return a new dict: the counts you are given must not change (they are measurements "
            "the caller keeps)",
            _in_place,
            PREMIUMS_PART,
        ),
        Mistake(
            "a missing or zero reference count must raise ValueError, not another error",
            _dividing_freely,
            ERRORS_PART,
        ),
        Mistake(
            "a tokenizer without a reference count is an error, not a tokenizer to leave out",
            _skipping_bad,
            ERRORS_PART,
        ),
    ),
    "divide each count by the same tokenizer's count of the reference language, in a new dict.",
    compare=close,
    probe=COUNTS_UNCHANGED,
)


SPECS = (
    PASSAGES,
    PARTIAL_SHARE,
    TOKEN_STARTS,
    ENCODE_DIGITS,
    DIGIT_PIECES,
    SPLIT_COMMAND_R,
    PREMIUMS_ACROSS,
)
check, judge_tasks = checks_of(SPECS)

# tiktoken is the tool of this chapter, so it stays; the book's measurements are out of reach.
REFERENCE = ("book.analysis",)
