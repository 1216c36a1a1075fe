"""A Flask webhook receiver, and the worker that processes its inbox in another process.

The route hands the raw body and headers to ``WebhookReceiver.receive``, which checks,
stores durably and says what to answer; the worker (``python webhook_flask.py worker``) claims
events from the same SQLite file and runs your handler, acking or retrying.

Run it::

    pip install smartpos flask
    SMARTPOS_WEBHOOK_SECRET=change-me flask --app webhook_flask run --port 8000   # create_app()
    SMARTPOS_WEBHOOK_SECRET=change-me python webhook_flask.py worker     # another terminal
"""

from __future__ import annotations

import logging
import os
import sys

from flask import Flask, request

from smartpos import webhooks

__all__ = ["create_app", "handle_event", "run_worker"]

logger = logging.getLogger("webhook_flask")
DB_PATH = os.environ.get("SMARTPOS_INBOX", "smartpos-inbox.db")


def create_app(db_path: str = DB_PATH, *, secret: str | None = None) -> Flask:
    """Build the Flask app with the receiver at POST /webhooks/smartpos.

    Args:
        db_path: The SQLite inbox file (local disk).
        secret: Deliveries must carry it in the ``x-webhook-secret`` header; default: the
            environment variable ``SMARTPOS_WEBHOOK_SECRET`` (unset: no check, development).
    """
    if secret is None:
        secret = os.environ.get("SMARTPOS_WEBHOOK_SECRET")
    store = webhooks.SQLiteStore(db_path)
    verifier = webhooks.SharedSecretVerifier(secret=secret) if secret else None
    receiver = webhooks.WebhookReceiver(store, verifier=verifier)

    app = Flask(__name__)
    # Werkzeug refuses larger bodies (413) before reading them into memory.
    app.config["MAX_CONTENT_LENGTH"] = receiver.max_body_bytes
    # Kept so that the process can close the store's connections on shutdown.
    app.extensions["smartpos_store"] = store

    @app.post("/webhooks/smartpos")
    def smartpos_webhook() -> tuple[bytes, int, dict[str, str]]:
        receipt = receiver.receive(request.get_data(), request.headers)
        return receipt.body, receipt.status_code, {"Content-Type": "application/json"}

    return app


def handle_event(event: webhooks.Event) -> None:
    """Your business logic: runs in the worker, at least once per event (be idempotent)."""
    if isinstance(event, webhooks.PagamentoAprovado):
        logger.info("sale %s approved", event.dados.referencia)
    else:
        logger.info("event %s (%s) recorded", event.id, event.tipo)


def run_worker(db_path: str = DB_PATH) -> None:
    """Process the inbox until SIGTERM or Ctrl-C (the event in hand is finished first)."""
    with webhooks.SQLiteStore(db_path) as store:
        webhooks.Worker(store, handle_event, install_signal_handlers=True).run()


if __name__ == "__main__" and sys.argv[1:] == ["worker"]:  # the worker process
    logging.basicConfig(level=logging.INFO)
    run_worker()
