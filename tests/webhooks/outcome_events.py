"""Requests and events for the outcome tests, written from the spec (never from the SDK).

``payment_request`` and friends build the exact body a client sends; ``event`` builds a
webhook envelope whose ``dados`` matches a request, with overrides for the hard cases
(another amount, another document, another terminal).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import attrs

__all__ = [
    "DOCUMENTO",
    "OTHER_DOCUMENTO",
    "REFERENCIA",
    "SMARTPOS_ID",
    "Envelope",
    "event",
    "payment_request",
    "print_request",
    "qrcode_request",
    "refund_request",
]

#: A valid CPF; it must never appear in a repr or a log.
DOCUMENTO = "52998224725"
#: Another valid CPF.
OTHER_DOCUMENTO = "11144477735"
SMARTPOS_ID = "SP-1"
REFERENCIA = "7b1c2a64-8d2e-4f0a-9a53-0d6c1d2e3f40"
_CRIADO_EM = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.timezone.utc)


@attrs.frozen
class Envelope:
    """An event as a store needs it (``EventLike``), built without the typed parser."""

    id: str
    tipo: str
    criado_em: dt.datetime | None
    raw: dict[str, Any]


def _dumps(body: dict[str, Any]) -> bytes:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def payment_request(
    referencia: str = REFERENCIA,
    *,
    valor: int = 1000,
    smartpos_id: str | None = SMARTPOS_ID,
    documento: str = DOCUMENTO,
) -> bytes:
    """The body of ``POST /v1/payments`` (spec 2.1)."""
    body: dict[str, Any] = {
        "referencia": referencia,
        "documentoCliente": documento,
        "valorCentavos": valor,
        "modoExecucao": "imediato" if smartpos_id else "manual",
    }
    if smartpos_id is not None:
        body["smartposId"] = smartpos_id
    else:
        body["comanda"] = {"identificacao": "Mesa 4"}
    return _dumps(body)


def print_request(referencia: str = REFERENCIA, *, documento: str = DOCUMENTO) -> bytes:
    """The body of ``POST /v1/print-jobs`` (spec 2.5)."""
    return _dumps(
        {
            "referencia": referencia,
            "documentoCliente": documento,
            "smartposId": SMARTPOS_ID,
            "conteudo": {"tipo": "base64", "base64": "T2zDoQ=="},
        }
    )


def qrcode_request(referencia: str = REFERENCIA, *, documento: str = DOCUMENTO) -> bytes:
    """The body of ``POST /qrcode``."""
    return _dumps({"referencia": referencia, "documentoCliente": documento})


def refund_request(referencia: str = REFERENCIA, *, documento: str = DOCUMENTO) -> bytes:
    """The body of ``POST /v1/refunds`` (spec 2.4)."""
    return _dumps(
        {
            "referencia": referencia,
            "documentoCliente": documento,
            "smartposId": SMARTPOS_ID,
            "valorCentavos": 1000,
            "pagamentoOriginal": {
                "codigoAutorizacao": "A1",
                "numeroTransacao": "N1",
                "dadosFinalizacao": "F1",
                "tipoPagamento": "credito",
            },
        }
    )


_STATUS = {
    "pagamento.aprovado": "aprovado",
    "pagamento.recusado": "recusado",
    "impressao.concluida": "concluida",
    "impressao.falhou": "falhou",
}


def event(
    event_id: str,
    tipo: str = "pagamento.aprovado",
    referencia: str = REFERENCIA,
    *,
    documento: str = DOCUMENTO,
    valor: int | None = 1000,
    smartpos_id: str | None = SMARTPOS_ID,
    **dados: Any,
) -> Envelope:
    """A spec-shaped event for ``referencia``; ``dados`` entries override or add fields."""
    body: dict[str, Any] = {"referencia": referencia, "documentoCliente": documento}
    if tipo == "smartpos.identificado":
        body.update(qrCodeId="qr-1", smartposId=smartpos_id or SMARTPOS_ID)
    else:
        body["status"] = _STATUS.get(tipo, "ok")
        if smartpos_id is not None:
            body["smartposId"] = smartpos_id
        if tipo.startswith("pagamento.") and valor is not None:
            body["valorCentavos"] = valor
    body.update(dados)
    raw = {"id": event_id, "tipo": tipo, "criadoEm": _CRIADO_EM.isoformat(), "dados": body}
    return Envelope(id=event_id, tipo=tipo, criado_em=_CRIADO_EM, raw=raw)
