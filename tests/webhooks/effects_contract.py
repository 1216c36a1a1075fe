"""Effects once, for every store with transactions: a handler's writes and the ack commit
together or not at all (``Worker(transactional=True)``), and ``on_sale`` runs once per effect
of a sale, whatever the deliveries, their order, the retries and kill -9 (``Worker(on_sale=)``).

Written once, run by each backend (``test_worker_transactional.py``: SQLite, PostgreSQL;
``tests/integrations/test_django_effects.py``: DjangoStore on both)::

    class TestSQLiteEffects(EffectsContract):
        @pytest.fixture
        def backend(self, tmp_path) -> Backend: ...

A ``Backend`` opens stores on one fresh database holding the partner's own table
``partner_rows (k)``, and reopens them in a spawned process (``open_backend_store``), which is
killed with SIGKILL at a chosen point. The partner writes through the connection the worker
hands over: ``partner_write`` speaks each driver's placeholder.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import multiprocessing
import os
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from outcome_events import event
from sales_contract import approve, attempt, compensation, refs
from store_contract import FakeClock

from smartpos import webhooks
from smartpos.webhooks import Envelope, SaleEffect
from smartpos.webhooks._sales import compensation_referencia
from smartpos.webhooks._store import EventState, StoreBase

__all__ = ["Backend", "EffectsContract", "open_backend_store", "partner_write"]

PARTNER_TABLE = "CREATE TABLE partner_rows (k VARCHAR(300) NOT NULL)"

R1, R2, R3 = refs(3, prefix="eff0")


def partner_write(connection: Any, key: str) -> None:
    """The partner's own write, through the transaction's connection, whatever its driver."""
    if isinstance(connection, sqlite3.Connection):
        connection.execute("INSERT INTO partner_rows (k) VALUES (?)", (key,))
    elif type(connection).__module__.startswith("django."):
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO partner_rows (k) VALUES (%s)", [key])
    else:  # psycopg
        connection.execute("INSERT INTO partner_rows (k) VALUES (%s)", (key,))


class Backend:
    """One fresh database of a backend: its stores, and the partner's rows in it.

    Attributes:
        spec: What ``open_backend_store`` needs to open the same store in another process
            (picklable).
        connection_type: The type the worker hands the handler.
    """

    spec: tuple[Any, ...]
    connection_type: type[Any]

    def store(self, **options: Any) -> StoreBase:
        """A store on the backend's database, in this process (closed by ``close``)."""
        store = open_backend_store(self.spec, options)
        self.__dict__.setdefault("opened", []).append(store)
        return store

    def close(self) -> None:
        """Close the stores opened here."""
        for store in self.__dict__.pop("opened", []):
            store.close()

    def partner_rows(self) -> list[str]:
        """The partner's rows, read on a connection of its own (what was committed)."""
        return self.query("SELECT k FROM partner_rows ORDER BY k")

    def effect_keys(self) -> list[str]:
        """The keys of the effects the store recorded (committed)."""
        return self.query(f"SELECT effect_key FROM {self.effects_table} ORDER BY effect_key")

    effects_table: str

    def query(self, sql: str) -> list[str]:
        """The first column of ``sql``'s rows, on a connection of its own."""
        raise NotImplementedError


def open_backend_store(spec: tuple[Any, ...], options: dict[str, Any]) -> StoreBase:
    """Open the store of ``spec`` (module-level: spawned children call it)."""
    kind = spec[0]
    if kind == "sqlite":
        return webhooks.SQLiteStore(spec[1], **options)
    if kind == "postgres":
        store = webhooks.PostgresStore(spec[1], **options)
        store.migrate()
        return store
    if kind == "django":
        from django_stores import open_django_store

        return open_django_store(spec[1], spec[2], options)  # type: ignore[no-any-return]
    raise AssertionError(kind)


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _doomed_handler(spec: tuple[Any, ...], point: str) -> None:
    """A transactional worker process that kills itself at ``point`` of its handler."""
    store = open_backend_store(spec, {})

    def handler(event: webhooks.Event, connection: Any) -> None:
        if point == "before":
            _die()
        partner_write(connection, f"{event.id}:1")
        if point == "inside":
            _die()
        partner_write(connection, f"{event.id}:2")
        if point == "between":
            _die()

    webhooks.Worker(store, handler, transactional=True, lease=1.0).run_once()


def _doomed_on_sale(spec: tuple[Any, ...]) -> None:
    """A worker process that kills itself inside ``on_sale``, after the partner's write."""
    store = open_backend_store(spec, {})

    def on_sale(effect: SaleEffect) -> None:
        partner_write(effect.connection, effect.key)
        _die()

    webhooks.Worker(store, on_sale=on_sale, lease=1.0).run_once()


def _run_killed(target: Callable[..., None], *args: Any) -> int | None:
    process = multiprocessing.get_context("spawn").Process(target=target, args=args)
    process.start()
    process.join(timeout=60)
    if process.is_alive():  # pragma: no cover - a hung child fails the test
        process.kill()
        process.join(timeout=10)
    return process.exitcode


def _drain(worker: webhooks.Worker) -> int:
    handled = 0
    while True:
        done = worker.run_once()
        if not done:
            return handled
        handled += done


def _approval_at(referencia: str, event_id: str, criado_em: dt.datetime) -> Envelope:
    """An approval of ``referencia`` created at ``criado_em`` (the claim order)."""
    base = event(event_id, "pagamento.aprovado", referencia, smartpos_id=None)
    raw = {**base.raw, "criadoEm": criado_em.isoformat()}
    return Envelope(id=event_id, tipo=base.tipo, criado_em=criado_em, raw=raw)


class _Recorder:
    """An ``on_sale`` that writes the effect's key in the partner's table and remembers it."""

    def __init__(self) -> None:
        self.effects: list[SaleEffect] = []

    def __call__(self, effect: SaleEffect) -> None:
        partner_write(effect.connection, effect.key)
        self.effects.append(effect)

    @property
    def keys(self) -> list[str]:
        return [e.key for e in self.effects]


class EffectsContract:
    """Transactional handlers and once-per-sale effects; a subclass provides ``backend``."""

    @pytest.fixture
    def backend(self) -> Backend:
        """The backend's fresh database: every subclass overrides this fixture."""
        raise NotImplementedError("a backend's test class overrides the backend fixture")

    @pytest.fixture
    def clock(self) -> FakeClock:
        return FakeClock()

    # --- A. the handler's writes and the ack in one transaction ------------------------------

    def test_the_handler_writes_through_the_transactions_connection(self, backend: Backend) -> None:
        store = backend.store()
        store.put(event("ev-1"))
        seen: list[Any] = []

        def handler(event: webhooks.Event, connection: Any) -> None:
            seen.append(connection)
            partner_write(connection, event.id)

        handled = webhooks.Worker(store, handler, transactional=True).run_once()
        stored = store.get("ev-1")

        assert 1 == handled
        assert ["ev-1"] == backend.partner_rows()
        assert isinstance(seen[0], backend.connection_type)
        assert stored is not None
        assert EventState.DONE == stored.state

    def test_a_handler_that_raises_rolls_back_and_is_nacked(self, backend: Backend) -> None:
        store = backend.store()
        store.put(event("ev-1"))

        def handler(event: webhooks.Event, connection: Any) -> None:
            partner_write(connection, event.id)
            raise RuntimeError("fiscal service down")

        webhooks.Worker(store, handler, transactional=True, base_backoff=0.0).run_once()
        stored = store.get("ev-1")

        assert [] == backend.partner_rows()
        assert stored is not None
        assert (EventState.PENDING, 1) == (stored.state, stored.attempts)
        assert "RuntimeError: fiscal service down" == stored.last_error

    def test_an_ack_refused_rolls_the_handler_back(self, backend: Backend) -> None:
        store = backend.store()
        store.put(event("ev-1"))
        (claim,) = store.claim(owner="old", lease=30)
        store.nack(claim, error="x", retry_in=0)
        (newer,) = store.claim(owner="new", lease=30)
        worker = webhooks.Worker(
            store, lambda event, connection: partner_write(connection, event.id), transactional=True
        )

        result = worker._handle(worker._settings, claim)
        stored = store.get("ev-1")

        assert ("ack_refused", None) == result
        assert [] == backend.partner_rows()
        assert stored is not None
        assert (EventState.CLAIMED, "new") == (stored.state, stored.owner)
        assert store.ack(newer)

    def test_the_ack_in_the_transaction_holds_past_the_lease(
        self, backend: Backend, clock: FakeClock
    ) -> None:
        store = backend.store(clock=clock)
        store.put(event("ev-1"))

        def slow(event: webhooks.Event, connection: Any) -> None:
            partner_write(connection, event.id)
            clock.advance(60.0)  # past the 30 s lease; nobody claimed it meanwhile

        handled = webhooks.Worker(
            store, slow, transactional=True, lease=30, heartbeat=1000
        ).run_once()
        stored = store.get("ev-1")

        assert 1 == handled
        assert ["ev-1"] == backend.partner_rows()
        assert stored is not None
        assert EventState.DONE == stored.state

    @pytest.mark.slow
    @pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")
    @pytest.mark.parametrize("point", ["before", "inside", "between"])
    def test_kill_9_leaves_both_or_neither(self, backend: Backend, point: str) -> None:
        """A worker killed before its handler, inside it, or between its writes and the ack
        leaves neither the rows nor the ack; the next worker leaves both, once."""
        store = backend.store()
        store.put(event("ev-1"))

        exitcode = _run_killed(_doomed_handler, backend.spec, point)
        after_kill = (backend.partner_rows(), store.get("ev-1"))
        time.sleep(1.2)  # the dead worker's lease runs out

        def handler(event: webhooks.Event, connection: Any) -> None:
            for n in (1, 2):
                partner_write(connection, f"{event.id}:{n}")

        handled = webhooks.Worker(store, handler, transactional=True, lease=5.0).run_once()
        stored = store.get("ev-1")

        assert -signal.SIGKILL == exitcode
        assert [] == after_kill[0]
        assert after_kill[1] is not None
        assert EventState.CLAIMED == after_kill[1].state
        assert 1 == handled
        assert ["ev-1:1", "ev-1:2"] == sorted(backend.partner_rows())
        assert stored is not None
        assert EventState.DONE == stored.state

    # --- B. once per sale ---------------------------------------------------------------------

    def test_paid_once_despite_duplicates_and_reminted_ids(
        self, backend: Backend, clock: FakeClock
    ) -> None:
        store = backend.store(clock=clock)
        on_sale = _Recorder()
        worker = webhooks.Worker(store, on_sale=on_sale)
        attempt(store, R1)
        approve(store, R1)
        store.put(event(f"ev-ok-{R1}-0", "pagamento.aprovado", R1, smartpos_id=None))  # same id
        _drain(worker)
        approve(store, R1, n=1)  # the same approval, its id re-minted
        approve(store, R1, n=2)

        handled = _drain(worker)

        assert 2 == handled
        assert ["sale:mesa-1:paid"] == on_sale.keys == backend.effect_keys()
        [effect] = on_sale.effects
        assert ("paid", R1, "mesa-1", "paid") == (
            effect.kind,
            effect.referencia,
            effect.sale_id,
            effect.sale.state,
        )
        assert f"ev-ok-{R1}-0" == effect.event.id
        assert isinstance(effect.connection, backend.connection_type)
        assert ["sale:mesa-1:paid"] == backend.partner_rows()

    def test_a_split_bill_is_paid_once_at_its_last_approval(
        self, backend: Backend, clock: FakeClock
    ) -> None:
        store = backend.store(clock=clock)
        on_sale = _Recorder()
        worker = webhooks.Worker(store, on_sale=on_sale)
        seen: list[list[str]] = []
        for referencia in (R1, R2, R3):
            attempt(store, referencia, total=3000, smartpos_id=None)
            approve(store, referencia)
            _drain(worker)
            seen.append(on_sale.keys)

        assert [[], [], ["sale:mesa-1:paid"]] == seen
        assert R3 == on_sale.effects[0].referencia
        assert ["sale:mesa-1:paid"] == backend.partner_rows()

    def test_approvals_handled_out_of_order_pay_once(
        self, backend: Backend, clock: FakeClock
    ) -> None:
        store = backend.store(clock=clock)
        on_sale = _Recorder()
        worker = webhooks.Worker(store, on_sale=on_sale)
        attempt(store, R2, valor=1000, total=2000, smartpos_id=None)
        later = dt.datetime(2024, 5, 1, 12, 5, tzinfo=dt.timezone.utc)
        store.put(_approval_at(R2, "ev-r2", later))
        _drain(worker)
        attempt(store, R3, valor=1000, smartpos_id=None)
        # R3's approval was created before R2's: the claim order is not the attempts' order.
        store.put(_approval_at(R3, "ev-r3", later - dt.timedelta(minutes=3)))
        store.put(_approval_at(R2, "ev-r2-again", later))

        _drain(worker)

        assert ["sale:mesa-1:paid"] == on_sale.keys
        assert ("ev-r3", R3) == (on_sale.effects[0].event.id, on_sale.effects[0].referencia)

    def test_a_late_approval_and_its_compensation_each_once(
        self, backend: Backend, clock: FakeClock
    ) -> None:
        store = backend.store(clock=clock)
        on_sale = _Recorder()
        worker = webhooks.Worker(store, on_sale=on_sale)
        attempt(store, R1)
        store._abandon("mesa-1", motivo="trocou de cartão", operador="ana")
        attempt(store, R2, smartpos_id="SP-2")
        approve(store, R2)
        _drain(worker)
        approve(store, R1)  # the customer typed the PIN anyway
        approve(store, R1, n=1)
        _drain(worker)
        compensation(store, R1)
        store._record_operation(compensation_referencia(R1), "accepted")
        # The refund's event (any event of its referencia ends a refund), delivered twice.
        for n in (0, 1):
            store.put(event(f"ev-refund-{n}", "pagamento.aprovado", compensation_referencia(R1)))
        _drain(worker)
        approve(store, R2, n=1)
        _drain(worker)

        assert [
            "sale:mesa-1:paid",
            f"sale:mesa-1:late_approval:{R1}",
            f"sale:mesa-1:compensated:{R1}",
        ] == on_sale.keys
        assert ["paid", "late_approval", "compensated"] == [e.kind for e in on_sale.effects]
        assert [R2, R1, R1] == [e.referencia for e in on_sale.effects]
        assert sorted(on_sale.keys) == sorted(backend.partner_rows())

    def test_keys_longer_than_512_characters_are_recorded_shortened_and_once(
        self, backend: Backend, clock: FakeClock
    ) -> None:
        """A 500-character sale id and a long referencia: the late approval's and the
        compensation's keys (over 1000 characters) are recorded as their first 440 characters,
        ':sha256:' and the digest of the whole key (512 characters, what MariaDB's key column
        holds), distinct though their first 440 characters are the same, each once; the paid
        key (510 characters) is recorded as it is."""
        sale = "s" * 500
        late = f"{refs(1, prefix='eff9')[0]}-{'r' * 400}"
        store = backend.store(clock=clock)
        effects: list[SaleEffect] = []
        worker = webhooks.Worker(store, on_sale=effects.append)
        attempt(store, late, sale)
        store._abandon(sale, motivo="trocou de cartão", operador="ana")
        attempt(store, R2, sale, smartpos_id="SP-2")
        store.put(event("ev-long-1", "pagamento.aprovado", R2, smartpos_id=None))
        _drain(worker)
        for n in (1, 2):  # the late approval, delivered under two ids
            store.put(event(f"ev-late-{n}", "pagamento.aprovado", late, smartpos_id=None))
        _drain(worker)
        compensation(store, late, sale)
        store._record_operation(compensation_referencia(late), "accepted")
        store.put(event("ev-refund", "pagamento.aprovado", compensation_referencia(late)))
        _drain(worker)

        def shortened(key: str) -> str:
            return key[:440] + ":sha256:" + hashlib.sha256(key.encode()).hexdigest()

        expected = [
            f"sale:{sale}:paid",
            shortened(f"sale:{sale}:late_approval:{late}"),
            shortened(f"sale:{sale}:compensated:{late}"),
        ]
        assert expected == [e.key for e in effects]
        assert [510, 512, 512] == [len(key) for key in expected]
        assert expected[1][:440] == expected[2][:440]
        assert [late, late] == [e.referencia for e in effects[1:]]
        assert sorted(expected) == backend.effect_keys()

    def test_on_sale_raising_rolls_back_and_the_retry_applies_it_once(
        self, backend: Backend, clock: FakeClock
    ) -> None:
        store = backend.store(clock=clock)
        calls: list[str] = []

        def on_sale(effect: SaleEffect) -> None:
            partner_write(effect.connection, effect.key)
            calls.append(effect.key)
            if len(calls) == 1:
                raise RuntimeError("order service down")

        worker = webhooks.Worker(store, on_sale=on_sale, base_backoff=0.0)
        attempt(store, R1)
        approve(store, R1)

        worker.run_once()
        after_failure = (backend.partner_rows(), store.get(f"ev-ok-{R1}-0"))
        worker.run_once()
        again = worker.run_once()
        stored = store.get(f"ev-ok-{R1}-0")

        assert [] == after_failure[0]
        assert after_failure[1] is not None
        assert (EventState.PENDING, "RuntimeError: order service down") == (
            after_failure[1].state,
            after_failure[1].last_error,
        )
        assert ["sale:mesa-1:paid", "sale:mesa-1:paid"] == calls
        assert 0 == again
        assert ["sale:mesa-1:paid"] == backend.partner_rows()
        assert stored is not None
        assert EventState.DONE == stored.state

    def test_handler_and_on_sale_share_the_transaction(
        self, backend: Backend, clock: FakeClock
    ) -> None:
        store = backend.store(clock=clock)
        on_sale = _Recorder()

        def handler(event: webhooks.Event, connection: Any) -> None:
            partner_write(connection, f"event:{event.id}")

        worker = webhooks.Worker(store, handler, on_sale=on_sale, transactional=True)
        attempt(store, R1)
        approve(store, R1)
        store.put(event("ev-other", "pagamento.aprovado", "not-journaled"))

        _drain(worker)

        assert sorted([f"event:ev-ok-{R1}-0", "event:ev-other", "sale:mesa-1:paid"]) == sorted(
            backend.partner_rows()
        )

    @pytest.mark.slow
    @pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")
    def test_kill_9_inside_on_sale_leaves_neither_the_row_nor_the_key(
        self, backend: Backend
    ) -> None:
        store = backend.store()
        attempt(store, R1)
        approve(store, R1)

        exitcode = _run_killed(_doomed_on_sale, backend.spec)
        after_kill = (backend.partner_rows(), backend.effect_keys())
        time.sleep(1.2)  # the dead worker's lease runs out
        on_sale = _Recorder()
        handled = webhooks.Worker(store, on_sale=on_sale, lease=5.0).run_once()

        assert -signal.SIGKILL == exitcode
        assert ([], []) == after_kill
        assert 1 == handled
        assert ["sale:mesa-1:paid"] == on_sale.keys
        assert ["sale:mesa-1:paid"] == backend.partner_rows() == backend.effect_keys()

    def test_concurrent_workers_apply_the_effect_once(self, backend: Backend) -> None:
        """Three workers (threads of one process, one store) race on six deliveries of one
        approval under re-minted ids: the effect's key lets exactly one callback commit."""
        store = backend.store()
        attempt(store, R1)
        for n in range(6):
            approve(store, R1, n=n)
        calls: list[str] = []
        lock = threading.Lock()
        start = threading.Barrier(3)

        def on_sale(effect: SaleEffect) -> None:
            partner_write(effect.connection, effect.key)
            with lock:
                calls.append(effect.key)

        def work() -> None:
            worker = webhooks.Worker(store, on_sale=on_sale, batch=1)
            start.wait()
            _drain(worker)

        threads = [threading.Thread(target=work) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

        assert ["sale:mesa-1:paid"] == calls
        assert ["sale:mesa-1:paid"] == backend.partner_rows() == backend.effect_keys()
        assert [] == store.list(state=EventState.PENDING)
