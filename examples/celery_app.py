"""Webhook events handled on a Celery worker pool, with the inbox as the source of truth.

The web app stores events (any smartpos receiver: Django, FastAPI, Flask, ASGI/WSGI); the
dispatcher claims them and sends Celery only their ids; the pool runs ``handle_event``.

Run it::

    pip install "smartpos[celery]" redis
    export SMARTPOS_STORE=/var/lib/shop/smartpos-inbox.sqlite3   # the receiver's inbox
    export SMARTPOS_CELERY_BROKER=redis://127.0.0.1:6379/1
    celery -A celery_app worker --loglevel=INFO                 # the pool
    python -m smartpos.integrations.celery celery_app:smartpos_tasks   # the dispatcher
"""

from __future__ import annotations

import logging
import os

from celery import Celery

import smartpos
from smartpos import webhooks
from smartpos.integrations.celery import SmartPOSTasks

__all__ = ["app", "handle_event", "smartpos_tasks"]

logger = logging.getLogger("celery_app")

app = Celery(
    "celery_app", broker=os.environ.get("SMARTPOS_CELERY_BROKER", "redis://127.0.0.1:6379/1")
)
app.conf.update(broker_connection_retry_on_startup=True, task_ignore_result=True)


def handle_event(event: webhooks.Event) -> None:
    """Act on one event, on a Celery worker; at least once per event (be idempotent)."""
    if isinstance(event, webhooks.PagamentoAprovado):
        valor = event.dados.valor_centavos
        shown = smartpos.format_reais(valor) if valor is not None else "?"
        logger.info("sale %s approved: %s", event.dados.referencia, shown)
    else:
        logger.info("event %s (%s) recorded", event.id, event.tipo)


smartpos_tasks = SmartPOSTasks(
    app,
    store=os.environ.get("SMARTPOS_STORE", "smartpos-inbox.sqlite3"),
    handler=handle_event,
    # A message lost on the way is sent again once this lease runs out: longer than the
    # queue's usual wait, short enough for the delay it costs.
    dispatch_lease=float(os.environ.get("SMARTPOS_DISPATCH_LEASE", "300")),
)
