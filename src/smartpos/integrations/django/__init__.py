"""smartpos in Django: settings, webhook views, checks, a worker command, shared clients.

Install with ``pip install "smartpos[django]"``, then in ``settings.py``::

    INSTALLED_APPS = [..., "smartpos.integrations.django"]
    SMARTPOS = {
        "STORE": "sqlite:////var/lib/shop/smartpos-inbox.sqlite3",
        "WEBHOOK_SECRET": os.environ["SMARTPOS_WEBHOOK_SECRET"],
        "HANDLER": "shop.payments.handle_event",
    }   # API_KEY and BASE_URL default to env SMARTPOS_API_KEY / SMARTPOS_BASE_URL

in ``urls.py``::

    path("webhooks/smartpos/", include("smartpos.integrations.django.urls")),

and run ``python manage.py smartpos_worker`` beside the web server. In views, use
`get_client` (sync) or ``await``-able `get_async_client` (``async def`` views):
both are built once per process. ``manage.py check`` reports a missing ``STORE``, an unknown
key, no webhook secret; ``check --deploy`` also asks Redis whether its persistence settings
keep the events it acknowledged.

Importing this module needs Django, but not configured settings: nothing is read or built
until it is used.
"""

from __future__ import annotations

try:
    import django  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "smartpos.integrations.django needs Django: pip install 'smartpos[django]'"
    ) from exc

from ._state import (
    close_all,
    get_async_client,
    get_client,
    get_receiver,
    get_store,
)
from ._store import DjangoStore
from .conf import SmartPOSSettings, get_settings

__all__ = [
    "DjangoStore",
    "SmartPOSSettings",
    "close_all",
    "get_async_client",
    "get_client",
    "get_receiver",
    "get_settings",
    "get_store",
]
