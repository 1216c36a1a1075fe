"""Waking waiters when an event is stored or the journal written, by any process or host,
without a loop per waiter.

One ``ChangeListener`` per process and store (``listener_for(store)``) follows the store's
changes through one *source* and fans each change out to the waiters of that process. A change
names referencias: those of new events, and those of journal writes (an operation journaled,
its state, outcome or abandon changed, an attempt of a sale journaled), after their commit::

    MemoryStore    put() and each journal write call the listener directly (a callback)
    SQLiteStore    one thread reads PRAGMA data_version every 25 ms while anyone waits, and on a
                   change reads the referencias of the events stored and of the journal entries
                   written since the last change (each journal write numbers its entry)
    RedisStore     the put script PUBLISHes each new event's referencia, every journal-writing
                   script its operation's; one pub/sub connection
    PostgresStore  triggers NOTIFY each new event's referencia and each journal write's inside
                   the write's transaction; one LISTEN connection
    DjangoStore    PostgreSQL: NOTIFY from the store's own statements (events and journal
                   writes); other databases: every waiter re-checks at an interval

A waiter registers, then checks the store (``store._outcome``), and sleeps until its referencia
is named by a change or its deadline passes; only then does it check again. A change that names
no referencia, a source that (re)connects, and the listener's start all wake every waiter, so
that a notification lost while disconnected (a Redis reconnect, a dropped LISTEN connection)
never loses a wake-up: each waiter re-checks the store. The number of store queries per change
does not grow with the number of waiters; a waiter costs nothing while it sleeps.

``wait_for`` blocks a thread; ``wait_for_async`` never blocks the event loop (asyncio or trio):
its store checks run in worker threads and the source's thread wakes it through the loop.
``OutcomeWaiter`` and ``AsyncOutcomeWaiter`` are the clients' entry points (a timeout in
seconds instead of a deadline).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import logging
import os
import select
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final, Protocol

from ._store_errors import StoreError

if TYPE_CHECKING:
    import psycopg
    import redis

    from ._events import Event
    from ._store import StoreBase

__all__ = [
    "SQLITE_INTERVAL",
    "AsyncOutcomeWaiter",
    "ChangeListener",
    "ChangeSource",
    "MemoryChanges",
    "Notify",
    "OutcomeWaiter",
    "PollingChanges",
    "PostgresChanges",
    "RedisChanges",
    "SQLiteChanges",
    "changes_channel",
    "listener_for",
]

_logger = logging.getLogger("smartpos.webhooks")

#: How often the SQLite source looks at ``PRAGMA data_version`` while anyone waits.
SQLITE_INTERVAL: Final = 0.025
# How long a source's blocking read lasts before it looks whether it should stop.
_TICK: Final = 1.0
_BACKOFF_FIRST: Final = 0.05
_BACKOFF_MAX: Final = 5.0
# The longest pause of a waiter between store checks that fail.
_CHECK_BACKOFF_MAX: Final = 1.0

Notify = Callable[[Iterable[str] | None], None]
"""What a source calls on a change: the referencias of the new events and journal writes, or
``None`` for all."""


class ChangeSource(Protocol):
    """Where a listener learns that events were stored or the journal written (one per
    listener)."""

    def run(self, listener: ChangeListener) -> None:
        """Follow the store's changes, calling ``listener.notify``, until ``listener.stopped``.

        Runs in the listener's own daemon thread. After (re)connecting it calls
        ``listener.notify(None)`` so that every waiter re-checks the store.
        """
        ...


def changes_channel(name: str) -> str:
    """A pub/sub channel name for a store (short, ASCII, the same in every process)."""
    return "smartpos_changes_" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:20]


# --- waiters ------------------------------------------------------------------------------


class _Waiter:
    """One thread or task waiting for one referencia; ``wake`` may be called from any thread."""

    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = threading.Event()

    def wake(self) -> None:
        self._event.set()

    def clear(self) -> None:
        self._event.clear()

    def sleep(self, seconds: float) -> None:
        self._event.wait(seconds)


class _AsyncWaiter(_Waiter):
    """A task's waiter: ``wake`` schedules, in the task's loop, the end of its current sleep.

    ``clear`` (in the task, before each check) starts a new sleep target; a wake from then on
    ends that one, so a wake during the check is not lost. On asyncio the target is a bare
    future and a sleep's timeout one timer (the least a sleep can cost: a thousand idle
    streams wake for their heartbeats together); on trio, an ``anyio.Event``.
    """

    __slots__ = ("_anyio_event", "_call_soon", "_future", "_loop")

    def __init__(self, call_soon: Callable[[Callable[[], None]], Any]) -> None:
        super().__init__()
        import asyncio

        self._call_soon = call_soon
        self._anyio_event: Any = None
        self._future: asyncio.Future[None] | None = None
        try:
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # trio (anyio's other backend)
            self._loop = None
        self.clear()

    def wake(self) -> None:
        target: Callable[[], None]
        if self._future is not None:
            future = self._future
            target = lambda: _resolve(future)  # noqa: E731 - bound to this sleep's future
        else:
            target = self._anyio_event.set
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            self._call_soon(target)

    def clear(self) -> None:
        if self._loop is not None:
            self._future = self._loop.create_future()
            return
        import anyio

        self._anyio_event = anyio.Event()

    async def sleep_async(self, seconds: float) -> None:
        future = self._future
        if future is not None and self._loop is not None:
            if future.done():
                return
            timer = self._loop.call_later(max(seconds, 0.0), _resolve, future)
            try:
                await future
            finally:
                timer.cancel()
            return
        import anyio

        with anyio.move_on_after(seconds):
            await self._anyio_event.wait()


def _resolve(future: Any) -> None:
    if not future.done():
        future.set_result(None)


def _call_soon_threadsafe() -> Callable[[Callable[[], None]], Any]:
    """How a foreign thread schedules a callback in the running event loop (asyncio or trio)."""
    import asyncio

    try:
        return asyncio.get_running_loop().call_soon_threadsafe
    except RuntimeError:
        trio: Any = importlib.import_module("trio")  # not asyncio: anyio's other backend
        token = trio.lowlevel.current_trio_token()
        run_sync_soon: Callable[[Callable[[], None]], Any] = token.run_sync_soon
        return run_sync_soon


class _CheckRetry:
    """How a waiter goes on after each store check: its pause, and what ends the wait.

    After a check that found nothing it sleeps until a wake-up or the deadline. After a check
    that failed it sleeps a short, growing pause (or until a wake-up: a source that
    reconnects wakes everyone), and keeps the error: a wait that ends while the store is
    failing raises it, so that the caller can report why the outcome is still unknown.
    """

    __slots__ = ("_delay", "_error")

    def __init__(self) -> None:
        self._delay = _BACKOFF_FIRST
        self._error: StoreError | None = None

    def after(self, outcome: Event | StoreError | None, deadline: float) -> float | None:
        """The pause before the next check; ``None``: the wait is over (see `result`).

        ``outcome`` is what the check gave: the event, ``None`` (not yet), or its error.
        """
        if isinstance(outcome, StoreError):
            if self._error is None:  # once per run of failures, not once per check
                _logger.warning(
                    "smartpos: a waiter's store check failed (%s: %s); trying again until the "
                    "wait's deadline",
                    type(outcome).__name__,
                    outcome,
                )
            self._error = outcome
        elif outcome is not None:
            return None
        else:
            self._error = None
            self._delay = _BACKOFF_FIRST
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        if self._error is None:
            return remaining
        pause = min(self._delay, remaining)
        self._delay = min(self._delay * 2, _CHECK_BACKOFF_MAX)
        return pause

    def result(self, outcome: Event | StoreError | None) -> Event | None:
        """What the finished wait returns: the event, or ``None`` at the deadline.

        Raises:
            StoreError: The deadline passed while the store was failing (its last error).
        """
        if isinstance(outcome, StoreError):
            raise outcome
        return outcome


# --- the listener -------------------------------------------------------------------------


class ChangeListener:
    """Wakes this process's waiters of one store when events are stored or the journal is
    written (for the SDK's use).

    Use ``listener_for(store)``: one listener per process and store. Its source starts with
    the first waiter and stops when the store is closed.
    """

    def __init__(self, store: StoreBase, source: ChangeSource) -> None:
        # Weak: the listeners' registry must not keep a store alive (nor its thread running).
        self._store = weakref.ref(store)
        self._name = f"smartpos-listener-{type(store).__name__}"
        self._source = source
        self._lock = threading.Lock()
        self._has_waiters = threading.Condition(self._lock)
        self._waiters: dict[str, set[_Waiter]] = {}
        self._watchers: list[Callable[[frozenset[str] | None], None]] = []
        self._count = 0
        self._thread: threading.Thread | None = None
        self._stop = False
        self._closing = threading.Event()
        self.pid = os.getpid()
        self.checks = 0
        """Store checks finished by this listener's waiters (tests and benchmarks read it)."""
        self.broadcasts = 0
        """Wake-ups of every waiter (a (re)connected source re-checks all; tests read it)."""

    @property
    def stopped(self) -> bool:
        """Whether the source should stop: the listener was closed or the store was."""
        store = self._store()
        return self._stop or store is None or bool(getattr(store, "_closed", False))

    def close(self) -> None:
        """Stop the source for good (within about a second).

        Waiters still waiting check the store once more now and at their deadline;
        ``listener_for(store)`` then makes a new listener.
        """
        with self._lock:
            self._stop = True
            self._closing.set()
            self._has_waiters.notify_all()
        with _listeners_lock:
            store = self._store()
            if store is not None and _listeners.get(store) is self:
                del _listeners[store]
        self.notify(None)

    def pause(self, timeout: float) -> None:
        """Sleep ``timeout`` seconds, or less when the listener is closed (for sources)."""
        self._closing.wait(timeout)

    def waiting(self) -> int:
        """How many waiters are registered now."""
        with self._lock:
            return self._count

    def wait_while_idle(self, timeout: float) -> bool:
        """Block the source's thread while nobody waits; ``True`` when someone does."""
        with self._lock:
            if not self._count and not self.stopped:
                self._has_waiters.wait(timeout)
            return bool(self._count)

    def notify(self, referencias: Iterable[str] | None) -> None:
        """Wake the waiters of these referencias (all of them for ``None``); any thread."""
        named = None if referencias is None else frozenset(referencias)
        with self._lock:
            if named is None:
                self.broadcasts += 1
                targets = [w for waiters in self._waiters.values() for w in waiters]
            else:
                targets = [w for r in named for w in self._waiters.get(r, ())]
            watchers = list(self._watchers)
        for waiter in targets:
            waiter.wake()
        for watcher in watchers:
            _call_watcher(watcher, named)

    def watch(self, callback: Callable[[frozenset[str] | None], None]) -> Callable[[], None]:
        """Call ``callback`` with every change, from the source's thread (SDK use).

        ``callback`` receives the referencias of the new events and journal writes, or
        ``None`` when every
        waiter must re-check (a (re)connected source). It must return at once (hand the work
        to a thread of its own). While watched, the source runs as if someone waited.

        Returns:
            The function that stops watching.
        """
        with self._lock:
            self._watchers.append(callback)
            self._count += 1
            self._has_waiters.notify_all()
            self._start_locked()
        done = False

        def unwatch() -> None:
            nonlocal done
            with self._lock:
                if not done:
                    done = True
                    self._watchers.remove(callback)
                    self._count -= 1

        return unwatch

    def wait_for(self, referencia: str, deadline: float) -> Event | None:
        """Block until ``referencia`` has an outcome in the store, or until ``deadline``.

        A store check that fails (``StoreError``: a server restarting, a dropped connection)
        is tried again, with a short backoff or at the next wake-up, until the deadline: a
        store fault never ends a wait early (the operation may have been accepted).

        Args:
            referencia: What to wait for (journaled or not: see ``StoreBase._outcome``).
            deadline: A ``time.monotonic()`` instant.

        Returns:
            The outcome event, or ``None`` when the deadline passed first.

        Raises:
            StoreError: The deadline passed and the last store check had failed (its error).
            OperationRejectedError: The journal holds the operation as rejected.
        """
        waiter = _Waiter()
        retry = _CheckRetry()
        self._register(referencia, waiter)
        try:
            while True:
                waiter.clear()  # before the check: a wake during the check is not lost
                try:
                    outcome: Event | StoreError | None = self._check(referencia)
                except StoreError as exc:
                    outcome = exc
                pause = retry.after(outcome, deadline)
                if pause is None:
                    return retry.result(outcome)
                waiter.sleep(pause)
        finally:
            self._unregister(referencia, waiter)

    async def wait_for_async(self, referencia: str, deadline: float) -> Event | None:
        """``wait_for`` for a coroutine: never blocks the event loop (asyncio or trio).

        Store checks run in a worker thread; the source's thread wakes the task through its
        event loop.
        """
        from ._threads import run_store_call

        waiter = _AsyncWaiter(_call_soon_threadsafe())
        retry = _CheckRetry()
        self._register(referencia, waiter)
        try:
            while True:
                waiter.clear()
                try:
                    outcome: Event | StoreError | None = await run_store_call(
                        self._store(), self._check, referencia
                    )
                except StoreError as exc:
                    outcome = exc
                pause = retry.after(outcome, deadline)
                if pause is None:
                    return retry.result(outcome)
                await waiter.sleep_async(pause)
        finally:
            self._unregister(referencia, waiter)

    def _check(self, referencia: str) -> Event | None:
        store = self._store()
        if store is None:  # pragma: no cover - a waiter's caller holds the store
            raise StoreError("the store was closed and garbage-collected")
        try:
            return store._outcome(referencia)
        finally:
            # Counted once the check is done, so that a reader of ``checks`` knows that every
            # check it counts has seen the store as it was then.
            with self._lock:
                self.checks += 1

    def _register(self, referencia: str, waiter: _Waiter) -> None:
        with self._lock:
            self._waiters.setdefault(referencia, set()).add(waiter)
            self._count += 1
            self._has_waiters.notify_all()
            self._start_locked()

    def _start_locked(self) -> None:
        if not self._stop and (self._thread is None or not self._thread.is_alive()):
            self._thread = threading.Thread(target=self._run, name=self._name)
            self._thread.daemon = True
            self._thread.start()

    def _unregister(self, referencia: str, waiter: _Waiter) -> None:
        with self._lock:
            waiters = self._waiters.get(referencia)
            if waiters is not None and waiter in waiters:
                waiters.discard(waiter)
                self._count -= 1
                if not waiters:
                    del self._waiters[referencia]

    def _run(self) -> None:
        try:
            self._source.run(self)
        except Exception:  # pragma: no cover - a source handles its own errors
            _logger.exception("the smartpos change listener stopped unexpectedly")
        finally:
            with self._lock:
                self._thread = None
            # Waiters left now re-check at once and then sleep to their deadline.
            self.notify(None)


def _call_watcher(
    watcher: Callable[[frozenset[str] | None], None], named: frozenset[str] | None
) -> None:
    try:
        watcher(named)
    except Exception:  # pragma: no cover - a watcher must not stop the source
        _logger.exception("a smartpos change watcher failed")


_listeners: weakref.WeakKeyDictionary[Any, ChangeListener] = weakref.WeakKeyDictionary()
_listeners_lock = threading.Lock()


def listener_for(store: StoreBase) -> ChangeListener:
    """The listener of ``store`` in this process (created on first use; a fork gets its own)."""
    with _listeners_lock:
        listener = _listeners.get(store)
        if listener is None or listener.pid != os.getpid():
            listener = ChangeListener(store, store._change_source())
            _listeners[store] = listener
        return listener


class OutcomeWaiter:
    """Waits for outcomes in one store (the sync client's entry point; SDK use)."""

    def __init__(self, store: StoreBase) -> None:
        self._listener = listener_for(store)

    def wait(self, referencia: str, timeout: float) -> Event | None:
        """The outcome of ``referencia``, or ``None`` after ``timeout`` seconds."""
        return self._listener.wait_for(referencia, time.monotonic() + timeout)


class AsyncOutcomeWaiter:
    """Waits for outcomes in one store without blocking the event loop (SDK use)."""

    def __init__(self, store: StoreBase) -> None:
        self._listener = listener_for(store)

    async def wait(self, referencia: str, timeout: float) -> Event | None:
        """The outcome of ``referencia``, or ``None`` after ``timeout`` seconds."""
        return await self._listener.wait_for_async(referencia, time.monotonic() + timeout)


# --- sources ------------------------------------------------------------------------------


def _backoff(listener: ChangeListener, delay: float) -> float:
    """Sleep ``delay`` (unless stopping) and return the next, longer one."""
    listener.pause(delay)
    return min(delay * 2, _BACKOFF_MAX)


class MemoryChanges:
    """A ``MemoryStore``'s puts and journal writes call the listener directly: nothing to
    follow."""

    def __init__(self, subscribe: Callable[[Notify], Callable[[], None]]) -> None:
        # Weak, like the listener's own reference to its store.
        self._subscribe = weakref.WeakMethod(subscribe)

    def run(self, listener: ChangeListener) -> None:
        subscribe = self._subscribe()
        if subscribe is None:
            return
        unsubscribe = subscribe(listener.notify)
        del subscribe
        try:
            listener.notify(None)
            while not listener.stopped:
                listener.pause(_TICK)
        finally:
            unsubscribe()


class PollingChanges:
    """For a store with no change feed: wakes every waiter at an interval (a fallback)."""

    def __init__(self, interval: float = 0.5) -> None:
        self._interval = interval

    def run(self, listener: ChangeListener) -> None:
        while not listener.stopped:
            if listener.wait_while_idle(_TICK):
                listener.pause(self._interval)
                listener.notify(None)


class SQLiteChanges:
    """One connection reads ``PRAGMA data_version`` (it changes when another connection
    commits) every ``interval`` seconds while anyone waits; on a change, one query reads the
    referencias of the events stored since the last one, and one the referencias of the
    journal entries written since then (``journal``: the store's queries of its write
    numbers, see ``_sqlite.py``'s version 6)."""

    def __init__(
        self,
        path: str,
        referencia_expression: str,
        interval: float = SQLITE_INTERVAL,
        *,
        journal: tuple[str, str] | None = None,
    ):
        self._path = path
        self._new = (
            f"SELECT seq, id, {referencia_expression} FROM smartpos_inbox "  # noqa: S608
            "WHERE seq >= ? ORDER BY seq"
        )
        self._interval = interval
        self._journal = journal

    def run(self, listener: ChangeListener) -> None:
        delay = _BACKOFF_FIRST
        while not listener.stopped:
            try:
                conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
            except sqlite3.Error as exc:
                _logger.warning("change listener cannot open %s: %s", self._path, exc)
                delay = _backoff(listener, delay)
                continue
            try:
                self._follow(conn, listener)
                return
            except Exception as exc:  # noqa: BLE001 - whatever broke, reopen and re-check
                _logger.warning("change listener on %s failed, reopening: %s", self._path, exc)
                delay = _backoff(listener, delay)
            finally:
                conn.close()

    def _last(self, conn: sqlite3.Connection) -> tuple[int, str | None]:
        row = conn.execute(
            "SELECT seq, id FROM smartpos_inbox ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        return (0, None) if row is None else (int(row[0]), str(row[1]))

    def _written(self, conn: sqlite3.Connection) -> int:
        """The journal's last write number (0 without a journal to follow)."""
        if self._journal is None:
            return 0
        row = conn.execute(self._journal[0]).fetchone()
        return 0 if row is None else int(row[0])

    def _follow(self, conn: sqlite3.Connection, listener: ChangeListener) -> None:
        # One read transaction for the starting points, so that no commit falls between them.
        conn.execute("BEGIN")
        try:
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            last = self._last(conn)
            written = self._written(conn)
        finally:
            conn.execute("COMMIT")
        listener.notify(None)
        while not listener.stopped:
            if not listener.wait_while_idle(_TICK):
                continue
            listener.pause(self._interval)
            current = conn.execute("PRAGMA data_version").fetchone()[0]
            if current == version:
                continue
            version = current
            conn.execute("BEGIN")  # both reads see the same commits
            try:
                rows = conn.execute(self._new, (last[0],)).fetchall()
                entries = (
                    []
                    if self._journal is None
                    else conn.execute(self._journal[1], (written,)).fetchall()
                )
            finally:
                conn.execute("COMMIT")
            named: list[str] = [str(r) for _, r in entries]
            if entries:
                written = int(entries[-1][0])
            if rows and (rows[0][0], rows[0][1]) == last:
                rows = rows[1:]
            elif last[0]:
                # The last event seen is gone (purged): its seq may have been reused by a new
                # event, which "seq > last" would miss. Everyone re-checks.
                last = self._last(conn)
                listener.notify(None)
                continue
            if rows:
                last = (int(rows[-1][0]), str(rows[-1][1]))
                named += [r for _, _, r in rows if isinstance(r, str)]
            if named:
                listener.notify(dict.fromkeys(named))


class RedisChanges:
    """One pub/sub connection on the store's channel, where its put and journal scripts
    publish.

    The connection comes from a pool of its own (same server and settings as the store's):
    closing the store's client must never close a socket this thread is reading.
    """

    def __init__(self, client: redis.Redis, channel: str) -> None:
        self._client = client
        self._channel = channel

    def run(self, listener: ChangeListener) -> None:
        import redis

        store_pool = self._client.connection_pool
        pool = redis.ConnectionPool(
            connection_class=store_pool.connection_class, **store_pool.connection_kwargs
        )
        client = redis.Redis(connection_pool=pool)
        try:
            self._follow(client, listener)
        finally:
            client.close()
            pool.disconnect()

    def _follow(self, client: redis.Redis, listener: ChangeListener) -> None:
        delay = _BACKOFF_FIRST
        while not listener.stopped:
            pubsub = client.pubsub()  # type: ignore[no-untyped-call]
            try:
                pubsub.subscribe(self._channel)
                # Only once the server confirmed the subscription can no publish be missed.
                while not listener.stopped:
                    message = pubsub.get_message(timeout=_TICK)
                    if message is not None and message["type"] == "subscribe":
                        break
                listener.notify(None)
                delay = _BACKOFF_FIRST
                while not listener.stopped:
                    message = pubsub.get_message(timeout=_TICK)
                    if message is None or message["type"] != "message":
                        continue
                    data = message["data"]
                    referencia = (
                        data.decode("utf-8", "replace") if isinstance(data, bytes) else data
                    )
                    listener.notify([referencia] if referencia else None)
            except Exception as exc:  # noqa: BLE001 - whatever broke, reconnect and re-check
                _logger.warning(
                    "change listener lost its Redis subscription, reconnecting: %s", exc
                )
                delay = _backoff(listener, delay)
            finally:
                with contextlib.suppress(Exception):
                    pubsub.close()


class PostgresChanges:
    """One connection that LISTENs on the channel the store's triggers (or statements) NOTIFY."""

    def __init__(self, connect: Callable[[], psycopg.Connection[Any]], channel: str) -> None:
        self._connect = connect
        self._channel = channel

    def run(self, listener: ChangeListener) -> None:
        import psycopg
        from psycopg import sql

        delay = _BACKOFF_FIRST
        while not listener.stopped:
            try:
                conn = self._connect()
            except Exception as exc:  # noqa: BLE001 - a server that is down, a bad DSN: retry
                _logger.warning("change listener cannot connect to PostgreSQL: %s", exc)
                delay = _backoff(listener, delay)
                continue
            try:
                conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self._channel)))
                listener.notify(None)
                delay = _BACKOFF_FIRST
                pgconn = conn.pgconn
                while not listener.stopped:
                    ready, _, _ = select.select([pgconn.socket], [], [], _TICK)
                    if not ready:
                        continue
                    pgconn.consume_input()
                    if pgconn.status != psycopg.pq.ConnStatus.OK:
                        raise psycopg.OperationalError("the LISTEN connection was closed")
                    referencias: list[str] = []
                    everyone = False
                    while (notice := pgconn.notifies()) is not None:
                        payload = notice.extra.decode("utf-8", "replace")
                        if payload:
                            referencias.append(payload)
                        else:
                            everyone = True
                    if everyone:
                        listener.notify(None)
                    elif referencias:
                        listener.notify(referencias)
            except Exception as exc:  # noqa: BLE001 - whatever broke, reconnect and re-check
                _logger.warning("change listener lost its LISTEN connection, reconnecting: %s", exc)
                delay = _backoff(listener, delay)
            finally:
                with contextlib.suppress(Exception):
                    conn.close()
