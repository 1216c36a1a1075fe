"""A receiver killed (SIGKILL) after storing an event and before answering loses nothing."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from smartpos.webhooks import Event, EventState, SQLiteStore, Worker

pytestmark = pytest.mark.slow

# The server under test: the receiver's ASGI app under uvicorn, on a real SQLite file. With
# SMARTPOS_TEST_KILL_AFTER_PUT=1 its store kills the whole process right after the commit that
# stored the event returned, so the delivery is durable but never answered.
SERVER = """
import os, signal, sys
import uvicorn
from smartpos.webhooks import SQLiteStore, WebhookReceiver

class KillAfterPut(SQLiteStore):
    def put_many(self, events):
        results = super().put_many(events)
        if os.environ.get("SMARTPOS_TEST_KILL_AFTER_PUT") == "1":
            os.kill(os.getpid(), signal.SIGKILL)
        return results

path, port = sys.argv[1], int(sys.argv[2])
app = WebhookReceiver(KillAfterPut(path)).asgi_app()
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws="none", http="h11")
"""

StartServer = Callable[..., tuple["subprocess.Popen[bytes]", str]]

BODY = (
    b'{"id": "evt-kill-1", "tipo": "pagamento.aprovado", "criadoEm": "2026-05-04T13:45:12Z",'
    b' "dados": {"referencia": "r-1", "documentoCliente": "52998224725", "status": "aprovado"}}'
)


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    """Wait (bounded) until the server accepts connections."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the server died while starting"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        except OSError:
            time.sleep(0.05)
        else:
            return
    raise AssertionError("the server did not start")


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[StartServer]:
    """Starts receiver processes on one inbox file; stops the survivors by their PID."""
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    procs: list[subprocess.Popen[bytes]] = []

    def start(*, kill_after_put: bool) -> tuple[subprocess.Popen[bytes], str]:
        port = free_port()
        env = {**os.environ, "SMARTPOS_TEST_KILL_AFTER_PUT": "1" if kill_after_put else "0"}
        proc = subprocess.Popen(
            [sys.executable, str(script), str(tmp_path / "inbox.db"), str(port)], env=env
        )
        procs.append(proc)
        wait_listening(port, proc)
        return proc, f"http://127.0.0.1:{port}/"

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=10)


def test_killed_after_put_then_redelivered_is_duplicate_and_processed_once(
    tmp_path: Path, start_server: StartServer
) -> None:
    """Killed after put, before answering: the redelivery is DUPLICATE and processed once."""
    start = start_server
    doomed, url = start(kill_after_put=True)
    with httpx.Client(timeout=10) as http, pytest.raises(httpx.TransportError):
        http.post(url, content=BODY)  # the service sees no answer...
    assert doomed.wait(timeout=10) == -signal.SIGKILL

    _, url = start(kill_after_put=False)
    with httpx.Client(timeout=10) as http:
        redelivery = http.post(url, content=BODY)  # ...so it delivers again
    assert redelivery.status_code == 200
    assert redelivery.json() == {"recebido": True, "duplicado": True}

    handled: list[str] = []

    def handler(event: Event) -> None:
        handled.append(event.id)

    with SQLiteStore(tmp_path / "inbox.db") as store:
        worker = Worker(store, handler)
        assert worker.run_once() == 1
        assert worker.run_once() == 0
        stored = store.get("evt-kill-1")
        assert stored is not None
        assert (stored.state, stored.attempts) == (EventState.DONE, 1)
    assert handled == ["evt-kill-1"]
