"""Authenticity checks of webhook deliveries: a pluggable verifier, run before anything else.

The service does not publish how it signs deliveries (spec 5.5). What a partner can configure
today is a secret header added in front of the receiver (at the partner portal if it allows
custom headers, or at the reverse proxy / API gateway that forwards deliveries):
[`SharedSecretVerifier`][smartpos.webhooks.SharedSecretVerifier] checks it in constant time.
[`HmacSignatureVerifier`][smartpos.webhooks.HmacSignatureVerifier] is a ready hook for an
HMAC-of-the-body scheme (the common ``sha256=<hex>`` form); anything else is a class with one
method, ``verify(body, headers)``, that raises
[`VerificationError`][smartpos.webhooks.VerificationError].

The receiver runs the verifier *before* it parses or deduplicates, so a forged request can
never claim (and so suppress) a real event id. Secrets never appear in messages, reprs or logs.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from smartpos._errors import ConfigurationError, SmartPOSError
from smartpos._messages import message

__all__ = ["HmacSignatureVerifier", "SharedSecretVerifier", "VerificationError", "Verifier"]


class VerificationError(SmartPOSError):
    """A delivery failed the authenticity check; the receiver answers 401.

    The message says which header was missing or wrong, never its value or the secret.
    """


@runtime_checkable
class Verifier(Protocol):
    """Checks that a delivery really comes from the service.

    ``headers`` has lower-case names. Return ``None`` to accept; raise
    [`VerificationError`][smartpos.webhooks.VerificationError] to refuse.
    """

    def verify(self, body: bytes, headers: Mapping[str, str]) -> None:
        """Accept the delivery or raise `VerificationError`."""
        ...


def _secret_bytes(
    secret: str | bytes, what: str, *, error: type[ValueError] = ConfigurationError
) -> bytes:
    if isinstance(secret, str):
        secret = secret.encode("utf-8")
    if not isinstance(secret, bytes) or not secret:
        raise error(message("webhooks.secret_empty", what=what))
    return secret


def _secrets(secret: str | bytes | Sequence[str | bytes]) -> tuple[bytes, ...]:
    if isinstance(secret, (str, bytes)):
        items: list[str | bytes] = [secret]
    else:
        try:
            items = list(secret)
        except TypeError:  # not iterable
            raise ConfigurationError(
                message("webhooks.secret_type", type=type(secret).__name__)
            ) from None
    if not items:
        raise ConfigurationError(message("webhooks.no_secret"))
    return tuple(_secret_bytes(item, "secret") for item in items)


def _header_name(header: str) -> str:
    if not isinstance(header, str) or not header.strip():
        raise ConfigurationError(message("webhooks.header"))
    return header.strip().lower()


class SharedSecretVerifier:
    """Accept a delivery only when a header carries the configured secret.

    Configure the same value where deliveries get their extra header (the partner portal or
    your reverse proxy). The comparison is constant-time (``hmac.compare_digest``). Several
    secrets may be given while rotating one: any of them is accepted.

    Args:
        header: The header name (case-insensitive).
        secret: The expected value, or a sequence of accepted values.

    Raises:
        ConfigurationError: An empty header name or secret.
    """

    def __init__(
        self,
        header: str = "x-webhook-secret",
        *,
        secret: str | bytes | Sequence[str | bytes],
    ) -> None:
        self._header = _header_name(header)
        self._secrets = _secrets(secret)

    @property
    def header(self) -> str:
        """The lower-case header name that carries the secret."""
        return self._header

    def __repr__(self) -> str:
        return f"SharedSecretVerifier(header={self._header!r}, secret=***)"

    def verify(self, body: bytes, headers: Mapping[str, str]) -> None:
        """Raise `VerificationError` unless the header carries one of the secrets."""
        value = headers.get(self._header)
        if value is None:
            raise VerificationError(f"the {self._header} header is missing")
        given = value.encode("utf-8", "surrogateescape")
        # Compare with every secret, not stopping at the first match: same time either way.
        matched = False
        for secret in self._secrets:
            matched |= hmac.compare_digest(given, secret)
        if not matched:
            raise VerificationError(f"the {self._header} header does not match")


class HmacSignatureVerifier:
    """Accept a delivery only when a header carries the HMAC of the raw body.

    A hook for a signature scheme, since the service's own is not published: the header holds
    ``HMAC(secret, body)`` in hex (optionally prefixed ``"<algorithm>="``, as in
    ``sha256=9f86d0...``) or in Base64. Adapt it (or write your own ``Verifier``) once the
    service documents its scheme, e.g. one that also signs a timestamp against replays.

    Args:
        header: The header name (case-insensitive).
        secret: The signing key, or a sequence of accepted keys while rotating.
        algorithm: A ``hashlib`` algorithm name.

    Raises:
        ConfigurationError: An empty header name or secret, or an unknown algorithm.
    """

    def __init__(
        self,
        header: str,
        secret: str | bytes | Sequence[str | bytes],
        algorithm: str = "sha256",
    ) -> None:
        self._header = _header_name(header)
        self._secrets = _secrets(secret)
        try:
            if not isinstance(algorithm, str) or algorithm.lower().startswith("shake"):
                # SHAKE digests need a length; HMAC cannot use them.
                raise ValueError(algorithm)
            hashlib.new(algorithm)
        except (ValueError, TypeError):
            raise ConfigurationError(message("webhooks.algorithm", algorithm=algorithm)) from None
        self._algorithm = algorithm

    @property
    def header(self) -> str:
        """The lower-case header name that carries the signature."""
        return self._header

    def __repr__(self) -> str:
        return (
            f"HmacSignatureVerifier(header={self._header!r}, secret=***, "
            f"algorithm={self._algorithm!r})"
        )

    def signature(self, body: bytes, secret: str | bytes | None = None) -> str:
        """Return the hex signature of ``body`` (with the first secret unless one is given)."""
        if secret is None:
            key = self._secrets[0]
        else:
            key = _secret_bytes(secret, "secret", error=ValueError)
        return hmac.new(key, body, self._algorithm).hexdigest()

    def verify(self, body: bytes, headers: Mapping[str, str]) -> None:
        """Raise `VerificationError` unless the header carries the body's HMAC."""
        value = headers.get(self._header)
        if value is None:
            raise VerificationError(f"the {self._header} header is missing")
        given = _decode_signature(value.strip(), self._algorithm)
        matched = False
        for secret in self._secrets:
            expected = hmac.new(secret, body, self._algorithm).digest()
            matched |= given is not None and hmac.compare_digest(given, expected)
        if not matched:
            raise VerificationError(f"the {self._header} signature does not match")


def _decode_signature(value: str, algorithm: str) -> bytes | None:
    prefix = f"{algorithm}="
    if value.lower().startswith(prefix):
        value = value[len(prefix) :]
    try:
        return bytes.fromhex(value)
    except ValueError:
        pass
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None
