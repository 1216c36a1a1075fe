"""Adversarial review of sales: each test shows one way to break a rule of API.md's "Sales".

Store-level tests run on every store kind of ``conftest.store`` (Memory, SQLite, Redis,
PostgreSQL); client-level ones also on both flavours. "Nothing was sent" is checked on what
reached the sandbox.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from outcome_helpers import Recording, on_client, payment_kwargs
from sales_contract import approve, attempt, compensation, refs

import smartpos
from client_cases import SDK
from smartpos.testing import NoAnswer, Sandbox
from smartpos.webhooks import StoreBase
from smartpos.webhooks._sales import compensation_referencia, is_open

BASE = "http://sandbox.test"
R1, R2, R3 = refs(3, prefix="4e71")


class Cut(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Fails the first send of the chosen referencias before it reaches ``inner``.

    ``refused``: a refused connection (``TransportError``: surely not accepted, journaled
    ``rejected``). ``timeout``: a read timeout (``OutcomeUnknownError``: journaled ``unknown``),
    raised although the request never reached the service.
    """

    def __init__(self, inner: Any, *, refused: set[str] = set(), timeout: set[str] = set()):  # noqa: B006
        self.inner = inner
        self.refused, self.timeout = set(refused), set(timeout)

    def _cut(self, request: httpx.Request) -> None:
        referencia = json.loads(request.content or b"{}").get("referencia")
        if referencia in self.refused:
            self.refused.discard(referencia)
            raise httpx.ConnectError("connection refused", request=request)
        if referencia in self.timeout:
            self.timeout.discard(referencia)
            raise httpx.ReadTimeout("no answer", request=request)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self._cut(request)
        response: httpx.Response = self.inner.handle_request(request)
        return response

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        self._cut(request)
        response: httpx.Response = await self.inner.handle_async_request(request)
        return response


def reached(recording: Recording, referencia: str) -> int:
    """How many requests under ``referencia`` reached the sandbox."""
    return len(recording.bodies(referencia))


def open_attempts(store: StoreBase, sale_id: str = "mesa-1") -> list[str]:
    sale = store.sale(sale_id)
    assert sale is not None
    return [op.referencia for op in sale.attempts if is_open(op)]


# --- F1: a rejected attempt of a sale is sent again without the sale's rules ---------------


@pytest.mark.asyncio
async def test_review_a_rejected_attempt_is_never_sent_once_the_sale_is_paid(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """The first attempt's connection is refused (journaled ``rejected``: "surely not
    accepted"); a second attempt pays the sale. A retry of the first attempt's referencia (same
    request, the idempotent create) must not charge the paid sale again."""
    ref = smartpos.new_referencia()
    recording = Recording(sandbox.transport())
    sdk = make_sdk(
        api_key=Sandbox.API_KEY,
        base_url=BASE,
        transport=Cut(recording, refused={ref}),
        store=store,
        max_retries=0,
    )
    with pytest.raises(smartpos.TransportError):
        await sdk.call("payments", "create", **payment_kwargs(), sale="mesa-1", referencia=ref)
    paid = await sdk.call(
        "payments", "create_and_wait", **payment_kwargs(), sale="mesa-1", timeout=10
    )
    assert isinstance(paid, smartpos.webhooks.PagamentoAprovado)

    with pytest.raises(smartpos.ValidationError):
        await sdk.call("payments", "create", **payment_kwargs(), sale="mesa-1", referencia=ref)

    assert 0 == reached(recording, ref), "a paid sale was charged a second time"


@pytest.mark.asyncio
async def test_review_a_rejected_attempt_is_never_sent_while_another_is_open(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """As above, with the second attempt still running: two attempts of one sale (and two
    imediato payments on one terminal) would be open at once."""
    ref = smartpos.new_referencia()
    recording = Recording(sandbox.transport())
    sdk = make_sdk(
        api_key=Sandbox.API_KEY,
        base_url=BASE,
        transport=Cut(recording, refused={ref}),
        store=store,
        max_retries=0,
    )
    with pytest.raises(smartpos.TransportError):
        await sdk.call("payments", "create", **payment_kwargs(), sale="mesa-1", referencia=ref)
    sandbox.script_payments(NoAnswer())
    running = await sdk.call("payments", "create", **payment_kwargs(), sale="mesa-1")

    with pytest.raises(smartpos.ValidationError):
        await sdk.call("payments", "create", **payment_kwargs(), sale="mesa-1", referencia=ref)

    assert 0 == reached(recording, ref)
    assert [running.referencia] == open_attempts(store)


def test_review_a_restart_between_the_read_and_the_compare_and_set(
    store: StoreBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compare-and-set of ``_begin_sale_attempt`` assumes attempts only go from open to
    ended outside it. ``_restart_operation`` turns a rejected attempt back to ``sending``
    (open) without touching the sale's version: a restart between the read and the insert
    leaves two attempts of one sale open."""
    attempt(store, R1)
    store._record_operation(R1, "rejected")
    insert = store._sale_insert

    def restart_first(*args: Any, **kwargs: Any) -> Any:
        store._restart_operation(R1)  # another process resends R1 meanwhile
        return insert(*args, **kwargs)

    monkeypatch.setattr(store, "_sale_insert", restart_first)
    with contextlib.suppress(smartpos.ValidationError):  # refused: fine
        attempt(store, R2, smartpos_id="SP-2")

    assert len(open_attempts(store)) <= 1, open_attempts(store)


# --- F2: an abandoned attempt is sent again --------------------------------------------------


@pytest.mark.asyncio
async def test_review_reconcile_never_sends_an_abandoned_attempt(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """The first attempt's answer is lost (it never reached the service: unknown); the
    cashier gives it up, the customer pays by another attempt. The start-up loop
    (``operations(final=False)`` then ``reconcile``, as ``smartpos_reconcile`` does) must not
    send the abandoned attempt: on the terminal it is a fresh charge of a paid sale."""
    ref = smartpos.new_referencia()
    recording = Recording(sandbox.transport())
    sdk = make_sdk(
        api_key=Sandbox.API_KEY,
        base_url=BASE,
        transport=Cut(recording, timeout={ref}),
        store=store,
        max_retries=0,
    )
    with pytest.raises(smartpos.OutcomeUnknownError):
        await sdk.call("payments", "create", **payment_kwargs(), sale="mesa-1", referencia=ref)
    await on_client(sdk, "abandon", "mesa-1", motivo="terminal parado")
    await sdk.call("payments", "create_and_wait", **payment_kwargs(), sale="mesa-1", timeout=10)

    for operation in store.operations(final=False):
        await on_client(sdk, "reconcile", operation.referencia)

    assert 0 == reached(recording, ref), "an abandoned attempt was sent"
    sale = store.sale("mesa-1")
    assert sale is not None
    assert ("paid", []) == (sale.state, sale.pendencias)


@pytest.mark.asyncio
async def test_review_create_never_resends_an_abandoned_attempt(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """The same, through a retry of the abandoned attempt's referencia (the POS retrying
    ``create`` after an ``OutcomeUnknownError``, as the error tells it to)."""
    ref = smartpos.new_referencia()
    recording = Recording(sandbox.transport())
    sdk = make_sdk(
        api_key=Sandbox.API_KEY,
        base_url=BASE,
        transport=Cut(recording, timeout={ref}),
        store=store,
        max_retries=0,
    )
    with pytest.raises(smartpos.OutcomeUnknownError):
        await sdk.call("payments", "create", **payment_kwargs(), sale="mesa-1", referencia=ref)
    await on_client(sdk, "abandon", "mesa-1", motivo="terminal parado")
    await sdk.call("payments", "create_and_wait", **payment_kwargs(), sale="mesa-1", timeout=10)

    with pytest.raises(smartpos.SmartPOSError):
        await sdk.call("payments", "create", **payment_kwargs(), sale="mesa-1", referencia=ref)

    assert 0 == reached(recording, ref), "an abandoned attempt was sent"


# --- F3: the till's review on RedisStore (and PostgresStore) ---------------------------------


def test_review_sales_attention_and_in_progress_on_every_store(store: StoreBase) -> None:
    attempt(store, R1)
    store._record_operation(R1, "unknown")

    assert ["mesa-1"] == [s.sale_id for s in store.sales(attention=True)]
    assert ["mesa-1"] == [s.sale_id for s in store.sales(state="in_progress")]


# --- F4: a compensation whose answer is unknown takes the late approval off the review -------


def test_review_an_unknown_compensation_keeps_the_late_approval_in_review(
    store: StoreBase,
) -> None:
    attempt(store, R1)
    store._abandon("mesa-1", motivo="desistiu", operador=None)
    approve(store, R1)
    compensation(store, R1)
    store._record_operation(compensation_referencia(R1), "unknown")  # a 5xx, a read timeout

    sale = store.sale("mesa-1")
    assert sale is not None
    assert sale.pendencias, "a refund that may never have happened left the review"
    assert ["mesa-1"] == [s.sale_id for s in store.sales(attention=True)]


# --- F5: the inbox's purge forgets what a sale is computed from ------------------------------


def _consume_and_purge(store: StoreBase) -> None:
    """A worker handles every event and acks it; the retention's purge runs later."""
    while claims := store.claim(owner="worker", lease=30.0, limit=10):
        for claim in claims:
            assert store.ack(claim)
    store.purge(done_before=dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1))


def test_review_purging_a_handled_approval_keeps_the_sale_paid(store: StoreBase) -> None:
    """``payments.create(sale=...)`` (no waiter), a worker handles the approval, nobody reads
    the sale before the purge: the approval is gone and the sale is in progress again, its
    terminal held, and after an abandon it can be charged a second time."""
    attempt(store, R1)
    store._record_operation(R1, "accepted")
    approve(store, R1)
    _consume_and_purge(store)

    sale = store.sale("mesa-1")
    assert sale is not None
    assert ("paid", 1000) == (sale.state, sale.approved_centavos)


def test_review_a_purged_late_approval_stays_in_the_review(store: StoreBase) -> None:
    """Read before the purge (its outcome recorded in the journal), the late approval is still
    a pendência of ``store.sale``; ``store.sales(attention=True)`` must list the sale too."""
    attempt(store, R1)
    store._abandon("mesa-1", motivo="desistiu", operador=None)
    approve(store, R1)
    before = store.sale("mesa-1")
    assert before is not None
    assert ["late_approval"] == [p.reason for p in before.pendencias]
    _consume_and_purge(store)

    after = store.sale("mesa-1")
    assert after is not None
    assert ["late_approval"] == [p.reason for p in after.pendencias]
    assert ["mesa-1"] == [s.sale_id for s in store.sales(attention=True)]


# --- F6: terminal_hold=0 skips the terminal's compare-and-set --------------------------------


def test_review_a_charge_without_hold_still_respects_a_hold_taken_meanwhile(
    store: StoreBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client with ``terminal_hold=0`` charges SP-1 while another client (default hold)
    charges another sale on SP-1 between the first one's read and its insert: the insert does
    not compare the terminal's holder, so two imediato attempts run on SP-1 at once."""
    insert = store._sale_insert
    raced = []

    def other_first(*args: Any, **kwargs: Any) -> Any:
        if not raced:
            raced.append(True)
            attempt(store, R1, "other-sale")  # holds SP-1 for 300 s
        return insert(*args, **kwargs)

    monkeypatch.setattr(store, "_sale_insert", other_first)
    with pytest.raises(smartpos.TerminalBusyError):
        attempt(store, R2, "mesa-1", terminal_hold=0.0)


# --- F7: create_and_wait(sale=...) returns an approval its sale does not count ---------------


def test_review_create_and_wait_never_returns_an_approval_the_sale_does_not_count(
    store: StoreBase, sandbox: Sandbox
) -> None:
    """The POS waits on ``create_and_wait(sale=...)``; the cashier, tired of waiting, gives the
    attempt up from the till's other thread (and takes cash); the terminal's approval then
    arrives. The waiter hands the POS a ``PagamentoAprovado`` although the sale never counts
    it (a late approval that ``compensate`` refunds): code that treats the returned approval as
    "paid" (what ``create_and_wait`` is for) closes an open sale whose card is refunded."""
    import threading

    sandbox.hold_events()
    got: list[Any] = []

    def pos() -> None:
        with smartpos.Client(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
        ) as own:
            try:
                got.append(
                    own.payments.create_and_wait(**payment_kwargs(), sale="mesa-9", timeout=10)
                )
            except Exception as exc:  # whatever it raises is the answer
                got.append(exc)

    thread = threading.Thread(target=pos)
    thread.start()
    try:
        deadline = dt.datetime.now() + dt.timedelta(seconds=10)
        while not sandbox.held_events:
            assert dt.datetime.now() < deadline
        with smartpos.Client(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
        ) as till:
            till.abandon("mesa-9", motivo="pagou em dinheiro", operador="caixa 2")
    finally:
        sandbox.release_events()
        thread.join(timeout=30)

    sale = store.sale("mesa-9")
    assert sale is not None
    [answer] = got
    if isinstance(answer, smartpos.webhooks.PagamentoAprovado):
        assert answer.id in [a.id for a in sale.approvals], (
            f"create_and_wait returned an approval the sale does not count: {sale.state}, "
            f"{[p.reason for p in sale.pendencias]}"
        )


# --- F8: a refusal proven by the confirmation re-run is reported as an unknown outcome -------


def test_review_a_refusal_on_the_confirmation_rerun_is_a_refusal(
    store: StoreBase, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sale's journal write fails with a reply lost (``StoreError(applied=None)``), having
    written nothing; meanwhile another till starts an attempt of the same sale. ``_begin``'s
    confirmation re-run reads the journal (no entry under the referencia) and the rules refuse
    (``SaleInProgressError``): nothing was journaled, nothing sent. The caller must hear that
    refusal, not an ``OutcomeUnknownError`` telling it the charge may have happened and never
    to charge under a new referencia."""
    from smartpos.webhooks._store_errors import StoreError

    insert = store._sale_insert
    lost: list[bool] = []

    def reply_lost(*args: Any, **kwargs: Any) -> Any:
        if not lost:
            lost.append(True)
            attempt(store, R3, "mesa-5", smartpos_id="SP-OTHER")  # the other till
            raise StoreError("reply lost", applied=None)
        return insert(*args, **kwargs)

    monkeypatch.setattr(store, "_sale_insert", reply_lost)
    recording = Recording(sandbox.transport())
    with (
        smartpos.Client(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=recording, store=store
        ) as client,
        pytest.raises(smartpos.ValidationError) as info,
    ):
        client.payments.create(**payment_kwargs(), sale="mesa-5")

    assert not isinstance(info.value, smartpos.OutcomeUnknownError)
    assert ("VENDA_EM_ANDAMENTO", []) == (info.value.codigo, recording.sent)


# --- F4b: a compensation cut between its journal entry and its send --------------------------


class _Crash(BaseException):
    """The process dies here (kill -9 between the journal write and the send)."""


class _CrashOnRefund(httpx.BaseTransport):
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/refunds":
            raise _Crash
        response: httpx.Response = self.inner.handle_request(request)
        return response


def test_review_a_compensation_cut_before_its_send_is_not_forgotten(
    store: StoreBase, sandbox: Sandbox
) -> None:
    """``compensate`` journals the refund, then the process dies before sending it. The entry
    stays ``sending``: the late approval leaves the pendências (a journaled compensation counts)
    and ``compensate`` never sends a journaled one again. Unless a start-up loop reconciles
    every operation, the customer's money is never returned and the till's review is clean.
    Either ``compensate`` resumes its own compensation (same referencia and bytes: never a
    second refund) or the sale stays in the review."""
    with smartpos.Client(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
    ) as client:
        sandbox.hold_events()
        client.payments.create(**payment_kwargs(), sale="mesa-3")
        client.abandon("mesa-3", motivo="desistiu")
        sandbox.release_events()
        client.payments.create_and_wait(**payment_kwargs(), sale="mesa-3", timeout=10)
    with (
        smartpos.Client(
            api_key=Sandbox.API_KEY,
            base_url=BASE,
            transport=_CrashOnRefund(sandbox.transport()),
            store=store,
        ) as dying,
        pytest.raises(_Crash),
    ):
        dying.compensate("mesa-3")
    with smartpos.Client(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
    ) as client:
        client.compensate("mesa-3")

    sale = store.sale("mesa-3")
    assert sale is not None
    refunded = len(sandbox.refunds)
    assert refunded == 1 or ["mesa-3"] == [s.sale_id for s in store.sales(attention=True)], (
        f"refunds sent: {refunded}; compensations: {[c.state for c in sale.compensations]}; "
        f"pendencias: {[p.reason for p in sale.pendencias]}"
    )
