"""The package's one small HTTP server (``smartpos._http_server``), on its own, over raw sockets."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from smartpos._http_server import Failure, Hangup, HTTPAnswer, HTTPRequest, Server, serve

SEEN: list[HTTPRequest] = []


def handler(request: HTTPRequest) -> HTTPAnswer | Hangup:
    """Echo the method, path and body; ``/boom`` raises; ``/hangup`` answers nothing."""
    SEEN.append(request)
    if request.path == "/boom":
        raise RuntimeError("a bug in the handler")
    if request.path == "/hangup":
        return Hangup()
    body = f"{request.method} {request.path} {request.query} {len(request.body)}".encode()
    return HTTPAnswer(200, {"content-type": "text/plain"}, body)


def failure(failed: Failure) -> HTTPAnswer:
    """The status of a failure, its reason as the body."""
    return HTTPAnswer(failed.status, {}, failed.reason.encode(), close=True)


@pytest.fixture
def address() -> Iterator[tuple[str, int]]:
    """The server on 127.0.0.1, bodies up to 64 bytes; errors reported into a list."""
    reported: list[BaseException | None] = []
    server = Server(handler, failure=failure, max_body=64, report=reported.append)
    SEEN.clear()
    with serve(server, "127.0.0.1", 0) as base_url:
        host, port = base_url.removeprefix("http://").rsplit(":", 1)
        yield host, int(port)
    assert all(isinstance(e, RuntimeError) for e in reported)


def exchange(address: tuple[str, int], data: bytes) -> bytes:
    """Send bytes on a new connection, read until it closes."""
    with socket.create_connection(address, timeout=10) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def status(data: bytes) -> int:
    """The status code of a raw answer (0 for none)."""
    return int(data.split(b" ", 2)[1]) if data else 0


@pytest.mark.parametrize(
    ("framing", "expected"),
    [
        (b"content-length: -1\r\n\r\n", 400),
        (b"content-length: 65\r\n\r\n" + b"x" * 65, 413),
        (b"transfer-encoding: chunked\r\n\r\n-5\r\n", 400),
        (b"transfer-encoding: chunked\r\n\r\n41\r\n" + b"x" * 65 + b"\r\n0\r\n\r\n", 413),
        (b"transfer-encoding: chunked\r\n\r\n" + b"0;ext=1\r\nx-trailer: 1\r\n\r\n", 200),
    ],
)
def test_framing(address: tuple[str, int], framing: bytes, expected: int) -> None:
    """Bodies are read by Content-Length or chunks, bounded; broken framing is answered."""
    answer = exchange(address, b"POST /x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n" + framing)
    assert expected == status(answer)


def test_too_many_chunks(address: tuple[str, int]) -> None:
    """A body of more than MAX_CHUNKS empty-ish chunks is refused, not read forever."""
    chunks = b"1\r\nx\r\n" * 10_001
    head = b"POST /x HTTP/1.1\r\nHost: h\r\ntransfer-encoding: chunked\r\n\r\n"
    answer = exchange(address, head + chunks)
    assert 413 == status(answer)


def test_a_handler_that_raises_is_a_500_not_a_dropped_connection(address: tuple[str, int]) -> None:
    """The handler's exception becomes the failure answer (500), reported, connection closed."""
    answer = exchange(address, b"GET /boom HTTP/1.1\r\nHost: h\r\n\r\n")
    assert 500 == status(answer)
    assert b"a bug in the handler" in answer


def test_hangup_and_head(address: tuple[str, int]) -> None:
    """Hangup closes without a byte; HEAD gets the headers without the body."""
    assert b"" == exchange(address, b"GET /hangup HTTP/1.1\r\nHost: h\r\n\r\n")
    head = exchange(address, b"HEAD /a%20b?q=1 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
    assert head.endswith(b"\r\n\r\n")
    assert b"content-length: 15" in head.lower()  # "HEAD /a b q=1 0"
    assert ("HEAD", "/a b", "q=1") == (SEEN[-1].method, SEEN[-1].path, SEEN[-1].query)


def test_repeated_headers_are_joined(address: tuple[str, int]) -> None:
    """Two headers of one name reach the handler as one value, joined by a comma."""
    exchange(address, b"GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nx-a: 2\r\nConnection: close\r\n\r\n")
    assert "1, 2" == SEEN[-1].headers["x-a"]
