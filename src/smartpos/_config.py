"""A client's settings: read from the arguments and the environment, validated, frozen.

No side effect happens here: the clients set up logging (``_logging``) and build their
transports (``_transports``, which also holds the process-wide SSL context).
"""

from __future__ import annotations

import math
import os
import re

import attrs
import httpx

from . import _httpcompat
from ._errors import ConfigurationError
from ._logging import redact_url
from ._messages import language_of, message
from ._version import __version__

__all__ = ["DEFAULT_TIMEOUT", "RESERVED_HEADERS", "Config", "is_seconds", "timeout_of"]

#: 5 s to connect, 30 s for everything else: an acceptance answer is quick, but a terminal's
#: gateway can be slow under load, and a read timeout on a payment is an unknown outcome.
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=5.0)
_USER_AGENT = f"smartpos-python/{__version__} httpx/{httpx.__version__}"


def _redact(value: str) -> str:
    return "***" if value else ""


# Printable ASCII with no space at either end: what an HTTP header value can carry as is.
_HEADER_VALUE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")


def _check_api_key(api_key: str, lang: str | None) -> None:
    # Messages name the problem, never the value: a key must not reach a log or a traceback.
    if api_key != api_key.strip():
        raise ConfigurationError(message("config.key_whitespace", lang=lang))
    if not _HEADER_VALUE.fullmatch(api_key):
        raise ConfigurationError(message("config.key_not_a_header", lang=lang))
    if api_key.lower().startswith(("http://", "https://")):
        raise ConfigurationError(message("config.key_is_a_url", lang=lang))


def is_seconds(value: object, *, positive: bool) -> bool:
    """Whether ``value`` is a finite number of seconds: > 0 if ``positive``, else >= 0.

    ``bool`` is not a number here, and NaN and infinity are refused (a NaN compares false
    with everything, so a check written as ``value < 0`` lets it through).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if not math.isfinite(value):
        return False
    return value > 0 if positive else value >= 0


def timeout_of(value: object) -> httpx.Timeout | None:
    """``value`` as an ``httpx.Timeout``: positive finite seconds, or an httpx(2) ``Timeout``.

    Returns ``None`` for anything else: the caller raises its own error (a client's option is
    a ``ConfigurationError``, a call's argument a ``ValidationError``), with the one message
    ``config.timeout``.
    """
    if isinstance(value, _httpcompat.classes("Timeout")):
        return _httpcompat.to_httpx_timeout(value)
    if not is_seconds(value, positive=True):
        return None
    return httpx.Timeout(float(value))  # type: ignore[arg-type]


#: Headers ``with_options(headers=...)`` may not set: the credentials (the SDK sets the key;
#: a proxy's credentials belong to the user's ``http_client``), and the framing of the body.
RESERVED_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "content-length",
        "transfer-encoding",
        "host",
    }
)
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def _check_headers(headers: object, lang: str | None) -> tuple[tuple[str, str], ...]:
    from collections.abc import Mapping

    if not isinstance(headers, Mapping):
        raise ConfigurationError(message("config.headers", lang=lang))
    checked: dict[str, tuple[str, str]] = {}
    for name, value in headers.items():
        if not isinstance(name, str) or not _HEADER_NAME.fullmatch(name):
            raise ConfigurationError(message("config.headers", lang=lang))
        if name.lower() in RESERVED_HEADERS:
            raise ConfigurationError(message("config.header_reserved", lang=lang, name=name))
        # The value is never echoed: it may be a secret of the caller's.
        if not isinstance(value, str) or not (value == "" or _HEADER_VALUE.fullmatch(value)):
            raise ConfigurationError(message("config.header_value", lang=lang, name=name))
        checked[name.lower()] = (name, value)
    return tuple(checked.values())


def _check_base_url(base_url: str, api_key: str, lang: str | None) -> None:
    # The value is never echoed: with swapped arguments it would be the API key.
    if base_url == api_key:
        raise ConfigurationError(message("config.base_url_is_the_key", lang=lang))
    swapped = "" if "://" in base_url else "_swapped"
    try:
        url = httpx.URL(base_url)
    except (httpx.InvalidURL, TypeError):
        raise ConfigurationError(message("config.base_url_invalid" + swapped, lang=lang)) from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ConfigurationError(message("config.base_url_not_absolute" + swapped, lang=lang))
    if "?" in base_url or "#" in base_url:
        # The SDK appends endpoint paths to the base URL: after a query or a fragment they
        # would not be paths any more.
        raise ConfigurationError(message("config.base_url_query", lang=lang))


@attrs.frozen(slots=True)
class Config:
    """Everything a client was configured with; built once, shared by every call."""

    api_key: str = attrs.field(repr=_redact)
    base_url: str = attrs.field(repr=lambda url: repr(redact_url(url)))
    timeout: httpx.Timeout
    max_retries: int
    retry_backoff: float
    strict_referencia: bool = True
    user_agent: str = _USER_AGENT
    lang: str | None = None
    """The language of the client's messages (``_messages``); None: ``SMARTPOS_LANG``'s."""
    headers: tuple[tuple[str, str], ...] = ()
    """Extra headers sent with every request (``with_options(headers=...)``)."""
    terminal_hold: float = 300.0
    """Seconds an ``imediato`` attempt of a sale holds its terminal at most (0: no hold)."""
    pending_after: float = 600.0
    """Seconds after which an attempt of a sale without outcome is a ``no_outcome`` pendência."""

    @classmethod
    def create(
        cls,
        *,
        api_key: str | None,
        base_url: str | None,
        timeout: float | _httpcompat.AnyTimeout | None,
        max_retries: int,
        retry_backoff: float,
        strict_referencia: bool,
        lang: str | None = None,
        terminal_hold: float = 300.0,
        pending_after: float = 600.0,
    ) -> Config:
        """Read arguments, fall back on ``SMARTPOS_API_KEY``/``SMARTPOS_BASE_URL``, validate.

        Messages are in ``lang`` (``"en"``, ``"pt_BR"``; None: ``SMARTPOS_LANG``'s language).

        Raises:
            ConfigurationError: a setting is missing or invalid (the message never holds the
                key, nor the base URL, which would be the key with swapped arguments).
        """
        if lang is not None:
            language = language_of(lang)
            if language is None:
                raise ConfigurationError(message("config.lang", value=lang))
            lang = language
        if api_key is None:
            api_key = os.environ.get("SMARTPOS_API_KEY")
        if not api_key or not isinstance(api_key, str):
            raise ConfigurationError(message("config.no_api_key", lang=lang))
        _check_api_key(api_key, lang)
        if base_url is None:
            base_url = os.environ.get("SMARTPOS_BASE_URL")
        if not base_url or not isinstance(base_url, str):
            raise ConfigurationError(message("config.no_base_url", lang=lang))
        _check_base_url(base_url, api_key, lang)
        timeout = DEFAULT_TIMEOUT if timeout is None else _checked_timeout(timeout, lang)
        _check_max_retries(max_retries, lang)
        if not is_seconds(retry_backoff, positive=False):
            raise ConfigurationError(message("config.retry_backoff", lang=lang))
        _check_sale_seconds(terminal_hold, pending_after, lang)
        return cls(
            api_key=api_key,
            base_url=base_url.rstrip("/"),
            timeout=timeout,
            max_retries=max_retries,
            retry_backoff=float(retry_backoff),
            strict_referencia=bool(strict_referencia),
            lang=lang,
            terminal_hold=float(terminal_hold),
            pending_after=float(pending_after),
        )

    def with_options(
        self,
        *,
        timeout: float | _httpcompat.AnyTimeout | None = None,
        max_retries: int | None = None,
        headers: object = None,
        terminal_hold: float | None = None,
        pending_after: float | None = None,
    ) -> Config:
        """Return a copy with these options changed (``None``: as it is).

        ``headers`` are added to the ones set before (a name set again replaces its value).

        Raises:
            ConfigurationError: a bad timeout, max_retries or header (a reserved name such as
                ``Authorization`` or ``X-Api-Key``, or one that is not a valid header).
        """
        changes: dict[str, object] = {}
        if timeout is not None:
            changes["timeout"] = _checked_timeout(timeout, self.lang)
        if max_retries is not None:
            _check_max_retries(max_retries, self.lang)
            changes["max_retries"] = max_retries
        if terminal_hold is not None or pending_after is not None:
            hold = self.terminal_hold if terminal_hold is None else terminal_hold
            after = self.pending_after if pending_after is None else pending_after
            _check_sale_seconds(hold, after, self.lang)
            changes["terminal_hold"], changes["pending_after"] = float(hold), float(after)
        if headers is not None:
            merged = {name.lower(): (name, value) for name, value in self.headers}
            merged.update((pair[0].lower(), pair) for pair in _check_headers(headers, self.lang))
            changes["headers"] = tuple(merged.values())
        return attrs.evolve(self, **changes)  # type: ignore[arg-type]

    def with_timeout(self, timeout: _httpcompat.AnyTimeout) -> Config:
        """Return a copy that uses ``timeout`` (the one of a user's own httpx or httpx2 client)."""
        return attrs.evolve(self, timeout=_httpcompat.to_httpx_timeout(timeout))


def _checked_timeout(value: object, lang: str | None) -> httpx.Timeout:
    timeout = timeout_of(value)
    if timeout is None:
        raise ConfigurationError(message("config.timeout", lang=lang))
    return timeout


def _check_sale_seconds(terminal_hold: object, pending_after: object, lang: str | None) -> None:
    for name, value in (("terminal_hold", terminal_hold), ("pending_after", pending_after)):
        if not is_seconds(value, positive=False):
            raise ConfigurationError(message("config.seconds", lang=lang, name=name))


def _check_max_retries(value: object, lang: str | None) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(message("config.max_retries", lang=lang))
