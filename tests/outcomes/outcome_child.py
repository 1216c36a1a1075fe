"""Child processes of the crash and cross-process outcome tests (run as a script, never imported
by pytest).

    python outcome_child.py crash STORE BASE_URL REFERENCIA WHERE
        one payments.create that SIGKILLs its own process at WHERE: "before-send" (the journal
        entry is written, the request not sent), "after-answer" (the service answered, the
        answer not recorded) or "after-record" (the answer recorded, without an fsync on
        SQLite, and create returned)
    python outcome_child.py sell STORE BASE_URL COUNT FLAVOUR
        COUNT sales with create_and_wait; one JSON line per sale on stdout
    python outcome_child.py receive STORE
        a WebhookReceiver on STORE served on 127.0.0.1; prints its URL, runs until terminated
    python outcome_child.py race STORE BASE_URL
        prints "ready", then for each referencia read from stdin one create_and_wait with it;
        one JSON line per referencia: the event, or the class of what was raised

STORE is ``sqlite:PATH``, ``redis:URL|PREFIX`` or ``postgres:DSN|TABLE``.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

import smartpos
from smartpos.testing import Sandbox
from smartpos.webhooks import SQLiteStore, StoreBase, WebhookReceiver


def open_store(spec: str) -> StoreBase:
    """Open the store a spec names (the same one the parent process uses)."""
    kind, _, rest = spec.partition(":")
    if kind == "sqlite":
        return SQLiteStore(rest)
    where, _, name = rest.rpartition("|")
    if kind == "redis":
        from smartpos.webhooks import RedisStore

        return RedisStore(where, prefix=name, check_settings=False)
    from smartpos.webhooks import PostgresStore

    return PostgresStore(where, table=name)


class KillAt(httpx.BaseTransport):
    """Kills this process with SIGKILL right before the send, or right after the answer."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.where == "before-send":
            os.kill(os.getpid(), signal.SIGKILL)
        response = self.inner.handle_request(request)
        response.read()
        os.kill(os.getpid(), signal.SIGKILL)
        return response  # pragma: no cover - never reached


def crash(spec: str, base_url: str, referencia: str, where: str, sale: str = "") -> None:
    """Pay and die at ``where``; with ``sale``, the payment is an attempt of that sale (its
    checks pass and are journaled with it before the send), with ``pending_after=0``."""
    store = open_store(spec)
    transport = None if where == "after-record" else KillAt(where)
    client = smartpos.Client(
        api_key=Sandbox.API_KEY,
        base_url=base_url,
        store=store,
        transport=transport,
        pending_after=0,
    )
    client.payments.create(
        documento_cliente=Sandbox.DOCUMENTO,
        valor_centavos=4200,
        smartpos_id=Sandbox.SMARTPOS_ID,
        referencia=referencia,
        sale=sale or None,
    )
    if where == "after-record":
        os.kill(os.getpid(), signal.SIGKILL)
    raise SystemExit("the process should have been killed")


def _line(event: Any) -> None:
    print(
        json.dumps({"referencia": event.dados.referencia, "id": event.id, "tipo": event.tipo}),
        flush=True,
    )


def sell(spec: str, base_url: str, count: int, flavour: str) -> None:
    store = open_store(spec)
    kwargs = {
        "documento_cliente": Sandbox.DOCUMENTO,
        "valor_centavos": 1990,
        "smartpos_id": Sandbox.SMARTPOS_ID,
        "timeout": 30.0,
    }
    if flavour == "sync":
        with smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, store=store) as client:
            for _ in range(count):
                _line(client.payments.create_and_wait(**kwargs))
    else:

        async def main() -> None:
            async with smartpos.AsyncClient(
                api_key=Sandbox.API_KEY, base_url=base_url, store=store
            ) as client:
                events = await asyncio.gather(
                    *(client.payments.create_and_wait(**kwargs) for _ in range(count))
                )
            for event in events:
                _line(event)

        asyncio.run(main())
    store.close()


def race(spec: str, base_url: str) -> None:
    store = open_store(spec)
    with smartpos.Client(
        api_key=Sandbox.API_KEY, base_url=base_url, store=store, retry_backoff=0
    ) as client:
        print("ready", flush=True)
        for line in sys.stdin:
            referencia = line.strip()
            try:
                event = client.payments.create_and_wait(
                    documento_cliente=Sandbox.DOCUMENTO,
                    valor_centavos=1990,
                    smartpos_id=Sandbox.SMARTPOS_ID,
                    referencia=referencia,
                    timeout=30.0,
                )
            except smartpos.SmartPOSError as exc:
                print(
                    json.dumps({"referencia": referencia, "error": type(exc).__name__}), flush=True
                )
            else:
                _line(event)
    store.close()


def receive(spec: str) -> None:
    store = open_store(spec)
    receiver = WebhookReceiver(store)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            receipt = receiver.receive(body, {k.lower(): v for k, v in self.headers.items()})
            self.send_response(receipt.status_code)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"http://127.0.0.1:{server.server_address[1]}/", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stop.wait()
    server.shutdown()
    store.close()


def main(argv: list[str]) -> None:
    command, *args = argv
    if command == "crash":
        crash(*args)
    elif command == "sell":
        sell(args[0], args[1], int(args[2]), args[3])
    elif command == "receive":
        receive(args[0])
    elif command == "race":
        race(args[0], args[1])
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
