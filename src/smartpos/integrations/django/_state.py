"""What a Django process builds once from ``SMARTPOS``: clients, the store, the receiver.

Every object is built on first use (never at import, so ``manage.py`` commands that do not
need them never connect anywhere) and kept for the life of the process; a change of
``SMARTPOS`` (``override_settings`` in tests) forgets them.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ImproperlyConfigured

from smartpos.integrations._receive import AsyncReceive, build_receiver
from smartpos.webhooks import open_store

from .conf import get_settings

if TYPE_CHECKING:
    from smartpos import AsyncClient, Client
    from smartpos.webhooks import Store, WebhookReceiver

__all__ = [
    "close_all",
    "get_async_client",
    "get_async_receive",
    "get_client",
    "get_receiver",
    "get_store",
    "on_setting_changed",
]

_lock = threading.RLock()
_logger = logging.getLogger("smartpos.django")
_client: Client | None = None
_async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncClient] = (
    weakref.WeakKeyDictionary()
)
_store: Store | None = None
_owns_store = False
_receiver: WebhookReceiver | None = None
_async_receive: AsyncReceive | None = None


def get_client() -> Client:
    """The process's ``smartpos.Client``, built from ``SMARTPOS`` on first use.

    Thread-safe; share it across requests (it holds the connection pool). Do not close it.

    Raises:
        smartpos.ConfigurationError: No API key or base URL (neither in ``SMARTPOS`` nor in
            the environment), or a bad ``CLIENT_OPTIONS``.
    """
    global _client
    with _lock:
        if _client is None:
            import smartpos

            conf = get_settings()
            _client = smartpos.Client(
                api_key=conf.api_key, base_url=conf.base_url, **_with_store(conf)
            )
        return _client


def get_async_client() -> AsyncClient:
    """The ``smartpos.AsyncClient`` of the running event loop, for ``async def`` views.

    An ``httpx.AsyncClient`` belongs to the loop it first ran on: under an ASGI server there
    is one loop, so one client per process; when Django runs an async view from WSGI (a new
    loop per request) each loop gets its own.

    Raises:
        RuntimeError: Called outside a running event loop: use ``get_client()`` there.
        smartpos.ConfigurationError: As for `get_client`.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        raise RuntimeError(
            "get_async_client() is for async views and tasks; in sync code use get_client()"
        ) from None
    with _lock:
        client = _async_clients.get(loop)
        if client is None:
            import smartpos

            conf = get_settings()
            client = smartpos.AsyncClient(
                api_key=conf.api_key, base_url=conf.base_url, **_with_store(conf)
            )
            _async_clients[loop] = client
        return client


def _with_store(conf: Any) -> dict[str, Any]:
    # With a STORE, the clients journal their operations in it (create_and_wait, wait,
    # reconcile, and smartpos_reconcile after a crash); CLIENT_OPTIONS may name its own.
    options = dict(conf.client_options)
    if "store" not in options and conf.store not in (None, ""):
        from smartpos.webhooks._journal import JournalBase

        store = get_store()
        if isinstance(store, JournalBase):
            options["store"] = store
    return options


def get_store() -> Store:
    """The webhook inbox ``SMARTPOS["STORE"]`` names, opened on first use.

    Raises:
        ImproperlyConfigured: ``STORE`` is missing or unusable.
    """
    global _store, _owns_store
    with _lock:
        if _store is None:
            conf = get_settings()
            try:
                setting = conf.store_setting
                _store = open_store(setting, conf.store_options)
                _owns_store = _store is not setting
            except ImproperlyConfigured:
                raise
            except Exception as exc:
                raise ImproperlyConfigured(f"SMARTPOS['STORE']: {exc}") from exc
        return _store


def get_receiver() -> WebhookReceiver:
    """The ``WebhookReceiver`` of the webhook views, on `get_store`'s inbox."""
    global _receiver
    with _lock:
        if _receiver is None:
            conf = get_settings()
            if conf.webhook_secret is None and conf.webhook_verifier is None:
                # smartpos.W001 where it matters: the views are serving deliveries now.
                _logger.warning(
                    "smartpos.W001: the webhook view accepts events from anyone who finds its "
                    "URL: SMARTPOS has no WEBHOOK_SECRET nor WEBHOOK_VERIFIER"
                )
            try:
                _receiver = build_receiver(
                    get_store(),
                    secret=conf.webhook_secret,
                    secret_header=conf.webhook_secret_header,
                    verifier=conf.webhook_verifier,
                    scheme=conf.webhook_scheme,
                    scheme_options=conf.webhook_scheme_options,
                    options=conf.receiver_options,
                )
            except ValueError as exc:  # ConfigurationError
                raise ImproperlyConfigured(f"SMARTPOS: {exc}") from exc
        return _receiver


def get_async_receive() -> AsyncReceive:
    """The receiver's event-loop front end, for the async webhook view."""
    global _async_receive
    with _lock:
        if _async_receive is None or _async_receive.receiver is not get_receiver():
            _async_receive = AsyncReceive(get_receiver())
        return _async_receive


def close_all() -> None:
    """Close the sync client and the store opened here, and forget them (tests, shutdown).

    Async clients are dropped, not closed: their loops may be gone. Close one yourself with
    ``await get_async_client().close()`` on its loop when you need to.
    """
    global _client, _store, _receiver, _async_receive
    with _lock:
        client, store = _client, _store if _owns_store else None
        _client = _store = _receiver = _async_receive = None
        _async_clients.clear()
    if client is not None:
        client.close()
    if store is not None:
        store.close()


def on_setting_changed(*, setting: str, **kwargs: Any) -> None:
    """Forget what was built from ``SMARTPOS`` when a test overrides it."""
    if setting == "SMARTPOS":
        close_all()
