"""``python manage.py smartpos_migrate``: create or upgrade a PostgreSQL inbox's schema.

``PostgresStore`` never changes its schema on its own (``store.migrate()`` is explicit and
safe to run from several processes at once): run this at deploy time, beside ``migrate``.
The other stores need nothing; the command says so.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from smartpos.integrations.django._state import get_store

__all__ = ["Command"]


class Command(BaseCommand):
    """Migrate the smartpos inbox's schema (PostgreSQL only)."""

    help = "Create or upgrade the schema of a PostgreSQL smartpos inbox (SMARTPOS['STORE'])."

    def handle(self, *args: Any, **options: Any) -> None:
        """Run ``store.migrate()`` when the store has one."""
        store = get_store()
        migrate = getattr(store, "migrate", None)
        if migrate is None:
            self.stdout.write(f"smartpos_migrate: {store!r} needs no migration")
            return
        migrate()
        self.stdout.write(f"smartpos_migrate: {store!r} is up to date")
