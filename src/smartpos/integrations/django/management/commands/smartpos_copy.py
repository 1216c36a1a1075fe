"""``python manage.py smartpos_copy --from STORE_URL [--to django://ALIAS] [--dry-run]``.

Copies an inbox (events in every state, with their attempts, errors and times), the outcome
journal and the sales of any store into a ``DjangoStore``: the move from ``SQLiteStore``,
``PostgresStore`` or ``RedisStore`` to the project's own database. ``--from`` is a store
URL as ``SMARTPOS["STORE"]`` takes it (``sqlite:///path``, ``postgresql://...``,
``redis://...``); ``--to`` defaults to ``SMARTPOS["STORE"]`` when it is ``django://ALIAS``,
else ``django://default``. The destination must be migrated (``manage.py migrate``).

Only what the destination lacks is inserted, so running it twice copies nothing twice; it
prints the counts (``--dry-run``: what it would copy, writing nothing). Stop the workers and
web processes on the source first, copy, then start them on the destination (see
``smartpos.integrations.django._copy`` for what is kept of each row).
"""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from smartpos._errors import SmartPOSError
from smartpos._messages import message

__all__ = ["Command"]


def _destination_alias(to: str | None) -> str:
    from django.db import connections

    from smartpos.integrations.django.checks import _django_store_alias
    from smartpos.webhooks._open import django_alias, store_scheme

    if to is None:
        alias = _django_store_alias() or "default"
    else:
        try:
            scheme = store_scheme(to)
        except SmartPOSError as exc:
            raise CommandError(message("django.copy_not_django", to=to)) from exc
        if scheme != "django":
            raise CommandError(message("django.copy_not_django", to=to))
        alias = django_alias(to)
    if alias not in connections.settings:
        raise CommandError(
            message("django.check_store_alias", store=f"django://{alias}", alias=alias)
            + " ("
            + message(
                "django.check_store_alias_hint",
                aliases=", ".join(sorted(connections.settings)),
            )
            + ")"
        )
    return alias


class Command(BaseCommand):
    """Copy a store's inbox, journal and sales into a DjangoStore."""

    help = (
        "Copy the events (every state), the outcome journal and the sales of a store "
        "(--from sqlite:///..., postgresql://..., redis://...) into a DjangoStore "
        "(--to django://ALIAS); only what is absent there, so it can run again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """``--from``, ``--to`` and ``--dry-run``."""
        parser.add_argument(
            "--from",
            dest="source",
            required=True,
            metavar="STORE_URL",
            help="the store to copy from: sqlite:///path, postgresql://..., redis://...",
        )
        parser.add_argument(
            "--to",
            metavar="django://ALIAS",
            help="the DjangoStore to copy into (default: SMARTPOS['STORE'], or django://default)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="count what would be copied, write nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Open both stores, copy, print the counts."""
        from django.db import DatabaseError

        from smartpos.integrations.django import DjangoStore
        from smartpos.integrations.django._copy import copy_store
        from smartpos.integrations.django.checks import unapplied_migrations
        from smartpos.webhooks._open import open_store, store_scheme
        from smartpos.webhooks._store import StoreBase

        alias = _destination_alias(options["to"])
        try:
            missing = unapplied_migrations(alias)
        except DatabaseError as exc:
            raise CommandError(f"smartpos_copy: database {alias!r}: {exc}") from exc
        if missing:
            raise CommandError(
                message("django.check_store_migrations", alias=alias, missing=", ".join(missing))
                + " ("
                + message("django.check_store_migrations_hint", alias=alias)
                + ")"
            )
        url = options["source"]
        try:
            same = store_scheme(url) == "django" and _destination_alias(url) == alias
        except SmartPOSError as exc:
            raise CommandError(f"smartpos_copy: --from: {exc}") from exc
        if same:
            raise CommandError(message("django.copy_same_store", alias=alias))
        try:
            source = open_store(url)
        except SmartPOSError as exc:
            raise CommandError(f"smartpos_copy: --from: {exc}") from exc
        name = _safe_name(url)
        if not isinstance(source, StoreBase):  # a store object of the partner's own
            source.close()
            raise CommandError(message("django.copy_not_a_store", source=name))
        destination = DjangoStore(alias)
        try:
            report = copy_store(source, destination, dry_run=options["dry_run"])
        except SmartPOSError as exc:
            raise CommandError(message("django.copy_failed", source=name, problem=exc)) from exc
        finally:
            source.close()
            destination.close()
        verb = "would copy" if options["dry_run"] else "copied"
        states = ", ".join(f"{count} {state}" for state, count in sorted(report.events.items()))
        self.stdout.write(
            f"smartpos_copy: {name} -> django://{alias}"
            + (" (dry run: nothing written)" if options["dry_run"] else "")
        )
        self.stdout.write(
            f"  events: {verb} {sum(report.events.values())}"
            + (f" ({states})" if states else "")
            + f", {report.events_present} already there"
        )
        self.stdout.write(
            f"  operations: {verb} {report.operations}, {report.operations_present} already there"
        )
        self.stdout.write(f"  sales: {verb} {report.sales}, {report.sales_present} already there")
        if report.events_differing:
            self.stderr.write(
                message(
                    "django.copy_differing",
                    count=len(report.events_differing),
                    ids=", ".join(report.events_differing[:20]),
                )
            )


def _safe_name(url: str) -> str:
    """The source without a password (``postgresql://user:***@host/db``)."""
    from urllib.parse import urlsplit

    if "://" not in url:
        return os.fspath(url)
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()
