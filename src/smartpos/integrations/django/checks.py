"""System checks of the ``SMARTPOS`` setting (``manage.py check``, and every ``runserver``).

=================  ========================================================================
Id                 Problem
=================  ========================================================================
smartpos.E001      ``SMARTPOS`` is not a dict, or a value has the wrong type
smartpos.E002      an unknown key (a typo such as ``WEBHOOK_SECRETS`` would turn checks off)
smartpos.E003      no ``STORE``: the webhook views and the worker have nowhere to keep events
smartpos.E004      ``STORE`` is unusable (an unknown scheme, an SQLite folder that is missing)
smartpos.E005      ``HANDLER`` or ``ON_SALE`` cannot be imported or is not callable
smartpos.E006      the webhook verification settings cannot build a verifier (an unknown
                   ``WEBHOOK_SCHEME``, its options, its key material, a secret and a
                   ``WEBHOOK_VERIFIER`` together)
smartpos.E007      ``STORE`` is ``django://ALIAS`` and ``DATABASES`` has no such alias
smartpos.E008      (``check --database ALIAS``, ``smartpos_worker``, ``smartpos_copy``) the
                   tables of ``DjangoStore`` are not migrated on its alias, or only partly (an
                   upgrade's new migration): the message names the migrations, the hint the
                   command
smartpos.W001      (``--deploy``, and ``smartpos_worker``) no ``WEBHOOK_SECRET`` nor
                   ``WEBHOOK_VERIFIER``: anyone can post events
smartpos.W002      ``STORE`` is ``memory://``: events are lost at every restart
smartpos.W003      no API key or base URL anywhere: ``get_client()`` will fail
smartpos.W010      (``--deploy``) a Redis setting breaks the inbox's guarantees
                   (``appendonly``, ``appendfsync``, ``maxmemory-policy``)
smartpos.W011      (``--deploy``) the Redis settings could not be read
=================  ========================================================================

Silence one with ``SILENCED_SYSTEM_CHECKS = ["smartpos.W001"]`` (development only).

W001 matters where webhooks are received, not on every ``manage.py`` command (``shell``,
``migrate``): it is a deployment check, which ``smartpos_worker`` also runs, and the webhook
views log it when they first serve a delivery. The messages follow ``SMARTPOS_LANG``.
"""

from __future__ import annotations

import difflib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

from django.core.checks import CheckMessage, Error, Warning
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from smartpos._errors import ConfigurationError
from smartpos._messages import message
from smartpos.integrations._receive import build_verifier
from smartpos.webhooks._open import django_alias, sqlite_path, store_scheme

from .conf import KEYS, get_settings, raw_settings, unknown_keys

__all__ = [
    "check_settings",
    "check_store_server",
    "check_store_tables",
    "check_webhook_secret",
    "unapplied_migrations",
]

_REDIS_SETTING_KEYS = {
    "appendonly": "django.check_redis_setting.appendonly",
    "appendfsync": "django.check_redis_setting.appendfsync",
    "maxmemory-policy": "django.check_redis_setting.maxmemory-policy",
}


def _suggest(key: str) -> str:
    close = difflib.get_close_matches(key, list(KEYS), n=1)
    return message("django.check_did_you_mean", key=close[0]) if close else ""


def check_settings(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Check ``settings.SMARTPOS`` without connecting anywhere."""
    try:
        raw = raw_settings()
    except ImproperlyConfigured as exc:
        return [Error(str(exc), id="smartpos.E001")]
    messages: list[CheckMessage] = [
        Error(
            message("django.check_unknown_key", key=key),
            hint=message(
                "django.check_unknown_key_hint",
                suggestion=_suggest(key),
                keys=", ".join(sorted(KEYS)),
            ),
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
    for key, path in (("HANDLER", conf.handler), ("ON_SALE", conf.on_sale)):
        if path is not None:
            messages += _check_handler(path, key)
    messages += _check_verifier(conf)
    if not (conf.api_key or os.environ.get("SMARTPOS_API_KEY")) or not (
        conf.base_url or os.environ.get("SMARTPOS_BASE_URL")
    ):
        messages.append(
            Warning(
                message("django.check_no_client"),
                hint=message("django.check_no_client_hint"),
                id="smartpos.W003",
            )
        )
    return messages


def check_webhook_secret(
    app_configs: Sequence[Any] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """W001, where deliveries are received: ``check --deploy`` and ``smartpos_worker``.

    Not on every command: a development shell or a migration has nothing to protect.
    """
    try:
        if not _unprotected(get_settings()):
            return []
    except ImproperlyConfigured:
        return []  # reported by check_settings
    return [
        Warning(
            message("django.check_no_secret"),
            hint=message("django.check_no_secret_hint"),
            id="smartpos.W001",
        )
    ]


def _check_verifier(conf: Any) -> list[CheckMessage]:
    try:
        build_verifier(
            secret=conf.webhook_secret,
            secret_header=conf.webhook_secret_header,
            verifier=conf.webhook_verifier,
            scheme=conf.webhook_scheme,
            scheme_options=conf.webhook_scheme_options,
        )
    except ConfigurationError as exc:
        return [
            Error(
                message("django.check_verifier", problem=exc),
                hint=message("django.check_verifier_hint"),
                id="smartpos.E006",
            )
        ]
    return []


def _unprotected(conf: Any) -> bool:
    return conf.webhook_secret is None and conf.webhook_verifier is None


def _check_store(store: object) -> list[CheckMessage]:
    if store is None or store == "":
        return [
            Error(
                message("django.check_no_store"),
                hint=message("django.check_no_store_hint"),
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
                        message("django.check_no_folder", folder=folder),
                        hint=message("django.check_no_folder_hint"),
                        id="smartpos.E004",
                    )
                ]
        if scheme == "django":
            return _check_alias(store)
    except ConfigurationError as exc:
        return [Error(f"SMARTPOS['STORE']: {exc}", id="smartpos.E004")]
    if scheme == "memory":
        return [
            Warning(
                message("django.check_memory_store"),
                hint=message("django.check_memory_store_hint"),
                id="smartpos.W002",
            )
        ]
    return []


def _check_alias(store: str | os.PathLike[str]) -> list[CheckMessage]:
    from django.db import connections

    alias = django_alias(store)
    if alias in connections.settings:
        return []
    return [
        Error(
            message("django.check_store_alias", store=os.fspath(store), alias=alias),
            hint=message(
                "django.check_store_alias_hint", aliases=", ".join(sorted(connections.settings))
            ),
            id="smartpos.E007",
        )
    ]


def _django_store_alias() -> str | None:
    """The alias of a ``django://`` STORE (or a DjangoStore object), else ``None``."""
    try:
        store = get_settings().store
    except ImproperlyConfigured:
        return None
    from ._store import DjangoStore

    if isinstance(store, DjangoStore):
        return store.using
    try:
        if isinstance(store, (str, os.PathLike)) and store_scheme(store) == "django":
            return django_alias(store)
    except ConfigurationError:
        pass
    return None


def check_store_tables(
    app_configs: Sequence[Any] | None = None,
    databases: Sequence[str] | None = None,
    **kwargs: Any,
) -> list[CheckMessage]:
    """E008: a ``DjangoStore``'s tables are not migrated (a database check: it connects).

    Run by ``check --database ALIAS`` and by ``smartpos_worker`` and ``smartpos_copy``
    before they start; not by ``migrate``'s own checks (``_migrating``).
    """
    from django.db import DatabaseError, connections

    alias = _django_store_alias()
    if alias is None or alias not in connections.settings:
        return []
    if not databases or alias not in databases:
        return []  # as Django's own database checks: only when asked to connect
    if _migrating():
        return []  # migrate runs the database checks first, then creates these very tables
    try:
        missing = unapplied_migrations(alias)
    except DatabaseError as exc:
        return [Error(f"SMARTPOS['STORE'] ({alias!r}): {exc}", id="smartpos.E008")]
    if not missing:
        return []
    return [
        Error(
            message("django.check_store_migrations", alias=alias, missing=", ".join(missing)),
            hint=message("django.check_store_migrations_hint", alias=alias),
            id="smartpos.E008",
        )
    ]


def _migrating() -> bool:
    """Whether Django's ``migrate`` command (or a subclass) is running these checks.

    ``migrate`` runs the checks tagged ``database`` on its database before it migrates
    (``self.check(databases=[database])``): E008 there would refuse the very command its
    hint names. No argument of the checks tells ``migrate`` from ``check --database``; the
    command's own frame on the stack does.
    """
    from django.core.management.commands.migrate import Command as Migrate

    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if isinstance(frame.f_locals.get("self"), Migrate):
            return True
        frame = frame.f_back
    return False


def unapplied_migrations(alias: str) -> list[str]:
    """The app's migrations not applied on ``alias`` (``["0002_..."]``), in order.

    None applied, or only some (an upgrade whose ``migrate`` was not run): either way
    ``DjangoStore`` would fail there.

    Raises:
        django.db.DatabaseError: The database cannot be read.
    """
    from django.db import connections
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connections[alias])
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes("smartpos"))
    return [migration.name for migration, backwards in plan if not backwards]


class _HandlerImportError(ImproperlyConfigured):
    """A dotted path (``HANDLER``, ``ON_SALE``, ``--handler``) names nothing callable.

    Attributes:
        hint: What to do, or ``None``.
    """

    def __init__(self, msg: str, hint: str | None = None) -> None:
        super().__init__(msg)
        self.hint = hint


def _import_handler(path: str, source: str) -> Callable[..., Any]:
    """The callable at the dotted ``path``; ``source`` names where it was given.

    The system checks (E005) and ``smartpos_worker`` import ``HANDLER`` and ``ON_SALE``
    through it; ``source`` is ``SMARTPOS['HANDLER']``, ``SMARTPOS['ON_SALE']`` or
    ``--handler``.

    Raises:
        _HandlerImportError: ``path`` cannot be imported, or is not callable.
    """
    try:
        handler = import_string(path)
    except ImportError as exc:
        raise _HandlerImportError(
            message("django.check_handler_import", problem=exc, source=source),
            hint=message("django.check_handler_import_hint"),
        ) from exc
    if not callable(handler):
        raise _HandlerImportError(
            message("django.check_handler_not_callable", path=path, source=source)
        )
    return handler  # type: ignore[no-any-return]


def _check_handler(path: str, key: str) -> list[CheckMessage]:
    try:
        _import_handler(path, f"SMARTPOS[{key!r}]")
    except _HandlerImportError as exc:
        return [Error(str(exc), hint=exc.hint, id="smartpos.E005")]
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
                message("django.check_no_redis_package"),
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
                message("django.check_redis_unreadable", type=type(exc).__name__),
                hint=message("django.check_redis_unreadable_hint"),
                id="smartpos.W011",
            )
        ]
    finally:
        logger.removeFilter(quiet)
        client.close()
    return [
        Warning(
            message(_REDIS_SETTING_KEYS[name]),
            hint=message(
                "django.check_redis_setting_hint",
                name=name,
                values=" | ".join(_SETTINGS_ADVICE[name][0]),
            ),
            id="smartpos.W010",
        )
        for name in broken
    ]
