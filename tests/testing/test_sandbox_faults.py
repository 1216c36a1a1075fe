"""Faults on demand, in process (sync and async) and over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from sandbox_bodies import Bodies

from smartpos.testing import (
    BadGateway,
    ConnectionRefused,
    DropConnection,
    InternalError,
    Latency,
    RateLimited,
    ReadTimeout,
    Sandbox,
)


@pytest.fixture
def served(sandbox: Sandbox) -> Iterator[httpx.Client]:
    """A raw client talking to the sandbox over real HTTP, with a short read timeout."""
    with (
        sandbox.serve() as base_url,
        httpx.Client(
            base_url=base_url,
            headers={"x-api-key": Sandbox.API_KEY},
            timeout=httpx.Timeout(5.0, read=0.5),
            trust_env=False,
        ) as client,
    ):
        yield client


def test_internal_error_answers_500_and_records_nothing(
    api: httpx.Client, sandbox: Sandbox
) -> None:
    """InternalError answers 500 ERRO_INTERNO before processing, then requests work again."""
    sandbox.fail_next("payments", InternalError())
    body = Bodies.payment()
    response = api.post("/v1/payments", json=body)
    assert response.status_code == 500
    assert response.json()["erro"]["codigo"] == "ERRO_INTERNO"
    assert sandbox.payments == []
    assert api.post("/v1/payments", json=body).status_code == 202


def test_internal_error_after_accept_keeps_the_operation(
    api: httpx.Client, sandbox: Sandbox
) -> None:
    """InternalError(after_accept=True) answers 500 although the payment happened."""
    sandbox.fail_next("payments", InternalError(after_accept=True))
    body = Bodies.payment()
    assert api.post("/v1/payments", json=body).status_code == 500
    assert sandbox.payment(body["referencia"]).status == "aprovado"
    assert api.post("/v1/payments", json=body).status_code == 409


def test_bad_gateway_answers_html(api: httpx.Client, sandbox: Sandbox) -> None:
    """BadGateway answers 502 with an HTML body and records nothing."""
    sandbox.fail_next("*", BadGateway())
    response = api.post("/v1/payments", json=Bodies.payment())
    assert response.status_code == 502
    assert response.headers["content-type"].startswith("text/html")
    assert b"<html>" in response.content
    assert sandbox.payments == []


def test_rate_limited_answers_429_with_retry_after(api: httpx.Client, sandbox: Sandbox) -> None:
    """RateLimited answers 429 with Retry-After."""
    sandbox.fail_next("qrcodes", RateLimited(retry_after=7))
    response = api.post("/qrcode", json={"documentoCliente": Sandbox.DOCUMENTO})
    assert response.status_code == 429
    assert response.headers["retry-after"] == "7"
    assert response.json()["erro"]["codigo"] == "LIMITE_REQUISICOES"


def test_latency_then_a_normal_answer(api: httpx.Client, sandbox: Sandbox) -> None:
    """Latency delays the answer, which is otherwise normal."""
    sandbox.fail_next("terminals", Latency(0.01))
    response = api.get(f"/v1/customers/{Sandbox.DOCUMENTO}/smartpos")
    assert response.status_code == 200
    assert sandbox.requests[-1].fault == "Latency"


def test_drop_connection_in_process_after_the_state_changed(
    raw: httpx.Client, sandbox: Sandbox
) -> None:
    """DropConnection raises RemoteProtocolError after the payment was made and its event sent."""
    sandbox.fail_next("payments", DropConnection())
    body = Bodies.payment()
    with pytest.raises(httpx.RemoteProtocolError):
        raw.post("/v1/payments", json=body)
    assert sandbox.payment(body["referencia"]).status == "aprovado"
    assert sandbox.events[0]["dados"]["referencia"] == body["referencia"]
    assert sandbox.requests[-1].status_code is None


def test_drop_connection_over_http_closes_the_socket(
    served: httpx.Client, sandbox: Sandbox
) -> None:
    """Over serve(), DropConnection closes the socket with no answer, after the payment."""
    sandbox.fail_next("payments", DropConnection())
    body = Bodies.payment()
    with pytest.raises(httpx.RemoteProtocolError):
        served.post("/v1/payments", json=body)
    assert sandbox.payment(body["referencia"]).status == "aprovado"
    assert served.post("/v1/payments", json=body).status_code == 409


def test_read_timeout_in_process(raw: httpx.Client, sandbox: Sandbox) -> None:
    """ReadTimeout raises httpx.ReadTimeout after the print job was accepted."""
    sandbox.fail_next("print_jobs", ReadTimeout())
    with pytest.raises(httpx.ReadTimeout):
        raw.post("/v1/print-jobs", json=Bodies.print_job())
    assert len(sandbox.print_jobs) == 1


def test_read_timeout_over_http(served: httpx.Client, sandbox: Sandbox) -> None:
    """Over serve(), ReadTimeout keeps the socket silent, so the client's read times out."""
    sandbox.fail_next("payments", ReadTimeout(hold=10))
    with pytest.raises(httpx.ReadTimeout):
        served.post("/v1/payments", json=Bodies.payment())
    assert len(sandbox.payments) == 1


def test_connection_refused_in_process_records_nothing(raw: httpx.Client, sandbox: Sandbox) -> None:
    """ConnectionRefused raises httpx.ConnectError and nothing happens."""
    sandbox.fail_next("payments", ConnectionRefused())
    body = Bodies.payment()
    with pytest.raises(httpx.ConnectError):
        raw.post("/v1/payments", json=body)
    assert sandbox.payments == []
    assert sandbox.events == []
    assert raw.post("/v1/payments", json=body).status_code == 202


def test_connection_refused_over_http_closes_without_processing(
    served: httpx.Client, sandbox: Sandbox
) -> None:
    """Over serve(), ConnectionRefused closes the socket and records no payment."""
    sandbox.fail_next("payments", ConnectionRefused())
    with pytest.raises(httpx.TransportError):
        served.post("/v1/payments", json=Bodies.payment())
    assert sandbox.payments == []


def test_faults_match_their_endpoint_and_count(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A fault applies only to its endpoint, exactly `times` times, in order of injection."""
    sandbox.fail_next("refunds", InternalError())
    sandbox.fail_next("payments", RateLimited(), times=2)
    sandbox.fail_next("*", BadGateway())
    statuses = [raw.post("/v1/payments", json=Bodies.payment()).status_code for _ in range(4)]
    assert statuses == [429, 429, 502, 202]
    assert raw.post("/v1/refunds", json={}).status_code == 500


def test_unrouted_paths_take_no_fault(raw: httpx.Client, sandbox: Sandbox) -> None:
    """An unknown path does not consume a '*' fault."""
    sandbox.fail_next("*", InternalError())
    assert raw.get("/nothing").status_code == 404
    assert raw.post("/v1/payments", json=Bodies.payment()).status_code == 500


def test_clear_faults(raw: httpx.Client, sandbox: Sandbox) -> None:
    """clear_faults forgets faults not used yet."""
    sandbox.fail_next("*", InternalError(), times=3)
    sandbox.clear_faults()
    assert raw.post("/v1/payments", json=Bodies.payment()).status_code == 202


def test_fail_next_validates_its_arguments(sandbox: Sandbox) -> None:
    """Unknown endpoints and times below 1 are refused."""
    with pytest.raises(ValueError, match="endpoint"):
        sandbox.fail_next("pagamentos", InternalError())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="times"):
        sandbox.fail_next("payments", InternalError(), times=0)


# --- async ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_async_transport_serves_and_injects_faults(sandbox: Sandbox) -> None:
    """The same transport serves httpx.AsyncClient, latency and dropped connections included."""
    sandbox.fail_next("payments", Latency(0.01))
    sandbox.fail_next("payments", DropConnection())
    async with httpx.AsyncClient(
        base_url="http://s.invalid",
        transport=sandbox.transport(),
        headers={"x-api-key": Sandbox.API_KEY},
    ) as client:
        first = await client.post("/v1/payments", json=Bodies.payment())
        dropped = Bodies.payment()
        with pytest.raises(httpx.RemoteProtocolError):
            await client.post("/v1/payments", json=dropped)
    assert first.status_code == 202
    assert [p.status for p in sandbox.payments] == ["aprovado", "aprovado"]
    assert [r.fault for r in sandbox.requests] == ["Latency", "DropConnection"]


@pytest.mark.asyncio
async def test_async_connection_refused(sandbox: Sandbox) -> None:
    """ConnectionRefused raises ConnectError through the async client too."""
    sandbox.fail_next("*", ConnectionRefused())
    async with httpx.AsyncClient(transport=sandbox.transport()) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"http://s.invalid/v1/customers/{Sandbox.DOCUMENTO}/smartpos")
