"""API.md's rules for the served sandbox, over real HTTP: every request, whatever its bytes.

A method it does not serve is 405 with ``Allow``; a body that is not a JSON object, or holds
``NaN``/``Infinity``, is 400 ``CAMPO_INVALIDO`` with ``erro.campo``; a lone surrogate in a string
or a non-ASCII byte in a header never drops the connection. Raw sockets send what httpx would
refuse to send.
"""

from __future__ import annotations

import ast
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import smartpos
from smartpos.testing import Sandbox

KEY = {"x-api-key": Sandbox.API_KEY, "content-type": "application/json"}


@pytest.fixture
def base_url(sandbox: Sandbox) -> Iterator[str]:
    """The sandbox served on 127.0.0.1."""
    with sandbox.serve() as url:
        yield url


@pytest.fixture
def http(base_url: str) -> Iterator[httpx.Client]:
    """An httpx client of the served sandbox."""
    with httpx.Client(base_url=base_url, trust_env=False, headers=KEY) as client:
        yield client


def raw(base_url: str, data: bytes) -> bytes:
    """Send raw bytes on a new connection; return everything answered until it closes."""
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def answer(data: bytes) -> tuple[int, dict[str, str], dict[str, object]]:
    """The status, headers and JSON body of a raw HTTP/1.1 answer."""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    pairs = (line.split(": ", 1) for line in lines[1:])
    headers = {name.lower(): value for name, value in pairs}
    return int(lines[0].split()[1]), headers, json.loads(body)


@pytest.mark.parametrize(
    ("content", "campo"),
    [
        (b'{"referencia": NaN, "documentoCliente": "52998224725"}', "referencia"),
        (b'{"documentoCliente": "52998224725", "extra": Infinity}', "extra"),
        (b'{"documentoCliente": "52998224725", "x": {"y": [1, -Infinity]}}', "x.y[1]"),
        (b"[1]", "$"),
        (b'"texto"', "$"),
        (b"{not json", "$"),
        (b"[" * 100_000, "$"),
    ],
)
def test_a_body_that_is_no_json_object_is_campo_invalido_with_campo(
    http: httpx.Client, content: bytes, campo: str
) -> None:
    """NaN/Infinity (anywhere), non-objects and malformed JSON: 400 CAMPO_INVALIDO, campo set."""
    response = http.post("/qrcode", content=content)
    assert (400, "CAMPO_INVALIDO", campo) == (
        response.status_code,
        response.json()["erro"]["codigo"],
        response.json()["erro"].get("campo"),
    )


def test_nan_is_refused_by_the_control_api_too(http: httpx.Client) -> None:
    """The control API reads bodies with the same rules."""
    response = http.post("/_sandbox/v1/clock/advance", content=b'{"seconds": NaN}')
    assert (400, "seconds") == (response.status_code, response.json()["erro"]["campo"])


def test_a_lone_surrogate_is_refused_and_the_connection_stays(
    base_url: str, http: httpx.Client
) -> None:
    """A lone surrogate in a string is CAMPO_INVALIDO with campo, on a connection kept alive."""
    body = b'{"documentoCliente": "52998224725", "referencia": "a\\ud800b"}'
    first = http.post("/qrcode", content=body)
    second = http.get(f"/v1/customers/{Sandbox.DOCUMENTO}/smartpos")
    assert (400, "referencia") == (first.status_code, first.json()["erro"]["campo"])
    assert 200 == second.status_code
    in_key = http.post("/qrcode", content=b'{"documentoCliente": "52998224725", "\\udc00": 1}')
    assert (400, "CAMPO_INVALIDO") == (in_key.status_code, in_key.json()["erro"]["codigo"])


def test_a_lone_surrogate_never_raises_into_an_in_process_caller(sandbox: Sandbox) -> None:
    """Through the transport the same body is an answer, not an exception."""
    with httpx.Client(
        base_url="http://s.invalid", transport=sandbox.transport(), headers=KEY
    ) as client:
        response = client.post(
            "/qrcode", content=b'{"documentoCliente": "52998224725", "referencia": "\\ud83d"}'
        )
    assert 400 == response.status_code


def test_the_request_log_of_a_surrogate_body_is_served_as_json(
    base_url: str, http: httpx.Client
) -> None:
    """A recorded body holding a lone surrogate is written back as its JSON escape."""
    http.post("/_sandbox/v1/clock/advance", content=b'{"seconds": 1, "note": "\\ud800"}')
    listed = http.get("/_sandbox/v1/requests")
    assert 200 == listed.status_code
    assert "\\ud800" in listed.text


def test_a_non_ascii_header_byte_gets_an_answer(base_url: str) -> None:
    """A Latin-1 byte in the API key is an unknown key (401), not a dropped connection."""
    request = (
        b"GET /v1/customers/52998224725/smartpos HTTP/1.1\r\nHost: x\r\n"
        b"x-api-key: sandbox-k\xe9y\r\nConnection: close\r\n\r\n"
    )
    status, _, body = answer(raw(base_url, request))
    assert (401, "API_KEY_INVALIDA") == (status, body["erro"]["codigo"])  # type: ignore[index]


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/v1/payments", "POST"),
        ("BREW", "/qrcode", "POST"),
        ("POST", "/v1/customers/52998224725/smartpos", "GET"),
        ("GET", "/_sandbox/v1/scan", "POST"),
        ("PATCH", "/_sandbox/v1/outcomes", "POST, PUT"),
    ],
)
def test_a_method_not_served_is_405_with_allow(
    base_url: str, method: str, path: str, allow: str
) -> None:
    """Any method, even one no client sends, gets 405 METODO_NAO_PERMITIDO and Allow."""
    request = f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
    status, headers, body = answer(raw(base_url, request))
    assert (405, allow, "METODO_NAO_PERMITIDO") == (
        status,
        headers["allow"],
        body["erro"]["codigo"],  # type: ignore[index]
    )


def test_a_chunked_body_is_read(base_url: str) -> None:
    """A chunked request body is de-chunked before the service reads it."""
    body = json.dumps({"documentoCliente": Sandbox.DOCUMENTO}).encode()
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:7], body[7:]))
    request = (
        b"POST /qrcode HTTP/1.1\r\nHost: x\r\nx-api-key: sandbox-key\r\n"
        b"content-type: application/json\r\ntransfer-encoding: chunked\r\n"
        b"Connection: close\r\n\r\n" + chunks + b"0\r\n\r\n"
    )
    status, _, data = answer(raw(base_url, request))
    assert 201 == status
    assert str(data["qrCode"]).startswith("smartpos:qr:v1:")


@pytest.mark.parametrize(
    ("framing", "status"),
    [
        (b"transfer-encoding: chunked\r\n\r\nzz\r\n", 400),
        (b"content-length: nope\r\n\r\n", 400),
        (b"content-length: 99999999999\r\n\r\n", 413),
    ],
)
def test_broken_framing_gets_the_erro_shape(base_url: str, framing: bytes, status: int) -> None:
    """A bad chunk size or Content-Length, or a body too large, is answered, then closed."""
    request = b"POST /v1/payments HTTP/1.1\r\nHost: x\r\n" + framing
    got, headers, body = answer(raw(base_url, request))
    assert (status, "close") == (got, headers["connection"])
    assert {"codigo", "mensagem", "acao"} <= set(body["erro"])  # type: ignore[arg-type]


def test_the_sandbox_and_the_cli_share_one_http_server() -> None:
    """Neither the sandbox's server nor the CLI's receiver has an HTTP parser of its own."""
    root = Path(smartpos.__file__).parent
    for relative in ("testing/_server.py", "cli/_http.py"):
        tree = ast.parse((root / relative).read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "smartpos._http_server" in imported, relative
        assert "http.server" not in imported, relative
        assert "rfile" not in (root / relative).read_text(encoding="utf-8"), relative


@pytest.mark.parametrize("query", ["count=1&timeout=inf", "count=1&timeout=nan", "count=x"])
def test_control_waits_refuse_numbers_that_are_not_finite(http: httpx.Client, query: str) -> None:
    """A wait of infinity (or not a number) is a 400, never a server thread held forever."""
    response = http.get(f"/_sandbox/v1/events?{query}")
    assert (400, "CAMPO_INVALIDO") == (response.status_code, response.json()["erro"]["codigo"])
