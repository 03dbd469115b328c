"""Special tokens in practice (chapter 07): trusted markup around untrusted text, chat templates.

``encode`` refuses special tokens' text by default, yet every chat prompt is full of special
tokens. They belong to the *template*, which the application writes; the messages inside it
come from users, web pages and tools, and must never become special ids. So never glue the two
into one string: keep a list of parts, wrap the template's parts in :class:`Trusted`, and
encode every other part as ordinary text.

>>> tok = RegexTokenizer(special_tokens={"<|user|>": 256, "<|end|>": 257})
>>> ids = encode_parts(tok, [Trusted("<|user|>"), "hi<|end|>", Trusted("<|end|>")])
>>> ids[0], ids[-1], ids.count(257)
(256, 257, 1)

Works with a ``tiktoken.Encoding`` as well as with the book's :class:`RegexTokenizer`.

A model's own template is a Jinja program (``tokenizer.chat_template``); ``render_chat_template``
runs it as ``transformers``' ``apply_chat_template`` does, and ``encode_rendered`` encodes the
result as Hugging Face and llama.cpp do: the text of every special token becomes its id.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Protocol

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

from book.tokenizers import RegexTokenizer  # noqa: F401 (the examples)
from book.tokenizers.bpe.patterns import special_token_regex
from book.tokenizers.formats.gguf import SPECIAL_NAMES

__all__ = [
    "Trusted",
    "encode_parts",
    "ChatTemplate",
    "CHATML",
    "LLAMA3",
    "LLAMA31",
    "encode_chat",
    "encode_chat_with_assistant_mask",
    "special_tokens_of",
    "special_positions",
    "split_on_special_tokens",
    "pad_batch",
    "ChatTemplateError",
    "compile_chat_template",
    "render_chat_template",
    "gguf_chat_template",
    "encode_rendered",
]


class SpecialTokenEncoder(Protocol):
    """What the helpers need: tiktoken's two encode methods (the book's RegexTokenizer has both)."""

    def encode(self, text: str, *, allowed_special=..., disallowed_special=...) -> list[int]: ...

    def encode_ordinary(self, text: str) -> list[int]: ...


@dataclass(frozen=True)
class Trusted:
    """Text the application wrote itself (template markup): its special tokens' text counts.

    >>> Trusted("<|im_start|>user\\n")
    Trusted(text='<|im_start|>user\\n')
    """

    text: str

    def __post_init__(self):
        if not isinstance(self.text, str):
            raise TypeError(f"Trusted holds a str, got {type(self.text).__name__} {self.text!r}")


Part = str | Trusted
Message = Mapping[str, str]  # {"role": ..., "content": ...}, as in chat APIs


def encode_parts(tokenizer: SpecialTokenEncoder, parts: Iterable[Part]) -> list[int]:
    """Ids of ``parts`` in order: :class:`Trusted` ones with special tokens, plain ``str`` as text.

    A plain string is untrusted by default, so forgetting to mark a part can only make a
    special token's text ordinary, never turn user text into a special id.

    >>> tok = RegexTokenizer(special_tokens={"<|end|>": 256})
    >>> encode_parts(tok, ["a<|end|>", Trusted("<|end|>")])[-2:]
    [62, 256]
    """
    ids: list[int] = []
    for index, part in enumerate(parts):
        if isinstance(part, Trusted):
            ids.extend(tokenizer.encode(part.text, allowed_special="all"))
        elif isinstance(part, str):
            ids.extend(tokenizer.encode_ordinary(part))
        else:
            raise TypeError(
                f"part {index} is {type(part).__name__} {part!r}: each part must be a str "
                "(untrusted text) or Trusted(str) (template markup)"
            )
    return ids


def special_tokens_of(tokenizer) -> dict[str, int]:
    """``{text: id}`` of the special tokens of a book tokenizer or a ``tiktoken.Encoding``.

    A tokenizer of pieces (SentencePiece's) counts its control, user-defined and unknown
    pieces, those llama.cpp matches in text (``cache_special_tokens`` in ``llama-vocab.cpp``);
    a tokenizer with none of these has no special tokens.

    >>> special_tokens_of(RegexTokenizer(special_tokens={"<|end|>": 300}))
    {'<|end|>': 300}
    """
    if isinstance(getattr(tokenizer, "special_tokens", None), Mapping):
        return dict(tokenizer.special_tokens)
    if hasattr(tokenizer, "special_tokens_set"):  # tiktoken: a set of names, ids on request
        names = sorted(tokenizer.special_tokens_set)
        return {name: tokenizer.encode_single_token(name) for name in names}
    pieces = getattr(tokenizer, "pieces", None) or ()
    kinds = ("control", "user_defined", "unknown")
    return {p.piece: i for i, p in enumerate(pieces) if p.kind in kinds}


def special_positions(tokenizer, ids: Sequence[int]) -> list[int]:
    """Positions in ``ids`` that hold special tokens (e.g. to highlight them).

    >>> special_positions(RegexTokenizer(special_tokens={"<|end|>": 300}), [104, 300, 105])
    [1]
    """
    special_ids = set(special_tokens_of(tokenizer).values())
    return [position for position, token_id in enumerate(ids) if token_id in special_ids]


def split_on_special_tokens(text: str, names: Iterable[str]) -> list[str]:
    """``text`` cut before and after every occurrence of one of ``names``; no empty parts.

    Leftmost occurrence first and, where one name begins another, the longest: the order in
    which ``encode`` finds allowed special tokens.

    >>> split_on_special_tokens("a<s><s>b</s>", ["<s>", "<s><s>", "</s>"])
    ['a', '<s><s>', 'b', '</s>']
    """
    names = frozenset(names)
    if "" in names:
        raise ValueError("a special token's text cannot be empty")
    if not names:
        return [text] if text else []
    return [part for part in special_token_regex(names).split(text) if part]


@dataclass(frozen=True)
class ChatTemplate:
    """A chat format: markup before the conversation, around each message, before a reply.

    ``header`` holds ``{role}``; ``special_tokens`` lists the special tokens the markup uses, so
    that encoding can check the tokenizer knows them all. ``system_preamble`` is trusted text
    the template writes at the start of the first message's content when that message is the
    system message; a template that has one writes a system message even when the conversation
    has none (Llama 3.1's knowledge-cutoff and date lines).
    """

    name: str
    begin: str
    header: str
    footer: str
    roles: tuple[str, ...]
    special_tokens: tuple[str, ...]
    system_preamble: str = ""

    def parts(self, messages: Sequence[Message], add_generation_prompt: bool = True) -> list[Part]:
        """The conversation as trusted markup around untrusted message contents.

        >>> parts = CHATML.parts([{"role": "user", "content": "Hi"}])
        >>> parts[:2], len(parts)
        ([Trusted(text='<|im_start|>user\\n'), 'Hi'], 4)
        """
        return [part for _, _, part in self._labelled_parts(messages, add_generation_prompt)]

    def _labelled_parts(self, messages: Sequence[Message], add_generation_prompt: bool):
        """``(role, kind, part)`` for each part: kind is "markup", "content" or "footer"."""
        if self.begin:
            yield None, "markup", Trusted(self.begin)
        first = messages[0] if messages else None
        if self.system_preamble and not (
            isinstance(first, Mapping) and first.get("role") == "system"
        ):
            header = self.header.format(role="system") + self.system_preamble
            yield "system", "markup", Trusted(header)
            yield "system", "footer", Trusted(self.footer)
        for index, message in enumerate(messages):
            role, content = self._checked(index, message)
            header = self.header.format(role=role)
            if index == 0 and role == "system":
                header += self.system_preamble
            yield role, "markup", Trusted(header)
            yield role, "content", content
            yield role, "footer", Trusted(self.footer)
        if add_generation_prompt:
            yield "assistant", "markup", Trusted(self.header.format(role="assistant"))

    def render(self, messages: Sequence[Message], add_generation_prompt: bool = True) -> str:
        """The conversation as one string: for reading it, never for encoding it.

        Once markup and contents are one string, nothing tells them apart any more.
        """
        parts = self.parts(messages, add_generation_prompt)
        return "".join(part.text if isinstance(part, Trusted) else part for part in parts)

    def _checked(self, index: int, message: Message) -> tuple[str, str]:
        """The role and content of a message, which must be well formed."""
        if not isinstance(message, Mapping) or not {"role", "content"} <= message.keys():
            raise ValueError(
                f"message {index} must be a dict with 'role' and 'content', got {message!r}"
            )
        role, content = message["role"], message["content"]
        if role not in self.roles:
            # The role is written into trusted markup, so it must come from a fixed list.
            raise ValueError(
                f"message {index} has role {role!r}; the {self.name} template knows "
                f"{list(self.roles)}"
            )
        if not isinstance(content, str):
            raise TypeError(f"message {index}: content must be a str, got {type(content).__name__}")
        return role, content


CHATML = ChatTemplate(
    name="ChatML",
    begin="",
    header="<|im_start|>{role}\n",
    footer="<|im_end|>\n",
    roles=("system", "user", "assistant"),
    special_tokens=("<|im_start|>", "<|im_end|>"),
)

LLAMA3 = ChatTemplate(
    name="Llama 3",
    begin="<|begin_of_text|>",
    header="<|start_header_id|>{role}<|end_header_id|>\n\n",
    footer="<|eot_id|>",
    roles=("system", "user", "assistant"),
    special_tokens=("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
)

# Llama 3.1's template (tokenizer_config.json of meta-llama/Llama-3.1-8B-Instruct, without
# tools): Llama 3's markup, plus a knowledge cutoff and a date (its default, 26 Jul 2024) at the
# start of the system message, which it writes even when the conversation has none. (That
# template also strips whitespace around each content; this one keeps contents as they are.)
LLAMA31 = ChatTemplate(
    name="Llama 3.1",
    begin=LLAMA3.begin,
    header=LLAMA3.header,
    footer=LLAMA3.footer,
    roles=LLAMA3.roles,
    special_tokens=LLAMA3.special_tokens,
    system_preamble="Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n",
)


def encode_chat(
    tokenizer: SpecialTokenEncoder,
    messages: Sequence[Message],
    template: ChatTemplate = CHATML,
    add_generation_prompt: bool = True,
) -> list[int]:
    """Ids of a conversation: the template's markup as special tokens, contents as plain text.

    Straight to ids, never through one rendered string: no content can open a turn, and the
    begin-of-text token appears exactly once.

    >>> tok = RegexTokenizer(special_tokens={"<|im_start|>": 256, "<|im_end|>": 257})
    >>> ids = encode_chat(tok, [{"role": "user", "content": "<|im_end|>"}])
    >>> ids.count(256), ids.count(257)
    (2, 1)
    """
    _check_template_tokens(tokenizer, template)
    return encode_parts(tokenizer, template.parts(messages, add_generation_prompt))


def encode_chat_with_assistant_mask(
    tokenizer: SpecialTokenEncoder, messages: Sequence[Message], template: ChatTemplate = CHATML
) -> tuple[list[int], list[int]]:
    """Ids of a conversation to train on, and a mask of the ids the loss should count.

    The mask is 1 on what a model must learn to write: each assistant message's content and
    its footer up to and including the footer's first special token (the end of the turn,
    which teaches the model to stop); 0 on what it only reads (markup, system and user
    messages). The ids are ``encode_chat(..., add_generation_prompt=False)``'s. Hugging Face's
    ``apply_chat_template(..., return_assistant_tokens_mask=True)`` returns such a mask for
    templates that mark the assistant's text.

    >>> tok = RegexTokenizer(special_tokens={"<|im_start|>": 256, "<|im_end|>": 257})
    >>> chat = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    >>> ids, mask = encode_chat_with_assistant_mask(tok, chat)
    >>> [token_id for token_id, learned in zip(ids, mask) if learned]  # "b", <|im_end|>
    [98, 257]
    """
    _check_template_tokens(tokenizer, template)
    special_ids = set(special_tokens_of(tokenizer).values())
    ids: list[int] = []
    mask: list[int] = []
    for role, kind, part in template._labelled_parts(messages, add_generation_prompt=False):
        part_ids = encode_parts(tokenizer, [part])
        learned = 0
        if role == "assistant" and kind == "content":
            learned = len(part_ids)
        elif role == "assistant" and kind == "footer":
            ends = [i for i, token_id in enumerate(part_ids) if token_id in special_ids]
            learned = ends[0] + 1 if ends else len(part_ids)
        ids += part_ids
        mask += [1] * learned + [0] * (len(part_ids) - learned)
    return ids, mask


def _check_template_tokens(tokenizer: SpecialTokenEncoder, template: ChatTemplate) -> None:
    """Refuse a tokenizer that lacks a special token of the template, saying how to add it."""
    known = special_tokens_of(tokenizer)
    missing = [name for name in template.special_tokens if name not in known]
    if missing:
        raise ValueError(
            f"the {template.name} template needs the special tokens {missing}, which this "
            "tokenizer does not have, so its markup would be encoded as ordinary text. Register "
            "them first, after the vocabulary, e.g. tokenizer.register_special_tokens"
            f"({{{missing[0]!r}: tokenizer.n_vocab}})"
        )


def pad_batch(
    batch: Sequence[Sequence[int]], pad_id: int, side: str = "right"
) -> tuple[list[list[int]], list[list[int]]]:
    """Pad id lists to one length; also return the attention mask (1 = real token, 0 = pad).

    >>> pad_batch([[5, 6, 7], [8]], pad_id=0)
    ([[5, 6, 7], [8, 0, 0]], [[1, 1, 1], [1, 0, 0]])
    >>> pad_batch([[5, 6, 7], [8]], pad_id=0, side="left")[0]
    [[5, 6, 7], [0, 0, 8]]
    """
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    width = max((len(ids) for ids in batch), default=0)
    padded, masks = [], []
    for ids in batch:
        fill = width - len(ids)
        if side == "right":
            padded.append([*ids, *[pad_id] * fill])
            masks.append([1] * len(ids) + [0] * fill)
        else:
            padded.append([*[pad_id] * fill, *ids])
            masks.append([0] * fill + [1] * len(ids))
    return padded, masks


# --- A model's own template: Jinja, run as transformers runs it ---------------------------------


class ChatTemplateError(ValueError):
    """A chat template could not be compiled or rendered; the message says why."""


class _Refused(jinja2.TemplateError):
    """Raised by the template itself, through ``raise_exception``."""


def _raise_exception(message: str):
    raise _Refused(message)


def _tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False) -> str:
    # transformers' tojson: plain json.dumps, where Jinja's own escapes <, >, & and ' for HTML.
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def _strftime_now(format: str) -> str:
    return datetime.now().strftime(format)  # the clock: the one input that varies between runs


class _UnprintableUndefined(jinja2.Undefined):
    """Jinja's Undefined (false, empty when iterated), except that writing it out is an error.

    transformers writes a missing variable as "" (a template's ``{{ bos_token }}`` without a
    ``bos_token`` silently loses the BOS); here it fails, naming the variable.
    """

    __str__ = jinja2.Undefined._fail_with_undefined_error


@lru_cache(maxsize=64)
def compile_chat_template(source: str) -> jinja2.Template:
    """``source`` compiled as ``transformers``' ``_compile_jinja_template`` compiles it.

    A sandbox whose objects cannot be changed (``ImmutableSandboxedEnvironment``),
    ``trim_blocks`` and ``lstrip_blocks``, the ``loopcontrols`` extension, the globals
    ``raise_exception`` and ``strftime_now``, and transformers' ``tojson`` filter. Not its
    ``{% generation %}`` tag (for assistant masks): such a template is refused as not valid.

    >>> compile_chat_template("{{ messages | length }}").render(messages=[1, 2])
    '2'
    """
    if not isinstance(source, str):
        raise TypeError(f"a chat template is a str of Jinja, got {type(source).__name__}")
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[loopcontrols],
        undefined=_UnprintableUndefined,
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    try:
        return env.from_string(source)
    except jinja2.TemplateSyntaxError as error:
        raise ChatTemplateError(
            f"the chat template is not valid Jinja (line {error.lineno}): {error.message}"
        ) from None


def render_chat_template(
    source: str,
    messages: Sequence[Message],
    *,
    add_generation_prompt: bool = False,
    **variables,
) -> str:
    """The text of ``messages`` under the Jinja chat template ``source``.

    As ``apply_chat_template(messages, tokenize=False)``: the template sees ``messages``,
    ``add_generation_prompt`` (False by default, as there), ``tools`` and ``documents`` (None
    unless given) and ``variables``, which should hold the special tokens' texts the template
    writes (``bos_token``, ``eos_token``; :func:`gguf_chat_template` gives them). For reading,
    or for :func:`encode_rendered`; contents are not kept apart from markup any more.

    >>> render_chat_template("{{ bos_token }}{{ messages[0]['content'] }}",
    ...                      [{"role": "user", "content": "Hi"}], bos_token="<s>")
    '<s>Hi'
    """
    template = compile_chat_template(source)
    context = {"tools": None, "documents": None, **variables}
    try:
        return template.render(
            messages=list(messages), add_generation_prompt=add_generation_prompt, **context
        )
    except _Refused as error:
        raise ChatTemplateError(f"the chat template refused the conversation: {error}") from None
    except jinja2.UndefinedError as error:
        raise ChatTemplateError(
            f"the chat template uses a value it was not given: {error.message}. Pass the "
            "special tokens it writes as keywords (bos_token=..., eos_token=...) and give each "
            "message the keys the template reads"
        ) from None
    except jinja2.exceptions.SecurityError as error:
        raise ChatTemplateError(f"the sandbox stopped the chat template: {error}") from None


SPECIAL_TOKEN_VARIABLES = ("bos", "eos", "unk", "pad")  # transformers' special_tokens_map names
_GGUF_NAMES = {short: long for long, short in SPECIAL_NAMES.items()}  # "unk" -> "unknown"


def gguf_chat_template(metadata: Mapping[str, object], path="the file") -> tuple[str, dict]:
    """The chat template of a GGUF file's metadata, and the variables to render it with.

    The variables are ``bos_token``, ``eos_token``, ... : the texts of the special tokens the
    file names (``tokenizer.ggml.bos_token_id`` ...), as ``apply_chat_template`` passes them.

    >>> meta = {"tokenizer.chat_template": "{{ bos_token }}", "tokenizer.ggml.tokens": ["<s>"],
    ...         "tokenizer.ggml.bos_token_id": 0}
    >>> gguf_chat_template(meta)
    ('{{ bos_token }}', {'bos_token': '<s>'})
    """
    source = metadata.get("tokenizer.chat_template")
    if not isinstance(source, str):
        raise ChatTemplateError(
            f"{path} has no chat template (no tokenizer.chat_template key): its model was "
            "released without one, so there is no format to apply"
        )
    tokens = metadata.get("tokenizer.ggml.tokens") or ()
    variables = {}
    for name in SPECIAL_TOKEN_VARIABLES:
        token_id = metadata.get(f"tokenizer.ggml.{_GGUF_NAMES.get(name, name)}_token_id")
        if isinstance(token_id, int) and 0 <= token_id < len(tokens):
            variables[f"{name}_token"] = tokens[token_id]
    return source, variables


def encode_rendered(tokenizer, text: str, *, add_special_tokens: bool = False) -> list[int]:
    """Ids of a rendered template: each special token's text becomes its id, the rest is text.

    What Hugging Face's tokenizers and llama.cpp (``parse_special``) do with a rendered chat,
    so only for text the application trusts (see :func:`encode_chat` for user text).
    ``add_special_tokens=True`` also adds what the tokenizer adds around every text (its
    ``add_bos_token``: BOS); a template that writes BOS itself then gets two (llama.cpp warns
    of it). Between special tokens each part is encoded on its own, so a SentencePiece
    tokenizer puts its dummy prefix after each special token, as llama.cpp does.

    >>> tok = RegexTokenizer(special_tokens={"<s>": 256})
    >>> encode_rendered(tok, "<s>hi")
    [256, 104, 105]
    """
    specials = special_tokens_of(tokenizer)
    encode_text = getattr(tokenizer, "encode_ordinary", None) or tokenizer.encode
    ids: list[int] = []
    for part in split_on_special_tokens(text, specials):
        if part in specials:
            ids.append(specials[part])
        else:
            ids += encode_text(part)
    if add_special_tokens and hasattr(tokenizer, "with_special_tokens"):
        ids = tokenizer.with_special_tokens(ids)
    return ids
