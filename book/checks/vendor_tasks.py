"""Two graded tasks on other vendors' tokenizers (chapter 09), as specs whose groups are the parts
of each statement, with the points the statement gives them.

``split_command_r`` rebuilds the pre-tokenizer that Command-R and StarCoder 2 describe in their
``tokenizer.json``: two Split steps in turn, every number character alone, then GPT-2's
original pattern on each piece between. Parts: GPT-2's rules on text without numbers (3),
every number character a chunk of its own, ASCII or not (2), whitespace before a number cut
in the piece before it (1).

``premiums_across`` computes the token premium of each language under each vendor's tokenizer
from token counts. Parts: the premiums, each tokenizer's counts divided by its own count of the
reference language, that language kept at 1.0 (3), and a ``ValueError`` when a tokenizer has no
count, or a count of 0, for the reference language (1).

Each part's fixed cases cover the statement's input classes and boundaries; each known mistake
names the part it breaks (``Mistake.part``) and loses that part's points, the others kept
(``tests/test_vendor_tasks.py`` proves it).
"""

from __future__ import annotations

import random

import regex

from book.checks.answers import close
from book.checks.spec import Group, Mistake, TaskSpec, checks_of, random_text
from book.tokenizers.bpe.patterns import DIGITS_THEN_GPT2, GPT2_ORIGINAL_PATTERN, split

# --- Task 1: Command-R's split, rebuilt from its two described steps

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


# --- Task 2: the premium of each language under each vendor's tokenizer

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
    "divide each count by the same tokenizer's count of the reference language.",
    compare=close,
)

SPECS = (SPLIT_COMMAND_R, PREMIUMS_ACROSS)
check, judge_tasks = checks_of(SPECS)
