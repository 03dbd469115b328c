"""Where the graded kernel runs: inside bubblewrap, seeing only what it needs, with limits.

The sandbox is an allow-list. The kernel sees the Python environment it runs on (the
interpreter, its standard library, the virtual environment's packages, the system libraries
they load), the restricted copy of the book package (mounted where the package lives), its
scratch folder (writable, holding its copy of the notebook) and nothing else of the machine: no
home, no repository, no other submission, no other copy of the course, even one installed in a
folder the environment uses (such a copy is hidden behind an empty folder). Its scratch folder
is a tmpfs of ``Limits.scratch_mb`` inside the sandbox, so what it writes fills that, not the
grader's disk; only the notebook's copy (read-only) and the folder of its sockets and the
judge's pipes (``KERNEL_FOLDER``, which the guard refuses to the notebook's code) come from
outside. It has no network,
its own process namespace (nothing it starts outlives it), dies with the grader, and its
environment holds only the variables a kernel needs (``kernel_env``).

Without bubblewrap the grader refuses to grade, unless ``--sandbox none`` says to run the
kernel with this user's rights; then only the limits and the guard's audit hook stand in the
way, and every report says what is not isolated (``NO_SANDBOX``).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from book.grading.stubs import PACKAGE

SANDBOXES = ("bubblewrap", "none")
KERNEL_FOLDER = ".kernel"  # in the scratch folder: the kernel's sockets and the judge's pipes
MISSING = (
    "bubblewrap (bwrap) {why}, and the grader does not run learners' code without a sandbox. "
    "Install it (Debian: apt-get install bubblewrap, or make grader-deps), or grade inside a "
    "container or virtual machine that holds nothing else and pass --sandbox none."
)
# What the kernel loads, so that the system libraries they need are visible (see system_libraries).
PROBE = (
    "import importlib, sys\n"
    "for name in ('ipykernel.kernelapp', 'zmq', 'numpy', 'regex', 'tiktoken', 'matplotlib.pyplot',"
    " 'PIL.Image', 'ssl', 'hashlib', 'ctypes', 'sqlite3', 'lzma', 'bz2', 'zlib', 'decimal',"
    " 'uuid', 'readline', 'curses'):\n"
    "    try:\n        importlib.import_module(name)\n    except Exception:\n        pass\n"
    "print('\\n'.join(sorted({line.split()[5] for line in open('/proc/self/maps')"
    " if len(line.split()) > 5 and '.so' in line.split()[5]})))\n"
)


class Unavailable(RuntimeError):
    """The sandbox asked for cannot run here; the message says what to do."""


@dataclass(frozen=True)
class Limits:
    """Time per cell and per notebook (seconds), memory (MB of address space), file size (MB),
    the scratch folder's size (MB, in the sandbox)."""

    cell_seconds: float = 30
    total_seconds: float = 600
    memory_mb: int = 4096
    file_mb: int = 256
    scratch_mb: int = 128


@dataclass(frozen=True)
class Sandbox:
    """How a kernel is isolated: bwrap's path ('' for none) and what every report says."""

    bwrap: str
    note: str

    @property
    def isolated(self) -> bool:
        """True when the kernel runs inside bubblewrap."""
        return bool(self.bwrap)


NO_SANDBOX = Sandbox(
    "",
    "sandbox: none (--sandbox none): NOT isolated. The notebook ran with this user's rights: "
    "it could have read any file this user can (other submissions, the solutions, another "
    "copy of the course), written files, used the network and left processes running. Only "
    "the time and memory limits and an audit hook stood in the way, and code that sets out to "
    "can get around an audit hook",
)
BUBBLEWRAP_NOTE = (
    "sandbox: bubblewrap (the kernel saw only the Python environment, the book's package with "
    "its references stubbed, its scratch folder and its notebook's copy; no network; its own "
    "processes)"
)


@functools.cache
def find_sandbox(wanted: str = "bubblewrap") -> Sandbox:
    """The sandbox to grade in; Unavailable when bubblewrap is wanted but cannot run here."""
    if wanted == "none":
        return NO_SANDBOX
    if wanted != "bubblewrap":
        raise ValueError(f"sandbox {wanted!r}: choose one of {', '.join(SANDBOXES)}")
    bwrap = shutil.which("bwrap")
    if not bwrap or not sys.platform.startswith("linux"):
        raise Unavailable(MISSING.format(why="is not installed"))
    probe = subprocess.run(
        [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        lines = probe.stderr.strip().splitlines()
        why = lines[-1] if lines else f"exit {probe.returncode}"
        raise Unavailable(MISSING.format(why=f"cannot start a sandbox here ({why})"))
    return Sandbox(bwrap, BUBBLEWRAP_NOTE)


def links_to(path: Path) -> tuple[list[tuple[str, str]], Path]:
    """The symbolic links on the way to path, as (target, link), and the real path at the end.

    >>> links_to(Path("/"))
    ([], PosixPath('/'))
    """
    links, done, rest = [], Path("/"), list(Path(os.path.abspath(path)).parts[1:])
    while rest:
        candidate = done / rest.pop(0)
        if candidate.is_symlink() and len(links) < 40:
            target = os.readlink(candidate)
            links.append((target, str(candidate)))
            rest = list(Path(target).parts) + rest
            if Path(target).is_absolute():
                done, rest = Path("/"), rest[1:]
        else:
            done = Path(os.path.normpath(candidate))
    return links, done


def elf_interpreter(executable: Path) -> Path | None:
    """The dynamic loader an ELF executable names (its PT_INTERP), or None."""
    data = executable.read_bytes()[:65536]
    if data[:4] != b"\x7fELF" or data[4] != 2:  # 64-bit ELF only
        return None
    order = "little" if data[5] == 1 else "big"
    phoff = int.from_bytes(data[32:40], order)
    size, count = int.from_bytes(data[54:56], order), int.from_bytes(data[56:58], order)
    for k in range(count):
        header = data[phoff + k * size : phoff + (k + 1) * size]
        if int.from_bytes(header[0:4], order) == 3:  # PT_INTERP
            offset, length = (
                int.from_bytes(header[8:16], order),
                int.from_bytes(header[32:40], order),
            )
            return Path(data[offset : offset + length].rstrip(b"\0").decode())
    return None


def system_libraries() -> set[Path]:
    """The folders of the shared libraries a kernel of this Python loads (read in a probe)."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", PROBE], capture_output=True, text=True, check=False
    )
    return {Path(os.path.realpath(line)).parent for line in done.stdout.split()}


def tiktoken_cache() -> Path | None:
    """The folder tiktoken reads its encoding files from, when one is configured."""
    folder = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    return Path(folder).resolve() if folder else None


def _course_copies(folder: Path) -> list[Path]:
    """Packages in a folder of packages that are a copy of this course (not the one grading)."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    return [
        entry.resolve()
        for entry in entries
        if (entry / "grading" / "judge.py").exists() and entry.resolve() != PACKAGE
    ]


@dataclass(frozen=True)
class Environment:
    """The Python environment every graded kernel sees: folders, links to make, masked folders."""

    readable: tuple[str, ...]
    links: tuple[tuple[str, str], ...]
    masked: tuple[str, ...]

    @classmethod
    def from_dict(cls, data: dict) -> Environment:
        """The environment dataclasses.asdict gave (sent to a grading worker as JSON)."""
        links = tuple((target, link) for target, link in data["links"])
        return cls(tuple(data["readable"]), links, tuple(data["masked"]))


@functools.cache
def python_environment() -> Environment:
    """This Python's environment as the kernel sees it (computed once per grader process)."""
    wanted = {Path(sys.executable), Path(sys.prefix), Path(sysconfig.get_paths()["stdlib"])}
    wanted |= {Path(p) for p in sys.path if p and "-packages" in p and Path(p).is_dir()}
    interpreter = elf_interpreter(Path(os.path.realpath(sys.executable)))
    wanted |= {interpreter} if interpreter else set()
    wanted |= system_libraries()
    wanted |= {tiktoken_cache()} if tiktoken_cache() else set()
    links, readable = [], set()
    for path in wanted:
        found, real = links_to(path)
        links += [link for link in found if link not in links]
        readable.add(real)
    readable = {p for p in readable if not any(p != q and p.is_relative_to(q) for q in readable)}
    # A link inside a folder mounted whole is there already.
    links = [
        (t, link) for t, link in links if not any(Path(link).is_relative_to(q) for q in readable)
    ]
    on_path = {Path(os.path.realpath(p)) for p in sys.path if p}
    masked = set()
    for folder in readable:
        for packages in [
            *folder.glob("lib*/python3*/site-packages"),
            *folder.glob("python3*/site-packages"),
        ]:
            if packages.resolve() not in on_path:
                masked.add(packages.resolve())
    for path in on_path:
        if any(path.is_relative_to(q) for q in readable):
            masked.update(_course_copies(path))
    return Environment(
        tuple(sorted(map(str, readable))), tuple(links), tuple(sorted(map(str, masked)))
    )


@dataclass(frozen=True)
class View:
    """What one graded kernel sees: the environment, its scratch folder, the restricted package,
    the notebook's copy (its name in the scratch folder)."""

    environment: Environment
    scratch: Path
    lib: Path
    notebook: str = ""

    def guard_config(self, sandbox: Sandbox) -> dict:
        """The guard's path prefixes: readable, writable, hidden (even inside a readable one),
        noted (the stubs, whose reading the report names)."""
        readable = [*self.environment.readable, str(self.lib), "/dev/urandom"]
        # Inside bubblewrap the restricted copy is mounted over the package; without, it is real.
        package = [str(PACKAGE)]
        return {
            "readable": readable + (package if sandbox.isolated else []),
            "writable": [str(self.scratch)],
            "hidden": [
                *self.environment.masked,
                str(self.scratch / KERNEL_FOLDER),
                *([] if sandbox.isolated else package),
            ],
            "noted": [
                str(root / part)
                for root in (self.lib / "book", PACKAGE)
                for part in ("checks", "grading")
            ],
        }

    def bwrap_args(self, sandbox: Sandbox, scratch_mb: int = Limits.scratch_mb) -> list[str]:
        """bubblewrap's arguments: an empty root, then only what the kernel may see; the scratch
        folder a tmpfs of scratch_mb with the notebook's copy and the sockets' folder in it."""
        args = [sandbox.bwrap, "--unshare-all", "--die-with-parent", "--new-session"]
        args += ["--dev", "/dev", "--proc", "/proc"]
        for target, link in self.environment.links:
            args += ["--symlink", target, link]
        for path in sorted(self.environment.readable, key=lambda p: len(Path(p).parts)):
            args += ["--ro-bind", path, path]
        for path in self.environment.masked:
            args += ["--tmpfs", path]
        args += ["--ro-bind", str(self.lib), str(self.lib)]
        args += ["--ro-bind", str(self.lib / "book"), str(PACKAGE)]
        scratch, sockets = str(self.scratch), str(self.scratch / KERNEL_FOLDER)
        args += ["--size", str(scratch_mb * 2**20), "--tmpfs", scratch, "--dir", f"{scratch}/tmp"]
        args += ["--bind", sockets, sockets]
        if self.notebook:
            copy = str(self.scratch / self.notebook)
            args += ["--ro-bind", copy, copy]
        return [*args, "--chdir", scratch]


def kernel_env(scratch: Path, lib: Path, hash_seed: int, parent: int) -> dict[str, str]:
    """The kernel's whole environment: what Python and Jupyter need, everything in scratch."""
    env = {
        "HOME": str(scratch),
        "TMPDIR": str(scratch / "tmp"),
        "IPYTHONDIR": str(scratch / ".ipython"),
        "MPLCONFIGDIR": str(scratch / ".matplotlib"),
        "XDG_CACHE_HOME": str(scratch / ".cache"),
        "JUPYTER_RUNTIME_DIR": str(scratch / KERNEL_FOLDER),
        "PATH": str(Path(sys.executable).parent),
        "LANG": "C.UTF-8",
        "MPLBACKEND": "agg",
        "PYTHONPATH": str(lib),
        "PYTHONHASHSEED": str(hash_seed),
        "PYTHONDONTWRITEBYTECODE": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "RAYON_NUM_THREADS": "1",
        "JPY_PARENT_PID": str(parent),
    }
    if tiktoken_cache():
        env["TIKTOKEN_CACHE_DIR"] = str(tiktoken_cache())
    return env


def kernel_command(
    sandbox: Sandbox, limits: Limits, view: View, hash_seed: int
) -> tuple[list[str], dict[str, str]]:
    """The command that starts the graded kernel ({connection_file} is filled in by Jupyter) and
    the environment for its spec (empty: the launcher replaces the whole environment)."""
    # In bubblewrap's process namespace the grader is not visible: poll nothing (pid 1).
    env = kernel_env(view.scratch, view.lib, hash_seed, 1 if sandbox.isolated else os.getpid())
    # -E: the launcher itself must import the real package, not the restricted one on PYTHONPATH
    launch = [sys.executable, "-E", "-m", "book.grading.launch"]
    launch += ["--memory-mb", str(limits.memory_mb)]
    launch += ["--cpu-seconds", str(int(limits.total_seconds) + 5)]
    launch += ["--file-mb", str(limits.file_mb)]
    launch += [item for name, value in env.items() for item in ("--env", f"{name}={value}")]
    inner = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    if sandbox.isolated:
        return [*launch, "--", *view.bwrap_args(sandbox, limits.scratch_mb), *inner], {}
    return [*launch, "--", *inner], {}
