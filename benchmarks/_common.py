"""Shared helpers of the benchmark scripts: a local server process, CPU blocks, reporting.

Every figure is a ratio against a baseline measured in the same run (see
../shared/BENCHMARKING.md): machines are shared and noisy, absolute numbers are not.
"""

from __future__ import annotations

import contextlib
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["HERE", "free_port", "median", "report", "server_process", "wait_port"]

HERE = Path(__file__).resolve().parent


def free_port() -> int:
    """Return a free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, timeout: float = 20.0) -> None:
    """Wait until something listens on 127.0.0.1:port (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


@contextlib.contextmanager
def server_process(module: str, *args: str) -> Iterator[int]:
    """Run ``python benchmarks/<module>.py PORT *args`` and yield the port; stop it by PID."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(HERE / f"{module}.py"), str(port), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(HERE)},
    )
    try:
        try:
            wait_port(port)
        except RuntimeError:
            proc.kill()
            _, err = proc.communicate(timeout=5)
            raise RuntimeError(f"{module} did not start: {err.decode(errors='replace')}") from None
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        if proc.stderr is not None:
            proc.stderr.close()


def median(values: list[float]) -> float:
    """Median of a non-empty list."""
    return statistics.median(values)


def report(name: str, value: float, unit: str = "x", goal: str = "") -> None:
    """Print one figure as a line: name, value, goal."""
    suffix = f"   (goal: {goal})" if goal else ""
    print(f"  {name:<58} {value:8.3f}{unit}{suffix}", flush=True)
