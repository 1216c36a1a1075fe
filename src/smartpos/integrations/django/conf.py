"""The ``SMARTPOS`` setting: one dict in ``settings.py``, read and checked in one place.

::

    SMARTPOS = {
        "API_KEY": env("SMARTPOS_API_KEY"),        # default: env SMARTPOS_API_KEY
        "BASE_URL": env("SMARTPOS_BASE_URL"),      # default: env SMARTPOS_BASE_URL
        "STORE": "sqlite:////var/lib/shop/smartpos-inbox.sqlite3",
        "WEBHOOK_SECRET": env("SMARTPOS_WEBHOOK_SECRET"),
        "HANDLER": "shop.payments.handle_event",   # what smartpos_worker runs
        "ON_SALE": "shop.payments.on_sale",        # once per sale effect (DjangoStore)
    }

``WEBHOOK_SECRET`` alone is a shared secret in the ``x-webhook-secret`` header. With
``WEBHOOK_SCHEME`` it is the key material of a signature scheme (the secret, or the public key
of ``ed25519`` and ``rsa``; a list while rotating), and ``WEBHOOK_SCHEME_OPTIONS`` holds that
scheme's options::

    "WEBHOOK_SCHEME": "standard-webhooks",       # or "stripe", "hmac-manifest", "token", ...
    "WEBHOOK_SECRET": env("SMARTPOS_WEBHOOK_SECRET"),             # "whsec_..."
    "WEBHOOK_SCHEME_OPTIONS": {"tolerance": 300},

Every key is optional except ``STORE`` (for the webhook views and the worker); an unknown key
is an error of ``manage.py check`` (a typo such as ``WEBHOOK_SECRETS`` must not silently turn
verification off).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from smartpos._messages import message
from smartpos.integrations._receive import DEFAULT_SECRET_HEADER

__all__ = ["KEYS", "SmartPOSSettings", "get_settings", "raw_settings", "unknown_keys"]

#: Every key ``SMARTPOS`` may hold, with what it means.
KEYS: Final[Mapping[str, str]] = {
    "API_KEY": "the integration key (default: env SMARTPOS_API_KEY)",
    "BASE_URL": "the service's base address (default: env SMARTPOS_BASE_URL)",
    "CLIENT_OPTIONS": "more Client/AsyncClient arguments: timeout, max_retries, retry_backoff",
    "STORE": "the webhook inbox: a path, sqlite:///, redis://, postgresql:// or memory://",
    "STORE_OPTIONS": "more arguments of the store (max_attempts, retention, ...)",
    "WEBHOOK_SECRET": "the secret deliveries carry (a str, or a list while rotating)",
    "WEBHOOK_SECRET_HEADER": f"the header that carries it (default {DEFAULT_SECRET_HEADER})",
    "WEBHOOK_VERIFIER": "a Verifier object of your own, instead of the secret",
    "WEBHOOK_SCHEME": (
        "the signature scheme WEBHOOK_SECRET is for: standard-webhooks, stripe, hmac-manifest, "
        "token, ed25519, rsa, hmac, shared-secret (the default)"
    ),
    "WEBHOOK_SCHEME_OPTIONS": "the scheme's options: template, header, tolerance, ...",
    "RECEIVER_OPTIONS": "more WebhookReceiver arguments: max_body_bytes, store_timeout",
    "HANDLER": "dotted path of the function smartpos_worker calls with each event",
    "ON_SALE": (
        "dotted path of the function smartpos_worker calls once per sale effect (paid, late "
        "approval, compensated) in the transaction of the event's ack (DjangoStore)"
    ),
    "WORKER_OPTIONS": "more Worker arguments: lease, batch, base_backoff, poll_interval, ...",
}

_OPTION_KEYS: Final = (
    "CLIENT_OPTIONS",
    "STORE_OPTIONS",
    "RECEIVER_OPTIONS",
    "WORKER_OPTIONS",
    "WEBHOOK_SCHEME_OPTIONS",
)


def _options(raw: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = raw.get(key) or {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ImproperlyConfigured(message("django.options_not_a_dict", key=key))
    return dict(value)


def _secret(value: object) -> str | bytes | tuple[str | bytes, ...] | None:
    if value is None or value == "":
        return None
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, Sequence) and value and all(isinstance(v, (str, bytes)) for v in value):
        return tuple(value)
    raise ImproperlyConfigured(message("django.secret_type"))


@attrs.frozen(slots=True, kw_only=True)
class SmartPOSSettings:
    """``settings.SMARTPOS``, checked. The secrets are left out of the repr."""

    api_key: str | None = attrs.field(default=None, repr=False)
    base_url: str | None = None
    client_options: dict[str, Any] = attrs.Factory(dict)
    store: Any = None
    store_options: dict[str, Any] = attrs.Factory(dict)
    webhook_secret: str | bytes | tuple[str | bytes, ...] | None = attrs.field(
        default=None, repr=False
    )
    webhook_secret_header: str = DEFAULT_SECRET_HEADER
    webhook_verifier: Any = None
    webhook_scheme: str | None = None
    webhook_scheme_options: dict[str, Any] = attrs.Factory(dict)
    receiver_options: dict[str, Any] = attrs.Factory(dict)
    handler: str | None = None
    on_sale: str | None = None
    worker_options: dict[str, Any] = attrs.Factory(dict)

    @property
    def store_setting(self) -> str | os.PathLike[str] | Any:
        """``STORE``, or ``ImproperlyConfigured`` saying how to set it."""
        if self.store is None or self.store == "":
            raise ImproperlyConfigured(message("django.store_setting"))
        return self.store


def unknown_keys(raw: Mapping[str, Any]) -> list[str]:
    """The keys of ``SMARTPOS`` that mean nothing here (typos)."""
    return sorted(str(key) for key in raw if key not in KEYS)


def raw_settings() -> Mapping[str, Any]:
    """``settings.SMARTPOS`` as given (``{}`` when absent).

    Raises:
        ImproperlyConfigured: It is not a dict.
    """
    raw = getattr(settings, "SMARTPOS", None)
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ImproperlyConfigured(message("django.settings_not_a_dict", type=type(raw).__name__))
    return raw


def get_settings() -> SmartPOSSettings:
    """Read and check ``settings.SMARTPOS``.

    Raises:
        ImproperlyConfigured: It is not a dict, holds an unknown key, or a value of the wrong
            type. The message names the key and never holds a secret.
    """
    raw = raw_settings()
    unknown = unknown_keys(raw)
    if unknown:
        raise ImproperlyConfigured(
            message("django.unknown_keys", unknown=unknown, keys=sorted(KEYS))
        )
    for key in (
        "API_KEY",
        "BASE_URL",
        "HANDLER",
        "ON_SALE",
        "WEBHOOK_SECRET_HEADER",
        "WEBHOOK_SCHEME",
    ):
        if raw.get(key) is not None and not isinstance(raw[key], str):
            raise ImproperlyConfigured(message("django.not_a_str", key=key))
    options = {key.lower(): _options(raw, key) for key in _OPTION_KEYS}
    return SmartPOSSettings(
        api_key=raw.get("API_KEY") or None,
        base_url=raw.get("BASE_URL") or None,
        store=raw.get("STORE"),
        webhook_secret=_secret(raw.get("WEBHOOK_SECRET")),
        webhook_secret_header=raw.get("WEBHOOK_SECRET_HEADER") or DEFAULT_SECRET_HEADER,
        webhook_verifier=raw.get("WEBHOOK_VERIFIER"),
        webhook_scheme=raw.get("WEBHOOK_SCHEME") or None,
        handler=raw.get("HANDLER") or None,
        on_sale=raw.get("ON_SALE") or None,
        **options,
    )
