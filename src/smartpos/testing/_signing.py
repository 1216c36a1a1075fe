"""``sign``: the headers of a signed delivery, for a partner's tests and for the sandbox.

One signer for every scheme a verifier of ``smartpos.webhooks`` checks, built on the same code
(``smartpos._signatures``) so that the sandbox and a partner's own tests sign exactly as the
verifiers read. Its interoperability is tested against the published ``standardwebhooks``
package and the providers' documented examples, not only against the SDK's own verifiers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from smartpos._errors import ConfigurationError
from smartpos._signatures import key_items, sign_headers

__all__ = ["WebhookSigning", "sign", "signing_from_json", "signing_to_json"]


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


class WebhookSigning:
    """How the sandbox signs what it delivers: a scheme of `sign`, its key material, options.

    Give it to ``Sandbox(webhook_signing=...)`` (or ``set_webhook_signing``, the control API's
    ``PUT /_sandbox/v1/webhook/signing``, ``smartpos sandbox --sign SCHEME --secret ...``):
    every delivery then carries the headers `sign` writes for its exact body, signed again at
    each attempt with a fresh timestamp and, for ``standard-webhooks``, the same
    ``webhook-id`` (the event's ``id``), as real senders do.

    ```python
    from smartpos.testing import Sandbox, WebhookSigning
    from smartpos.webhooks import MemoryStore, StandardWebhooksVerifier, WebhookReceiver

    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    store = MemoryStore()
    receiver = WebhookReceiver(store, verifier=StandardWebhooksVerifier(secret))
    with Sandbox(webhook_signing=WebhookSigning("standard-webhooks", secret)) as sandbox:
        sandbox.set_webhook(receiver)
        event = sandbox.trigger("pagamento.aprovado")
    assert store.get(event["id"]) is not None
    ```

    Args:
        scheme: A scheme of `sign` (``"standard-webhooks"``, ``"stripe"``,
            ``"hmac-manifest"``, ``"token"``, ``"ed25519"``, ``"rsa"``, ``"hmac"``,
            ``"shared-secret"``).
        secret: Its key material, as for `sign` (several while testing a rotation).
        **options: `sign`'s options for the scheme (``header``, ``template``...).

    Raises:
        smartpos.ConfigurationError: An unknown scheme or option, or key material the scheme
            cannot use (checked here, by signing a sample body, so that a mistake shows when
            the sandbox is built rather than as failed deliveries).
    """

    __slots__ = ("_options", "_scheme", "_secret")

    def __init__(
        self,
        scheme: str,
        secret: str | bytes | Sequence[str | bytes],
        **options: Any,
    ) -> None:
        if not isinstance(secret, (str, bytes)):
            secret = tuple(key_items(secret))
        if "headers" in options:
            options["headers"] = dict(options["headers"] or {})
        self._scheme = scheme
        self._secret = secret
        self._options = options
        try:
            self.headers(_SAMPLE, timestamp=0)
        except ConfigurationError:
            raise
        except ValueError:
            pass  # a field of a manifest the sample lacks: a real envelope may hold it

    @property
    def scheme(self) -> str:
        """The scheme's name."""
        return self._scheme

    @property
    def secret(self) -> str | bytes | tuple[str | bytes, ...]:
        """The key material (never shown by ``repr``)."""
        return self._secret

    @property
    def options(self) -> dict[str, Any]:
        """A copy of the options."""
        return dict(self._options)

    def __repr__(self) -> str:
        options = "".join(f", {name}=..." for name in sorted(self._options))
        return f"WebhookSigning({self._scheme!r}, secret=***{options})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WebhookSigning):
            return NotImplemented
        return (self._scheme, self._secret, self._options) == (
            other._scheme,
            other._secret,
            other._options,
        )

    __hash__ = None  # type: ignore[assignment]

    def headers(
        self,
        body: bytes,
        *,
        timestamp: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> dict[str, str]:
        """The headers of one attempt to deliver ``body`` (`sign` with this configuration).

        Args:
            body: The exact body.
            timestamp: Seconds since the epoch to sign (default now).
            headers: More headers the delivery carries (a manifest's ``{header:NAME}`` fields
                sign them), over the ``headers`` option; returned too.

        Returns:
            The headers, lower-case names.

        Raises:
            ValueError: A field of a manifest that neither the body nor the headers hold.
        """
        options = dict(self._options)
        if headers:
            options["headers"] = {**(options.get("headers") or {}), **headers}
        return sign_headers(self._scheme, body, self._secret, timestamp=timestamp, options=options)


#: The body the configuration is tried on when built.
_SAMPLE = b'{"id":"evt-sample","tipo":"pagamento.aprovado","dados":{}}'


def signing_to_json(signing: WebhookSigning) -> dict[str, Any]:
    """The control API's JSON of a signing: ``{"scheme", "secret", "options"}``.

    Raises:
        TypeError: Key material in bytes (JSON carries text: give its PEM, Base64 or hex).
    """
    secret = signing.secret
    items = [secret] if isinstance(secret, (str, bytes)) else list(secret)
    if any(isinstance(item, bytes) for item in items):
        raise TypeError(
            "over the control API a secret is text: give bytes keys as PEM, Base64 or hex"
        )
    return {
        "scheme": signing.scheme,
        "secret": secret if isinstance(secret, str) else items,
        "options": signing.options,
    }


def signing_from_json(value: object) -> WebhookSigning:
    """Read the JSON of `signing_to_json`.

    Raises:
        ValueError: Not such an object (a ``ConfigurationError`` for a bad configuration).
    """
    if not isinstance(value, Mapping):
        raise ValueError("signing is an object: {scheme, secret, options}")
    unknown = sorted(set(value) - {"scheme", "secret", "options"})
    if unknown:
        raise ValueError(f"signing has no {', '.join(unknown)} (it has scheme, secret, options)")
    scheme, secret = value.get("scheme"), value.get("secret")
    options = value.get("options") or {}
    if not isinstance(scheme, str):
        raise ValueError("signing.scheme is a str")
    texts = isinstance(secret, list) and secret and all(isinstance(s, str) for s in secret)
    if not (isinstance(secret, str) or texts):
        raise ValueError("signing.secret is a str or a list of str")
    if not isinstance(options, Mapping):
        raise ValueError("signing.options is an object")
    return WebhookSigning(scheme, secret, **options)  # type: ignore[arg-type]
