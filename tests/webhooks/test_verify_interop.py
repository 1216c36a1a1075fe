"""Interop, not only self-consistency: other implementations and the providers' own examples.

- Standard Webhooks: the published ``standardwebhooks`` package verifies ``sign()``'s headers
  and its own signatures pass ``StandardWebhooksVerifier``; the vector of its test suite too.
- Stripe-style, Mercado Pago's manifest, PagBank's token: vectors computed by hand with
  ``openssl`` from the algorithm each provider documents (the command is beside each vector),
  so a wrong field order or separator in the SDK cannot be mirrored by the test.
- RSA: Woovi's (OpenPix's) documented example: its public key, payload and signature.
- ed25519: RFC 8032's test vectors.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import base64
import datetime as dt
from pathlib import Path

import pytest

from smartpos.testing import sign
from smartpos.webhooks import (
    Ed25519SignatureVerifier,
    HmacManifestVerifier,
    RsaSignatureVerifier,
    StandardWebhooksVerifier,
    StripeStyleVerifier,
    TokenDigestVerifier,
    VerificationError,
)

standardwebhooks = pytest.importorskip("standardwebhooks")

VECTORS = Path(__file__).parent / "fixtures" / "vectors"

# --- Standard Webhooks -----------------------------------------------------------------------

# The vector of the reference library's own test suite (test_sign_function in
# standard-webhooks/standard-webhooks, libraries/python/tests/test_webhooks.py).
SW_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SW_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SW_TIMESTAMP = 1614265330
SW_BODY = b'{"test": 2432232314}'
SW_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_the_reference_vector_of_standard_webhooks() -> None:
    """sign() reproduces the reference signature, and the verifier accepts it."""
    headers = sign(SW_BODY, secret=SW_SECRET, msg_id=SW_ID, timestamp=SW_TIMESTAMP)
    assert {
        "webhook-id": SW_ID,
        "webhook-timestamp": str(SW_TIMESTAMP),
        "webhook-signature": SW_SIGNATURE,
    } == headers
    StandardWebhooksVerifier(SW_SECRET, clock=lambda: SW_TIMESTAMP + 1).verify(SW_BODY, headers)


@pytest.mark.parametrize(
    "body",
    [
        b'{"id":"evt-1","tipo":"pagamento.aprovado"}',
        '{"id":"evt-2","tipo":"impressão","valor":"R$ 1,00"}'.encode(),
        b"",
    ],
)
def test_the_standardwebhooks_package_verifies_our_signer(body: bytes) -> None:
    """Webhook(secret).verify() (the published package, real clock) accepts sign()'s headers
    with a rotated pair of secrets, and refuses them for another body."""
    other = "whsec_" + base64.b64encode(b"the-other-secret-24-bytes").decode()
    headers = sign(body, secret=[other, SW_SECRET])
    webhook = standardwebhooks.Webhook(SW_SECRET)
    webhook.verify(body, headers, json_parse=False)
    with pytest.raises(standardwebhooks.webhooks.WebhookVerificationError):
        webhook.verify(body + b" ", headers, json_parse=False)


def test_our_verifier_accepts_the_standardwebhooks_packages_signatures() -> None:
    """The package's sign() header, with its id and timestamp, passes our verifier; with the
    body changed, or the clock an hour later, it does not."""
    body = b'{"id":"evt-3","tipo":"pagamento.recusado"}'
    now = dt.datetime.now(dt.timezone.utc)
    signature = standardwebhooks.Webhook(SW_SECRET).sign("msg_interop", now, body.decode())
    headers = {
        "webhook-id": "msg_interop",
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": signature,
    }
    verifier = StandardWebhooksVerifier(SW_SECRET)
    verifier.verify(body, headers)
    with pytest.raises(VerificationError):
        verifier.verify(body.replace(b"evt-3", b"evt-4"), headers)
    later = StandardWebhooksVerifier(SW_SECRET, clock=lambda: now.timestamp() + 3600)
    with pytest.raises(VerificationError, match="old"):
        later.verify(body, headers)


def test_the_packages_unpadded_secret_form_is_read_alike() -> None:
    """The package pads bare Base64 secrets; a secret written without padding works here too."""
    raw = b"secret-of-twenty-five-by!"  # 25 bytes: its Base64 ends in "="
    unpadded = base64.b64encode(raw).decode().rstrip("=")
    body = b'{"id":"evt-5"}'
    headers = sign(body, secret="whsec_" + unpadded)
    standardwebhooks.Webhook(unpadded).verify(body, headers, json_parse=False)
    StandardWebhooksVerifier(raw).verify(body, headers)


# --- Stripe-style ----------------------------------------------------------------------------

# https://docs.stripe.com/webhooks#verify-manually: "t" is the timestamp, "v1" the hex
# HMAC-SHA256 of the signed_payload "<t>.<raw body>", keyed with the endpoint's secret
# (the "whsec_..." string itself). Secret and payload are stripe-python's test fixtures.
# printf '%s' '1492774577.{"id": "evt_test_webhook", "object": "event"}' \
#   | openssl dgst -sha256 -hmac 'whsec_test_secret'
STRIPE_BODY = b'{"id": "evt_test_webhook", "object": "event"}'
STRIPE_HEADER = (
    "t=1492774577,v1=c137b1b62277d523cf8fed4dfbd0170a9a5b8a380e00cc3711d4bf0652f2ce7a,"
    "v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39"
)


def test_stripe_documented_algorithm_vector() -> None:
    """The hand-computed v1 passes (the v0 beside it is ignored); sign() writes the same v1."""
    verifier = StripeStyleVerifier("whsec_test_secret", clock=lambda: 1492774577 + 10)
    verifier.verify(STRIPE_BODY, {"stripe-signature": STRIPE_HEADER})
    signed = sign(STRIPE_BODY, secret="whsec_test_secret", scheme="stripe", timestamp=1492774577)
    assert STRIPE_HEADER.split(",v0=")[0] == signed["stripe-signature"]
    with pytest.raises(VerificationError):
        verifier.verify(STRIPE_BODY, {"stripe-signature": STRIPE_HEADER.replace("t=149", "t=150")})


# --- Mercado Pago's manifest -----------------------------------------------------------------

# Mercado Pago, "Notificações / Webhooks, validar a origem" (mercadopago.com.br/developers,
# .../your-integrations/notifications/webhooks): x-signature "ts=<ts>,v1=<hex>", the template
# "id:[data.id_url];request-id:[x-request-id_header];ts:[ts_header];" (trailing ";"), data.id in
# lower case when alphanumeric, HMAC-SHA256 in hex with the application's secret.
MP_TEMPLATE = "id:{json:data.id|lower};request-id:{header:x-request-id};ts:{timestamp};"
# printf '%s' 'id:123456;request-id:bb56a2f1-6aae-46ac-982e-9dcd3581d08e;ts:1704908010;' \
#   | openssl dgst -sha256 -hmac 'mp-webhook-secret'
MP_V1 = "82b907dfa85f7f1f8e561068fa2dc1667b3eea1c02313b91ca86bf6f19946e5a"
MP_BODY = b'{"action":"payment.updated","api_version":"v1","data":{"id":"123456"},"type":"payment"}'
# The Orders API writes ts in milliseconds (its docs show ts=1742505638683) and ids such as
# "ORD01JQ4S4KY8HWQ6NA5PXB65B3D3", signed lower-cased:
# printf '%s' 'id:ord01jq4s4ky8hwq6na5pxb65b3d3;'\
# 'request-id:f7b2a1d4-0b1c-4ec2-aaaa-9e8b1d2f3c4d;ts:1742505638683;' \
#   | openssl dgst -sha256 -hmac 'mp-webhook-secret'
MP_ORDER_V1 = "f9b2720f3f9e70bb30aa0015aafe1f0a450111c98d295fffc212e40cc6174452"
MP_ORDER_BODY = b'{"action":"order.processed","data":{"id":"ORD01JQ4S4KY8HWQ6NA5PXB65B3D3"}}'


def test_mercado_pago_documented_manifest_vector() -> None:
    """The hand-computed manifest signature passes; sign() writes the same header."""
    headers = {
        "x-signature": f"ts=1704908010,v1={MP_V1}",
        "x-request-id": "bb56a2f1-6aae-46ac-982e-9dcd3581d08e",
    }
    verifier = HmacManifestVerifier(
        "mp-webhook-secret", template=MP_TEMPLATE, clock=lambda: 1704908010
    )
    verifier.verify(MP_BODY, headers)
    signed = sign(
        MP_BODY,
        secret="mp-webhook-secret",
        scheme="hmac-manifest",
        template=MP_TEMPLATE,
        timestamp=1704908010,
        headers={"x-request-id": headers["x-request-id"]},
    )
    assert headers == signed
    with pytest.raises(VerificationError):
        verifier.verify(MP_BODY.replace(b"123456", b"123457"), headers)


def test_mercado_pago_orders_vector_in_milliseconds_with_a_lower_cased_id() -> None:
    """timestamp_unit="ms" reads the Orders API's ts; |lower signs the id as documented."""
    headers = {
        "x-signature": f"ts=1742505638683,v1={MP_ORDER_V1}",
        "x-request-id": "f7b2a1d4-0b1c-4ec2-aaaa-9e8b1d2f3c4d",
    }
    HmacManifestVerifier(
        "mp-webhook-secret",
        template=MP_TEMPLATE,
        timestamp_unit="ms",
        clock=lambda: 1742505638.683 + 5,
    ).verify(MP_ORDER_BODY, headers)
    with pytest.raises(VerificationError, match="looks like milliseconds"):
        HmacManifestVerifier(
            "mp-webhook-secret", template=MP_TEMPLATE, clock=lambda: 1742505638
        ).verify(MP_ORDER_BODY, headers)


# --- PagBank's token digest ------------------------------------------------------------------

# PagBank, "Confirmar autenticidade da notificação"
# (developer.pagbank.com.br/reference/confirmar-autenticidade-da-notificacao):
# x-authenticity-token is the SHA-256 of "<token>-<payload>". The payload is the start of the
# documented example.
# printf '%s' 'my-pagbank-token-{"id":"CHAR_354828dd-786b-4cca-8ce4-6f7a1f3f2a1a",'\
# '"status":"WAITING"}' | openssl dgst -sha256
PAGBANK_BODY = b'{"id":"CHAR_354828dd-786b-4cca-8ce4-6f7a1f3f2a1a","status":"WAITING"}'
PAGBANK_TOKEN = "454ad5fae320f8b486c449b1c864abb5cc470940404ed6fe0cedd6286b37ebe0"


def test_pagbank_documented_token_vector() -> None:
    """The hand-computed digest passes; sign() writes it; another token does not."""
    headers = {"x-authenticity-token": PAGBANK_TOKEN}
    TokenDigestVerifier("my-pagbank-token").verify(PAGBANK_BODY, headers)
    assert headers == sign(PAGBANK_BODY, secret="my-pagbank-token", scheme="token")
    with pytest.raises(VerificationError):
        TokenDigestVerifier("my-pagbank-tokem").verify(PAGBANK_BODY, headers)


# --- Woovi's RSA example ---------------------------------------------------------------------

# Woovi (OpenPix), "Como validar o Webhook Signature?"
# (developers.woovi.com/docs/webhook/webhook-signature-validation): x-webhook-signature is the
# Base64 RSA PKCS #1 v1.5 SHA-256 signature of the raw body, by the key published there (in
# Base64 of its PEM, the form below). Checked independently with
# `openssl dgst -sha256 -verify pub.pem -signature sig.bin woovi-webhook-payload.json`.
WOOVI_PUBLIC_KEY = (
    "LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KTUlHZk1BMEdDU3FHU0liM0RRRUJBUVVBQTRHTkFEQ0JpUUtCZ1FDLytO"
    "dElranpldnZxRCtJM01NdjNiTFhEdApwdnhCalk0QnNSclNkY2EzcnRBd01jUllZdnhTbmQ3amFnVkxwY3RNaU94UU84"
    "aWVVQ0tMU1dIcHNNQWpPL3paCldNS2Jxb0c4TU5waS91M2ZwNnp6MG1jSENPU3FZc1BVVUcxOWJ1VzhiaXM1WloySVpn"
    "Qk9iV1NwVHZKMGNuajYKSEtCQUE4MkpsbitsR3dTMU13SURBUUFCCi0tLS0tRU5EIFBVQkxJQyBLRVktLS0tLQo="
)
WOOVI_SIGNATURE = (
    "lL2nnXgmLFGgxJ8+jCDguqouU4ucrIxYJcU5SPrJFaNcJajTJHYVldqc/z4YFIjAjtPEALe699WosgPY08W7CLpidvtm"
    "06Qwa4YMB0l/DcTS93O91NdSH/adjugEKiOb76Zj/0jB8mqOmWCFYbweOBa17bssuEkd5Lw7Q5L314Y="
)


def test_woovi_documented_rsa_example() -> None:
    """Woovi's published key, payload and signature verify, in both key forms; a changed
    payload does not."""
    # The exact bytes of the documented payload; a trailing newline an editor may add is not
    # part of it.
    payload = (VECTORS / "woovi-webhook-payload.json").read_bytes().rstrip(b"\n")
    headers = {"x-webhook-signature": WOOVI_SIGNATURE}
    pem = base64.b64decode(WOOVI_PUBLIC_KEY).decode()
    for key in (WOOVI_PUBLIC_KEY, pem):
        verifier = RsaSignatureVerifier(key, header="x-webhook-signature")
        verifier.verify(payload, headers)
        with pytest.raises(VerificationError):
            verifier.verify(payload.replace(b'"value": 1000', b'"value": 1001'), headers)


# --- RFC 8032 ed25519 ------------------------------------------------------------------------

# RFC 8032, section 7.1, TEST 1 (empty message) and TEST 2 (one byte, 0x72).
RFC8032 = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        b"",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701c"
        "f9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        b"r",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0"
        "f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
]


@pytest.mark.parametrize(("secret", "public", "message", "signature"), RFC8032)
def test_rfc8032_ed25519_vectors(secret: str, public: str, message: bytes, signature: str) -> None:
    """The RFC's signature verifies with its public key (hex, as printed there), and sign()
    with its secret key writes exactly that signature."""
    headers = {"x-signature": signature}
    verifier = Ed25519SignatureVerifier(public, encoding="hex")
    verifier.verify(message, headers)
    assert headers == sign(message, secret=secret, scheme="ed25519", encoding="hex")
    with pytest.raises(VerificationError):
        verifier.verify(message + b"!", headers)
