"""The shop's payment code: pair a terminal, charge it, and act on the events.

The views only *start* things; a sale is final when ``pagamento.aprovado`` reaches
``handle_event``, which ``python manage.py smartpos_worker`` runs outside any request.
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse, JsonResponse

import smartpos
from smartpos import webhooks
from smartpos.integrations.django import get_async_client, get_client

__all__ = ["charge", "handle_event", "pair_terminal"]

logger = logging.getLogger("shop.payments")


def pair_terminal(request: HttpRequest, documento: str) -> HttpResponse:
    """Show the QR code the customer's terminal reads to pair itself (a plain, sync view)."""
    qr = get_client().qrcodes.create(documento_cliente=documento)
    image = qr.to_data_uri()  # an SVG data: URI, black on white
    return HttpResponse(
        f'<img alt="QR code to pair the terminal" src="{image}">'
        f"<p>Valid until {qr.expires_at:%H:%M} UTC.</p>"
    )


async def charge(request: HttpRequest) -> JsonResponse:
    """Start a payment of the amount typed at the till ("19,90") on the customer's terminal."""
    if request.method != "POST":
        return JsonResponse({"erro": "use POST"}, status=405)
    try:
        valor_centavos = smartpos.to_centavos(request.POST["valor"])
        accepted = await get_async_client().payments.create(
            documento_cliente=request.POST["documento"],
            smartpos_id=request.POST["terminal"],
            valor_centavos=valor_centavos,
        )
    except smartpos.OutcomeUnknownError as exc:
        # May have charged: wait for the event of this referencia, never charge again.
        return JsonResponse({"referencia": exc.referencia, "estado": "aguardando"}, status=202)
    except (smartpos.ValidationError, smartpos.APIError, smartpos.TransportError) as exc:
        return JsonResponse({"erro": str(exc)}, status=400)
    return JsonResponse(
        {
            "referencia": accepted.referencia,
            "valor": smartpos.format_reais(valor_centavos),
            "estado": "aguardando",
        },
        status=202,
    )


def handle_event(event: webhooks.Event) -> None:
    """Act on one event; runs in smartpos_worker, at least once per event (be idempotent)."""
    if isinstance(event, webhooks.PagamentoAprovado):
        valor = event.dados.valor_centavos
        shown = smartpos.format_reais(valor) if valor is not None else "?"
        # Finalize the sale here (in one transaction.atomic()); keep event.dados.autorizacao.
        logger.info("sale %s approved: %s", event.dados.referencia, shown)
    elif isinstance(event, webhooks.PagamentoRecusado):
        logger.info("sale %s refused", event.dados.referencia)
    else:
        logger.info("event %s (%s) recorded", event.id, event.tipo)
