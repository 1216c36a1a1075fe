"""Run the ``smartpos`` command in this process, or as a subprocess in the foreground or background.

:func:`invoke` calls ``smartpos.cli.main(argv)`` with its own stdin, stdout and stderr: fast,
and what most tests need; :func:`run_cli` does the same with a given environment and working
directory, as a subprocess would get them. :func:`run_subprocess` and :class:`Background` start
real processes, for the few smoke tests of the installed entry point, of signals, and of
servers that run until stopped. Every process is started with ``python -m smartpos`` (or another
module) and a bounded timeout, and is stopped through the PID it was started with (SIGTERM,
then SIGKILL if it does not stop in time).
"""

from __future__ import annotations

import contextlib
import io
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

__all__ = [
    "REPO",
    "TIMEOUT",
    "URL",
    "Background",
    "Invoked",
    "Starter",
    "cli_env",
    "invoke",
    "run_cli",
    "run_subprocess",
]

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 60.0
"""Longest any foreground command may take."""
URL = re.compile(r"https?://127\.0\.0\.1:\d+/?")


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for a subprocess: no SMARTPOS_* or colour settings unless given."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SMARTPOS_") and k not in ("NO_COLOR", "FORCE_COLOR")
    }
    env["PYTHONIOENCODING"] = "utf-8"
    env.update(extra)
    return env


@contextlib.contextmanager
def environment(env: Mapping[str, str], cwd: Path | None) -> Iterator[None]:
    """Replace the whole environment (and the working directory) while the block runs."""
    saved, here = dict(os.environ), Path.cwd()
    os.environ.clear()
    os.environ.update(env)
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        os.chdir(here)


def run_cli(
    *args: str,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    timeout: float = TIMEOUT,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``smartpos ARGS`` in this process, with ``env`` (default :func:`cli_env`) and ``cwd``.

    The same call as :func:`run_subprocess`, without a process: ``timeout`` is not enforced.
    """
    with environment(dict(env) if env is not None else cli_env(), cwd):
        result = invoke(*args, stdin=input or b"")
    return subprocess.CompletedProcess(
        ["smartpos", *args], result.returncode, result.stdout, result.stderr
    )


def run_subprocess(
    *args: str,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    timeout: float = TIMEOUT,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m smartpos ARGS`` to completion and return its output as text."""
    completed = subprocess.run(
        [sys.executable, "-m", "smartpos", *args],
        env=dict(env) if env is not None else cli_env(),
        input=input,
        capture_output=True,
        timeout=timeout,
        cwd=cwd,
        check=False,
    )
    return subprocess.CompletedProcess(
        completed.args,
        completed.returncode,
        completed.stdout.decode("utf-8", "replace"),
        completed.stderr.decode("utf-8", "replace"),
    )


class Invoked:
    """What an in-process run of the command did: its exit status and its output as text."""

    def __init__(self, returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.returncode = returncode
        self.stdout_bytes = stdout
        self.stdout = stdout.decode("utf-8", "replace")
        self.stderr = stderr.decode("utf-8", "replace")

    def __repr__(self) -> str:
        return f"Invoked({self.returncode}, stdout={self.stdout!r}, stderr={self.stderr!r})"


def invoke(*args: str, stdin: bytes = b"") -> Invoked:
    """Run ``smartpos ARGS`` through ``smartpos.cli.main`` in this process.

    stdin, stdout and stderr are replaced for the call (byte streams underneath, like a pipe:
    not a terminal, so no colour). The environment and the current directory are the test's
    (set them with ``monkeypatch``).
    """
    from smartpos.cli import main

    out, err = io.BytesIO(), io.BytesIO()
    # Held here until the values are read: a wrapper that is collected closes its buffer.
    wrappers = (
        io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", write_through=True),
    )
    streams = (sys.stdin, sys.stdout, sys.stderr)
    sys.stdin, sys.stdout, sys.stderr = wrappers
    try:
        code = main(list(args))
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
    result = Invoked(code, out.getvalue(), err.getvalue())
    for wrapper in wrappers:
        wrapper.detach()
    return result


class Background:
    """A ``smartpos`` command running in the background, its output read line by line."""

    def __init__(
        self,
        args: Sequence[str],
        env: Mapping[str, str],
        cwd: Path | None,
        module: str = "smartpos",
    ) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            env=dict(env),
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.stderr = ""

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, pattern: str, timeout: float = 20.0) -> re.Match[str]:
        """Read output lines until one matches ``pattern``; fail after ``timeout`` seconds."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(
                    f"no line matching {pattern!r} within {timeout}s; output so far:\n"
                    + "\n".join(self.lines)
                )
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                self.stop()
                raise AssertionError(
                    f"the process ended (status {self.process.returncode}) before a line "
                    f"matching {pattern!r}; output:\n" + "\n".join(self.lines) + self.stderr
                )
            self.lines.append(line)
            match = regex.search(line)
            if match:
                return match

    def stop(self, timeout: float = 10.0) -> int:
        """Send SIGTERM to our PID, collect the rest of the output, return the exit status."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout)
        self._reader.join(timeout)
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                break
            if line is not None:
                self.lines.append(line)
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()
        self.process.stdout.close()  # type: ignore[union-attr]
        self.process.stderr.close()
        return self.process.returncode

    @property
    def output(self) -> str:
        """Every stdout line read so far."""
        return "\n".join(self.lines)


class Starter:
    """Starts background commands and remembers them, so that each one is stopped."""

    def __init__(self) -> None:
        self.started: list[Background] = []

    def __call__(
        self,
        *args: str,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        module: str = "smartpos",
    ) -> Background:
        """Start ``python -m smartpos ARGS`` (or another module) in the background."""
        proc = Background(args, env if env is not None else cli_env(), cwd, module)
        self.started.append(proc)
        return proc
