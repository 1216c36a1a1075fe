"""Two integrations written against the kit: one that keeps the rules, one that does not.

``SdkShop`` is what the docs recommend: a client with a store, ``sale=`` on every charge, the
store's sale as the system's status. ``NaiveShop`` is the integration the kit exists to catch:
it finalizes on the 202, retries an unknown outcome with a new referencia, applies every
delivery it receives and takes any event of a referencia as the payment's.
"""

from __future__ import annotations

from typing import Any

import smartpos
from smartpos import webhooks
from smartpos.testing import Sandbox
from smartpos.testing.conformance import Adapter, SaleStatus


def sdk_client(sandbox: Any, store: webhooks.Store | None = None) -> smartpos.Client:
    """A client bound to the sandbox (in process, or a served one's URL); retries at once."""
    if isinstance(sandbox, str):
        return smartpos.Client(
            api_key=Sandbox.API_KEY, base_url=sandbox, store=store, retry_backoff=0
        )
    return smartpos.Client(
        api_key=Sandbox.API_KEY,
        base_url="http://sandbox.invalid",
        transport=sandbox.transport(),
        store=store,
        retry_backoff=0,
    )


class SdkShop(Adapter):
    """The recommended integration: smartpos's sales keep every rule."""

    def __init__(self, sandbox: Any) -> None:
        self.store = webhooks.MemoryStore()
        self.webhook = webhooks.WebhookReceiver(self.store)
        self.client = sdk_client(sandbox, self.store)

    def __enter__(self) -> SdkShop:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.client.close()

    def charge(
        self,
        sale: str,
        *,
        valor_centavos: int,
        total_centavos: int,
        documento_cliente: str,
        smartpos_id: str,
    ) -> object:
        try:
            accepted = self.client.payments.create(
                documento_cliente=documento_cliente,
                smartpos_id=smartpos_id,
                valor_centavos=valor_centavos,
                sale=sale,
                total_centavos=total_centavos,
            )
        except smartpos.OutcomeUnknownError as exc:
            return {"referencia": exc.referencia, "estado": "aguardando"}
        return {"referencia": accepted.referencia, "estado": "aguardando"}

    def status(self, sale: str) -> SaleStatus:
        found = self.store.sale(sale)
        if found is None:
            return SaleStatus(paid=False)
        return SaleStatus(
            paid=found.state == "paid",
            paid_centavos=found.approved_centavos,
            attention=bool(found.pendencias),
        )

    def abandon(self, sale: str) -> None:
        self.client.abandon(sale, motivo="cliente pagou em dinheiro")

    def refund(self, sale: str) -> None:
        found = self.store.sale(sale)
        assert found is not None
        approval = found.approvals[0]
        self.client.refunds.create_for(
            approval, referencia=smartpos.referencia_for(f"estorno:{sale}")
        )


class NaiveShop(Adapter):
    """Finalizes on the 202, retries with a new referencia, applies every delivery."""

    def __init__(self, sandbox: Any) -> None:
        self.client = sdk_client(sandbox)
        self.paid: dict[str, int] = {}
        self.sale_of: dict[str, str] = {}
        self.webhook = self.receive

    def receive(self, envelope: dict[str, Any]) -> None:
        dados = envelope["dados"]
        sale = self.sale_of.get(dados.get("referencia"))
        if sale is None:
            return
        if dados.get("status") == "aprovado":
            self.paid[sale] = self.paid.get(sale, 0) + dados.get("valorCentavos", 0)
        else:
            self.paid.pop(sale, None)

    def charge(
        self,
        sale: str,
        *,
        valor_centavos: int,
        total_centavos: int,
        documento_cliente: str,
        smartpos_id: str,
    ) -> object:
        referencia = smartpos.new_referencia()
        self.sale_of[referencia] = sale
        try:
            self.client.payments.create(
                documento_cliente=documento_cliente,
                smartpos_id=smartpos_id,
                valor_centavos=valor_centavos,
                referencia=referencia,
            )
        except smartpos.OutcomeUnknownError:
            retry = smartpos.new_referencia()
            self.sale_of[retry] = sale
            self.client.payments.create(
                documento_cliente=documento_cliente,
                smartpos_id=smartpos_id,
                valor_centavos=valor_centavos,
                referencia=retry,
            )
        self.paid[sale] = valor_centavos  # finalized on the 202
        return referencia

    def status(self, sale: str) -> SaleStatus:
        paid = self.paid.get(sale, 0)
        return SaleStatus(paid=paid > 0, paid_centavos=paid)
