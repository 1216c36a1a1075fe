"""The SDK's HTTP server frames HTTP/1.1 strictly, with h11: raw sockets against 127.0.0.1.

Every request whose framing a proxy in front could read differently (request smuggling), whose
body is cut short, or whose head or body is too slow never reaches the handler: it is answered
with the caller's failure (the service's ``erro`` shape for the sandbox and ``smartpos listen``)
and the connection is closed. Threads are bounded: idle connections hold none, and at most
``max_workers`` read requests at once.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import h11
import pytest

from smartpos._http_server import (
    MAX_HEAD_BYTES,
    Failure,
    Hangup,
    HTTPAnswer,
    HTTPRequest,
    Server,
    answer_head,
    failure_bytes,
    head_failure,
    protocol_failure,
    request_of,
    serve,
)
from smartpos.cli._http import Delivery, serve_receiver
from smartpos.cli._samples import sample
from smartpos.testing import Sandbox
from smartpos.webhooks import SQLiteStore, WebhookReceiver

HEAD = b"POST /x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n"


class Recorder:
    """A handler that records what reached it and answers 200 with the body's length."""

    def __init__(self) -> None:
        self.seen: list[HTTPRequest] = []

    def __call__(self, request: HTTPRequest) -> HTTPAnswer | Hangup:
        """Record the request, answer its body's length."""
        self.seen.append(request)
        return HTTPAnswer(200, {}, str(len(request.body)).encode())


def failure(failed: Failure) -> HTTPAnswer:
    """The failure's status, its reason as the body."""
    return HTTPAnswer(failed.status, {}, failed.reason.encode(), close=True)


def address_of(base_url: str) -> tuple[str, int]:
    """The (host, port) of a served base URL."""
    host, port = base_url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    return host, int(port)


@pytest.fixture
def recorder() -> Recorder:
    """A fresh recording handler."""
    return Recorder()


@pytest.fixture
def address(recorder: Recorder) -> Iterator[tuple[str, int]]:
    """The server with its default settings on 127.0.0.1, bodies up to 64 bytes."""
    server = Server(recorder, failure=failure, max_body=64)
    with serve(server, "127.0.0.1", 0) as base_url:
        yield address_of(base_url)


def read_all(sock: socket.socket) -> bytes:
    """Read until the server closes the connection."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def exchange(address: tuple[str, int], data: bytes) -> bytes:
    """Send bytes on a new connection, stop writing (half-close), read until it closes."""
    with socket.create_connection(address, timeout=10) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        return read_all(sock)


def status(data: bytes) -> int:
    """The status code of a raw answer (0 for none)."""
    return int(data.split(b" ", 2)[1]) if data else 0


def json_answer(data: bytes) -> tuple[int, str, dict[str, object]]:
    """The status, content type and JSON body of a raw answer."""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return status(data), headers.get("content-type", ""), json.loads(body)


SMUGGLING = {
    "content-length with transfer-encoding": (
        b"content-length: 5\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n"
    ),
    "transfer-encoding xchunked": b"transfer-encoding: xchunked\r\n\r\n0\r\n\r\n",
    "transfer-encoding gzip, chunked": b"transfer-encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
    "transfer-encoding chunked, identity": (
        b"transfer-encoding: chunked, identity\r\n\r\n0\r\n\r\n"
    ),
    "transfer-encoding identity": b"transfer-encoding: identity\r\n\r\n0\r\n\r\n",
    "two transfer-encoding headers": (
        b"transfer-encoding: chunked\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n"
    ),
    "two different content-length": b"content-length: 3\r\ncontent-length: 5\r\n\r\nabcde",
    "content-length +5": b"content-length: +5\r\n\r\nabcde",
    "content-length 1_0": b"content-length: 1_0\r\n\r\n0123456789",
    "content-length 0x10": b"content-length: 0x10\r\n\r\n0123456789abcdef",
    "chunk size 0x5": b"transfer-encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n",
    "chunk size +5": b"transfer-encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n",
    "chunk size 0_5": b"transfer-encoding: chunked\r\n\r\n0_5\r\nhello\r\n0\r\n\r\n",
    "chunk size with a leading space": (
        b"transfer-encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n"
    ),
    "chunk without its CRLF": b"transfer-encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
}


@pytest.mark.parametrize("framing", SMUGGLING.values(), ids=SMUGGLING.keys())
def test_ambiguous_framing_is_a_400_and_never_reaches_the_handler(
    address: tuple[str, int], recorder: Recorder, framing: bytes
) -> None:
    """Framing that servers and proxies could read two ways is refused before the handler."""
    answer = exchange(address, HEAD + framing)
    assert (400, []) == (status(answer), recorder.seen)


TRUNCATED = {
    "content-length longer than the body": b"content-length: 20\r\n\r\n" + b"x" * 5,
    "chunked without the last chunk": b"transfer-encoding: chunked\r\n\r\n5\r\nhello\r\n",
    "chunked cut inside a chunk": b"transfer-encoding: chunked\r\n\r\n10\r\nhello",
    "chunked cut inside the trailer": b"transfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n",
}


@pytest.mark.parametrize("framing", TRUNCATED.values(), ids=TRUNCATED.keys())
def test_a_body_cut_short_by_a_half_close_is_a_400_not_a_request(
    address: tuple[str, int], recorder: Recorder, framing: bytes
) -> None:
    """A client that stops sending mid-body gets a 400; the handler never sees the request."""
    answer = exchange(address, HEAD + framing)
    assert (400, []) == (status(answer), recorder.seen)


def test_a_body_cut_short_by_a_close_never_reaches_the_handler(recorder: Recorder) -> None:
    """A client that closes mid-body leaves nothing: the handler is never called."""
    server = Server(recorder, failure=failure, max_body=64)
    with serve(server, "127.0.0.1", 0) as base_url:
        with socket.create_connection(address_of(base_url), timeout=10) as sock:
            sock.sendall(HEAD + b"content-length: 20\r\n\r\n" + b"x" * 5)
        follow_up = exchange(address_of(base_url), HEAD + b"content-length: 2\r\n\r\nok")
    assert 200 == status(follow_up)
    assert [b"ok"] == [request.body for request in recorder.seen]


def test_keep_alive_still_serves_several_requests_on_one_connection(
    address: tuple[str, int], recorder: Recorder
) -> None:
    """Two pipelined requests, Content-Length then chunked, both answered on one connection."""
    first = b"POST /a HTTP/1.1\r\nHost: h\r\ncontent-length: 3\r\n\r\nabc"
    second = HEAD + b"transfer-encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n"
    answer = exchange(address, first + second)
    assert 2 == answer.count(b"HTTP/1.1 200 ")
    assert [b"abc", b"de"] == [request.body for request in recorder.seen]


def test_a_slow_head_is_a_408_and_threads_stay_bounded(recorder: Recorder) -> None:
    """Slow-loris connections get 408 at the head deadline, served by at most max_workers."""
    server = Server(recorder, failure=failure, max_body=64, header_timeout=0.2, max_workers=2)
    before = threading.active_count()
    with serve(server, "127.0.0.1", 0) as base_url:
        slow = [socket.create_connection(address_of(base_url), timeout=10) for _ in range(8)]
        try:
            for sock in slow:
                sock.sendall(b"POST /x HTTP/1.1\r\nHost: h\r\n")
            answers = []
            for sock in slow:
                answers.append(read_all(sock))
                sock.close()
            threads = threading.active_count() - before
        finally:
            for sock in slow:
                sock.close()
    assert [408] * 8 == [status(answer) for answer in answers]
    assert threads <= 2 + 1  # the workers and the loop
    assert [] == recorder.seen


def test_a_slow_body_is_a_408_and_never_reaches_the_handler(recorder: Recorder) -> None:
    """A body that stops arriving before its deadline is answered 408, the request dropped."""
    server = Server(recorder, failure=failure, max_body=64, body_timeout=0.2)
    with (
        serve(server, "127.0.0.1", 0) as base_url,
        socket.create_connection(address_of(base_url), timeout=10) as sock,
    ):
        sock.sendall(HEAD + b"content-length: 20\r\n\r\n" + b"x" * 5)
        answer = read_all(sock)
    assert (408, []) == (status(answer), recorder.seen)


def test_idle_connections_hold_no_thread(recorder: Recorder) -> None:
    """A hundred open connections that send nothing start no thread; a request is still served."""
    server = Server(recorder, failure=failure, max_body=64)
    before = threading.active_count()
    with serve(server, "127.0.0.1", 0) as base_url:
        idle = [socket.create_connection(address_of(base_url), timeout=10) for _ in range(100)]
        try:
            # Accepted in order: once this answer is read, the hundred were accepted before it.
            answer = exchange(address_of(base_url), HEAD + b"content-length: 0\r\n\r\n")
            threads = threading.active_count() - before
        finally:
            for sock in idle:
                sock.close()
    assert 200 == status(answer)
    assert threads <= 2  # the loop and the one worker the request needed


def test_a_head_over_the_limit_is_a_431(address: tuple[str, int], recorder: Recorder) -> None:
    """A head over MAX_HEAD_BYTES, or over 100 header lines, is 431, never the handler's."""
    big = exchange(address, HEAD + b"x-big: " + b"a" * MAX_HEAD_BYTES + b"\r\n\r\n")
    many = exchange(address, HEAD + b"".join(b"x-%d: 1\r\n" % i for i in range(101)) + b"\r\n")
    assert (431, 431, []) == (status(big), status(many), recorder.seen)


@pytest.fixture
def sandbox_address() -> Iterator[tuple[str, int]]:
    """A sandbox served on 127.0.0.1."""
    with Sandbox().serve() as base_url:
        yield address_of(base_url)


BROKEN = {
    "a request line that is not HTTP": (b"HELLO\r\n\r\n", 400, "CAMPO_INVALIDO"),
    "smuggling": (HEAD + SMUGGLING["content-length with transfer-encoding"], 400, "CAMPO_INVALIDO"),
    "a head over the limit": (
        HEAD + b"x-big: " + b"a" * MAX_HEAD_BYTES + b"\r\n\r\n",
        431,
        "CABECALHOS_MUITO_GRANDES",
    ),
}


@pytest.mark.parametrize(("data", "code", "codigo"), BROKEN.values(), ids=BROKEN.keys())
def test_the_sandbox_answers_broken_requests_in_the_erro_shape(
    sandbox_address: tuple[str, int], data: bytes, code: int, codigo: str
) -> None:
    """400 and 431 from the served sandbox are JSON {"erro": {codigo, mensagem, acao}}."""
    got, content_type, body = json_answer(exchange(sandbox_address, data))
    erro = body["erro"]
    assert isinstance(erro, dict)
    assert (code, codigo) == (got, erro["codigo"])
    assert content_type.startswith("application/json")
    assert all(isinstance(erro[key], str) and erro[key] for key in ("mensagem", "acao"))


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[tuple[tuple[str, int], SQLiteStore, list[Delivery]]]:
    """``smartpos listen``'s receiver on 127.0.0.1, its SQLite inbox and its deliveries."""
    deliveries: list[Delivery] = []
    with (
        SQLiteStore(tmp_path / "inbox.sqlite3") as store,
        serve_receiver(WebhookReceiver(store), "127.0.0.1", 0, deliveries.append) as url,
    ):
        yield address_of(url), store, deliveries


EVENT_ID = "01a2030b-0eb8-7329-a511-88e72e17046d"


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_listen_stores_nothing_from_a_body_cut_short(
    receiver: tuple[tuple[str, int], SQLiteStore, list[Delivery]], framing: str
) -> None:
    """A whole event sent under a longer Content-Length, or without its last chunk: nothing kept."""
    address, store, deliveries = receiver
    event = json.dumps(sample("pagamento.aprovado", EVENT_ID)).encode()
    head = b"POST / HTTP/1.1\r\nHost: h\r\ncontent-type: application/json\r\n"
    if framing == "content-length":
        data = head + b"content-length: %d\r\n\r\n" % (len(event) + 10) + event
    else:
        data = head + b"transfer-encoding: chunked\r\n\r\n%x\r\n" % len(event) + event + b"\r\n"
    got, _, body = json_answer(exchange(address, data))
    assert (400, "CORPO_INVALIDO") == (got, body["erro"]["codigo"])  # type: ignore[index]
    assert (None, []) == (store.get(EVENT_ID), deliveries)


def test_listen_answers_a_head_over_the_limit_in_the_erro_shape(
    receiver: tuple[tuple[str, int], SQLiteStore, list[Delivery]],
) -> None:
    """431 from ``smartpos listen`` is JSON with codigo, mensagem and acao."""
    address, _, deliveries = receiver
    data = HEAD + b"x-big: " + b"a" * MAX_HEAD_BYTES + b"\r\n\r\n"
    got, content_type, body = json_answer(exchange(address, data))
    erro = body["erro"]
    assert isinstance(erro, dict)
    assert (431, "CABECALHOS_MUITO_GRANDES", "application/json") == (
        got,
        erro["codigo"],
        content_type,
    )
    assert all(isinstance(erro[key], str) and erro[key] for key in ("mensagem", "acao"))
    assert [] == deliveries


def test_beyond_max_connections_a_new_connection_waits_for_one_to_close(
    recorder: Recorder,
) -> None:
    """With max_connections open, a new request is answered only once one of them closes."""
    server = Server(recorder, failure=failure, max_body=64, max_connections=2)
    with serve(server, "127.0.0.1", 0) as base_url:
        first, second = (socket.create_connection(address_of(base_url)) for _ in range(2))
        with socket.create_connection(address_of(base_url), timeout=10) as third:
            third.sendall(HEAD + b"content-length: 0\r\n\r\n")
            third.settimeout(0.2)
            with pytest.raises(TimeoutError):
                third.recv(1)  # still in the listen backlog: not answered, not refused
            first.close()
            third.settimeout(10)
            answer = read_all(third)
        second.close()
    assert 200 == status(answer)


def test_expect_100_continue_is_honoured(address: tuple[str, int], recorder: Recorder) -> None:
    """A client that waits for 100 Continue gets it, then its body is read."""
    with socket.create_connection(address, timeout=10) as sock:
        sock.sendall(HEAD + b"expect: 100-continue\r\ncontent-length: 2\r\n\r\n")
        interim = sock.recv(65536)
        sock.sendall(b"ok")
        answer = read_all(sock)
    assert interim.startswith(b"HTTP/1.1 100 ")
    assert (200, [b"ok"]) == (status(answer), [request.body for request in recorder.seen])


def head(*headers: tuple[bytes, bytes]) -> h11.Request:
    """A request head as h11 parses it."""
    return h11.Request(method=b"POST", target=b"/", headers=[(b"host", b"h"), *headers])


@pytest.mark.parametrize(
    ("request_head", "expected"),
    [
        (head((b"content-length", b"64")), None),
        (head((b"transfer-encoding", b"chunked")), None),
        (head((b"content-length", b"65")), 413),
        (head((b"content-length", b"5"), (b"transfer-encoding", b"chunked")), 400),
        (head((b"x-big", b"a" * MAX_HEAD_BYTES)), 431),
        (head(*[(b"x-%d" % i, b"1") for i in range(100)]), 431),
    ],
)
def test_head_failure(request_head: h11.Request, expected: int | None) -> None:
    """What h11 accepts but the server refuses: too large, or Content-Length with chunked."""
    failed = head_failure(request_head, max_body=64)
    assert expected == (failed.status if failed else None)


def test_protocol_failure_keeps_431_and_makes_the_rest_400() -> None:
    """h11's 431 stays; its 501 for an unknown transfer coding is broken framing, a 400."""
    statuses = [
        protocol_failure(h11.RemoteProtocolError("x", error_status_hint=hint)).status
        for hint in (400, 431, 501)
    ]
    assert [400, 431, 400] == statuses


def test_request_of_joins_repeated_headers_and_keeps_latin1() -> None:
    """Repeated headers are joined by a comma; a non-ASCII byte is read as Latin-1."""
    request = request_of(head((b"x-a", b"1"), (b"X-A", b"caf\xe9")), b"{}")
    assert ("POST", "/", "1, caf\xe9", b"{}") == (
        request.method,
        request.target,
        request.headers["x-a"],
        request.body,
    )


def test_answer_head_and_failure_bytes_set_length_and_close() -> None:
    """The server owns content-length and connection; a failure always closes, HEAD has no body."""
    answer = HTTPAnswer(400, {"Content-Length": "99", "x-k": "v"}, b"{}")
    headers = dict(answer_head(answer))
    written = failure_bytes(answer, head_only=True)
    assert ("2", "v", None) == (
        headers["content-length"],
        headers["x-k"],
        headers.get("connection"),
    )
    assert written.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert written.endswith(b"connection: close\r\n\r\n")
