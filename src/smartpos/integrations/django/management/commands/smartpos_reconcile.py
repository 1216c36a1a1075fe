"""``python manage.py smartpos_reconcile``: settle the operations a crash left open.

Lists the journal's waiting operations (``store.operations(final=False)``: states
``sending``, ``accepted``, ``unknown``) and reconciles each ``sending``/``unknown`` one with
``client.reconcile``: its journaled request is resent byte for byte with the same referencia,
so a payment is never charged twice. Run it at start-up (before the web workers take
traffic) or from a periodic job; ``--wait SECONDS`` then waits for each operation's event.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from smartpos.integrations.django._state import get_client, get_store

__all__ = ["Command"]


class Command(BaseCommand):
    """Reconcile the smartpos operations still waiting for an outcome."""

    help = (
        "Resend, byte for byte and with the same referencia, every journaled operation whose "
        "answer was lost (sending, unknown), then optionally wait for the events."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """``--limit`` and ``--wait``."""
        parser.add_argument("--limit", type=int, default=1000, help="at most this many")
        parser.add_argument(
            "--wait",
            type=float,
            default=0.0,
            metavar="SECONDS",
            help="then wait this long for each open operation's event (default: do not wait)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Reconcile each open operation; report the ones still unknown."""
        import smartpos

        store = get_store()
        operations = getattr(store, "operations", None)
        if operations is None:
            raise CommandError(f"{store!r} keeps no outcome journal")
        client = get_client()
        unsettled = 0
        waiting = operations(final=False, limit=options["limit"])
        for operation in waiting:
            state = operation.state
            if state in ("sending", "unknown"):
                try:
                    state = client.reconcile(operation.referencia).state
                except smartpos.OutcomeUnknownError:
                    state = "unknown"
            if options["wait"] > 0 and state == "accepted":
                try:
                    event = client.wait(operation.referencia, timeout=options["wait"])
                except smartpos.OutcomePendingError:
                    pass
                else:
                    state = f"final ({event.tipo})"
            if state == "unknown":
                unsettled += 1
            self.stdout.write(f"{operation.kind} {operation.referencia}: {state}")
        self.stdout.write(
            f"smartpos_reconcile: {len(waiting)} open operation(s), {unsettled} still unknown"
        )
        if unsettled:
            raise CommandError(
                f"{unsettled} operation(s) still unknown: run smartpos_reconcile again later; "
                "never charge them again with a new referencia"
            )
