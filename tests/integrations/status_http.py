"""Helpers of the status endpoint tests over real HTTP: servers in threads, raw SSE reading,
an event stored by another process."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

__all__ = ["SSEReader", "put_from_another_process", "serve_uvicorn", "serve_wsgi"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serve_uvicorn(app: Any) -> Iterator[str]:
    """Serve an ASGI app with uvicorn in a thread of this process; yield its base URL."""
    import uvicorn

    port = _free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", backlog=2048
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(15)


@contextlib.contextmanager
def serve_wsgi(app: Any) -> Iterator[str]:
    """Serve a WSGI app with werkzeug's threaded server in a thread; yield its base URL."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(15)


class SSEReader:
    """One raw HTTP/1.1 GET with ``Accept: text/event-stream``, read message by message."""

    def __init__(
        self, base: str, path: str, *, headers: dict[str, str] | None = None, timeout: float = 10
    ) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Accept: text/event-stream"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.buffer = b""
        self.status = 0
        self.chunked = False
        self.closed = False
        self._head()

    def _fill(self) -> bool:
        try:
            data = self.sock.recv(65536)
        except TimeoutError:
            raise
        if not data:
            self.closed = True
            return False
        self.buffer += data
        return True

    def _head(self) -> None:
        while b"\r\n\r\n" not in self.buffer:
            if not self._fill():
                raise AssertionError("the server closed before its headers")
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {
            k.strip().lower(): v.strip() for k, v in (x.split(":", 1) for x in lines[1:])
        }
        self.chunked = self.headers.get("transfer-encoding", "").lower() == "chunked"
        self.raw = b""

    def _body(self) -> bytes:
        """Everything of the body received so far (chunk framing removed)."""
        if not self.chunked:
            out, self.buffer = self.buffer, b""
            return out
        out = b""
        while True:
            if b"\r\n" not in self.buffer:
                return out
            size_line, rest = self.buffer.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                self.closed = True
                self.buffer = b""
                return out
            if len(rest) < size + 2:
                return out
            out += rest[:size]
            self.buffer = rest[size + 2 :]

    def messages(self, count: int = 1) -> list[dict[str, Any]]:
        """The next ``count`` messages (comments skipped): ``{"id", "event", "data", "retry"}``."""
        found: list[dict[str, Any]] = []
        while len(found) < count:
            self.raw += self._body()
            while b"\n\n" in self.raw and len(found) < count:
                block, self.raw = self.raw.split(b"\n\n", 1)
                message: dict[str, Any] = {}
                for line in block.decode().split("\n"):
                    if not line or line.startswith(":"):
                        continue
                    name, _, value = line.partition(": ")
                    message[name] = value
                if "data" in message:
                    message["data"] = json.loads(message["data"])
                if "event" in message:
                    found.append(message)
            if len(found) < count and not self._fill():
                self.raw += self._body()
                if b"\n\n" not in self.raw:
                    break
        return found

    def until_closed(self) -> list[dict[str, Any]]:
        """Every message until the server ends the stream."""
        found: list[dict[str, Any]] = []
        while not self.closed:
            found += self.messages(1)
            if not found or self.closed:
                break
        return found

    def close(self) -> None:
        self.sock.close()


_PUT = """
import json, sys
from smartpos import webhooks
store = webhooks.SQLiteStore(sys.argv[1])
for raw in json.loads(sys.stdin.read()):
    store.put(webhooks.parse_event(json.dumps(raw)))
store.close()
"""


def put_from_another_process(path: Path, envelopes: list[dict[str, Any]]) -> None:
    """Store envelopes in the SQLite inbox at ``path`` from a separate Python process."""
    subprocess.run(
        [sys.executable, "-c", _PUT, str(path)],
        input=json.dumps(envelopes),
        text=True,
        check=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
