"""What a webhook endpoint says about itself in an OpenAPI document (framework-free data)."""

from __future__ import annotations

from typing import Any, Final

from smartpos.webhooks._events import EVENT_KINDS

__all__ = ["ENVELOPE_EXAMPLE", "ENVELOPE_SCHEMA", "RESPONSE_DESCRIPTIONS", "WEBHOOK_DESCRIPTION"]

ENVELOPE_EXAMPLE: Final[dict[str, Any]] = {
    "id": "evt_01J8Z6X4Q2",
    "tipo": "pagamento.aprovado",
    "criadoEm": "2026-05-04T13:45:12-03:00",
    "dados": {
        "referencia": "3f2b8c1e-9a4d-4f6b-8e2a-1c5d7e9f0a1b",
        "documentoCliente": "52998224725",
        "status": "aprovado",
        "valorCentavos": 15990,
        "smartposId": "SP-BALCAO-1",
    },
}

#: The envelope of spec 2.9, as the service sends it (camelCase), and as the receiver admits
#: it (``webhooks._receiver``): only ``id`` and ``tipo`` are required, non-empty strings of at
#: most 256 printable characters. A ``criadoEm`` or ``dados`` that is absent or unreadable
#: does not refuse a delivery: the event is stored and the worker dead-letters it, so it is
#: never lost to a strict check. tests/integrations/test_fastapi.py posts examples derived
#: from this schema and ``id: ""`` to the router: schema and behaviour stay one.
ENVELOPE_SCHEMA: Final[dict[str, Any]] = {
    "title": "Evento",
    "description": "A webhook event envelope (spec 2.9). Unknown fields and tipos are kept. "
    "Only id and tipo are required to store it; the service always sends criadoEm and dados, "
    "and an event without them (or whose dados does not fit its tipo) is stored and "
    "dead-lettered by the worker.",
    "type": "object",
    "required": ["id", "tipo"],
    "properties": {
        "id": {
            "type": "string",
            "minLength": 1,
            "maxLength": 256,
            "description": "Unique event id; a redelivery or manual resend reuses it. "
            "Printable characters only.",
        },
        "tipo": {
            "type": "string",
            "minLength": 1,
            "maxLength": 256,
            "description": f"{', '.join(EVENT_KINDS)}, or a newer one. Printable characters only.",
            "examples": ["pagamento.aprovado"],
        },
        "criadoEm": {
            "type": "string",
            "format": "date-time",
            "description": "When the service generated the event (ISO 8601).",
        },
        "dados": {
            "type": "object",
            "additionalProperties": True,
            "description": "The event's data; its fields depend on tipo (spec 6).",
        },
    },
    "additionalProperties": True,
    "example": ENVELOPE_EXAMPLE,
}

WEBHOOK_DESCRIPTION: Final = (
    "Receives the smartpos service's webhook deliveries: checks its authenticity (a shared "
    "secret or a signature), stores the event durably and answers at once; a worker "
    "processes it later. Configure this URL in the partner portal."
)

#: Status -> what the receiver means by it.
RESPONSE_DESCRIPTIONS: Final[dict[int, str]] = {
    200: "Stored (duplicado: false), or already stored (duplicado: true; conflito: true when "
    "the body differed, the first one is kept). The service stops delivering it.",
    400: "Not an event at all (EVENTO_INVALIDO) or a body cut short (CORPO_INCOMPLETO).",
    401: "The delivery failed verification (NAO_AUTORIZADO): a missing or wrong secret or "
    "signature, or a stale timestamp.",
    405: "Only POST is accepted (METODO_NAO_PERMITIDO).",
    413: "The body is over the receiver's max_body_bytes (CORPO_MUITO_GRANDE).",
    503: "The store failed or was too slow (ARMAZENAMENTO_INDISPONIVEL); nothing was lost: "
    "the service delivers again (Retry-After: 1).",
}
