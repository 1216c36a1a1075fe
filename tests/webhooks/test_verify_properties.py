"""Properties of every signature scheme: a tampered delivery is never accepted.

For each scheme a delivery is signed, then one thing is changed: the body (any other bytes),
one signed header field (the timestamp to another second inside the tolerance, the message or
request id, the signature's bytes), or the receiver's clock (beyond the tolerance, either
way). None of these may pass; the untouched delivery, at any clock inside the tolerance, must.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import base64
import string
from collections.abc import Callable
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartpos.testing import sign
from smartpos.webhooks import (
    Ed25519SignatureVerifier,
    HmacManifestVerifier,
    HmacSignatureVerifier,
    SharedSecretVerifier,
    StandardWebhooksVerifier,
    StripeStyleVerifier,
    TokenDigestVerifier,
    VerificationError,
    Verifier,
)

NOW = 1_790_000_000
BODY = b'{"id":"evt-prop","tipo":"pagamento.aprovado","dados":{"id":"A1"}}'
WHSEC = "whsec_" + base64.b64encode(b"property-secret-24-bytes").decode()
SEED = bytes(range(1, 33))
TOLERANCE = 300

Clock = Callable[[], float]


@attrs.frozen
class Case:
    """One scheme: its verifier, its signer, and its signed fields taken apart and put back."""

    name: str
    verifier: Callable[[Clock], Verifier]
    sign: Callable[[bytes], dict[str, str]]
    split: Callable[[dict[str, str]], dict[str, str]]
    join: Callable[[dict[str, str]], dict[str, str]]
    signs_time: bool


def _pairs(value: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in value.split(","))


def _b64(hex_text: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_text)).decode()


def _unb64(text: str) -> str:
    return base64.b64decode(text).hex()


MANIFEST = "{header:x-request-id}:{timestamp}.{body}"

CASES = [
    Case(
        "standard-webhooks",
        lambda clock: StandardWebhooksVerifier(WHSEC, clock=clock),
        lambda body: sign(body, secret=WHSEC, timestamp=NOW),
        lambda h: {
            "id": h["webhook-id"],
            "timestamp": h["webhook-timestamp"],
            "signature": _unb64(h["webhook-signature"].removeprefix("v1,")),
        },
        lambda f: {
            "webhook-id": f["id"],
            "webhook-timestamp": f["timestamp"],
            "webhook-signature": "v1," + _b64(f["signature"]),
        },
        True,
    ),
    Case(
        "stripe",
        lambda clock: StripeStyleVerifier("stripe-secret", clock=clock),
        lambda body: sign(body, secret="stripe-secret", scheme="stripe", timestamp=NOW),
        lambda h: {
            "timestamp": _pairs(h["stripe-signature"])["t"],
            "signature": _pairs(h["stripe-signature"])["v1"],
        },
        lambda f: {"stripe-signature": f"t={f['timestamp']},v1={f['signature']}"},
        True,
    ),
    Case(
        "hmac-manifest",
        lambda clock: HmacManifestVerifier("manifest-secret", template=MANIFEST, clock=clock),
        lambda body: sign(
            body,
            secret="manifest-secret",
            scheme="hmac-manifest",
            template=MANIFEST,
            timestamp=NOW,
            headers={"x-request-id": "req-1"},
        ),
        lambda h: {
            "id": h["x-request-id"],
            "timestamp": _pairs(h["x-signature"])["ts"],
            "signature": _pairs(h["x-signature"])["v1"],
        },
        lambda f: {
            "x-request-id": f["id"],
            "x-signature": f"ts={f['timestamp']},v1={f['signature']}",
        },
        True,
    ),
    Case(
        "ed25519",
        lambda clock: Ed25519SignatureVerifier(
            SEED_PUBLIC,
            template="{timestamp}.{body}",
            timestamp_header="x-ts",
            clock=clock,
        ),
        lambda body: sign(
            body,
            secret=SEED,
            scheme="ed25519",
            template="{timestamp}.{body}",
            timestamp_header="x-ts",
            timestamp=NOW,
        ),
        lambda h: {"timestamp": h["x-ts"], "signature": _unb64(h["x-signature"])},
        lambda f: {"x-ts": f["timestamp"], "x-signature": _b64(f["signature"])},
        True,
    ),
    Case(
        "token",
        lambda clock: TokenDigestVerifier("token-secret"),
        lambda body: sign(body, secret="token-secret", scheme="token"),
        lambda h: {"signature": h["x-authenticity-token"]},
        lambda f: {"x-authenticity-token": f["signature"]},
        False,
    ),
    Case(
        "hmac",
        lambda clock: HmacSignatureVerifier("x-signature", "hmac-secret"),
        lambda body: sign(body, secret="hmac-secret", scheme="hmac"),
        lambda h: {"signature": h["x-signature"]},
        lambda f: {"x-signature": f["signature"]},
        False,
    ),
]


def _seed_public() -> bytes:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(SEED).public_key().public_bytes_raw()


SEED_PUBLIC = _seed_public()
IDS = [case.name for case in CASES]
ID_TEXT = st.text(string.ascii_letters + string.digits + "_-", min_size=1, max_size=40)


def stopped(at: float) -> Clock:
    """A clock stopped at ``at``."""
    return lambda: at


def refused(verifier: Verifier, body: bytes, headers: dict[str, str]) -> bool:
    """Whether ``verifier`` refuses the delivery (it never raises anything else)."""
    try:
        verifier.verify(body, headers)
    except VerificationError:
        return True
    return False


@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=60, deadline=None)
@given(offset=st.floats(min_value=-TOLERANCE, max_value=TOLERANCE))
def test_an_untouched_delivery_is_accepted_inside_the_window(case: Case, offset: float) -> None:
    """The control: signed and unchanged, accepted at any clock within the tolerance."""
    assert not refused(case.verifier(stopped(NOW + offset)), BODY, case.sign(BODY))


@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=150, deadline=None)
@given(body=st.binary(max_size=200))
def test_a_tampered_body_is_never_accepted(case: Case, body: bytes) -> None:
    """Any other body under the signed headers is refused."""
    if body == BODY:
        return
    assert refused(case.verifier(stopped(NOW)), body, case.sign(BODY))


@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_tampered_signed_header_is_never_accepted(case: Case, data: st.DataObject) -> None:
    """Another timestamp (still within the tolerance), another id, or other signature bytes
    (of any length) under the same body is refused."""
    fields = case.split(case.sign(BODY))
    name = data.draw(st.sampled_from(sorted(fields)), label="field")
    original = fields[name]
    value: Any
    if name == "timestamp":
        value = str(data.draw(st.integers(NOW - TOLERANCE, NOW + TOLERANCE), label="timestamp"))
    elif name == "signature":
        value = data.draw(st.binary(min_size=1, max_size=80), label="signature").hex()
        value = value.upper() if data.draw(st.booleans(), label="upper") else value
    else:
        value = data.draw(ID_TEXT, label=name)
    if value.lower() == original.lower():
        return
    headers = case.join({**fields, name: value})
    assert refused(case.verifier(stopped(NOW)), BODY, headers)


@pytest.mark.parametrize("case", [c for c in CASES if c.signs_time], ids=lambda c: c.name)
@settings(max_examples=150, deadline=None)
@given(
    offset=st.one_of(
        st.floats(min_value=TOLERANCE + 0.001, max_value=1e10),
        st.floats(min_value=-1e10, max_value=-TOLERANCE - 0.001),
    )
)
def test_a_clock_beyond_the_tolerance_never_accepts(case: Case, offset: float) -> None:
    """A valid signature read by a clock more than the tolerance away, either way: refused."""
    assert refused(case.verifier(stopped(NOW + offset)), BODY, case.sign(BODY))


@settings(max_examples=100, deadline=None)
@given(guess=st.text(max_size=60))
def test_a_shared_secret_guess_is_never_accepted(guess: str) -> None:
    """Anything but the secret itself in the header is refused."""
    if guess == "the-shared-secret":
        return
    verifier = SharedSecretVerifier(secret="the-shared-secret")
    assert refused(verifier, BODY, {"x-webhook-secret": guess})
