"""Exceptions shared by every tokenizer in the book, and the id lookup that raises them.

The errors are ``ValueError`` subclasses (``InvalidUTF8Error`` a ``UnicodeDecodeError``), so
``except ValueError`` still catches them; their messages say what happened and what to do.

>>> issubclass(UnknownTokenError, ValueError) and issubclass(UnknownIdError, ValueError)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from numbers import Integral
from typing import TypeVar

T = TypeVar("T")


class UnknownTokenError(ValueError):
    """Encoding met a character or word that is not in the vocabulary.

    ``token`` is what was not found and ``position`` where it was (a character offset for
    character tokenizers, a word index for word tokenizers).

    >>> err = UnknownTokenError("'x' is not in the vocabulary", token="x", position=3)
    >>> err.token, err.position
    ('x', 3)
    """

    def __init__(self, message: str, *, token: object = None, position: int | None = None):
        super().__init__(message)
        self.token = token
        self.position = position


class UnknownIdError(ValueError):
    """Decoding met an id that names no token of the vocabulary.

    >>> print(UnknownIdError(12, n_vocab=10))  # doctest: +ELLIPSIS
    cannot decode id 12: valid ids are 0 to 9 (n_vocab=10). Decode only ids...
    """

    def __init__(self, token_id: object, n_vocab: int):
        if n_vocab > 0:
            valid = f"valid ids are 0 to {n_vocab - 1} (n_vocab={n_vocab})"
        else:
            valid = "the vocabulary is empty (n_vocab=0)"
        super().__init__(
            f"cannot decode id {token_id!r}: {valid}. "
            "Decode only ids made by this tokenizer's encode."
        )
        self.token_id = token_id
        self.n_vocab = n_vocab


def tokens_for_ids(
    table: Mapping[int, T] | Sequence[T], ids: Iterable[object], n_vocab: int
) -> list[T]:
    """The tokens ``table[i]`` for ``ids``; an id outside ``0 .. n_vocab - 1``, or missing from a
    table whose ids have gaps, is an error (so is ``True``: a bool is not an id).

    Every decoder of the book starts here, so they all reject bad ids the same way
    (:class:`UnknownIdError`).

    >>> tokens_for_ids(["a", "b"], [1, 0], n_vocab=2), tokens_for_ids({0: b"a", 5: b"z"}, [5], 6)
    (['b', 'a'], [b'z'])
    """
    tokens = []
    for token_id in ids:
        bad_type = isinstance(token_id, bool) or not isinstance(token_id, Integral)
        if bad_type or not 0 <= token_id < n_vocab:
            raise UnknownIdError(token_id, n_vocab)
        try:
            tokens.append(table[token_id])
        except KeyError:  # a gap between the ids of a vocabulary read from elsewhere
            raise UnknownIdError(token_id, n_vocab) from None
    return tokens


class InvalidUTF8Error(UnicodeDecodeError):
    """Strict decoding met token bytes that are not valid UTF-8, typically half a character.

    A ``UnicodeDecodeError`` (hence a ``ValueError``) whose message also says which tokens
    hold the bad bytes, why that happens, and what to do.

    >>> try:
    ...     b"\\xe4\\xbd".decode("utf-8")
    ... except UnicodeDecodeError as error:
    ...     err = InvalidUTF8Error.from_decode_error(error, [b"\\xe4", b"\\xbd"])
    >>> err.token_span
    (0, 2)
    >>> print(err.reason.split(": ")[1].split(",")[0])
    tokens 0-1 hold bytes e4 bd
    """

    @classmethod
    def from_decode_error(cls, error: UnicodeDecodeError, pieces) -> InvalidUTF8Error:
        """Rephrase ``error`` (from decoding ``b"".join(pieces)``) in terms of tokens."""
        first, last = _tokens_covering(pieces, error.start, error.end)
        bad = error.object[error.start : error.end]
        where = f"token {first} holds" if first == last else f"tokens {first}-{last} hold"
        lead = bad[0]
        expected = 2 if 0xC0 <= lead < 0xE0 else 3 if 0xE0 <= lead < 0xF0 else 4
        if error.reason == "unexpected end of data":
            what = (
                f"the ids end in the middle of a character: {where} bytes {bad.hex(' ')}, "
                f"only {len(bad)} of the {expected} bytes that byte 0x{lead:02x} starts. "
                "The id list was cut before the rest of the character (e.g. truncated, or "
                "generation stopped), since byte-level tokens can split a character"
            )
            advice = (
                "Decode with errors='replace' to show U+FFFD in their place, or decode once the "
                "ids of the rest of the character are there."
            )
        else:
            what = (
                f"{where} bytes {bad.hex(' ')}, which are not valid UTF-8 ({error.reason}) and "
                "cannot become valid whatever ids follow: the ids were cut or reordered, come "
                "from another tokenizer, or a model emitted them in this order"
            )
            advice = (
                "Decode with errors='replace' to show U+FFFD in their place, and check where the "
                "ids came from."
            )
        reason = f"{what}. {advice}"
        made = cls("utf-8", error.object, error.start, error.end, reason)
        made.token_span = (first, last + 1)
        return made


def _tokens_covering(pieces, start: int, end: int) -> tuple[int, int]:
    """Indices of the first and last token whose bytes overlap ``[start, end)``."""
    first = last = None
    offset = 0
    for index, piece in enumerate(pieces):
        if offset < end and offset + len(piece) > start:
            first = index if first is None else first
            last = index
        offset += len(piece)
    return first, last


class BPEFileError(ValueError):
    """A tokenizer file could not be read: wrong kind of file, bad line, or truncated.

    The message names the file and line, says what is wrong and what to do.

    >>> print(BPEFileError("tok.bpe", 3, "expected 'merges: <count>'"))
    tok.bpe, line 3: expected 'merges: <count>'
    """

    def __init__(self, path, line: int | None, problem: str):
        where = f"{path}, line {line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {problem}")
        self.path = path
        self.line = line


class DisallowedSpecialTokenError(ValueError):
    """The text to encode contains a special token's text that the caller did not allow.

    Refusing is the safe default: text from a user or a web page that contains, say,
    ``<|endoftext|>`` must not be able to end a document or open a chat turn. The message
    names the token and its position (with the text around it, if given) and says how to
    allow it or encode it as ordinary text.

    >>> err = DisallowedSpecialTokenError("<|endoftext|>", 6, "Hello <|endoftext|> world")
    >>> err.token, err.position
    ('<|endoftext|>', 6)
    >>> print(str(err).split(". ")[0])
    the text contains the special token '<|endoftext|>' at position 6 ('Hello <|endoftext|> world')
    """

    def __init__(self, token: str, position: int, text: str | None = None):
        context = ""
        if text is not None:
            start, end = max(0, position - 20), position + len(token) + 20
            before, after = ("…" if start else ""), ("…" if end < len(text) else "")
            snippet = before + text[start:end] + after
            context = f" ({snippet!r})"
        super().__init__(
            f"the text contains the special token {token!r} at position {position}{context}. "
            "encode refuses special tokens by default, because text from users or documents "
            "could otherwise end a document or fake a chat turn. If the text is trusted and "
            f"means the special token, pass allowed_special={{{token!r}}} (or 'all'). To encode "
            "it as ordinary text, pass disallowed_special=() or call encode_ordinary(text), "
            "which never produces special tokens: do that for untrusted text."
        )
        self.token = token
        self.position = position
