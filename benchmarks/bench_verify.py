"""Receiver throughput with signature verification on against off, same run.

Two measurements, each interleaving its sides in rounds so that the machine's load falls on
all of them alike (see BENCHMARKING.md):

- **Over HTTP** (the goal): one uvicorn process on 127.0.0.1 serves one
  ``WebhookReceiver(SQLiteStore(path, synchronous="FULL")).asgi_app()`` per scheme, each at
  its own path and on its own file, and one without a verifier (``off``). Keep-alive
  connections on raw asyncio streams send new deliveries back to back; the requests of a
  round are signed before the round starts, so the load generator's cost is the same for every
  side, and ``off`` gets the same signed headers as the scheme it is compared with. Reported
  per scheme, as ratios to ``off``: deliveries per second of the server process's CPU (read
  from ``/proc``; the sides take turns, so a round's CPU is its side's), which is what bounds
  a saturated receiver, and the wall-clock throughput, which fsync waits make noisy. Goal
  (issue 23): >= 0.9x for the HMAC schemes.
- **In process** (what verification itself costs): ``receiver.receive(body, headers)`` on a
  ``MemoryStore``, no network, no disk: the worst case for a ratio, since nothing else is
  paid; reported as CPU microseconds per delivery over ``off``'s.

    python benchmarks/bench_verify.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import (
    Connection,
    delivery,
    free_port,
    median,
    report,
    run_uvicorn,
    start_script,
    stop_process,
)

__all__ = ["main"]

WHSEC = "whsec_" + base64.b64encode(b"bench-verify-secret-24-by").decode()
SECRET = "bench-verify-secret"
MANIFEST = "{header:webhook-id}.{timestamp}.{body}"
SEED = bytes(range(32))
HMAC_SCHEMES = ("standard-webhooks", "stripe", "hmac-manifest", "token", "hmac", "shared-secret")


def crypto_installed() -> bool:
    """Whether the ed25519 side can run (``smartpos[crypto]``)."""
    try:
        import cryptography  # noqa: F401
    except ImportError:
        return False
    return True


def sides() -> list[str]:
    """The sides measured: no verifier, then each scheme."""
    return ["off", *HMAC_SCHEMES, *(["ed25519"] if crypto_installed() else [])]


def make_verifier(side: str) -> Any:
    """The verifier of one side (``None`` for ``off``)."""
    from smartpos import webhooks

    if side == "off":
        return None
    if side == "standard-webhooks":
        return webhooks.StandardWebhooksVerifier(WHSEC)
    if side == "hmac-manifest":
        return webhooks.make_verifier(side, SECRET, template=MANIFEST)
    if side == "ed25519":
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        public = Ed25519PrivateKey.from_private_bytes(SEED).public_key().public_bytes_raw()
        return webhooks.Ed25519SignatureVerifier(public)
    return webhooks.make_verifier(side, SECRET)


def headers_for(side: str, body: bytes, event_id: str) -> dict[str, str]:
    """The headers of one delivery of ``side``, signed now."""
    from smartpos.testing import sign

    if side == "off":
        return {}
    if side == "standard-webhooks":
        return sign(body, secret=WHSEC)
    if side == "hmac-manifest":
        return sign(
            body,
            secret=SECRET,
            scheme=side,
            template=MANIFEST,
            headers={"webhook-id": event_id},
        )
    if side == "ed25519":
        return sign(body, secret=SEED, scheme=side)
    return sign(body, secret=SECRET, scheme=side)


# --- the server (run as: bench_verify.py --serve PORT DIR) -----------------------------------


def serve(port: int, folder: str) -> None:
    """One uvicorn process: at /<scheme> a receiver verifying it, at /<scheme>-off one that
    verifies nothing; until terminated."""
    from smartpos.webhooks import SQLiteStore, WebhookReceiver

    # A receiver per scheme and, beside it, one without a verifier on a file of its own: both
    # members of a pair write to stores of the same size.
    apps = {
        f"/{scheme}{suffix}": WebhookReceiver(
            SQLiteStore(Path(folder) / f"{scheme}{suffix}.db", synchronous="FULL"),
            verifier=None if suffix else make_verifier(scheme),
        ).asgi_app()
        for scheme in sides()[1:]
        for suffix in ("", "-off")
    }

    async def router(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        await apps[scope["path"]](scope, receive, send)

    run_uvicorn(router, port)


# --- over HTTP -------------------------------------------------------------------------------


def request_bytes(side: str, body: bytes, headers: dict[str, str]) -> bytes:
    """One HTTP/1.1 keep-alive POST to ``side``'s path."""
    lines = [
        f"POST /{side} HTTP/1.1",
        "Host: 127.0.0.1",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


async def http_round(
    conns: list[Connection], scheme: str, path: str, per_conn: int, tag: str
) -> tuple[int, float, int]:
    """Sign ``per_conn`` deliveries per connection under ``scheme``, then send them to
    ``path``; return the count, the seconds and the non-200 answers."""
    prepared = []
    for index in range(len(conns)):
        batch = []
        for n in range(per_conn):
            event_id = f"{tag}-{path}-{index}-{n}"
            body = delivery(event_id)
            batch.append(request_bytes(path, body, headers_for(scheme, body, event_id)))
        prepared.append(batch)
    errors = 0

    async def drive(conn: Connection, batch: list[bytes]) -> None:
        nonlocal errors
        for data in batch:
            errors += await conn.post(data) != 200

    started = time.perf_counter()
    await asyncio.gather(*(drive(c, b) for c, b in zip(conns, prepared, strict=True)))
    return len(conns) * per_conn, time.perf_counter() - started, errors


def process_cpu(pid: int) -> float | None:
    """Seconds of CPU (user + system) process ``pid`` used so far; ``None`` off Linux."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure_http(
    port: int, server_pid: int, connections: int, rounds: int, per_conn: int
) -> None:
    """For each scheme, interleave rounds of the same signed deliveries sent to its verifying
    receiver and to the one that verifies nothing (``off``); report the ratios of each pair.

    Both members of a pair get the very same headers, so the ratio is the verification's
    cost alone, not the cost of parsing a few more header bytes (which a receiver pays
    whether or not it verifies).
    """
    schemes = sides()[1:]
    conns = [await Connection.open(port) for _ in range(connections)]
    keys = [(scheme, path) for scheme in schemes for path in (scheme, "off")]
    count = dict.fromkeys(keys, 0)
    seconds = dict.fromkeys(keys, 0.0)
    cpu = dict.fromkeys(keys, 0.0)
    errors = dict.fromkeys(keys, 0)
    run = os.urandom(4).hex()
    for round_no in range(rounds + 1):
        for scheme in schemes:
            pair = [scheme, "off"] if round_no % 2 else ["off", scheme]
            for path in pair:
                before = process_cpu(server_pid)
                target = scheme if path == scheme else f"{scheme}-off"
                n, secs, errs = await http_round(
                    conns, scheme, target, per_conn, f"{run}-{round_no}"
                )
                after = process_cpu(server_pid)
                if round_no == 0:
                    continue  # warm-up
                key = (scheme, path)
                count[key] += n
                seconds[key] += secs
                errors[key] += errs
                if before is not None and after is not None:
                    cpu[key] += after - before
    for conn in conns:
        conn.close()
    print(
        f"Over HTTP: uvicorn, SQLite FULL per receiver, {connections} keep-alive connections, "
        f"{rounds} interleaved rounds of {per_conn} deliveries per connection per side; each "
        "scheme against a receiver without a verifier sent the same headers"
    )
    measured_cpu = all(cpu.values())
    off_cpu = sum(cpu[(s, "off")] for s in schemes)
    off_count = sum(count[(s, "off")] for s in schemes)
    if measured_cpu:
        report("off: server CPU per delivery, us", off_cpu / off_count * 1e6, " us")
    report(
        "off: throughput, deliveries/s",
        off_count / sum(seconds[(s, "off")] for s in schemes),
        "",
    )
    for scheme in schemes:
        on, off = (scheme, scheme), (scheme, "off")
        goal = ">= 0.9x" if scheme in HMAC_SCHEMES else ""
        if measured_cpu:
            report(
                f"{scheme} / off, deliveries per server CPU second",
                (count[on] / cpu[on]) / (count[off] / cpu[off]),
                goal=goal,
            )
        report(
            f"{scheme} / off, throughput (non-200: {errors[on]}, {errors[off]})",
            (count[on] / seconds[on]) / (count[off] / seconds[off]),
            goal="" if measured_cpu else goal,
        )


# --- in process --------------------------------------------------------------------------------


def measure_in_process(blocks: int, per_block: int) -> None:
    """CPU per ``receive`` with and without verification, interleaved blocks, MemoryStore."""
    from smartpos.webhooks import MemoryStore, WebhookReceiver

    names = sides()
    receivers = {
        side: WebhookReceiver(MemoryStore(), verifier=make_verifier(side)) for side in names
    }
    cpu: dict[str, list[float]] = {side: [] for side in names}
    for block in range(blocks + 1):
        for side in names if block % 2 else list(reversed(names)):
            deliveries = []
            for n in range(per_block):
                event_id = f"cpu-{block}-{side}-{n}"
                body = delivery(event_id)
                deliveries.append((body, headers_for(side, body, event_id)))
            receive: Callable[..., Any] = receivers[side].receive
            started = time.process_time()
            for body, headers in deliveries:
                receive(body, headers)
            spent = time.process_time() - started
            if block:
                cpu[side].append(spent / per_block)
    print(
        f"In process: receive() on a MemoryStore, {blocks} interleaved blocks of {per_block} "
        "deliveries per side (nothing else paid: the worst case for a ratio)"
    )
    off = median(cpu["off"])
    report("off: CPU per delivery, us", off * 1e6, " us")
    for side in names[1:]:
        mine = median(cpu[side])
        report(f"{side}: verification CPU per delivery, us", (mine - off) * 1e6, " us")
        report(f"{side} / off, deliveries per CPU second", off / mine)


def start(port: int, folder: str) -> subprocess.Popen[bytes]:
    """Start the server process of this script."""
    return start_script(__file__, port, "--serve", str(port), folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run for CI")
    parser.add_argument("--serve", nargs=2, metavar="ARG", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), args.serve[1])
        return
    if args.quick:
        connections, rounds, per_conn, blocks, per_block = 10, 1, 3, 2, 50
    else:
        connections, rounds, per_conn, blocks, per_block = 50, 12, 20, 10, 400
    measure_in_process(blocks, per_block)
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        proc = start(port, tmp)
        try:
            asyncio.run(
                asyncio.wait_for(measure_http(port, proc.pid, connections, rounds, per_conn), 900)
            )
        finally:
            stop_process(proc)


if __name__ == "__main__":
    main()
