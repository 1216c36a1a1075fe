"""Webhook delivery: real URLs with retries, in-process targets, resend, out of order."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx
import pytest
from sandbox_bodies import Bodies
from sandbox_receiver import receiving

import smartpos
from smartpos.testing import Sandbox


def pay(raw: httpx.Client, **overrides: Any) -> dict[str, Any]:
    """Send an accepted payment; return its body."""
    body = Bodies.payment(**overrides)
    assert raw.post("/v1/payments", json=body).status_code == 202
    return body


def sandbox_with(**kwargs: Any) -> tuple[Sandbox, httpx.Client]:
    """Return a sandbox built with kwargs and a raw client bound to it."""
    sandbox = Sandbox(**kwargs)
    client = httpx.Client(
        base_url="http://s.invalid",
        transport=sandbox.transport(),
        headers={"x-api-key": Sandbox.API_KEY},
    )
    return sandbox, client


# --- real URL targets ----------------------------------------------------------------------


def test_events_are_posted_as_json_to_a_url(sandbox: Sandbox, raw: httpx.Client) -> None:
    """A URL target receives each envelope as a JSON POST, the same dict as sandbox.events."""
    with receiving() as receiver:
        sandbox.set_webhook(receiver.url)
        body = pay(raw)
        events = sandbox.wait_for_events(1)
    assert receiver.events == events
    assert events[0]["dados"]["referencia"] == body["referencia"]
    assert receiver.headers[0]["content-type"] == "application/json"


def test_non_2xx_answers_are_retried_with_the_same_id() -> None:
    """A URL answering 500 then 503 gets the same event a third time, and it is recorded once."""
    sandbox, raw = sandbox_with(webhook_backoff=0.001)
    with sandbox, receiving([500, 503]) as receiver:
        sandbox.set_webhook(receiver.url)
        pay(raw)
        sandbox.wait_for_deliveries()
    ids = [e["id"] for e in receiver.events]
    assert len(ids) == 3
    assert len(set(ids)) == 1
    assert [(d.attempt, d.ok, d.status_code) for d in sandbox.deliveries] == [
        (1, False, 500),
        (2, False, 503),
        (3, True, 200),
    ]
    assert len(sandbox.events) == 1


def test_retries_are_bounded() -> None:
    """A URL that always fails gets exactly webhook_attempts attempts."""
    sandbox, raw = sandbox_with(webhook_backoff=0.001, webhook_attempts=3)
    with sandbox, receiving([500] * 10) as receiver:
        sandbox.set_webhook(receiver.url)
        pay(raw)
        sandbox.wait_for_deliveries()
    assert len(receiver.bodies) == 3
    assert [d.ok for d in sandbox.deliveries] == [False, False, False]


def test_unreachable_url_fails_each_attempt() -> None:
    """Attempts to a closed port fail with a network error, still bounded."""
    sandbox, raw = sandbox_with(webhook_backoff=0.001, webhook_attempts=2)
    with receiving() as receiver:
        url = receiver.url
    with sandbox:
        sandbox.set_webhook(url)
        pay(raw)
        sandbox.wait_for_deliveries()
        deliveries = sandbox.deliveries
    assert len(deliveries) == 2
    assert all(d.status_code is None for d in deliveries)
    assert all(d.error for d in deliveries)


def test_resend_delivers_the_same_id_again(sandbox: Sandbox, raw: httpx.Client) -> None:
    """resend(event_id) posts the very same envelope once more."""
    with receiving() as receiver:
        sandbox.set_webhook(receiver.url)
        pay(raw)
        (event,) = sandbox.wait_for_events(1)
        sandbox.resend(event["id"])
        sandbox.wait_for_events(2)
    assert receiver.events == [event, event]
    assert sandbox.events == [event, event]


def test_held_events_are_released_in_reverse_order(sandbox: Sandbox, raw: httpx.Client) -> None:
    """Held events reach the URL newest first when released reversed."""
    with receiving() as receiver:
        sandbox.set_webhook(receiver.url)
        sandbox.hold_events()
        first = pay(raw)
        raw.post("/v1/print-jobs", json=Bodies.print_job())
        assert len(sandbox.held_events) == 2
        assert sandbox.events == []
        released = sandbox.release_events(reverse=True)
        sandbox.wait_for_events(2)
    assert [e["tipo"] for e in receiver.events] == ["impressao.concluida", "pagamento.aprovado"]
    assert receiver.events == released
    assert receiver.events[1]["dados"]["referencia"] == first["referencia"]
    assert sandbox.held_events == []


def test_release_in_emission_order(sandbox: Sandbox, raw: httpx.Client) -> None:
    """Released without reverse, held events keep their order."""
    sandbox.hold_events()
    pay(raw)
    raw.post("/v1/print-jobs", json=Bodies.print_job())
    sandbox.release_events()
    assert [e["tipo"] for e in sandbox.events] == ["pagamento.aprovado", "impressao.concluida"]


def test_webhook_urls_must_be_loopback(sandbox: Sandbox) -> None:
    """The sandbox never delivers outside the machine."""
    with pytest.raises(ValueError, match="loopback"):
        sandbox.set_webhook("http://example.com/hooks")
    with pytest.raises(ValueError, match="loopback"):
        sandbox.set_webhook("ftp://127.0.0.1/hooks")
    with pytest.raises(TypeError):
        sandbox.set_webhook(42)  # type: ignore[arg-type]
    sandbox.set_webhook("http://[::1]:1/hooks")
    sandbox.set_webhook("http://localhost:1/hooks")


def test_wait_for_events_times_out(sandbox: Sandbox) -> None:
    """Waiting for events that never come raises TimeoutError."""
    with pytest.raises(TimeoutError):
        sandbox.wait_for_events(1, timeout=0.01)


def test_url_deliveries_after_close_are_not_attempted(raw: httpx.Client) -> None:
    """A closed sandbox records URL deliveries as failed without sending."""
    sandbox, raw = sandbox_with()
    sandbox.set_webhook("http://127.0.0.1:9/hooks")
    sandbox.close()
    pay(raw)
    (delivery,) = sandbox.deliveries
    assert (delivery.ok, delivery.error) == (False, "sandbox closed")


# --- in-process targets --------------------------------------------------------------------


def test_callable_target_gets_the_envelope_before_the_call_returns(
    sandbox: Sandbox, raw: httpx.Client
) -> None:
    """An in-process callable receives the envelope synchronously, before the response."""
    received: list[dict[str, Any]] = []
    sandbox.set_webhook(received.append)
    body = pay(raw)
    assert [e["dados"]["referencia"] for e in received] == [body["referencia"]]
    assert received == sandbox.events


def test_callable_target_gets_a_copy(sandbox: Sandbox, raw: httpx.Client) -> None:
    """A target mutating its envelope does not change what the sandbox recorded."""
    sandbox.set_webhook(lambda envelope: envelope.clear())
    pay(raw)
    assert sandbox.events[0]["tipo"] == "pagamento.aprovado"


class FakeReceiver:
    """Duck-typed like smartpos.webhooks.WebhookReceiver: receive(body, headers)."""

    class Receipt:
        def __init__(self, status_code: int) -> None:
            self.status_code = status_code

    def __init__(self, statuses: list[int]) -> None:
        self.statuses = statuses
        self.calls: list[tuple[bytes, dict[str, str]]] = []

    def receive(
        self, body: bytes, headers: Mapping[str, str] | None = None
    ) -> FakeReceiver.Receipt:
        self.calls.append((body, dict(headers or {})))
        return self.Receipt(self.statuses.pop(0) if self.statuses else 200)


def test_receiver_object_gets_bytes_and_headers(sandbox: Sandbox, raw: httpx.Client) -> None:
    """An object with receive(body, headers) gets the JSON bytes; a 500 receipt is retried."""
    receiver = FakeReceiver([500])
    sandbox.set_webhook(receiver)
    pay(raw)
    assert len(receiver.calls) == 2
    body, headers = receiver.calls[0]
    assert json.loads(body) == sandbox.events[0]
    assert headers["content-type"] == "application/json"
    assert receiver.calls[0] == receiver.calls[1]
    assert [d.status_code for d in sandbox.deliveries] == [500, 200]


def test_a_raising_callable_is_retried_at_once(sandbox: Sandbox, raw: httpx.Client) -> None:
    """An exception in an in-process target is a failed attempt, retried without sleeping."""
    calls: list[str] = []

    def flaky(envelope: dict[str, Any]) -> None:
        calls.append(envelope["id"])
        if len(calls) == 1:
            raise RuntimeError("database down")

    sandbox.set_webhook(flaky)
    pay(raw)
    assert len(calls) == 2
    assert sandbox.deliveries[0].error == "RuntimeError: database down"
    assert sandbox.deliveries[1].ok


def test_a_target_may_call_the_sandbox_again(sandbox: Sandbox, raw: httpx.Client) -> None:
    """A target that sends a request from inside a delivery does not deadlock."""

    def refund_on_approval(envelope: dict[str, Any]) -> None:
        if envelope["tipo"] == "pagamento.aprovado":
            raw.post("/v1/refunds", json=Bodies.refund(envelope))

    sandbox.set_webhook(refund_on_approval)
    pay(raw)
    assert len(sandbox.refunds) == 1


def test_partner_without_webhook_gets_no_print_events(sandbox: Sandbox, raw: httpx.Client) -> None:
    """Print events of a partner without webhook are dropped and the drop is recorded."""
    sandbox.set_webhook(False)
    raw.post("/v1/print-jobs", json=Bodies.print_job())
    assert sandbox.events == []
    assert sandbox.deliveries[0].error == "webhook not configured"


def test_add_partner_with_a_target(sandbox: Sandbox) -> None:
    """A partner added with a callable target gets its own events there."""
    received: list[dict[str, Any]] = []
    partner = sandbox.add_partner("k2", name="loja", webhook=received.append)
    assert partner.webhook_configured
    assert partner.webhook_target is not None
    sandbox.add_customer("11144477735", api_key="k2")
    sandbox.add_terminal("SP-K2", documento_cliente="11144477735")
    client = httpx.Client(transport=sandbox.transport(), headers={"x-api-key": "k2"})
    body = Bodies.payment(documentoCliente="11144477735", smartposId="SP-K2")
    assert client.post("http://s.invalid/v1/payments", json=body).status_code == 202
    assert [e["dados"]["smartposId"] for e in received] == ["SP-K2"]


# --- webhook faults ------------------------------------------------------------------------


def test_fail_webhook_makes_the_first_attempts_fail(sandbox: Sandbox, raw: httpx.Client) -> None:
    """Injected failures do not reach the target; the event arrives on the next attempt."""
    received: list[dict[str, Any]] = []
    sandbox.set_webhook(received.append)
    sandbox.fail_webhook(times=2, status_code=503)
    pay(raw)
    assert len(received) == 1
    assert [(d.ok, d.status_code) for d in sandbox.deliveries] == [
        (False, 503),
        (False, 503),
        (True, None),
    ]


def test_slow_webhook_causes_a_duplicate_delivery(sandbox: Sandbox, raw: httpx.Client) -> None:
    """A target too slow to answer gets the same event id twice."""
    received: list[dict[str, Any]] = []
    sandbox.set_webhook(received.append)
    sandbox.slow_webhook()
    pay(raw)
    assert [e["id"] for e in received] == [sandbox.events[0]["id"]] * 2
    assert sandbox.deliveries[0].error == "timed out waiting for the target's answer"


def test_slow_url_target_is_retried() -> None:
    """A real URL target slower than webhook_timeout is retried and sees the id twice."""
    sandbox, raw = sandbox_with(webhook_backoff=0.001)
    with sandbox, receiving() as receiver:
        sandbox.set_webhook(receiver.url)
        sandbox.slow_webhook()
        pay(raw)
        sandbox.wait_for_deliveries()
    assert len(receiver.bodies) == 2
    assert receiver.bodies[0] == receiver.bodies[1]


def test_clear_faults_forgets_webhook_faults(sandbox: Sandbox, raw: httpx.Client) -> None:
    """clear_faults drops pending webhook failures."""
    sandbox.fail_webhook(times=5)
    sandbox.clear_faults()
    pay(raw)
    assert [d.ok for d in sandbox.deliveries] == [True]


def test_a_target_finds_the_envelope_in_events_while_it_is_delivered() -> None:
    """`events` lists an envelope from the start of its delivery (the flaky wait's cause)."""
    from smartpos.testing import Sandbox as _Sandbox

    seen: list[bool] = []
    with _Sandbox() as sandbox:

        def target(envelope: dict[str, object]) -> None:
            seen.append(any(e["id"] == envelope["id"] for e in sandbox.events))

        sandbox.set_webhook(target)
        with smartpos.Client(
            api_key=_Sandbox.API_KEY, base_url="http://sandbox.invalid",
            transport=sandbox.transport(),
        ) as client:  # fmt: skip
            client.qrcodes.create(documento_cliente=_Sandbox.DOCUMENTO)
        sandbox.scan()
        assert [True] == seen
        assert 1 == len(sandbox.wait_for_events(1))
