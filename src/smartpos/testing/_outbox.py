"""The outbox: events emitted under the world's lock, delivered after it is released.

Emitting only queues the envelope; `Outbox.flush` hands the queue to delivery once the
lock is free, so a webhook target may call the sandbox (or a client bound to it) again. Targets
in process are called at once on the flushing thread, and retried at once; URL targets are
posted by one background thread, and a failed attempt is scheduled again after its backoff
(``_delivery.retry_delay``) without holding back the deliveries behind it, as a real sender
does: one event that a receiver keeps refusing does not delay the others. Every envelope lands
in `Outbox.events` when its delivery starts, whatever the target answers: a target (or a
client waiting on what the target stored) that reads `events` finds the envelope it was sent.
`Outbox.delivered` and `Outbox.wait_for_events` count deliveries that ended.

Each attempt carries the fixed headers (`Outbox.set_headers`) and, with a signing
(`Outbox.set_signing`), the headers ``smartpos.testing.sign`` writes for the delivery's exact
body: signed again at every attempt with a fresh timestamp on the sandbox's clock, the same
``webhook-id`` (the event's id) every time.

An envelope may come with a `Plan` (the hard cases of ``_outcomes``): delivered several
times, held back until the next envelope (out of order), scheduled for later on the sandbox's
clock (a scheduler thread, or `Outbox.deliver_due` when the clock is advanced), held under its
``referencia`` until `Outbox.release_referencia` (the rest of its plan then applies from the
release), or sent to one URL only, at once and once (``trigger``).
"""

from __future__ import annotations

import collections
import heapq
import itertools
import threading
import time
from collections.abc import Mapping
from typing import Any

import attrs
import httpx

from ._delivery import (
    DeliveryAttempt,
    SupportsReceive,
    WebhookTarget,
    attempt_delivery,
    describe_target,
    retry_delay,
)
from ._errors import SandboxError
from ._faults import FaultPlan
from ._protocol import encode_json
from ._signing import WebhookSigning
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
        signing: How that one delivery is signed (default: as every delivery).
        hold: Held under its ``dados.referencia`` until `Outbox.release_referencia`.
    """

    delay: float = 0.0
    copies: int = 1
    out_of_order: bool = False
    to: str | None = None
    headers: Mapping[str, str] | None = None
    signing: WebhookSigning | None = None
    hold: bool = False


@attrs.frozen
class _Direct:
    """A delivery to one URL only, at once and once (``trigger(to=)``, ``resend(to=)``)."""

    url: str
    headers: Mapping[str, str] | None
    signing: WebhookSigning | None


@attrs.frozen
class _Job:
    """One attempt of a delivery to a partner's URL, for the delivery thread.

    The first attempt reads the partner's target when it runs; its retries keep that target
    and the body, so that every attempt delivers the same bytes to the same place.
    """

    partner: str
    envelope: dict[str, Any]
    attempt: int = 1
    target: str | None = None
    body: bytes = b""


class Outbox:
    """Emission, ordering (hold, release, resend) and delivery of event envelopes.

    Args:
        world: The world; its lock guards the outbox too, and it knows each partner's target.
        faults: Where injected delivery failures wait.
        attempts: Attempts per delivery (the first plus retries of failures).
        backoff: Seconds before the first retry to a URL, doubled on each retry.
        timeout: Seconds to wait for a URL target's answer.
        signing: How deliveries are signed (``None``: not signed).
        headers: Fixed headers of every delivery (checked by the caller).
    """

    def __init__(
        self,
        world: World,
        faults: FaultPlan,
        *,
        attempts: int,
        backoff: float,
        timeout: float,
        signing: WebhookSigning | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self._world = world
        self._lock = world.lock
        self._changed = threading.Condition(world.lock)
        self._faults = faults
        self._attempts = attempts
        self._backoff = backoff
        self._timeout = timeout
        self._signing = signing
        self._headers = dict(headers or {})
        self._envelopes: dict[str, _Item] = {}
        self._queued: list[_Item] = []
        self._deferred: list[_Item] = []
        # (due time, item, out of order)
        self._scheduled: list[tuple[float, _Item, bool]] = []
        self._scheduler: threading.Thread | None = None
        self._direct: dict[str, _Direct] = {}
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
        # The delivery thread's attempts to URLs, by due time (time.monotonic()), then order.
        self._due: list[tuple[float, int, _Job]] = []
        self._order = itertools.count()
        self._wake = threading.Condition(threading.Lock())
        self._closed = threading.Event()

    def close(self) -> None:
        """Stop the delivery threads (pending and delayed deliveries are abandoned); idempotent."""
        self._closed.set()
        with self._changed:
            self._changed.notify_all()
        with self._wake:
            self._wake.notify_all()
        worker = self._worker
        if worker is not None:
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
                self._direct[envelope["id"]] = _Direct(plan.to, plan.headers, plan.signing)
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
        signing: WebhookSigning | None = None,
    ) -> None:
        """Deliver an event again with the same ``id``.

        Args:
            event_id: The envelope's ``id``.
            to: Deliver only to this URL, at once, one attempt.
            headers: Extra headers of that delivery.
            signing: How that delivery to ``to`` is signed (default: as every delivery).

        Raises:
            SandboxError: No event has that id.
        """
        with self._lock:
            found = self._envelopes.get(event_id)
            if found is None:
                raise SandboxError(f"no event {event_id!r}")
            if to is not None:
                self._direct[event_id] = _Direct(to, headers, signing)
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

    # ------------------------------------------------------------------ signing

    def set_signing(self, signing: WebhookSigning | None) -> None:
        """Sign every later attempt so (``None``: stop signing)."""
        with self._lock:
            self._signing = signing

    def set_headers(self, headers: Mapping[str, str]) -> None:
        """Send these fixed headers with every later attempt (checked by the caller)."""
        with self._lock:
            self._headers = dict(headers)

    def _attempt_headers(
        self,
        body: bytes,
        extra: Mapping[str, str] | None,
        signing: WebhookSigning | None,
    ) -> dict[str, str]:
        """The headers of one attempt: fixed ones, the signature's, the delivery's own.

        Raises:
            ValueError: The signing needs a field the delivery does not hold.
        """
        with self._lock:
            headers = dict(self._headers)
            signing = signing or self._signing
        if extra:
            headers.update(extra)
        if signing is not None:
            headers.update(signing.headers(body, timestamp=self._world.now(), headers=headers))
        return headers

    # ------------------------------------------------------------------ delivering

    def _dispatch(self, partner: str, envelope: dict[str, Any]) -> None:
        with self._lock:
            direct = self._direct.pop(envelope["id"], None)
            if direct is None and self._held is not None:
                self._held.append((partner, envelope))
                return
        if direct is not None:
            with httpx.Client(timeout=self._timeout, trust_env=False) as client:
                self._deliver(
                    direct.url,
                    envelope,
                    client,
                    attempts=1,
                    headers=direct.headers,
                    signing=direct.signing,
                )
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
                self._schedule_job(_Job(partner, envelope), 0.0)
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
        signing: WebhookSigning | None = None,
    ) -> None:
        """Deliver one envelope, retrying at once; record it in `events` when done.

        For in-process targets and a delivery to one URL; a partner's URL is delivered to by
        the delivery thread (`_run`), whose retries wait.
        """
        attempts = attempts or self._attempts
        self._start_delivery(envelope)
        body = encode_json(envelope)
        for attempt in range(1, attempts + 1):
            ok = self._attempt(target, envelope, body, client, attempt, headers, signing)
            if ok:
                break
        self._end_delivery()

    def _start_delivery(self, envelope: dict[str, Any]) -> None:
        with self._lock:
            # Before the first attempt: whoever the delivery wakes (a receiver's store, a
            # client waiting on it) finds the envelope in `events` already.
            self._events.append(envelope)

    def _end_delivery(self) -> None:
        with self._changed:
            self._ended += 1
            self._changed.notify_all()

    def _attempt(
        self,
        target: WebhookTarget | None,
        envelope: dict[str, Any],
        body: bytes,
        client: httpx.Client | None,
        attempt: int,
        headers: Mapping[str, str] | None = None,
        signing: WebhookSigning | None = None,
    ) -> bool:
        """Make one attempt and record it; return whether the target took it."""
        injected = self._faults.take_webhook()
        answer: str | None = None
        if injected is False or injected is None:
            if target is None:
                ok, status, error = True, None, None
            else:
                signed: dict[str, str] | None = None
                error = None
                if isinstance(target, (str, SupportsReceive)):
                    try:
                        signed = self._attempt_headers(body, headers, signing)
                    except Exception as exc:  # noqa: BLE001 - a failed signing fails the attempt
                        error = f"cannot sign: {exc}"
                if error is None:
                    ok, status, error, answer = attempt_delivery(target, body, client, signed)
                else:
                    ok, status = False, None
            if injected is None:
                ok, status, error = False, None, "timed out waiting for the target's answer"
        else:
            ok, status, error = False, injected, f"HTTP {injected} (injected)"
        description = "sandbox.events" if target is None else describe_target(target)
        record = DeliveryAttempt(
            envelope["id"], envelope["tipo"], attempt, description, ok, status, error, answer
        )
        with self._lock:
            self._deliveries.append(record)
            self._world.add_log(record)
        return ok

    def _start_worker(self) -> None:
        if self._worker is None and not self._closed.is_set():
            self._worker = threading.Thread(
                target=self._work, name="smartpos-sandbox-webhooks", daemon=True
            )
            self._worker.start()

    def _schedule_job(self, job: _Job, delay: float) -> None:
        with self._wake:
            heapq.heappush(self._due, (time.monotonic() + delay, next(self._order), job))
            self._wake.notify_all()

    def _next_job(self) -> _Job | None:
        """The next attempt whose time has come, waiting for it; ``None`` once closed."""
        with self._wake:
            while not self._closed.is_set():
                if not self._due:
                    self._wake.wait()
                    continue
                wait = self._due[0][0] - time.monotonic()
                if wait <= 0:
                    return heapq.heappop(self._due)[2]
                self._wake.wait(wait)
            return None

    def _work(self) -> None:
        with httpx.Client(timeout=self._timeout, trust_env=False) as client:
            while (job := self._next_job()) is not None:
                ended = True
                try:
                    ended = self._run(job, client)
                finally:
                    if ended:
                        with self._changed:
                            self._pending -= 1
                            self._changed.notify_all()

    def _run(self, job: _Job, client: httpx.Client) -> bool:
        """Make one attempt of a delivery to a URL; return whether the delivery is over."""
        if self._closed.is_set():
            return True
        if job.target is None:
            target = self._world.webhook_of(job.partner)
            if isinstance(target, bool):
                # The target changed while queued: deliver where it points now.
                if target:
                    self._deliver(None, job.envelope, None)
                return True
            if not isinstance(target, str):
                self._deliver(target, job.envelope, None)
                return True
            self._start_delivery(job.envelope)
            job = attrs.evolve(job, target=target, body=encode_json(job.envelope))
        assert job.target is not None
        ok = self._attempt(job.target, job.envelope, job.body, client, job.attempt)
        if ok or job.attempt >= self._attempts:
            self._end_delivery()
            return True
        self._schedule_job(
            attrs.evolve(job, attempt=job.attempt + 1), retry_delay(job.attempt, self._backoff)
        )
        return False
