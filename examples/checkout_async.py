"""An asyncio checkout that handles the three outcomes of a payment request.

A payment request ends in exactly one of three ways:

1. accepted (a result): wait for ``pagamento.aprovado`` or ``pagamento.recusado``;
2. rejected (``APIError``, ``ValidationError``, ``TransportError``): nothing was charged; fix
   the cause and try again with a new referencia — except ``ReferenciaDuplicadaError`` (409),
   which says an earlier request under *that* referencia reached the service: wait for its event;
3. unknown (``OutcomeUnknownError``): the service may have accepted it. Never charge again:
   wait for the event of *that* referencia.

Here the sandbox drops the connection on the first attempt (outcome unknown; the terminal
then refuses the card) and approves the second, so every branch runs:

    pip install smartpos
    python checkout_async.py
"""

from __future__ import annotations

import asyncio
from collections import defaultdict

import smartpos
from smartpos import AsyncClient
from smartpos.testing import Approve, DropConnection, Refuse, Sandbox
from smartpos.webhooks import (
    AsyncWorker,
    Event,
    MemoryStore,
    PagamentoAprovado,
    PagamentoRecusado,
    WebhookReceiver,
)


class Outcomes:
    """Your webhook handler: keeps payment events by referencia for the checkout to await."""

    def __init__(self) -> None:
        self._events: dict[str, list[Event]] = defaultdict(list)
        self._changed = asyncio.Condition()

    async def handle(self, event: Event) -> None:
        """Called by the AsyncWorker for each stored event (acked when it returns)."""
        referencia = getattr(event.dados, "referencia", None)
        async with self._changed:
            if isinstance(referencia, str):
                self._events[referencia].append(event)
            self._changed.notify_all()

    async def payment(
        self, referencia: str, timeout: float
    ) -> PagamentoAprovado | PagamentoRecusado:
        """Wait for the outcome of the payment with this referencia."""

        def outcome() -> PagamentoAprovado | PagamentoRecusado | None:
            for event in self._events[referencia]:
                if isinstance(event, (PagamentoAprovado, PagamentoRecusado)):
                    return event
            return None

        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: outcome() is not None), timeout)
        found = outcome()
        assert found is not None
        return found


async def checkout(
    client: AsyncClient,
    outcomes: Outcomes,
    *,
    documento_cliente: str,
    smartpos_id: str,
    valor_centavos: int,
    attempts: int = 3,
) -> PagamentoAprovado:
    """Charge until approved, one new referencia per attempt, never charging twice."""
    for attempt in range(1, attempts + 1):
        referencia = smartpos.new_referencia()
        try:
            await client.payments.create(
                documento_cliente=documento_cliente,
                valor_centavos=valor_centavos,
                smartpos_id=smartpos_id,
                referencia=referencia,
            )
            print(f"attempt {attempt}: accepted, waiting for the terminal")
        except smartpos.OutcomeUnknownError:
            # It may have reached the terminal: a new referencia could charge twice.
            print(f"attempt {attempt}: outcome unknown, waiting for the event of {referencia}")
        except smartpos.TransportError as exc:
            # Nothing reached the service: safe to try again with a new referencia.
            print(f"attempt {attempt}: not sent ({exc}), trying again")
            continue
        # APIError / ValidationError (a bad request) propagate: fix the request first.
        event = await outcomes.payment(referencia, timeout=30.0)
        if isinstance(event, PagamentoAprovado):
            return event
        resultado = event.dados.resultado_smartpos
        message = resultado.mensagem_operador if resultado else event.dados.status
        print(f"attempt {attempt}: refused ({message}); a new attempt needs a new referencia")
    raise RuntimeError(f"no approval after {attempts} attempts")


async def main() -> None:
    """Run a checkout against the sandbox and refund it."""
    sandbox = Sandbox()
    store = MemoryStore()
    sandbox.set_webhook(WebhookReceiver(store))
    outcomes = Outcomes()
    worker = AsyncWorker(store, outcomes.handle, poll_interval=0.05)
    stop = asyncio.Event()
    worker_task = asyncio.create_task(worker.run(stop))

    # The first request is processed but its answer is lost, and the card is refused;
    # the second is approved.
    sandbox.fail_next("payments", DropConnection())
    sandbox.script_payments(Refuse(mensagem_operador="SALDO INSUFICIENTE"), Approve())

    with sandbox.serve() as base_url:
        async with AsyncClient(
            api_key=Sandbox.API_KEY, base_url=base_url, retry_backoff=0.05
        ) as client:
            aprovado = await checkout(
                client,
                outcomes,
                documento_cliente=Sandbox.DOCUMENTO,
                smartpos_id=Sandbox.SMARTPOS_ID,
                valor_centavos=15990,
            )
            autorizacao = aprovado.dados.autorizacao
            codigo = autorizacao.codigo if autorizacao else None
            print("approved:", aprovado.dados.referencia, "autorizacao", codigo)
            refund = await client.refunds.create_for(aprovado)
            print("refund requested:", refund.referencia)

    stop.set()
    await worker_task
    sandbox.close()


if __name__ == "__main__":
    asyncio.run(main())
