"""The cashier's screen: a page per order that follows its sale live and survives a reload.

The page (``caixa/<numero>/``) carries the order's numero; ``smartpos-checkout.js`` follows
the sale through the status endpoints (``caixa/smartpos/...``, mounted with ``authorize``)
and calls the two endpoints below. A reload re-attaches to the attempt in flight: the state
comes from the store, never from the page.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

import smartpos
from smartpos.integrations.django import get_client, get_store

from .models import Order

__all__ = ["abandon", "charge", "may_see", "page", "pair", "pairing_page"]


def may_see(request: HttpRequest, key: str) -> bool:
    """Who may follow a sale or an operation: the shop's staff (the cashiers), logged in."""
    return bool(request.user.is_authenticated and getattr(request.user, "is_staff", False))


def _staff(request: HttpRequest) -> JsonResponse | None:
    if not may_see(request, ""):
        return JsonResponse({"erro": "faça login como caixa"}, status=403)
    return None


def page(request: HttpRequest, numero: str) -> HttpResponse:
    """The checkout page of one order."""
    order = get_object_or_404(Order, numero=numero)
    return render(
        request,
        "shop/checkout.html",
        {"order": order, "total": smartpos.format_reais(order.total_centavos)},
    )


@require_POST
def charge(request: HttpRequest, numero: str) -> JsonResponse:
    """Start an attempt of the order for what remains (the page's document and terminal)."""
    refused = _staff(request)
    if refused is not None:
        return refused
    order = get_object_or_404(Order, numero=numero)
    sale = get_store().sale(numero)  # type: ignore[attr-defined]  # the journal's store
    remaining = order.total_centavos if sale is None else sale.remaining_centavos
    try:
        accepted = get_client().payments.create(
            documento_cliente=request.POST["documento"],
            smartpos_id=request.POST["terminal"],
            valor_centavos=remaining,
            sale=numero,
            total_centavos=order.total_centavos,
        )
    except smartpos.OutcomeUnknownError as exc:
        return JsonResponse({"sale_id": numero, "referencia": exc.referencia}, status=202)
    except smartpos.SmartPOSError as exc:
        return JsonResponse({"erro": str(exc)}, status=409)
    return JsonResponse({"sale_id": numero, "referencia": accepted.referencia}, status=202)


@require_POST
def abandon(request: HttpRequest, numero: str) -> JsonResponse:
    """Give up the attempt in flight (the customer left, changed cards): frees the sale."""
    refused = _staff(request)
    if refused is not None:
        return refused
    try:
        sale = get_client().abandon(
            numero, motivo="abandonada no caixa", operador=request.user.get_username()
        )
    except smartpos.SmartPOSError as exc:
        return JsonResponse({"erro": str(exc)}, status=409)
    return JsonResponse({"sale_id": sale.sale_id, "state": sale.state})


def pairing_page(request: HttpRequest) -> HttpResponse:
    """Pair a terminal: shows a QR code and follows it until the terminal reads it."""
    return render(request, "shop/pairing.html")


@require_POST
def pair(request: HttpRequest) -> JsonResponse:
    """Create the QR code of the customer's document; the page follows its referencia."""
    refused = _staff(request)
    if refused is not None:
        return refused
    try:
        qr = get_client().qrcodes.create(documento_cliente=request.POST["documento"])
    except smartpos.SmartPOSError as exc:
        return JsonResponse({"erro": str(exc)}, status=400)
    return JsonResponse({"referencia": qr.referencia}, status=201)
