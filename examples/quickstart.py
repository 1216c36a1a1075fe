"""Five-minute quickstart: pair a terminal, charge, wait for the event, refund, print.

Runs against the sandbox, over real HTTP on 127.0.0.1; ``docs/en/quickstart.md`` walks through it.
For the real service, pass your key and base URL to ``Client`` and mount ``receiver`` at the
webhook URL of the partner portal (see ``docs/en/webhooks.md``).

    pip install smartpos
    python quickstart.py
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

from smartpos import Client
from smartpos.testing import Sandbox
from smartpos.webhooks import Event, MemoryStore, WebhookReceiver, Worker

DOCUMENTO = Sandbox.DOCUMENTO  # the customer's CPF or CNPJ

# The sandbox plays the service. Your side: a receiver that stores each webhook event, and a
# worker that hands stored events to your handler (here: a queue the checkout code reads).
sandbox = Sandbox()
store = MemoryStore()  # in production: SQLiteStore("smartpos-inbox.db"), RedisStore...
sandbox.set_webhook(WebhookReceiver(store))
arrived: queue.Queue[Event] = queue.Queue()
worker = Worker(store, arrived.put, poll_interval=0.05)
stop = threading.Event()
threading.Thread(target=worker.run, args=(stop,), daemon=True).start()


def wait_for(tipo: str, referencia: str, timeout: float = 10.0) -> Any:
    """Return the event of this tipo for this referencia; raise queue.Empty after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        event = arrived.get(timeout=max(0.0, deadline - time.monotonic()))
        if event.tipo == tipo and getattr(event.dados, "referencia", None) == referencia:
            return event


with sandbox.serve() as base_url, Client(api_key=Sandbox.API_KEY, base_url=base_url) as client:
    # 1. Pair a terminal: show the QR code; when the terminal reads it, smartpos.identificado
    #    names the terminal. Save its smartposId with the customer.
    qr = client.qrcodes.create(documento_cliente=DOCUMENTO)
    print(qr.to_terminal())
    sandbox.scan(qr.qr_code, "SP-LOJA-01")  # the sandbox's terminal reads it
    identificado = wait_for("smartpos.identificado", qr.referencia)
    smartpos_id = identificado.dados.smartpos_id
    print("paired:", smartpos_id)

    # 2. Charge. The answer only means "accepted": the sale is final on pagamento.aprovado.
    acceptance = client.payments.create(
        documento_cliente=DOCUMENTO,
        valor_centavos=1990,
        smartpos_id=smartpos_id,
        forma_pagamento="pix",
    )
    print("accepted:", acceptance.status, acceptance.referencia)
    aprovado = wait_for("pagamento.aprovado", acceptance.referencia)
    print("approved: autorizacao", aprovado.dados.autorizacao.codigo)

    # 3. Refund it: the customer, terminal and authorization come from the event.
    refund = client.refunds.create_for(aprovado)
    print("refund requested:", refund.referencia)

    # 4. Print on the terminal; impressao.concluida (or impressao.falhou) reports it.
    job = client.print_jobs.create(
        documento_cliente=DOCUMENTO, smartpos_id=smartpos_id, conteudo="Obrigado!\n"
    )
    wait_for("impressao.concluida", job.referencia)
    print("printed:", job.referencia)

stop.set()
sandbox.close()
