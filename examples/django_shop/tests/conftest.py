"""The shop's tests: Django set up on its settings, the database migrated, and smartpos's
pytest plugin (installed with smartpos) giving each test a fresh sandbox of the service.

    cd examples/django_shop && python -m pytest tests          # SQLite (DJANGO_DB, or shop.sqlite3)
    SHOP_POSTGRES_NAME=shop_test python -m pytest tests        # PostgreSQL

The database must be one the tests may write (they create orders); the receiver and the
worker use the shop's own DjangoStore, as in production.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import django
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
django.setup()


@pytest.fixture(scope="session", autouse=True)
def database() -> None:
    """The shop's orders and smartpos's tables, made by the migrations as in production."""
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


@pytest.fixture
def shop(smartpos_sandbox: Any) -> Iterator[Any]:
    """The shop talking to the sandbox (in process), which delivers to the shop's receiver.

    Yields the sandbox: script the terminal (``script_payments``), then run the worker
    (``manage.py smartpos_worker --once``) to apply what was delivered.
    """
    from django.conf import settings
    from django.test import override_settings

    from smartpos.integrations.django import close_all, get_store
    from smartpos.testing import Sandbox
    from smartpos.webhooks import WebhookReceiver

    values = {
        **settings.SMARTPOS,
        "API_KEY": Sandbox.API_KEY,
        "BASE_URL": "http://sandbox.test",
        "CLIENT_OPTIONS": {"transport": smartpos_sandbox.transport(), "retry_backoff": 0},
    }
    with override_settings(SMARTPOS=values):
        smartpos_sandbox.set_webhook(WebhookReceiver(get_store()))
        # The in-process sandbox would deliver inside the async view's request, where Django
        # allows no database call; a real service delivers apart: held here, delivered by
        # the test (work() in test_orders.py).
        smartpos_sandbox.hold_events()
        try:
            yield smartpos_sandbox
        finally:
            close_all()
