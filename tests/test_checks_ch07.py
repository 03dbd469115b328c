"""Chapter 07's specs beyond the generic mutation test (tests/test_check_specs.py): undefined
and unattempted answers, partial credit by group for slips that are not known mistakes, the
rules the judge enforces through probes, and the references' own properties."""

import random

import regex
from check_helpers import line, reviewer_tests
from hypothesis import given
from hypothesis import strategies as st

from book.chat import split_on_special_tokens
from book.checks import ch07
from book.checks.ch07 import SPECIALS, add_special_tokens_reference, split_stream_reference
from book.grading.calls import judge_in_process

RIGHT = {spec.name: spec.reference for spec in ch07.SPECS}


def test_right_answers_pass(capsys):
    for name, answer in RIGHT.items():
        assert line(capsys, ch07.check, name, answer).startswith(f"✔ {name}: all ")


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch07.check, "split_stream", not_yet)
    assert "not defined" in line(capsys, ch07.check, "encode", None)


def accepts_empty(vocab_size, special_tokens, names):
    """Right, except that an empty name is accepted."""
    return add_special_tokens_reference(vocab_size, special_tokens, [n for n in names if n])


def no_prompt_alone(tok, messages, add_generation_prompt=True):
    """A safe encoder that forgets the generation prompt when there are no messages."""
    if not messages:
        return []
    ids = []
    for message in messages:
        if message["role"] not in ("system", "user", "assistant"):
            raise ValueError(message["role"])
        ids += tok.encode(f"<|im_start|>{message['role']}\n", allowed_special="all")
        ids += tok.encode_ordinary(message["content"])
        ids += tok.encode("<|im_end|>\n", allowed_special="all")
    if add_generation_prompt:
        ids += tok.encode("<|im_start|>assistant\n", allowed_special="all")
    return ids


def rejects_empty_text(tok, text, allowed_special=frozenset(), disallowed_special="all"):
    """Right, except that an empty text raises instead of giving no ids."""
    if not text:
        raise ValueError("nothing to encode")
    return ch07.encode_reference(tok, text, allowed_special, disallowed_special)


def test_a_safe_encoder_without_the_prompt_of_no_messages_loses_only_that_group(capsys):
    text = line(capsys, ch07.check, "encode_chatml", no_prompt_alone)
    assert "failed: conversations" in text and text.endswith("— 2/3 points\n")


def test_slips_cost_their_group_only():
    half = dict(RIGHT, add_special_tokens=accepts_empty, encode=rejects_empty_text)
    tasks = ch07.judge_tasks(random.Random(4))
    grades = {grade.task: grade for grade in judge_in_process(tasks, half)}
    assert {name: grade.points for name, grade in grades.items()} == {
        "add_special_tokens": 2,
        "split_stream": 3,
        "encode": 3,
        "encode_chatml": 3,
        "collate": 3,
    }
    assert "failed: allowed and disallowed" in grades["encode"].message
    assert "failed: an empty name" in grades["add_special_tokens"].message


def names_the_token_by_its_text(tok, text, allowed_special=frozenset(), disallowed_special="all"):
    """Right, with a message that writes the token as it is (a newline and all), not its repr."""
    try:
        return ch07.encode_reference(tok, text, allowed_special, disallowed_special)
    except ValueError as error:
        raise ValueError(f"found {error.token} in the text") from None


def test_the_probes_enforce_what_a_return_value_cannot_show(capsys):
    for spec, rule in [
        (ch07.ADD_SPECIAL_TOKENS, "the special_tokens you are given must not change"),
        (ch07.COLLATE, "the batch you are given must not change"),
        (ch07.COLLATE, "not the caller's list"),
        (ch07.ENCODE, "must name the disallowed special token"),
        (ch07.ENCODE, "the tokenizer behind encode_ordinary knows no special tokens"),
        (ch07.ENCODE, "not the notebook's tok"),
    ]:
        (mistake,) = [m for m in spec.mistakes if rule in m.says]
        text = line(capsys, ch07.check, spec.name, mistake.function)
        parts = {group.name: group.points for group in spec.groups}
        kept = spec.points - parts[mistake.part] if mistake.part else 0
        assert text.endswith(f"— {kept}/{spec.points} points\n") and rule in text
    assert line(capsys, ch07.check, "encode", names_the_token_by_its_text).startswith("✔")


def merged(pieces: list[str], specials: list[str]) -> list[str]:
    """Adjacent ordinary pieces joined: what splitting the whole text at once gives."""
    out: list[str] = []
    for piece in pieces:
        if out and piece not in specials and out[-1] not in specials:
            out[-1] += piece
        else:
            out.append(piece)
    return out


TEXT = st.text(alphabet="ab<|>\nendoftxim_srt", max_size=40)


@given(TEXT, st.lists(st.integers(0, 40), max_size=6))
def test_split_stream_is_the_whole_split_released_in_order(text, cuts):
    cuts = sorted({min(c, len(text)) for c in cuts})
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    released = split_stream_reference(chunks, SPECIALS)
    assert len(released) == len(chunks) + 1
    flat = [piece for pieces in released for piece in pieces]
    assert all(flat) and "".join(flat) == text
    assert merged(flat, SPECIALS) == split_on_special_tokens(text, SPECIALS)


def test_split_stream_holds_a_special_that_may_grow():
    assert split_stream_reference(["a<|end|>", "\n"], SPECIALS) == [["a"], ["<|end|>\n"], []]
    assert split_stream_reference(["a<|end|>", "x"], SPECIALS) == [["a"], ["<|end|>", "x"], []]
    assert split_stream_reference(["<|end"], SPECIALS) == [[], ["<|end"]]


# --- the reviewer's wrong answers (review of chapters 07-08), as learners wrote them ------------


def _add(in_place=False, dedupe_given_only=False, empty_raises=True, known_use_ids=False):
    """add_special_tokens as the reviewer wrote it, with one slip."""

    def add_special_tokens(vocab_size, special_tokens, names):
        out = special_tokens if in_place else dict(special_tokens)
        nxt = max([vocab_size] + [i + 1 for i in special_tokens.values()])
        for name in names:
            if not name and empty_raises:
                raise ValueError("empty special token name")
            if name in (special_tokens if dedupe_given_only else out):
                nxt += known_use_ids
                continue
            out[name] = nxt
            nxt += 1
        return out

    return add_special_tokens


def _stream(wait_for_longer=True, first_listed=False):
    """split_stream as the reviewer wrote it: it releases a complete special token without
    waiting for a longer one (wait_for_longer=False), or takes the first listed of those that
    start at one place (first_listed)."""

    def split_stream(parts, specials):
        out, buf = [], ""

        def release(final):
            nonlocal buf
            pieces, start, i = [], 0, 0
            while i < len(buf):
                full = [s for s in specials if buf.startswith(s, i)]
                maybe = [s for s in specials if len(s) > len(buf) - i and s.startswith(buf[i:])]
                longer = not full or max(map(len, maybe or [""])) > max(map(len, full))
                if not final and maybe and (longer if wait_for_longer else not full):
                    break
                if full:
                    s = full[0] if first_listed else max(full, key=len)
                    pieces += [buf[start:i], s] if start < i else [s]
                    i = start = i + len(s)
                else:
                    i += 1
            pieces += [buf[start:i]] if start < i else []
            buf = buf[i:]
            return pieces

        for part in parts:
            buf += part
            out.append(release(False))
        return [*out, release(True)]

    return split_stream


def _encode(allowed_wins=False, in_parts=False, set_order=False):
    """encode as the reviewer wrote it: a name in both sets allowed, disallowed tokens looked
    for only between the allowed ones, or the allowed ones tried in the order a set lists them
    (which Python's hash seed decides)."""

    def encode(tok, text, allowed_special=frozenset(), disallowed_special="all"):
        names = set(tok.special_tokens)
        allowed = names if allowed_special == "all" else set(allowed_special) & names
        if disallowed_special == "all":
            disallowed = names - allowed
        else:
            disallowed = set(disallowed_special) - (allowed if allowed_wins else set())
        if not in_parts and any(name in text for name in disallowed):
            raise ValueError(f"disallowed special token in {sorted(disallowed)!r}")
        order = allowed if set_order else sorted(allowed, key=len, reverse=True)
        alternatives = "(" + "|".join(map(regex.escape, order)) + ")"
        pieces = regex.split(alternatives, text) if allowed else [text]
        ids = []
        for i, piece in enumerate(pieces):
            if i % 2:
                ids.append(tok.special_tokens[piece])
                continue
            for name in disallowed if in_parts else ():
                if name in piece:
                    raise ValueError(f"disallowed special token {name!r}")
            ids.extend(tok.encode_ordinary(piece) if piece else [])
        return ids

    return encode


def _chatml(is_role=("system", "user", "assistant").__contains__, glued=False):
    """encode_chatml as the reviewer wrote it: its role check, and the markup's newline
    encoded with the content (glued)."""

    def encode_chatml(tok, messages, add_generation_prompt=True):
        ids = []
        for m in messages:
            if not is_role(m["role"]):
                raise ValueError(f"role must be system, user or assistant, got {m['role']!r}")
            newline = "" if glued else "\n"
            ids += tok.encode(f"<|im_start|>{m['role']}{newline}", allowed_special={"<|im_start|>"})
            ids += tok.encode_ordinary(("\n" if glued else "") + m["content"])
            ids += tok.encode("<|im_end|>\n", allowed_special={"<|im_end|>"})
        if add_generation_prompt:
            ids += tok.encode("<|im_start|>assistant\n", allowed_special={"<|im_start|>"})
        return ids

    return encode_chatml


def _collate(in_place=False, empty_ok=True):
    """collate as the reviewer wrote it: right padding extends the caller's rows (in_place),
    or max() of an empty batch raises."""

    def collate(batch, pad_id, side="right"):
        if not batch and empty_ok:
            return [], [], []
        n = max(len(row) for row in batch)
        ids, mask, labels = [], [], []
        for row in batch:
            k = n - len(row)
            if side == "right":
                ids.append(row + [pad_id] * k if not in_place else row)
                mask.append([1] * len(row) + [0] * k)
                labels.append(list(row) + [-100] * k)
                if in_place:
                    row.extend([pad_id] * k)
            else:
                ids.append([pad_id] * k + list(row))
                mask.append([0] * k + [1] * len(row))
                labels.append([-100] * k + list(row))
        return ids, mask, labels

    return collate


def _prefix_role(role: str) -> bool:
    return regex.match("system|user|assistant", role) is not None


LONGEST = ch07.LONGEST_PART
# (task, answer, the part it loses: None for every part, words of its hint). The reviewer's 2d
# was equivalent to a right answer, and 3e (unknown names in allowed_special) is outside the
# statement.
ADD, STREAM, ENCODE, CHATML, COLLATE = (spec.name for spec in ch07.SPECS)
WRONG = {
    "1a_in_place": (ADD, _add(in_place=True), "the ids", "must not change"),
    "1b_dupes_added_twice": (ADD, _add(dedupe_given_only=True), "the ids", "added once"),
    "1c_empty_not_raised": (ADD, _add(empty_raises=False), "an empty name", "raises ValueError"),
    "1e_existing_uses_id": (ADD, _add(known_use_ids=True), "the ids", "uses up no id: the next"),
    "2a_no_wait_for_longer": (STREAM, _stream(wait_for_longer=False), None, ""),
    "2c_first_listed_wins": (STREAM, _stream(first_listed=True), None, "the longest wins"),
    "3a_allowed_beats_disallowed": (ENCODE, _encode(allowed_wins=True), None, ""),
    "3b_disallowed_only_in_ordinary_parts": (ENCODE, _encode(in_parts=True), None, ""),
    "3c_set_order_alternatives": (ENCODE, _encode(set_order=True), LONGEST, "whatever order"),
    "4a_substring_role": (CHATML, _chatml("system user assistant".__contains__), "roles", ""),
    "4b_match_not_fullmatch": (CHATML, _chatml(_prefix_role), "roles", "begins with one"),
    "4c_newline_glued_to_content": (CHATML, _chatml(glued=True), None, ""),
    "5b_pads_input_in_place": (COLLATE, _collate(in_place=True), None, ""),
    "5d_empty_batch_crash": (COLLATE, _collate(empty_ok=False), "padding", ""),
}
SPEC = {spec.name: spec for spec in ch07.SPECS}


test_reviewers_wrong_answers = reviewer_tests(SPEC, WRONG)
