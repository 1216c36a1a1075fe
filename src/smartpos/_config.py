"""A client's settings: read from the arguments and the environment, validated, frozen.

No side effect happens here: the clients set up logging (``_logging``) and build their
transports (``_transports``, which also holds the process-wide SSL context).
"""

from __future__ import annotations

import os
import re

import attrs
import httpx

from . import _httpcompat
from ._errors import ConfigurationError
from ._logging import redact_url
from ._version import __version__

__all__ = ["DEFAULT_TIMEOUT", "Config"]

#: 5 s to connect, 30 s for everything else: an acceptance answer is quick, but a terminal's
#: gateway can be slow under load, and a read timeout on a payment is an unknown outcome.
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=5.0)
_USER_AGENT = f"smartpos-python/{__version__} httpx/{httpx.__version__}"


def _redact(value: str) -> str:
    return "***" if value else ""


# Printable ASCII with no space at either end: what an HTTP header value can carry as is.
_HEADER_VALUE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")
_SWAPPED = (
    "; are api_key and base_url swapped? Client(api_key=..., base_url=...) takes the key first"
)


def _check_api_key(api_key: str) -> None:
    # Messages name the problem, never the value: a key must not reach a log or a traceback.
    if api_key != api_key.strip():
        raise ConfigurationError(
            "the API key has surrounding whitespace or a line break; copy it again"
        )
    if not _HEADER_VALUE.fullmatch(api_key):
        raise ConfigurationError(
            "the API key cannot be sent as an HTTP header value: it has a line break, another "
            "control character or a non-ASCII character; copy it again from the partner portal"
        )
    if api_key.lower().startswith(("http://", "https://")):
        raise ConfigurationError("the API key looks like a URL" + _SWAPPED)


def _check_base_url(base_url: str, api_key: str) -> None:
    # The value is never echoed: with swapped arguments it would be the API key.
    if base_url == api_key:
        raise ConfigurationError("base_url is the API key" + _SWAPPED)
    hint = "" if "://" in base_url else _SWAPPED
    try:
        url = httpx.URL(base_url)
    except (httpx.InvalidURL, TypeError):
        raise ConfigurationError(
            "base_url is not a valid URL; pass the service's address, such as "
            "https://host/api" + hint
        ) from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ConfigurationError(
            "base_url must be an absolute http(s) URL such as https://host/api" + hint
        )
    if "?" in base_url or "#" in base_url:
        # The SDK appends endpoint paths to the base URL: after a query or a fragment they
        # would not be paths any more.
        raise ConfigurationError(
            "base_url must not have a query string or a fragment ('?' or '#'): pass only "
            "scheme, host and path, such as https://host/api"
        )


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
    ) -> Config:
        """Read arguments, fall back on ``SMARTPOS_API_KEY``/``SMARTPOS_BASE_URL``, validate.

        Raises:
            ConfigurationError: a setting is missing or invalid (the message never holds the
                key, nor the base URL, which would be the key with swapped arguments).
        """
        if api_key is None:
            api_key = os.environ.get("SMARTPOS_API_KEY")
        if not api_key or not isinstance(api_key, str):
            raise ConfigurationError(
                "no API key: pass api_key=... or set the SMARTPOS_API_KEY environment variable "
                "(the integration key generated in the partner portal)"
            )
        _check_api_key(api_key)
        if base_url is None:
            base_url = os.environ.get("SMARTPOS_BASE_URL")
        if not base_url or not isinstance(base_url, str):
            raise ConfigurationError(
                "no base URL: pass base_url=... or set the SMARTPOS_BASE_URL environment variable"
            )
        _check_base_url(base_url, api_key)
        if timeout is None:
            timeout = DEFAULT_TIMEOUT
        elif isinstance(timeout, _httpcompat.classes("Timeout")):
            timeout = _httpcompat.to_httpx_timeout(timeout)
        else:
            if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
                raise ConfigurationError(
                    "timeout must be a positive number of seconds or an httpx.Timeout"
                )
            timeout = httpx.Timeout(float(timeout))
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigurationError("max_retries must be an integer >= 0 (0 disables retries)")
        if (
            isinstance(retry_backoff, bool)
            or not isinstance(retry_backoff, (int, float))
            or retry_backoff < 0
        ):
            raise ConfigurationError("retry_backoff must be a number of seconds >= 0")
        return cls(
            api_key=api_key,
            base_url=base_url.rstrip("/"),
            timeout=timeout,
            max_retries=max_retries,
            retry_backoff=float(retry_backoff),
            strict_referencia=bool(strict_referencia),
        )

    def with_timeout(self, timeout: _httpcompat.AnyTimeout) -> Config:
        """Return a copy that uses ``timeout`` (the one of a user's own httpx or httpx2 client)."""
        return attrs.evolve(self, timeout=_httpcompat.to_httpx_timeout(timeout))
