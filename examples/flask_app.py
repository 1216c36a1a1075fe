"""A Flask point of sale: the smartpos extension in an app factory, a charge view, a worker.

Run it::

    pip install "smartpos[flask]"
    export SMARTPOS_API_KEY=... SMARTPOS_BASE_URL=... SMARTPOS_WEBHOOK_SECRET=change-me
    flask --app flask_app run --port 8000          # POST /webhooks/smartpos
    flask --app flask_app smartpos worker          # another terminal: processes the events

A charge of a sale (``venda``) is paid once whatever the service delivers: the client journals
it in the same inbox the webhook view fills, and ``GET /sales/<venda>`` reads it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from flask import Flask, jsonify, request
from flask.typing import ResponseReturnValue

import smartpos
from smartpos import webhooks
from smartpos.integrations.flask import SmartPOS

__all__ = ["create_app", "handle_event", "smartpos_ext"]

logger = logging.getLogger("flask_app")


def handle_event(event: webhooks.Event) -> None:
    """Act on one event: runs in `flask smartpos worker`, at least once per event."""
    if isinstance(event, webhooks.PagamentoAprovado):
        valor = event.dados.valor_centavos
        shown = smartpos.format_reais(valor) if valor is not None else "?"
        logger.info("sale %s approved: %s", event.dados.referencia, shown)
    else:
        logger.info("event %s (%s) recorded", event.id, event.tipo)


smartpos_ext = SmartPOS(handler=handle_event)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app; ``config`` overrides the environment (tests)."""
    app = Flask(__name__)
    app.config["SMARTPOS_STORE"] = os.environ.get("SMARTPOS_STORE", "smartpos-inbox.sqlite3")
    app.config["SMARTPOS_WEBHOOK_SECRET"] = os.environ.get("SMARTPOS_WEBHOOK_SECRET")
    app.config.update(config or {})
    # The client journals its charges in the same inbox (a file or a server: it opens its own
    # connection), so that a sale is charged once and paid once.
    app.config["SMARTPOS_CLIENT_OPTIONS"] = {
        "store": app.config["SMARTPOS_STORE"],
        **(app.config.get("SMARTPOS_CLIENT_OPTIONS") or {}),
    }
    smartpos_ext.init_app(app)

    @app.post("/charge")
    def charge() -> ResponseReturnValue:
        """Start a payment of the amount typed at the till ("19,90"), of the sale ``venda``
        (of ``total``, when this charge pays only part of it)."""
        form = request.form
        try:
            valor_centavos = smartpos.to_centavos(form["valor"])
            total = form.get("total")
            accepted = smartpos_ext.client.payments.create(
                documento_cliente=form["documento"],
                smartpos_id=form["terminal"],
                valor_centavos=valor_centavos,
                sale=form.get("venda") or None,
                total_centavos=smartpos.to_centavos(total) if total else None,
            )
        except smartpos.OutcomeUnknownError as exc:
            # May have charged: wait for the event of this referencia, never charge again.
            return jsonify(referencia=exc.referencia, estado="aguardando"), 202
        except (smartpos.SaleInProgressError, smartpos.SalePaidError) as exc:
            return jsonify(erro=str(exc)), 409
        except (smartpos.ValidationError, smartpos.APIError, smartpos.TransportError) as exc:
            return jsonify(erro=str(exc)), 400
        return jsonify(
            referencia=accepted.referencia,
            valor=smartpos.format_reais(valor_centavos),
            estado="aguardando",
        ), 202

    @app.get("/sales/<venda>")
    def sale_state(venda: str) -> ResponseReturnValue:
        """Whether the sale is paid: only its approvals count, never the 202."""
        store = smartpos_ext.store
        assert isinstance(store, webhooks.StoreBase)  # every smartpos store keeps the sales
        sale = store.sale(venda)
        if sale is None:
            return jsonify(paid=False, paidCentavos=0, attention=False)
        return jsonify(
            paid=sale.state == "paid",
            paidCentavos=sale.approved_centavos,
            attention=bool(sale.pendencias),
        )

    @app.get("/pair/<documento>")
    def pair(documento: str) -> ResponseReturnValue:
        """The QR code the customer's terminal reads, inline in the page."""
        qr = smartpos_ext.client.qrcodes.create(documento_cliente=documento)
        return f'<img alt="QR code to pair the terminal" src="{qr.to_data_uri()}">'

    return app
