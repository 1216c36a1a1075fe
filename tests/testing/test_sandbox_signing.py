"""The sandbox signs what it delivers, under every scheme, and adds fixed headers.

Each delivery is checked by the SDK's own verifiers (and by the published ``standardwebhooks``
package when it is installed), configured as a partner's receiver would be: the sandbox is
proven against the reading side, not against itself.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from sandbox_receiver import receiving

from smartpos import ConfigurationError, webhooks
from smartpos.testing import RemoteSandbox, Sandbox, WebhookSigning, sign
from smartpos.testing._signing import signing_from_json, signing_to_json

WHSEC = "whsec_" + base64.b64encode(b"sandbox-signing-secret-24").decode()
OTHER = "whsec_" + base64.b64encode(b"another-signing-secret-24").decode()
NOW = 1_700_000_000.0
MANIFEST = "id:{json:id};request-id:{header:x-request-id};ts:{timestamp};{body}"

#: scheme -> (the sandbox's key material and options, the receiver's)
SCHEMES: dict[str, tuple[tuple[Any, dict[str, Any]], tuple[Any, dict[str, Any]]]] = {
    "standard-webhooks": ((WHSEC, {}), (WHSEC, {})),
    "stripe": (("whsec_stripe", {}), ("whsec_stripe", {})),
    "hmac-manifest": (
        ("s3cret", {"template": MANIFEST}),
        ("s3cret", {"template": MANIFEST}),
    ),
    "token": (("pagbank-token", {}), ("pagbank-token", {})),
    "hmac": (("s3cret", {"header": "x-hub-signature"}), ("s3cret", {"header": "x-hub-signature"})),
    "shared-secret": (("change-me", {}), ("change-me", {})),
}


def _crypto_keys() -> dict[str, tuple[tuple[Any, dict[str, Any]], tuple[Any, dict[str, Any]]]]:
    """ed25519 and RSA key pairs, when ``cryptography`` is installed."""
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
    except ImportError:
        return {}
    pem = serialization.Encoding.PEM
    ed = ed25519.Ed25519PrivateKey.generate()
    rs = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def private(key: Any) -> str:
        return str(
            key.private_bytes(
                pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            ).decode()
        )

    def public(key: Any) -> str:
        return str(
            key.public_key()
            .public_bytes(pem, serialization.PublicFormat.SubjectPublicKeyInfo)
            .decode()
        )

    options = {"header": "x-webhook-signature"}
    return {
        "ed25519": ((private(ed), options), (public(ed), options)),
        "rsa": ((private(rs), options), (public(rs), options)),
    }


SCHEMES.update(_crypto_keys())


def receiver_for(scheme: str, store: webhooks.MemoryStore, **extra: Any) -> Any:
    """A WebhookReceiver configured as a partner would configure it for ``scheme``."""
    secret, options = SCHEMES[scheme][1]
    verifier = webhooks.make_verifier(scheme, secret, **options, **extra)
    return webhooks.WebhookReceiver(store, verifier=verifier)


def signing_for(scheme: str, secret: Any = None) -> WebhookSigning:
    """The sandbox's signing for ``scheme`` (its own key material unless one is given)."""
    own, options = SCHEMES[scheme][0]
    return WebhookSigning(scheme, own if secret is None else secret, **options)


@pytest.fixture
def clocked() -> Iterator[Sandbox]:
    """A sandbox on a fixed clock, every delivery attempted at most twice."""
    with Sandbox(clock=lambda: NOW, webhook_attempts=2, webhook_backoff=0.01) as sandbox:
        yield sandbox


# ------------------------------------------------------------------------------- the schemes


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_every_scheme_is_verified_by_the_receiver_a_partner_configures(
    scheme: str, clocked: Sandbox
) -> None:
    """Each delivery is signed for its exact body: the scheme's verifier stores it."""
    store = webhooks.MemoryStore()
    extra = {} if scheme in ("token", "hmac", "shared-secret") else {"clock": lambda: NOW}
    clocked.set_webhook(receiver_for(scheme, store, **extra))
    clocked.set_webhook_headers({"x-request-id": "req-1"})  # the manifest signs it
    clocked.set_webhook_signing(signing_for(scheme))

    event = clocked.trigger("pagamento.aprovado")

    assert [(1, True, 200)] == [(d.attempt, d.ok, d.status_code) for d in clocked.deliveries]
    assert store.get(event["id"]) is not None


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_a_sandbox_with_another_key_is_refused_and_nothing_is_stored(
    scheme: str, clocked: Sandbox
) -> None:
    """The same scheme with the wrong key material: every attempt is answered 401."""
    store = webhooks.MemoryStore()
    extra = {} if scheme in ("token", "hmac", "shared-secret") else {"clock": lambda: NOW}
    clocked.set_webhook(receiver_for(scheme, store, **extra))
    clocked.set_webhook_headers({"x-request-id": "req-1"})
    wrong: Any = "not-the-secret"
    if scheme == "standard-webhooks":
        wrong = OTHER
    elif scheme in ("ed25519", "rsa"):
        wrong = _crypto_keys()[scheme][0][0]  # another private key
    clocked.set_webhook_signing(signing_for(scheme, wrong))

    event = clocked.trigger("pagamento.aprovado")

    assert [(1, 401), (2, 401)] == [(d.attempt, d.status_code) for d in clocked.deliveries]
    assert store.get(event["id"]) is None


def test_without_signing_a_verifying_receiver_refuses_the_sandbox(clocked: Sandbox) -> None:
    """The issue's first symptom, kept as the control: an unsigned delivery is a 401."""
    store = webhooks.MemoryStore()
    clocked.set_webhook(receiver_for("standard-webhooks", store, clock=lambda: NOW))
    event = clocked.trigger("pagamento.aprovado")
    assert {401} == {d.status_code for d in clocked.deliveries}
    assert None is store.get(event["id"])


def test_standardwebhooks_package_verifies_a_real_delivery() -> None:
    """The published reference library accepts what the sandbox posts to a URL."""
    standardwebhooks = pytest.importorskip("standardwebhooks")
    with (
        Sandbox(webhook_signing=WebhookSigning("standard-webhooks", WHSEC)) as sandbox,
        receiving() as receiver,
    ):
        sandbox.set_webhook(receiver.url)
        event = sandbox.trigger("pagamento.aprovado")
        sandbox.wait_for_events(1)
    [body], [headers] = receiver.bodies, receiver.headers
    payload = standardwebhooks.Webhook(WHSEC).verify(body, headers)
    assert event["id"] == payload["id"] == headers["webhook-id"]


# ------------------------------------------------------------------------------- retries


def test_each_retry_keeps_the_webhook_id_and_is_signed_again_with_a_fresh_timestamp() -> None:
    """A URL that answers 500 twice: three attempts, one id, three timestamps, all valid."""
    ticks = iter(range(10_000))

    def clock() -> float:
        return NOW + 10 * next(ticks)  # every reading of the clock is 10 s later

    signing = WebhookSigning("standard-webhooks", WHSEC)
    with (
        Sandbox(clock=clock, webhook_signing=signing, webhook_backoff=0.01) as sandbox,
        receiving([500, 500]) as receiver,
    ):
        sandbox.set_webhook(receiver.url)
        event = sandbox.trigger("pagamento.aprovado")
        sandbox.wait_for_deliveries()
    ids = [h["webhook-id"] for h in receiver.headers]
    stamps = [int(h["webhook-timestamp"]) for h in receiver.headers]
    assert [event["id"]] * 3 == ids
    assert stamps == sorted(set(stamps))  # three, each later than the one before
    assert 3 == len({h["webhook-signature"] for h in receiver.headers})
    assert 1 == len(set(receiver.bodies))
    for body, headers, stamp in zip(receiver.bodies, receiver.headers, stamps, strict=True):
        webhooks.StandardWebhooksVerifier(WHSEC, clock=lambda s=stamp: s).verify(body, headers)


def test_in_process_receivers_are_signed_at_each_attempt_too() -> None:
    """A receiver object that fails once gets two signed attempts with the same id."""
    seen: list[dict[str, str]] = []

    class Flaky:
        def receive(self, body: bytes, headers: Mapping[str, str]) -> int:
            seen.append(dict(headers))
            return 503 if len(seen) == 1 else 200

    with Sandbox(webhook_signing=WebhookSigning("standard-webhooks", WHSEC)) as sandbox:
        sandbox.set_webhook(Flaky())
        event = sandbox.trigger("impressao.concluida")
    assert [event["id"], event["id"]] == [h["webhook-id"] for h in seen]
    assert [False, True] == [d.ok for d in sandbox.deliveries]


def test_a_callable_target_gets_the_envelope_and_no_signing_is_needed() -> None:
    """A callable takes the envelope dict: nothing to sign, the delivery still works."""
    got: list[dict[str, Any]] = []
    with Sandbox(webhook_signing=WebhookSigning("standard-webhooks", WHSEC)) as sandbox:
        sandbox.set_webhook(got.append)
        event = sandbox.trigger("impressao.concluida")
    assert [event] == got


# ------------------------------------------------------------------------------- fixed headers


def test_fixed_headers_let_a_shared_secret_receiver_take_the_deliveries() -> None:
    """webhook_headers={'x-webhook-secret': ...}: what the Django WEBHOOK_SECRET checks."""
    store = webhooks.MemoryStore()
    receiver = webhooks.WebhookReceiver(
        store, verifier=webhooks.SharedSecretVerifier(secret="change-me")
    )
    with (
        Sandbox(webhook_headers={"X-Webhook-Secret": "change-me"}) as sandbox,
        receiving() as url_receiver,
    ):
        sandbox.set_webhook(receiver)
        first = sandbox.trigger("pagamento.aprovado")
        sandbox.set_webhook(url_receiver.url)
        sandbox.trigger("impressao.concluida")
        sandbox.wait_for_events(2)
        sandbox.set_webhook_headers(None)
        sandbox.set_webhook(receiver)
        refused = sandbox.trigger("impressao.concluida", referencia=None)
    assert store.get(first["id"]) is not None
    assert "change-me" == url_receiver.headers[0]["x-webhook-secret"]
    assert None is store.get(refused["id"])


def test_a_manifest_field_the_delivery_lacks_fails_the_attempt_not_the_sandbox() -> None:
    """A template needing {header:x-request-id} without it: 'cannot sign', recorded, retried."""
    signing = WebhookSigning("hmac-manifest", "s3cret", template=MANIFEST)
    with Sandbox(webhook_signing=signing, webhook_attempts=2) as sandbox:
        sandbox.set_webhook(webhooks.WebhookReceiver(webhooks.MemoryStore()))
        sandbox.trigger("pagamento.aprovado")
        sandbox.set_webhook_headers({"x-request-id": "r-1"})
        sandbox.trigger("pagamento.aprovado")
    failed, _, ok = sandbox.deliveries
    assert (False, None) == (failed.ok, failed.status_code)
    assert failed.error is not None
    assert failed.error.startswith("cannot sign: ")
    assert "x-request-id" in failed.error
    assert ok.ok


@pytest.mark.parametrize(
    ("headers", "error"),
    [
        ({"bad name": "x"}, ValueError),
        ({"x-ok": "line\r\nx-injected: 1"}, ValueError),
        ({"x-ok": 5}, TypeError),
        (["x-ok"], TypeError),
    ],
)
def test_bad_fixed_headers_are_refused_without_showing_a_value(headers: Any, error: type) -> None:
    """A header name must be a token; a value holds no line break (and is never echoed)."""
    with pytest.raises(error) as caught:
        Sandbox(webhook_headers=headers)
    assert "injected" not in str(caught.value)


# ------------------------------------------------------------------------------- per delivery


def test_trigger_and_resend_to_a_url_sign_that_delivery_as_told() -> None:
    """signing= on trigger/resend wins for that delivery; without it, the sandbox's own."""
    with (
        Sandbox(clock=lambda: NOW, webhook_signing=WebhookSigning("stripe", "own")) as sandbox,
        receiving() as receiver,
    ):
        event = sandbox.trigger("pagamento.aprovado", to=receiver.url)
        sandbox.resend(
            event["id"],
            to=receiver.url,
            signing=WebhookSigning("standard-webhooks", WHSEC),
            headers={"x-extra": "1"},
        )
    own, told = receiver.headers
    stripe = webhooks.StripeStyleVerifier("own", clock=lambda: NOW)
    stripe.verify(receiver.bodies[0], own)
    webhooks.StandardWebhooksVerifier(WHSEC, clock=lambda: NOW).verify(receiver.bodies[1], told)
    assert ("stripe-signature" in own, "webhook-signature" in own) == (True, False)
    assert "1" == told["x-extra"]


@pytest.mark.parametrize(
    "tipo",
    [
        "smartpos.identificado",
        "pagamento.aprovado",
        "pagamento.recusado",
        "impressao.concluida",
        "impressao.falhou",
    ],
)
def test_trigger_to_a_url_signs_every_tipo_as_told(tipo: str) -> None:
    """Each kind of event reaches its one delivery through its own path: all are signed."""
    with Sandbox(clock=lambda: NOW) as sandbox, receiving() as receiver:
        event = sandbox.trigger(
            tipo, to=receiver.url, signing=WebhookSigning("standard-webhooks", WHSEC)
        )
    [body], [headers] = receiver.bodies, receiver.headers
    webhooks.StandardWebhooksVerifier(WHSEC, clock=lambda: NOW).verify(body, headers)
    assert event["id"] == headers["webhook-id"]


# ------------------------------------------------------------------------------- WebhookSigning


def test_webhook_signing_hides_its_secret_and_compares_by_value() -> None:
    """repr shows the scheme and the option names only; equal configurations are equal."""
    signing = WebhookSigning("hmac-manifest", "s3cret", template=MANIFEST)
    assert "WebhookSigning('hmac-manifest', secret=***, template=...)" == repr(signing)
    assert signing == WebhookSigning("hmac-manifest", "s3cret", template=MANIFEST)
    assert signing != WebhookSigning("hmac-manifest", "other", template=MANIFEST)
    assert ("hmac-manifest", "s3cret", {"template": MANIFEST}) == (
        signing.scheme,
        signing.secret,
        signing.options,
    )
    with pytest.raises(TypeError):
        hash(signing)


@pytest.mark.parametrize(
    ("scheme", "secret", "options", "match"),
    [
        ("nope", "x", {}, "nope"),
        ("hmac-manifest", "x", {}, "template"),
        ("stripe", "x", {"templat": "x"}, "templat"),
        ("standard-webhooks", "not base64!", {}, "whsec_"),
        ("standard-webhooks", [], {}, "secret"),
    ],
)
def test_a_bad_configuration_is_refused_when_built(
    scheme: str, secret: Any, options: dict[str, Any], match: str
) -> None:
    """Not at the first delivery: building the signing signs a sample and says what is wrong."""
    with pytest.raises(ConfigurationError, match=match) as caught:
        WebhookSigning(scheme, secret, **options)
    assert "not base64!" not in str(caught.value)


def test_the_sandbox_takes_only_a_webhook_signing() -> None:
    """A scheme's name alone is a TypeError that shows the right form."""
    with pytest.raises(TypeError, match=r"WebhookSigning\(scheme, secret"):
        Sandbox(webhook_signing="standard-webhooks")  # type: ignore[arg-type]
    with Sandbox() as sandbox, pytest.raises(TypeError):
        sandbox.set_webhook_signing(("stripe", "x"))  # type: ignore[arg-type]


def test_the_control_api_json_of_a_signing_round_trips() -> None:
    """{scheme, secret, options}: text secrets only; bad shapes are ValueErrors."""
    signing = WebhookSigning("standard-webhooks", [WHSEC, OTHER])
    assert signing == signing_from_json(json.loads(json.dumps(signing_to_json(signing))))
    with pytest.raises(TypeError, match="text"):
        signing_to_json(WebhookSigning("stripe", b"raw-bytes"))
    for bad in ([], {"scheme": "stripe"}, {"scheme": 1, "secret": "x"}, {"x": 1}):
        with pytest.raises(ValueError):
            signing_from_json(bad)


# ------------------------------------------------------------------------------- control API


@pytest.fixture(params=["python", "http"])
def control(request: pytest.FixtureRequest) -> Iterator[tuple[Sandbox, Any]]:
    """The sandbox, and the same sandbox's switches in Python or over the control API."""
    with Sandbox(clock=lambda: NOW) as sandbox, sandbox.serve() as url:
        if request.param == "python":
            yield sandbox, sandbox
        else:
            with RemoteSandbox(url) as remote:
                yield sandbox, remote


def test_signing_and_headers_are_switched_over_the_control_api_too(
    control: tuple[Sandbox, Any],
) -> None:
    """set_webhook_signing / set_webhook_headers have twins; None turns them off."""
    sandbox, switches = control
    store = webhooks.MemoryStore()
    receiver = receiver_for("standard-webhooks", store, clock=lambda: NOW)
    sandbox.set_webhook(receiver)
    switches.set_webhook_signing(WebhookSigning("standard-webhooks", [OTHER, WHSEC]))
    switches.set_webhook_headers({"x-webhook-secret": "change-me"})
    signed = sandbox.trigger("pagamento.aprovado")
    switches.set_webhook_signing(None)
    switches.set_webhook_headers(None)
    unsigned = sandbox.trigger("pagamento.aprovado")
    assert store.get(signed["id"]) is not None
    assert None is store.get(unsigned["id"])


def test_the_request_log_never_keeps_a_secret_nor_a_header_value() -> None:
    """Control bodies are logged with the secret and header values hidden, names kept."""
    with Sandbox() as sandbox, sandbox.serve() as url, RemoteSandbox(url) as remote:
        remote.set_webhook_signing(
            WebhookSigning("hmac-manifest", "top-s3cret", template=MANIFEST, headers={"x-k": "v1"})
        )
        remote.set_webhook_headers({"x-webhook-secret": "hidden-value"})
        with receiving() as receiver:
            remote.trigger("impressao.concluida", to=receiver.url, headers={"x-r": "r-value"})
        logged = json.dumps([r.json for r in sandbox.requests])
        served = remote.call("GET", "/requests")
    for secret in ("top-s3cret", "hidden-value", "r-value", '"v1"'):
        assert secret not in logged
        assert secret not in json.dumps(served)
    assert '"x-webhook-secret": "***"' in logged
    assert '"secret": "***"' in logged


def test_the_control_api_refuses_a_bad_signing_with_campo_invalido() -> None:
    """A bad scheme or shape over HTTP is 400 CAMPO_INVALIDO naming signing."""
    with Sandbox() as sandbox, sandbox.serve() as url, RemoteSandbox(url) as remote:
        with pytest.raises(ValueError, match="signing"):
            remote.call("PUT", "/webhook/signing", {"signing": {"scheme": "nope", "secret": "x"}})
        with pytest.raises(ValueError, match="signing"):
            remote.call("PUT", "/webhook/signing", {})
        with pytest.raises(ValueError, match="headers"):
            remote.call("PUT", "/webhook/headers", {"headers": {"x": 1}})
        with pytest.raises(TypeError, match="text"):
            remote.set_webhook_signing(WebhookSigning("stripe", b"bytes-key"))


# ------------------------------------------------------------------------------- the clock


def test_the_timestamp_is_the_sandboxs_clock_so_advance_looks_like_a_skewed_sender() -> None:
    """advance(600): the receiver on the real clock sees a delivery 600 s in the future."""
    store = webhooks.MemoryStore()
    receiver = receiver_for("standard-webhooks", store)
    with Sandbox(webhook_signing=WebhookSigning("standard-webhooks", WHSEC)) as sandbox:
        sandbox.set_webhook(receiver)
        on_time = sandbox.trigger("pagamento.aprovado")
        sandbox.advance(600)
        early = sandbox.trigger("pagamento.aprovado")
    assert store.get(on_time["id"]) is not None
    assert None is store.get(early["id"])
    late = [d for d in sandbox.deliveries if d.event_id == early["id"]]
    assert {401} == {d.status_code for d in late}


def test_sign_and_the_sandbox_agree_on_the_headers() -> None:
    """The sandbox uses sign(): same body, same time, same id give the same headers."""
    with receiving() as receiver:
        signing = WebhookSigning("standard-webhooks", WHSEC)
        with Sandbox(clock=lambda: NOW, webhook_signing=signing) as sandbox:
            sandbox.set_webhook(receiver.url)
            sandbox.trigger("impressao.concluida")
            sandbox.wait_for_events(1)
    [body], [headers] = receiver.bodies, receiver.headers
    expected = sign(body, secret=WHSEC, timestamp=NOW)
    assert expected == {k: headers[k] for k in expected}
