"""WebhookReceiver.receive and the verifiers: every status code and the order of the checks."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from smartpos import ConfigurationError, SmartPOSError
from smartpos.webhooks import (
    EventState,
    HmacSignatureVerifier,
    MemoryStore,
    PagamentoAprovado,
    PutResult,
    Receipt,
    SharedSecretVerifier,
    StoreError,
    VerificationError,
    Verifier,
    WebhookReceiver,
    Worker,
)
from smartpos.webhooks._store import EventLike

DOC = "52998224725"
SECRET = "s3cr3t-webhook-value"


def event_json(event_id: str = "evt-1", **dados: Any) -> dict[str, Any]:
    """A pagamento.aprovado envelope with the required dados plus ``dados``."""
    return {
        "id": event_id,
        "tipo": "pagamento.aprovado",
        "criadoEm": "2026-05-04T13:45:12Z",
        "dados": {"referencia": "r-1", "documentoCliente": DOC, "status": "aprovado", **dados},
    }


def body(data: Any) -> bytes:
    """JSON bytes of ``data``."""
    return json.dumps(data).encode()


class RecordingStore(MemoryStore):
    """A MemoryStore that counts the events handed to put/put_many."""

    def __init__(self) -> None:
        super().__init__()
        self.puts: list[str] = []

    def put(self, event: EventLike) -> PutResult:
        return self.put_many([event])[0]

    def put_many(self, events: Sequence[EventLike]) -> list[PutResult]:
        self.puts.extend(event.id for event in events)
        return super().put_many(events)


class FailingStore(MemoryStore):
    """A store whose put always fails like a locked or unreachable database."""

    def __init__(self, exc: Exception) -> None:
        super().__init__()
        self.exc = exc

    def put(self, event: EventLike) -> PutResult:
        raise self.exc


@pytest.fixture
def store() -> RecordingStore:
    """A fresh recording in-memory store."""
    return RecordingStore()


@pytest.fixture
def receiver(store: RecordingStore) -> WebhookReceiver:
    """A receiver with the shared-secret verifier."""
    return WebhookReceiver(store, verifier=SharedSecretVerifier(secret=SECRET))


GOOD_HEADERS = {"X-Webhook-Secret": SECRET, "Content-Type": "application/json"}


def answer(receipt: Receipt) -> Any:
    """The JSON body of a receipt."""
    return json.loads(receipt.body)


# --- status codes ---------------------------------------------------------------------------


def test_new_event_is_stored_and_answered_200(
    receiver: WebhookReceiver, store: RecordingStore
) -> None:
    """A valid, verified, new event: 200, typed event, NEW, stored pending."""
    receipt = receiver.receive(body(event_json()), GOOD_HEADERS)
    assert receipt.status_code == 200
    assert receipt.ok
    assert receipt.duplicate is False
    assert receipt.put_result is PutResult.NEW
    assert isinstance(receipt.event, PagamentoAprovado)
    assert receipt.error is None
    assert answer(receipt) == {"recebido": True, "duplicado": False}
    stored = store.get("evt-1")
    assert stored is not None
    assert stored.state is EventState.PENDING


def test_duplicate_is_answered_200_and_stored_once(
    receiver: WebhookReceiver, store: RecordingStore
) -> None:
    """The same delivery again: 200 with duplicate=True, one stored event."""
    receiver.receive(body(event_json()), GOOD_HEADERS)
    receipt = receiver.receive(body(event_json()), GOOD_HEADERS)
    assert (receipt.status_code, receipt.duplicate) == (200, True)
    assert receipt.put_result is PutResult.DUPLICATE
    assert answer(receipt) == {"recebido": True, "duplicado": True}
    assert len(store.claim(owner="t", lease=5, limit=10)) == 1


def test_conflict_is_answered_200_and_logged(
    receiver: WebhookReceiver, store: RecordingStore, caplog: pytest.LogCaptureFixture
) -> None:
    """Same id, different body: 200 (first kept), duplicate=True, a warning logged."""
    receiver.receive(body(event_json(valorCentavos=100)), GOOD_HEADERS)
    with caplog.at_level(logging.WARNING, logger="smartpos.webhooks"):
        receipt = receiver.receive(body(event_json(valorCentavos=999)), GOOD_HEADERS)
    assert (receipt.status_code, receipt.duplicate) == (200, True)
    assert receipt.put_result is PutResult.CONFLICT
    assert "different body" in caplog.text
    stored = store.get("evt-1")
    assert stored is not None
    assert stored.raw["dados"]["valorCentavos"] == 100


def test_too_large_is_413_before_anything_else(store: RecordingStore) -> None:
    """A body over max_body_bytes: 413, not verified, not parsed, not stored."""
    calls: list[bytes] = []

    class Spy:
        def verify(self, body: bytes, headers: Mapping[str, str]) -> None:
            calls.append(body)

    receiver = WebhookReceiver(store, verifier=Spy(), max_body_bytes=100)
    receipt = receiver.receive(body(event_json(pad="x" * 200)), GOOD_HEADERS)
    assert receipt.status_code == 413
    assert answer(receipt)["erro"]["codigo"] == "CORPO_MUITO_GRANDE"
    assert (calls, store.puts) == ([], [])


def test_body_at_the_limit_is_accepted(store: RecordingStore) -> None:
    """A body of exactly max_body_bytes is accepted."""
    data = body(event_json())
    receipt = WebhookReceiver(store, max_body_bytes=len(data)).receive(data)
    assert receipt.status_code == 200


@pytest.mark.parametrize(
    "headers",
    [None, {}, {"X-Webhook-Secret": "wrong"}, {"x-webhook-secret": SECRET + "x"}],
)
def test_failed_verification_is_401(
    receiver: WebhookReceiver, store: RecordingStore, headers: dict[str, str] | None
) -> None:
    """Missing or wrong secret: 401 with a short JSON error, and the store is never touched."""
    receipt = receiver.receive(body(event_json()), headers)
    assert receipt.status_code == 401
    assert receipt.event is None
    assert answer(receipt)["erro"]["codigo"] == "NAO_AUTORIZADO"
    assert store.puts == []


def test_verification_runs_before_dedup(receiver: WebhookReceiver, store: RecordingStore) -> None:
    """A forged request reusing a real id does not reach the store, so it claims nothing."""
    forged = body(event_json("evt-real", valorCentavos=1))
    assert receiver.receive(forged, {"X-Webhook-Secret": "guess"}).status_code == 401
    real = receiver.receive(body(event_json("evt-real", valorCentavos=15990)), GOOD_HEADERS)
    assert (real.status_code, real.put_result) == (200, PutResult.NEW)
    assert store.puts == ["evt-real"]


def test_verification_before_parsing(receiver: WebhookReceiver) -> None:
    """An unverified non-JSON body is 401, not 400: nothing is parsed for a stranger."""
    assert receiver.receive(b"not json", {}).status_code == 401


@pytest.mark.parametrize(
    ("data", "mensagem"),
    [
        (b"not json", "$: invalid JSON: Expecting value (line 1 column 1)"),
        (b"[1, 2]", "$: expected an object"),
        (b"{}", "$.id: required field is missing"),
        (b'{"id": 5, "tipo": "x"}', "$.id: expected a string"),
        (b'{"id": "e"}', "$.tipo: required field is missing"),
        (b"\xff", "$: invalid JSON: Expecting value (line 1 column 1)"),  # read as cp1252
    ],
)
def test_not_an_event_is_400(
    receiver: WebhookReceiver, store: RecordingStore, data: bytes, mensagem: str
) -> None:
    """A body that cannot be an event: 400 EVENTO_INVALIDO naming the JSON path; not stored."""
    receipt = receiver.receive(data, GOOD_HEADERS)
    assert receipt.status_code == 400
    assert answer(receipt) == {"erro": {"codigo": "EVENTO_INVALIDO", "mensagem": mensagem}}
    assert receipt.error == mensagem
    assert store.puts == []


@pytest.mark.parametrize(
    "exc", [StoreError("database is locked"), OSError("disk full"), RuntimeError("bug")]
)
def test_store_failure_is_503(exc: Exception, caplog: pytest.LogCaptureFixture) -> None:
    """When put raises, the answer is 503 so that the service delivers the event again."""
    receiver = WebhookReceiver(FailingStore(exc))
    with caplog.at_level(logging.ERROR, logger="smartpos.webhooks"):
        receipt = receiver.receive(body(event_json()))
    assert receipt.status_code == 503
    assert receipt.put_result is None
    assert answer(receipt)["erro"]["codigo"] == "ARMAZENAMENTO_INDISPONIVEL"
    assert "NOT stored" in caplog.text


def test_schema_mismatch_is_stored_and_answered_200(store: RecordingStore) -> None:
    """dados that does not fit the schema: stored, 200, event None, the reason in error."""
    receiver = WebhookReceiver(store)
    receipt = receiver.receive(body(event_json(valorCentavos="15990")))
    assert (receipt.status_code, receipt.put_result) == (200, PutResult.NEW)
    assert receipt.event is None
    assert receipt.envelope is not None
    assert receipt.envelope.id == "evt-1"
    assert receipt.error == "$.dados.valorCentavos: expected an integer"
    assert store.get("evt-1") is not None


def test_schema_mismatch_is_dead_lettered_then_requeued(store: RecordingStore) -> None:
    """The worker dead-letters a mismatched event; requeue makes it pending again."""
    WebhookReceiver(store).receive(body(event_json(valorCentavos="15990")))
    handled: list[Any] = []
    assert Worker(store, handled.append, base_backoff=0).run_once() == 1
    stored = store.get("evt-1")
    assert stored is not None
    assert stored.state is EventState.DEAD
    assert stored.last_error == "InvalidEventError: $.dados.valorCentavos: expected an integer"
    assert handled == []
    assert store.requeue("evt-1")
    requeued = store.get("evt-1")
    assert requeued is not None
    assert requeued.state is EventState.PENDING


def test_bad_criado_em_is_still_stored(store: RecordingStore) -> None:
    """An envelope with an unreadable criadoEm is stored (200) with criado_em None."""
    data = {**event_json(), "criadoEm": "ontem"}
    receipt = WebhookReceiver(store).receive(body(data))
    assert receipt.status_code == 200
    assert receipt.envelope is not None
    assert receipt.envelope.criado_em is None
    assert receipt.event is None


def test_unknown_tipo_is_stored(store: RecordingStore) -> None:
    """An unknown tipo is a valid event: stored and answered 200 with an UnknownEvent."""
    data = {**event_json(), "tipo": "x-teste.evento-futuro"}
    receipt = WebhookReceiver(store).receive(body(data))
    assert receipt.status_code == 200
    assert receipt.event is not None
    assert receipt.event.tipo == "x-teste.evento-futuro"


def test_str_and_bytearray_bodies(store: RecordingStore) -> None:
    """receive accepts a str (UTF-8 encoded) and a bytearray as the body."""
    receiver = WebhookReceiver(store)
    assert receiver.receive(json.dumps(event_json("a"))).status_code == 200
    assert receiver.receive(bytearray(body(event_json("b")))).status_code == 200
    assert store.puts == ["a", "b"]


def test_logs_never_hold_bodies_documents_or_secrets(
    receiver: WebhookReceiver, caplog: pytest.LogCaptureFixture
) -> None:
    """Through every branch, the logs carry ids and results, never documents or secrets."""
    with caplog.at_level(logging.DEBUG, logger="smartpos.webhooks"):
        receiver.receive(body(event_json()), GOOD_HEADERS)
        receiver.receive(body(event_json()), GOOD_HEADERS)
        receiver.receive(body(event_json(valorCentavos=1)), GOOD_HEADERS)
        receiver.receive(body(event_json("e2", valorCentavos="x")), GOOD_HEADERS)
        receiver.receive(body(event_json()), {"X-Webhook-Secret": SECRET[:-1]})
        receiver.receive(b"[]", GOOD_HEADERS)
        WebhookReceiver(FailingStore(StoreError("x"))).receive(body(event_json()))
    assert "evt-1" in caplog.text
    assert DOC not in caplog.text
    assert SECRET[:-1] not in caplog.text


def test_receiver_options_are_checked(store: RecordingStore) -> None:
    """A bad max_body_bytes or a verifier without verify is a ConfigurationError at construction."""
    with pytest.raises(ConfigurationError, match="max_body_bytes"):
        WebhookReceiver(store, max_body_bytes=0)
    with pytest.raises(ConfigurationError, match="max_body_bytes"):
        WebhookReceiver(store, max_body_bytes=True)
    with pytest.raises(ConfigurationError, match="verify"):
        WebhookReceiver(store, verifier=object())  # type: ignore[arg-type]
    assert WebhookReceiver(store).max_body_bytes == 256 * 1024


def test_a_bad_option_is_still_a_value_error(store: RecordingStore) -> None:
    """ConfigurationError is a ValueError: code that caught ValueError for a bad option works."""
    with pytest.raises(ValueError, match="max_body_bytes") as info:
        WebhookReceiver(store, max_body_bytes=-1)
    assert isinstance(info.value, ConfigurationError)


# --- verifiers ------------------------------------------------------------------------------


def test_shared_secret_header_is_case_insensitive(store: RecordingStore) -> None:
    """The header name matches in any case, on both sides."""
    receiver = WebhookReceiver(store, verifier=SharedSecretVerifier("X-Partner-Token", secret="t"))
    assert receiver.receive(body(event_json()), {"x-partner-TOKEN": "t"}).status_code == 200


def test_shared_secret_rotation() -> None:
    """While rotating, any of several secrets is accepted, and only those."""
    verifier = SharedSecretVerifier(secret=["old", b"new"])
    verifier.verify(b"", {"x-webhook-secret": "old"})
    verifier.verify(b"", {"x-webhook-secret": "new"})
    with pytest.raises(VerificationError, match="does not match"):
        verifier.verify(b"", {"x-webhook-secret": "other"})


def test_shared_secret_messages_and_repr_hide_the_secret() -> None:
    """Neither the repr nor the error messages contain the secret or the value received."""
    verifier = SharedSecretVerifier(secret=SECRET)
    assert SECRET not in repr(verifier)
    with pytest.raises(VerificationError) as missing:
        verifier.verify(b"", {})
    assert str(missing.value) == "the x-webhook-secret header is missing"
    with pytest.raises(VerificationError) as wrong:
        verifier.verify(b"", {"x-webhook-secret": "guess-123"})
    assert "guess-123" not in str(wrong.value)
    assert isinstance(wrong.value, SmartPOSError)


@pytest.mark.parametrize("secret", ["", b"", [], ["ok", ""], 7, None])
def test_empty_secret_is_refused(secret: Any) -> None:
    """An empty (or absent, or not text) secret is a ConfigurationError at construction."""
    with pytest.raises(ConfigurationError, match="secret"):
        SharedSecretVerifier(secret=secret)
    with pytest.raises(ConfigurationError, match="secret"):
        HmacSignatureVerifier("x-signature", secret)


@pytest.mark.parametrize("header", ["", "  ", None, b"x-secret"])
def test_bad_header_name_is_refused(header: Any) -> None:
    """A verifier's header must be a non-empty str: a ConfigurationError at construction."""
    with pytest.raises(ConfigurationError, match="header"):
        SharedSecretVerifier(header, secret=SECRET)
    with pytest.raises(ConfigurationError, match="header"):
        HmacSignatureVerifier(header, "key")


def test_a_set_of_secrets_is_accepted() -> None:
    """Any iterable of secrets is accepted while rotating, not only a list or a tuple."""
    verifier = SharedSecretVerifier(secret={"one", "two"})
    verifier.verify(b"", {"x-webhook-secret": "two"})


def test_hmac_signature_with_an_empty_secret_argument() -> None:
    """signature(body, secret=b"") is a bad argument, not a bad option: a plain ValueError."""
    verifier = HmacSignatureVerifier("x-signature", "key")
    with pytest.raises(ValueError, match="secret") as info:
        verifier.signature(b"{}", b"")
    assert not isinstance(info.value, ConfigurationError)


def test_hmac_signature_forms() -> None:
    """The HMAC verifier accepts hex, prefixed hex and Base64 of the body's HMAC."""
    verifier = HmacSignatureVerifier("x-signature", "key")
    data = body(event_json())
    digest = hmac.new(b"key", data, hashlib.sha256).digest()
    for value in (digest.hex(), "sha256=" + digest.hex(), base64.b64encode(digest).decode()):
        verifier.verify(data, {"x-signature": value})
    assert verifier.signature(data) == digest.hex()


@pytest.mark.parametrize("value", ["", "sha256=00", "zz", "c2lnbmF0dXJl"])
def test_hmac_signature_wrong(value: str) -> None:
    """A wrong or malformed signature is refused."""
    verifier = HmacSignatureVerifier("x-signature", "key")
    with pytest.raises(VerificationError, match="does not match"):
        verifier.verify(b"{}", {"x-signature": value})


def test_hmac_signature_of_another_body_is_refused(store: RecordingStore) -> None:
    """A signature made for one body does not verify another: 401 through the receiver."""
    verifier = HmacSignatureVerifier("x-signature", "key", algorithm="sha512")
    receiver = WebhookReceiver(store, verifier=verifier)
    original = body(event_json(valorCentavos=1))
    signature = verifier.signature(original)
    assert receiver.receive(original, {"X-Signature": signature}).status_code == 200
    tampered = body(event_json(valorCentavos=1_000_000))
    assert receiver.receive(tampered, {"X-Signature": signature}).status_code == 401
    assert "key" not in repr(verifier).replace("secret=***", "")


@pytest.mark.parametrize("algorithm", ["nope", None, 256])
def test_hmac_unknown_algorithm(algorithm: Any) -> None:
    """An unknown (or not a str) hash algorithm is a ConfigurationError at construction."""
    with pytest.raises(ConfigurationError, match="algorithm"):
        HmacSignatureVerifier("x-signature", "key", algorithm=algorithm)


def test_custom_verifier_plugs_in(store: RecordingStore) -> None:
    """Any object with verify(body, headers) is a Verifier; its VerificationError gives 401."""
    seen: list[Mapping[str, str]] = []

    class IpAllowList:
        def verify(self, body: bytes, headers: Mapping[str, str]) -> None:
            seen.append(headers)
            if headers.get("x-forwarded-for") != "10.0.0.1":
                raise VerificationError("unknown sender")

    verifier = IpAllowList()
    assert isinstance(verifier, Verifier)
    receiver = WebhookReceiver(store, verifier=verifier)
    assert receiver.receive(body(event_json()), {"X-Forwarded-For": "10.9.9.9"}).status_code == 401
    assert receiver.receive(body(event_json()), {"X-Forwarded-For": "10.0.0.1"}).status_code == 200
    assert seen[0] == {"x-forwarded-for": "10.9.9.9"}


class ExplodingVerifier:
    """A verifier with a bug: it raises something other than VerificationError."""

    def verify(self, body: bytes, headers: Mapping[str, str]) -> None:
        raise RuntimeError("secret store unreachable")


def test_a_broken_verifier_is_503_and_stores_nothing(store: RecordingStore) -> None:
    """A verifier that crashes gives 503 (delivered again later), never an exception."""
    receiver = WebhookReceiver(store, verifier=ExplodingVerifier())
    receipt = receiver.receive(body(event_json()), {})
    assert (receipt.status_code, store.puts, receipt.event) == (503, [], None)
    assert answer(receipt)["erro"]["codigo"] == "VERIFICACAO_INDISPONIVEL"


@pytest.mark.parametrize("algorithm", ["shake_128", "SHAKE_256"])
def test_hmac_refuses_shake_algorithms(algorithm: str) -> None:
    """SHAKE digests need a length HMAC cannot give: refused when the verifier is built."""
    with pytest.raises(ConfigurationError, match="unknown or unusable"):
        HmacSignatureVerifier("x-signature", "key", algorithm=algorithm)
