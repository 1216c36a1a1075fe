"""Both clients against a real HTTP server on 127.0.0.1: real sockets, real timeouts, real drops.

The server is the standard library's ``ThreadingHTTPServer`` on an ephemeral port, answering
from a script per path (respond, drop the connection after reading the request, or wait before
answering). It records every request it read, so retries can be checked byte for byte.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs
import pytest

import smartpos
from client_cases import ACCEPTANCE_JSON, API_KEY, CPF, QR_JSON, REF, SDK

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

PAYMENT = {
    "documento_cliente": CPF,
    "valor_centavos": 1590,
    "smartpos_id": "SP-1",
    "referencia": REF,
}


@attrs.frozen
class Action:
    """What the server does with one request."""

    kind: str  # "respond", "drop" or "stall"
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = attrs.field(factory=dict)
    seconds: float = 0.0


def respond(status: int, body: Any = b"", headers: dict[str, str] | None = None) -> Action:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    extra = {"content-type": "application/json"} if not isinstance(body, bytes) else {}
    return Action("respond", status, data, {**extra, **(headers or {})})


def drop() -> Action:
    """Read the request, then close the connection without answering."""
    return Action("drop")


def stall(seconds: float, then: Action) -> Action:
    """Wait (interruptibly) before answering as ``then``."""
    return attrs.evolve(then, kind="stall", seconds=seconds)


@attrs.frozen
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # TCP_NODELAY
    timeout = 5  # an idle keep-alive connection never outlives a test by much
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        owner = self.server.owner
        action = owner.next_action(
            Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        )
        if action.kind == "drop":
            self.close_connection = True
            return
        if action.kind == "stall" and owner.stopping.wait(action.seconds):
            self.close_connection = True
            return
        self.send_response(action.status)
        for name, value in action.headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(action.body)))
        self.end_headers()
        self.wfile.write(action.body)


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close() joins the handler threads
    owner: ScriptedServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out has closed its end: writing the late answer may fail.
        pass


class ScriptedServer:
    """A real HTTP server on 127.0.0.1 answering each path from its script."""

    def __init__(self) -> None:
        self.scripts: dict[str, deque[Action]] = {}
        self.received: list[Received] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, path: str, *actions: Action) -> None:
        self.scripts.setdefault(path, deque()).extend(actions)

    def next_action(self, received: Received) -> Action:
        with self._lock:
            self.received.append(received)
            queue = self.scripts.get(received.path.split("?")[0])
            if not queue:
                return respond(599, {"unscripted": received.path})
            return queue.popleft()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    scripted = ScriptedServer()
    scripted.start()
    try:
        yield scripted
    finally:
        scripted.stop()


@pytest.fixture
def connect(server: ScriptedServer, make_sdk: Callable[..., SDK]) -> Callable[..., SDK]:
    """Clients of the current flavour bound to the server (closed before the server stops)."""

    def make(**options: Any) -> SDK:
        return make_sdk(base_url=server.base_url, **options)

    return make


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_payment_success(server: ScriptedServer, connect: Callable[..., SDK]) -> None:
    """A payment reaches the server with the spec's headers and body, and the answer is typed."""
    server.script("/v1/payments", respond(202, ACCEPTANCE_JSON, {"x-request-id": "srv-1"}))

    result = await connect().call("payments", "create", **PAYMENT)

    (received,) = server.received
    assert ("POST", "/v1/payments") == (received.method, received.path)
    assert (API_KEY, "application/json") == (
        received.headers["x-api-key"],
        received.headers["content-type"],
    )
    assert {
        "referencia": REF,
        "documentoCliente": CPF,
        "valorCentavos": 1590,
        "modoExecucao": "imediato",
        "smartposId": "SP-1",
    } == json.loads(received.body)
    assert isinstance(result, smartpos.Acceptance)
    assert (REF, "srv-1", 202) == (
        result.referencia,
        result.http.request_id,
        result.http.status_code,
    )


async def test_qrcode_and_listing_success(
    server: ScriptedServer, connect: Callable[..., SDK]
) -> None:
    """A QR code and a terminal listing over one keep-alive client."""
    server.script("/qrcode", respond(201, QR_JSON))
    server.script(
        f"/v1/customers/{CPF}/smartpos", respond(200, {"smartpos": [{"smartposId": "SP-1"}]})
    )
    sdk = connect()

    qr = await sdk.call("qrcodes", "create", documento_cliente=CPF, referencia=REF)
    terminals = await sdk.call("terminals", "list", documento_cliente=CPF)

    assert (QR_JSON["qrCode"], ["SP-1"]) == (qr.qr_code, [t.smartpos_id for t in terminals])
    assert [("POST", "/qrcode"), ("GET", f"/v1/customers/{CPF}/smartpos")] == [
        (r.method, r.path) for r in server.received
    ]
    assert "content-type" not in server.received[1].headers


async def test_error_body(server: ScriptedServer, connect: Callable[..., SDK]) -> None:
    """An error answer becomes the codigo's exception with the server's fields and request id."""
    body = {
        "erro": {
            "codigo": "SMARTPOS_NAO_ENCONTRADO",
            "mensagem": "nao vinculado",
            "acao": "vincule",
        }
    }
    server.script("/v1/payments", respond(404, body, {"x-request-id": "srv-404"}))

    with pytest.raises(smartpos.SmartposNaoEncontradoError) as info:
        await connect().call("payments", "create", **PAYMENT)

    assert (404, "nao vinculado", "vincule", "srv-404") == (
        info.value.status_code,
        info.value.mensagem,
        info.value.acao,
        info.value.request_id,
    )


async def test_html_502_page(server: ScriptedServer, connect: Callable[..., SDK]) -> None:
    """A proxy's HTML 502 page is an InternalServerError for a safe call."""
    server.script(
        "/qrcode",
        respond(502, b"<html><h1>502 Bad Gateway</h1></html>", {"content-type": "text/html"}),
    )

    with pytest.raises(smartpos.InternalServerError) as info:
        await connect(max_retries=0).call("qrcodes", "create", documento_cliente=CPF)

    assert (502, None) == (info.value.status_code, info.value.codigo)


async def test_5xx_then_success_is_retried(
    server: ScriptedServer, connect: Callable[..., SDK]
) -> None:
    """A 503 then a 202: the same bytes were sent twice and the result says 2 attempts."""
    server.script(
        "/v1/payments",
        respond(503, {"erro": {"codigo": "ERRO_INTERNO"}}),
        respond(202, ACCEPTANCE_JSON),
    )

    result = await connect().call("payments", "create", **PAYMENT)

    first, second = server.received
    assert first.body == second.body
    assert (REF, 2) == (result.referencia, result.http.attempts)


async def test_dropped_connection_after_the_request_is_unknown(
    server: ScriptedServer, connect: Callable[..., SDK]
) -> None:
    """The server reads the payment and closes without answering: OutcomeUnknownError."""
    server.script("/v1/payments", drop(), drop())

    with pytest.raises(smartpos.OutcomeUnknownError) as info:
        await connect(max_retries=1).call("payments", "create", **PAYMENT)

    assert [json.loads(r.body)["referencia"] for r in server.received] == [REF, REF]
    assert (REF, 2) == (info.value.referencia, info.value.attempts)
    assert type(info.value.last_error) is smartpos.TransportError
    assert "RemoteProtocolError" in str(info.value.last_error)


async def test_dropped_connection_of_a_safe_call_is_transport_error(
    server: ScriptedServer, connect: Callable[..., SDK]
) -> None:
    """The same drop on qrcodes.create is a TransportError."""
    server.script("/qrcode", drop())

    with pytest.raises(smartpos.TransportError) as info:
        await connect(max_retries=0).call("qrcodes", "create", documento_cliente=CPF)

    assert type(info.value) is smartpos.TransportError


async def test_connection_refused_is_transport_error(
    make_sdk: Callable[..., SDK], closed_port: int
) -> None:
    """Nothing listens on the port: after the retries a payment ends in TransportError."""
    sdk = make_sdk(base_url=f"http://127.0.0.1:{closed_port}", max_retries=1)

    with pytest.raises(smartpos.SmartPOSError) as info:
        await sdk.call("payments", "create", **PAYMENT)

    assert type(info.value) is smartpos.TransportError
    assert "failed after 2 attempt(s): ConnectError" in str(info.value)


async def test_read_timeout_of_a_payment_is_unknown(
    server: ScriptedServer, connect: Callable[..., SDK]
) -> None:
    """The server answers after the read timeout: OutcomeUnknownError, last error TimeoutError."""
    server.script("/v1/payments", stall(5.0, respond(202, ACCEPTANCE_JSON)))

    with pytest.raises(smartpos.OutcomeUnknownError) as info:
        await connect(timeout=0.2, max_retries=0).call("payments", "create", **PAYMENT)

    assert 1 == len(server.received)
    assert type(info.value.last_error) is smartpos.TimeoutError
    assert REF == info.value.referencia


async def test_read_timeout_of_a_qrcode_is_timeout_error(
    server: ScriptedServer, connect: Callable[..., SDK]
) -> None:
    """The same slow answer on qrcodes.create is a TimeoutError (also a builtins.TimeoutError)."""
    server.script("/qrcode", stall(5.0, respond(201, QR_JSON)))

    with pytest.raises(smartpos.TimeoutError) as info:
        await connect(timeout=0.2, max_retries=0).call("qrcodes", "create", documento_cliente=CPF)

    assert isinstance(info.value, TimeoutError)
