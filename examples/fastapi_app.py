"""A FastAPI point of sale: the webhook router, a charge endpoint, the worker in the lifespan.

Run it::

    pip install "smartpos[fastapi]" uvicorn
    export SMARTPOS_API_KEY=... SMARTPOS_BASE_URL=... SMARTPOS_WEBHOOK_SECRET=change-me
    uvicorn fastapi_app:create_app --factory --port 8000

then configure ``https://<your host>/webhooks/smartpos`` as the webhook URL in the partner
portal. The OpenAPI document at ``/docs`` shows the webhook endpoint and its answers.
A charge of a sale (``"venda"``) is paid once whatever the service delivers: the client
journals it in the same inbox the webhook router fills, and ``GET /sales/{venda}`` reads it.
This file is type-checked with ``mypy --strict``, as a user's app would be.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

import smartpos
from smartpos import webhooks
from smartpos.integrations.fastapi import SmartPOS, SmartPOSClient

__all__ = ["ChargeAccepted", "ChargeRequest", "SaleState", "create_app", "handle_event"]

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


def create_app(
    store: str | None = None,
    *,
    secret: str | None = None,
    client_options: Mapping[str, Any] | None = None,
) -> FastAPI:
    """Build the app.

    Args:
        store: The inbox; default env ``SMARTPOS_STORE`` or ``smartpos-inbox.sqlite3``.
        secret: Default env ``SMARTPOS_WEBHOOK_SECRET`` (unset: no check, development).
        client_options: More ``AsyncClient`` arguments (a sandbox transport in tests).
    """
    inbox = store or os.environ.get("SMARTPOS_STORE", "smartpos-inbox.sqlite3")
    smartpos_app = SmartPOS(
        store=inbox,
        webhook_secret=secret or os.environ.get("SMARTPOS_WEBHOOK_SECRET"),
        handler=handle_event,
        # The client journals its charges in the same inbox (a file or a server: it opens
        # its own connection), so that a sale is charged once and paid once.
        client_options={"store": inbox, **(client_options or {})},
        worker_options={"poll_interval": 0.2},
    )
    app = FastAPI(title="Loja", lifespan=smartpos_app.lifespan)
    app.include_router(smartpos_app.router, prefix="/webhooks")

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
