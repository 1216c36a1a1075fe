"""Time to answer a webhook delivery through the ASGI adapter, vs a bare ASGI app, same run.

Two uvicorn servers, each in its own process on 127.0.0.1:

- the floor: a bare ASGI app that reads the body and answers 200;
- the receiver: ``WebhookReceiver(SQLiteStore(path, synchronous="FULL")).asgi_app()``, every
  delivery a new event, so every answer waits for a durable commit (group commit batches them).

200 keep-alive connections send deliveries back to back from a minimal HTTP/1.1 client on raw
asyncio streams (httpx saturates first; see BENCHMARKING.md). Rounds of the two servers are
interleaved; each round has a fixed number of requests per connection. Reported: p50/p99 of
the time to answer and the throughput of each side, and the receiver's figures as ratios to
the floor's. Goal (issue 3): receiver p99 under 50 ms at 200 concurrent deliveries.

    python benchmarks/bench_receiver.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import free_port, report, wait_port

__all__ = ["main"]

CONNECTIONS = 200
PATH = "/webhooks/smartpos"


# --- the servers (run as: bench_receiver.py --serve floor|receiver PORT [DB]) ---------------


async def floor_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The floor: read the whole body, answer 200 with a short JSON body."""
    if scope["type"] != "http":
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
            await receive()
            await send({"type": "lifespan.shutdown.complete"})
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    body = b'{"recebido":true,"duplicado":false}'
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def unbatched_app(receiver: Any) -> Any:
    """For comparison only: one ``receive`` (one commit) per request, each in a thread."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await floor_app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        receipt = await asyncio.to_thread(receiver.receive, b"".join(chunks), {})
        headers = [(b"content-type", b"application/json")]
        headers.append((b"content-length", b"%d" % len(receipt.body)))
        await send(
            {"type": "http.response.start", "status": receipt.status_code, "headers": headers}
        )
        await send({"type": "http.response.body", "body": receipt.body})

    return app


def serve(kind: str, port: int, db: str | None) -> None:
    """Run one server until terminated."""
    import uvicorn

    if kind == "floor":
        app: Any = floor_app
    else:
        from smartpos.webhooks import SQLiteStore, WebhookReceiver

        assert db is not None
        receiver = WebhookReceiver(SQLiteStore(db, synchronous="FULL"))
        app = receiver.asgi_app() if kind == "receiver" else unbatched_app(receiver)
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        backlog=4096,
        timeout_keep_alive=600,  # the connections idle while the other side is measured
        ws="none",
        lifespan="on",
    )


# --- the load generator ---------------------------------------------------------------------


def delivery(event_id: str) -> bytes:
    """A realistic pagamento.aprovado delivery (about 600 bytes)."""
    return json.dumps(
        {
            "id": event_id,
            "tipo": "pagamento.aprovado",
            "criadoEm": "2026-05-04T13:45:12.345Z",
            "dados": {
                "referencia": "3f2b8c1e-9a4d-4f6b-8e2a-1c5d7e9f0a1b",
                "documentoCliente": "52998224725",
                "status": "aprovado",
                "valorCentavos": 15990,
                "valorFormatado": "159.90",
                "formaPagamento": "credito",
                "parcelas": 3,
                "smartposId": "SP-00042",
                "autorizacao": {
                    "codigo": "A1B2C3",
                    "numeroTransacao": "000123456",
                    "dadosFinalizacao": "FIN-7781-XYZ",
                    "tipoPagamento": "CREDITO_PARCELADO_LOJA",
                },
                "resultadoSmartPOS": {"executado": True, "codigoStatus": "00"},
            },
        }
    ).encode()


def request_bytes(body: bytes) -> bytes:
    """One HTTP/1.1 keep-alive POST."""
    head = (
        f"POST {PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


class Connection:
    """A keep-alive HTTP/1.1 connection on raw asyncio streams."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        """Connect to 127.0.0.1:port."""
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def post(self, data: bytes) -> int:
        """Send one request and read its whole answer; return the status code."""
        self.writer.write(data)
        await self.writer.drain()
        status_line = await self.reader.readline()
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        await self.reader.readexactly(length)
        return int(status_line.split()[1])

    def close(self) -> None:
        """Close the socket."""
        self.writer.close()


async def run_round(
    conns: list[Connection], per_conn: int, make_body: Any, tag: str
) -> tuple[list[float], float, int]:
    """Every connection sends ``per_conn`` requests back to back; return latencies, secs, errs."""
    latencies: list[float] = []
    errors = 0

    async def drive(index: int, conn: Connection) -> None:
        nonlocal errors
        for n in range(per_conn):
            data = request_bytes(make_body(f"{tag}-{index}-{n}"))
            start = time.perf_counter()
            status = await conn.post(data)
            latencies.append(time.perf_counter() - start)
            if status != 200:
                errors += 1

    started = time.perf_counter()
    await asyncio.gather(*(drive(i, c) for i, c in enumerate(conns)))
    return latencies, time.perf_counter() - started, errors


async def run_paced(
    conns: list[Connection], rate: float, duration: float, make_body: Any, tag: str
) -> tuple[list[float], int]:
    """Open loop: ``rate`` deliveries/s in total, spread over every connection, for ``duration``.

    Each connection sends at fixed times (staggered), whatever the answers' speed, so the
    time to answer includes any queueing the server causes: what the service would see.
    """
    latencies: list[float] = []
    errors = 0
    period = len(conns) / rate
    begin = time.perf_counter()

    async def drive(index: int, conn: Connection) -> None:
        nonlocal errors
        due = begin + period * index / len(conns)
        n = 0
        while due < begin + duration:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            data = request_bytes(make_body(f"{tag}-{index}-{n}"))
            start = time.perf_counter()
            status = await conn.post(data)
            latencies.append(time.perf_counter() - start)
            errors += status != 200
            due += period
            n += 1

    await asyncio.gather(*(drive(i, c) for i, c in enumerate(conns)))
    return latencies, errors


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) of values."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


async def measure(ports: dict[str, int], rounds: int, per_conn: int, paced: float) -> None:
    """Interleave rounds on every server and report."""
    body = delivery("floor")
    sides: dict[str, tuple[list[Connection], Any]] = {}
    for name, port in ports.items():
        conns = [await Connection.open(port) for _ in range(CONNECTIONS)]
        sides[name] = (conns, (lambda _: body) if name == "floor" else delivery)
    samples: dict[str, list[float]] = {name: [] for name in ports}
    seconds = dict.fromkeys(samples, 0.0)
    errors = dict.fromkeys(samples, 0)
    run = os.urandom(4).hex()
    for round_no in range(rounds + 1):
        for name, (conns, make) in sides.items():
            lat, secs, errs = await run_round(conns, per_conn, make, f"{run}-{round_no}")
            if round_no == 0:
                continue  # warm-up
            samples[name] += lat
            seconds[name] += secs
            errors[name] += errs
    floor_rate = len(samples["floor"]) / seconds["floor"]
    rate = round(floor_rate / 3, -1)  # a third of what the floor can take
    paced_samples: dict[str, list[float]] = {name: [] for name in ports}
    paced_errors = dict.fromkeys(samples, 0)
    for round_no in range(2):
        for name, (conns, make) in sides.items():
            lat, errs = await run_paced(conns, rate, paced / 2, make, f"{run}-paced-{round_no}")
            paced_samples[name] += lat
            paced_errors[name] += errs
    for conns, _ in sides.values():
        for conn in conns:
            conn.close()

    print(
        f"Saturation: {CONNECTIONS} concurrent keep-alive connections sending back to back, "
        f"{rounds} interleaved rounds of {per_conn} requests per connection per side"
    )
    for name in samples:
        lat = samples[name]
        report(f"{name}: requests (non-200 answers: {errors[name]})", len(lat), "")
        report(f"{name}: throughput, req/s", len(lat) / seconds[name], "")
        report(f"{name}: p50 time to answer, ms", statistics.median(lat) * 1e3, " ms")
        report(
            f"{name}: p99 time to answer, ms",
            percentile(lat, 99) * 1e3,
            " ms",
        )
    report(
        "receiver / floor, p50",
        statistics.median(samples["receiver"]) / statistics.median(samples["floor"]),
    )
    report(
        "receiver / floor, p99",
        percentile(samples["receiver"], 99) / percentile(samples["floor"], 99),
    )
    report(
        "receiver / floor, throughput",
        (len(samples["receiver"]) / seconds["receiver"])
        / (len(samples["floor"]) / seconds["floor"]),
    )
    print(
        f"Paced: {CONNECTIONS} concurrent keep-alive connections, {rate:.0f} deliveries/s in "
        f"total (a third of the floor's saturation throughput), {paced:.0f} s per side"
    )
    for name, lat in paced_samples.items():
        report(f"{name}: requests (non-200 answers: {paced_errors[name]})", len(lat), "")
        report(f"{name}: p50 time to answer, ms", statistics.median(lat) * 1e3, " ms")
        report(
            f"{name}: p99 time to answer, ms",
            percentile(lat, 99) * 1e3,
            " ms",
            goal="< 50 ms" if name == "receiver" else "",
        )
    if "unbatched" in samples:
        report(
            "unbatched (a commit per request) / floor, throughput",
            (len(samples["unbatched"]) / seconds["unbatched"])
            / (len(samples["floor"]) / seconds["floor"]),
        )
        report(
            "unbatched / floor, p99",
            percentile(samples["unbatched"], 99) / percentile(samples["floor"], 99),
        )


def start(kind: str, port: int, db: str | None) -> subprocess.Popen[bytes]:
    """Start one server process of this script."""
    args = [sys.executable, __file__, "--serve", kind, str(port)] + ([db] if db else [])
    proc = subprocess.Popen(args, env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)})
    wait_port(port)
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server process by its PID."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run for CI")
    parser.add_argument(
        "--compare-unbatched",
        action="store_true",
        help="also measure a receiver that commits once per request (no group commit)",
    )
    parser.add_argument("--serve", nargs="+", metavar="ARG", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        kind, port, *rest = args.serve
        serve(kind, int(port), rest[0] if rest else None)
        return
    rounds, per_conn, paced = (2, 10, 2.0) if args.quick else (6, 25, 10.0)
    kinds = ["floor", "receiver"] + (["unbatched"] if args.compare_unbatched else [])
    ports = {kind: free_port() for kind in kinds}
    procs: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="bench-receiver-") as tmp:
        try:
            for kind, port in ports.items():
                db = None if kind == "floor" else str(Path(tmp) / f"{kind}.db")
                procs.append(start(kind, port, db))
            asyncio.run(asyncio.wait_for(measure(ports, rounds, per_conn, paced), 900))
        finally:
            for proc in procs:
                stop(proc)


if __name__ == "__main__":
    main()
