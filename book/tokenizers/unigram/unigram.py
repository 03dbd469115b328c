"""Unigram language-model tokenizer, SentencePiece style (chapter 11) [Kudo 2018].

A Unigram model is a vocabulary of pieces, each with a score, its log-probability. The
probability of a segmentation is the product of its pieces' probabilities, and encoding picks
the most probable segmentation (Viterbi, :mod:`book.tokenizers.unigram.lattice`). Nothing is merged:
the same vocabulary also gives the n best segmentations and random ones (subword
regularisation). SentencePiece's conventions (:mod:`book.tokenizers.unigram.sentencepiece_text`): no
pre-tokenization, spaces written ``▁``, a character without a piece becomes ``<unk>`` or, with
byte fallback, the pieces ``<0x..>`` of its UTF-8 bytes.

>>> tok = Unigram.from_pieces([("<unk>", 0.0), ("▁", -2.0), ("▁h", -3.0), ("ug", -2.5),
...                            ("▁hug", -4.0), ("h", -4.0), ("u", -4.0), ("g", -4.0), ("s", -3.0)])
>>> tok.tokenize("hugs hug")
['▁hug', 's', '▁hug']
>>> tok.encode("hugs hug"), tok.decode(tok.encode("hugs hug"))
([4, 8, 4], 'hugs hug')

``Unigram.from_sentencepiece(path)`` reads a model trained by SentencePiece (a Unigram model,
with its normalization rules) and then segments text exactly as SentencePiece does, and
``Unigram.train(text, vocab_size)`` learns a vocabulary by EM
(:mod:`book.tokenizers.unigram.train`).
"""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Iterable, Sequence
from os import PathLike

from book.tokenizers.base import N_BYTES, UNK_TOKEN, AddedSpecialTokens, StrVocabulary, as_rng
from book.tokenizers.errors import tokens_for_ids
from book.tokenizers.formats.gguf import GgufVocabulary
from book.tokenizers.formats.gguf_pieces import gguf_pieces
from book.tokenizers.formats.sentencepiece_model import (
    UNK_SURFACE,
    ModelFileError,
    ModelPiece,
    read_model,
)
from book.tokenizers.unigram.lattice import (
    UNK_PENALTY,
    Lattice,
    Node,
    build_lattice,
    f32,
    nbest,
    piece_table,
    sample_path,
    viterbi,
)
from book.tokenizers.unigram.precompiled import PrecompiledCharsmap
from book.tokenizers.unigram.sentencepiece_text import (
    byte_piece,
    decode_pieces,
    normalize,
    piece_byte,
    piece_bytes,
)
from book.tokenizers.unigram.train import train_pieces

FLT_MAX = 3.4028234663852886e38  # the lowest score when there is no piece at all
KINDS = ("normal", "unknown", "control", "user_defined", "unused", "byte")


def check_log_probabilities(pieces: Sequence[ModelPiece], *, sum_to_one: bool = True) -> None:
    """Raise ValueError unless the normal pieces' scores are log-probabilities.

    ``sum_to_one=False`` skips the check of the total, for trained and loaded models: after
    its last EM step SentencePiece's trainer adds back every required character that pruning
    dropped, at the lowest score, so their probabilities can add up to more than 1.

    Each must be a finite number <= 0, and their probabilities cannot add up to more than 1
    (a little slack for rounding: SentencePiece stores scores as 32-bit floats).

    >>> check_log_probabilities([ModelPiece("a", 3.0)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the score of piece 'a' is 3.0, but a score is a log-probability, a number <= 0...
    """
    total = 0.0
    for p in pieces:
        if p.kind != "normal":
            continue
        if not (isinstance(p.score, (int, float)) and math.isfinite(p.score) and p.score <= 0):
            raise ValueError(
                f"the score of piece {p.piece!r} is {p.score!r}, but a score is a "
                "log-probability, a number <= 0: pass math.log(count / total) (or log of a "
                "probability), not a count or a probability"
            )
        total += math.exp(p.score)
    if sum_to_one and total > 1.0 + 1e-4:
        raise ValueError(
            f"the pieces' probabilities add up to {total:.4g}, more than 1, so the scores are "
            "not log-probabilities of one distribution: normalise them, e.g. "
            "score = math.log(count) - math.log(sum of all counts)"
        )


class Unigram(AddedSpecialTokens, StrVocabulary):
    """A Unigram tokenizer: pieces with log-probability scores, segmented by Viterbi.

    ``pieces`` are in id order. ``add_dummy_prefix``, ``remove_extra_whitespaces`` and
    ``escape_whitespaces`` are SentencePiece's three whitespace switches (all on by default);
    ``precompiled_charsmap`` is the model's compiled normalization rules (none: identity);
    with ``byte_fallback`` the vocabulary holds the 256 pieces ``<0x00>`` .. ``<0xFF>``;
    ``bos_id``, ``eos_id`` and their ``add_*_token`` switches: what ``add_special_tokens=True``
    adds.
    """

    def __init__(
        self,
        pieces: Sequence[ModelPiece],
        *,
        byte_fallback: bool = False,
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        escape_whitespaces: bool = True,
        precompiled_charsmap: bytes | None = None,
        unk_surface: str = UNK_SURFACE,
        bos_id: int | None = None,
        eos_id: int | None = None,
        add_bos_token: bool = False,
        add_eos_token: bool = False,
    ):
        self.pieces = list(pieces)
        self.precompiled_charsmap = precompiled_charsmap or None
        self._charsmap = (
            None
            if self.precompiled_charsmap is None
            else (PrecompiledCharsmap(self.precompiled_charsmap))
        )
        self._check_pieces(byte_fallback)
        self.byte_fallback = byte_fallback
        self.add_dummy_prefix = add_dummy_prefix
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.escape_whitespaces = escape_whitespaces
        self.unk_surface = unk_surface
        self.set_added_special_tokens(
            bos_id, eos_id, add_bos_token, add_eos_token, len(self.pieces)
        )
        self.vocab = [p.piece for p in self.pieces]
        self.unk_id = next(i for i, p in enumerate(self.pieces) if p.kind == "unknown")
        self.byte_ids = {
            piece_byte(p.piece): i for i, p in enumerate(self.pieces) if p.kind == "byte"
        }
        normal = [p.score for p in self.pieces if p.kind == "normal"]
        # As SentencePiece: an unknown character scores 10 below the lowest-scoring piece, and a
        # user-defined piece of n bytes scores 0.1 * (n - 1) > 0, so that it always wins.
        self.min_score = f32(min(normal)) if normal else FLT_MAX
        self.unk_score = f32(self.min_score - UNK_PENALTY)
        # Every score as a 32-bit float at once (array "f" rounds as f32 does, and is fast).
        rounded = array("f", [p.score for p in self.pieces]).tolist()
        self._lattice_scores = {}
        for i, p in enumerate(self.pieces):
            if p.kind == "normal":
                self._lattice_scores[p.piece] = (i, rounded[i])
            elif p.kind == "user_defined":
                score = f32(0.1 * (len(p.piece.encode("utf-8")) - 1))
                self._lattice_scores[p.piece] = (i, score)
        self._table = piece_table(self._lattice_scores)

    def _check_pieces(self, byte_fallback: bool) -> None:
        """Raise ValueError for a vocabulary SentencePiece could not use, saying why."""
        if not self.pieces:
            raise ValueError(
                "the vocabulary is empty: give at least the unknown piece "
                f"({UNK_TOKEN!r}) and the pieces to segment text into"
            )
        seen: set[str] = set()
        for i, p in enumerate(self.pieces):
            if not isinstance(p.piece, str) or not p.piece:
                raise ValueError(f"piece {i} is {p.piece!r}: every piece must be a non-empty str")
            if p.kind not in KINDS:
                raise ValueError(f"piece {p.piece!r} has kind {p.kind!r}, not one of {KINDS}")
            if p.piece in seen:
                raise ValueError(f"the piece {p.piece!r} occurs twice; each piece needs one id")
            seen.add(p.piece)
        unknown = [p.piece for p in self.pieces if p.kind == "unknown"]
        if len(unknown) != 1:
            raise ValueError(
                f"the vocabulary needs exactly one unknown piece, it has {len(unknown)}"
                f"{' ' + repr(unknown) if unknown else ''}: a Unigram model maps characters "
                f"that no piece covers to it; add ({UNK_TOKEN!r}, 0.0) to the pieces (or name "
                "yours with unk_token=...)"
            )
        check_log_probabilities(self.pieces, sum_to_one=False)  # from_pieces checks the sum
        bytes_held = {piece_byte(p.piece) for p in self.pieces if p.kind == "byte"}
        if byte_fallback and bytes_held != set(range(N_BYTES)):
            missing = sorted(set(range(N_BYTES)) - bytes_held)
            raise ValueError(
                f"byte_fallback=True needs the 256 byte pieces <0x00> .. <0xFF>; "
                f"{len(missing)} are missing, e.g. {byte_piece(missing[0])}"
            )
        if bytes_held and not byte_fallback:
            raise ValueError(
                "the vocabulary holds byte pieces but byte_fallback=False: "
                "pass byte_fallback=True to use them"
            )

    @classmethod
    def from_pieces(
        cls,
        pieces_with_scores: Iterable[tuple[str, float]],
        *,
        unk_token: str = UNK_TOKEN,
        control_tokens: Iterable[str] = (),
        byte_fallback: bool = False,
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
    ) -> Unigram:
        """A tokenizer from (piece, log-probability) pairs in id order.

        ``unk_token`` must be among them (its score is not used); ``control_tokens`` (e.g.
        ``"<s>"``) get ids but never match text; with ``byte_fallback`` the pieces ``<0x00>``
        .. ``<0xFF>`` are the bytes.

        >>> tok = Unigram.from_pieces([("<unk>", 0.0), ("▁a", -1.0), ("▁", -2.0)])
        >>> tok.tokenize("a bc"), tok.encode("a bc")  # "bc": no piece, so one unknown
        (['▁a', '▁', 'bc'], [1, 2, 0])
        """
        control = set(control_tokens)
        pieces = []
        for item in pieces_with_scores:
            if not (isinstance(item, (tuple, list)) and len(item) == 2):
                raise ValueError(f"expected (piece, score) pairs, got {item!r}")
            piece, score = item
            if piece == unk_token:
                kind = "unknown"
            elif piece in control:
                kind = "control"
            elif byte_fallback and piece_byte(piece) is not None:
                kind = "byte"
            else:
                kind = "normal"
            pieces.append(ModelPiece(piece, score, kind))
        check_log_probabilities(pieces)  # hand-made scores: their probabilities must sum to <= 1
        return cls(
            pieces,
            byte_fallback=byte_fallback,
            add_dummy_prefix=add_dummy_prefix,
            remove_extra_whitespaces=remove_extra_whitespaces,
        )

    @classmethod
    def from_sentencepiece(cls, model_file: str | PathLike) -> Unigram:
        """The tokenizer stored in a SentencePiece ``.model`` file (read without sentencepiece).

        The model must be a Unigram model; its normalization rules (``nmt_nfkc`` by default)
        are applied from their compiled table (:mod:`~book.tokenizers.unigram.precompiled`).
        """
        model = read_model(model_file)
        if model.trainer.model_type != "unigram":
            raise ModelFileError(
                f"{model_file} is a SentencePiece {model.trainer.model_type} model, not a "
                "unigram one: Unigram reads only models trained with model_type='unigram'"
            )
        if model.trainer.treat_whitespace_as_suffix:
            raise ModelFileError(
                f"{model_file} puts ▁ at the end of words "
                "(treat_whitespace_as_suffix), which this reader does not support"
            )
        spec = model.normalizer
        return cls(
            model.pieces,
            byte_fallback=model.trainer.byte_fallback,
            add_dummy_prefix=spec.add_dummy_prefix,
            remove_extra_whitespaces=spec.remove_extra_whitespaces,
            escape_whitespaces=spec.escape_whitespaces,
            precompiled_charsmap=spec.precompiled_charsmap,
            unk_surface=model.trainer.unk_surface,
        )

    @classmethod
    def from_gguf(cls, vocabulary: GgufVocabulary) -> Unigram:
        """The Unigram tokenizer of a GGUF vocabulary of model ``t5`` (llama.cpp's files).

        Its pieces with scores and kinds, its compiled normalization rules, its whitespace
        switches (``tokenizer.ggml.add_space_prefix`` and ``remove_extra_whitespaces``; where
        the file is silent, llama.cpp's defaults: on and off; spaces are always written ``▁``),
        byte fallback when it holds the 256 byte pieces, and BOS/EOS as the file says to add
        them (llama.cpp's defaults: EOS only).
        """
        if vocabulary.model != "t5":
            raise ValueError(
                f"{vocabulary.path}: tokenizer model {vocabulary.model!r} is not Unigram "
                "('t5'); read it with the builder for its model type"
            )
        metadata = vocabulary.metadata
        pieces = gguf_pieces(vocabulary)
        charsmap = metadata.get("tokenizer.ggml.precompiled_charsmap", ())
        return cls(
            pieces,
            byte_fallback=any(p.kind == "byte" for p in pieces),
            add_dummy_prefix=vocabulary.add_space_prefix is not False,
            remove_extra_whitespaces=metadata.get("tokenizer.ggml.remove_extra_whitespaces", False),
            # int8 or uint8 items, as the converter wrote them: the bytes of the blob
            precompiled_charsmap=bytes(item & 0xFF for item in charsmap),
            bos_id=vocabulary.special_ids.get("bos"),
            eos_id=vocabulary.special_ids.get("eos"),
            add_bos_token=bool(vocabulary.add_bos),  # llama.cpp's defaults: no BOS, an EOS
            add_eos_token=vocabulary.add_eos is not False,
        )

    @classmethod
    def train(cls, text: str, vocab_size: int, *, byte_fallback: bool = False) -> Unigram:
        """Learn a vocabulary of ``vocab_size`` ids from ``text`` by EM with pruning, as
        SentencePiece's trainer does with its defaults (:mod:`book.tokenizers.unigram.train`).

        ``vocab_size`` counts everything: ``<unk>``, the 256 byte pieces with
        ``byte_fallback=True``, and the learned pieces.
        """
        pieces = train_pieces(text, vocab_size, byte_fallback=byte_fallback)
        return cls(pieces, byte_fallback=byte_fallback)

    def normalize(self, text: str) -> str:
        """The text as it is segmented: spaces as ``▁``, handled as the switches say."""
        if not isinstance(text, str):
            raise TypeError(f"expected a str, got {type(text).__name__}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError(
                f"the text holds a lone surrogate, U+{ord(text[error.start]):04X} at position "
                f"{error.start}, which is no character and has no UTF-8 bytes; it usually comes "
                "from decoding bytes with errors='surrogateescape': decode them with "
                "errors='replace' instead"
            ) from None
        return normalize(
            text,
            add_dummy_prefix=self.add_dummy_prefix,
            remove_extra_whitespaces=self.remove_extra_whitespaces,
            escape_whitespaces=self.escape_whitespaces,
            charsmap=self._charsmap,
        )

    def lattice(self, normalized: str) -> Lattice:
        """The lattice of an already normalized text: every piece found in it, and the unknowns."""
        return build_lattice(normalized, self._table, unk=(self.unk_id, self.unk_score))

    def _finish(self, normalized: str, path: list[Node]) -> list[tuple[str, int]]:
        """The (piece, id) pairs of a path, unknown characters as SentencePiece shows them."""
        out: list[tuple[str, int]] = []
        previous_unknown = False
        for node in path:
            piece = normalized[node.start : node.end]
            unknown = node.piece_id == self.unk_id
            if unknown and self.byte_fallback:
                out += [(byte_piece(b), self.byte_ids[b]) for b in piece.encode("utf-8")]
            elif unknown and previous_unknown:
                out[-1] = (out[-1][0] + piece, self.unk_id)  # a run of unknowns is one <unk>
            else:
                out.append((piece, node.piece_id))
            previous_unknown = unknown
        return out

    def segment(self, text: str) -> list[tuple[str, int]]:
        """The best segmentation of ``text`` as (piece, id) pairs."""
        normalized = self.normalize(text)
        path = viterbi(self.lattice(normalized))
        return self._finish(normalized, path)

    def tokenize(self, text: str) -> list[str]:
        """The pieces of ``text`` (SentencePiece's ``encode(text, out_type=str)``).

        An unknown character shows as itself (several in a row as one piece), or, with byte
        fallback, as the pieces of its bytes.
        """
        return [piece for piece, _ in self.segment(text)]

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        """The ids of the best segmentation of ``text``; ``add_special_tokens=True`` adds
        BOS and EOS where the model asks (:class:`~book.tokenizers.base.AddedSpecialTokens`)."""
        ids = [token_id for _, token_id in self.segment(text)]
        return self.with_special_tokens(ids) if add_special_tokens else ids

    def nbest(self, text: str, n: int) -> list[tuple[list[str], float]]:
        """The ``n`` most probable segmentations as (pieces, log-probability), best first.

        >>> tok = Unigram.from_pieces([("<unk>", 0.0), ("▁", -2.0), ("▁h", -3.0), ("ug", -2.5),
        ...                            ("▁hug", -4.0), ("h", -4.0), ("u", -4.0), ("g", -4.0)])
        >>> tok.nbest("hug", 3)
        [(['▁hug'], -4.0), (['▁h', 'ug'], -5.5), (['▁', 'h', 'ug'], -8.5)]
        """
        normalized = self.normalize(text)
        results = nbest(self.lattice(normalized), n)
        return [
            ([piece for piece, _ in self._finish(normalized, path)], score)
            for path, score in results
        ]

    def sample(self, text: str, *, alpha: float = 0.1, seed: int | random.Random = 0) -> list[str]:
        """A random segmentation, drawn with probability proportional to P(segmentation)^alpha.

        Subword regularisation: training a model on such samples shows it many segmentations
        of the same word. ``alpha`` near 0 makes all segmentations about equally likely; a
        large ``alpha`` almost always gives the best one. ``seed`` (an int or a
        ``random.Random``) makes the draw repeatable.
        """
        if not (isinstance(alpha, (int, float)) and math.isfinite(alpha) and alpha >= 0):
            raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")
        rng = as_rng(seed)
        normalized = self.normalize(text)
        path = sample_path(self.lattice(normalized), rng, theta=alpha)
        return [piece for piece, _ in self._finish(normalized, path)]

    def token_bytes(self, token_id: int) -> bytes:
        """The UTF-8 bytes of a piece as stored (``b"\\xe2\\x96\\x81the"`` for ``▁the``).

        A byte piece ``<0xE2>`` stands for the one byte ``b"\\xe2"``.

        >>> Unigram.from_pieces([("<unk>", 0.0), ("▁a", -1.0)]).token_bytes(1)
        b'\\xe2\\x96\\x81a'
        """
        return piece_bytes(tokens_for_ids(self.pieces, [token_id], self.n_vocab)[0])

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids``, as SentencePiece decodes them.

        ``▁`` becomes a space, the space the dummy prefix added is dropped, control pieces
        vanish, ``<unk>`` shows as ``" ⁇ "``, and byte pieces are joined into characters.
        """
        return decode_pieces(
            tokens_for_ids(self.pieces, list(ids), self.n_vocab),
            add_dummy_prefix=self.add_dummy_prefix,
            remove_extra_whitespaces=self.remove_extra_whitespaces,
            unk_surface=self.unk_surface,
        )
