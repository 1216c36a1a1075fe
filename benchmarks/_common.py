"""Shared helpers of the benchmark scripts: local server processes, reporting, and the load of
the receiver benchmarks (keep-alive connections sending deliveries in interleaved rounds).

Every figure is a ratio against a baseline measured in the same run (see
../shared/BENCHMARKING.md): machines are shared and noisy, absolute numbers are not.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "HERE",
    "PATH",
    "Connection",
    "Saturation",
    "child_env",
    "close_sides",
    "delivery",
    "free_port",
    "load_servers",
    "median",
    "open_sides",
    "percentile",
    "report",
    "request_bytes",
    "run_round",
    "run_uvicorn",
    "saturate",
    "server_process",
    "start_script",
    "stop_process",
    "wait_port",
]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: The path every receiver benchmark posts its deliveries to.
PATH = "/webhooks/smartpos"


def child_env() -> dict[str, str]:
    """This process's environment, with this folder first on PYTHONPATH (kept otherwise)."""
    existing = os.environ.get("PYTHONPATH")
    path = f"{HERE}{os.pathsep}{existing}" if existing else str(HERE)
    return {**os.environ, "PYTHONPATH": path}


def load_servers() -> Any:
    """Import tests/webhooks/servers.py by path (the tests' server helpers)."""
    path = ROOT / "tests" / "webhooks" / "servers.py"
    spec = importlib.util.spec_from_file_location("_bench_servers", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    """Return a free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, timeout: float = 20.0) -> None:
    """Wait until something listens on 127.0.0.1:port (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


@contextlib.contextmanager
def server_process(module: str, *args: str) -> Iterator[int]:
    """Run ``python benchmarks/<module>.py PORT *args`` and yield the port; stop it by PID."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(HERE / f"{module}.py"), str(port), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=child_env(),
    )
    try:
        try:
            wait_port(port)
        except RuntimeError:
            proc.kill()
            _, err = proc.communicate(timeout=5)
            raise RuntimeError(f"{module} did not start: {err.decode(errors='replace')}") from None
        yield port
    finally:
        stop_process(proc)
        if proc.stderr is not None:
            proc.stderr.close()


def start_script(
    script: str, port: int, *args: str, timeout: float = 20.0
) -> subprocess.Popen[bytes]:
    """Run ``python SCRIPT *args`` (a server of that script) and wait until ``port`` listens."""
    proc = subprocess.Popen([sys.executable, script, *args], env=child_env())
    try:
        wait_port(port, timeout)
    except RuntimeError:
        stop_process(proc)
        raise
    return proc


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    """Stop a process by its PID: SIGTERM, then SIGKILL after 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def run_uvicorn(app: Any, port: int) -> None:
    """Serve ``app`` on 127.0.0.1:port under uvicorn until terminated (the servers' settings)."""
    import uvicorn

    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        backlog=4096,
        timeout_keep_alive=600,  # the connections idle while the other sides are measured
        ws="none",
        lifespan="on",
    )


def median(values: list[float]) -> float:
    """Median of a non-empty list."""
    return statistics.median(values)


def report(name: str, value: float, unit: str = "x", goal: str = "") -> None:
    """Print one figure as a line: name, value, goal."""
    suffix = f"   (goal: {goal})" if goal else ""
    print(f"  {name:<58} {value:8.3f}{unit}{suffix}", flush=True)


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) of values."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


# --- the load of the receiver benchmarks -----------------------------------------------------


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
    conns: list[Connection], per_conn: int, make_body: Callable[[str], bytes], tag: str
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


#: A side of the load: its open connections and what makes the body of a delivery id.
Side = tuple[list[Connection], Callable[[str], bytes]]


async def open_sides(ports: dict[str, int], connections: int) -> dict[str, Side]:
    """Open ``connections`` keep-alive connections to each server of ``ports``.

    The side named ``floor`` (a bare ASGI app) gets one fixed body; every other side a new
    delivery id per request, so that every answer of a receiver stores a new event.
    """
    fixed = delivery("floor")
    sides: dict[str, Side] = {}
    for name, port in ports.items():
        conns = [await Connection.open(port) for _ in range(connections)]
        sides[name] = (conns, (lambda _: fixed) if name == "floor" else delivery)
    return sides


def close_sides(sides: dict[str, Side]) -> None:
    """Close every connection of every side."""
    for conns, _ in sides.values():
        for conn in conns:
            conn.close()


@dataclass
class Saturation:
    """The samples of saturated rounds, per side: latencies, seconds spent, non-200 answers."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)

    def throughput(self, name: str) -> float:
        """Requests per second of a side over its rounds."""
        return len(self.latencies[name]) / self.seconds[name]

    def p50(self, name: str) -> float:
        """A side's median time to answer, seconds."""
        return statistics.median(self.latencies[name])

    def p99(self, name: str) -> float:
        """A side's 99th percentile time to answer, seconds."""
        return percentile(self.latencies[name], 99)

    def report_sides(self) -> None:
        """Print each side's requests, throughput, p50 and p99."""
        for name, lat in self.latencies.items():
            report(f"{name}: requests (non-200 answers: {self.errors[name]})", len(lat), "")
            report(f"{name}: throughput, req/s", self.throughput(name), "")
            report(f"{name}: p50 time to answer, ms", self.p50(name) * 1e3, " ms")
            report(f"{name}: p99 time to answer, ms", self.p99(name) * 1e3, " ms")


async def saturate(sides: dict[str, Side], rounds: int, per_conn: int) -> Saturation:
    """Interleaved saturated rounds: each side in turn, every connection back to back.

    One warm-up round, then ``rounds`` measured ones; each round sends ``per_conn`` requests
    per connection to each side, in the order of ``sides``.
    """
    result = Saturation(
        {name: [] for name in sides}, dict.fromkeys(sides, 0.0), dict.fromkeys(sides, 0)
    )
    run = os.urandom(4).hex()
    for round_no in range(rounds + 1):
        for name, (conns, make) in sides.items():
            lat, secs, errs = await run_round(conns, per_conn, make, f"{run}-{name}-{round_no}")
            if round_no == 0:
                continue  # warm-up
            result.latencies[name] += lat
            result.seconds[name] += secs
            result.errors[name] += errs
    return result
