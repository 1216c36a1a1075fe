"""``sign``: the headers of a signed delivery, for a partner's tests and for the sandbox.

One signer for every scheme a verifier of ``smartpos.webhooks`` checks, built on the same code
(``smartpos._signatures``) so that the sandbox and a partner's own tests sign exactly as the
verifiers read. Its interoperability is tested against the published ``standardwebhooks``
package and the providers' documented examples, not only against the SDK's own verifiers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from smartpos._signatures import sign_headers

__all__ = ["sign"]


def sign(
    body: bytes | str,
    *,
    secret: str | bytes | Sequence[str | bytes],
    scheme: str = "standard-webhooks",
    msg_id: str | None = None,
    timestamp: float | None = None,
    **options: Any,
) -> dict[str, str]:
    """Return the headers a delivery of ``body`` signed under ``scheme`` carries.

    Pass them with the same body to a receiver, a verifier, or a server under test:

    ```python
    from smartpos.testing import sign
    from smartpos.webhooks import MemoryStore, StandardWebhooksVerifier, WebhookReceiver

    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = (
        b'{"id":"evt-1","tipo":"smartpos.identificado","criadoEm":"2026-05-04T13:45:12Z",'
        b'"dados":{"smartposId":"SP-1","documentoCliente":"52998224725"}}'
    )
    receiver = WebhookReceiver(MemoryStore(), verifier=StandardWebhooksVerifier(secret))
    assert receiver.receive(body, sign(body, secret=secret)).status_code == 200
    ```

    Args:
        body: The exact body to send (a str is UTF-8 encoded).
        secret: The signing key, or a sequence of them: a header that carries several
            signatures then carries one per key (as a sender does while rotating), a header
            that carries one value uses the first. By scheme: ``whsec_...`` secrets for
            ``standard-webhooks`` (``whsk_...`` ed25519 private keys give ``v1a``
            signatures); the shared secret for ``stripe``, ``hmac-manifest``, ``hmac``,
            ``token`` and ``shared-secret``; a private key (PEM, or for ed25519 the 32-byte
            seed, its Base64 or hex, or ``whsk_...``) for ``ed25519`` and ``rsa``.
        scheme: ``"standard-webhooks"``, ``"stripe"``, ``"hmac-manifest"``, ``"token"``,
            ``"ed25519"``, ``"rsa"``, ``"hmac"`` or ``"shared-secret"``.
        msg_id: The ``webhook-id`` of ``standard-webhooks`` (other schemes sign none):
            printable ASCII without spaces or ``.``; default the body's own ``id`` when it
            is such a string (so that a retry carries the same id), else one derived from
            the body.
        timestamp: Seconds since the epoch to sign (default now); written in milliseconds
            where the options say ``timestamp_unit="ms"``. Unused by schemes that sign none.
        **options: The options the scheme's verifier takes to describe the layout:
            ``header``, ``template``, ``signature_key``, ``timestamp_key``,
            ``timestamp_header``, ``encoding``, ``timestamp_unit``, ``algorithm``,
            ``padding``, ``separator``, as each scheme allows; and ``headers``, more headers
            the delivery carries (those a manifest's ``{header:NAME}`` fields sign), which
            are returned too.

    Returns:
        The headers, lower-case names: ``webhook-id``, ``webhook-timestamp`` and
        ``webhook-signature`` for ``standard-webhooks``; the scheme's header (and timestamp
        header) otherwise; plus ``headers``.

    Raises:
        smartpos.ConfigurationError: An unknown scheme or option, or key material the scheme
            cannot use (the message never shows it); for ``ed25519``, ``rsa`` and ``whsk_``
            keys, a missing ``cryptography`` package (``pip install "smartpos[crypto]"``).
        ValueError: A bad ``msg_id`` or ``timestamp``, or a manifest field neither the body
            nor ``headers`` holds.
        TypeError: ``body`` is neither bytes nor str, or ``timestamp`` is not a number.
    """
    data = body.encode("utf-8") if isinstance(body, str) else body
    return sign_headers(scheme, data, secret, msg_id=msg_id, timestamp=timestamp, options=options)
