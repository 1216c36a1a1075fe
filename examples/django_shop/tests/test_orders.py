"""An order is paid once, by one or several attempts, whatever the service delivers twice."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from django.core.management import call_command
from django.test import AsyncClient, Client
from shop.models import Order

from smartpos.integrations.django import get_client
from smartpos.testing import Approve, Duplicate, Hold, Sandbox

DOC = Sandbox.DOCUMENTO
TERMINAL = Sandbox.SMARTPOS_ID


def open_order(total: str) -> str:
    numero = f"mesa-{uuid.uuid4().hex[:8]}"
    answer = Client().post("/orders/", {"numero": numero, "total": total})
    assert answer.status_code == 201, answer.content
    return numero


def charge(numero: str, valor: str | None = None) -> Any:
    data = {"numero": numero, "documento": DOC, "terminal": TERMINAL}
    if valor is not None:
        data["valor"] = valor
    return asyncio.run(AsyncClient().post("/charge/", data))


def work(sandbox: Any) -> None:
    """Let the sandbox deliver what it has, then process the inbox as smartpos_worker does."""
    sandbox.release_events()
    sandbox.wait_for_deliveries()
    sandbox.hold_events()
    call_command("smartpos_worker", "--once", verbosity=0)


def effects(numero: str) -> list[str]:
    from smartpos.integrations.django.models import Effect

    return sorted(Effect.objects.filter(sale=numero).values_list("kind", flat=True))


def test_an_order_is_paid_once_when_its_approval_arrives_twice(shop: Any) -> None:
    """The 202 starts it; the approval (delivered twice) marks the order paid, once."""
    numero = open_order("59,90")
    shop.script_payments(Duplicate(Approve()))

    answer = charge(numero)
    assert answer.status_code == 202, answer.content
    assert not Order.objects.get(numero=numero).paid  # accepted is not paid

    work(shop)
    work(shop)
    order = Order.objects.get(numero=numero)
    assert order.paid
    assert order.paid_at is not None
    assert effects(numero) == ["paid"]
    assert [p.valor_centavos for p in shop.payments] == [5990]


def test_a_split_bill_is_paid_by_its_last_attempt(shop: Any) -> None:
    """Two cards: the order is paid only when what was approved reaches its total."""
    numero = open_order("50,00")

    assert charge(numero, "20,00").status_code == 202
    work(shop)
    assert not Order.objects.get(numero=numero).paid

    assert charge(numero).status_code == 202  # what remains: R$ 30,00
    work(shop)
    assert Order.objects.get(numero=numero).paid
    assert [p.valor_centavos for p in shop.payments] == [2000, 3000]
    assert charge(numero, "1,00").status_code == 409  # paid: never charged again


def test_an_approval_after_the_cashier_gave_up_is_flagged_once(shop: Any) -> None:
    """The cashier abandons a silent attempt; its approval arrives later: a late approval."""
    numero = open_order("25,00")
    shop.script_payments(Hold(Approve()))
    referencia = charge(numero).json()["referencia"]
    get_client().abandon(numero, motivo="cliente desistiu", operador="caixa 1")

    shop.release(referencia)
    work(shop)
    order = Order.objects.get(numero=numero)
    assert (order.paid, order.late_approvals) == (False, 1)
    assert effects(numero) == ["late_approval"]


@pytest.mark.parametrize("valor", ["19.999", "abc"])
def test_an_ambiguous_amount_is_refused_before_anything_is_sent(shop: Any, valor: str) -> None:
    numero = open_order("10,00")
    assert charge(numero, valor).status_code == 400
    assert shop.payments == []
