"""Client CPU per call and concurrent throughput: smartpos vs raw httpx, same server, same run.

1. Client CPU per ``payments.create`` vs a raw ``httpx.Client.post`` of the same JSON (built
   with a fresh uuid4 referencia and read back with ``.json()``, as a hand-written integration
   does), sync and async, interleaved blocks on long-lived clients. Goal: under 10 % extra.
2. 1,000 concurrent ``print_jobs.create`` on one ``AsyncClient`` vs the same on a raw
   ``httpx.AsyncClient``: zero errors, throughput at least 0.9x raw.

The server (uvicorn, another process) is not measured: only this process's CPU time is.

    python benchmarks/bench_client.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid

import httpx
from _common import median, report, server_process

import smartpos

DOC = "52998224725"
KEY = "bench-key"
TERMINAL = "SP-BENCH-1"


def raw_payment(http: httpx.Client, url: str) -> None:
    body = {
        "referencia": str(uuid.uuid4()),
        "documentoCliente": DOC,
        "valorCentavos": 1234,
        "modoExecucao": "imediato",
        "smartposId": TERMINAL,
    }
    response = http.post(
        url,
        content=json.dumps(body).encode(),
        headers={"x-api-key": KEY, "content-type": "application/json"},
    )
    response.raise_for_status()
    response.json()


async def araw_payment(http: httpx.AsyncClient, url: str) -> None:
    body = {
        "referencia": str(uuid.uuid4()),
        "documentoCliente": DOC,
        "valorCentavos": 1234,
        "modoExecucao": "imediato",
        "smartposId": TERMINAL,
    }
    response = await http.post(
        url,
        content=json.dumps(body).encode(),
        headers={"x-api-key": KEY, "content-type": "application/json"},
    )
    response.raise_for_status()
    response.json()


def sync_cpu(base_url: str, calls: int, block: int) -> tuple[float, float]:
    """Return (sdk CPU seconds, raw CPU seconds) over ``calls`` calls each."""
    sdk_cpu = raw_cpu = 0.0
    with smartpos.Client(api_key=KEY, base_url=base_url) as client, httpx.Client() as http:
        url = base_url + "/v1/payments"
        # Warm up both: connections, caches, the converter's generated code.
        for _ in range(20):
            client.payments.create(documento_cliente=DOC, valor_centavos=1234, smartpos_id=TERMINAL)
            raw_payment(http, url)
        for _ in range(calls // block):
            start = time.process_time()
            for _ in range(block):
                client.payments.create(
                    documento_cliente=DOC, valor_centavos=1234, smartpos_id=TERMINAL
                )
            sdk_cpu += time.process_time() - start
            start = time.process_time()
            for _ in range(block):
                raw_payment(http, url)
            raw_cpu += time.process_time() - start
    return sdk_cpu, raw_cpu


async def async_cpu(base_url: str, calls: int, block: int) -> tuple[float, float]:
    """Async twin of :func:`sync_cpu`."""
    sdk_cpu = raw_cpu = 0.0
    async with (
        smartpos.AsyncClient(api_key=KEY, base_url=base_url) as client,
        httpx.AsyncClient() as http,
    ):
        url = base_url + "/v1/payments"
        for _ in range(20):
            await client.payments.create(
                documento_cliente=DOC, valor_centavos=1234, smartpos_id=TERMINAL
            )
            await araw_payment(http, url)
        for _ in range(calls // block):
            start = time.process_time()
            for _ in range(block):
                await client.payments.create(
                    documento_cliente=DOC, valor_centavos=1234, smartpos_id=TERMINAL
                )
            sdk_cpu += time.process_time() - start
            start = time.process_time()
            for _ in range(block):
                await araw_payment(http, url)
            raw_cpu += time.process_time() - start
    return sdk_cpu, raw_cpu


async def concurrent(base_url: str, n: int) -> tuple[float, float, int]:
    """Return (sdk throughput, raw throughput, sdk errors) for ``n`` concurrent print jobs."""
    content = "Recibo de teste\n" * 8
    errors = 0

    async def sdk_one(client: smartpos.AsyncClient) -> None:
        nonlocal errors
        try:
            await client.print_jobs.create(
                documento_cliente=DOC, smartpos_id=TERMINAL, conteudo=content
            )
        except smartpos.SmartPOSError:
            errors += 1

    async def raw_one(http: httpx.AsyncClient) -> None:
        import base64

        body = {
            "referencia": str(uuid.uuid4()),
            "documentoCliente": DOC,
            "smartposId": TERMINAL,
            "conteudo": {"tipo": "base64", "base64": base64.b64encode(content.encode()).decode()},
        }
        response = await http.post(
            base_url + "/v1/print-jobs",
            content=json.dumps(body).encode(),
            headers={"x-api-key": KEY, "content-type": "application/json"},
        )
        response.raise_for_status()
        response.json()

    sdk_rates: list[float] = []
    raw_rates: list[float] = []
    timeout = httpx.Timeout(60.0)
    async with (
        smartpos.AsyncClient(api_key=KEY, base_url=base_url, timeout=timeout) as client,
        httpx.AsyncClient(timeout=timeout) as http,
    ):
        for _ in range(2):
            start = time.perf_counter()
            await asyncio.gather(*(sdk_one(client) for _ in range(n)))
            sdk_rates.append(n / (time.perf_counter() - start))
            start = time.perf_counter()
            await asyncio.gather(*(raw_one(http) for _ in range(n)))
            raw_rates.append(n / (time.perf_counter() - start))
    return median(sdk_rates), median(raw_rates), errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny run that proves it works")
    args = parser.parse_args()
    calls, block, burst = (100, 50, 50) if args.quick else (2000, 100, 1000)

    print("bench_client: smartpos vs raw httpx against one local uvicorn server")
    with server_process("_acceptance_server") as port:
        base_url = f"http://127.0.0.1:{port}"
        sdk, raw = sync_cpu(base_url, calls, block)
        report(
            f"sync  CPU per payments.create / raw httpx ({calls} calls)", sdk / raw, goal="< 1.10x"
        )
        report("sync  CPU per call, smartpos", sdk / calls * 1e6, " us")
        report("sync  CPU per call, raw httpx", raw / calls * 1e6, " us")
        sdk, raw = asyncio.run(async_cpu(base_url, calls, block))
        report(
            f"async CPU per payments.create / raw httpx ({calls} calls)", sdk / raw, goal="< 1.10x"
        )
        report("async CPU per call, smartpos", sdk / calls * 1e6, " us")
        report("async CPU per call, raw httpx", raw / calls * 1e6, " us")
        sdk_rate, raw_rate, errors = asyncio.run(concurrent(base_url, burst))
        report(
            f"{burst} concurrent print_jobs.create: throughput / raw",
            sdk_rate / raw_rate,
            goal=">= 0.9x",
        )
        report("  smartpos requests/s", sdk_rate, " /s")
        report("  raw httpx requests/s", raw_rate, " /s")
        report("  smartpos errors", float(errors), "", goal="0")


if __name__ == "__main__":
    main()
