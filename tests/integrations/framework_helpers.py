"""Helpers of the framework integration tests: deliveries, real server processes, real Redis.

A module of its own (not the conftest) so that test modules can import it by a unique name.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SECRET = "integration-secret"
DOC = "52998224725"

# The real-server helpers of the store tests (redis-server on loopback, stopped by PID).
sys.path.insert(0, str(ROOT / "tests" / "webhooks"))
from servers import RedisServer, ServerUnavailable, require_server  # noqa: E402

__all__ = [
    "DOC",
    "EXAMPLES",
    "SECRET",
    "RedisServer",
    "ServerUnavailable",
    "delivery",
    "free_port",
    "require_server",
    "serve_process",
    "wait_for",
]


def delivery(event_id: str, *, tipo: str = "pagamento.aprovado", valor: int = 15990) -> bytes:
    """The body of one webhook delivery."""
    return json.dumps(
        {
            "id": event_id,
            "tipo": tipo,
            "criadoEm": "2026-05-04T13:45:12-03:00",
            "dados": {
                "referencia": "3f2b8c1e-9a4d-4f6b-8e2a-1c5d7e9f0a1b",
                "documentoCliente": DOC,
                "status": "aprovado",
                "valorCentavos": valor,
            },
        }
    ).encode()


def wait_for(condition: Callable[[], bool], timeout: float = 15.0) -> None:
    """Poll until ``condition()`` is true (bounded)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)


def free_port() -> int:
    """An unused TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _accepting(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def serve_process(
    args: Sequence[str],
    *,
    port: int,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    log: Path,
) -> Iterator[str]:
    """Run a server process until it accepts on ``port``; yield its base URL; stop it by PID.

    Raises:
        AssertionError: The process exited or did not listen within 30 s (its log is shown).
    """
    environment = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, *args],
            cwd=cwd,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + 30
        while not _accepting(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"server did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=15)
