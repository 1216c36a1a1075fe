"""Money safety where processes race and stores fail between the steps of one call.

Each test drives a caller that does exactly what the README tells it to do with each outcome (a
new referencia only after "surely not accepted": ``TransportError``, ``APIError``, a
``StoreError`` from a journaled call, ``OperationRejectedError``; the same referencia after
``OutcomeUnknownError``; the documented start-up reconcile loop), and counts the sandbox's
charges. Found by an adversarial review; each one names the rule it holds:

1. a ``rejected`` record that fails is an unknown outcome (the entry may stay ``sending``,
   which the start-up loop would send after the caller heard "surely not accepted");
2. a first send that never left records ``rejected`` only over ``sending``: never over another
   process's resend in flight, whose copy may have been charged;
3. a store error after ``_begin_operation`` *found* the entry is never "nothing journaled";
4. a reconcile never resends an entry refused since it read it;
5. ``create_and_wait`` cancelled while it waits carries its referencia;
6. a call cancelled during the journal-confirm step carries its referencia;
7. a journal write interrupted after it applied (a signal-raised time limit) carries it too;
8. sending a rejected entry again takes no 409 for "acceptance" unless another process
   really resent it.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import contextlib
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from outcome_helpers import PAYMENT, on_client

import smartpos
from client_cases import SDK, in_the_tests_loop, notes_of
from smartpos.testing import Sandbox
from smartpos.webhooks import PagamentoAprovado, SQLiteStore, StoreBase, StoreError

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_store_faults import Faults, documented_checkout, startup_reconcile

pytestmark = pytest.mark.asyncio

BASE = "http://sandbox.invalid"


def charges(sandbox: Sandbox) -> list[str]:
    """The referencias the sandbox charged (one payment each)."""
    return [p.referencia for p in sandbox.payments]


# --- 1. a "rejected" record that fails leaves "sending": reconcile then charges again -------


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_a_rejection_whose_record_fails_is_not_resent_by_reconcile(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """The first send never leaves (connection refused) and recording ``rejected`` fails.

    The caller hears ``TransportError`` ("nothing reached the service: retry with a new
    referencia") and charges the sale under a new referencia; the journal still holds the
    first referencia as ``sending``, which the documented start-up loop resends — now for
    the first time — and the customer is charged twice. A ``rejected`` record the SDK could
    not write must not be reported as "surely not accepted".
    """
    faults = Faults(store)
    sdk = make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store,
        max_retries=0,
    )  # fmt: skip
    sandbox.fail_next("payments", "refuse")
    faults.record = 1  # the "rejected" record after the refused send fails

    try:
        event = await documented_checkout(sdk, timeout=3.0)
    except smartpos.OutcomePendingError as exc:  # still pending: the start-up loop, then wait
        await startup_reconcile(sdk, store)
        event = await on_client(sdk, "wait", exc.referencia, timeout=3.0)
    assert isinstance(event, PagamentoAprovado)
    await startup_reconcile(sdk, store)

    assert [event.dados.referencia] == charges(sandbox)


# --- 2. "rejected" written over another process's resend in flight --------------------------


class _Refused(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """A transport whose connections are refused (nothing is sent); runs ``before`` once."""

    def __init__(self, before: Callable[[], None]) -> None:
        self.before: Callable[[], None] | None = before

    def _refuse(self, request: httpx.Request) -> httpx.Response:
        before, self.before = self.before, None
        if before is not None:
            before()
        raise httpx.ConnectError("connection refused", request=request)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._refuse(request)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return self._refuse(request)


class _AnswerLost(httpx.BaseTransport):
    """The sandbox processes the request (a charge), then the answer never comes back."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.inner = sandbox.transport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.inner.handle_request(request)
        raise httpx.ReadTimeout("read timed out", request=request)


def _resend_elsewhere(sandbox: Sandbox, store: StoreBase, referencia: str, seen: list[Any]) -> None:
    """Process B: ``create`` of the same referencia (it finds the entry ``sending`` and
    resends its bytes); the service charges, B's answer is lost: ``OutcomeUnknownError``."""

    def run() -> None:
        with smartpos.Client(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=_AnswerLost(sandbox), store=store,
            retry_backoff=0, max_retries=0,
        ) as other:  # fmt: skip
            try:
                other.payments.create(**PAYMENT, referencia=referencia)
            except smartpos.OutcomeUnknownError as exc:
                seen.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_a_first_send_that_never_left_does_not_reject_another_process_resend(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """A journals R and sends; meanwhile B resends R (it found it ``sending``), the service
    charges it, B's answer is lost (B: ``OutcomeUnknownError``, entry ``unknown``). A's own
    send never leaves (connection refused): A records ``rejected`` over B's ``unknown``.

    B then does what it is told and waits for R: ``OperationRejectedError`` — "nothing was
    charged, send again under a new referencia" — while R was charged and its approval is
    on its way. The approval, once stored, is flagged as an anomaly, never the outcome.
    """
    sandbox.hold_events()
    referencia = smartpos.new_referencia()
    b_errors: list[Any] = []
    transport = _Refused(lambda: _resend_elsewhere(sandbox, store, referencia, b_errors))
    sdk = make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=transport, store=store, max_retries=0
    )
    with pytest.raises(smartpos.SmartPOSError):
        await sdk.call("payments", "create", **PAYMENT, referencia=referencia)
    assert 1 == len(b_errors)  # B: unknown outcome, as it should
    assert [referencia] == charges(sandbox)  # B's resend charged R

    sandbox.release_events()
    # B, as documented for OutcomeUnknownError: wait for the event of R.
    event = await on_client(sdk, "wait", referencia, timeout=3.0)
    assert referencia == event.dados.referencia


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_a_first_send_that_never_left_is_unknown_when_another_process_resent_it(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """The same race seen from A: its send never left, but the journal shows B resending R
    (entry marked ``unknown`` before A's answer). Like a 409 the journal explains (the
    "A 409 against the journal"), this is not "surely not accepted": A must not hear
    ``TransportError`` ("retry with a new referencia") for a referencia the service charged.
    """
    sandbox.hold_events()
    referencia = smartpos.new_referencia()
    b_errors: list[Any] = []
    transport = _Refused(lambda: _resend_elsewhere(sandbox, store, referencia, b_errors))
    sdk = make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=transport, store=store, max_retries=0
    )
    with pytest.raises(smartpos.OutcomeUnknownError) as caught:
        await sdk.call("payments", "create", **PAYMENT, referencia=referencia)
    assert referencia == caught.value.referencia
    assert [referencia] == charges(sandbox)


# --- 3. a StoreError(applied=False) from _begin_operation for an entry that already exists ---


@pytest.mark.parametrize("failing", ["_journal_events", "_journal_finalize"])
@pytest.mark.parametrize("store_kind", ["sqlite"], indirect=True)
async def test_a_resume_whose_journal_read_fails_is_not_nothing_journaled(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox, failing: str
) -> None:
    """``create_and_wait`` raises ``OutcomeUnknownError`` (journal write and its confirmation
    lost: R is journaled, nothing sent); the caller resumes under R, as documented.

    ``_begin_operation`` finds R's entry and then reads its events (or records its outcome):
    that SQLite statement fails ("database is locked"), a ``StoreError`` with
    ``applied=False``, which ``_begin`` takes for "nothing was journaled" and raises as is.
    The caller hears "nothing journaled, nothing sent" and charges under a new referencia;
    the start-up loop then sends R: two charges. ``applied=False`` speaks for the failed
    statement, not for the entry found before it.
    """
    assert isinstance(store, SQLiteStore)
    faults = Faults(store)
    faults.begin = ["lost", "lost"]
    sdk = sdk_on_store(make_sdk, sandbox, store)

    real = getattr(store, failing)
    calls = {"begin": 0, "armed": False}
    begin = store._begin_operation

    def counting_begin(*args: Any, **kwargs: Any) -> Any:
        calls["begin"] += 1
        calls["armed"] = calls["begin"] == 3  # the resume's journal write
        return begin(*args, **kwargs)

    def failing_once(*args: Any, **kwargs: Any) -> Any:
        if calls["armed"]:
            calls["armed"] = False
            raise store._error(sqlite3.OperationalError("database is locked"))
        return real(*args, **kwargs)

    store._begin_operation = counting_begin  # type: ignore[method-assign]
    setattr(store, failing, failing_once)
    if failing == "_journal_finalize":
        # The finalize runs only when an outcome is waiting to be recorded: R was charged
        # and approved before (the first create's answer lost), its event is in the store.
        faults.begin = []
        first = smartpos.new_referencia()
        sandbox.fail_next("payments", "timeout")
        with pytest.raises(smartpos.OutcomeUnknownError):
            await sdk.call("payments", "create", **PAYMENT, referencia=first)
        sandbox.wait_for_deliveries()
        calls["begin"] = 2  # the next begin (the third) is the resume
        event = await documented_checkout(sdk, timeout=3.0, referencia=first)
    else:
        event = await documented_checkout(sdk, timeout=3.0)
    await startup_reconcile(sdk, store)

    assert isinstance(event, PagamentoAprovado)
    assert [event.dados.referencia] == charges(sandbox)


def sdk_on_store(make_sdk: Callable[..., SDK], sandbox: Sandbox, store: StoreBase) -> SDK:
    return make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
    )


# --- 4. the start-up reconcile resends a referencia just reported "surely not accepted" -----


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_reconcile_never_resends_an_entry_rejected_since_it_read_it(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """Process B runs the documented start-up loop while process A is sending R: B reads R
    as ``sending``. A's send never leaves (connection refused): A records ``rejected`` and its
    caller hears ``TransportError`` — surely not accepted, charge again under a new
    referencia. B goes on with what it read: ``_mark_resending`` writes ``unknown`` over
    ``rejected`` (``ALLOWED_FROM["unknown"]`` includes it) and B resends R, which the service
    now charges for the first time: the sale is charged under R and under A's new referencia.
    """
    referencia = smartpos.new_referencia()
    b_read, a_done = threading.Event(), threading.Event()
    b_thread: list[threading.Thread] = []
    real_operation = store.operation

    def operation(ref: str) -> Any:
        found = real_operation(ref)
        if threading.current_thread() in b_thread and not b_read.is_set():
            b_read.set()
            a_done.wait(10)  # B is slow to go on: A ends meanwhile
        return found

    store.operation = operation  # type: ignore[method-assign,assignment]

    def b_reconciles() -> None:
        with (
            smartpos.Client(
                api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(),
                store=store, retry_backoff=0,
            ) as other,
            contextlib.suppress(smartpos.SmartPOSError),
        ):  # fmt: skip
            other.reconcile(referencia)

    def start_b() -> None:
        thread = threading.Thread(target=b_reconciles)
        b_thread.append(thread)
        thread.start()
        assert b_read.wait(10)

    sdk = make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=_Refused(start_b), store=store,
        max_retries=0,
    )  # fmt: skip
    try:
        with pytest.raises(smartpos.TransportError) as caught:
            await sdk.call("payments", "create", **PAYMENT, referencia=referencia)
        assert not isinstance(caught.value, smartpos.OutcomeUnknownError)
    finally:
        a_done.set()
        b_thread[0].join(30)
    # A's caller was told "surely not accepted"; R must never be charged now.
    assert [] == charges(sandbox)


# --- 5. a create_and_wait cancelled while it waits loses its referencia ----------------------


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_a_create_and_wait_cancelled_while_waiting_carries_its_referencia(
    store: StoreBase, sandbox: Sandbox
) -> None:
    """docs/en/client.md: "The referencia is never lost: ... the exception that propagates
    (``CancelledError``) carries a note with it; ``asyncio.wait_for`` ... the note is on its
    ``__cause__``". A ``create_and_wait`` cancelled during its wait — the payment accepted,
    the customer being charged — propagates a ``CancelledError`` with no note: only
    ``Attempts.interrupted`` (the HTTP step) adds one, not the flow's later steps. A caller
    that let the SDK pick the referencia cannot tell which event to wait for.
    """
    import asyncio

    sandbox.hold_events()
    async with smartpos.AsyncClient(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
    ) as client:
        with pytest.raises(asyncio.TimeoutError) as caught:
            await asyncio.wait_for(client.payments.create_and_wait(**PAYMENT, timeout=30.0), 0.5)
    [charged] = charges(sandbox)
    assert any(charged in note for note in notes_of(caught.value))


# --- 6. cancelled during the new confirm step: journaled, no note, sent at the next start-up --


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_a_create_cancelled_during_the_journal_confirm_carries_its_referencia(
    store: StoreBase, sandbox: Sandbox
) -> None:
    """The journal write's reply is lost (applied) and the task is cancelled meanwhile: the
    cancellation lands on the confirm step (`_begin`'s second insert), before any send.

    The journal holds R as ``sending`` — the documented start-up loop will send it — but the
    ``CancelledError`` carries no note and nothing was logged ("sending referencia=" comes
    from the HTTP step): the README says only a call cancelled *after sending started* is an
    unknown outcome, so the caller charges the sale anew, and the start-up loop then charges R.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    tasks: list[asyncio.Future[Any]] = []
    begin = store._begin_operation
    calls = [0]

    def lost_while_cancelled(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        result = begin(*args, **kwargs)
        if calls[0] == 1:
            loop.call_soon_threadsafe(tasks[0].cancel)
            raise StoreError("the reply to the journal write was lost")
        return result

    store._begin_operation = lost_while_cancelled  # type: ignore[method-assign]
    async with smartpos.AsyncClient(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
    ) as client:
        tasks.append(asyncio.ensure_future(client.payments.create_and_wait(**PAYMENT, timeout=5)))
        with pytest.raises(asyncio.CancelledError) as caught:
            await tasks[0]
        [journaled] = store.operations(final=False)
        assert "sending" == journaled.state  # the start-up loop will send it
        assert [] == charges(sandbox)
        assert any(journaled.referencia in note for note in notes_of(caught.value))


# --- 7. a journal write interrupted after it was applied: a raw exception, no referencia -----


class SoftTimeLimit(Exception):
    """What a task runner's signal-based time limit raises (Celery's SoftTimeLimitExceeded
    is an ``Exception``); ``_group_commit`` documents such interruptions of a store write."""


@pytest.mark.parametrize("flavour", ["sync"], indirect=True)  # a signal handler: main thread
@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_a_journal_write_interrupted_after_it_applied_is_an_unknown_outcome(
    make_sdk: Callable[..., SDK], flavour: str, store: StoreBase, sandbox: Sandbox
) -> None:
    """A signal handler raises just after the entry was written (sync client, main thread).

    ``_begin`` treats anything but a ``StoreError`` as "not applied" (``_may_be_applied``)
    and re-raises it as it is: ``create`` raises a bare ``SoftTimeLimit`` — not a
    ``SmartPOSError``, no ``OutcomeUnknownError``, no note, nothing logged — while the journal
    holds R as ``sending``, which the documented start-up loop sends. A caller that let the
    SDK choose R cannot know it; the task runner's retry charges under a new referencia.
    """
    import signal

    real_insert = store._journal_insert

    def handler(signum: int, frame: Any) -> None:
        raise SoftTimeLimit("soft time limit exceeded")

    def insert_then_signal(entry: Any) -> Any:
        found = real_insert(entry)
        signal.raise_signal(signal.SIGUSR1)  # the time limit fires right after the commit
        return found

    previous = signal.signal(signal.SIGUSR1, handler)
    store._journal_insert = insert_then_signal  # type: ignore[method-assign]
    try:
        sdk = make_sdk(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
        )
        with pytest.raises(BaseException) as caught:
            await sdk.call("payments", "create", **PAYMENT)
    finally:
        signal.signal(signal.SIGUSR1, previous)
        store._journal_insert = real_insert  # type: ignore[method-assign]
    [journaled] = store.operations(final=False)
    assert "sending" == journaled.state  # the start-up loop will send it
    assert [] == charges(sandbox)
    error = caught.value
    notes = " ".join(notes_of(error))
    assert (
        isinstance(error, smartpos.OutcomeUnknownError) and journaled.referencia == error.referencia
    ) or journaled.referencia in notes, f"{type(error).__name__}: {error}"


# --- 8. the rejected-retry path explains its own mark: an unrelated 409 becomes "accepted" ---


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_a_409_to_the_retry_of_a_rejected_entry_that_nobody_resent_is_not_acceptance(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """R was refused before it left (``rejected``); another system (no journal) then used R
    for another request. ``create(R)`` again (the rejected path: mark ``unknown``, first send)
    is answered 409: ``_explain_409`` finds ``unknown`` — this call's own mark — and calls it
    acceptance: ``OutcomeUnknownError`` and the journal records ``accepted``, so
    ``create_and_wait`` would wait for an event that never agrees. Only a 409 the
    journal explains (another process's resend of this request) is acceptance; this one keeps
    the rule of "Errors" (``ReferenciaDuplicadaError``: this call started nothing; the journal
    keeps it ``accepted``, and only an event that agrees with the request ends it).
    Wrong message, safe direction: nothing is charged twice, the sale hangs as pending.
    """
    sdk = make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store,
        max_retries=0,
    )  # fmt: skip
    referencia = smartpos.new_referencia()
    sandbox.fail_next("payments", "refuse")
    with pytest.raises(smartpos.TransportError):
        await sdk.call("payments", "create", **PAYMENT, referencia=referencia)
    assert "rejected" == store.operation(referencia).state  # type: ignore[union-attr]
    with (
        in_the_tests_loop(),
        smartpos.Client(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), retry_backoff=0
        ) as elsewhere,
    ):  # no store: another system using the same referencia
        elsewhere.payments.create(**PAYMENT | {"valor_centavos": 2500}, referencia=referencia)

    with pytest.raises(smartpos.ReferenciaDuplicadaError):
        await sdk.call("payments", "create", **PAYMENT, referencia=referencia)
