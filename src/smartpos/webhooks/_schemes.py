"""The signature schemes payment providers use, each a verifier the receiver takes.

The service does not publish its scheme yet (spec 5.5). When it does, it will be one of these,
and a partner turns it on with a setting (``make_verifier(scheme, secret, **options)``, which
the Django, FastAPI and Flask integrations call), not with a rewrite:

=====================  =======================================================================
``standard-webhooks``  `StandardWebhooksVerifier`: ``webhook-id``/``-timestamp``/``-signature``
``stripe``             `StripeStyleVerifier`: ``t=<ts>,v1=<hex>`` over ``<ts>.<body>``
``hmac-manifest``      `HmacManifestVerifier`: an HMAC of an explicit template of fields
``token``              `TokenDigestVerifier`: SHA-256 of the token and the body
``ed25519``            `Ed25519SignatureVerifier`: configured public keys
``rsa``                `RsaSignatureVerifier`: configured public keys
``hmac``               ``HmacSignatureVerifier``: an HMAC of the body alone
``shared-secret``      ``SharedSecretVerifier``: a secret header
=====================  =======================================================================

What every one of them does the same way:

- **Rotation**: several secrets or keys, any one valid; a header holding several signatures
  passes when one matches (at most 16 are read).
- **Time**: a signed timestamp is in seconds (one in milliseconds is refused with a message
  saying so, unless a manifest says ``timestamp_unit="ms"``) and must be within ``tolerance``
  seconds of ``clock()`` in either direction; the signature is checked first, so a forgery is
  told "does not match" and only an authentic delivery is told it is stale.
- **Constant time**: MACs are compared with ``hmac.compare_digest``.
- **Diagnosis**: a refusal is logged at DEBUG on ``smartpos.webhooks.verify`` with what was
  compared, never a key, the body or the expected signature.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from smartpos._errors import ConfigurationError
from smartpos._messages import message
from smartpos._signatures import (
    MAX_SIGNATURES,
    SCHEMES,
    STANDARD_WEBHOOKS,
    Layout,
    Refusal,
    build_layout,
    check_header_name,
    check_window,
    decode_signature,
    header_bytes,
    hmac_algorithm,
    key_items,
    parse_timestamp,
    secret_bytes,
    standard_webhooks_keys,
    token_digest,
    token_separator,
)

from ._open import option_problem
from ._seconds import check_seconds
from ._verify import HmacSignatureVerifier, SharedSecretVerifier, Verifier, refused

__all__ = [
    "DEFAULT_TOLERANCE",
    "VERIFIERS",
    "Ed25519SignatureVerifier",
    "HmacManifestVerifier",
    "RsaSignatureVerifier",
    "StandardWebhooksVerifier",
    "StripeStyleVerifier",
    "TokenDigestVerifier",
    "make_verifier",
]

#: Seconds a signed timestamp may be away from the clock, either way (Standard Webhooks' and
#: Stripe's five minutes).
DEFAULT_TOLERANCE = 300.0

_logger = logging.getLogger("smartpos.webhooks.verify")

_Clock = Callable[[], float]


def _clock(clock: object) -> _Clock:
    if clock is None:
        return time.time
    if not callable(clock):
        raise ConfigurationError(message("webhooks.clock"))
    return clock


def _tolerance(tolerance: object) -> float:
    return check_seconds("tolerance", tolerance, positive=True, option=True)


def _skew(seconds: float | None, clock: _Clock) -> str | None:
    return None if seconds is None else f"{clock() - seconds:+.0f} s"


# --- Standard Webhooks ----------------------------------------------------------------------


class StandardWebhooksVerifier:
    """Accept a delivery signed as Standard Webhooks specifies (standardwebhooks.com).

    The delivery carries ``webhook-id``, ``webhook-timestamp`` (seconds since the epoch) and
    ``webhook-signature``: space-separated ``v1,<Base64>`` signatures (HMAC-SHA256 of
    ``{webhook-id}.{webhook-timestamp}.{body}``) and ``v1a,<Base64>`` ones (ed25519 of the
    same bytes). It passes when any signature matches any key, and its timestamp is within
    ``tolerance`` seconds of ``clock()`` in either direction.

    ```python
    from smartpos.testing import sign
    from smartpos.webhooks import StandardWebhooksVerifier

    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"id":"evt-1","tipo":"pagamento.aprovado"}'
    verifier = StandardWebhooksVerifier([secret, "whsec_bmV3LXNlY3JldC0yNC1ieXRlcyEh"])
    verifier.verify(body, sign(body, secret=secret))  # passes: one of the secrets matches
    ```

    Args:
        secrets: The key material, or a sequence of it while rotating (any one is valid):
            ``"whsec_<Base64>"`` secrets (bare Base64 and raw bytes are read as the
            reference library reads them), and ``"whpk_<Base64>"`` ed25519 public keys for
            ``v1a`` signatures (these need ``pip install "smartpos[crypto]"``).
        tolerance: Seconds the timestamp may be away from ``clock()``, either way.
        clock: Returns the current time in seconds since the epoch (default ``time.time``);
            tests pass their own.

    Raises:
        ConfigurationError: A secret that is not ``whsec_``/Base64, a ``whsk_`` private key
            (the sender's; give the ``whpk_`` public key), a ``whpk_`` key without the
            ``cryptography`` package, or a bad ``tolerance`` or ``clock``.
    """

    #: The scheme's name in settings and ``smartpos.testing.sign``.
    scheme: ClassVar[str] = STANDARD_WEBHOOKS

    def __init__(
        self,
        secrets: str | bytes | Sequence[str | bytes],
        *,
        tolerance: float = DEFAULT_TOLERANCE,
        clock: Callable[[], float] | None = None,
    ) -> None:
        hmac_keys, public, private = standard_webhooks_keys(secrets)
        if private:
            raise ConfigurationError(message("webhooks.standard_private_key"))
        # Keyed once: copying a keyed HMAC skips the key schedule on every delivery.
        self._macs = tuple(hmac.new(key, digestmod="sha256") for key in hmac_keys)
        self._public_keys: tuple[Any, ...] = ()
        if public:
            from smartpos import _crypto

            self._public_keys = tuple(
                _crypto.load_ed25519_public(raw, index=i) for i, raw in enumerate(public, 1)
            )
        self._tolerance = _tolerance(tolerance)
        self._clock = _clock(clock)

    def __repr__(self) -> str:
        return (
            f"StandardWebhooksVerifier(secrets=*** ({len(self._macs)} v1, "
            f"{len(self._public_keys)} v1a), tolerance={self._tolerance:g})"
        )

    @property
    def tolerance(self) -> float:
        """Seconds the timestamp may be away from the clock, either way."""
        return self._tolerance

    def verify(self, body: bytes, headers: Mapping[str, str]) -> None:
        """Raise `VerificationError` unless a signature matches and the timestamp is fresh."""
        try:
            self._verify(body, headers)
        except Refusal as exc:
            raise refused(self.scheme, exc.reason, lambda: self._compared(body, headers)) from None

    def _verify(self, body: bytes, headers: Mapping[str, str]) -> None:
        msg_id = headers.get("webhook-id")
        stamp = headers.get("webhook-timestamp")
        value = headers.get("webhook-signature")
        if not msg_id or not stamp or not value:
            missing = [
                name
                for name, got in (
                    ("webhook-id", msg_id),
                    ("webhook-timestamp", stamp),
                    ("webhook-signature", value),
                )
                if not got
            ]
            which = f"{', '.join(missing)} header" + (" is" if len(missing) == 1 else "s are")
            raise Refusal(f"the {which} missing")
        seconds = parse_timestamp(stamp, what="the webhook-timestamp header")
        v1, v1a = _standard_signatures(value)
        signed = header_bytes(msg_id) + b"." + header_bytes(stamp) + b"." + body
        matched = False
        for keyed in self._macs:
            mac = keyed.copy()
            mac.update(signed)
            expected = mac.digest()
            for signature in v1:
                matched |= hmac.compare_digest(expected, signature)
        if not matched and v1a and self._public_keys:
            from smartpos import _crypto

            matched = any(
                _crypto.ed25519_verify(key, signature, signed)
                for key in self._public_keys
                for signature in v1a
            )
        if not matched:
            raise Refusal("no signature of the webhook-signature header matches")
        check_window(seconds, self._clock(), self._tolerance, what="the webhook-timestamp")

    def _compared(self, body: bytes, headers: Mapping[str, str]) -> dict[str, object]:
        """What a refusal's DEBUG line shows, read again from the delivery (refusals only)."""
        value = headers.get("webhook-signature") or ""
        stamp = headers.get("webhook-timestamp") or ""
        try:
            v1, v1a = _standard_signatures(value)
        except Refusal:
            v1, v1a = [], []
        try:
            seconds: float | None = parse_timestamp(stamp, what="")
        except Refusal:
            seconds = None
        return {
            "headers": "webhook-id, webhook-timestamp, webhook-signature",
            "signatures": (
                f"{len(value.split())} received ({len(v1)} v1, {len(v1a)} v1a decodable)"
            ),
            "keys": f"{len(self._macs)} v1, {len(self._public_keys)} v1a",
            "timestamp_skew": _skew(seconds, self._clock),
            "tolerance": f"{self._tolerance:g} s",
            "signed": (
                f"{{webhook-id}}={len(headers.get('webhook-id') or '')} chars."
                f"{{webhook-timestamp}}={len(stamp)} chars.{{body}}={len(body)} bytes"
            ),
        }


def _standard_signatures(value: str) -> tuple[list[bytes], list[bytes]]:
    """The decodable ``v1`` and ``v1a`` signatures of a ``webhook-signature`` header.

    Raises:
        Refusal: More than `MAX_SIGNATURES` entries, or not one ``v1``/``v1a`` signature.
    """
    items = value.split()
    if len(items) > MAX_SIGNATURES:
        raise Refusal(
            f"the webhook-signature header holds {len(items)} signatures, more than "
            f"{MAX_SIGNATURES}"
        )
    v1: list[bytes] = []
    v1a: list[bytes] = []
    for item in items:
        version, _, text = item.partition(",")
        decoded = decode_signature(text, "base64")
        if decoded is not None and version == "v1":
            v1.append(decoded)
        elif decoded is not None and version == "v1a":
            v1a.append(decoded)
    if not v1 and not v1a:
        raise Refusal("the webhook-signature header holds no v1 or v1a signature")
    return v1, v1a


# --- the layout-driven schemes: one header, a template, a MAC or a public key ----------------


class _LayoutVerifier:
    """What the Stripe-style, manifest, ed25519 and RSA verifiers share: read the layout's
    header, fill the template, check the signatures (`_matches`), then the timestamp."""

    scheme: ClassVar[str]

    def __init__(self, layout: Layout, *, keys: int, tolerance: object, clock: object) -> None:
        self._layout = layout
        self._key_count = keys
        self._tolerance = _tolerance(tolerance)
        self._clock = _clock(clock)
        if not layout.template.uses_body:
            _logger.warning(
                "%s: the template %r does not sign {body}: the rest of a delivery's body is "
                "not authenticated",
                type(self).__name__,
                layout.template.text,
            )

    @property
    def header(self) -> str:
        """The lower-case header that carries the signatures."""
        return self._layout.header

    @property
    def template(self) -> str:
        """What is signed, as the template text (``{timestamp}.{body}`` for Stripe)."""
        return self._layout.template.text

    @property
    def tolerance(self) -> float:
        """Seconds a signed timestamp may be away from the clock, either way."""
        return self._tolerance

    def _matches(self, parts: list[bytes], signatures: list[bytes]) -> bool:
        raise NotImplementedError

    def verify(self, body: bytes, headers: Mapping[str, str]) -> None:
        """Raise `VerificationError` unless a signature of the header matches a key and a
        signed timestamp is within the tolerance."""
        try:
            self._verify(body, headers)
        except Refusal as exc:
            raise refused(self.scheme, exc.reason, lambda: self._compared(body, headers)) from None

    def _verify(self, body: bytes, headers: Mapping[str, str]) -> None:
        layout = self._layout
        texts, stamp = layout.read(headers)
        seconds: float | None = None
        if layout.template.uses_timestamp and stamp is not None:  # read() saw to it
            seconds = parse_timestamp(
                stamp, what=str(layout.timestamp_source), unit=layout.timestamp_unit
            )
        parts = layout.template.parts(body, headers, stamp)
        decoded = [d for d in (decode_signature(t, layout.encoding) for t in texts) if d]
        if not self._matches(parts, decoded):
            raise Refusal(f"the {layout.header} signature does not match")
        if seconds is not None:
            check_window(seconds, self._clock(), self._tolerance, what=str(layout.timestamp_source))

    def _compared(self, body: bytes, headers: Mapping[str, str]) -> dict[str, object]:
        """What a refusal's DEBUG line shows, read again from the delivery (refusals only)."""
        layout = self._layout
        try:
            texts, stamp = layout.read(headers)
        except Refusal:
            texts, stamp = [], None
        try:
            seconds: float | None = (
                parse_timestamp(stamp, what="", unit=layout.timestamp_unit)
                if stamp is not None and layout.template.uses_timestamp
                else None
            )
        except Refusal:
            seconds = None
        decoded = [d for d in (decode_signature(t, layout.encoding) for t in texts) if d]
        return {
            "header": layout.header,
            "signatures": f"{len(texts)} received, {len(decoded)} decodable as {layout.encoding}",
            "keys": self._key_count,
            "timestamp": layout.timestamp_source,
            "timestamp_skew": _skew(seconds, self._clock),
            "tolerance": f"{self._tolerance:g} s" if layout.template.uses_timestamp else None,
            "manifest": layout.template.shape(body, headers, stamp),
        }


class HmacManifestVerifier(_LayoutVerifier):
    """Accept a delivery whose header carries the HMAC of an explicit template of fields.

    The template says which fields a provider signs, and in which order; write it as the
    provider documents it. Fields: ``{body}`` (the raw body), ``{timestamp}`` (the
    timestamp, as its header carries it), ``{header:NAME}`` (a request header), ``{json:PATH}``
    (a string or integer of the JSON body, e.g. ``{json:data.id}``); ``|lower`` lower-cases a
    header or JSON value; ``{{`` and ``}}`` are literal braces; the rest is literal text.

    Mercado Pago documents ``id:[data.id_url];request-id:[x-request-id_header];ts:[ts_header];``
    with ``x-signature: ts=<seconds>,v1=<hex>``; here that is (the defaults hold the header)::

        HmacManifestVerifier(
            secret,
            template="id:{json:data.id|lower};request-id:{header:x-request-id};ts:{timestamp};",
        )

    (Mercado Pago puts ``data.id`` in the URL's query as well as in the body; the receiver
    sees the body, which holds the same id.) A template without ``{body}`` leaves the rest of
    the body unauthenticated, as such a provider intends (you fetch the resource by its id);
    a warning is logged when such a verifier is built.

    ```python
    from smartpos.testing import sign
    from smartpos.webhooks import HmacManifestVerifier

    template = "{header:webhook-id}.{timestamp}.{body}"
    verifier = HmacManifestVerifier("s3cret", template=template, timestamp_key="t")
    body = b'{"id":"evt-1","tipo":"pagamento.aprovado"}'
    headers = sign(
        body,
        secret="s3cret",
        scheme="hmac-manifest",
        template=template,
        timestamp_key="t",
        headers={"webhook-id": "evt-1"},
    )
    verifier.verify(body, headers)
    ```

    Args:
        secrets: The secret (a str is UTF-8), or a sequence of them while rotating.
        template: What is signed (see above). Required: nothing is guessed.
        header: The header carrying the signatures.
        signature_key: The key of each signature among the header's ``key=value`` pairs;
            ``None``: the header holds bare signatures (space- or comma-separated).
        timestamp_key: The key of the timestamp among those pairs (unused when the header
            holds bare signatures, or with ``timestamp_header``).
        timestamp_header: Or the header carrying the timestamp alone.
        encoding: ``"hex"`` or ``"base64"``: how the signatures are written.
        timestamp_unit: ``"s"`` (seconds) or ``"ms"`` (milliseconds) since the epoch.
        algorithm: The ``hashlib`` digest of the HMAC.
        tolerance: Seconds a signed timestamp may be away from ``clock()``, either way
            (checked only when the template signs ``{timestamp}``: an unsigned one proves
            nothing).
        clock: Returns the current time in seconds since the epoch (default ``time.time``).

    Raises:
        ConfigurationError: An empty secret, a template with an unknown field or a
            ``{timestamp}`` it has nowhere to read, or another bad option.
    """

    scheme: ClassVar[str] = "hmac-manifest"

    def __init__(
        self,
        secrets: str | bytes | Sequence[str | bytes],
        *,
        template: str,
        header: str = "x-signature",
        signature_key: str | None = "v1",
        timestamp_key: str | None = "ts",
        timestamp_header: str | None = None,
        encoding: str = "hex",
        timestamp_unit: str = "s",
        algorithm: str = "sha256",
        tolerance: float = DEFAULT_TOLERANCE,
        clock: Callable[[], float] | None = None,
    ) -> None:
        layout = build_layout(
            self.scheme,
            {
                "template": template,
                "header": header,
                "signature_key": signature_key,
                "timestamp_key": timestamp_key,
                "timestamp_header": timestamp_header,
                "encoding": encoding,
                "timestamp_unit": timestamp_unit,
            },
        )
        self._init_hmac(layout, secrets, algorithm, tolerance, clock)

    def _init_hmac(
        self, layout: Layout, secrets: object, algorithm: str, tolerance: object, clock: object
    ) -> None:
        self._algorithm = hmac_algorithm(algorithm)
        # Keyed once: copying a keyed HMAC skips the key schedule on every delivery.
        self._macs = tuple(
            hmac.new(secret_bytes(s), digestmod=self._algorithm) for s in key_items(secrets)
        )
        super().__init__(layout, keys=len(self._macs), tolerance=tolerance, clock=clock)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(secrets=***, template={self.template!r}, "
            f"header={self.header!r}, tolerance={self.tolerance:g})"
        )

    def _matches(self, parts: list[bytes], signatures: list[bytes]) -> bool:
        matched = False
        # Every secret against every signature, without stopping early: same time either way.
        for keyed in self._macs:
            mac = keyed.copy()
            for part in parts:
                mac.update(part)
            expected = mac.digest()
            for signature in signatures:
                matched |= hmac.compare_digest(expected, signature)
        return matched


class StripeStyleVerifier(HmacManifestVerifier):
    """Accept a delivery signed the way Stripe signs webhooks.

    The header (``Stripe-Signature`` by default) reads ``t=<seconds>,v1=<hex>[,v1=<hex>...]``;
    each ``v1`` is the hex HMAC-SHA256 of ``<t>.<body>``, keyed with the secret exactly as
    given (Stripe's ``whsec_...`` string is the key itself, not Base64 to decode). Other
    schemes of the header (``v0``) are ignored, against downgrades.

    ```python
    from smartpos.testing import sign
    from smartpos.webhooks import StripeStyleVerifier

    body = b'{"id":"evt-1","tipo":"pagamento.aprovado"}'
    headers = sign(body, secret="whsec_test", scheme="stripe")
    StripeStyleVerifier("whsec_test").verify(body, headers)
    ```

    Args:
        secrets: The signing secret, or a sequence of them while rotating.
        header: The header carrying ``t=...,v1=...`` (a service may use its own name).
        tolerance: Seconds ``t`` may be away from ``clock()``, either way.
        clock: Returns the current time in seconds since the epoch (default ``time.time``).

    Raises:
        ConfigurationError: An empty secret, or a bad header, ``tolerance`` or ``clock``.
    """

    scheme: ClassVar[str] = "stripe"

    def __init__(  # narrower than its base on purpose: Stripe's layout is fixed
        self,
        secrets: str | bytes | Sequence[str | bytes],
        *,
        header: str = "stripe-signature",
        tolerance: float = DEFAULT_TOLERANCE,
        clock: Callable[[], float] | None = None,
    ) -> None:
        layout = build_layout(self.scheme, {"header": header})
        self._init_hmac(layout, secrets, "sha256", tolerance, clock)


class Ed25519SignatureVerifier(_LayoutVerifier):
    """Accept a delivery signed with ed25519 by the holder of a configured private key.

    Needs ``pip install "smartpos[crypto]"``. By default the header (``x-signature``) holds
    the Base64 signature of the body; a template, a timestamp and hex say otherwise, e.g.
    Discord's ``x-signature-ed25519`` (hex) over ``{timestamp}{body}`` with the timestamp in
    ``x-signature-timestamp``.

    ```python
    from smartpos.testing import sign
    from smartpos.webhooks import Ed25519SignatureVerifier

    seed = bytes(range(32))  # the sender's private key; the receiver gets the public one
    body = b'{"id":"evt-1","tipo":"pagamento.aprovado"}'
    headers = sign(body, secret=seed, scheme="ed25519")

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    public = Ed25519PrivateKey.from_private_bytes(seed).public_key()
    pem = public.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()
    Ed25519SignatureVerifier(pem).verify(body, headers)
    ```

    Args:
        public_keys: A public key, or a sequence of them while rotating: PEM text, DER
            bytes, the 32 raw bytes, their Base64 or hex, or ``whpk_<Base64>``.
        header: The header carrying the signatures.
        template: What is signed (see `HmacManifestVerifier`); default the body alone.
        signature_key: The key of each signature among ``key=value`` pairs, or ``None``.
        timestamp_key: The key of the timestamp among those pairs (unused without pairs, or
            with ``timestamp_header``).
        timestamp_header: Or the header carrying the timestamp alone.
        encoding: ``"base64"`` or ``"hex"``.
        timestamp_unit: ``"s"`` or ``"ms"``.
        tolerance: Seconds a signed timestamp may be away from ``clock()``, either way.
        clock: Returns the current time in seconds since the epoch (default ``time.time``).

    Raises:
        ConfigurationError: ``cryptography`` is not installed (the message names the extra),
            a key is not an ed25519 public key, or an option is bad.
    """

    scheme: ClassVar[str] = "ed25519"

    def __init__(
        self,
        public_keys: str | bytes | Sequence[str | bytes],
        *,
        header: str = "x-signature",
        template: str = "{body}",
        signature_key: str | None = None,
        timestamp_key: str | None = None,
        timestamp_header: str | None = None,
        encoding: str = "base64",
        timestamp_unit: str = "s",
        tolerance: float = DEFAULT_TOLERANCE,
        clock: Callable[[], float] | None = None,
    ) -> None:
        from smartpos import _crypto

        layout = build_layout(
            self.scheme,
            {
                "template": template,
                "header": header,
                "signature_key": signature_key,
                "timestamp_key": timestamp_key,
                "timestamp_header": timestamp_header,
                "encoding": encoding,
                "timestamp_unit": timestamp_unit,
            },
        )
        self._keys = tuple(
            _crypto.load_ed25519_public(k, index=i) for i, k in enumerate(key_items(public_keys), 1)
        )
        super().__init__(layout, keys=len(self._keys), tolerance=tolerance, clock=clock)

    def __repr__(self) -> str:
        return (
            f"Ed25519SignatureVerifier({len(self._keys)} public key(s), "
            f"template={self.template!r}, header={self.header!r})"
        )

    def _matches(self, parts: list[bytes], signatures: list[bytes]) -> bool:
        from smartpos import _crypto

        data = b"".join(parts)
        return any(
            _crypto.ed25519_verify(key, signature, data)
            for key in self._keys
            for signature in signatures
        )


class RsaSignatureVerifier(_LayoutVerifier):
    """Accept a delivery signed with RSA by the holder of a configured private key.

    Needs ``pip install "smartpos[crypto]"``. By default the header (``x-signature``) holds
    the Base64 PKCS #1 v1.5 SHA-256 signature of the body: Woovi's (OpenPix's)
    ``x-webhook-signature`` is this with ``header="x-webhook-signature"``.

    Args:
        public_keys: A public key, or a sequence of them while rotating: PEM text, DER
            bytes, or the Base64 of either.
        header: The header carrying the signatures.
        template: What is signed (see `HmacManifestVerifier`); default the body alone.
        signature_key: The key of each signature among ``key=value`` pairs, or ``None``.
        timestamp_key: The key of the timestamp among those pairs (unused without pairs, or
            with ``timestamp_header``).
        timestamp_header: Or the header carrying the timestamp alone.
        encoding: ``"base64"`` or ``"hex"``.
        timestamp_unit: ``"s"`` or ``"ms"``.
        padding: ``"pkcs1v15"`` or ``"pss"`` (any salt length).
        algorithm: ``"sha256"``, ``"sha384"`` or ``"sha512"``.
        tolerance: Seconds a signed timestamp may be away from ``clock()``, either way.
        clock: Returns the current time in seconds since the epoch (default ``time.time``).

    Raises:
        ConfigurationError: ``cryptography`` is not installed (the message names the extra),
            a key is not an RSA public key, or an option is bad.
    """

    scheme: ClassVar[str] = "rsa"

    def __init__(
        self,
        public_keys: str | bytes | Sequence[str | bytes],
        *,
        header: str = "x-signature",
        template: str = "{body}",
        signature_key: str | None = None,
        timestamp_key: str | None = None,
        timestamp_header: str | None = None,
        encoding: str = "base64",
        timestamp_unit: str = "s",
        padding: str = "pkcs1v15",
        algorithm: str = "sha256",
        tolerance: float = DEFAULT_TOLERANCE,
        clock: Callable[[], float] | None = None,
    ) -> None:
        from smartpos import _crypto

        layout = build_layout(
            self.scheme,
            {
                "template": template,
                "header": header,
                "signature_key": signature_key,
                "timestamp_key": timestamp_key,
                "timestamp_header": timestamp_header,
                "encoding": encoding,
                "timestamp_unit": timestamp_unit,
            },
        )
        self._padding = _crypto.rsa_padding(padding)
        self._algorithm = _crypto.rsa_hash(algorithm)
        self._keys = tuple(
            _crypto.load_rsa_public(k, index=i) for i, k in enumerate(key_items(public_keys), 1)
        )
        super().__init__(layout, keys=len(self._keys), tolerance=tolerance, clock=clock)

    def __repr__(self) -> str:
        return (
            f"RsaSignatureVerifier({len(self._keys)} public key(s), template={self.template!r}, "
            f"header={self.header!r}, padding={self._padding!r}, algorithm={self._algorithm!r})"
        )

    def _matches(self, parts: list[bytes], signatures: list[bytes]) -> bool:
        from smartpos import _crypto

        data = b"".join(parts)
        return any(
            _crypto.rsa_verify(key, signature, data, self._padding, self._algorithm)
            for key in self._keys
            for signature in signatures
        )


# --- a token digest ---------------------------------------------------------------------------


class TokenDigestVerifier:
    """Accept a delivery whose header carries the digest of a token and the body.

    PagBank's ``x-authenticity-token``: the hex SHA-256 of the account's token, ``-`` and the
    raw body, in that order. A plain digest is weaker than an HMAC (with the token first, its
    digest can be extended over appended bytes; the receiver's JSON check refuses such a body,
    but prefer an HMAC scheme where there is a choice) and signs no timestamp, so it cannot
    refuse a replay: the event id's deduplication is what makes a replay harmless.

    ```python
    from smartpos.testing import sign
    from smartpos.webhooks import TokenDigestVerifier

    body = b'{"id":"evt-1","tipo":"pagamento.aprovado"}'
    headers = sign(body, secret="account-token", scheme="token")
    TokenDigestVerifier("account-token").verify(body, headers)
    ```

    Args:
        tokens: The token, or a sequence of them while rotating.
        header: The header carrying the hex digest.
        separator: Written between the token and the body.
        algorithm: The ``hashlib`` digest.

    Raises:
        ConfigurationError: An empty token, a bad header or separator, or an unknown algorithm.
    """

    #: The scheme's name in settings and ``smartpos.testing.sign``.
    scheme: ClassVar[str] = "token"

    def __init__(
        self,
        tokens: str | bytes | Sequence[str | bytes],
        *,
        header: str = "x-authenticity-token",
        separator: str = "-",
        algorithm: str = "sha256",
    ) -> None:
        self._tokens = tuple(secret_bytes(t, "token") for t in key_items(tokens))
        self._header = check_header_name(header)
        self._separator = token_separator(separator)
        self._algorithm = hmac_algorithm(algorithm)

    def __repr__(self) -> str:
        return (
            f"TokenDigestVerifier(tokens=***, header={self._header!r}, "
            f"separator={self._separator.decode()!r}, algorithm={self._algorithm!r})"
        )

    @property
    def header(self) -> str:
        """The lower-case header that carries the digest."""
        return self._header

    def verify(self, body: bytes, headers: Mapping[str, str]) -> None:
        """Raise `VerificationError` unless the header carries the digest of a token and the
        body."""
        value = headers.get(self._header)
        if value is None:
            raise refused(self.scheme, f"the {self._header} header is missing", dict)
        given = decode_signature(value, "hex")
        matched = False
        for token in self._tokens:
            expected = token_digest(
                token, body, separator=self._separator, algorithm=self._algorithm
            )
            matched |= given is not None and hmac.compare_digest(expected, given)
        if not matched:
            raise refused(
                self.scheme,
                f"the {self._header} digest does not match",
                lambda: {
                    "header": self._header,
                    "digest": "not hex" if given is None else f"{len(given)} bytes",
                    "tokens": len(self._tokens),
                    "signed": f"{{token}}{self._separator.decode()}{{body}}={len(body)} bytes",
                    "algorithm": self._algorithm,
                },
            )


# --- one scheme name -> one verifier ---------------------------------------------------------

#: The verifier of each scheme of ``smartpos._signatures.SCHEMES`` (a test compares the two).
VERIFIERS: dict[str, type[Any]] = {
    STANDARD_WEBHOOKS: StandardWebhooksVerifier,
    "stripe": StripeStyleVerifier,
    "hmac-manifest": HmacManifestVerifier,
    "token": TokenDigestVerifier,
    "ed25519": Ed25519SignatureVerifier,
    "rsa": RsaSignatureVerifier,
    "hmac": HmacSignatureVerifier,
    "shared-secret": SharedSecretVerifier,
}


def make_verifier(
    scheme: str, secret: str | bytes | Sequence[str | bytes], **options: Any
) -> Verifier:
    """Build the verifier of a scheme named in settings.

    ```python
    from smartpos.webhooks import make_verifier

    verifier = make_verifier("standard-webhooks", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    manifest = make_verifier(
        "hmac-manifest",
        "s3cret",
        template="id:{json:data.id|lower};request-id:{header:x-request-id};ts:{timestamp};",
    )
    ```

    Args:
        scheme: ``"standard-webhooks"``, ``"stripe"``, ``"hmac-manifest"``, ``"token"``,
            ``"ed25519"``, ``"rsa"``, ``"hmac"`` or ``"shared-secret"``.
        secret: The scheme's key material, or a sequence of it while rotating: the shared
            secrets, or for ``ed25519`` and ``rsa`` the public keys.
        **options: The verifier's keyword arguments (``header``, ``template``,
            ``tolerance``...). ``hmac`` reads its header from ``header`` (default
            ``x-signature``), ``shared-secret`` from ``header`` (default ``x-webhook-secret``).

    Returns:
        `StandardWebhooksVerifier`, `StripeStyleVerifier`, `HmacManifestVerifier`,
        `TokenDigestVerifier`, `Ed25519SignatureVerifier`, `RsaSignatureVerifier`,
        ``HmacSignatureVerifier`` or ``SharedSecretVerifier``.

    Raises:
        ConfigurationError: An unknown scheme, an option the verifier does not take (named),
            or whatever the verifier itself refuses.
    """
    if scheme not in VERIFIERS:
        raise ConfigurationError(
            message("webhooks.scheme_unknown", scheme=scheme, schemes=", ".join(SCHEMES))
        )
    cls = VERIFIERS[scheme]
    options = dict(options)
    if scheme == "hmac-manifest" and "template" not in options:
        raise ConfigurationError(message("webhooks.scheme_needs", scheme=scheme, option="template"))
    try:
        if scheme == "shared-secret":
            return SharedSecretVerifier(
                options.pop("header", "x-webhook-secret"), secret=secret, **options
            )
        if scheme == "hmac":
            return HmacSignatureVerifier(options.pop("header", "x-signature"), secret, **options)
        verifier: Verifier = cls(secret, **options)
    except TypeError as exc:
        raise ConfigurationError(
            message(
                "webhooks.scheme_options", scheme=scheme, problem=option_problem(exc, cls, options)
            )
        ) from None
    return verifier
