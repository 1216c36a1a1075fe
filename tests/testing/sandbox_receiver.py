"""A tiny real webhook receiver on 127.0.0.1 for the sandbox's delivery tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    """Records every POST; answers the scripted statuses first, then 200."""

    def __init__(self, statuses: list[int] | None = None) -> None:
        self.statuses = list(statuses or [])
        self.bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()
        self.url = ""

    @property
    def events(self) -> list[dict[str, Any]]:
        """The JSON of every body received, in arrival order."""
        with self.lock:
            return [json.loads(b) for b in self.bodies]


@contextmanager
def receiving(statuses: list[int] | None = None) -> Iterator[Receiver]:
    """Run a Receiver on a free loopback port for the duration of the block."""
    receiver = Receiver(statuses)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            with receiver.lock:
                receiver.bodies.append(body)
                receiver.headers.append({k.lower(): v for k, v in self.headers.items()})
                status = receiver.statuses.pop(0) if receiver.statuses else 200
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/webhooks"
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
