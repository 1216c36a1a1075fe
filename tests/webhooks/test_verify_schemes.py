"""The signature verifiers one by one: what each accepts, what it refuses, and what it says.

Rotation (several keys, several signatures), time (a tolerance both ways, seconds never
milliseconds, an injectable clock), the messages and reprs that never show a key, the DEBUG
line that says what was compared, the configuration errors, and the one list of scheme names.
Interop with other implementations and documented vectors is in ``test_verify_interop.py``;
properties over tampered deliveries in ``test_verify_properties.py``.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import base64
import hashlib
import hmac
import inspect
import logging
from collections.abc import Mapping
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from smartpos import ConfigurationError, _signatures
from smartpos.testing import sign
from smartpos.webhooks import (
    Ed25519SignatureVerifier,
    HmacManifestVerifier,
    HmacSignatureVerifier,
    RsaSignatureVerifier,
    SharedSecretVerifier,
    StandardWebhooksVerifier,
    StripeStyleVerifier,
    TokenDigestVerifier,
    VerificationError,
    Verifier,
    make_verifier,
)
from smartpos.webhooks._schemes import VERIFIERS

NOW = 1_790_000_000
SECRET = "whsec_" + base64.b64encode(b"a-secret-of-twenty-four-b").decode()
OTHER = "whsec_" + base64.b64encode(b"another-secret-of-24-byte").decode()
BODY = b'{"id":"evt-1","tipo":"pagamento.aprovado","dados":{"id":"AbC123"}}'
MANIFEST = "id:{json:dados.id|lower};request-id:{header:x-request-id};ts:{timestamp};"
SEED = bytes(range(32))
PUBLIC = ed25519.Ed25519PrivateKey.from_private_bytes(SEED).public_key()
PUBLIC_RAW = PUBLIC.public_bytes_raw()
PUBLIC_PEM = PUBLIC.public_bytes(
    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
).decode()


def clock(at: float = NOW) -> Any:
    """A clock stopped at ``at``."""
    return lambda: at


@pytest.fixture(scope="module")
def rsa_key() -> rsa.RSAPrivateKey:
    """One RSA key for the module (generating one takes a while)."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem_private(key: rsa.RSAPrivateKey) -> str:
    """The unencrypted PKCS #8 PEM of ``key``."""
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def pem_public(key: rsa.RSAPrivateKey) -> str:
    """The SubjectPublicKeyInfo PEM of ``key``'s public key."""
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def refusal(verifier: Verifier, body: bytes, headers: Mapping[str, str]) -> str:
    """The message of the VerificationError ``verifier`` raises (fails if it accepts)."""
    with pytest.raises(VerificationError) as info:
        verifier.verify(body, headers)
    return str(info.value)


# --- Standard Webhooks -----------------------------------------------------------------------


def test_standard_webhooks_accepts_its_signature_and_refuses_a_changed_body() -> None:
    """A v1 signature of the id, timestamp and body verifies; one byte more does not."""
    verifier = StandardWebhooksVerifier(SECRET, clock=clock())
    headers = sign(BODY, secret=SECRET, timestamp=NOW)
    verifier.verify(BODY, headers)
    assert "no signature of the webhook-signature header matches" == refusal(
        verifier, BODY + b" ", headers
    )


def test_standard_webhooks_rotation_any_secret_and_any_signature() -> None:
    """Two secrets configured, and a header carrying two signatures: one match suffices."""
    old_only = sign(BODY, secret=OTHER, timestamp=NOW)
    both = sign(
        BODY, secret=["whsec_" + base64.b64encode(b"x" * 24).decode(), SECRET], timestamp=NOW
    )
    assert 2 == len(both["webhook-signature"].split())
    StandardWebhooksVerifier([SECRET, OTHER], clock=clock()).verify(BODY, old_only)
    StandardWebhooksVerifier(SECRET, clock=clock()).verify(BODY, both)
    with pytest.raises(VerificationError):
        StandardWebhooksVerifier(SECRET, clock=clock()).verify(BODY, old_only)


def test_standard_webhooks_ignores_unknown_versions_and_bad_base64() -> None:
    """v2 and undecodable entries are skipped, not errors; the valid v1 among them counts."""
    headers = sign(BODY, secret=SECRET, timestamp=NOW)
    noisy = {**headers, "webhook-signature": f"v2,AAAA v1,%%% {headers['webhook-signature']}"}
    StandardWebhooksVerifier(SECRET, clock=clock()).verify(BODY, noisy)
    only_noise = {**headers, "webhook-signature": "v2,AAAA v1,%%%"}
    assert "holds no v1 or v1a signature" in refusal(
        StandardWebhooksVerifier(SECRET, clock=clock()), BODY, only_noise
    )


@pytest.mark.parametrize(
    ("offset", "accepted"),
    [(-300, True), (300, True), (-301, False), (301, False), (0, True), (86_400, False)],
)
def test_standard_webhooks_tolerance_is_checked_both_ways(offset: int, accepted: bool) -> None:
    """The timestamp may be 300 s old or 300 s ahead, not one second more either way."""
    verifier = StandardWebhooksVerifier(SECRET, clock=clock(NOW + offset))
    headers = sign(BODY, secret=SECRET, timestamp=NOW)
    if accepted:
        verifier.verify(BODY, headers)
    else:
        text = refusal(verifier, BODY, headers)
        assert ("old" if offset > 0 else "in the future") in text
        assert "tolerance of 300 s" in text


def test_standard_webhooks_tolerance_and_clock_are_configurable() -> None:
    """tolerance=10 refuses 11 s of skew that the default would accept."""
    headers = sign(BODY, secret=SECRET, timestamp=NOW)
    StandardWebhooksVerifier(SECRET, clock=clock(NOW + 11)).verify(BODY, headers)
    with pytest.raises(VerificationError, match="11 s old"):
        StandardWebhooksVerifier(SECRET, tolerance=10, clock=clock(NOW + 11)).verify(BODY, headers)


def test_a_millisecond_timestamp_is_refused_with_a_message_saying_so() -> None:
    """A sender that writes milliseconds is told so, even with a valid signature."""
    stamp = str(NOW * 1000)
    content = f"msg_1.{stamp}.".encode() + BODY
    key = base64.b64decode(SECRET.removeprefix("whsec_"))
    signature = base64.b64encode(hmac.new(key, content, "sha256").digest()).decode()
    headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": stamp,
        "webhook-signature": f"v1,{signature}",
    }
    text = refusal(StandardWebhooksVerifier(SECRET, clock=clock()), BODY, headers)
    assert f"the webhook-timestamp header {stamp} looks like milliseconds" in text
    assert "seconds since the epoch" in text


@pytest.mark.parametrize("stamp", ["", "abc", "1.5", "-5", "+5", " ", "1" * 17, "١٢٣"])
def test_a_timestamp_that_is_not_an_integer_is_refused(stamp: str) -> None:
    """Anything but ASCII digits (at most 16) is not a timestamp."""
    headers = {**sign(BODY, secret=SECRET, timestamp=NOW), "webhook-timestamp": stamp}
    text = refusal(StandardWebhooksVerifier(SECRET, clock=clock()), BODY, headers)
    assert "missing" in text or "not an integer number of seconds" in text


@pytest.mark.parametrize("missing", ["webhook-id", "webhook-timestamp", "webhook-signature"])
def test_standard_webhooks_names_the_missing_header(missing: str) -> None:
    """Each of the three headers is required, and the refusal names the one that is absent."""
    headers = sign(BODY, secret=SECRET, timestamp=NOW)
    del headers[missing]
    assert f"the {missing} header is missing" == refusal(
        StandardWebhooksVerifier(SECRET, clock=clock()), BODY, headers
    )


def test_standard_webhooks_v1a_with_a_public_key() -> None:
    """A whpk_ key verifies v1a (ed25519) signatures signed with its whsk_ key."""
    whsk = "whsk_" + base64.b64encode(SEED).decode()
    whpk = "whpk_" + base64.b64encode(PUBLIC_RAW).decode()
    headers = sign(BODY, secret=whsk, timestamp=NOW)
    assert headers["webhook-signature"].startswith("v1a,")
    verifier = StandardWebhooksVerifier([SECRET, whpk], clock=clock())
    verifier.verify(BODY, headers)
    with pytest.raises(VerificationError):
        verifier.verify(BODY + b"x", headers)
    with pytest.raises(VerificationError):  # an HMAC key does not verify v1a
        StandardWebhooksVerifier(SECRET, clock=clock()).verify(BODY, headers)


@pytest.mark.parametrize(
    ("secret", "text"),
    [
        ("whsec_not base64!", "key #1"),
        ("whsec_", "key #1"),
        ("whpk_" + base64.b64encode(b"short").decode(), "key #1"),
        ("whsk_" + base64.b64encode(SEED).decode(), "whsk_ key signs deliveries"),
        ([], "at least one secret"),
        (12, "not int"),
    ],
)
def test_standard_webhooks_refuses_unusable_key_material(secret: Any, text: str) -> None:
    """Bad key material is a ConfigurationError that numbers the key, never shows it."""
    with pytest.raises(ConfigurationError, match=text) as info:
        StandardWebhooksVerifier(secret)
    if isinstance(secret, str) and len(secret) > 6:
        assert secret[6:] not in str(info.value)


def test_standard_webhooks_accepts_bare_base64_and_raw_bytes_as_the_library_does() -> None:
    """The reference library strips an optional whsec_: bare Base64 and raw bytes work too."""
    headers = sign(BODY, secret=SECRET, timestamp=NOW)
    bare = SECRET.removeprefix("whsec_").rstrip("=")
    raw = base64.b64decode(SECRET.removeprefix("whsec_"))
    StandardWebhooksVerifier(bare, clock=clock()).verify(BODY, headers)
    StandardWebhooksVerifier(raw, clock=clock()).verify(BODY, headers)


def test_more_than_sixteen_signatures_are_refused() -> None:
    """A header flooded with signatures is refused before any of them is checked."""
    headers = sign(BODY, secret=SECRET, timestamp=NOW)
    flood = {**headers, "webhook-signature": " ".join([headers["webhook-signature"]] * 17)}
    assert "17 signatures, more than 16" in refusal(
        StandardWebhooksVerifier(SECRET, clock=clock()), BODY, flood
    )


# --- Stripe-style ----------------------------------------------------------------------------


def test_stripe_style_signs_timestamp_dot_body_with_the_secret_as_given() -> None:
    """v1 is the hex HMAC of "<t>.<body>" keyed with the whole secret string."""
    expected = hmac.new(b"whsec_abc", f"{NOW}.".encode() + BODY, "sha256").hexdigest()
    headers = {"stripe-signature": f"t={NOW},v1={expected}"}
    StripeStyleVerifier("whsec_abc", clock=clock()).verify(BODY, headers)
    assert headers == sign(BODY, secret="whsec_abc", scheme="stripe", timestamp=NOW)


def test_stripe_style_rotation_and_downgrade() -> None:
    """Two v1 signatures: one match passes; a v0 signature alone never counts."""
    good = hmac.new(b"new", f"{NOW}.".encode() + BODY, "sha256").hexdigest()
    verifier = StripeStyleVerifier(["old", "new"], clock=clock())
    verifier.verify(BODY, {"stripe-signature": f"t={NOW},v1={'0' * 64},v1={good}"})
    assert "holds no v1= signature" in refusal(
        verifier, BODY, {"stripe-signature": f"t={NOW},v0={good}"}
    )


def test_stripe_style_checks_the_window_and_its_header_can_be_renamed() -> None:
    """A stale t is refused after the signature matched; the header name is an option."""
    headers = sign(BODY, secret="k", scheme="stripe", timestamp=NOW, header="x-smartpos-signature")
    assert ["x-smartpos-signature"] == list(headers)
    verifier = StripeStyleVerifier("k", header="X-SmartPOS-Signature", clock=clock(NOW + 400))
    assert "the t= of the x-smartpos-signature header is 400 s old" in refusal(
        verifier, BODY, headers
    )


def test_stripe_style_refuses_two_timestamps() -> None:
    """t= given twice is ambiguous: refused, whatever the signatures say."""
    headers = sign(BODY, secret="k", scheme="stripe", timestamp=NOW)
    doubled = {"stripe-signature": f"t={NOW + 1}," + headers["stripe-signature"]}
    assert "2 t= timestamps" in refusal(StripeStyleVerifier("k", clock=clock()), BODY, doubled)


# --- HMAC manifest ---------------------------------------------------------------------------


def test_manifest_signs_exactly_the_template() -> None:
    """The manifest is the template with its fields filled, lower-cased where it says so."""
    manifest = f"id:abc123;request-id:req-1;ts:{NOW};".encode()
    signature = hmac.new(b"mp", manifest, "sha256").hexdigest()
    headers = {"x-signature": f"ts={NOW},v1={signature}", "x-request-id": "req-1"}
    HmacManifestVerifier("mp", template=MANIFEST, clock=clock()).verify(BODY, headers)
    signed = sign(
        BODY,
        secret="mp",
        scheme="hmac-manifest",
        template=MANIFEST,
        timestamp=NOW,
        headers={"x-request-id": "req-1"},
    )
    assert headers == signed


@pytest.mark.parametrize(
    ("change", "text"),
    [
        ({"x-request-id": "req-2"}, "signature does not match"),
        ({"x-request-id": None}, "the x-request-id header the signature covers is missing"),
        ({"x-signature": "ts=1,v1=00"}, "signature does not match"),
        ({"x-signature": "v1=00"}, "the ts= of the x-signature header is missing"),
    ],
)
def test_manifest_refusals_name_the_field(change: dict[str, str | None], text: str) -> None:
    """Each field of the manifest counts; a missing one is named."""
    headers = sign(
        BODY, secret="mp", scheme="hmac-manifest", template=MANIFEST, timestamp=NOW,
        headers={"x-request-id": "req-1"},
    )  # fmt: skip
    for name, value in change.items():
        if value is None:
            del headers[name]
        else:
            headers[name] = value
    assert text in refusal(
        HmacManifestVerifier("mp", template=MANIFEST, clock=clock()), BODY, headers
    )


def test_manifest_json_fields_need_a_json_body() -> None:
    """{json:...} of a body that is not JSON, or lacks the field, is a refusal naming it."""
    verifier = HmacManifestVerifier("mp", template=MANIFEST, clock=clock())
    headers = {"x-signature": f"ts={NOW},v1=00", "x-request-id": "r"}
    assert "covers {json:dados.id|lower}, but the body is not JSON" in refusal(
        verifier, b"\xff not json", headers
    )
    assert "does not hold as a string or an integer" in refusal(verifier, b'{"dados":{}}', headers)
    assert "does not hold as a string or an integer" in refusal(
        verifier, b'{"dados":{"id":true}}', headers
    )


def test_manifest_with_bare_signatures_a_timestamp_header_base64_and_milliseconds() -> None:
    """The layout options: a header of bare signatures, the timestamp in its own header, in
    milliseconds, Base64 signatures, SHA-512; sign() writes what the verifier reads."""
    options: dict[str, Any] = {
        "template": "{timestamp}:{body}",
        "header": "x-sig",
        "signature_key": None,
        "timestamp_header": "x-ts",
        "encoding": "base64",
        "timestamp_unit": "ms",
        "algorithm": "sha512",
    }
    headers = sign(BODY, secret=["a", "b"], scheme="hmac-manifest", timestamp=NOW, **options)
    assert str(NOW * 1000) == headers["x-ts"]
    assert 2 == len(headers["x-sig"].split())
    expected = hmac.new(b"b", f"{NOW * 1000}:".encode() + BODY, "sha512").digest()
    assert base64.b64encode(expected).decode() == headers["x-sig"].split()[1]
    HmacManifestVerifier("b", **options, clock=clock()).verify(BODY, headers)
    seconds = {**headers, "x-ts": str(NOW)}
    assert "looks like seconds" in refusal(
        HmacManifestVerifier("b", **options, clock=clock()), BODY, seconds
    )


def test_manifest_literal_braces() -> None:
    """{{ and }} are literal braces in the signed text."""
    template = "{{{body}}}"
    headers = sign(BODY, secret="k", scheme="hmac-manifest", template=template, timestamp=NOW)
    expected = hmac.new(b"k", b"{" + BODY + b"}", "sha256").hexdigest()
    assert headers["x-signature"].endswith(f"v1={expected}")
    HmacManifestVerifier("k", template=template, clock=clock()).verify(BODY, headers)


@pytest.mark.parametrize(
    ("options", "text"),
    [
        ({"template": "{nope}"}, "{nope} is unknown"),
        ({"template": "{body"}, "unmatched brace at position 0"),
        ({"template": "a}b"}, "unmatched brace at position 1"),
        ({"template": "{header:}"}, "{header:} is unknown"),
        ({"template": "{json:a..b}"}, "is unknown"),
        ({"template": "{body|lower}"}, "is unknown"),
        ({"template": ""}, "non-empty str"),
        ({"template": "{timestamp}", "timestamp_key": None}, "the template signs {timestamp}"),
        ({"template": "{timestamp}", "signature_key": None}, "the template signs {timestamp}"),
        ({"template": "{body}", "signature_key": "v=1"}, "signature_key must be"),
        ({"template": "{body}", "encoding": "base32"}, "encoding must be one of hex, base64"),
        ({"template": "{body}", "timestamp_unit": "us"}, "timestamp_unit must be one of s, ms"),
        ({"template": "{body}", "algorithm": "shake_128"}, "unknown or unusable"),
        ({"template": "{body}", "header": " "}, "header must be a non-empty header name"),
        ({"template": "{body}", "tolerance": 0}, "tolerance must be"),
        ({"template": "{body}", "clock": 5}, "clock must be a callable"),
    ],
)
def test_manifest_configuration_errors(options: dict[str, Any], text: str) -> None:
    """Every bad option is a ConfigurationError at construction that says what to write."""
    with pytest.raises(ConfigurationError) as info:
        HmacManifestVerifier("k", **options)
    assert text in str(info.value)


def test_a_template_without_the_body_warns_once_at_construction(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Signing no {body} leaves the body unauthenticated: said when the verifier is built."""
    with caplog.at_level(logging.WARNING, logger="smartpos.webhooks.verify"):
        HmacManifestVerifier("k", template=MANIFEST)
        HmacManifestVerifier("k", template="{timestamp}.{body}")
    warnings = [r.getMessage() for r in caplog.records]
    assert 1 == len(warnings)
    assert "does not sign {body}" in warnings[0]


# --- token digest ----------------------------------------------------------------------------


def test_token_digest_is_sha256_of_token_dash_body() -> None:
    """The header is the hex SHA-256 of token, "-", body; any case of hex; rotation."""
    digest = hashlib.sha256(b"tok-2-" + BODY).hexdigest()
    verifier = TokenDigestVerifier(["tok-1", "tok-2"])
    verifier.verify(BODY, {"x-authenticity-token": digest})
    verifier.verify(BODY, {"x-authenticity-token": digest.upper()})
    assert "digest does not match" in refusal(
        verifier, BODY + b"\n", {"x-authenticity-token": digest}
    )
    assert "header is missing" in refusal(verifier, BODY, {})
    assert {"x-authenticity-token": digest} == sign(BODY, secret="tok-2", scheme="token")


def test_token_digest_options() -> None:
    """Another header, separator and digest."""
    digest = hashlib.sha512(b"tok" + BODY).hexdigest()
    verifier = TokenDigestVerifier("tok", header="X-Token", separator="", algorithm="sha512")
    verifier.verify(BODY, {"x-token": digest})
    with pytest.raises(ConfigurationError, match="separator must be a str"):
        TokenDigestVerifier("tok", separator=None)  # type: ignore[arg-type]


# --- ed25519 and RSA -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        PUBLIC_PEM,
        PUBLIC_PEM.encode(),
        PUBLIC_RAW,
        base64.b64encode(PUBLIC_RAW).decode(),
        PUBLIC_RAW.hex(),
        "whpk_" + base64.b64encode(PUBLIC_RAW).decode(),
    ],
    ids=["pem", "pem-bytes", "raw", "base64", "hex", "whpk"],
)
def test_ed25519_takes_every_published_key_form(key: str | bytes) -> None:
    """PEM, raw bytes, their Base64 or hex, whpk_: the same key."""
    headers = sign(BODY, secret=SEED, scheme="ed25519")
    verifier = Ed25519SignatureVerifier(key)
    verifier.verify(BODY, headers)
    with pytest.raises(VerificationError, match="the x-signature signature does not match"):
        verifier.verify(BODY[:-1], headers)


def test_ed25519_discord_style_layout() -> None:
    """Hex signature of timestamp + body, the timestamp in a header of its own."""
    options: dict[str, Any] = {
        "header": "x-signature-ed25519",
        "template": "{timestamp}{body}",
        "timestamp_header": "x-signature-timestamp",
        "encoding": "hex",
    }
    headers = sign(BODY, secret=SEED.hex(), scheme="ed25519", timestamp=NOW, **options)
    expected = ed25519.Ed25519PrivateKey.from_private_bytes(SEED).sign(f"{NOW}".encode() + BODY)
    assert {"x-signature-ed25519": expected.hex(), "x-signature-timestamp": str(NOW)} == headers
    Ed25519SignatureVerifier(PUBLIC_RAW, clock=clock(), **options).verify(BODY, headers)
    with pytest.raises(VerificationError, match="old"):
        Ed25519SignatureVerifier(PUBLIC_RAW, clock=clock(NOW + 301), **options).verify(
            BODY, headers
        )


def test_ed25519_rotation_of_keys() -> None:
    """Several public keys: a signature by any of their private keys passes."""
    other = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    headers = sign(BODY, secret=SEED, scheme="ed25519")
    Ed25519SignatureVerifier([other, PUBLIC_RAW]).verify(BODY, headers)
    with pytest.raises(VerificationError):
        Ed25519SignatureVerifier(other).verify(BODY, headers)


@pytest.mark.parametrize(("padding", "algorithm"), [("pkcs1v15", "sha256"), ("pss", "sha512")])
def test_rsa_signatures(rsa_key: rsa.RSAPrivateKey, padding: str, algorithm: str) -> None:
    """RSA with PKCS #1 v1.5 and PSS; a changed body or another padding fails."""
    options = {"padding": padding, "algorithm": algorithm}
    headers = sign(BODY, secret=pem_private(rsa_key), scheme="rsa", **options)
    verifier = RsaSignatureVerifier(pem_public(rsa_key), **options)
    verifier.verify(BODY, headers)
    with pytest.raises(VerificationError):
        verifier.verify(BODY + b" ", headers)
    other = "pss" if padding == "pkcs1v15" else "pkcs1v15"
    with pytest.raises(VerificationError):
        RsaSignatureVerifier(pem_public(rsa_key), padding=other, algorithm=algorithm).verify(
            BODY, headers
        )


def test_public_key_verifiers_refuse_keys_of_the_wrong_kind(rsa_key: rsa.RSAPrivateKey) -> None:
    """An RSA key for ed25519, a private key for a verifier, junk: numbered, never shown."""
    with pytest.raises(ConfigurationError, match="key #2 is not a usable ed25519 public key"):
        Ed25519SignatureVerifier([PUBLIC_RAW, pem_public(rsa_key)])
    with pytest.raises(ConfigurationError, match="key #1 is not a usable RSA public key"):
        RsaSignatureVerifier(PUBLIC_PEM)
    with pytest.raises(ConfigurationError, match="not a usable RSA public key") as info:
        RsaSignatureVerifier(pem_private(rsa_key))
    assert "PRIVATE" not in str(info.value)
    with pytest.raises(ConfigurationError, match="padding must be one of pkcs1v15, pss"):
        RsaSignatureVerifier(pem_public(rsa_key), padding="oaep")
    with pytest.raises(ConfigurationError, match="algorithm must be one of sha256"):
        RsaSignatureVerifier(pem_public(rsa_key), algorithm="md5")


# --- what every verifier shows and hides -----------------------------------------------------

ALL_KINDS = ["standard-webhooks", "stripe", "hmac-manifest", "token", "hmac", "shared-secret"]
KEY = "very-secret-key-material-0123456789"


def hmac_verifier(scheme: str) -> Verifier:
    """A verifier of ``scheme`` keyed with KEY (or its whsec_ form)."""
    if scheme == "standard-webhooks":
        return make_verifier(scheme, "whsec_" + base64.b64encode(KEY.encode()).decode())
    if scheme == "hmac-manifest":
        return make_verifier(scheme, KEY, template="{timestamp}.{body}")
    return make_verifier(scheme, KEY)


@pytest.mark.parametrize("scheme", ALL_KINDS)
def test_no_key_in_reprs_messages_or_debug_lines(
    scheme: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A refusal's message and DEBUG line, and the repr, hold neither the key nor the body."""
    verifier = hmac_verifier(scheme)
    body = b'{"id":"evt-secret-body-marker"}'
    b64 = base64.b64encode(KEY.encode()).decode()
    forged = {
        "webhook-id": "m", "webhook-timestamp": str(NOW), "webhook-signature": "v1,AAAA",
        "stripe-signature": f"t={NOW},v1=00", "x-signature": f"ts={NOW},v1=00",
        "x-authenticity-token": "00", "x-webhook-secret": "guess",
    }  # fmt: skip
    with caplog.at_level(logging.DEBUG, logger="smartpos.webhooks.verify"):
        text = refusal(verifier, body, forged)
    lines = [r.getMessage() for r in caplog.records]
    assert lines, "a refusal is logged at DEBUG"
    for shown in [text, repr(verifier), *lines]:
        assert KEY not in shown
        assert b64[:12] not in shown
        assert "secret-body-marker" not in shown
    assert f"({scheme})" in lines[-1]


def test_the_debug_line_says_what_was_compared(caplog: pytest.LogCaptureFixture) -> None:
    """Scheme, header, counts, skew and the manifest's shape with each field's size."""
    verifier = HmacManifestVerifier(["k1", "k2"], template=MANIFEST, clock=clock(NOW + 42))
    headers = {"x-signature": f"ts={NOW},v1=zz,v1=00", "x-request-id": "req-123"}
    with caplog.at_level(logging.DEBUG, logger="smartpos.webhooks.verify"):
        refusal(verifier, BODY, headers)
    line = caplog.records[-1].getMessage()
    assert line.startswith("webhook verification failed (hmac-manifest): ")
    for part in [
        "header=x-signature",
        "signatures=2 received, 1 decodable as hex",
        "keys=2",
        "timestamp_skew=+42 s",
        "tolerance=300 s",
        "manifest=id:{json:dados.id|lower}=6 bytes;request-id:{header:x-request-id}=7 chars;"
        "ts:{timestamp}=10 chars;",
    ]:
        assert part in line
    assert "req-123" not in line
    assert "abc123" not in line.lower()


def test_nothing_is_logged_for_an_accepted_delivery(caplog: pytest.LogCaptureFixture) -> None:
    """DEBUG lines are for refusals only."""
    with caplog.at_level(logging.DEBUG, logger="smartpos.webhooks.verify"):
        StandardWebhooksVerifier(SECRET, clock=clock()).verify(
            BODY, sign(BODY, secret=SECRET, timestamp=NOW)
        )
    assert [] == caplog.records


# --- one list of scheme names ----------------------------------------------------------------


def test_every_scheme_has_a_verifier_and_a_signer() -> None:
    """SCHEMES, make_verifier's classes and sign() name the same schemes, each class its own."""
    assert sorted(_signatures.SCHEMES) == sorted(VERIFIERS)
    assert sorted(_signatures.SCHEMES) == sorted(_signatures._SIGN_OPTIONS)
    for name, cls in VERIFIERS.items():
        assert name == cls.scheme


@pytest.mark.parametrize("scheme", sorted(_signatures.LAYOUT_DEFAULTS))
def test_the_verifiers_defaults_are_the_layouts(scheme: str) -> None:
    """A verifier's keyword defaults are the scheme's layout defaults (sign() uses those)."""
    parameters = inspect.signature(VERIFIERS[scheme]).parameters
    for option, default in _signatures.LAYOUT_DEFAULTS[scheme].items():
        if option in parameters and default is not None:
            assert default == parameters[option].default, option


@pytest.mark.parametrize("scheme", _signatures.SCHEMES)
def test_make_verifier_builds_each_scheme_and_sign_satisfies_it(
    scheme: str, rsa_key: rsa.RSAPrivateKey
) -> None:
    """make_verifier(scheme, key) and sign(scheme=...) agree for every scheme."""
    options: dict[str, Any] = {"template": "{body}"} if scheme == "hmac-manifest" else {}
    signing, checking = {
        "standard-webhooks": (SECRET, SECRET),
        "ed25519": (SEED, PUBLIC_PEM),
        "rsa": (pem_private(rsa_key), pem_public(rsa_key)),
    }.get(scheme, ("k", "k"))
    verifier = make_verifier(scheme, checking, **options)
    assert scheme == verifier.scheme  # type: ignore[attr-defined]
    verifier.verify(BODY, sign(BODY, secret=signing, scheme=scheme, **options))


@pytest.mark.parametrize(
    ("scheme", "options", "text"),
    [
        ("nope", {}, "unknown signature scheme 'nope': use one of standard-webhooks, stripe"),
        (
            "stripe",
            {"template": "{body}"},
            "the stripe scheme cannot be built: unknown option(s) template",
        ),
        ("hmac-manifest", {}, "the hmac-manifest scheme needs the option template"),
        ("shared-secret", {"tolerance": 3}, "tolerance"),
    ],
)
def test_make_verifier_errors(scheme: str, options: dict[str, Any], text: str) -> None:
    """An unknown scheme or option is a ConfigurationError naming it."""
    with pytest.raises(ConfigurationError) as info:
        make_verifier(scheme, "k", **options)
    assert text in str(info.value)


def test_existing_verifiers_keep_their_behaviour() -> None:
    """SharedSecretVerifier and HmacSignatureVerifier still read what they read before."""
    SharedSecretVerifier(secret="s").verify(b"", {"x-webhook-secret": "s"})
    digest = hmac.new(b"k", BODY, "sha256").hexdigest()
    HmacSignatureVerifier("x-sig", "k").verify(BODY, {"x-sig": f"sha256={digest}"})
    assert {"x-signature": digest} == sign(BODY, secret="k", scheme="hmac")
