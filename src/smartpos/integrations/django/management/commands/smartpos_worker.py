"""``python manage.py smartpos_worker``: process the webhook inbox with ``SMARTPOS["HANDLER"]``.

With a ``DjangoStore``, ``SMARTPOS["ON_SALE"]`` (a dotted path) is also run once per sale effect
(paid, late approval, compensated) in the transaction of the event's ack (``Worker(on_sale=)``).

Runs until SIGTERM or Ctrl-C (the event in hand is finished, the rest given back), or with
``--once`` until the inbox has nothing ready (cron, tests). Run as many as you like, on as many
hosts as share the store: each event is handled by one of them at a time, under a lease.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import signal
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import close_old_connections

from smartpos._messages import message
from smartpos.integrations.django._state import get_store
from smartpos.integrations.django.checks import (
    _django_store_alias,
    _HandlerImportError,
    _import_handler,
    check_store_tables,
    check_webhook_secret,
)
from smartpos.integrations.django.conf import get_settings
from smartpos.webhooks import AsyncWorker, Event, Worker
from smartpos.webhooks._worker import _is_async

__all__ = ["Command"]


def _with_fresh_connections(handler: Callable[[Event], object]) -> Callable[[Event], object]:
    """Close database connections that died or outlived CONN_MAX_AGE around each event.

    Django does this around every request; a long-running worker must do it itself, or the
    first event after a database restart fails ("server closed the connection").
    """

    @functools.wraps(handler)
    def handle(event: Event) -> object:
        close_old_connections()
        try:
            return handler(event)
        finally:
            close_old_connections()

    return handle


class Command(BaseCommand):
    """Process the smartpos webhook inbox."""

    help = "Process the smartpos webhook inbox with SMARTPOS['HANDLER'] (until SIGTERM)."

    def add_arguments(self, parser: CommandParser) -> None:
        """The options; each overrides SMARTPOS['WORKER_OPTIONS']."""
        parser.add_argument("--handler", help="dotted path of the handler (default: HANDLER)")
        parser.add_argument(
            "--once", action="store_true", help="process what is ready now, then exit"
        )
        parser.add_argument("--lease", type=float, help="seconds a claim is held")
        parser.add_argument("--batch", type=int, help="events claimed per pass")
        parser.add_argument("--poll-interval", type=float, help="seconds between empty polls")

    def handle(self, *args: Any, **options: Any) -> None:
        """Run the worker."""
        conf = get_settings()
        # The worker stands for the webhook views it serves: W001 is said here, not on
        # every manage.py command.
        for warning in check_webhook_secret():
            if not warning.is_silenced():
                self.stderr.write(str(warning))
        path = options["handler"] or conf.handler
        if not path and not conf.on_sale:
            raise CommandError(message("django.worker_no_handler"))
        source = "--handler" if options["handler"] else "SMARTPOS['HANDLER']"
        worker_options = dict(conf.worker_options)
        try:
            handler = _import_handler(path, source) if path else None
            if conf.on_sale:
                worker_options["on_sale"] = _import_handler(conf.on_sale, "SMARTPOS['ON_SALE']")
        except _HandlerImportError as exc:
            raise CommandError(str(exc) if exc.hint is None else f"{exc} ({exc.hint})") from exc
        for name in ("lease", "batch", "poll_interval"):
            if options[name] is not None:
                worker_options[name] = options[name]
        alias = _django_store_alias()
        if alias is not None:
            for problem in check_store_tables(databases=[alias]):
                raise CommandError(f"{problem.msg} ({problem.hint})")
        store = get_store()
        try:
            if handler is not None and _is_async(handler):
                processed = asyncio.run(self._run_async(store, handler, worker_options, options))
            else:
                processed = self._run(store, handler, worker_options, options)
        except ValueError as exc:
            raise CommandError(message("django.worker_bad_options", problem=exc)) from exc
        if options["once"]:
            self.stdout.write(f"smartpos_worker: {processed} event(s) processed")

    def _run(
        self, store: Any, handler: Any, worker_options: dict[str, Any], options: dict[str, Any]
    ) -> int:
        # A store that runs the handler in its transaction checks connections before each
        # event's transaction itself: closing one inside it would break the transaction.
        transactional = getattr(store, "_handler_transaction", None) is not None
        worker = Worker(
            store,
            handler if transactional or handler is None else _with_fresh_connections(handler),
            install_signal_handlers=not options["once"],
            **worker_options,
        )
        if options["once"]:
            processed = 0
            while (count := worker.run_once()) > 0:
                processed += count
            return processed
        self.stdout.write(f"smartpos_worker {worker.owner}: processing {store!r}")
        worker.run()
        return 0

    async def _run_async(
        self, store: Any, handler: Any, worker_options: dict[str, Any], options: dict[str, Any]
    ) -> int:
        worker = AsyncWorker(store, handler, **worker_options)
        if options["once"]:
            processed = 0
            while (count := await worker.run_once()) > 0:
                processed += count
            return processed
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, worker.stop)
        self.stdout.write(f"smartpos_worker {worker.owner}: processing {store!r}")
        await worker.run()
        return 0
