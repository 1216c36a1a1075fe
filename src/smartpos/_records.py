"""JSON-ready records of the journal's operations and sales, documents masked (LGPD).

One shape for every place that shows them: ``smartpos operations``/``smartpos sales --json``,
the Django admin pages, the status endpoints. No request body is included, and every
``documentoCliente`` is masked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ._documents import mask_documento

if TYPE_CHECKING:
    from .webhooks._events import Event
    from .webhooks._outcomes import Operation
    from .webhooks._sales import Pendencia, Sale

__all__ = [
    "Terms",
    "attempt_terms",
    "compensated_attempts",
    "compensation_of",
    "mask_documents",
    "operation_data",
    "pendencia_data",
    "pendencias_data",
    "sale_data",
]


def mask_documents(value: Any) -> Any:
    """Return a copy of JSON-like data with every ``documentoCliente`` masked, at any depth.

    What the command prints (text or ``--json``) goes through this: an envelope, an inbox
    record, a delivery. Only the data printed is masked; stores and requests keep the document.

    Args:
        value: Dicts, lists and scalars, nested freely.

    Returns:
        The same shape, each ``documentoCliente`` value replaced by its mask.
    """
    if isinstance(value, Mapping):
        return {
            k: mask_documento(v) if k == "documentoCliente" and v is not None else mask_documents(v)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [mask_documents(v) for v in value]
    return value


def operation_data(operation: Operation) -> dict[str, Any]:
    """An operation as JSON-ready data: no request body, documents masked.

    Args:
        operation: The journaled operation.

    Returns:
        ``referencia``, ``kind``, ``state``, ``created_at``, ``updated_at``, ``event`` (its
        ``id`` and ``tipo``, or ``None``), ``anomalies`` and ``answer`` (the saved answer's
        JSON, or ``None``).
    """
    event = operation.event
    return {
        "referencia": operation.referencia,
        "kind": operation.kind,
        "state": operation.state,
        "waiting": operation.waiting,
        "created_at": operation.created_at.isoformat(),
        "updated_at": operation.updated_at.isoformat(),
        "event": None if event is None else {"id": event.id, "tipo": event.tipo},
        "anomalies": [
            {"id": a.id, "tipo": a.tipo, "reason": a.reason, "detail": a.detail}
            for a in operation.anomalies
        ],
        "answer": None if operation.answer is None else mask_documents(dict(operation.answer.body)),
    }


class Terms(NamedTuple):
    """What an attempt charged: its amount, terminal and payment method (``None``: unknown)."""

    valor_centavos: int
    smartpos_id: str | None
    forma_pagamento: str | None


def _request(body: bytes) -> Mapping[str, Any]:
    """The journaled request's JSON (a mapping, or empty when it cannot be read)."""
    import json

    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def attempt_terms(operation: Operation) -> Terms:
    """An attempt's amount, terminal and payment method: its event's, else its request's.

    The amount is what an approval counts (`smartpos.webhooks._sales.counted_valor`); a
    manual-mode charge names its terminal only in its event.

    Args:
        operation: A payment attempt (or a compensation refund) of a sale.

    Returns:
        The terms.
    """
    from .webhooks._sales import counted_valor

    request = _request(operation.body)
    dados = getattr(operation.event, "dados", None)
    smartpos_id = _text(getattr(dados, "smartpos_id", None)) or _text(request.get("smartposId"))
    forma = _text(getattr(dados, "forma_pagamento", None)) or _text(request.get("formaPagamento"))
    return Terms(counted_valor(operation), smartpos_id, forma)


def _documento(event: Event | None) -> str | None:
    documento = getattr(getattr(event, "dados", None), "documento_cliente", None)
    return None if documento is None else mask_documento(documento)


def compensated_attempts(sale: Sale) -> dict[str, Operation]:
    """The late attempt each compensation refund of the sale refunds, by the refund's referencia."""
    from .webhooks._sales import compensation_referencia

    return {compensation_referencia(op.referencia): op for op in sale.attempts}


def compensation_of(sale: Sale) -> dict[str, Operation]:
    """The compensation refund journaled for each late attempt, by the attempt's referencia."""
    late = compensated_attempts(sale)
    return {
        late[op.referencia].referencia: op for op in sale.compensations if op.referencia in late
    }


def pendencia_data(pendencia: Pendencia, compensation: Operation | None = None) -> dict[str, Any]:
    """A pendência as JSON-ready data: its event named (``id``, ``tipo``), the document masked.

    Args:
        pendencia: The pendência.
        compensation: For a late approval, its compensation refund if one is journaled (not
            accepted, or it would not be a pendência: refused, unknown, never sent).

    Returns:
        ``reason``, ``referencia``, ``since``, ``event``, ``documento_cliente`` and
        ``compensation`` (its ``referencia`` and ``state``, or ``None``).
    """
    event = pendencia.event
    return {
        "reason": pendencia.reason,
        "referencia": pendencia.referencia,
        "since": pendencia.since.isoformat(),
        "event": None if event is None else {"id": event.id, "tipo": event.tipo},
        "documento_cliente": _documento(event),
        "compensation": None
        if compensation is None or pendencia.reason != "late_approval"
        else {"referencia": compensation.referencia, "state": compensation.state},
    }


def pendencias_data(sale: Sale) -> list[dict[str, Any]]:
    compensation = compensation_of(sale)
    return [pendencia_data(p, compensation.get(p.referencia)) for p in sale.pendencias]


def sale_data(sale: Sale) -> dict[str, Any]:
    """A sale as JSON-ready data: no request body, documents masked.

    Args:
        sale: The sale, as the store computes it.

    Returns:
        Its fields; ``attempts`` are `operation_data` records with ``valor_centavos``,
        ``smartpos_id``, ``forma_pagamento`` and ``abandoned`` (``motivo``, ``operador``,
        ``at``, or ``None``); ``compensations`` name the attempt each refunds (``compensates``).
    """
    attempts = []
    for op in sale.attempts:
        terms = attempt_terms(op)
        abandoned = op.abandoned
        attempts.append(
            {
                **operation_data(op),
                "valor_centavos": terms.valor_centavos,
                "smartpos_id": terms.smartpos_id,
                "forma_pagamento": terms.forma_pagamento,
                "abandoned": None
                if abandoned is None
                else {
                    "motivo": abandoned.motivo,
                    "operador": abandoned.operador,
                    "at": abandoned.at.isoformat(),
                },
            }
        )
    late = compensated_attempts(sale)
    return {
        "sale_id": sale.sale_id,
        "state": sale.state,
        "total_centavos": sale.total_centavos,
        "approved_centavos": sale.approved_centavos,
        "remaining_centavos": sale.remaining_centavos,
        "attention": sale.attention,
        "created_at": sale.created_at.isoformat(),
        "updated_at": sale.updated_at.isoformat(),
        "attempts": attempts,
        "approvals": [
            {
                "id": event.id,
                "referencia": event.dados.referencia,
                "criado_em": event.criado_em.isoformat(),
                "valor_centavos": event.dados.valor_centavos,
                "forma_pagamento": event.dados.forma_pagamento,
                "parcelas": event.dados.parcelas,
                "smartpos_id": event.dados.smartpos_id,
                "documento_cliente": mask_documento(event.dados.documento_cliente),
            }
            for event in sale.approvals
        ],
        "pendencias": pendencias_data(sale),
        "compensations": [
            {
                **operation_data(op),
                "compensates": late[op.referencia].referencia if op.referencia in late else None,
            }
            for op in sale.compensations
        ],
    }
