"""The first cell the judge runs in the learner's kernel: an audit hook that says no, and says why.

It runs before the learner's first cell (standard library only, like the harness). Python
audit hooks cannot be removed once added, so for the rest of the kernel's life:

- starting a process (subprocess, os.system, fork, exec, spawn) raises PermissionError;
- opening a network connection raises PermissionError;
- opening a file under a forbidden folder (the repository with the solutions and the checks,
  the other submissions, the grader's output) raises PermissionError, and so does writing
  anywhere but the scratch folder.

Each refusal is also recorded in the grading log that the harness hands to the judge, so the
report can name it even when the learner's code catches the error. This is a second line:
bubblewrap, where available, enforces the file system and the network from outside the
process; the hook is what still holds, less firmly, where it is not.
"""

import os
import sys

PROCESS_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.fork",
        "os.forkpty",
        "os.posix_spawn",
        "os.spawn",
        "os.exec",
        "pty.spawn",
        "os.startfile",
    }
)
NETWORK_EVENTS = frozenset(
    {"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo"}
)
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def install(config, log):
    """Add the audit hook; config: 'forbidden', 'allowed' (read), 'writable', 'noted' prefixes.

    A file under 'noted' (the stubs of the checks and of the grader) may be read, since it holds
    nothing, but the read is logged: only a learner looking for the checks' source reads it.
    """
    forbidden = tuple(config["forbidden"])
    noted = tuple(config.get("noted", ()))
    allowed = tuple(config["allowed"])
    writable = tuple(config["writable"]) + ("/dev/null",)
    busy = []

    def inside(path, prefixes):
        return any(
            path == prefix or path.startswith(prefix.rstrip(os.sep) + os.sep) for prefix in prefixes
        )

    def refuse(what, why=""):
        log.append(f"{what}: refused{why}")
        raise PermissionError(f"{what}: not allowed while grading{why}")

    def by_import_system():
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename == "<grader>":
            frame = frame.f_back
        return frame is not None and frame.f_code.co_filename.startswith("<frozen importlib")

    def check_open(path, mode, flags):
        if isinstance(path, int) or path is None:
            return
        path = os.path.realpath(os.fsdecode(path))
        writing = any(ch in (mode or "") for ch in "wax+") or bool((flags or 0) & WRITE_FLAGS)
        if writing and not inside(path, writable):
            refuse(f"writing {path}")
        if inside(path, forbidden) and not inside(path, allowed):
            refuse(f"reading {path}", " (the book's solutions, checks and other files are hidden)")
        if inside(path, noted) and not by_import_system():
            log.append(f"reading {path} (while grading, the checks and the grader are stubs)")

    def hook(event, args):
        if busy or not (event == "open" or event in PROCESS_EVENTS or event in NETWORK_EVENTS):
            return
        busy.append(1)  # the hook's own calls (realpath) must not re-enter it
        try:
            if event == "open":
                check_open(*args[:3])
            elif event in PROCESS_EVENTS:
                refuse(f"starting a process ({event})")
            else:
                refuse(f"a network connection ({event})")
        finally:
            busy.pop()

    sys.addaudithook(hook)
