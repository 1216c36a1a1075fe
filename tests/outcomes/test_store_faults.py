"""Money safety under store faults: a store that fails never hides a charge.

The rules (README, "The three outcomes"): once a request may have been sent, only its final
event, ``OutcomePendingError`` or ``OutcomeUnknownError`` (with the referencia) come out of
``create_and_wait`` and ``wait``; a ``StoreError`` from a journaled call means nothing was
journaled and nothing was sent, so a caller may start over under a new referencia.

The trials run a *documented caller* (it does exactly what the README tells a caller to do
with each outcome, then runs the documented start-up reconcile loop) against every fault of
a fault model — before the send (a journal write lost or refused), after it (the answer not
recorded) and during the wait (store checks failing for a while, or until the deadline) —
and count the sandbox's charges: one per sale, never two. Then the same faults with real
servers: Redis paused with SIGSTOP past the client's socket timeout, PostgreSQL restarted
with ``pg_ctl -m fast`` while a client waits.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from outcome_helpers import PAYMENT, Recording, on_client

import smartpos
from client_cases import SDK, in_the_tests_loop
from smartpos.testing import Sandbox
from smartpos.webhooks import (
    PagamentoAprovado,
    StoreBase,
    StoreError,
    WebhookReceiver,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "webhooks"))

from servers import PostgresServer, RedisServer, own_server, require_module

pytestmark = pytest.mark.asyncio

BASE = "http://sandbox.invalid"


def sdk_on(make_sdk: Callable[..., SDK], sandbox: Sandbox, store: StoreBase, **options: Any) -> SDK:
    """A client of the current flavour on the sandbox, journaling in ``store``."""
    options.setdefault("transport", sandbox.transport())
    return make_sdk(api_key=Sandbox.API_KEY, base_url=BASE, store=store, **options)


class Faults:
    """A fault plan for one store: which journal entries and store checks fail, and how.

    ``begin``: one word per ``_begin_operation`` call, in order — ``"lost"`` applies the write
    then raises a ``StoreError`` that cannot vouch for it (a reply lost, a timeout);
    ``"refused"`` raises one that proves nothing was written; anything else passes.
    ``record``: how many ``_record_operation`` calls fail (after the send: the answer).
    ``checks``: how many of a waiter's store checks (``_outcome``) fail.
    """

    def __init__(self, store: StoreBase) -> None:
        self.begin: list[str] = []
        self.record = 0
        self.checks = 0
        self.failed_checks = 0
        self._lock = threading.Lock()
        begin, record, outcome = store._begin_operation, store._record_operation, store._outcome

        def faulty_begin(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                plan = self.begin.pop(0) if self.begin else "ok"
            if plan == "refused":
                raise _refused()
            result = begin(*args, **kwargs)
            if plan == "lost":
                raise StoreError("the reply to the journal write was lost")
            return result

        def faulty_record(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                fail, self.record = self.record > 0, max(0, self.record - 1)
            if fail:
                raise _refused()
            return record(*args, **kwargs)

        def faulty_outcome(referencia: str) -> Any:
            with self._lock:
                fail, self.checks = self.checks > 0, max(0, self.checks - 1)
                self.failed_checks += fail
            if fail:
                raise StoreError("the store is restarting")
            return outcome(referencia)

        store._begin_operation = faulty_begin  # type: ignore[method-assign]
        store._record_operation = faulty_record  # type: ignore[method-assign]
        store._outcome = faulty_outcome  # type: ignore[method-assign]


def _refused() -> StoreError:
    error = StoreError("the store refused the write; nothing was written")
    error.applied = False  # set as an attribute: the same plan runs on older code
    return error


async def documented_checkout(
    sdk: SDK, *, timeout: float = 5.0, referencia: str | None = None
) -> Any:
    """Charge one sale as the README says to: the final event, whatever the store does.

    Surely not accepted (``StoreError``, ``TransportError``, ``APIError`` but a 409,
    ``OperationRejectedError``): start over under a new referencia. ``OutcomeUnknownError``:
    resume under its referencia, never a new one. ``OutcomePendingError``: wait again later.
    A 409 is not handled (its docs say: wait for the earlier request's event): a test fails
    loudly if one comes.
    """
    for _ in range(6):
        kwargs: dict[str, Any] = {**PAYMENT, "timeout": timeout}
        if referencia is not None:
            kwargs["referencia"] = referencia
        try:
            return await sdk.call("payments", "create_and_wait", **kwargs)
        except smartpos.OutcomePendingError as exc:
            return await on_client(sdk, "wait", exc.referencia, timeout=timeout)
        except smartpos.OutcomeUnknownError as exc:
            referencia = exc.referencia
        except smartpos.ReferenciaDuplicadaError:
            raise
        except (
            StoreError,
            smartpos.TransportError,
            smartpos.APIError,
            smartpos.OperationRejectedError,
        ):
            referencia = None  # "surely not accepted": a new attempt, a new referencia
    raise AssertionError("the checkout never ended")


async def startup_reconcile(sdk: SDK, store: StoreBase) -> None:
    """The documented start-up loop: resend what the journal still holds as open."""
    for operation in store.operations(final=False):
        await on_client(sdk, "reconcile", operation.referencia)


FAULTS = {
    "journal write lost before the send": {"begin": ["lost"]},
    "journal write and its confirmation lost": {"begin": ["lost", "lost"]},
    "journal write refused before the send": {"begin": ["refused"]},
    "answer not recorded after the send": {"record": 1},
    "store checks failing during the wait": {"checks": 3},
    "store failing until the wait's deadline": {"checks": 10_000},
}


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_no_store_fault_charges_twice(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox, fault: str
) -> None:
    """Under every fault of the model, the documented caller charges its sale exactly once."""
    faults = Faults(store)
    plan = FAULTS[fault]
    faults.begin = list(plan.get("begin", []))
    faults.record = int(plan.get("record", 0))
    faults.checks = int(plan.get("checks", 0))
    sdk = make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
    )

    if faults.checks > 100:  # failing until the deadline: the first wait ends pending
        with pytest.raises(smartpos.OutcomePendingError) as caught:
            await sdk.call("payments", "create_and_wait", **PAYMENT, timeout=0.3)
        assert isinstance(caught.value.last_error, StoreError)
        faults.checks = 0
        event = await on_client(sdk, "wait", caught.value.referencia, timeout=5.0)
    else:
        event = await documented_checkout(sdk)
    await startup_reconcile(sdk, store)

    assert isinstance(event, PagamentoAprovado)
    assert [event.dados.referencia] == [p.referencia for p in sandbox.payments]


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_a_store_failing_during_a_wait_keeps_waiting(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """Failed store checks are retried: the wait returns the event, no StoreError escapes."""
    faults = Faults(store)
    sdk = make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
    )
    acceptance = await sdk.call("payments", "create", **PAYMENT)
    faults.checks = 4
    event = await on_client(sdk, "wait", acceptance.referencia, timeout=10.0)
    assert acceptance.referencia == event.dados.referencia
    assert 4 == faults.failed_checks


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_a_wait_ending_while_the_store_fails_is_pending_with_the_store_error(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """A wait whose deadline passes during a store fault: OutcomePendingError, never StoreError."""
    sandbox.hold_events()
    faults = Faults(store)
    sdk = make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
    )
    acceptance = await sdk.call("payments", "create", **PAYMENT)
    faults.checks = 10_000
    with pytest.raises(smartpos.OutcomePendingError) as caught:
        await on_client(sdk, "wait", acceptance.referencia, timeout=0.3)
    assert acceptance.referencia == caught.value.referencia
    assert isinstance(caught.value.last_error, StoreError)


# --- a wait on an operation the service refused ---------------------------------------------


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_a_wait_on_a_rejected_operation_answers_at_once(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """The journal holds it as rejected: OperationRejectedError now, not a pending timeout."""
    sdk = make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
    )
    referencia = smartpos.new_referencia()
    with pytest.raises(smartpos.APIError):
        await sdk.call(
            "payments", "create", **{**PAYMENT, "smartpos_id": "SP-NOPE"}, referencia=referencia
        )
    assert "rejected" == store.operation(referencia).state  # type: ignore[union-attr]
    with pytest.raises(smartpos.OperationRejectedError) as caught:
        await on_client(sdk, "wait", referencia, timeout=2.0)
    assert referencia == caught.value.referencia


# --- a 409 the journal explains -------------------------------------------------------------


@pytest.mark.parametrize("method", ["create", "create_and_wait"])
@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_a_409_to_a_send_another_process_made_first_is_acceptance(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox, method: str
) -> None:
    """A journals R and sends; B resends R's journaled bytes and reaches the service first.

    A's own send is then answered 409: the journal explains it (B marked the entry before
    its resend), so A's create_and_wait waits for the approval and A's create is an unknown
    outcome — never ``ReferenciaDuplicadaError`` ("surely not accepted": charge again).
    """
    referencia = smartpos.new_referencia()
    b_results: list[Any] = []

    def b_resends_first(request: Any) -> None:
        if b_results or b"referencia" not in request.content:
            return

        def run() -> None:
            with smartpos.Client(
                api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(),
                store=store, retry_backoff=0,
            ) as other:  # fmt: skip
                b_results.append(other.payments.create(**PAYMENT, referencia=referencia))

        thread = threading.Thread(target=run)  # another "process": no event loop of ours
        thread.start()
        thread.join(30)

    transport = Recording(sandbox.transport(), before=b_resends_first)
    sdk = make_sdk(api_key=Sandbox.API_KEY, base_url=BASE, transport=transport, store=store)
    if method == "create_and_wait":
        event = await sdk.call("payments", method, **PAYMENT, referencia=referencia, timeout=10.0)
        assert isinstance(event, PagamentoAprovado)
        assert referencia == event.dados.referencia
    else:
        with pytest.raises(smartpos.OutcomeUnknownError) as caught:
            await sdk.call("payments", method, **PAYMENT, referencia=referencia)
        assert isinstance(caught.value.last_error, smartpos.ReferenciaDuplicadaError)
        assert referencia == caught.value.referencia
    assert [referencia] == [r.referencia for r in b_results]
    assert [referencia] == [p.referencia for p in sandbox.payments]
    assert store.operation(referencia).state in ("accepted", "final")  # type: ignore[union-attr]


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"], indirect=True)
async def test_a_409_the_journal_cannot_explain_keeps_the_errors_rule(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """A referencia used outside this journal: the first send's 409 is ReferenciaDuplicadaError."""
    referencia = smartpos.new_referencia()
    with (
        in_the_tests_loop(),
        smartpos.Client(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), retry_backoff=0
        ) as elsewhere,
    ):  # no store: another system using the same referencia
        elsewhere.payments.create(**PAYMENT | {"valor_centavos": 2500}, referencia=referencia)
    sdk = make_sdk(
        api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
    )
    with pytest.raises(smartpos.ReferenciaDuplicadaError):
        await sdk.call("payments", "create", **PAYMENT, referencia=referencia)


# --- real servers ---------------------------------------------------------------------------


@contextlib.contextmanager
def own_redis() -> Iterator[RedisServer]:
    """A redis-server of this test alone (it is paused with SIGSTOP)."""
    require_module("redis", "redis-server")
    server = RedisServer()
    with own_server(server):
        try:
            yield server
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(server.pid, signal.SIGCONT)


@contextlib.contextmanager
def paused(server: RedisServer) -> Iterator[None]:
    """Redis stopped with SIGSTOP for the block: connections open, nothing answered."""
    os.kill(server.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(server.pid, signal.SIGCONT)


@pytest.mark.redis
@pytest.mark.slow
async def test_redis_paused_during_the_journal_write_never_charges_twice(
    make_sdk: Callable[..., SDK], flavour: str
) -> None:
    """Redis paused past the socket timeout while the entry is written (it is applied on
    resume): ``create`` is an unknown outcome with the referencia, and the documented caller
    with the start-up loop charges once."""
    from smartpos.webhooks import RedisStore

    with own_redis() as server, Sandbox() as sandbox:
        url = server.url + "?socket_timeout=0.3&socket_connect_timeout=0.3"
        store = RedisStore(url, prefix=f"f{uuid.uuid4().hex[:10]}", check_settings=False)
        try:
            sandbox.set_webhook(WebhookReceiver(store))
            sdk = make_sdk(
                api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
            )
            store.operations()  # connected and scripts loaded before the pause
            with paused(server), pytest.raises(smartpos.OutcomeUnknownError) as caught:
                await sdk.call("payments", "create", **PAYMENT)
            referencia = caught.value.referencia
            assert isinstance(caught.value.last_error, StoreError)
            assert [] == sandbox.payments
            # As documented: resume under that referencia, then the start-up loop.
            await sdk.call("payments", "create", **PAYMENT, referencia=referencia)
            await startup_reconcile(sdk, store)
            assert [referencia] == [p.referencia for p in sandbox.payments]
        finally:
            store.close()


@pytest.mark.redis
@pytest.mark.slow
async def test_redis_down_at_the_waits_deadline_is_pending(
    make_sdk: Callable[..., SDK], flavour: str
) -> None:
    """Redis paused while ``create_and_wait`` waits: OutcomePendingError with the StoreError."""
    from smartpos.webhooks import RedisStore

    with own_redis() as server, Sandbox() as sandbox:
        url = server.url + "?socket_timeout=0.2&socket_connect_timeout=0.2"
        store = RedisStore(url, prefix=f"f{uuid.uuid4().hex[:10]}", check_settings=False)
        try:
            sandbox.set_webhook(WebhookReceiver(store))
            sandbox.hold_events()
            sdk = make_sdk(
                api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
            )
            acceptance = await sdk.call("payments", "create", **PAYMENT)
            with paused(server), pytest.raises(smartpos.OutcomePendingError) as caught:
                await on_client(sdk, "wait", acceptance.referencia, timeout=0.8)
            assert acceptance.referencia == caught.value.referencia
            assert isinstance(caught.value.last_error, StoreError)
        finally:
            store.close()


@pytest.mark.postgres
@pytest.mark.slow
async def test_postgres_restarted_while_waiting_still_gives_the_event(
    make_sdk: Callable[..., SDK], flavour: str
) -> None:
    """PostgreSQL restarted (``pg_ctl -m fast``) during ``create_and_wait``: the approval comes
    once the server is back; no StoreError escapes, nothing is charged twice."""
    require_module("psycopg", "PostgreSQL")
    from smartpos.webhooks import PostgresStore

    server = PostgresServer()
    with own_server(server), Sandbox() as sandbox:
        store = PostgresStore(server.dsn, table=f"f{uuid.uuid4().hex[:10]}")
        store.migrate()
        try:
            sandbox.hold_events()
            sdk = make_sdk(
                api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(),
                store=store,
            )  # fmt: skip

            receiver = WebhookReceiver(store)

            def restart_then_deliver() -> None:
                time.sleep(0.5)  # the waiter is waiting on pooled connections
                server.restart()
                # The service delivers until it gets a 2xx (a 503 while the store is
                # failing asks for a redelivery).
                for envelope in sandbox.held_events:
                    for _ in range(200):
                        if receiver.receive(envelope).status_code == 200:
                            break
                        time.sleep(0.05)

            helper = threading.Thread(target=restart_then_deliver)
            helper.start()
            try:
                event = await sdk.call("payments", "create_and_wait", **PAYMENT, timeout=60.0)
            finally:
                helper.join(90)
            assert isinstance(event, PagamentoAprovado)
            assert [event.dados.referencia] == [p.referencia for p in sandbox.payments]
        finally:
            store.close()


@pytest.mark.postgres
@pytest.mark.slow
async def test_postgres_unreachable_before_the_send_is_a_store_error_and_sends_nothing(
    make_sdk: Callable[..., SDK], flavour: str
) -> None:
    """No connection can be had (nothing listens): the store proves nothing was journaled,
    so ``create`` raises ``StoreError`` (``applied is False``) and nothing was sent."""
    require_module("psycopg", "PostgreSQL")
    import socket

    from smartpos.webhooks import PostgresStore

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dsn = f"host=127.0.0.1 port={port} user=postgres dbname=postgres connect_timeout=1"
    with Sandbox() as sandbox:
        store = PostgresStore(dsn, table=f"f{uuid.uuid4().hex[:10]}")
        try:
            sdk = sdk_on(make_sdk, sandbox, store)
            with pytest.raises(StoreError) as caught:
                await sdk.call("payments", "create", **PAYMENT)
            assert caught.value.applied is False
            assert not isinstance(caught.value, smartpos.OutcomeUnknownError)
            assert [] == sandbox.requests
        finally:
            store.close()


class ReplyDroppingProxy:
    """A TCP proxy on 127.0.0.1 in front of PostgreSQL that can lose one reply.

    Armed with a tag (``b"INSERT 0 1"``, the reply to a committed insert), it drops the first
    server reply holding it and closes that connection: the statement was applied, its client
    never hears so — the fault a network or a failover makes.
    """

    def __init__(self, port: int) -> None:
        import socket

        self._upstream = ("127.0.0.1", port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.drop: bytes | None = None
        self.dropped = 0
        self._sockets: list[Any] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket

        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self._upstream)
            with self._lock:
                self._sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _pump(self, source: Any, sink: Any, replies: bool) -> None:
        try:
            while data := source.recv(65536):
                if replies and self.drop is not None and self.drop in data:
                    self.drop, self.dropped = None, self.dropped + 1
                    break
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            _hang_up(sock)

    def close(self) -> None:
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                _hang_up(sock)


def _hang_up(sock: Any) -> None:
    """Shut a socket down (which wakes a thread blocked reading it), then close it."""
    import socket

    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()


@pytest.mark.postgres
@pytest.mark.slow
async def test_postgres_reply_to_a_committed_journal_insert_lost_never_charges_twice(
    make_sdk: Callable[..., SDK], postgres_server: PostgresServer
) -> None:
    """PostgreSQL commits the journal entry and its reply is lost: the SDK confirms the write
    (an insert-if-absent on a new connection) instead of saying "nothing was sent"; the
    documented caller and start-up loop charge the sale once."""
    from smartpos.webhooks import PostgresStore

    proxy = ReplyDroppingProxy(postgres_server.port)
    dsn = f"host=127.0.0.1 port={proxy.port} user=postgres dbname=postgres"
    try:
        with Sandbox() as sandbox:
            store = PostgresStore(dsn, table=f"f{uuid.uuid4().hex[:10]}")
            try:
                store.migrate()
                sandbox.set_webhook(WebhookReceiver(store))
                sdk = sdk_on(make_sdk, sandbox, store)
                store.operations()  # a pooled connection, ready
                proxy.drop = b"INSERT 0 1"
                event = await documented_checkout(sdk)
                await startup_reconcile(sdk, store)
                assert 1 == proxy.dropped
                assert isinstance(event, PagamentoAprovado)
                assert [event.dados.referencia] == [p.referencia for p in sandbox.payments]
            finally:
                store.close()
    finally:
        proxy.close()
