"""The outbox: events emitted under the world's lock, delivered after it is released.

Emitting only queues the envelope; `Outbox.flush` hands the queue to delivery once the
lock is free, so a webhook target may call the sandbox (or a client bound to it) again. Targets
in process are called at once on the flushing thread; URL targets are posted by one background
thread with retries and backoff. Every envelope lands in `Outbox.events` when its delivery
starts, whatever the target answers: a target (or a client waiting on what the target stored)
that reads `events` finds the envelope it was sent. `Outbox.delivered` and
`Outbox.wait_for_events` count deliveries that ended.

An envelope may come with a `Plan` (the hard cases of ``_outcomes``): delivered several
times, held back until the next envelope (out of order), scheduled for later on the sandbox's
clock (a scheduler thread, or `Outbox.deliver_due` when the clock is advanced), held under its
``referencia`` until `Outbox.release_referencia` (the rest of its plan then applies from the
release), or sent to one URL only, at once and once (``trigger``).
"""

from __future__ import annotations

import collections
import queue
import threading
from collections.abc import Mapping
from typing import Any

import attrs
import httpx

from ._delivery import DeliveryAttempt, WebhookTarget, attempt_delivery, describe_target
from ._errors import SandboxError
from ._faults import FaultPlan
from ._world import World

__all__ = ["Outbox", "Plan"]

_Item = tuple[str, dict[str, Any]]
"""A partner's name and an envelope."""


@attrs.frozen
class Plan:
    """How one envelope travels.

    Attributes:
        delay: Seconds (on the sandbox's clock) before it is handed to delivery.
        copies: How many times it is delivered, with the same ``id``.
        out_of_order: Held back until the next envelope has been handed to delivery.
        to: Deliver only to this URL, at once, one attempt (not to the partner's webhook).
        headers: Extra headers of that one delivery.
        hold: Held under its ``dados.referencia`` until `Outbox.release_referencia`.
    """

    delay: float = 0.0
    copies: int = 1
    out_of_order: bool = False
    to: str | None = None
    headers: Mapping[str, str] | None = None
    hold: bool = False


class Outbox:
    """Emission, ordering (hold, release, resend) and delivery of event envelopes.

    Args:
        world: The world; its lock guards the outbox too, and it knows each partner's target.
        faults: Where injected delivery failures wait.
        attempts: Attempts per delivery (the first plus retries of failures).
        backoff: Seconds before the first retry to a URL, doubled on each retry.
        timeout: Seconds to wait for a URL target's answer.
    """

    def __init__(
        self, world: World, faults: FaultPlan, *, attempts: int, backoff: float, timeout: float
    ) -> None:
        self._world = world
        self._lock = world.lock
        self._changed = threading.Condition(world.lock)
        self._faults = faults
        self._attempts = attempts
        self._backoff = backoff
        self._timeout = timeout
        self._envelopes: dict[str, _Item] = {}
        self._queued: list[_Item] = []
        self._deferred: list[_Item] = []
        # (due time, item, out of order)
        self._scheduled: list[tuple[float, _Item, bool]] = []
        self._scheduler: threading.Thread | None = None
        self._direct: dict[str, tuple[str, Mapping[str, str] | None]] = {}
        self._held: list[_Item] | None = None
        # referencia -> what Plan.hold keeps back for it, with the rest of its plan.
        self._holds: dict[str, list[tuple[_Item, Plan]]] = {}
        self._events: list[dict[str, Any]] = []
        self._ended = 0
        self._deliveries: collections.deque[DeliveryAttempt] = collections.deque(
            maxlen=world.log_limit
        )
        self._pending = 0
        self._worker: threading.Thread | None = None
        self._jobs: queue.Queue[_Item | None] = queue.Queue()
        self._closed = threading.Event()

    def close(self) -> None:
        """Stop the delivery threads (pending and delayed deliveries are abandoned); idempotent."""
        self._closed.set()
        with self._changed:
            self._changed.notify_all()
        worker = self._worker
        if worker is not None:
            self._jobs.put(None)
            worker.join(timeout=5.0)
        scheduler = self._scheduler
        if scheduler is not None:
            scheduler.join(timeout=5.0)

    # ------------------------------------------------------------------ emitting

    def emit(
        self, partner: str, tipo: str, dados: dict[str, Any], plan: Plan | None = None
    ) -> dict[str, Any]:
        """Create an envelope for ``partner`` and queue it until the next `flush`.

        Args:
            partner: The partner whose webhook receives it.
            tipo: The event's ``tipo``.
            dados: Its ``dados``.
            plan: How it travels (default: once, at the next flush, to the partner's webhook).

        Returns:
            The envelope.
        """
        plan = plan or Plan()
        with self._changed:
            envelope = self._world.envelope(tipo, dados)
            item = (partner, envelope)
            self._envelopes[envelope["id"]] = item
            if plan.to is not None:
                self._direct[envelope["id"]] = (plan.to, plan.headers)
            if plan.hold:
                held = self._holds.setdefault(envelope["dados"]["referencia"], [])
                held.extend([(item, attrs.evolve(plan, hold=False))] * plan.copies)
            else:
                self._route([item] * plan.copies, plan)
            return envelope

    def _route(self, items: list[_Item], plan: Plan) -> None:
        """Queue ``items`` as ``plan`` says: now, after a delay, or after the next one (locked)."""
        if plan.delay > 0:
            due = self._world.now() + plan.delay
            self._scheduled.extend((due, i, plan.out_of_order) for i in items)
            self._start_scheduler()
            self._changed.notify_all()
        elif plan.out_of_order:
            self._deferred.extend(items)
        else:
            self._queued.extend(items)

    def flush(self) -> None:
        """Hand every queued envelope to delivery (call it without holding the lock).

        Envelopes held back out of order follow the first queued ones.
        """
        with self._lock:
            items, self._queued = self._queued, []
            if items and self._deferred:
                items, self._deferred = items + self._deferred, []
        for partner, envelope in items:
            self._dispatch(partner, envelope)

    def resend(
        self,
        event_id: str,
        to: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Deliver an event again with the same ``id``.

        Args:
            event_id: The envelope's ``id``.
            to: Deliver only to this URL, at once, one attempt.
            headers: Extra headers of that delivery.

        Raises:
            SandboxError: No event has that id.
        """
        with self._lock:
            found = self._envelopes.get(event_id)
            if found is None:
                raise SandboxError(f"no event {event_id!r}")
            if to is not None:
                self._direct[event_id] = (to, headers)
            self._queued.append(found)
        self.flush()

    def deliver_due(self) -> None:
        """Hand the delayed envelopes whose time has come to delivery (after the clock moved)."""
        with self._changed:
            now = self._world.now()
            due = [entry for entry in self._scheduled if entry[0] <= now]
            self._scheduled = [entry for entry in self._scheduled if entry[0] > now]
            for _, item, out_of_order in due:
                (self._deferred if out_of_order else self._queued).append(item)
        if due:
            self.flush()

    @property
    def scheduled(self) -> int:
        """How many deliveries wait for their delay."""
        with self._lock:
            return len(self._scheduled)

    def _start_scheduler(self) -> None:
        if self._scheduler is None and not self._closed.is_set():
            self._scheduler = threading.Thread(
                target=self._schedule, name="smartpos-sandbox-delays", daemon=True
            )
            self._scheduler.start()

    def _schedule(self) -> None:
        while not self._closed.is_set():
            with self._changed:
                if not self._scheduled:
                    self._changed.wait()  # emit() and close() notify
                    continue
                wait = min(entry[0] for entry in self._scheduled) - self._world.now()
                if wait > 0:
                    # Bounded: a clock moved by advance() or a test's own clock is seen soon.
                    self._changed.wait(min(wait, 0.25))
                    continue
            self.deliver_due()

    def hold(self) -> None:
        """Hold every new delivery until `release`."""
        with self._lock:
            if self._held is None:
                self._held = []

    @property
    def held(self) -> list[dict[str, Any]]:
        """The envelopes held, in emission order."""
        with self._lock:
            return [dict(e) for _, e in self._held or []]

    def release(self, *, reverse: bool) -> list[dict[str, Any]]:
        """Stop holding and deliver the held envelopes, in emission order or reversed.

        Envelopes held back out of order (waiting for a next event) are delivered too, last.
        """
        with self._lock:
            held, self._held = self._held or [], None
            if reverse:
                held.reverse()
            self._queued.extend(held)
            self._queued.extend(self._deferred)
            self._deferred = []
        self.flush()
        return [dict(e) for _, e in held]

    @property
    def held_by_referencia(self) -> dict[str, list[dict[str, Any]]]:
        """The envelopes `Plan.hold` keeps back, per referencia, in emission order."""
        with self._lock:
            return {ref: [dict(e) for (_, e), _ in held] for ref, held in self._holds.items()}

    def release_referencia(self, referencia: str) -> list[dict[str, Any]]:
        """Hand the envelopes held for ``referencia`` on, as the rest of their plan says.

        Returns:
            The envelopes, one per delivery, in emission order.

        Raises:
            SandboxError: Nothing is held for ``referencia``.
        """
        with self._changed:
            held = self._holds.pop(referencia, None)
            if held is None:
                others = ", ".join(repr(r) for r in self._holds) or "none"
                raise SandboxError(
                    f"no event of referencia {referencia!r} is held (held: {others}); an "
                    "attempt's event is held when its outcome is Hold (the word 'segurar')"
                )
            for item, plan in held:
                self._route([item], plan)
        self.flush()
        return [dict(e) for (_, e), _ in held]

    # ------------------------------------------------------------------ records

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every envelope delivered so far (one entry per delivery, resends included)."""
        with self._lock:
            return [dict(e) for e in self._events]

    @property
    def delivered(self) -> int:
        """How many deliveries ended."""
        with self._lock:
            return self._ended

    @property
    def deliveries(self) -> list[DeliveryAttempt]:
        """Every delivery attempt, retries included, in order."""
        with self._lock:
            return list(self._deliveries)

    def wait_for_events(self, count: int, timeout: float) -> list[dict[str, Any]]:
        """Wait until at least ``count`` deliveries ended; return `events`.

        Raises:
            TimeoutError: Fewer arrived in time.
        """
        with self._changed:
            if not self._changed.wait_for(lambda: self._ended >= count, timeout):
                raise TimeoutError(f"{self._ended} of {count} events after {timeout}s")
            return [dict(e) for e in self._events]

    def wait_for_deliveries(self, timeout: float) -> None:
        """Wait until no delivery to a URL is queued or running.

        Raises:
            TimeoutError: Deliveries were still pending.
        """
        with self._changed:
            if not self._changed.wait_for(lambda: self._pending == 0, timeout):
                raise TimeoutError(f"{self._pending} deliveries still pending after {timeout}s")

    # ------------------------------------------------------------------ delivering

    def _dispatch(self, partner: str, envelope: dict[str, Any]) -> None:
        with self._lock:
            direct = self._direct.pop(envelope["id"], None)
            if direct is None and self._held is not None:
                self._held.append((partner, envelope))
                return
        if direct is not None:
            with httpx.Client(timeout=self._timeout, trust_env=False) as client:
                self._deliver(direct[0], envelope, client, attempts=1, headers=direct[1])
            return
        with self._lock:
            target = self._world.webhook_of(partner)
            failure = None
            if target is False:
                failure = "webhook not configured"
            elif isinstance(target, str) and self._closed.is_set():
                failure = "sandbox closed"
            if failure is not None:
                attempt = DeliveryAttempt(
                    envelope["id"], envelope["tipo"], 1, "-", ok=False, error=failure
                )
                self._deliveries.append(attempt)
                self._world.add_log(attempt)
                return
            if isinstance(target, str):
                self._pending += 1
                self._start_worker()
                self._jobs.put((partner, envelope))
                return
        self._deliver(None if isinstance(target, bool) else target, envelope, None)

    def _deliver(
        self,
        target: WebhookTarget | None,
        envelope: dict[str, Any],
        client: httpx.Client | None,
        *,
        attempts: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Deliver one envelope with retries; record it in `events` when done."""
        description = "sandbox.events" if target is None else describe_target(target)
        attempts = attempts or self._attempts
        with self._lock:
            # Before the first attempt: whoever the delivery wakes (a receiver's store, a
            # client waiting on it) finds the envelope in `events` already.
            self._events.append(envelope)
        for attempt in range(1, attempts + 1):
            injected = self._faults.take_webhook()
            answer: str | None = None
            if injected is False or injected is None:
                if target is None:
                    ok, status, error = True, None, None
                else:
                    ok, status, error, answer = attempt_delivery(target, envelope, client, headers)
                if injected is None:
                    ok, status, error = False, None, "timed out waiting for the target's answer"
            else:
                ok, status, error = False, injected, f"HTTP {injected} (injected)"
            record = DeliveryAttempt(
                envelope["id"], envelope["tipo"], attempt, description, ok, status, error, answer
            )
            with self._lock:
                self._deliveries.append(record)
                self._world.add_log(record)
            if ok or attempt == attempts:
                break
            if isinstance(target, str) and self._closed.wait(self._backoff * 2 ** (attempt - 1)):
                break
        with self._changed:
            self._ended += 1
            self._changed.notify_all()

    def _start_worker(self) -> None:
        if self._worker is None and not self._closed.is_set():
            self._worker = threading.Thread(
                target=self._work, name="smartpos-sandbox-webhooks", daemon=True
            )
            self._worker.start()

    def _work(self) -> None:
        with httpx.Client(timeout=self._timeout, trust_env=False) as client:
            while True:
                job = self._jobs.get()
                if job is None:
                    return
                partner, envelope = job
                try:
                    target = self._world.webhook_of(partner)
                    if self._closed.is_set():
                        continue
                    if isinstance(target, bool):
                        # The target changed while queued: deliver where it points now.
                        if target:
                            self._deliver(None, envelope, None)
                    else:
                        self._deliver(target, envelope, client)
                finally:
                    with self._changed:
                        self._pending -= 1
                        self._changed.notify_all()
