"""Sales through the clients: sale=, total_centavos=, abandon, compensate, on all four stores.

Every test runs with ``Client`` and ``AsyncClient`` (``flavour``) on Memory, SQLite, Redis and
PostgreSQL stores (``store``), against the sandbox delivering into a ``WebhookReceiver`` on the
same store. "Nothing was sent" is checked on the recorded requests.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import asyncio
import pickle
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from outcome_helpers import Recording, on_client, payment_kwargs

import smartpos
from client_cases import SDK, in_the_tests_loop
from smartpos import webhooks
from smartpos.testing import NoAnswer, Sandbox
from smartpos.webhooks import MemoryStore, PagamentoAprovado, PagamentoRecusado, StoreBase
from smartpos.webhooks._effects import COMPENSATION_ACCEPTED
from smartpos.webhooks._sales import compensation_referencia

pytestmark = pytest.mark.asyncio

BASE = "http://sandbox.test"


@pytest.fixture
def recording(sandbox: Sandbox) -> Recording:
    return Recording(sandbox.transport())


@pytest.fixture
def client(make_sdk: Callable[..., SDK], store: StoreBase, recording: Recording) -> SDK:
    return make_sdk(api_key=Sandbox.API_KEY, base_url=BASE, transport=recording, store=store)


def posts(recording: Recording, path: str) -> int:
    return sum(1 for method, p, _ in recording.sent if (method, p) == ("POST", path))


def until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition never held"
        time.sleep(0.01)


async def test_a_split_bill_is_paid_by_two_charges_and_never_charged_again(
    client: SDK, store: StoreBase, recording: Recording
) -> None:
    first = await client.call(
        "payments",
        "create_and_wait",
        **payment_kwargs(valor_centavos=3000),
        sale="mesa-12",
        total_centavos=9000,
        timeout=10,
    )
    second = await client.call(
        "payments", "create_and_wait", **payment_kwargs(valor_centavos=6000), sale="mesa-12"
    )
    sent = posts(recording, "/v1/payments")

    with pytest.raises(smartpos.SalePaidError) as paid:
        await client.call("payments", "create", **payment_kwargs(valor_centavos=1), sale="mesa-12")

    assert (PagamentoAprovado, PagamentoAprovado) == (type(first), type(second))
    sale = store.sale("mesa-12")
    assert sale is not None
    assert ("paid", 9000, 0, 2) == (
        sale.state,
        sale.approved_centavos,
        sale.remaining_centavos,
        len(sale.approvals),
    )
    assert (2, sent) == (sent, posts(recording, "/v1/payments"))
    assert "paid" == paid.value.sale.state


async def test_a_refusal_leaves_the_sale_open_and_the_retry_pays_it(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    sandbox.script_payments("recusar")
    refused = await client.call(
        "payments", "create_and_wait", **payment_kwargs(), sale="pedido-1", timeout=10
    )
    approved = await client.call(
        "payments", "create_and_wait", **payment_kwargs(), sale="pedido-1", timeout=10
    )

    sale = store.sale("pedido-1")
    assert (PagamentoRecusado, PagamentoAprovado) == (type(refused), type(approved))
    assert sale is not None
    assert ("paid", 2) == (sale.state, len(sale.attempts))


async def test_an_open_attempt_refuses_the_next_charge_and_the_terminal_until_abandoned(
    client: SDK, store: StoreBase, sandbox: Sandbox, recording: Recording
) -> None:
    sandbox.script_payments(NoAnswer())
    stuck = await client.call("payments", "create", **payment_kwargs(), sale="mesa-1")
    sent = len(recording.sent)

    with pytest.raises(smartpos.SaleInProgressError) as running:
        await client.call("payments", "create", **payment_kwargs(), sale="mesa-1")
    with pytest.raises(smartpos.TerminalBusyError) as busy:
        await client.call("payments", "create", **payment_kwargs(), sale="mesa-2")
    assert sent == len(recording.sent)
    assert stuck.referencia == running.value.referencia == busy.value.referencia

    sale = await on_client(client, "abandon", "mesa-1", motivo="cliente desistiu", operador="ana")

    assert ("open", "ana") == (sale.state, sale.attempts[0].abandoned.operador)
    event = await client.call(
        "payments", "create_and_wait", **payment_kwargs(), sale="mesa-2", timeout=10
    )
    assert isinstance(event, PagamentoAprovado)


async def test_a_late_approval_is_compensated_once_however_often_compensate_runs(
    make_sdk: Callable[..., SDK],
    client: SDK,
    store: StoreBase,
    sandbox: Sandbox,
    recording: Recording,
) -> None:
    """The cashier gives up, the customer pays by another attempt, the first one's approval
    arrives late: one refund of it, even from two clients at once and run again."""
    sandbox.hold_events()
    late = await client.call("payments", "create", **payment_kwargs(), sale="mesa-7")
    await on_client(client, "abandon", "mesa-7", motivo="trocou de cartão")
    sandbox.release_events()
    paid = await client.call(
        "payments", "create_and_wait", **payment_kwargs(), sale="mesa-7", timeout=10
    )
    until(lambda: bool(getattr(store.sale("mesa-7"), "pendencias", None)))
    sale = store.sale("mesa-7")
    assert sale is not None
    assert isinstance(paid, PagamentoAprovado)
    assert ("paid", ["late_approval"]) == (sale.state, [p.reason for p in sale.pendencias])

    other = make_sdk(api_key=Sandbox.API_KEY, base_url=BASE, transport=recording, store=store)
    found = await asyncio.gather(
        on_client(client, "compensate", "mesa-7"), on_client(other, "compensate", "mesa-7")
    )
    again = await on_client(client, "compensate", "mesa-7")

    referencia = compensation_referencia(late.referencia)
    assert [[referencia], [referencia], [referencia]] == [
        [o.referencia for o in ops] for ops in (*found, again)
    ]
    assert 1 == posts(recording, "/v1/refunds")
    assert 1 == sum(1 for r in sandbox.refunds if r.referencia == referencia)
    sale = store.sale("mesa-7")
    assert sale is not None
    assert ([], [referencia]) == (sale.pendencias, [c.referencia for c in sale.compensations])
    # The service sends no refund events: the SDK stored its own, once, for on_sale.
    mine = [e for e in store.list(limit=100) if e.tipo == COMPENSATION_ACCEPTED]
    assert [f"{COMPENSATION_ACCEPTED}:{referencia}"] == [e.id for e in mine]
    assert referencia == mine[0].raw["dados"]["referencia"]


@pytest.mark.parametrize(
    "store_kind",
    ["sqlite", pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.slow])],
)
async def test_on_sale_applies_the_compensation_without_waiting_for_another_event(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """paid, late_approval, then compensated as soon as compensate is accepted, each once."""
    applied: list[str] = []
    worker = webhooks.Worker(store, on_sale=lambda effect: applied.append(effect.key))
    sandbox.hold_events()
    late = await client.call("payments", "create", **payment_kwargs(), sale="mesa-8")
    await on_client(client, "abandon", "mesa-8", motivo="trocou de cartão")
    sandbox.release_events()
    await client.call("payments", "create_and_wait", **payment_kwargs(), sale="mesa-8", timeout=10)
    until(lambda: bool(getattr(store.sale("mesa-8"), "pendencias", None)))
    while worker.run_once():
        pass
    await on_client(client, "compensate", "mesa-8")
    await on_client(client, "compensate", "mesa-8")
    while worker.run_once():
        pass

    assert [
        "sale:mesa-8:paid",
        f"sale:mesa-8:late_approval:{late.referencia}",
        f"sale:mesa-8:compensated:{late.referencia}",
    ] == applied


async def test_compensate_from_threads_sends_one_refund(
    client: SDK, store: StoreBase, sandbox: Sandbox, recording: Recording
) -> None:
    """Four threads, each with its own sync Client on the store (as four workers would)."""
    sandbox.hold_events()
    late = await client.call("payments", "create", **payment_kwargs(), sale="mesa-8")
    await on_client(client, "abandon", "mesa-8", motivo="desistiu")
    sandbox.release_events()
    until(lambda: bool(getattr(store.sale("mesa-8"), "pendencias", None)))
    barrier = threading.Barrier(4)
    results: list[Any] = []

    def run() -> None:
        with smartpos.Client(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=recording, store=store
        ) as own:
            barrier.wait(timeout=10)
            results.append(own.compensate("mesa-8"))

    threads = [threading.Thread(target=run) for _ in range(4)]
    with in_the_tests_loop():
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)

    assert 4 == len(results)
    assert 1 == posts(recording, "/v1/refunds")
    assert {compensation_referencia(late.referencia)} == {o.referencia for r in results for o in r}


async def test_the_same_referencia_under_another_sale_is_another_request(
    client: SDK, recording: Recording
) -> None:
    ref = smartpos.new_referencia()
    first = await client.call("payments", "create", **payment_kwargs(), sale="a", referencia=ref)
    again = await client.call("payments", "create", **payment_kwargs(), sale="a", referencia=ref)
    sent = len(recording.sent)

    with pytest.raises(smartpos.ValidationError) as info:
        await client.call("payments", "create", **payment_kwargs(), sale="b", referencia=ref)
    with pytest.raises(smartpos.ValidationError):
        await client.call("payments", "create", **payment_kwargs(), referencia=ref)

    assert first.referencia == again.referencia
    assert 1 == posts(recording, "/v1/payments")
    assert ("REFERENCIA_DUPLICADA", sent) == (info.value.codigo, len(recording.sent))


async def test_terminal_hold_zero_holds_nothing(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox, recording: Recording
) -> None:
    sdk = make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=recording, store=store, terminal_hold=0
    )
    sandbox.script_payments(NoAnswer())
    await sdk.call("payments", "create", **payment_kwargs(), sale="s1")

    second = await sdk.call("payments", "create", **payment_kwargs(), sale="s2")

    assert second.referencia
    assert 0.0 == sdk.client.with_options(pending_after=5)._config.terminal_hold


# --- bad input: typed errors, nothing sent ----------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "codigo", "campo"),
    [
        ({"sale": ""}, "CAMPO_INVALIDO", "sale"),
        ({"sale": "   "}, "CAMPO_INVALIDO", "sale"),
        ({"sale": "x" * 101}, "CAMPO_INVALIDO", "sale"),
        ({"sale": 12}, "CAMPO_INVALIDO", "sale"),
        ({"sale": "mesa\x001"}, "CAMPO_INVALIDO", "sale"),
        ({"sale": "mesa\n1"}, "CAMPO_INVALIDO", "sale"),
        ({"total_centavos": 9000}, "CAMPO_INVALIDO", "total_centavos"),
        ({"sale": "s", "total_centavos": 0}, "VALOR_INVALIDO", "total_centavos"),
        ({"sale": "s", "total_centavos": 1000}, "VALOR_ACIMA_DO_RESTANTE", "valorCentavos"),
    ],
)
async def test_bad_sale_arguments_are_refused_before_anything_is_sent(
    client: SDK,
    store: StoreBase,
    recording: Recording,
    kwargs: dict[str, Any],
    codigo: str,
    campo: str,
) -> None:
    with pytest.raises(smartpos.ValidationError) as info:
        await client.call("payments", "create", **payment_kwargs(valor_centavos=1990), **kwargs)

    assert (codigo, campo) == (info.value.codigo, info.value.campo)
    assert ([], [], []) == (recording.sent, store.operations(final=True), store.sales())


@pytest.mark.parametrize(
    ("kwargs", "campo"),
    [
        ({"motivo": ""}, "motivo"),
        ({"motivo": "x" * 201}, "motivo"),
        ({"motivo": "ok", "operador": ""}, "operador"),
        ({"motivo": "ok", "operador": 7}, "operador"),
        ({"motivo": "ok", "sale_id": "nobody"}, "sale"),
        ({"motivo": "ok", "sale_id": ""}, "sale"),
        ({"motivo": "ok", "sale_id": "a\x00b"}, "sale"),
    ],
)
async def test_bad_abandon_arguments_are_refused_and_record_nothing(
    client: SDK, store: StoreBase, sandbox: Sandbox, kwargs: dict[str, Any], campo: str
) -> None:
    sandbox.script_payments(NoAnswer())
    await client.call("payments", "create", **payment_kwargs(), sale="mesa-1")
    kwargs = dict(kwargs)
    sale_id = kwargs.pop("sale_id", "mesa-1")

    with pytest.raises(smartpos.ValidationError) as info:
        await on_client(client, "abandon", sale_id, **kwargs)

    assert ("CAMPO_INVALIDO", campo) == (info.value.codigo, info.value.campo)
    sale = store.sale("mesa-1")
    assert sale is not None
    assert ("in_progress", None) == (sale.state, sale.attempts[0].abandoned)


async def test_compensate_of_an_unknown_sale_is_refused(client: SDK) -> None:
    with pytest.raises(smartpos.ValidationError) as info:
        await on_client(client, "compensate", "nobody")

    assert "sale" == info.value.campo


@pytest.mark.parametrize("flavour", ["sync", "async"], indirect=True)
async def test_sales_need_a_store_and_nothing_is_sent(
    make_sdk: Callable[..., SDK], sandbox: Sandbox, flavour: str
) -> None:
    recording = Recording(sandbox.transport())
    sdk = make_sdk(api_key=Sandbox.API_KEY, base_url=BASE, transport=recording)

    with pytest.raises(smartpos.ConfigurationError):
        await sdk.call("payments", "create", **payment_kwargs(), sale="s")
    with pytest.raises(smartpos.ConfigurationError):
        await on_client(sdk, "abandon", "s", motivo="x")
    with pytest.raises(smartpos.ConfigurationError):
        await on_client(sdk, "compensate", "s")
    assert [] == recording.sent


async def test_the_sale_errors_survive_pickling_and_speak_portuguese() -> None:
    store = MemoryStore()
    from smartpos.webhooks._sales import SaleRow, build_sale

    row = SaleRow("mesa-1", 1000, 1, 1.0, 1.0, 1)
    sale = build_sale(row, [], [], now=2.0, pending_after=lambda r: None, stored_at=lambda i: None)
    store.close()
    errors = [
        smartpos.SaleInProgressError("ref-1", sale_id="mesa-1"),
        smartpos.SalePaidError(sale),
        smartpos.TerminalBusyError("ref-2", smartpos_id="SP-1"),
        smartpos.AttemptAbandonedError("ref-3", sale_id="mesa-2"),
    ]

    for error in errors:
        copy = pickle.loads(pickle.dumps(error))
        assert (type(error), str(error), getattr(error, "codigo", None)) == (
            type(copy),
            str(copy),
            getattr(copy, "codigo", None),
        )
    assert "ref-1" == pickle.loads(pickle.dumps(errors[0])).referencia
    assert "mesa-1" == pickle.loads(pickle.dumps(errors[1])).sale.sale_id
    with smartpos._messages.in_language("pt_BR"):
        text = str(smartpos.TerminalBusyError("ref-2", smartpos_id="SP-1"))
    assert "ocupado" in text


async def test_a_clients_sale_refusals_speak_its_language(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox, recording: Recording
) -> None:
    sdk = make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=recording, store=store, lang="pt_BR"
    )
    sandbox.script_payments(NoAnswer())
    await sdk.call("payments", "create", **payment_kwargs(), sale="s1")

    with pytest.raises(smartpos.SaleInProgressError) as running:
        await sdk.call("payments", "create", **payment_kwargs(), sale="s1")
    with pytest.raises(smartpos.TerminalBusyError) as busy:
        await sdk.call("payments", "create", **payment_kwargs(), sale="s2")

    assert "tentativa em aberto" in str(running.value)
    assert "ocupado" in str(busy.value)


async def test_a_compensation_the_service_never_took_is_sent_again(
    client: SDK, store: StoreBase, sandbox: Sandbox, recording: Recording
) -> None:
    """The refund never left (connection refused): rejected, the late approval stays a
    pendência; compensate again sends it under the same referencia, once refunded."""
    from smartpos.testing import ConnectionRefused, Hold

    sandbox.script_payments(Hold())
    late = await client.call("payments", "create", **payment_kwargs(), sale="mesa-5")
    await on_client(client, "abandon", "mesa-5", motivo="desistiu")
    sandbox.release(late.referencia)
    until(lambda: bool(getattr(store.sale("mesa-5"), "pendencias", None)))
    sandbox.fail_next("refunds", ConnectionRefused(), times=3)  # the first call and its retries

    [refused] = await on_client(client, "compensate", "mesa-5")
    sale = store.sale("mesa-5")
    assert sale is not None
    assert ("rejected", ["late_approval"]) == (refused.state, [p.reason for p in sale.pendencias])

    [sent] = await on_client(client, "compensate", "mesa-5")
    [again] = await on_client(client, "compensate", "mesa-5")

    sale = store.sale("mesa-5")
    assert sale is not None
    assert (refused.referencia, "accepted", []) == (sent.referencia, again.state, sale.pendencias)
    assert 1 == sum(1 for r in sandbox.refunds if r.referencia == refused.referencia)


@pytest.mark.parametrize("store_kind", ["sqlite"])
async def test_workers_never_hand_the_sdks_own_event_to_a_handler(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """The compensation's own event is acknowledged by Worker and AsyncWorker, never handled."""
    handled: list[str] = []
    sandbox.hold_events()
    await client.call("payments", "create", **payment_kwargs(), sale="mesa-9")
    await on_client(client, "abandon", "mesa-9", motivo="trocou de cartão")
    sandbox.release_events()
    await client.call("payments", "create_and_wait", **payment_kwargs(), sale="mesa-9", timeout=10)
    until(lambda: bool(getattr(store.sale("mesa-9"), "pendencias", None)))
    await on_client(client, "compensate", "mesa-9")

    async def ahandle(event: webhooks.Event) -> None:
        handled.append(event.tipo)

    sync_worker = webhooks.Worker(store, lambda event: handled.append(event.tipo))
    async_worker = webhooks.AsyncWorker(store, ahandle)
    while sync_worker.run_once() or await async_worker.run_once():
        pass

    assert COMPENSATION_ACCEPTED not in handled
    assert [] == store.list(state=webhooks.EventState.PENDING)
    assert handled  # the service's events were handled
