"""The adapter: the few things the kit asks of the partner's system, and what it reads back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from smartpos.testing._delivery import WebhookTarget

__all__ = ["Adapter", "NotSupported", "SaleStatus"]


class NotSupported(Exception):
    """Raised by an adapter operation the partner's system does not offer (``abandon``,
    ``refund``): the scenarios that need it are reported as not applicable, never as passed."""


@attrs.frozen
class SaleStatus:
    """What the partner's system says about one sale (its own state, not the SDK's).

    Attributes:
        paid: The system counts the sale as paid (finalized: goods delivered, invoice issued).
        paid_centavos: The amount it counts as paid for the sale.
        attention: The sale is flagged for a human (a late approval, a contradiction, an
            event that disagrees with the request).
    """

    paid: bool
    paid_centavos: int = 0
    attention: bool = False

    @classmethod
    def from_json(cls, data: object) -> SaleStatus:
        """Read the status URL's answer: ``{"paid": bool, "paidCentavos": int, "attention": bool}``.

        Raises:
            ValueError: Not such an object (``paid`` is required, the rest default to 0/false).
        """
        if not isinstance(data, Mapping) or not isinstance(data.get("paid"), bool):
            raise ValueError('a sale status is a JSON object with a boolean "paid"')
        centavos = data.get("paidCentavos", 0)
        attention = data.get("attention", False)
        if isinstance(centavos, bool) or not isinstance(centavos, int):
            raise ValueError('"paidCentavos" must be a whole number of centavos')
        if not isinstance(attention, bool):
            raise ValueError('"attention" must be true or false')
        return cls(paid=data["paid"], paid_centavos=centavos, attention=attention)

    def to_json(self) -> dict[str, Any]:
        """The JSON of `from_json`."""
        return {"paid": self.paid, "paidCentavos": self.paid_centavos, "attention": self.attention}


class Adapter:
    """How the kit drives the partner's system: subclass it (or write a class with the same
    members) in the partner's tests.

    The system under test talks to the kit's sandbox as it would to the service (a client
    built with ``transport=sandbox.transport()``, or ``base_url`` of a served sandbox), and
    receives the sandbox's webhook deliveries at `webhook`.

    Attributes:
        webhook: Where the sandbox delivers events: the system's webhook URL (a loopback
            URL), or an object with ``receive(body, headers)`` such as a
            ``smartpos.webhooks.WebhookReceiver``.
        webhook_headers: Headers every delivery carries (a shared secret the receiver checks).
    """

    webhook: WebhookTarget
    webhook_headers: Mapping[str, str] = {}

    def charge(
        self,
        sale: str,
        *,
        valor_centavos: int,
        total_centavos: int,
        documento_cliente: str,
        smartpos_id: str,
    ) -> object:
        """Do what the system does when the cashier presses "charge" for ``sale``.

        Whatever it answers is recorded, not judged: the kit judges what reached the sandbox.
        An exception is recorded too (a system may refuse to charge a paid sale by raising).

        Args:
            sale: The sale's id in the scenario (``"S1"``); map it to the system's own.
            valor_centavos: The amount of this charge.
            total_centavos: The sale's total (more than ``valor_centavos`` in a split bill).
            documento_cliente: The customer.
            smartpos_id: The terminal.
        """
        raise NotImplementedError

    def status(self, sale: str) -> SaleStatus:
        """Read what the system says about ``sale`` now."""
        raise NotImplementedError

    def abandon(self, sale: str) -> None:
        """The cashier gives up the sale's open attempt (the customer pays another way).

        Raises:
            NotSupported: The system has no such action (the default).
        """
        raise NotSupported("abandon")

    def refund(self, sale: str) -> None:
        """The operator refunds the paid ``sale`` in full.

        Raises:
            NotSupported: The system has no such action (the default).
        """
        raise NotSupported("refund")

    def settle(self) -> None:
        """Let the system finish what the delivered events started (run its worker until idle).

        The default does nothing: a system that decides when the event is received.
        """
