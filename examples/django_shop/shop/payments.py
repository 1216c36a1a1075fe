"""The shop's payment code: pair a terminal, charge an order, and act on the events.

The views only *start* things. An order is paid when its sale is: ``on_sale`` runs once per
sale effect (paid, late approval, compensated) inside the transaction in which
``python manage.py smartpos_worker`` consumes the event, so marking the order paid and "event
consumed" are committed together, once. ``handle_event`` sees every event (logs here).
"""

from __future__ import annotations

import asyncio
import logging

from django.db.models import F
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

import smartpos
from smartpos import webhooks
from smartpos.integrations.django import DjangoStore, get_async_client, get_client, get_store

from .models import Order

__all__ = ["charge", "handle_event", "new_order", "on_sale", "pair_terminal"]

logger = logging.getLogger("shop.payments")


def pair_terminal(request: HttpRequest, documento: str) -> HttpResponse:
    """Show the QR code the customer's terminal reads to pair itself (a plain, sync view)."""
    qr = get_client().qrcodes.create(documento_cliente=documento)
    image = qr.to_data_uri()  # an SVG data: URI, black on white
    return HttpResponse(
        f'<img alt="QR code to pair the terminal" src="{image}">'
        f"<p>Valid until {qr.expires_at:%H:%M} UTC.</p>"
    )


def new_order(request: HttpRequest) -> JsonResponse:
    """Open an order (a tab) of the total typed at the till ("59,90")."""
    if request.method != "POST":
        return JsonResponse({"erro": "use POST"}, status=405)
    try:
        total = smartpos.to_centavos(request.POST["total"])
    except (KeyError, ValueError, smartpos.ValidationError) as exc:
        return JsonResponse({"erro": str(exc)}, status=400)
    order = Order.objects.create(numero=request.POST["numero"], total_centavos=total)
    return JsonResponse({"numero": order.numero, "total": smartpos.format_reais(total)}, status=201)


async def charge(request: HttpRequest) -> JsonResponse:
    """Charge part or all of an order ("valor", default what remains) on the customer's terminal.

    One attempt of an order is open at a time and an order is paid once: smartpos refuses a
    second charge while one is in flight (``SaleInProgressError``) or once it is paid
    (``SalePaidError``), whichever process or host tries.
    """
    if request.method != "POST":
        return JsonResponse({"erro": "use POST"}, status=405)
    try:
        order = await Order.objects.aget(numero=request.POST["numero"])
        valor = request.POST.get("valor")
        if valor:
            valor_centavos = smartpos.to_centavos(valor)
        else:  # what remains of the order (its total before the first attempt)
            store = get_store()
            assert isinstance(store, DjangoStore)  # SMARTPOS["STORE"] = "django://default"
            sale = await asyncio.to_thread(store.sale, order.numero)
            valor_centavos = order.total_centavos if sale is None else sale.remaining_centavos
        accepted = await get_async_client().payments.create(
            documento_cliente=request.POST["documento"],
            smartpos_id=request.POST["terminal"],
            valor_centavos=valor_centavos,
            sale=order.numero,
            total_centavos=order.total_centavos,
        )
    except Order.DoesNotExist:
        return JsonResponse({"erro": "no such order"}, status=404)
    except smartpos.OutcomeUnknownError as exc:
        # May have charged: wait for the event of this referencia, never charge again.
        return JsonResponse({"referencia": exc.referencia, "estado": "aguardando"}, status=202)
    except (smartpos.SaleInProgressError, smartpos.SalePaidError) as exc:
        return JsonResponse({"erro": str(exc)}, status=409)
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


def on_sale(effect: webhooks.SaleEffect) -> None:
    """Once per sale effect, in the transaction that consumes the event (SMARTPOS["ON_SALE"]).

    No idempotency to write: this update, the effect's key and the event's ack commit
    together or not at all. A call outside the database (an e-mail, the fiscal note) is not
    covered: give it ``effect.key`` as its idempotency key.
    """
    orders = Order.objects.filter(numero=effect.sale_id)
    if effect.kind == "paid":
        orders.update(paid=True, paid_at=timezone.now())
        logger.info("order %s paid (%s)", effect.sale_id, effect.key)
    elif effect.kind == "late_approval":
        # The customer was charged for an attempt the cashier gave up: refund it
        # (client.compensate, or the admin's action) and tell the customer.
        orders.update(late_approvals=F("late_approvals") + 1)
        logger.warning("order %s: late approval %s", effect.sale_id, effect.referencia)
    elif effect.kind == "compensated":
        orders.update(compensations=F("compensations") + 1)


def handle_event(event: webhooks.Event) -> None:
    """See every event; runs in smartpos_worker, in the transaction of the event's ack."""
    if isinstance(event, webhooks.PagamentoAprovado):
        valor = event.dados.valor_centavos
        shown = smartpos.format_reais(valor) if valor is not None else "?"
        # The order is marked paid by on_sale; event.dados.autorizacao is kept by smartpos
        # (store.sale(numero) lists the approvals, with what a refund needs).
        logger.info("sale %s approved: %s", event.dados.referencia, shown)
    elif isinstance(event, webhooks.PagamentoRecusado):
        logger.info("sale %s refused", event.dados.referencia)
    else:
        logger.info("event %s (%s) recorded", event.id, event.tipo)
