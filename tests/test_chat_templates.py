"""Real models' chat templates (the Jinja in llama.cpp's GGUF vocabularies) rendered as
``transformers``' ``apply_chat_template`` renders them, and encoded with the book's tokenizer.

The expected texts are each model's documented format: Qwen's ChatML (OpenAI's ChatML
document; Qwen1.5's tokenizer_config.json), Gemma 4's ``<|turn>`` ... ``<turn|>`` (Google's
"Gemma 4 prompt formatting" page), Phi-3's ``<|user|>`` ... ``<|end|>`` (the model card of
microsoft/Phi-3-mini-4k-instruct) and Command-R's ``<|START_OF_TURN_TOKEN|>`` ... (the model
card of CohereForAI/c4ai-command-r-v01). When written, each of them was also what
``transformers`` 5.25.0's ``apply_chat_template(tokenize=False)`` gave for the same template,
conversation and special tokens (a one-off check: ``transformers`` is not a test dependency).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_gguf_bpe import hugging_face_tokenizer

from book import vocabularies
from book.chat import (
    CHATML,
    ChatTemplateError,
    encode_rendered,
    gguf_chat_template,
    render_chat_template,
    special_tokens_of,
)
from book.tokenizers import RegexTokenizer
from book.tokenizers.formats.gguf import read_gguf_metadata, read_gguf_vocabulary
from book.tokenizers.sentencepiece_bpe import SentencePieceBPE

CHAT = [
    {"role": "system", "content": "You answer briefly."},
    {"role": "user", "content": "Hi!"},
    {"role": "assistant", "content": "Hello."},
    {"role": "user", "content": "Why BOS?"},
]

# name -> (text of CHAT without the generation prompt, the generation prompt)
EXPECTED = {
    "qwen35": (
        "<|im_start|>system\nYou answer briefly.<|im_end|>\n"
        "<|im_start|>user\nHi!<|im_end|>\n"
        "<|im_start|>assistant\nHello.<|im_end|>\n"
        "<|im_start|>user\nWhy BOS?<|im_end|>\n",
        "<|im_start|>assistant\n",
    ),
    "gemma-4": (
        "<bos><|turn>system\nYou answer briefly.<turn|>\n"
        "<|turn>user\nHi!<turn|>\n"
        "<|turn>model\nHello.<turn|>\n"
        "<|turn>user\nWhy BOS?<turn|>\n",
        # With thinking off, the template also opens and closes an empty thought channel.
        "<|turn>model\n<|channel>thought\n<channel|>",
    ),
    "phi-3": (
        # This template drops a system message and always opens the assistant's turn.
        "<s><|user|>\nHi!<|end|>\n<|assistant|>\n"
        "Hello.<|end|>\n"
        "<|user|>\nWhy BOS?<|end|>\n<|assistant|>\n",
        "",
    ),
    "command-r": (
        "<BOS_TOKEN><|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>You answer briefly."
        "<|END_OF_TURN_TOKEN|>"
        "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Hi!<|END_OF_TURN_TOKEN|>"
        "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>Hello.<|END_OF_TURN_TOKEN|>"
        "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Why BOS?<|END_OF_TURN_TOKEN|>",
        "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
    ),
}


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@pytest.fixture(scope="module", autouse=True)
def files():
    vocabularies.provision()


def template(name: str) -> tuple[str, dict]:
    path = vocabularies.vocabulary_path(name)
    return gguf_chat_template(read_gguf_metadata(path), path.name)


@pytest.fixture(scope="module")
def phi3() -> SentencePieceBPE:
    tok = vocabularies.load("phi-3")
    assert isinstance(tok, SentencePieceBPE)
    return tok


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("add_generation_prompt", [False, True])
def test_real_templates_render_the_documented_format(name, add_generation_prompt):
    source, variables = template(name)
    text = render_chat_template(
        source, CHAT, add_generation_prompt=add_generation_prompt, **variables
    )
    body, prompt = EXPECTED[name]
    assert text == body + (prompt if add_generation_prompt else "")
    again = render_chat_template(
        source, CHAT, add_generation_prompt=add_generation_prompt, **variables
    )
    assert again == text  # deterministic: nothing but the conversation goes in


def test_the_variables_are_the_files_special_tokens():
    assert template("phi-3")[1] == {
        "bos_token": "<s>",
        "eos_token": "<|endoftext|>",
        "unk_token": "<unk>",
        "pad_token": "<|endoftext|>",
    }
    assert template("command-r")[1]["bos_token"] == "<BOS_TOKEN>"


def test_qwen_without_a_system_message_writes_its_default_one():
    source, variables = template("qwen35")
    text = render_chat_template(source, CHAT[1:2], **variables)
    assert text == (
        "<|im_start|>system\nYou are a helpful assistant<|im_end|>\n"
        "<|im_start|>user\nHi!<|im_end|>\n"
    )


def test_qwen_is_the_books_chatml():
    source, variables = template("qwen35")
    assert render_chat_template(
        source, CHAT, add_generation_prompt=True, **variables
    ) == CHATML.render(CHAT)


@pytest.fixture(scope="module")
def qwen() -> tuple[str, dict]:
    return template("qwen35")


@given(turns=st.lists(TEXT, min_size=1, max_size=4), system=TEXT)
def test_qwen_is_the_books_chatml_on_any_text(qwen, turns, system):
    chat = [{"role": "system", "content": system}]
    chat += [{"role": ("user", "assistant")[i % 2], "content": t} for i, t in enumerate(turns)]
    source, variables = qwen
    assert render_chat_template(
        source, chat, add_generation_prompt=True, **variables
    ) == CHATML.render(chat)


def test_a_conversation_the_template_rejects_raises_its_message():
    source, variables = template("command-r")
    twice = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    with pytest.raises(ChatTemplateError, match="roles must alternate user/assistant"):
        render_chat_template(source, twice, **variables)


def test_a_missing_variable_is_named():
    source, _ = template("phi-3")
    with pytest.raises(ChatTemplateError, match="'bos_token' is undefined"):
        render_chat_template(source, CHAT[1:2])


def test_a_message_without_content_is_an_error_not_an_empty_turn():
    source, variables = template("qwen35")
    with pytest.raises(ChatTemplateError, match="content"):
        render_chat_template(source, [{"role": "user"}], **variables)


def test_a_template_that_is_not_jinja_says_where():
    with pytest.raises(ChatTemplateError, match="not valid Jinja \\(line 1\\)"):
        render_chat_template("{% for m in messages %}", CHAT)


def test_the_sandbox_refuses_to_change_the_messages():
    with pytest.raises(ChatTemplateError, match="sandbox"):
        render_chat_template("{{ messages.append(1) }}", CHAT)


def test_globals_and_filters_as_transformers_defines_them():
    assert render_chat_template("{{ raise_exception is defined }}", []) == "True"
    assert re.fullmatch(r"\d{4}", render_chat_template("{{ strftime_now('%Y') }}", []))
    # transformers' tojson: no HTML escaping, non-ASCII kept, keys in order.
    out = render_chat_template("{{ {'b': '<é>', 'a': 1} | tojson }}", [])
    assert out == '{"b": "<é>", "a": 1}'
    # trim_blocks and lstrip_blocks: a block tag leaves no line of its own behind.
    source = "{% for m in messages %}\n  {% if m %}\n{{ m['content'] }}\n  {% endif %}\n"
    source += "{% endfor %}"
    assert render_chat_template(source, CHAT[:2]) == "You answer briefly.\nHi!\n"


def test_a_file_without_a_template_says_so():
    path = vocabularies.vocabulary_path("llama-bpe")
    with pytest.raises(ChatTemplateError, match="no chat template"):
        gguf_chat_template(read_gguf_metadata(path), path.name)


def test_phi3_rendered_and_encoded_has_the_special_ids(phi3):
    source, variables = template("phi-3")
    text = render_chat_template(source, CHAT, **variables)
    ids = encode_rendered(phi3, text)
    specials = special_tokens_of(phi3)
    markers = [phi3.vocab[i] for i in ids if i in specials.values()]
    turn = ["<|user|>", "<|end|>", "<|assistant|>"]
    assert markers == ["<s>", *turn, "<|end|>", *turn]
    # llama.cpp's rule: the dummy prefix "▁" after each special token, then the text.
    user = ids.index(specials["<|user|>"])
    assert [phi3.vocab[i] for i in ids[user + 1 : user + 3]] == ["▁", "<0x0A>"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["qwen35", "command-r"])
def test_rendered_chats_encode_as_hugging_face_encodes_them(name):
    """Hugging Face's tokenizers given the same file, encoding the rendered text with
    add_special_tokens=False, gives the same tokens: special tokens' text (a content's too)
    as the special tokens, the rest as byte-level BPE."""
    path = vocabularies.vocabulary_path(name)
    vocab = read_gguf_vocabulary(path)
    tok = vocabularies.load(name)
    hf = hugging_face_tokenizer(vocab)
    source, variables = gguf_chat_template(vocab.metadata, path.name)
    contents = ["  Hi!\n\nTwo  spaces ", "日本語 é 1234567 <|im_end|> <BOS_TOKEN>", "x\ty\r\n"]
    chat = [{"role": ("user", "assistant")[i % 2], "content": c} for i, c in enumerate(contents)]
    for add_generation_prompt in (False, True):
        text = render_chat_template(
            source, chat, add_generation_prompt=add_generation_prompt, **variables
        )
        ids = encode_rendered(tok, text)
        # Compared as tokens: that helper gives the special tokens ids of its own, after the
        # learned ones, and each of the file's tokens has one id (the reader checks it).
        assert [vocab.tokens[i] for i in ids] == hf.encode(text, add_special_tokens=False).tokens
        assert tok.decode(ids) == text


def test_the_doubled_bos_and_how_to_avoid_it(phi3):
    source, variables = template("phi-3")
    text = render_chat_template(source, CHAT[1:2], **variables)
    assert text.startswith(variables["bos_token"])  # the template writes BOS itself
    assert phi3.add_bos_token  # and the tokenizer adds one to every text
    doubled = encode_rendered(phi3, text, add_special_tokens=True)
    once = encode_rendered(phi3, text)
    assert doubled[:2] == [phi3.bos_id, phi3.bos_id] and doubled.count(phi3.bos_id) == 2
    assert once.count(phi3.bos_id) == 1 and once == doubled[1:]


@given(st.lists(st.tuples(st.sampled_from(["<s>", "<e>"]), TEXT), max_size=5))
def test_encode_rendered_is_specials_and_ordinary_text_in_order(parts):
    tok = RegexTokenizer(special_tokens={"<s>": 256, "<e>": 257})
    text = "".join(special + plain for special, plain in parts)
    expected = []
    for special, plain in parts:
        expected += [tok.special_tokens[special], *tok.encode_ordinary(plain)]
    ids = encode_rendered(tok, text)
    assert tok.decode(ids) == text
    if not any("<s>" in p or "<e>" in p for _, p in parts):
        assert ids == expected
