"""The example receivers under real servers on 127.0.0.1, with real HTTP deliveries."""

from __future__ import annotations

import importlib.util
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import uvicorn
from werkzeug.serving import WSGIRequestHandler, make_server

from smartpos.webhooks import Event, EventState, SQLiteStore, Worker

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SECRET = "example-secret"
DOC = "52998224725"


def load_example(name: str) -> ModuleType:
    """Import examples/<name>.py as a module."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def delivery(event_id: str) -> bytes:
    """The body of a pagamento.aprovado delivery."""
    return json.dumps(
        {
            "id": event_id,
            "tipo": "pagamento.aprovado",
            "criadoEm": "2026-05-04T13:45:12-03:00",
            "dados": {
                "referencia": "3f2b8c1e-9a4d-4f6b-8e2a-1c5d7e9f0a1b",
                "documentoCliente": DOC,
                "status": "aprovado",
                "valorCentavos": 15990,
            },
        }
    ).encode()


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll until ``condition()`` is true (bounded)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)


@pytest.fixture
def uvicorn_server() -> Iterator[Callable[[Any], str]]:
    """Serve an ASGI app with uvicorn in a thread on 127.0.0.1; yields a starter -> base URL."""
    servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(app: Any) -> str:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        config = uvicorn.Config(app, lifespan="on", log_level="warning", ws="none", http="h11")
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]})
        thread.start()
        servers.append((server, thread))
        wait_for(lambda: server.started or not thread.is_alive())
        assert server.started
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=15)
        assert not thread.is_alive()


class QuietHandler(WSGIRequestHandler):
    """werkzeug's request handler without access logs on stderr."""

    def log(self, type: str, message: str, *args: Any) -> None:
        pass


def test_starlette_example(tmp_path: Path, uvicorn_server: Callable[[Any], str]) -> None:
    """Starlette under uvicorn: 200 new, 200 duplicate, 400 bad, 401 forged; processed once."""
    example = load_example("webhook_starlette")
    handled: list[str] = []
    db = tmp_path / "inbox.db"

    def handler(event: Event) -> None:
        handled.append(event.id)

    base = uvicorn_server(example.create_app(str(db), handler=handler, secret=SECRET))
    url = f"{base}/webhooks/smartpos"
    auth = {"x-webhook-secret": SECRET, "content-type": "application/json"}
    with httpx.Client(timeout=10) as http:
        first = http.post(url, content=delivery("evt-star-1"), headers=auth)
        again = http.post(url, content=delivery("evt-star-1"), headers=auth)
        bad = http.post(url, content=b'{"id": 1}', headers=auth)
        forged = http.post(url, content=delivery("evt-star-2"), headers={"x-webhook-secret": "x"})
        wrong_method = http.get(url)
    assert (first.status_code, first.json()) == (200, {"recebido": True, "duplicado": False})
    assert (again.status_code, again.json()["duplicado"]) == (200, True)
    assert bad.status_code == 400
    assert bad.json()["erro"]["codigo"] == "EVENTO_INVALIDO"
    assert forged.status_code == 401
    assert wrong_method.status_code == 405
    wait_for(lambda: handled == ["evt-star-1"])
    time.sleep(0.5)  # several worker polls: nothing is handled twice
    assert handled == ["evt-star-1"]
    with SQLiteStore(db) as store:
        stored = store.get("evt-star-1")
        assert stored is not None
        assert stored.state is EventState.DONE
        assert store.get("evt-star-2") is None


def test_flask_example(tmp_path: Path) -> None:
    """Flask under werkzeug: 200 new, 200 duplicate, 400 bad, 413 huge; processed once."""
    example = load_example("webhook_flask")
    db = tmp_path / "inbox.db"
    app = example.create_app(str(db), secret=SECRET)
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/webhooks/smartpos"
        auth = {"X-Webhook-Secret": SECRET}
        with httpx.Client(timeout=10) as http:
            first = http.post(url, content=delivery("evt-flask-1"), headers=auth)
            again = http.post(url, content=delivery("evt-flask-1"), headers=auth)
            bad = http.post(url, content=b"not json", headers=auth)
            huge = http.post(url, content=b"x" * (300 * 1024), headers=auth)
            forged = http.post(url, content=delivery("evt-flask-2"))
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
        app.extensions["smartpos_store"].close()
    assert (first.status_code, first.json()) == (200, {"recebido": True, "duplicado": False})
    assert first.headers["content-type"] == "application/json"
    assert (again.status_code, again.json()["duplicado"]) == (200, True)
    assert bad.status_code == 400
    assert huge.status_code == 413
    assert forged.status_code == 401
    handled: list[str] = []
    with SQLiteStore(db) as store:
        worker = Worker(store, lambda event: handled.append(event.id))
        assert worker.run_once() == 1
        assert worker.run_once() == 0
        stored = store.get("evt-flask-1")
        assert stored is not None
        assert stored.state is EventState.DONE
    assert handled == ["evt-flask-1"]
