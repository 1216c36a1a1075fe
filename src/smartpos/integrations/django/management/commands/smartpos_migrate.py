"""``python manage.py smartpos_migrate``: create or upgrade a PostgreSQL inbox's schema.

``PostgresStore`` never changes its schema on its own (``store.migrate()`` is explicit and
safe to run from several processes at once): run this at deploy time, beside ``migrate``.
The other stores need nothing; the command says so. It prints the schema versions it applied
(only once they committed), or that the schema was already current; a failure is a
``CommandError`` (its message, no traceback, exit status 1), after which nothing changed.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from smartpos._errors import SmartPOSError
from smartpos.integrations.django._state import get_store

__all__ = ["Command"]


class Command(BaseCommand):
    """Migrate the smartpos inbox's schema (PostgreSQL only)."""

    help = "Create or upgrade the schema of a PostgreSQL smartpos inbox (SMARTPOS['STORE'])."

    def handle(self, *args: Any, **options: Any) -> None:
        """Run ``store.migrate()`` when the store has one."""
        try:
            store = get_store()
        except SmartPOSError as exc:
            raise CommandError(f"smartpos_migrate: cannot open the store: {exc}") from exc
        migrate = getattr(store, "migrate", None)
        if migrate is None:
            self.stdout.write(f"smartpos_migrate: {store!r} needs no migration")
            return
        # PostgresStore says which versions the run applied; another store's migrate() only
        # answers the version in place.
        steps = getattr(store, "_migrate", None)
        try:
            version, applied = steps() if steps is not None else (migrate(), None)
        except SmartPOSError as exc:
            raise CommandError(
                f"smartpos_migrate: {store!r} could not be migrated, nothing was changed: {exc}"
            ) from exc
        if applied:
            done = ", ".join(map(str, applied))
            self.stdout.write(
                f"smartpos_migrate: {store!r} migrated to schema version {version} (applied {done})"
            )
        elif applied is None:
            self.stdout.write(f"smartpos_migrate: {store!r} is at schema version {version}")
        else:
            self.stdout.write(
                f"smartpos_migrate: {store!r} is up to date (schema version {version})"
            )
