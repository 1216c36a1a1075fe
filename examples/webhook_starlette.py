"""A Starlette webhook receiver with a background worker, on one SQLite inbox.

The receiver's ASGI app answers ``POST /webhooks/smartpos``: it stores each event durably and
answers within milliseconds; the worker thread processes events from the same store later,
so a slow ERP never makes the service wait (spec 6: a 2xx within 1 to 2 seconds).

Run it::

    pip install smartpos starlette uvicorn
    SMARTPOS_WEBHOOK_SECRET=change-me uvicorn webhook_starlette:create_app --factory --port 8000

then configure ``https://<your host>/webhooks/smartpos`` as the webhook URL in the partner
portal (and the same secret as the ``x-webhook-secret`` header at your proxy).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import AsyncIterator, Callable

from starlette.applications import Starlette
from starlette.routing import Route

from smartpos import webhooks

__all__ = ["create_app", "handle_event"]

logger = logging.getLogger("webhook_starlette")


def handle_event(event: webhooks.Event) -> None:
    """Your business logic: runs in the worker, at least once per event (be idempotent)."""
    if isinstance(event, webhooks.PagamentoAprovado):
        # Finalize the sale; keep event.dados.autorizacao for a possible refund.
        logger.info("sale %s approved", event.dados.referencia)
    elif isinstance(event, webhooks.PagamentoRecusado):
        logger.info("sale %s refused: %s", event.dados.referencia, event.dados.status)
    elif isinstance(event, webhooks.SmartposIdentificado):
        logger.info("terminal %s identified", event.dados.smartpos_id)
    else:
        logger.info("event %s (%s) recorded", event.id, event.tipo)


def create_app(
    db_path: str = "smartpos-inbox.db",
    *,
    handler: Callable[[webhooks.Event], object] = handle_event,
    secret: str | None = None,
) -> Starlette:
    """Build the app: the receiver at POST /webhooks/smartpos and a worker thread.

    Args:
        db_path: The SQLite inbox file (local disk).
        handler: Called by the worker with each event.
        secret: Deliveries must carry it in the ``x-webhook-secret`` header; default: the
            environment variable ``SMARTPOS_WEBHOOK_SECRET`` (unset: no check, development).
    """
    if secret is None:
        secret = os.environ.get("SMARTPOS_WEBHOOK_SECRET")
    store = webhooks.SQLiteStore(db_path)
    verifier = webhooks.SharedSecretVerifier(secret=secret) if secret else None
    receiver = webhooks.WebhookReceiver(store, verifier=verifier)
    worker = webhooks.Worker(store, handler, poll_interval=0.2)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        thread = threading.Thread(target=worker.run, name="smartpos-worker")
        thread.start()
        try:
            yield
        finally:
            worker.stop()  # finishes the event in hand, gives the rest back
            thread.join()
            store.close()

    # The receiver is a plain ASGI app: Starlette routes POST to it (405 for other methods).
    routes = [Route("/webhooks/smartpos", receiver.asgi_app(), methods=["POST"])]
    return Starlette(routes=routes, lifespan=lifespan)
