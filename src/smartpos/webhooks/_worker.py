"""``Worker``: claim stored events, run the partner's handler, ack or nack; never lose one.

One pass (``run_once``) claims up to ``batch`` events with a lease and, for each:

- ``claim.event`` raises ``InvalidEventError`` (its ``dados`` does not fit the typed schema):
  dead-lettered at once, since retrying cannot help; ``store.requeue(id)`` after an upgrade;
- the handler returns: ack;
- the handler raises: nack with exponential backoff and jitter; the store moves the event to
  the dead state after its ``max_attempts``. The error kept is the exception's type and
  message, with anything shaped like a CPF or CNPJ masked.

While a batch is being handled, a heartbeat thread extends the leases of its unfinished
events every ``lease / 3`` seconds, so a slow handler does not let an event be claimed twice.
A claim that lost its lease anyway (the process stalled past it) is skipped, and a late ack
is refused by the store: the event's new owner decides.

``run()`` loops until ``stop()`` (or a set ``stop_event``, or SIGTERM when
``install_signal_handlers=True``): the event being handled is finished, the rest of the batch
is given back at once (``store.release``: the attempts that never happened are not counted),
and no new claim is made. When the store fails while an event is being finished (its ack, say),
the rest of the batch is given back the same way before the failure propagates, instead of
waiting out its leases. ``AsyncWorker`` is the same for ``async def`` handlers, with the store
calls in a worker thread.

Effects once: with a store that offers it, the handler and the ack run in one database
transaction. ``DjangoStore`` always does (``_handler_transaction``); ``SQLiteStore`` and
``PostgresStore`` when asked (``transactional=True`` or ``on_sale=``: ``_handler_connection``),
the handler then called with the transaction's connection. ``on_sale`` adds, in that same
transaction, the effects the event's sale owes (``_effects.py``): each one's key is recorded
by the store before the callback runs, so that a key already there skips it, and a callback
that raises rolls the key back with everything else.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import random
import re
import socket
import threading
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final

from smartpos import _telemetry
from smartpos._documents import mask_documento
from smartpos._errors import ConfigurationError
from smartpos._messages import message
from smartpos._signals import stop_on_signals

from ._effects import SaleEffect, due_effects, effect_key, is_internal
from ._events import Event, InvalidEventError
from ._logsafe import configure_logging, loggable
from ._seconds import check_seconds
from ._store_interface import Claim, Store

__all__ = ["MAX_ERROR_CHARS", "AsyncWorker", "Worker", "backoff_delay", "error_text"]

_logger = logging.getLogger("smartpos.webhooks")

#: Longest error text kept with a failed event.
MAX_ERROR_CHARS: Final = 500
# Masked or bare CPF (11) / CNPJ (14, alphanumeric since 2026) inside free text.
_DOCUMENT = re.compile(
    r"(?<![0-9A-Za-z])(?:\d{3}\.?\d{3}\.?\d{3}-?\d{2}|[0-9A-Z]{2}\.?[0-9A-Z]{3}\.?[0-9A-Z]{3}/?"
    r"[0-9A-Z]{4}-?\d{2})(?![0-9A-Za-z])"
)
# What a store without ``release`` (a hand-written one) is told through ``nack`` instead.
_RELEASED = "released unprocessed: the worker was stopping or its store failed"


def error_text(exc: BaseException) -> str:
    """Describe a handler failure for the store: type and message, documents masked, bounded."""
    message = str(exc)
    text = f"{type(exc).__qualname__}: {message}" if message else type(exc).__qualname__
    text = _DOCUMENT.sub(lambda m: mask_documento(m.group(0)), text)
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def backoff_delay(
    attempts: int,
    *,
    base: float,
    maximum: float,
    jitter: Callable[[float, float], float] = random.uniform,
) -> float:
    """Seconds before a failed event is retried: exponential, capped, with jitter.

    ``base * 2 ** (attempts - 1)``, capped at ``maximum``, then a random value between half of
    it and all of it, so that events failing together do not come back together.

    Args:
        attempts: The attempt that failed (1 for the first).
        base: Delay after the first failure; 0 retries at once (tests).
        maximum: Longest delay.
        jitter: ``random.uniform``-like; replaceable for determinism.
    """
    if base <= 0 or maximum <= 0:
        return 0.0
    exponent = min(max(attempts, 1) - 1, 62)
    delay = min(maximum, base * 2.0**exponent)
    return jitter(delay / 2.0, delay)


class _AckRefused(Exception):
    """The ack inside a handler's transaction was refused: undo the handler's writes."""


_Transaction = Callable[[], contextlib.AbstractContextManager[Any]]


def _handler_transaction(store: object) -> _Transaction | None:
    """The store's transaction for a handler and its ack (``DjangoStore``), or ``None``."""
    return getattr(store, "_handler_transaction", None)


def _transaction_of(store: object, *, transactional: bool, on_sale: object) -> _Transaction | None:
    """The transaction a worker runs each handler and ack in, or ``None`` (two commits).

    ``DjangoStore``'s always; ``SQLiteStore``'s and ``PostgresStore``'s when ``transactional``
    or ``on_sale`` asks for it.

    Raises:
        ConfigurationError: Asked for it of a store that has none (``MemoryStore``,
            ``RedisStore``, a hand-written one).
    """
    if not isinstance(transactional, bool):
        raise ConfigurationError(
            message("webhooks.transactional_type", type=type(transactional).__name__)
        )
    if on_sale is not None and not callable(on_sale):
        raise ConfigurationError(message("webhooks.on_sale_type", type=type(on_sale).__name__))
    automatic = _handler_transaction(store)
    asked = transactional or on_sale is not None
    chosen = automatic if automatic is not None else getattr(store, "_handler_connection", None)
    if asked and (chosen is None or (on_sale is not None and not _records_effects(store))):
        option = "on_sale" if on_sale is not None else "transactional=True"
        raise ConfigurationError(
            message("webhooks.transactional_store", option=option, store=store)
        )
    return chosen if asked or automatic is not None else None


def _records_effects(store: object) -> bool:
    return callable(getattr(store, "_record_effect", None))


def _referencia(raw: object) -> str | None:
    """An envelope's ``dados.referencia``, when it is a non-empty str."""
    dados = raw.get("dados") if isinstance(raw, dict) else None
    referencia = dados.get("referencia") if isinstance(dados, dict) else None
    return referencia if isinstance(referencia, str) and referencia else None


def _apply_effects(
    store: Any,
    claim: Claim,
    event: Event,
    connection: object,
    on_sale: Callable[[SaleEffect], object],
) -> None:
    """Run ``on_sale`` for each effect the event's sale owes whose key is not recorded yet.

    Inside the handler's transaction: the sale is read there, each key recorded there before
    its callback runs, and everything commits with the ack, or nothing does.
    """
    referencia = _referencia(claim.raw)
    if referencia is None:
        return
    operation = store.operation(referencia)
    if operation is None or operation.sale is None:
        return
    sale = store.sale(operation.sale)
    if sale is None:
        return
    for kind, concerned in due_effects(sale):
        key = effect_key(sale.sale_id, kind, concerned)
        fresh = store._record_effect(
            key, sale=sale.sale_id, kind=kind, referencia=concerned, event_id=event.id
        )
        if not fresh:
            continue
        _logger.info(
            "webhook event %s: sale effect %s", loggable(claim.event_id), loggable(key, 200)
        )
        on_sale(
            SaleEffect(
                kind=kind,
                key=key,
                sale=sale,
                referencia=concerned,
                event=event,
                connection=connection,
            )
        )


def _is_async(handler: object) -> bool:
    call = getattr(handler, "__call__", None)  # noqa: B004 - an instance's async __call__
    return inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(call)


def _default_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _seconds(name: str, value: float, *, positive: bool = True) -> float:
    return check_seconds(name, value, positive=positive, option=True)


class _Settings:
    """What both workers share: validated options and the outcome of one claim."""

    def __init__(
        self,
        store: Store,
        *,
        owner: str | None,
        lease: float,
        batch: int,
        base_backoff: float,
        max_backoff: float,
        poll_interval: float,
        heartbeat: float | None,
    ) -> None:
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise ConfigurationError(
                message("webhooks.int_at_least_one", name="batch", value=batch)
            )
        self.store = store
        self.owner = owner if owner else _default_owner()
        self.lease = _seconds("lease", lease)
        self.batch = batch
        self.base_backoff = _seconds("base_backoff", base_backoff, positive=False)
        self.max_backoff = _seconds("max_backoff", max_backoff, positive=False)
        self.poll_interval = _seconds("poll_interval", poll_interval, positive=False)
        self.heartbeat = self.lease / 3.0 if heartbeat is None else _seconds("heartbeat", heartbeat)

    def retry_in(self, attempts: int) -> float:
        return backoff_delay(attempts, base=self.base_backoff, maximum=self.max_backoff)

    def parse(self, claim: Claim) -> Event | None:
        """The claim's event, or ``None`` after dead-lettering a schema mismatch."""
        try:
            return claim.event
        except InvalidEventError as exc:
            _logger.error(
                "webhook event %s (%s) does not fit the schema on attempt %d (%s): "
                "dead-lettered; requeue it after upgrading",
                loggable(claim.event_id),
                loggable(claim.tipo),
                claim.attempts,
                loggable(error_text(exc), 200),
            )
            self.store.dead_letter(claim, error=f"InvalidEventError: {exc}")
            return None

    def done(self, claim: Claim) -> str:
        """Ack a handled event; returns ``"acked"``, or ``"ack_refused"`` (lease lost)."""
        if self.store.ack(claim):
            _logger.debug(
                "webhook event %s (%s) processed", loggable(claim.event_id), loggable(claim.tipo)
            )
            return "acked"
        _logger.warning(
            "webhook event %s (%s) was processed after its lease was lost; the ack was "
            "refused and the event may be processed again (raise the lease)",
            loggable(claim.event_id),
            loggable(claim.tipo),
        )
        return "ack_refused"

    def last_attempt(self, claim: Claim) -> bool:
        """Whether a nack of this claim sends its event to the dead letters, not to a retry.

        A store's ``nack`` does so at its ``max_attempts``; a hand-written store that does not
        expose it is taken to retry.
        """
        maximum = getattr(self.store, "max_attempts", None)
        if isinstance(maximum, bool) or not isinstance(maximum, int):
            return False
        return claim.attempts >= maximum

    def failed(self, claim: Claim, exc: BaseException) -> None:
        """Nack a failed event, and log what becomes of it (a retry, or the dead letters)."""
        text = error_text(exc)
        if not self.last_attempt(claim):
            retry_in = self.retry_in(claim.attempts)
            _logger.warning(
                "webhook event %s (%s) failed on attempt %d, retry in %.1fs: %s",
                loggable(claim.event_id),
                loggable(claim.tipo),
                claim.attempts,
                retry_in,
                loggable(text, 200),
            )
            self.store.nack(claim, error=text, retry_in=retry_in)
            return
        # The store moves the event to the dead state on this nack: no retry follows.
        if self.store.nack(claim, error=text, retry_in=self.retry_in(claim.attempts)):
            _logger.error(
                "webhook event %s (%s) failed on attempt %d, its last: moved to the dead "
                "letters (requeue it once the cause is fixed): %s",
                loggable(claim.event_id),
                loggable(claim.tipo),
                claim.attempts,
                loggable(text, 200),
            )
        else:
            _logger.warning(
                "webhook event %s (%s) failed on attempt %d, its last, after its lease was "
                "lost: its new owner decides what becomes of it: %s",
                loggable(claim.event_id),
                loggable(claim.tipo),
                claim.attempts,
                loggable(text, 200),
            )

    def release(self, claims: Sequence[Claim], *, why: str) -> None:
        """Give unprocessed claims back at once, without counting their attempts.

        Best effort: when the store fails, the rest come back when their leases run out.
        """
        if not claims:
            return
        given = 0
        try:
            for claim in claims:
                self._give_back(claim)
                given += 1
        except Exception as exc:  # noqa: BLE001 - the leases will bring them back
            _logger.warning(
                "webhook worker %s could not give back %d claimed events (%s: %s); they "
                "come back when their lease runs out",
                loggable(self.owner),
                len(claims) - given,
                type(exc).__name__,
                loggable(exc, 200),
            )
            return
        _logger.info(
            "webhook worker %s gave back %d unprocessed events (%s)",
            loggable(self.owner),
            len(claims),
            why,
        )

    def _give_back(self, claim: Claim) -> None:
        release = getattr(self.store, "release", None)
        if release is not None:
            try:
                release(claim)
            except NotImplementedError:
                pass  # a StoreBase subclass written before release() existed
            else:
                return
        # A hand-written store without release: a retry at once, where the attempt counts.
        self.store.nack(claim, error=_RELEASED, retry_in=0.0)


class _Heartbeat:
    """A thread that keeps extending the leases of a batch's unfinished claims."""

    def __init__(self, settings: _Settings, claims: Sequence[Claim]) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._active = {claim.event_id: claim for claim in claims}
        self.lost: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"smartpos-heartbeat-{settings.owner}", daemon=True
        )
        self._thread.start()

    def finished(self, claim: Claim) -> None:
        with self._lock:
            self._active.pop(claim.event_id, None)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        settings = self._settings
        while not self._stop.wait(settings.heartbeat):
            with self._lock:
                claims = list(self._active.values())
            for claim in claims:
                try:
                    kept = settings.store.extend(claim, lease=settings.lease)
                except Exception:  # noqa: BLE001 - try again at the next beat
                    _logger.warning("could not extend the lease of %s", loggable(claim.event_id))
                    continue
                if not kept:
                    with self._lock:
                        if claim.event_id in self._active:
                            self.lost.add(claim.event_id)


class _WorkerBase:
    """What both workers share: their settings, identity and stop flag."""

    def __init__(self, store: Store, handler: Callable[..., object] | None, **options: Any) -> None:
        if handler is not None and not callable(handler):
            raise ConfigurationError(message("webhooks.handler_type", type=type(handler).__name__))
        configure_logging()
        self._settings = _Settings(store, **options)
        self._handler = handler
        self._stopping = threading.Event()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._settings.store!r}, owner={self._settings.owner!r})"

    @property
    def owner(self) -> str:
        """The name this worker's claims are held under."""
        return self._settings.owner

    @property
    def stopping(self) -> bool:
        """``True`` once ``stop()`` was called."""
        return self._stopping.is_set()


class Worker(_WorkerBase):
    """Process stored events with a synchronous handler, at least once, in ``criado_em`` order.

    Args:
        store: The store the receiver puts events into.
        handler: Called with each typed event; returning means done (ack), raising means
            try again later (nack with backoff). Delivery is at least once: a crash between
            the handler and the ack runs it again. To have its effect once, keep its writes
            in the store's database and let them commit with the ack: ``DjangoStore`` does
            so always (write through the ORM on the store's alias); ``SQLiteStore`` and
            ``PostgresStore`` with ``transactional=True``. A raise, a refused ack or a crash
            then leaves neither the writes nor the ack. A call outside that database (an
            e-mail, a fiscal service) is not covered: give it an idempotency key (the event's
            ``id``, or ``SaleEffect.key``). Optional when ``on_sale`` is given.
        on_sale: Called once per effect of a sale (``SaleEffect``: ``"paid"``,
            ``"late_approval"``, ``"compensated"``) inside the transaction that acks the event
            that revealed it, after ``handler``; its key is recorded in that transaction, so
            that duplicates, re-minted ids, any order, retries and crashes never run it twice
            for one key. Raising rolls everything back and retries the event. Needs
            ``SQLiteStore``, ``PostgresStore`` or ``DjangoStore``.
        transactional: ``SQLiteStore``/``PostgresStore``: run the handler and the ack in one
            transaction of the store's database, and call ``handler(event, connection)`` with
            its connection (``sqlite3.Connection``, ``psycopg.Connection``): write through
            it. ``DjangoStore``: accepted; the transaction is there anyway, and the handler is
            then called with Django's connection of the store's alias as well.
        owner: The lease holder's name; default ``"<host>:<pid>:<random>"``.
        lease: Seconds a claim is held before another worker may take it over; extended in
            the background while the handler runs.
        batch: Events claimed per pass.
        base_backoff: Delay after the first failure; doubled per attempt. 0 retries at once.
        max_backoff: Longest delay between attempts.
        poll_interval: Seconds ``run()`` waits when nothing is pending.
        heartbeat: Seconds between lease extensions; default ``lease / 3``.
        install_signal_handlers: ``run()`` stops gracefully on SIGTERM and SIGINT (only when
            called in the main thread; the previous handlers are restored afterwards).

    Raises:
        ConfigurationError: An option is out of range, ``handler`` is not a function
            (``Worker``: or is an ``async`` one; ``AsyncWorker``: or the store runs handlers
            in its transactions, as ``DjangoStore``), neither ``handler`` nor ``on_sale`` is
            given, or ``transactional``/``on_sale`` is asked of a store without transactions
            (``MemoryStore``, ``RedisStore``) or of ``AsyncWorker``.
    """

    def __init__(
        self,
        store: Store,
        handler: Callable[..., object] | None = None,
        *,
        on_sale: Callable[[SaleEffect], object] | None = None,
        transactional: bool = False,
        owner: str | None = None,
        lease: float = 30.0,
        batch: int = 10,
        base_backoff: float = 1.0,
        max_backoff: float = 300.0,
        poll_interval: float = 1.0,
        heartbeat: float | None = None,
        install_signal_handlers: bool = False,
    ) -> None:
        if callable(handler) and _is_async(handler):
            # Called here it would only build a coroutine: the event would be acked unhandled.
            raise ConfigurationError(message("webhooks.async_handler"))
        if handler is None and on_sale is None:
            raise ConfigurationError(message("webhooks.handler_or_on_sale"))
        self._transaction = _transaction_of(store, transactional=transactional, on_sale=on_sale)
        self._with_connection = transactional
        self._on_sale = on_sale
        super().__init__(
            store,
            handler,
            owner=owner,
            lease=lease,
            batch=batch,
            base_backoff=base_backoff,
            max_backoff=max_backoff,
            poll_interval=poll_interval,
            heartbeat=heartbeat,
        )
        self._install_signal_handlers = install_signal_handlers

    def stop(self) -> None:
        """Stop gracefully: finish the event being handled, give back the rest, claim no more.

        Safe to call from another thread or a signal handler.
        """
        self._stopping.set()

    def run_once(self) -> int:
        """Claim one batch and process it.

        Returns:
            How many events were handled (acked, nacked or dead-lettered); 0 when nothing
            was pending or the worker is stopping.

        Raises:
            StoreError: The store failed while claiming; nothing was claimed.
        """
        if self._stopping.is_set():
            return 0
        settings = self._settings
        claims = settings.store.claim(
            owner=settings.owner, lease=settings.lease, limit=settings.batch
        )
        if not claims:
            return 0
        heartbeat = _Heartbeat(settings, claims)
        processed = 0
        try:
            for index, claim in enumerate(claims):
                if self._stopping.is_set():
                    settings.release(claims[index:], why="the worker is stopping")
                    break
                if claim.event_id in heartbeat.lost:
                    _logger.warning(
                        "webhook event %s lost its lease before its turn",
                        loggable(claim.event_id),
                    )
                    continue
                try:
                    self._process(settings, claim)
                except BaseException as exc:
                    # The store failed on this event's ack (or nack), or the process is being
                    # interrupted: the rest of the batch must not wait out its leases.
                    rest = [c for c in claims[index + 1 :] if c.event_id not in heartbeat.lost]
                    settings.release(rest, why=f"{type(exc).__name__} on an earlier event")
                    raise
                heartbeat.finished(claim)
                processed += 1
        finally:
            heartbeat.close()
        return processed

    def _process(self, settings: _Settings, claim: Claim) -> None:
        observation = _telemetry.handling(claim)
        if observation is None:
            self._handle(settings, claim)
            return
        try:
            result, error = self._handle(settings, claim)
        except BaseException as exc:
            _telemetry.guarded(observation.finished, "interrupted", exc)
            raise
        _telemetry.guarded(observation.finished, result, error)

    def _handle(self, settings: _Settings, claim: Claim) -> tuple[str, Exception | None]:
        """Run the handler on a claim and finish it: what became of it, and its error."""
        event = settings.parse(claim)
        if event is None:
            return "dead_lettered", None
        if self._transaction is not None:
            return self._handle_in_transaction(settings, claim, event, self._transaction)
        try:
            self._call(event, None)
        except Exception as exc:  # noqa: BLE001 - the partner's failure: retry later
            settings.failed(claim, exc)
            return "failed", exc
        return settings.done(claim), None

    def _call(self, event: Event, connection: object) -> None:
        if self._handler is None or is_internal(event):
            return
        result = self._handler(event, connection) if self._with_connection else self._handler(event)
        if inspect.isawaitable(result):
            # An awaitable nobody awaits did nothing: never ack the event for it.
            if inspect.iscoroutine(result):
                result.close()
            raise TypeError("the handler returned an awaitable: use AsyncWorker")

    def _handle_in_transaction(
        self,
        settings: _Settings,
        claim: Claim,
        event: Event,
        transaction: _Transaction,
    ) -> tuple[str, Exception | None]:
        """The handler, the sale's effects and the ack in one transaction of the store's database.

        A handler that raises rolls its writes back, then the event is nacked in a transaction
        of its own; an ack refused (another worker took the event over) rolls them back too.
        """
        try:
            with transaction() as connection:
                self._call(event, connection)
                if self._on_sale is not None:
                    _apply_effects(settings.store, claim, event, connection, self._on_sale)
                if settings.done(claim) != "acked":
                    raise _AckRefused
        except _AckRefused:
            return "ack_refused", None
        except Exception as exc:  # noqa: BLE001 - the partner's failure: retry later
            settings.failed(claim, exc)
            return "failed", exc
        return "acked", None

    def run(self, stop_event: threading.Event | None = None) -> None:
        """Process events until ``stop()`` is called or ``stop_event`` is set.

        A store failure is logged and retried after ``poll_interval``; it never ends the loop.

        Args:
            stop_event: Set it (from any thread) to stop like ``stop()``.
        """
        with contextlib.ExitStack() as signals:
            if self._install_signal_handlers and not signals.enter_context(
                stop_on_signals(self._on_signal)
            ):
                _logger.warning("signal handlers not installed: run() is not in the main thread")
            self._run(stop_event)

    def _run(self, stop_event: threading.Event | None) -> None:
        settings = self._settings
        watcher: threading.Thread | None = None
        if stop_event is not None:
            watcher = threading.Thread(
                target=self._watch, args=(stop_event,), name="smartpos-worker-stop", daemon=True
            )
            watcher.start()
        try:
            while not self._stopping.is_set():
                try:
                    processed = self.run_once()
                except Exception:
                    _logger.exception("webhook worker %s: store failed; retrying", settings.owner)
                    processed = 0
                if processed == 0:
                    self._stopping.wait(settings.poll_interval)
        finally:
            self._stopping.set()  # ends the watcher thread too
            if watcher is not None:
                watcher.join()

    def _watch(self, stop_event: threading.Event) -> None:
        while not self._stopping.is_set():
            if stop_event.wait(0.05):
                self._stopping.set()

    def _on_signal(self, signum: int) -> None:
        _logger.info("webhook worker %s: signal %d, stopping", self.owner, signum)
        self.stop()


class AsyncWorker(_WorkerBase):
    """``Worker`` for an ``async def`` handler; store calls run in a worker thread.

    Same arguments and behaviour as [`Worker`][smartpos.webhooks.Worker] (``stop()``,
    ``run_once()``, ``run()``), with ``run_once``/``run`` awaited. The lease heartbeat is a task on
    the same loop, so a handler that blocks the loop also stops it: keep handlers truly
    asynchronous. Handlers in the ack's transaction (``transactional=True``, ``on_sale=``, a
    ``DjangoStore``) are ``Worker``'s only: the database drivers' transactions are synchronous,
    and one held across ``await`` would block the loop; ``AsyncWorker`` refuses them with a
    ``ConfigurationError`` (run a ``Worker`` in a thread beside your loop instead).
    """

    def __init__(
        self,
        store: Store,
        handler: Callable[[Event], Awaitable[object]],
        *,
        on_sale: Callable[[SaleEffect], object] | None = None,
        transactional: bool = False,
        owner: str | None = None,
        lease: float = 30.0,
        batch: int = 10,
        base_backoff: float = 1.0,
        max_backoff: float = 300.0,
        poll_interval: float = 1.0,
        heartbeat: float | None = None,
    ) -> None:
        if transactional is not False or on_sale is not None:
            # A transaction of a synchronous driver held across awaits would block the loop.
            option = "on_sale" if on_sale is not None else "transactional=True"
            raise ConfigurationError(message("webhooks.transactional_async", option=option))
        if handler is None:
            raise ConfigurationError(message("webhooks.handler_type", type="NoneType"))
        if _handler_transaction(store) is not None:
            raise ConfigurationError(message("webhooks.async_worker_transactional", store=store))
        super().__init__(
            store,
            handler,
            owner=owner,
            lease=lease,
            batch=batch,
            base_backoff=base_backoff,
            max_backoff=max_backoff,
            poll_interval=poll_interval,
            heartbeat=heartbeat,
        )
        self._wakeup: asyncio.Event | None = None

    def stop(self) -> None:
        """Stop gracefully (see `Worker.stop`); call it from the worker's event loop."""
        self._stopping.set()
        if self._wakeup is not None:
            self._wakeup.set()

    async def run_once(self) -> int:
        """Claim one batch and process it; see `Worker.run_once`."""
        if self._stopping.is_set():
            return 0
        settings = self._settings
        claims = await asyncio.to_thread(
            settings.store.claim, owner=settings.owner, lease=settings.lease, limit=settings.batch
        )
        if not claims:
            return 0
        active = {claim.event_id: claim for claim in claims}
        lost: set[str] = set()
        beat = asyncio.create_task(self._heartbeat(active, lost))
        processed = 0
        try:
            for index, claim in enumerate(claims):
                if self._stopping.is_set():
                    await asyncio.to_thread(
                        settings.release, claims[index:], why="the worker is stopping"
                    )
                    break
                if claim.event_id in lost:
                    continue
                try:
                    await self._process(settings, claim)
                except (Exception, asyncio.CancelledError) as exc:
                    rest = [c for c in claims[index + 1 :] if c.event_id not in lost]
                    why = f"{type(exc).__name__} on an earlier event"
                    # Shielded: a cancelled worker still gives its batch back.
                    await asyncio.shield(asyncio.to_thread(settings.release, rest, why=why))
                    raise
                active.pop(claim.event_id, None)
                processed += 1
        finally:
            beat.cancel()
            await asyncio.gather(beat, return_exceptions=True)
        return processed

    async def _process(self, settings: _Settings, claim: Claim) -> None:
        observation = _telemetry.handling(claim)
        if observation is None:
            await self._handle(settings, claim)
            return
        try:
            result, error = await self._handle(settings, claim)
        except BaseException as exc:
            _telemetry.guarded(observation.finished, "interrupted", exc)
            raise
        _telemetry.guarded(observation.finished, result, error)

    async def _handle(self, settings: _Settings, claim: Claim) -> tuple[str, Exception | None]:
        """Run the handler on a claim and finish it: what became of it, and its error."""
        event = await asyncio.to_thread(settings.parse, claim)
        if event is None:
            return "dead_lettered", None
        if is_internal(event):  # the SDK's own: no handler, no on_sale here
            return await asyncio.to_thread(settings.done, claim), None
        try:
            assert self._handler is not None  # AsyncWorker requires one
            result = self._handler(event)
            # A plain function has already done its work: awaiting its None would fail it
            # and run it again later.
            if inspect.isawaitable(result):
                await result
        except Exception as exc:  # noqa: BLE001 - the partner's failure: retry later
            await asyncio.to_thread(settings.failed, claim, exc)
            return "failed", exc
        return await asyncio.to_thread(settings.done, claim), None

    async def _heartbeat(self, active: dict[str, Claim], lost: set[str]) -> None:
        settings = self._settings
        while True:
            await asyncio.sleep(settings.heartbeat)
            for claim in list(active.values()):
                try:
                    kept = await asyncio.to_thread(
                        settings.store.extend, claim, lease=settings.lease
                    )
                except Exception:  # noqa: BLE001 - try again at the next beat
                    _logger.warning("could not extend the lease of %s", loggable(claim.event_id))
                    continue
                if not kept and claim.event_id in active:
                    lost.add(claim.event_id)

    async def run(self, stop_event: asyncio.Event | None = None) -> None:
        """Process events until ``stop()`` is called or ``stop_event`` is set."""
        self._wakeup = asyncio.Event()
        settings = self._settings
        watcher = asyncio.create_task(self._watch(stop_event)) if stop_event is not None else None
        try:
            while not self._stopping.is_set():
                try:
                    processed = await self.run_once()
                except Exception:
                    _logger.exception("webhook worker %s: store failed; retrying", settings.owner)
                    processed = 0
                if processed == 0 and not self._stopping.is_set():
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(self._wakeup.wait(), settings.poll_interval)
                    self._wakeup.clear()
        finally:
            self._stopping.set()
            if watcher is not None:
                watcher.cancel()
                await asyncio.gather(watcher, return_exceptions=True)

    async def _watch(self, stop_event: asyncio.Event) -> None:
        await stop_event.wait()
        self.stop()
