"""A FastAPI point of sale: the webhook router, a charge endpoint, the worker in the lifespan.

Run it::

    pip install "smartpos[fastapi]" uvicorn
    export SMARTPOS_API_KEY=... SMARTPOS_BASE_URL=... SMARTPOS_WEBHOOK_SECRET=change-me
    uvicorn fastapi_app:create_app --factory --port 8000

then configure ``https://<your host>/webhooks/smartpos`` as the webhook URL in the partner
portal. The OpenAPI document at ``/docs`` shows the webhook endpoint and its answers.
A charge of a sale (``"venda"``) is paid once whatever the service delivers: the client
journals it in the same inbox the webhook router fills, and ``GET /sales/{venda}`` reads it.

The cashier's screen: with ``CAIXA_TOKEN`` set, ``/caixa/entrar?token=...`` logs a cashier in
(a cookie) and ``/caixa/<sale>/?total=45,90`` is the checkout page of a sale, following it live
through the status endpoints (``/caixa/smartpos/...``) with ``smartpos-checkout.js``.
This file is type-checked with ``mypy --strict``, as a user's app would be.
"""

from __future__ import annotations

import contextlib
import html
import logging
import os
import secrets
import urllib.parse
from collections.abc import AsyncIterator, Mapping
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from pydantic import BaseModel

import smartpos
from smartpos import webhooks
from smartpos.integrations.fastapi import SmartPOS, SmartPOSClient

__all__ = [
    "CHECKOUT_PAGE",
    "ChargeAccepted",
    "ChargeRequest",
    "SaleState",
    "create_app",
    "handle_event",
]

logger = logging.getLogger("fastapi_app")


async def handle_event(event: webhooks.Event) -> None:
    """Act on one event: runs in the worker, at least once per event (be idempotent)."""
    if isinstance(event, webhooks.PagamentoAprovado):
        valor = event.dados.valor_centavos
        shown = smartpos.format_reais(valor) if valor is not None else "?"
        logger.info("sale %s approved: %s", event.dados.referencia, shown)
    else:
        logger.info("event %s (%s) recorded", event.id, event.tipo)


class ChargeRequest(BaseModel):
    """A charge typed at the till."""

    documento: str
    terminal: str
    valor: str  # "19,90", as typed
    venda: str | None = None  # the sale (order, tab) this charge pays, or part of
    total: str | None = None  # the sale's total when a charge pays only part of it


class SaleState(BaseModel):
    """Whether a sale is paid (the conformance kit's status URL reads this)."""

    paid: bool
    paidCentavos: int  # noqa: N815 - the JSON's own name
    attention: bool  # a late approval or a contradiction: a human decides


class ChargeAccepted(BaseModel):
    """The terminal is charging; the sale is final when pagamento.aprovado arrives."""

    referencia: str
    valor: str
    estado: str


#: The checkout page: one sale, followed live by smartpos-checkout.js (re-attaches on reload).
CHECKOUT_PAGE = """<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Caixa · {title}</title>
<style>
  body {{ font: 18px system-ui, sans-serif; margin: 2rem; max-width: 36rem; }}
  .smartpos-status {{ font-size: 1.6rem; font-weight: 600; }}
  [data-status="approved"] .smartpos-status {{ color: #0a7d22; }}
  [data-status="refused"] .smartpos-status {{ color: #b00020; }}
  .smartpos-pendencia:not(:empty) {{ background: #fff3cd; padding: .5rem; }}
  .smartpos-qr img {{ width: 16rem; height: 16rem; }}
  button {{ font-size: 1rem; margin-right: .5rem; padding: .4rem 1rem; }}
  label {{ display: block; margin: .3rem 0; }}
</style></head>
<body><h1>{title}</h1>
<div id="checkout" data-smartpos-checkout data-status-url="/caixa/smartpos" {attributes}>
{fields}
</div>
<script src="/caixa/smartpos/smartpos-checkout.js" defer></script>
</body></html>
"""


async def _form(request: Request) -> dict[str, str]:
    """The page's fields (``application/x-www-form-urlencoded``, as smartpos-checkout.js
    posts them)."""
    return dict(urllib.parse.parse_qsl((await request.body()).decode("utf-8", "replace")))


def _field(label: str, name: str, value: str | None) -> str:
    shown = html.escape(value or "", quote=True)
    return f'<label>{label} <input name="{name}" value="{shown}"></label>'


def create_app(
    store: str | webhooks.Store | None = None,
    *,
    secret: str | None = None,
    client_options: Mapping[str, Any] | None = None,
    cashier_token: str | None = None,
) -> FastAPI:
    """Build the app.

    Args:
        store: The inbox (and the journal of the client's sales); default env
            ``SMARTPOS_STORE`` or ``smartpos-inbox.sqlite3``.
        secret: Default env ``SMARTPOS_WEBHOOK_SECRET`` (unset: no check, development).
        client_options: More ``AsyncClient`` arguments (a sandbox transport in tests).
        cashier_token: What ``/caixa/entrar?token=`` must be given to let a cashier in;
            default env ``CAIXA_TOKEN`` (unset: the cashier's screen is closed to all).
    """
    inbox = webhooks.open_store(store or os.environ.get("SMARTPOS_STORE", "smartpos-inbox.sqlite3"))
    smartpos_app = SmartPOS(
        store=inbox,
        webhook_secret=secret or os.environ.get("SMARTPOS_WEBHOOK_SECRET"),
        handler=handle_event,
        # The client journals its charges in the inbox's store (the same object): a sale is
        # charged once and paid once, and the cashier's screen follows it.
        client_options={"store": inbox, **dict(client_options or {})},
        worker_options={"poll_interval": 0.2},
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with smartpos_app.lifespan(app):
            yield
        if inbox is not store:  # opened here: closed here
            inbox.close()

    app = FastAPI(title="Loja", lifespan=lifespan)
    app.include_router(smartpos_app.router, prefix="/webhooks")
    token = cashier_token or os.environ.get("CAIXA_TOKEN")

    def is_cashier(request: Request, key: str = "") -> bool:
        """The shop's rule for the cashier's screen: the cashier's cookie (a real shop asks
        its own login: a session, a role, the store the sale belongs to)."""
        given = request.cookies.get("caixa", "")
        return bool(token) and secrets.compare_digest(given, token or "")

    app.include_router(smartpos_app.status_router(authorize=is_cashier), prefix="/caixa/smartpos")

    @app.get("/caixa/entrar", include_in_schema=False)
    async def login(request: Request) -> RedirectResponse:
        """Let a cashier in: a cookie the status endpoints and the actions check."""
        given = request.query_params.get("token", "")
        if not token or not secrets.compare_digest(given, token):
            raise HTTPException(status_code=403, detail="token inválido")
        answer = RedirectResponse("/caixa/parear/", status_code=303)
        # SameSite=Strict: another site's form cannot make the browser POST with it (CSRF).
        answer.set_cookie("caixa", given, httponly=True, samesite="strict")
        return answer

    def cashier_only(request: Request) -> None:
        if not is_cashier(request):
            raise HTTPException(status_code=403, detail="faça login como caixa")

    @app.get("/caixa/parear/", response_class=HTMLResponse, include_in_schema=False)
    async def pairing_page(request: Request, documento: str = "") -> str:
        cashier_only(request)
        fields = _field("CPF/CNPJ do cliente", "documento", documento)
        return CHECKOUT_PAGE.format(
            title="Parear um terminal",
            attributes='data-pair-url="/caixa/parear/novo"',
            fields=fields,
        )

    @app.post("/caixa/parear/novo", status_code=201)
    async def pair(request: Request, client: SmartPOSClient) -> dict[str, str]:
        """A QR code for the customer's terminal; the page follows its referencia."""
        cashier_only(request)
        form = await _form(request)
        try:
            qr = await client.qrcodes.create(documento_cliente=form.get("documento", ""))
        except smartpos.SmartPOSError as exc:
            raise HTTPException(status_code=400, detail=str(exc)) from exc
        return {"referencia": qr.referencia}

    @app.get("/caixa/{sale}/", response_class=HTMLResponse, include_in_schema=False)
    async def checkout_page(
        request: Request, sale: str, total: str = "", documento: str = "", terminal: str = ""
    ) -> str:
        """The checkout page of a sale: reload it at any time, it re-attaches."""
        cashier_only(request)
        quoted = html.escape(sale, quote=True)
        fields = "\n".join(
            [
                _field("CPF/CNPJ do cliente", "documento", documento),
                _field("Terminal", "terminal", terminal),
                _field("Valor", "valor", total),
            ]
        )
        return CHECKOUT_PAGE.format(
            title=f"Venda {quoted}",
            attributes=(
                f'data-sale-id="{quoted}" data-charge-url="/caixa/{quoted}/cobrar" '
                f'data-abandon-url="/caixa/{quoted}/abandonar"'
            ),
            fields=fields,
        )

    @app.post("/caixa/{sale}/cobrar", status_code=202)
    async def charge_sale(request: Request, sale: str, client: SmartPOSClient) -> JSONResponse:
        """Start an attempt of the sale for what remains (one at a time, paid once)."""
        cashier_only(request)
        form = await _form(request)
        try:
            total = smartpos.to_centavos(form.get("valor", ""))
            current = inbox.sale(sale) if isinstance(inbox, webhooks.StoreBase) else None
            remaining = total if current is None else current.remaining_centavos
            accepted = await client.payments.create(
                documento_cliente=form.get("documento", ""),
                smartpos_id=form.get("terminal", ""),
                valor_centavos=remaining,
                sale=sale,
                total_centavos=total,
            )
        except smartpos.OutcomeUnknownError as exc:
            return JSONResponse({"sale_id": sale, "referencia": exc.referencia}, status_code=202)
        except (smartpos.SmartPOSError, ValueError) as exc:
            return JSONResponse({"erro": str(exc)}, status_code=409)
        return JSONResponse({"sale_id": sale, "referencia": accepted.referencia}, status_code=202)

    @app.post("/caixa/{sale}/abandonar")
    async def abandon_sale(request: Request, sale: str, client: SmartPOSClient) -> JSONResponse:
        """Give up the attempt in flight: the sale is free for a new one."""
        cashier_only(request)
        try:
            done = await client.abandon(sale, motivo="abandonada no caixa")
        except smartpos.SmartPOSError as exc:
            return JSONResponse({"erro": str(exc)}, status_code=409)
        return JSONResponse({"sale_id": done.sale_id, "state": done.state})

    @app.post("/charge", status_code=202)
    async def charge(body: ChargeRequest, client: SmartPOSClient) -> ChargeAccepted:
        """Start a payment on the customer's terminal."""
        try:
            valor_centavos = smartpos.to_centavos(body.valor)
            total = smartpos.to_centavos(body.total) if body.total else None
            accepted = await client.payments.create(
                documento_cliente=body.documento,
                smartpos_id=body.terminal,
                valor_centavos=valor_centavos,
                sale=body.venda,
                total_centavos=total,
            )
        except smartpos.OutcomeUnknownError as exc:
            # May have charged: wait for the event of this referencia, never charge again.
            return ChargeAccepted(referencia=exc.referencia, valor=body.valor, estado="aguardando")
        except (smartpos.SaleInProgressError, smartpos.SalePaidError) as exc:
            raise HTTPException(status_code=409, detail=str(exc)) from exc
        except (smartpos.ValidationError, smartpos.APIError, smartpos.TransportError) as exc:
            raise HTTPException(status_code=400, detail=str(exc)) from exc
        return ChargeAccepted(
            referencia=accepted.referencia,
            valor=smartpos.format_reais(valor_centavos),
            estado="aguardando",
        )

    @app.get("/sales/{venda}")
    def sale_state(venda: str) -> SaleState:
        """Whether the sale is paid: only its approvals count, never the 202."""
        store = smartpos_app.store
        assert isinstance(store, webhooks.StoreBase)  # every smartpos store keeps the sales
        sale = store.sale(venda)
        if sale is None:
            return SaleState(paid=False, paidCentavos=0, attention=False)
        return SaleState(
            paid=sale.state == "paid",
            paidCentavos=sale.approved_centavos,
            attention=bool(sale.pendencias),
        )

    return app
