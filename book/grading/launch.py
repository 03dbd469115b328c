"""Start a command with resource limits and a clean environment:
``python -m book.grading.launch LIMITS --env NAME=VALUE ... -- COMMAND...``.

The judge starts the graded kernel through this (and, inside it, through bubblewrap), because
the kernel manager that starts kernels offers no hook to set limits. The limits are inherited
by everything the kernel starts: address space (memory), CPU seconds, the size of any file it
writes, and no core files. The command gets exactly the ``--env`` variables, nothing of the
grader's environment.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys

MB = 1024 * 1024


def set_limits(memory_mb: int, cpu_seconds: int, file_mb: int) -> None:
    """Apply the limits to this process (0 leaves a limit as it is)."""
    for limit, value in [
        (resource.RLIMIT_AS, memory_mb * MB),
        (resource.RLIMIT_CPU, cpu_seconds),
        (resource.RLIMIT_FSIZE, file_mb * MB),
        (resource.RLIMIT_CORE, 0),
    ]:
        if value or limit == resource.RLIMIT_CORE:
            resource.setrlimit(limit, (value, value))


def environment(pairs: list[str]) -> dict[str, str]:
    """NAME=VALUE pairs as a dict.

    >>> environment(["HOME=/scratch", "A=b=c"])
    {'HOME': '/scratch', 'A': 'b=c'}
    """
    env = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not name or not equals:
            raise ValueError(f"--env {pair!r}: give NAME=VALUE")
        env[name] = value
    return env


def main(argv: list[str] | None = None) -> None:
    """Parse the limits, apply them and replace this process by the command."""
    parser = argparse.ArgumentParser(
        prog="python -m book.grading.launch", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--memory-mb", type=int, default=0, help="address space limit (0: none)")
    parser.add_argument("--cpu-seconds", type=int, default=0, help="CPU time limit (0: none)")
    parser.add_argument(
        "--file-mb", type=int, default=0, help="largest file the command may write (0: none)"
    )
    parser.add_argument(
        "--env", action="append", default=[], metavar="NAME=VALUE", help="the command's variables"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    try:
        env = environment(args.env)
    except ValueError as error:
        parser.error(str(error))
    set_limits(args.memory_mb, args.cpu_seconds, args.file_mb)
    os.execve(command[0], command, env)


if __name__ == "__main__":
    main(sys.argv[1:])
