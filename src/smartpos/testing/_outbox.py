"""The outbox: events emitted under the world's lock, delivered after it is released.

Emitting only queues the envelope; :meth:`Outbox.flush` hands the queue to delivery once the
lock is free, so a webhook target may call the sandbox (or a client bound to it) again. Targets
in process are called at once on the flushing thread; URL targets are posted by one background
thread with retries and backoff. Every envelope lands in :attr:`Outbox.events` when its delivery
ends, whatever the target answered.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

import httpx

from ._delivery import DeliveryAttempt, WebhookTarget, attempt_delivery, describe_target
from ._errors import SandboxError
from ._faults import FaultPlan
from ._world import World

__all__ = ["Outbox"]

_Item = tuple[str, dict[str, Any]]
"""A partner's name and an envelope."""


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
        self._held: list[_Item] | None = None
        self._events: list[dict[str, Any]] = []
        self._deliveries: list[DeliveryAttempt] = []
        self._pending = 0
        self._worker: threading.Thread | None = None
        self._jobs: queue.Queue[_Item | None] = queue.Queue()
        self._closed = threading.Event()

    def close(self) -> None:
        """Stop the delivery thread (pending URL deliveries are abandoned); idempotent."""
        self._closed.set()
        worker = self._worker
        if worker is not None:
            self._jobs.put(None)
            worker.join(timeout=5.0)

    # ------------------------------------------------------------------ emitting

    def emit(self, partner: str, tipo: str, dados: dict[str, Any]) -> dict[str, Any]:
        """Create an envelope for ``partner`` and queue it until the next :meth:`flush`.

        Returns:
            The envelope.
        """
        with self._lock:
            envelope = self._world.envelope(tipo, dados)
            self._envelopes[envelope["id"]] = (partner, envelope)
            self._queued.append((partner, envelope))
            return envelope

    def flush(self) -> None:
        """Hand every queued envelope to delivery (call it without holding the lock)."""
        with self._lock:
            items, self._queued = self._queued, []
        for partner, envelope in items:
            self._dispatch(partner, envelope)

    def resend(self, event_id: str) -> None:
        """Deliver an event again with the same ``id``.

        Raises:
            SandboxError: No event has that id.
        """
        with self._lock:
            found = self._envelopes.get(event_id)
            if found is None:
                raise SandboxError(f"no event {event_id!r}")
            self._queued.append(found)
        self.flush()

    def hold(self) -> None:
        """Hold every new delivery until :meth:`release`."""
        with self._lock:
            if self._held is None:
                self._held = []

    @property
    def held(self) -> list[dict[str, Any]]:
        """The envelopes held, in emission order."""
        with self._lock:
            return [dict(e) for _, e in self._held or []]

    def release(self, *, reverse: bool) -> list[dict[str, Any]]:
        """Stop holding and deliver the held envelopes, in emission order or reversed."""
        with self._lock:
            held, self._held = self._held or [], None
            if reverse:
                held.reverse()
            self._queued.extend(held)
        self.flush()
        return [dict(e) for _, e in held]

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
            return len(self._events)

    @property
    def deliveries(self) -> list[DeliveryAttempt]:
        """Every delivery attempt, retries included, in order."""
        with self._lock:
            return list(self._deliveries)

    def wait_for_events(self, count: int, timeout: float) -> list[dict[str, Any]]:
        """Wait until at least ``count`` deliveries ended; return :attr:`events`.

        Raises:
            TimeoutError: Fewer arrived in time.
        """
        with self._changed:
            if not self._changed.wait_for(lambda: len(self._events) >= count, timeout):
                raise TimeoutError(f"{len(self._events)} of {count} events after {timeout}s")
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
            if self._held is not None:
                self._held.append((partner, envelope))
                return
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
    ) -> None:
        """Deliver one envelope with retries; record it in :attr:`events` when done."""
        description = "sandbox.events" if target is None else describe_target(target)
        for attempt in range(1, self._attempts + 1):
            injected = self._faults.take_webhook()
            if injected is False or injected is None:
                if target is None:
                    ok, status, error = True, None, None
                else:
                    ok, status, error = attempt_delivery(target, envelope, client)
                if injected is None:
                    ok, status, error = False, None, "timed out waiting for the target's answer"
            else:
                ok, status, error = False, injected, f"HTTP {injected} (injected)"
            with self._lock:
                self._deliveries.append(
                    DeliveryAttempt(
                        envelope["id"], envelope["tipo"], attempt, description, ok, status, error
                    )
                )
            if ok or attempt == self._attempts:
                break
            if isinstance(target, str) and self._closed.wait(self._backoff * 2 ** (attempt - 1)):
                break
        with self._changed:
            self._events.append(envelope)
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
