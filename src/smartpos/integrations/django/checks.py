"""System checks of the ``SMARTPOS`` setting (``manage.py check``, and every ``runserver``).

=================  ========================================================================
Id                 Problem
=================  ========================================================================
smartpos.E001      ``SMARTPOS`` is not a dict, or a value has the wrong type
smartpos.E002      an unknown key (a typo such as ``WEBHOOK_SECRETS`` would turn checks off)
smartpos.E003      no ``STORE``: the webhook views and the worker have nowhere to keep events
smartpos.E004      ``STORE`` is unusable (an unknown scheme, an SQLite folder that is missing)
smartpos.E005      ``HANDLER`` cannot be imported or is not callable
smartpos.W001      no ``WEBHOOK_SECRET`` nor ``WEBHOOK_VERIFIER``: anyone can post events
smartpos.W002      ``STORE`` is ``memory://``: events are lost at every restart
smartpos.W003      no API key or base URL anywhere: ``get_client()`` will fail
smartpos.W010      (``--deploy``) a Redis setting breaks the inbox's guarantees
                   (``appendonly``, ``appendfsync``, ``maxmemory-policy``)
smartpos.W011      (``--deploy``) the Redis settings could not be read
=================  ========================================================================

Silence one with ``SILENCED_SYSTEM_CHECKS = ["smartpos.W001"]`` (development only).
"""

from __future__ import annotations

import difflib
import logging
import os
from collections.abc import Sequence
from typing import Any

from django.core.checks import CheckMessage, Error, Warning
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from smartpos._errors import ConfigurationError
from smartpos.integrations._stores import sqlite_path, store_scheme

from .conf import KEYS, get_settings, raw_settings, unknown_keys

__all__ = ["check_settings", "check_store_server"]


def _suggest(key: str) -> str:
    close = difflib.get_close_matches(key, list(KEYS), n=1)
    return f"did you mean {close[0]!r}? " if close else ""


def check_settings(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Check ``settings.SMARTPOS`` without connecting anywhere."""
    try:
        raw = raw_settings()
    except ImproperlyConfigured as exc:
        return [Error(str(exc), id="smartpos.E001")]
    messages: list[CheckMessage] = [
        Error(
            f"SMARTPOS has an unknown key {key!r}",
            hint=f"{_suggest(key)}The keys are: {', '.join(sorted(KEYS))}.",
            id="smartpos.E002",
        )
        for key in unknown_keys(raw)
    ]
    if messages:
        return messages
    try:
        conf = get_settings()
    except ImproperlyConfigured as exc:
        return [Error(str(exc), id="smartpos.E001")]
    messages += _check_store(conf.store)
    if conf.handler is not None:
        messages += _check_handler(conf.handler)
    if conf.webhook_secret is None and conf.webhook_verifier is None:
        messages.append(
            Warning(
                "SMARTPOS has no WEBHOOK_SECRET: the webhook view accepts events from anyone "
                "who finds its URL",
                hint="Set SMARTPOS['WEBHOOK_SECRET'] and send it in the x-webhook-secret "
                "header (partner portal or reverse proxy), or set WEBHOOK_VERIFIER.",
                id="smartpos.W001",
            )
        )
    if not (conf.api_key or os.environ.get("SMARTPOS_API_KEY")) or not (
        conf.base_url or os.environ.get("SMARTPOS_BASE_URL")
    ):
        messages.append(
            Warning(
                "no smartpos API key or base URL: get_client() and get_async_client() will "
                "raise ConfigurationError",
                hint="Set SMARTPOS['API_KEY'] and SMARTPOS['BASE_URL'], or the environment "
                "variables SMARTPOS_API_KEY and SMARTPOS_BASE_URL.",
                id="smartpos.W003",
            )
        )
    return messages


def _check_store(store: object) -> list[CheckMessage]:
    if store is None or store == "":
        return [
            Error(
                "SMARTPOS['STORE'] is not set: the webhook views and smartpos_worker need an inbox",
                hint="e.g. 'sqlite:////var/lib/shop/smartpos-inbox.sqlite3' on one host, "
                "'redis://...' or 'postgresql://...' for several.",
                id="smartpos.E003",
            )
        ]
    if not isinstance(store, (str, os.PathLike)):
        return []  # a store object, built by the settings themselves
    try:
        scheme = store_scheme(store)
        if scheme == "sqlite":
            folder = sqlite_path(store).resolve().parent
            if not folder.is_dir():
                return [
                    Error(
                        f"the folder of the SQLite inbox does not exist: {folder}",
                        hint="Create it, or point SMARTPOS['STORE'] at a folder that exists "
                        "on a local disk.",
                        id="smartpos.E004",
                    )
                ]
    except ConfigurationError as exc:
        return [Error(f"SMARTPOS['STORE']: {exc}", id="smartpos.E004")]
    if scheme == "memory":
        return [
            Warning(
                "SMARTPOS['STORE'] is memory://: events acknowledged to the service are lost "
                "at every restart and not shared between processes",
                hint="Use it in tests only; an SQLite file, Redis or PostgreSQL in production.",
                id="smartpos.W002",
            )
        ]
    return []


def _check_handler(path: str) -> list[CheckMessage]:
    try:
        handler = import_string(path)
    except ImportError as exc:
        return [
            Error(
                f"SMARTPOS['HANDLER'] cannot be imported: {exc}",
                hint="Give the dotted path of a function: 'shop.payments.handle_event'.",
                id="smartpos.E005",
            )
        ]
    if not callable(handler):
        return [Error(f"SMARTPOS['HANDLER'] {path!r} is not callable", id="smartpos.E005")]
    return []


class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return False


def check_store_server(
    app_configs: Sequence[Any] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """``check --deploy``: ask a Redis inbox's server whether it keeps what it acknowledged.

    Reuses ``RedisStore``'s own start-up check of persistence and eviction settings.
    """
    try:
        store = get_settings().store
    except ImproperlyConfigured:
        return []  # reported by check_settings
    if not isinstance(store, str):
        return []
    try:
        if store_scheme(store) not in ("redis", "rediss", "unix"):
            return []
    except ConfigurationError:
        return []
    try:
        import redis

        from smartpos.webhooks._redis import _SETTINGS_ADVICE, check_redis_settings
    except ImportError:
        return [
            Error(
                "SMARTPOS['STORE'] is a Redis URL but the redis package is missing",
                hint="pip install 'smartpos[redis]'",
                id="smartpos.E004",
            )
        ]
    client = redis.Redis.from_url(store, socket_timeout=5, socket_connect_timeout=5)
    logger = logging.getLogger("smartpos.webhooks")
    quiet = _Quiet()
    logger.addFilter(quiet)  # the check messages below say it once, in Django's words
    try:
        client.ping()
        client.config_get("appendonly")  # refused on managed Redis that disables CONFIG
        broken = check_redis_settings(client)
    except redis.exceptions.RedisError as exc:
        return [
            Warning(
                f"could not check the Redis inbox's settings: {type(exc).__name__}",
                hint="Check appendonly yes, appendfsync everysec (or always) and "
                "maxmemory-policy noeviction with your provider.",
                id="smartpos.W011",
            )
        ]
    finally:
        logger.removeFilter(quiet)
        client.close()
    return [
        Warning(
            f"the Redis inbox's setting {name} breaks its guarantees: {_SETTINGS_ADVICE[name][1]}",
            hint=f"Set {name} to {' or '.join(_SETTINGS_ADVICE[name][0])} in redis.conf.",
            id="smartpos.W010",
        )
        for name in broken
    ]
