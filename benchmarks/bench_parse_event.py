"""parse_event vs bare json.loads on the same bodies, in the same run.

Goal (issue 3): ``parse_event(bytes)`` at no less than 0.5x the rate of ``json.loads`` alone,
i.e. its total time at most twice that of decoding the JSON. Small blocks of the two sides
are interleaved (BENCHMARKING.md: compare, don't time) and each side's CPU time is summed.

For reference it also prints the rate of the plain cattrs converter the SDK started with
(``json.loads`` + ``cattrs.Converter.structure`` with the same strict hooks): that is the
"before" figure the generated structure functions of ``smartpos._wire`` improved on.

    python benchmarks/bench_parse_event.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from _common import report

from smartpos import _wire
from smartpos.webhooks import parse_event
from smartpos.webhooks._events import _BY_TIPO, UnknownEvent

__all__ = ["main"]

DOC = "52998224725"

BODIES: list[dict[str, Any]] = [
    {
        "id": "evt_01J0SMARTPOSIDENT0001",
        "tipo": "smartpos.identificado",
        "criadoEm": "2026-05-04T13:40:02.118Z",
        "dados": {
            "qrCodeId": "qr_7f3a9c21",
            "referencia": "0b6f3c2e-5d1a-4c8e-9f7b-2a4d6e8c0b1f",
            "documentoCliente": DOC,
            "smartposId": "SP-00042",
            "numeroSerieTerminal": "PAX-A910-5G-000123",
            "adquirente": "stone",
        },
    },
    {
        "id": "evt_01J0PAGAMENTOAPROV0001",
        "tipo": "pagamento.aprovado",
        "criadoEm": "2026-05-04T13:45:12.345-03:00",
        "dados": {
            "referencia": "3f2b8c1e-9a4d-4f6b-8e2a-1c5d7e9f0a1b",
            "documentoCliente": DOC,
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
            "resultadoSmartPOS": {
                "executado": True,
                "codigoStatus": "00",
                "mensagemOperador": "TRANSACAO APROVADA",
            },
        },
    },
    {
        "id": "evt_01J0PAGAMENTORECUS0001",
        "tipo": "pagamento.recusado",
        "criadoEm": "2026-05-04T13:46:00Z",
        "dados": {
            "referencia": "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f",
            "documentoCliente": DOC,
            "status": "recusado",
            "valorCentavos": 4200,
            "smartposId": "SP-00042",
            "resultadoSmartPOS": {
                "executado": False,
                "codigoStatus": "51",
                "mensagemOperador": "SALDO INSUFICIENTE",
            },
        },
    },
    {
        "id": "evt_01J0IMPRESSAOCONC0001",
        "tipo": "impressao.concluida",
        "criadoEm": "2026-05-04T13:47:30Z",
        "dados": {
            "referencia": "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
            "documentoCliente": DOC,
            "status": "concluida",
            "smartposId": "SP-00042",
            "resultadoSmartPOS": {"executado": True, "codigoStatus": "0"},
        },
    },
    {
        "id": "evt_01J0IMPRESSAOFALH0001",
        "tipo": "impressao.falhou",
        "criadoEm": "2026-05-04T13:48:05Z",
        "dados": {
            "referencia": "6f7a8b9c-0d1e-4f2a-b3c4-d5e6f7a8b9c0",
            "documentoCliente": DOC,
            "status": "sem_papel",
        },
    },
]


def cattrs_before(body: bytes) -> Any:
    """The starting point: json.loads, then the plain (fast) cattrs converter."""
    data = json.loads(body)
    return _wire._converter(False).structure(data, _BY_TIPO.get(data["tipo"], UnknownEvent))


def block(fn: Callable[[bytes], Any], bodies: list[bytes], rounds: int) -> float:
    """CPU seconds of ``rounds`` passes of ``fn`` over ``bodies``."""
    start = time.process_time()
    for _ in range(rounds):
        for body in bodies:
            fn(body)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run for CI")
    args = parser.parse_args()
    blocks, rounds, budget = (20, 100, 10.0) if args.quick else (60, 400, 60.0)

    bodies = [json.dumps(body).encode() for body in BODIES]
    for body in bodies:  # same results, and every hook warmed up
        assert parse_event(body) == cattrs_before(body)
    sides: dict[str, Callable[[bytes], Any]] = {
        "json.loads": json.loads,
        "parse_event": parse_event,
        "cattrs": cattrs_before,
    }
    totals = dict.fromkeys(sides, 0.0)
    deadline = time.monotonic() + budget
    done = 0
    for _ in range(blocks):
        for name, fn in sides.items():
            totals[name] += block(fn, bodies, rounds)
        done += 1
        if time.monotonic() > deadline:
            break
    calls = done * rounds * len(bodies)
    print(f"parse_event vs json.loads: {calls} calls per side, {len(bodies)} event kinds")
    report("json.loads, µs per body", totals["json.loads"] / calls * 1e6, " µs")
    report("parse_event(bytes), µs per body", totals["parse_event"] / calls * 1e6, " µs")
    report("before: json.loads + plain cattrs, µs per body", totals["cattrs"] / calls * 1e6, " µs")
    report(
        "before: rate ratio plain cattrs / json.loads",
        totals["json.loads"] / totals["cattrs"],
    )
    report(
        "rate ratio parse_event / json.loads",
        totals["json.loads"] / totals["parse_event"],
        goal=">= 0.5x",
    )


if __name__ == "__main__":
    main()
