"""Webhook signatures, sans-I/O: what a scheme signs, and where its headers carry the result.

Both directions live here, so that the verifiers of ``smartpos.webhooks`` and the signer
``smartpos.testing.sign`` (which the sandbox uses too) build the signed bytes with one code:

- `Template`: the manifest a provider signs, written as text with fields (``{body}``,
  ``{timestamp}``, ``{header:NAME}``, ``{json:PATH}``), e.g. Mercado Pago's
  ``id:{json:data.id|lower};request-id:{header:x-request-id};ts:{timestamp};``;
- `Layout`: which header carries the signatures and the timestamp, and how (``t=...,v1=...``
  pairs or bare signatures; hex or Base64), read by a verifier and written by the signer;
- timestamps: seconds since the epoch (milliseconds only where a layout says so), never
  guessed: a value in the other unit is refused with a message that says which it looks like;
- key material: Standard Webhooks' ``whsec_`` / ``whpk_`` / ``whsk_`` forms;
- `sign_headers`: the headers of a signed delivery, for every scheme of `SCHEMES`.

The names of the schemes live in `SCHEMES` only; ``smartpos.webhooks.make_verifier`` maps each
to its verifier class and a test compares the two. Secrets never reach a message: every
refusal and every error here names the option or the header, never a value of a key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import attrs

from smartpos._errors import ConfigurationError
from smartpos._messages import message

__all__ = [
    "LAYOUT_DEFAULTS",
    "LAYOUT_OPTIONS",
    "MAX_SIGNATURES",
    "SCHEMES",
    "STANDARD_WEBHOOKS",
    "Layout",
    "Refusal",
    "Template",
    "build_layout",
    "check_header_name",
    "check_window",
    "decode_signature",
    "header_bytes",
    "hmac_algorithm",
    "key_items",
    "parse_timestamp",
    "secret_bytes",
    "sign_headers",
    "standard_webhooks_keys",
    "token_digest",
    "token_separator",
]

STANDARD_WEBHOOKS: Final = "standard-webhooks"
#: Every signature scheme, by the name settings and ``smartpos.testing.sign`` use.
SCHEMES: Final = (
    STANDARD_WEBHOOKS,
    "stripe",
    "hmac-manifest",
    "token",
    "ed25519",
    "rsa",
    "hmac",
    "shared-secret",
)
#: Signatures read from one header at most: more is a flood, not a rotation.
MAX_SIGNATURES: Final = 16
#: Digits of a timestamp at most (seconds of the year 2286 have 10, milliseconds 13).
_MAX_TIMESTAMP_DIGITS: Final = 16
#: At or above this, a timestamp in seconds would be past the year 5000: it is milliseconds.
_MILLISECONDS_FROM: Final = 10**11
_DIGITS = re.compile(r"[0-9]+")

#: The options a `Layout` takes, and each scheme's defaults (``None``: required / unused).
LAYOUT_OPTIONS: Final = (
    "header",
    "template",
    "signature_key",
    "timestamp_key",
    "timestamp_header",
    "encoding",
    "timestamp_unit",
)
LAYOUT_DEFAULTS: Final[Mapping[str, Mapping[str, str | None]]] = {
    # https://docs.stripe.com/webhooks#verify-manually: Stripe-Signature: t=<ts>,v1=<hex>,
    # signed payload "<ts>.<body>", HMAC-SHA256 keyed with the whole "whsec_..." string.
    "stripe": {
        "header": "stripe-signature",
        "template": "{timestamp}.{body}",
        "signature_key": "v1",
        "timestamp_key": "t",
        "timestamp_header": None,
        "encoding": "hex",
        "timestamp_unit": "s",
    },
    # Mercado Pago's shape (x-signature: ts=<ts>,v1=<hex>); the template is always explicit.
    "hmac-manifest": {
        "header": "x-signature",
        "template": None,
        "signature_key": "v1",
        "timestamp_key": "ts",
        "timestamp_header": None,
        "encoding": "hex",
        "timestamp_unit": "s",
    },
    "ed25519": {
        "header": "x-signature",
        "template": "{body}",
        "signature_key": None,
        "timestamp_key": None,
        "timestamp_header": None,
        "encoding": "base64",
        "timestamp_unit": "s",
    },
    "rsa": {
        "header": "x-signature",
        "template": "{body}",
        "signature_key": None,
        "timestamp_key": None,
        "timestamp_header": None,
        "encoding": "base64",
        "timestamp_unit": "s",
    },
}


class Refusal(Exception):
    """Why a delivery fails a check; the verifiers turn it into a ``VerificationError``.

    ``reason`` is the English sentence answered to the sender (it holds header names and
    counts, never a key or the body).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --- small checks shared by the verifiers and the signer ----------------------------------


def check_header_name(header: object, what: str = "header") -> str:
    """Return the lower-case header name, or raise ``ConfigurationError`` naming ``what``."""
    if not isinstance(header, str) or not header.strip():
        raise ConfigurationError(message("webhooks.header_named", name=what))
    return header.strip().lower()


def secret_bytes(secret: object, what: str = "secret") -> bytes:
    """One secret as bytes (a str is UTF-8), or ``ConfigurationError``; never shows it."""
    if isinstance(secret, str):
        secret = secret.encode("utf-8")
    if not isinstance(secret, bytes) or not secret:
        raise ConfigurationError(message("webhooks.secret_empty", what=what))
    return secret


def key_items(secret: object) -> list[str | bytes]:
    """A secret, or a sequence of them while rotating, as a non-empty list (not checked)."""
    if isinstance(secret, (str, bytes)):
        return [secret]
    try:
        items: list[str | bytes] = list(secret)  # type: ignore[call-overload]
    except TypeError:  # not iterable
        raise ConfigurationError(
            message("webhooks.secret_type", type=type(secret).__name__)
        ) from None
    if not items:
        raise ConfigurationError(message("webhooks.no_secret"))
    return items


def header_bytes(value: str) -> bytes:
    """A header value as the bytes it arrived as.

    ASGI and WSGI servers decode header bytes as Latin-1, so encoding back to Latin-1 gives
    the bytes the sender signed; a value that Latin-1 cannot hold came from Python code, and
    is UTF-8.
    """
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogateescape")


def _choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ConfigurationError(
            message("webhooks.choice", name=name, choices=", ".join(choices), value=value)
        )
    return value


# --- timestamps ----------------------------------------------------------------------------


def parse_timestamp(text: str, *, what: str, unit: str = "s") -> float:
    """Read a timestamp header's text as seconds since the epoch.

    Args:
        text: The text as received.
        what: Where it was read, for the refusal (``the webhook-timestamp header``).
        unit: ``"s"`` (every scheme's default) or ``"ms"`` (a layout that says so).

    Raises:
        Refusal: Not an integer, or one in the other unit (milliseconds where seconds are
            signed, and the reverse): the reason says which it looks like.
    """
    text = text.strip()
    if not text or len(text) > _MAX_TIMESTAMP_DIGITS or not _DIGITS.fullmatch(text):
        unit_name = "milliseconds" if unit == "ms" else "seconds"
        raise Refusal(f"{what} is not an integer number of {unit_name} since the epoch")
    value = int(text)
    if unit == "ms":
        if value < _MILLISECONDS_FROM:
            raise Refusal(
                f"{what} {text} looks like seconds; this scheme's timestamps are in "
                "milliseconds since the epoch"
            )
        return value / 1000
    if value >= _MILLISECONDS_FROM:
        raise Refusal(
            f"{what} {text} looks like milliseconds; this scheme's timestamps are in seconds "
            "since the epoch"
        )
    return float(value)


def check_window(timestamp: float, now: float, tolerance: float, *, what: str) -> float:
    """Return the skew ``now - timestamp``, or refuse it when over ``tolerance`` either way.

    Raises:
        Refusal: Too old (a replay, or a clock that is behind) or too far in the future.
    """
    skew = now - timestamp
    if skew > tolerance:
        raise Refusal(
            f"{what} is {skew:.0f} s old, more than the tolerance of {tolerance:g} s "
            "(a replayed delivery, or a clock that is off)"
        )
    if -skew > tolerance:
        raise Refusal(
            f"{what} is {-skew:.0f} s in the future, more than the tolerance of "
            f"{tolerance:g} s (the sender's clock or this server's is off)"
        )
    return skew


# --- the manifest template -----------------------------------------------------------------


@attrs.frozen(slots=True)
class _Field:
    """One ``{...}`` of a template."""

    kind: str  # "body", "timestamp", "header" or "json"
    name: str = ""  # the header (lower-case) or the JSON path
    lower: bool = False

    @property
    def label(self) -> str:
        text = f"{self.kind}:{self.name}" if self.name else self.kind
        return text + ("|lower" if self.lower else "")


def _parse_field(inner: str) -> _Field:
    text, lower = inner, False
    if text.endswith("|lower"):
        text, lower = text[: -len("|lower")], True
    kind, _, name = text.partition(":")
    if text in ("body", "timestamp") and not lower:
        return _Field(text)
    if kind == "header" and name.strip():
        return _Field("header", name.strip().lower(), lower)
    if kind == "json" and name and all(name.split(".")):
        return _Field("json", name, lower)
    raise ConfigurationError(message("webhooks.template_field", field=inner))


def _json_document(body: bytes) -> Any:
    """The body as JSON, read as leniently as the receiver reads it (BOM, cp1252)."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        pass
    try:
        return json.loads(body.decode("cp1252"))
    except (ValueError, RecursionError):
        return json.loads(body.decode("latin-1"))


class Template:
    """The text a scheme signs, with fields filled from the delivery.

    Fields: ``{body}`` (the raw body, byte for byte), ``{timestamp}`` (the timestamp as its
    header carries it), ``{header:NAME}`` (a request header, as received) and
    ``{json:PATH}`` (a string or integer of the JSON body at a dotted path, e.g.
    ``{json:data.id}``); ``|lower`` lower-cases a header or JSON value (Mercado Pago signs
    alphanumeric ids in lower case). ``{{`` and ``}}`` are literal braces. Everything else
    is literal text, UTF-8 encoded.

    Raises:
        ConfigurationError: An unknown field, or an unmatched brace.
    """

    __slots__ = ("_parts", "text", "uses_body", "uses_json", "uses_timestamp")

    def __init__(self, text: str) -> None:
        if not isinstance(text, str) or not text:
            raise ConfigurationError(message("webhooks.template_type"))
        parts: list[bytes | _Field] = []
        literal: list[str] = []
        index = 0
        while index < len(text):
            char = text[index]
            if char in "{}" and text[index + 1 : index + 2] == char:
                literal.append(char)
                index += 2
                continue
            if char == "}":
                raise ConfigurationError(message("webhooks.template_brace", position=index))
            if char == "{":
                end = text.find("}", index)
                inner = text[index + 1 : end]
                if end < 0 or "{" in inner:
                    raise ConfigurationError(message("webhooks.template_brace", position=index))
                if literal:
                    parts.append("".join(literal).encode("utf-8"))
                    literal = []
                parts.append(_parse_field(inner))
                index = end + 1
                continue
            literal.append(char)
            index += 1
        if literal:
            parts.append("".join(literal).encode("utf-8"))
        self.text = text
        self._parts = tuple(parts)
        fields = [p for p in parts if isinstance(p, _Field)]
        self.uses_body = any(f.kind == "body" for f in fields)
        self.uses_timestamp = any(f.kind == "timestamp" for f in fields)
        self.uses_json = any(f.kind == "json" for f in fields)

    def __repr__(self) -> str:
        return f"Template({self.text!r})"

    def parts(self, body: bytes, headers: Mapping[str, str], timestamp: str | None) -> list[bytes]:
        """The signed bytes, in pieces (the body is not copied).

        Raises:
            Refusal: A header or JSON field the template needs is missing or not a string or
                an integer; the reason names the field.
        """
        out: list[bytes] = []
        document: list[Any] = []
        for part in self._parts:
            if isinstance(part, bytes):
                out.append(part)
            elif part.kind == "body":
                out.append(body)
            elif part.kind == "timestamp":
                if timestamp is None:  # pragma: no cover - a Layout always reads one
                    raise Refusal("the timestamp the template signs is missing")
                out.append(timestamp.encode("ascii"))
            elif part.kind == "header":
                value = headers.get(part.name)
                if value is None:
                    raise Refusal(f"the {part.name} header the signature covers is missing")
                out.append(header_bytes(value.lower() if part.lower else value))
            else:
                out.append(self._json_value(part, body, document))
        return out

    def _json_value(self, part: _Field, body: bytes, document: list[Any]) -> bytes:
        if not document:
            try:
                document.append(_json_document(body))
            except (ValueError, RecursionError):
                raise Refusal(
                    f"the signature covers {{{part.label}}}, but the body is not JSON"
                ) from None
        value = document[0]
        for key in part.name.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise Refusal(
                f"the signature covers {{{part.label}}}, which the body does not hold as a "
                "string or an integer"
            )
        text = str(value)
        return (text.lower() if part.lower else text).encode("utf-8", "surrogatepass")

    def shape(self, body: bytes, headers: Mapping[str, str], timestamp: str | None) -> str:
        """The template with each field replaced by its size: what a DEBUG line may show.

        Literal text is configuration, not secret; a field shows where it comes from and
        how long it was (``{header:x-request-id}=36 chars``), never its value.
        """
        out: list[str] = []
        for part in self._parts:
            if isinstance(part, bytes):
                out.append(part.decode("utf-8"))
                continue
            if part.kind == "body":
                size = f"{len(body)} bytes"
            elif part.kind == "timestamp":
                size = "missing" if timestamp is None else f"{len(timestamp)} chars"
            elif part.kind == "header":
                value = headers.get(part.name)
                size = "missing" if value is None else f"{len(value)} chars"
            else:
                try:
                    size = f"{len(self._json_value(part, body, []))} bytes"
                except Refusal:
                    size = "missing"
            out.append(f"{{{part.label}}}={size}")
        return "".join(out)


# --- where the signature travels -----------------------------------------------------------


def _pairs(value: str) -> list[tuple[str, str]]:
    """``t=1,v1=ab,v1=cd`` as ``[("t", "1"), ("v1", "ab"), ("v1", "cd")]``."""
    pairs = []
    for item in value.split(","):
        key, sep, text = item.partition("=")
        if sep:
            pairs.append((key.strip(), text.strip()))
    return pairs


def decode_signature(text: str, encoding: str) -> bytes | None:
    """A signature's bytes (hex in any case, or standard Base64), ``None`` when malformed."""
    text = text.strip()
    if encoding == "hex":
        try:
            return bytes.fromhex(text)
        except ValueError:
            return None
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _encode_signature(raw: bytes, encoding: str) -> str:
    return raw.hex() if encoding == "hex" else base64.b64encode(raw).decode("ascii")


def _key_name(name: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or any(c in value for c in ",= "):
        raise ConfigurationError(message("webhooks.key_name", name=name))
    return value.strip()


@attrs.frozen(slots=True)
class Layout:
    """Where a scheme's signatures travel, and what they cover.

    Attributes:
        header: The header carrying the signatures (lower-case).
        template: What is signed.
        signature_key: The key of each signature in a header of ``key=value`` pairs
            (``v1`` in ``t=...,v1=...``); ``None``: the header holds only signatures,
            separated by spaces or commas.
        timestamp_key: The key of the timestamp among those pairs (``t``, ``ts``); unused
            without pairs or with a ``timestamp_header``.
        timestamp_header: Or the header carrying the timestamp alone.
        encoding: ``"hex"`` or ``"base64"``.
        timestamp_unit: ``"s"`` or ``"ms"``.
    """

    header: str
    template: Template
    signature_key: str | None
    timestamp_key: str | None
    timestamp_header: str | None
    encoding: str
    timestamp_unit: str

    @property
    def timestamp_source(self) -> str | None:
        """Where the timestamp is read, for messages (``the t= of the stripe-signature
        header``), or ``None`` when the layout carries none."""
        if self.timestamp_key is not None:
            return f"the {self.timestamp_key}= of the {self.header} header"
        if self.timestamp_header is not None:
            return f"the {self.timestamp_header} header"
        return None

    def read(self, headers: Mapping[str, str]) -> tuple[list[str], str | None]:
        """The signatures (as text) and the timestamp (as text) a delivery carries.

        Raises:
            Refusal: The header is missing, holds no signature, too many, or a timestamp
                the template signs is missing or given twice.
        """
        value = headers.get(self.header)
        if value is None:
            raise Refusal(f"the {self.header} header is missing")
        timestamp: str | None = None
        if self.signature_key is None:
            signatures = [s for s in re.split(r"[\s,]+", value) if s]
        else:
            pairs = _pairs(value)
            signatures = [text for key, text in pairs if key == self.signature_key]
            if self.timestamp_key is not None:
                stamps = [text for key, text in pairs if key == self.timestamp_key]
                if len(stamps) > 1:
                    raise Refusal(
                        f"the {self.header} header has {len(stamps)} {self.timestamp_key}= "
                        "timestamps"
                    )
                timestamp = stamps[0] if stamps else None
        if self.timestamp_header is not None:
            timestamp = headers.get(self.timestamp_header)
        if not signatures:
            wanted = f"{self.signature_key}= " if self.signature_key else ""
            raise Refusal(f"the {self.header} header holds no {wanted}signature")
        if len(signatures) > MAX_SIGNATURES:
            raise Refusal(
                f"the {self.header} header holds {len(signatures)} signatures, more than "
                f"{MAX_SIGNATURES}"
            )
        if self.template.uses_timestamp and timestamp is None:
            raise Refusal(f"{self.timestamp_source} is missing")
        return signatures, timestamp

    def write(self, signatures: Sequence[bytes], timestamp: str | None) -> dict[str, str]:
        """The headers carrying ``signatures`` (and ``timestamp``), as a sender writes them."""
        encoded = [_encode_signature(s, self.encoding) for s in signatures]
        headers: dict[str, str] = {}
        if self.signature_key is None:
            headers[self.header] = " ".join(encoded)
        else:
            items = [f"{self.signature_key}={s}" for s in encoded]
            if self.timestamp_key is not None and timestamp is not None:
                items.insert(0, f"{self.timestamp_key}={timestamp}")
            headers[self.header] = ",".join(items)
        if self.timestamp_header is not None and timestamp is not None:
            headers[self.timestamp_header] = timestamp
        return headers


def build_layout(scheme: str, options: Mapping[str, Any]) -> Layout:
    """The `Layout` of ``scheme`` (a key of `LAYOUT_DEFAULTS`) with ``options`` over its
    defaults.

    Raises:
        ConfigurationError: A bad or missing option (``template`` for ``hmac-manifest``), or
            a template signing ``{timestamp}`` with nowhere to read it.
    """
    values: dict[str, Any] = {**LAYOUT_DEFAULTS[scheme]}
    values.update({k: v for k, v in options.items() if k in LAYOUT_OPTIONS})
    if values["template"] is None:
        raise ConfigurationError(message("webhooks.scheme_needs", scheme=scheme, option="template"))
    template = values["template"]
    template = template if isinstance(template, Template) else Template(template)
    signature_key = _key_name("signature_key", values["signature_key"])
    timestamp_key = _key_name("timestamp_key", values["timestamp_key"])
    timestamp_header = values["timestamp_header"]
    if timestamp_header is not None:
        timestamp_header = check_header_name(timestamp_header, "timestamp_header")
    if timestamp_header is not None or signature_key is None:
        # A timestamp header wins; a header of bare signatures has no pairs to read it from.
        timestamp_key = None
    if template.uses_timestamp and timestamp_key is None and timestamp_header is None:
        raise ConfigurationError(message("webhooks.template_timestamp"))
    return Layout(
        header=check_header_name(values["header"]),
        template=template,
        signature_key=signature_key,
        timestamp_key=timestamp_key,
        timestamp_header=timestamp_header,
        encoding=_choice("encoding", values["encoding"], ("hex", "base64")),
        timestamp_unit=_choice("timestamp_unit", values["timestamp_unit"], ("s", "ms")),
    )


# --- Standard Webhooks key material --------------------------------------------------------


def _standard_base64(text: str, index: int) -> bytes:
    try:
        # Unpadded Base64 is accepted, as the reference library accepts it.
        raw = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if not raw:
        raise ConfigurationError(message("webhooks.standard_secret", index=index))
    return raw


def standard_webhooks_keys(secrets: object) -> tuple[list[bytes], list[bytes], list[bytes]]:
    """Split Standard Webhooks key material by use.

    ``whsec_<base64>`` (or bare Base64, as the reference library accepts, or raw bytes) is an
    HMAC key (``v1``); ``whpk_<base64>`` an ed25519 public key (``v1a``); ``whsk_<base64>``
    an ed25519 private key, which only a sender holds.

    Returns:
        The ``v1`` keys, the ``v1a`` public keys (32 raw bytes each) and the private keys.

    Raises:
        ConfigurationError: An item that is none of these (numbered from 1, never shown).
    """
    hmac_keys: list[bytes] = []
    public: list[bytes] = []
    private: list[bytes] = []
    for index, item in enumerate(key_items(secrets), 1):
        if isinstance(item, bytes):
            hmac_keys.append(secret_bytes(item))
            continue
        if not isinstance(item, str):
            raise ConfigurationError(message("webhooks.secret_type", type=type(item).__name__))
        text = item.strip()
        if text.startswith("whpk_"):
            raw = _standard_base64(text[5:], index)
            if len(raw) != 32:
                raise ConfigurationError(message("webhooks.standard_secret", index=index))
            public.append(raw)
        elif text.startswith("whsk_"):
            raw = _standard_base64(text[5:], index)
            if len(raw) not in (32, 64):
                raise ConfigurationError(message("webhooks.standard_secret", index=index))
            private.append(raw[:32])  # a libsodium key is the seed followed by the public key
        else:
            hmac_keys.append(_standard_base64(text.removeprefix("whsec_"), index))
    return hmac_keys, public, private


# --- signing: the headers of a signed delivery ----------------------------------------------

_SIGN_OPTIONS: Final[Mapping[str, tuple[str, ...]]] = {
    STANDARD_WEBHOOKS: ("headers",),
    "stripe": ("header", "headers"),
    "hmac-manifest": (*LAYOUT_OPTIONS, "algorithm", "headers"),
    "ed25519": (*LAYOUT_OPTIONS, "headers"),
    "rsa": (*LAYOUT_OPTIONS, "padding", "algorithm", "headers"),
    "token": ("header", "separator", "algorithm", "headers"),
    "hmac": ("header", "algorithm", "headers"),
    "shared-secret": ("header", "headers"),
}


def hmac_algorithm(algorithm: object) -> str:
    """A ``hashlib`` algorithm HMAC can use, or ``ConfigurationError``."""
    try:
        if not isinstance(algorithm, str) or algorithm.lower().startswith("shake"):
            # SHAKE digests need a length; HMAC cannot use them.
            raise ValueError(algorithm)
        hashlib.new(algorithm)
    except (ValueError, TypeError):
        raise ConfigurationError(message("webhooks.algorithm", algorithm=algorithm)) from None
    return algorithm


def _message_id(msg_id: object, body: bytes) -> str:
    """The ``webhook-id``: the one given, else the event's own id (stable across retries)."""
    if msg_id is None:
        try:
            event_id = json.loads(body).get("id")
        except (ValueError, RecursionError, AttributeError):
            event_id = None
        if isinstance(event_id, str) and _usable_id(event_id):
            return event_id
        return "msg_" + hashlib.sha256(body).hexdigest()[:32]
    if not isinstance(msg_id, str) or not _usable_id(msg_id):
        # The spec: an id holding "." could shift the signed content's fields.
        raise ValueError(
            "msg_id must be a non-empty printable ASCII str without spaces or '.', at most "
            "256 characters"
        )
    return msg_id


def _usable_id(text: str) -> bool:
    return (
        0 < len(text) <= 256
        and text.isascii()
        and text.isprintable()
        and not any(c in text for c in ". ")
    )


def _timestamp_text(timestamp: object, unit: str) -> str:
    if timestamp is None:
        seconds = time.time()
    elif isinstance(timestamp, bool) or not isinstance(timestamp, (int, float)):
        raise TypeError(f"timestamp must be seconds since the epoch, not {type(timestamp)!r}")
    else:
        seconds = float(timestamp)
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"timestamp must be finite seconds >= 0, not {timestamp!r}")
    return str(int(seconds * 1000) if unit == "ms" else math.floor(seconds))


def _digest(keys: Iterable[bytes], parts: Sequence[bytes], algorithm: str) -> list[bytes]:
    data = b"".join(parts)
    return [hmac.digest(key, data, algorithm) for key in keys]


def sign_headers(
    scheme: str,
    body: bytes,
    secret: object,
    *,
    msg_id: object = None,
    timestamp: object = None,
    options: Mapping[str, Any] | None = None,
) -> dict[str, str]:
    """The headers a delivery of ``body`` signed under ``scheme`` carries.

    See ``smartpos.testing.sign`` for the arguments. ``smartpos._crypto`` (and with it
    ``cryptography``) is imported only by the schemes that need it.

    Raises:
        ConfigurationError: An unknown scheme or option, or unusable key material.
        ValueError: A bad ``msg_id`` or ``timestamp``; a field the template needs that
            neither ``headers`` nor the body holds.
        TypeError: A ``timestamp`` that is not a number.
    """
    if scheme not in SCHEMES:
        raise ConfigurationError(
            message("webhooks.scheme_unknown", scheme=scheme, schemes=", ".join(SCHEMES))
        )
    options = dict(options or {})
    allowed = _SIGN_OPTIONS[scheme]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ConfigurationError(
            message(
                "webhooks.scheme_option",
                scheme=scheme,
                unknown=", ".join(unknown),
                known=", ".join(allowed) or "-",
            )
        )
    extra = {
        check_header_name(k, "headers"): str(v) for k, v in (options.get("headers") or {}).items()
    }
    if not isinstance(body, bytes):
        raise TypeError(f"body must be bytes, not {type(body).__name__}")
    keys = key_items(secret)
    signed: dict[str, str]
    if scheme == STANDARD_WEBHOOKS:
        hmac_keys, public, private = standard_webhooks_keys(keys)
        if public:
            raise ConfigurationError(message("webhooks.public_key_cannot_sign"))
        identifier = _message_id(msg_id, body)
        stamp = _timestamp_text(timestamp, "s")
        parts = [f"{identifier}.{stamp}.".encode("ascii"), body]
        signatures = [
            "v1," + base64.b64encode(d).decode("ascii") for d in _digest(hmac_keys, parts, "sha256")
        ]
        if private:
            module = _crypto()
            signed_bytes = b"".join(parts)
            signatures += [
                "v1a," + base64.b64encode(module.ed25519_sign(key, signed_bytes)).decode("ascii")
                for key in (
                    module.load_ed25519_private(k, index=i) for i, k in enumerate(private, 1)
                )
            ]
        signed = {
            "webhook-id": identifier,
            "webhook-timestamp": stamp,
            "webhook-signature": " ".join(signatures),
        }
    elif scheme in LAYOUT_DEFAULTS:
        layout = build_layout(scheme, options)
        layout_stamp = (
            _timestamp_text(timestamp, layout.timestamp_unit)
            if layout.timestamp_source is not None
            else None
        )
        try:
            parts = layout.template.parts(body, extra, layout_stamp)
        except Refusal as exc:
            raise ValueError(f"cannot sign: {exc.reason}; pass it in headers=") from None
        if scheme in ("stripe", "hmac-manifest"):
            algorithm = hmac_algorithm(options.get("algorithm", "sha256"))
            raw = _digest((secret_bytes(k) for k in keys), parts, algorithm)
        else:
            module = _crypto()
            signed_bytes = b"".join(parts)
            if scheme == "ed25519":
                raw = [
                    module.ed25519_sign(module.load_ed25519_private(k, index=i), signed_bytes)
                    for i, k in enumerate(keys, 1)
                ]
            else:
                padding = module.rsa_padding(options.get("padding", "pkcs1v15"))
                algorithm = module.rsa_hash(options.get("algorithm", "sha256"))
                raw = [
                    module.rsa_sign(
                        module.load_rsa_private(k, index=i), signed_bytes, padding, algorithm
                    )
                    for i, k in enumerate(keys, 1)
                ]
        signed = layout.write(raw, layout_stamp)
    else:
        first = secret_bytes(keys[0])
        default_header = {
            "token": "x-authenticity-token",
            "hmac": "x-signature",
            "shared-secret": "x-webhook-secret",
        }[scheme]
        header = check_header_name(options.get("header", default_header))
        if scheme == "shared-secret":
            value = first.decode("utf-8", "surrogateescape")
        elif scheme == "hmac":
            algorithm = hmac_algorithm(options.get("algorithm", "sha256"))
            value = hmac.new(first, body, algorithm).hexdigest()
        else:
            value = token_digest(
                first,
                body,
                separator=token_separator(options.get("separator", "-")),
                algorithm=hmac_algorithm(options.get("algorithm", "sha256")),
            ).hex()
        signed = {header: value}
    return {**extra, **signed}


def token_separator(separator: object) -> bytes:
    """The bytes between the token and the body, or ``ConfigurationError``."""
    if not isinstance(separator, str):
        raise ConfigurationError(message("webhooks.separator"))
    return separator.encode("utf-8")


def token_digest(token: bytes, body: bytes, *, separator: bytes, algorithm: str) -> bytes:
    """The digest of ``token``, ``separator`` and ``body``, in that order (PagBank's form)."""
    digest = hashlib.new(algorithm)
    digest.update(token)
    digest.update(separator)
    digest.update(body)
    return digest.digest()


def _crypto() -> Any:
    from smartpos import _crypto as module

    return module
