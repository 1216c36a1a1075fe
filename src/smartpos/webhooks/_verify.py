"""Authenticity checks of webhook deliveries: a pluggable verifier, run before anything else.

The service does not publish how it signs deliveries (spec 5.5). What a partner can configure
today is a secret header added in front of the receiver (at the partner portal if it allows
custom headers, or at the reverse proxy / API gateway that forwards deliveries):
[`SharedSecretVerifier`][smartpos.webhooks.SharedSecretVerifier] checks it in constant time.
[`HmacSignatureVerifier`][smartpos.webhooks.HmacSignatureVerifier] checks an HMAC of the body
(the common ``sha256=<hex>`` form). The schemes payment providers sign with, one of which the
service will publish, are in ``_schemes``: Standard Webhooks, the Stripe-style ``t=...,v1=...``
header, a configurable HMAC manifest, a token digest, ed25519 and RSA. Anything else is a class
with one method, ``verify(body, headers)``, that raises
[`VerificationError`][smartpos.webhooks.VerificationError].

The receiver runs the verifier *before* it parses or deduplicates, so a forged request can
never claim (and so suppress) a real event id. Secrets never appear in messages, reprs or logs.

A refused delivery is logged at DEBUG on ``smartpos.webhooks.verify`` with what was compared
(the scheme, the header, how many signatures and keys, the timestamp's skew, the manifest's
shape with each field's size), never a key, the body, or the signature that was expected
(that would make the receiver a signing oracle).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar, Protocol, runtime_checkable

from smartpos._errors import SmartPOSError
from smartpos._signatures import check_header_name, hmac_algorithm, key_items, secret_bytes

from ._logsafe import loggable

__all__ = [
    "HmacSignatureVerifier",
    "SharedSecretVerifier",
    "VerificationError",
    "Verifier",
    "refused",
]

_logger = logging.getLogger("smartpos.webhooks.verify")


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


def refused(
    scheme: str, reason: str, compared: Callable[[], Mapping[str, object]]
) -> VerificationError:
    """The ``VerificationError`` answering ``reason``, after a DEBUG line of what was compared.

    Args:
        scheme: The scheme's name (``standard-webhooks``).
        reason: Why, in one sentence for the sender: header names and counts, no values.
        compared: Called only when DEBUG is on: name and value pairs that help a partner see
            why (sizes, counts, skew, the manifest's shape), never a key or the body.
    """
    if _logger.isEnabledFor(logging.DEBUG):
        details = "; ".join(f"{k}={v}" for k, v in compared().items() if v is not None)
        _logger.debug(
            "webhook verification failed (%s): %s; compared: %s",
            scheme,
            loggable(reason, 200),
            details,
        )
    return VerificationError(reason)


def _secrets(secret: object) -> tuple[bytes, ...]:
    return tuple(secret_bytes(item, "secret") for item in key_items(secret))


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

    #: The scheme's name in settings and ``smartpos.testing.sign``.
    scheme: ClassVar[str] = "shared-secret"

    def __init__(
        self,
        header: str = "x-webhook-secret",
        *,
        secret: str | bytes | Sequence[str | bytes],
    ) -> None:
        self._header = check_header_name(header)
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
            raise refused(self.scheme, f"the {self._header} header is missing", dict)
        given = value.encode("utf-8", "surrogateescape")
        # Compare with every secret, not stopping at the first match: same time either way.
        matched = False
        for secret in self._secrets:
            matched |= hmac.compare_digest(given, secret)
        if not matched:
            raise refused(
                self.scheme,
                f"the {self._header} header does not match",
                lambda: {
                    "header": self._header,
                    "value": f"{len(given)} bytes",
                    "secrets": len(self._secrets),
                },
            )


class HmacSignatureVerifier:
    """Accept a delivery only when a header carries the HMAC of the raw body.

    The header holds ``HMAC(secret, body)`` in hex (optionally prefixed ``"<algorithm>="``,
    as in ``sha256=9f86d0...``) or in Base64. Nothing signs a timestamp, so a replay is only
    caught by the event id's deduplication: where a provider signs one, prefer
    [`StripeStyleVerifier`][smartpos.webhooks.StripeStyleVerifier],
    [`StandardWebhooksVerifier`][smartpos.webhooks.StandardWebhooksVerifier] or
    [`HmacManifestVerifier`][smartpos.webhooks.HmacManifestVerifier].

    Args:
        header: The header name (case-insensitive).
        secret: The signing key, or a sequence of accepted keys while rotating.
        algorithm: A ``hashlib`` algorithm name.

    Raises:
        ConfigurationError: An empty header name or secret, or an unknown algorithm.
    """

    #: The scheme's name in settings and ``smartpos.testing.sign``.
    scheme: ClassVar[str] = "hmac"

    def __init__(
        self,
        header: str,
        secret: str | bytes | Sequence[str | bytes],
        algorithm: str = "sha256",
    ) -> None:
        self._header = check_header_name(header)
        self._secrets = _secrets(secret)
        self._algorithm = hmac_algorithm(algorithm)
        # Keyed once: copying a keyed HMAC skips the key schedule on every delivery.
        self._macs = tuple(hmac.new(s, digestmod=self._algorithm) for s in self._secrets)

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
            try:
                key = secret_bytes(secret, "secret")
            except ValueError as exc:  # a bad argument, not a bad option
                raise ValueError(str(exc)) from None
        return hmac.new(key, body, self._algorithm).hexdigest()

    def verify(self, body: bytes, headers: Mapping[str, str]) -> None:
        """Raise `VerificationError` unless the header carries the body's HMAC."""
        value = headers.get(self._header)
        if value is None:
            raise refused(self.scheme, f"the {self._header} header is missing", dict)
        given = _decode_signature(value.strip(), self._algorithm)
        matched = False
        for keyed in self._macs:
            mac = keyed.copy()
            mac.update(body)
            matched |= given is not None and hmac.compare_digest(given, mac.digest())
        if not matched:
            raise refused(
                self.scheme,
                f"the {self._header} signature does not match",
                lambda: {
                    "header": self._header,
                    "signature": "not hex nor Base64" if given is None else f"{len(given)} bytes",
                    "algorithm": self._algorithm,
                    "secrets": len(self._secrets),
                    "body": f"{len(body)} bytes",
                },
            )


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
