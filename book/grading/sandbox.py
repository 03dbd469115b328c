"""Where and how the graded kernel runs: bubblewrap when it works here, resource limits always.

With bubblewrap (Debian's ``bubblewrap``; ``make test`` installs it) the kernel sees the whole
file system read-only, with the repository, the home folder, /tmp and the folders of the
submissions and of the grader's output hidden behind empty folders; only the Python it runs
on, the restricted copy of the book package (mounted where the package lives) and the scratch
folder (writable) are there. It has no network (its own network namespace), its own process
namespace (nothing it starts outlives it) and dies with the grader. Without bubblewrap the
kernel still gets the limits, the restricted package and the audit hook of ``guard``; the
report says which of the two it was.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from book.grading.stubs import PACKAGE
from book.notebooks import ROOT


@dataclass(frozen=True)
class Limits:
    """Time per cell and per notebook (seconds), memory (MB of address space), file size (MB)."""

    cell_seconds: float = 30
    total_seconds: float = 600
    memory_mb: int = 4096
    file_mb: int = 256


@dataclass(frozen=True)
class Sandbox:
    """How a kernel is isolated: bwrap's path ('' when unavailable) and what the report says."""

    bwrap: str
    note: str

    @property
    def isolated(self) -> bool:
        """True when the kernel runs inside bubblewrap."""
        return bool(self.bwrap)


NO_SANDBOX = Sandbox(
    "",
    "sandbox: none (--sandbox none); graded with time and memory limits and an "
    "audit hook, but the file system and the network are not isolated",
)


@functools.cache
def find_sandbox(wanted: str = "auto") -> Sandbox:
    """bubblewrap if it is installed and can start a sandbox here (and wanted), else why not."""
    if wanted == "none":
        return NO_SANDBOX
    bwrap = shutil.which("bwrap")
    if not bwrap or not sys.platform.startswith("linux"):
        return Sandbox(
            "",
            "sandbox unavailable: bubblewrap (bwrap) is not installed (Debian: apt-get "
            "install bubblewrap); graded with time and memory limits and an audit hook, "
            "but the file system and the network are not isolated",
        )
    probe = subprocess.run(
        [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        why = (
            probe.stderr.strip().splitlines()[-1]
            if probe.stderr.strip()
            else f"exit {probe.returncode}"
        )
        return Sandbox(
            "",
            f"sandbox unavailable: bubblewrap cannot start here ({why}); graded with time "
            "and memory limits and an audit hook, but the file system and the network "
            "are not isolated",
        )
    return Sandbox(
        bwrap, "sandbox: bubblewrap (read-only file system, no network, own process namespace)"
    )


def tiktoken_cache() -> Path | None:
    """The folder tiktoken reads its encoding files from, when one is configured."""
    folder = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    return Path(folder).resolve() if folder else None


def kept_paths() -> list[Path]:
    """What the kernel must read even inside a hidden folder: its Python, tiktoken's files."""
    paths = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    paths |= {
        Path(p).resolve() for p in sys.path if p and Path(p).is_dir() and "site-packages" in p
    }
    if tiktoken_cache():
        paths.add(tiktoken_cache())
    return sorted(path for path in paths if path.exists())


def hidden_paths(extra: list[Path]) -> list[Path]:
    """Folders the kernel must not see: the repository, home, temporary files, and extra."""
    home = Path.home().resolve()
    paths = {ROOT, home, Path("/tmp"), Path("/var/tmp"), *(path.resolve() for path in extra)}
    return sorted(
        (path for path in paths if path.is_dir() and path != Path("/")), key=lambda p: len(p.parts)
    )


def guard_config(sandbox: Sandbox, scratch: Path, lib: Path, hidden: list[Path]) -> dict:
    """The guard's path prefixes: forbidden to read, allowed anyway, writable, noted."""
    allowed = [str(path) for path in kept_paths()] + [str(lib), str(scratch)]
    if sandbox.isolated:
        allowed.append(str(PACKAGE))  # there, the restricted copy is mounted over the package
    stubs = [
        lib / "book" / "checks",
        lib / "book" / "grading",
        PACKAGE / "checks",
        PACKAGE / "grading",
    ]
    return {
        "forbidden": [str(path) for path in hidden] + [str(PACKAGE)],
        "allowed": allowed,
        "writable": [str(scratch)],
        "noted": [str(path) for path in stubs],
    }


def kernel_env(scratch: Path, lib: Path) -> dict[str, str]:
    """Environment of the kernel: everything it writes goes to the scratch folder."""
    return {
        "HOME": str(scratch),
        "TMPDIR": str(scratch / "tmp"),
        "IPYTHONDIR": str(scratch / ".ipython"),
        "MPLCONFIGDIR": str(scratch / ".matplotlib"),
        "XDG_CACHE_HOME": str(scratch / ".cache"),
        "JUPYTER_RUNTIME_DIR": str(scratch / ".kernel"),
        "PYTHONPATH": str(lib),
        "PYTHONDONTWRITEBYTECODE": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "RAYON_NUM_THREADS": "1",
    }


def bwrap_args(sandbox: Sandbox, scratch: Path, lib: Path, hidden: list[Path]) -> list[str]:
    """bubblewrap's arguments: read-only root, hidden folders, the restricted package, scratch."""
    args = [
        sandbox.bwrap,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ]
    for path in hidden:
        args += ["--tmpfs", str(path)]
    for path in kept_paths():
        if any(path.is_relative_to(h) for h in hidden):
            args += ["--ro-bind", str(path), str(path)]
    args += [
        "--ro-bind",
        str(lib / "book"),
        str(PACKAGE),
        "--ro-bind",
        str(lib),
        str(lib),
        "--bind",
        str(scratch),
        str(scratch),
        "--chdir",
        str(scratch),
    ]
    for name, value in kernel_env(scratch, lib).items():
        args += ["--setenv", name, value]
    return args + ["--setenv", "JPY_PARENT_PID", "1"]  # no parent polling across the pid namespace


def kernel_command(
    sandbox: Sandbox, limits: Limits, scratch: Path, lib: Path, hidden: list[Path]
) -> tuple[list[str], dict[str, str]]:
    """The command that starts the graded kernel ({connection_file} is filled in by Jupyter) and
    the environment to add to it (inside bubblewrap, the command sets its own)."""
    # -E: the launcher itself must import the real package, not the restricted one on PYTHONPATH
    launch = [
        sys.executable,
        "-E",
        "-m",
        "book.grading.launch",
        "--memory-mb",
        str(limits.memory_mb),
        "--cpu-seconds",
        str(int(limits.total_seconds) + 5),
        "--file-mb",
        str(limits.file_mb),
        "--",
    ]
    inner = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    if sandbox.isolated:
        return launch + bwrap_args(sandbox, scratch, lib, hidden) + inner, {}
    return launch + inner, kernel_env(scratch, lib)
