"""smartpos on Celery: stored events handled on a Celery worker pool, none of them ever lost.

The inbox stays the source of truth; Celery only carries *which* claimed event to handle:

1. a dispatcher claims ready events from the inbox, under a lease long enough to wait in the
   queue (``dispatch_lease``), and sends one task message per event holding its id and the
   claim's token, never the event itself;
2. a Celery worker runs the task: it checks that the claim still holds (else the message is
   stale: another dispatch took the event over, or it is done), extends the lease while the
   handler runs, and acks, nacks with backoff, or dead-letters in the inbox;
3. a message that never arrives (a broker restart, a purge, a worker killed after taking it)
   only lets the lease run out: the dispatcher claims the event again with a new token and
   sends a new message; the old one, should it surface, no longer holds the claim and is
   skipped.

So a handler failure is never hidden behind an early 2xx (it is retried from the inbox with
backoff, then dead-lettered where ``smartpos events list`` shows it), the task never runs
before the event is committed, and a lost message costs a delay, not the event. As with any
worker, the handler runs at least once per event: make it idempotent.

Install with ``pip install "smartpos[celery]"``::

    # shop/tasks.py
    from celery import Celery
    from smartpos.integrations.celery import SmartPOSTasks

    app = Celery("shop", broker="redis://127.0.0.1:6379/0")
    smartpos_tasks = SmartPOSTasks(app, store="sqlite:////var/lib/shop/inbox.sqlite3",
                                   handler=handle_event)

    celery -A shop.tasks worker                                            # the pool
    python -m smartpos.integrations.celery shop.tasks:smartpos_tasks       # the dispatcher
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from types import FrameType
from typing import Any

try:
    from celery import Celery
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "smartpos.integrations.celery needs Celery: pip install 'smartpos[celery]'"
    ) from exc

from smartpos._errors import ConfigurationError
from smartpos._messages import message
from smartpos.webhooks import Claim, Event, EventState, Store, open_store
from smartpos.webhooks._logsafe import loggable
from smartpos.webhooks._open import StoreSetting
from smartpos.webhooks._worker import _Heartbeat, _is_async, _Settings

__all__ = ["DEFAULT_TASK_NAME", "SmartPOSTasks", "main"]

#: The name the event task is registered under unless ``task_name`` says otherwise.
DEFAULT_TASK_NAME = "smartpos.handle_event"

_logger = logging.getLogger("smartpos.celery")


class SmartPOSTasks:
    """The smartpos task of a Celery app, and the dispatcher that feeds it from the inbox.

    Args:
        app: The Celery application (its broker carries the task messages).
        store: The inbox: a URL or path (``smartpos.integrations.open_store``), a store, or a
            function returning one. A URL, a path or a function is opened once per process,
            after Celery's pool forked, so no connection crosses a fork.
        handler: Called with each event on a Celery worker (``async def`` runs in
            ``asyncio.run``); returning means done, raising means try again later.
        task_name: The task's name in Celery.
        queue: The Celery queue the messages go to (default: the app's default queue).
        dispatch_lease: Seconds a dispatched event stays claimed while its message waits in
            the queue; when it runs out (the message was lost, or is still waiting), the event
            is claimed and sent again. Longer than the queue's usual wait.
        lease: Seconds the task holds the event while the handler runs; extended every
            ``lease / 3`` seconds.
        batch: Events claimed per dispatch pass.
        poll_interval: Seconds the dispatcher waits when nothing is ready.
        base_backoff: Delay before an event whose handler failed is ready again; doubled per
            attempt, up to ``max_backoff``.
        max_backoff: Longest delay between attempts.
        store_options: More arguments of the store's constructor (with a URL or a path).

    Raises:
        smartpos.ConfigurationError: A handler that is not callable, or a bad option.
    """

    def __init__(
        self,
        app: Celery,
        *,
        store: StoreSetting | Callable[[], Store],
        handler: Callable[[Event], object],
        task_name: str = DEFAULT_TASK_NAME,
        queue: str | None = None,
        dispatch_lease: float = 300.0,
        lease: float = 30.0,
        batch: int = 10,
        poll_interval: float = 1.0,
        base_backoff: float = 1.0,
        max_backoff: float = 300.0,
        store_options: Mapping[str, Any] | None = None,
    ) -> None:
        if not callable(handler):
            raise ConfigurationError(message("integrations.handler"))
        for name, value in (("dispatch_lease", dispatch_lease), ("lease", lease)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ConfigurationError(message("integrations.positive_seconds", name=name))
        self.app = app
        self._store_setting = store
        self._store_options = dict(store_options or {})
        self._handler = handler
        self._queue = queue
        self._dispatch_lease = float(dispatch_lease)
        self._lease = float(lease)
        self._batch = batch
        self._poll_interval = poll_interval
        self._backoff = (base_backoff, max_backoff)
        self._stores: dict[int, Store] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.owner = f"celery-dispatch:{os.getpid()}:{uuid.uuid4().hex[:8]}"

        def handle_event(event_id: str, token: str, owner: str) -> str:
            return self._run_task(event_id, token, owner)

        # acks_late=False: a message lost with its worker is recovered by the inbox's lease,
        # while a redelivered one could run beside the first under the same claim.
        self.task = app.task(name=task_name, ignore_result=True, acks_late=False)(handle_event)

    def __repr__(self) -> str:
        return f"<SmartPOSTasks task={self.task.name!r}>"

    @property
    def store(self) -> Store:
        """This process's store (opened on first use, once per process)."""
        setting = self._store_setting
        if not isinstance(setting, (str, os.PathLike)) and not callable(setting):
            return setting
        pid = os.getpid()
        with self._lock:
            store = self._stores.get(pid)
            if store is None:
                if isinstance(setting, (str, os.PathLike)):
                    store = open_store(setting, self._store_options)
                else:
                    store = setting()
                self._stores = {pid: store}  # a forked child never uses its parent's
            return store

    def _settings(self, owner: str) -> _Settings:
        base, maximum = self._backoff
        return _Settings(
            self.store,
            owner=owner,
            lease=self._lease,
            batch=1,
            base_backoff=base,
            max_backoff=maximum,
            poll_interval=1.0,
            heartbeat=None,
        )

    # -- dispatcher --------------------------------------------------------------------------

    def dispatch_once(self) -> int:
        """Claim a batch of ready events and send one task message for each.

        Returns:
            How many messages were sent.

        Raises:
            StoreError: The store failed while claiming (nothing was claimed).
            Exception: The broker refused a message: that claim and the rest of the batch are
                given back to the inbox at once before the error propagates.
        """
        store = self.store
        claims = store.claim(owner=self.owner, lease=self._dispatch_lease, limit=self._batch)
        for index, claim in enumerate(claims):
            routing: dict[str, Any] = {} if self._queue is None else {"queue": self._queue}
            try:
                self.task.apply_async(args=(claim.event_id, claim.token, claim.owner), **routing)
            except Exception:
                for unsent in claims[index:]:
                    store.release(unsent)
                raise
            _logger.debug(
                "event %s (%s) sent to Celery, attempt %d",
                loggable(claim.event_id),
                loggable(claim.tipo),
                claim.attempts,
            )
        return len(claims)

    def stop(self) -> None:
        """Stop `run_dispatcher` after its current pass (safe from any thread)."""
        self._stopping.set()

    def run_dispatcher(self, *, install_signal_handlers: bool = False) -> None:
        """Dispatch until `stop` (or SIGTERM/SIGINT with ``install_signal_handlers``).

        A store or broker failure is logged and retried after ``poll_interval``.
        """
        self._stopping.clear()
        previous: dict[int, Any] = {}
        if install_signal_handlers and threading.current_thread() is threading.main_thread():

            def handle(signum: int, frame: FrameType | None) -> None:
                self.stop()

            previous = {s: signal.signal(s, handle) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            while not self._stopping.is_set():
                try:
                    sent = self.dispatch_once()
                except Exception:
                    _logger.exception("smartpos Celery dispatcher: store or broker failed")
                    sent = 0
                if sent == 0:
                    self._stopping.wait(self._poll_interval)
        finally:
            for sig, old in previous.items():
                signal.signal(sig, old)

    # -- the task ----------------------------------------------------------------------------

    def _run_task(self, event_id: str, token: str, owner: str) -> str:
        """Handle one claimed event on a Celery worker; returns what happened (for logs)."""
        store = self.store
        record = store.get(event_id)
        if record is None or record.state is not EventState.CLAIMED or record.owner != owner:
            _logger.info("stale smartpos task for event %s: skipped", loggable(event_id))
            return "stale"
        claim = Claim(
            event_id=event_id,
            tipo=record.tipo,
            raw=record.raw,
            owner=owner,
            token=token,
            attempts=record.attempts,
            lease_expires_at=record.lease_expires_at or record.received_at,
        )
        # Proves the claim still holds (a later dispatch has another token) and trades the
        # queue's long lease for the handler's shorter one, extended while it runs.
        if not store.extend(claim, lease=self._lease):
            _logger.info("smartpos task for event %s lost its claim: skipped", loggable(event_id))
            return "stale"
        settings = self._settings(owner)
        heartbeat = _Heartbeat(settings, [claim])
        try:
            event = settings.parse(claim)
            if event is None:
                return "dead"
            try:
                result = self._handler(event)
                if _is_async(self._handler) or asyncio.iscoroutine(result):
                    result = asyncio.run(result)  # type: ignore[arg-type]
            except Exception as exc:  # noqa: BLE001 - the partner's failure: retry later
                settings.failed(claim, exc)
                return "failed"
            settings.done(claim)
            return "done"
        finally:
            heartbeat.close()


def _load(target: str) -> SmartPOSTasks:
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise SystemExit(
            f"expected module:attribute (e.g. shop.tasks:smartpos_tasks), not {target!r}"
        )
    sys.path.insert(0, os.getcwd())
    found = getattr(importlib.import_module(module_name), attribute, None)
    if not isinstance(found, SmartPOSTasks):
        raise SystemExit(f"{target} is not a SmartPOSTasks")
    return found


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m smartpos.integrations.celery MODULE:ATTRIBUTE``: run the dispatcher."""
    parser = argparse.ArgumentParser(
        prog="python -m smartpos.integrations.celery",
        description="Claim ready smartpos events and send them to Celery, until SIGTERM.",
    )
    parser.add_argument("target", help="where your SmartPOSTasks is: shop.tasks:smartpos_tasks")
    parser.add_argument("--once", action="store_true", help="one pass, then exit")
    options = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    tasks = _load(options.target)
    if options.once:
        print(f"smartpos dispatcher: {tasks.dispatch_once()} event(s) sent")
        return
    _logger.info("smartpos dispatcher %s: sending events to %r", tasks.owner, tasks.task.name)
    tasks.run_dispatcher(install_signal_handlers=True)


if __name__ == "__main__":  # pragma: no cover - `python -m` runs this file as __main__
    from smartpos.integrations.celery import main as _main

    _main()
