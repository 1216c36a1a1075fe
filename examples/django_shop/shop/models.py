"""The shop's own data: an order is a sale of smartpos (``sale=`` is its ``numero``)."""

from __future__ import annotations

from datetime import datetime

from django.db import models

__all__ = ["Order"]


class Order(models.Model):
    """A table's tab or a counter order, paid by one or several attempts on the terminal.

    ``paid``, ``paid_at``, ``late_approvals`` and ``compensations`` are written only by
    ``shop.payments.on_sale``, in the transaction that consumes the event: once each.
    """

    numero: models.CharField[str, str] = models.CharField(max_length=64, unique=True)
    total_centavos: models.PositiveIntegerField[int, int] = models.PositiveIntegerField()
    paid: models.BooleanField[bool, bool] = models.BooleanField(default=False)
    paid_at: models.DateTimeField[datetime | None, datetime | None] = models.DateTimeField(
        null=True, blank=True
    )
    late_approvals: models.PositiveIntegerField[int, int] = models.PositiveIntegerField(default=0)
    compensations: models.PositiveIntegerField[int, int] = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"order {self.numero}"
