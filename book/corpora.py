"""The small corpora shipped with the book in ``book/data/`` (provenance in its README.md).

Each loader reads UTF-8 text through ``importlib.resources``, so it works from a checkout and
from an installed wheel alike, and caches what it read. Nothing is downloaded.

>>> from book import corpora
>>> corpora.english("train") + corpora.english("heldout") == corpora.english("all")
True
>>> list(corpora.parallel())[:3]
['English', 'Spanish', 'French']
"""

import functools
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable

SPLITS = ("train", "heldout", "all")
CODE_LANGUAGES = ("python", "c")
PARALLEL_COLUMNS = ["language", "code", "script", "text"]


@dataclass(frozen=True)
class Play:
    """A Shakespeare play shipped as ``data/shakespeare/<stem>.txt`` and the split it is in."""

    title: str
    stem: str
    split: str


# The held-out split is one whole play that training never sees (data/README.md says why).
PLAYS: tuple[Play, ...] = (
    Play("Macbeth", "macbeth", "train"),
    Play("A Midsummer Night's Dream", "a-midsummer-night-s-dream", "train"),
    Play("The Tempest", "the-tempest", "heldout"),
)

CODE_FILES: dict[str, tuple[str, ...]] = {
    "python": ("code/textwrap.py.txt", "code/shlex.py.txt"),
    "c": ("code/utf8_decode.c.txt",),
}


@dataclass(frozen=True)
class Language:
    """A language of the parallel passage: English name, ISO 639-1 code, Unicode script(s)."""

    name: str
    code: str
    script: str

    @property
    def scripts(self) -> tuple[str, ...]:
        """The script names one by one: script "Han+Katakana" -> ("Han", "Katakana")."""
        return tuple(self.script.split("+"))


def _check_choice(kind: str, value: str, valid: tuple[str, ...]) -> None:
    """Raise ValueError naming the valid choices when ``value`` is not one of them."""
    if value not in valid:
        choices = ", ".join(map(repr, valid))
        raise ValueError(f"unknown {kind} {value!r}; choose one of: {choices}")


def _resource(relative_path: str) -> Traversable:
    """Return the shipped file ``book/data/<relative_path>`` (a path with forward slashes)."""
    resource = files("book") / "data"
    for part in relative_path.split("/"):
        resource = resource / part
    return resource


@functools.cache
def read_data(relative_path: str) -> str:
    """Return the text of ``book/data/<relative_path>``, e.g. ``read_data("parallel.tsv")``."""
    resource = _resource(relative_path)
    if not resource.is_file():
        raise FileNotFoundError(
            f"book/data/{relative_path} is missing; restore it from the repository "
            "and reinstall the package (pip install -e .)"
        )
    return resource.read_text(encoding="utf-8")


def plays(split: str = "all") -> dict[str, str]:
    """Return {play title: speeches} for the plays in ``split``: "train", "heldout" or "all"."""
    _check_choice("split", split, SPLITS)
    return {
        play.title: read_data(f"shakespeare/{play.stem}.txt")
        for play in PLAYS
        if split in ("all", play.split)
    }


@functools.cache
def english(split: str = "all") -> str:
    """Return Shakespeare: "train" (Macbeth, the Dream), "heldout" (The Tempest) or "all".

    Verse keeps one line per line and every speech, the last of each play included, is
    followed by a blank line, so ``english("train") + english("heldout") == english("all")``.
    """
    return "".join(text + "\n" for text in plays(split).values())


def technical() -> str:
    """Return English technical prose: twelve sections of the Python 3.11 language reference."""
    return read_data("python_docs.txt")


@functools.cache
def code(language: str = "python") -> str:
    """Return source code: "python" (stdlib textwrap.py + shlex.py) or "c" (a UTF-8 decoder)."""
    _check_choice("code language", language, CODE_LANGUAGES)
    return "\n".join(read_data(path) for path in CODE_FILES[language])


@functools.cache
def _parallel_rows() -> tuple[tuple[Language, str], ...]:
    """Parse ``parallel.tsv`` (language, code, script, text) into (Language, text) rows."""
    header, *lines = read_data("parallel.tsv").splitlines()
    if header.split("\t") != PARALLEL_COLUMNS:
        raise ValueError(f"parallel.tsv: header should be {PARALLEL_COLUMNS}, not {header!r}")
    rows = []
    for number, line in enumerate(lines, start=2):
        fields = line.split("\t")
        if len(fields) != len(PARALLEL_COLUMNS):
            raise ValueError(f"parallel.tsv line {number}: expected 4 fields, not {len(fields)}")
        name, iso_code, script, text = fields
        rows.append((Language(name, iso_code, script), text))
    return tuple(rows)


def parallel() -> dict[str, str]:
    """Return {language name: passage}: one short passage in many languages, English first."""
    return {language.name: text for language, text in _parallel_rows()}


def parallel_info() -> list[Language]:
    """Return the languages of the parallel passage (name, ISO 639-1 code, script) in order."""
    return [language for language, _ in _parallel_rows()]


_SAMPLES = {
    "english": lambda: english("all"),
    "english-train": lambda: english("train"),
    "english-heldout": lambda: english("heldout"),
    "technical": technical,
    "code": lambda: code("python"),
    "code-c": lambda: code("c"),
}


def available() -> tuple[str, ...]:
    """Return the names ``sample`` accepts: ``("english", "english-train", ..., "code-c")``."""
    return tuple(_SAMPLES)


def sample(name: str) -> str:
    """Return a whole corpus by name (see ``available()``), e.g. ``sample("technical")``."""
    _check_choice("corpus", name, available())
    return _SAMPLES[name]()
