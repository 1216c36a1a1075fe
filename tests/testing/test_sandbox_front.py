"""The sandbox's seams without httpx: the service function, the front door and its fault plan."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator

import pytest
from sandbox_bodies import Bodies

from smartpos.testing import DropConnection, Latency, RateLimited, ReadTimeout, Sandbox
from smartpos.testing._faults import FaultPlan
from smartpos.testing._front import Front
from smartpos.testing._outbox import Outbox
from smartpos.testing._protocol import NoResponse, Request, Response
from smartpos.testing._service import Service
from smartpos.testing._terminals import Terminals
from smartpos.testing._world import World

KEY = {"x-api-key": Sandbox.API_KEY}
JSON = {**KEY, "content-type": "application/json"}


class Parts:
    """The pieces a Sandbox is made of, assembled by hand as a new driver would."""

    def __init__(self) -> None:
        self.world = World(
            seed=1, clock=time.time, qr_code_ttl=300.0, event_timezone=dt.timezone.utc
        )
        self.faults = FaultPlan()
        self.outbox = Outbox(self.world, self.faults, attempts=1, backoff=0.0, timeout=1.0)
        self.terminals = Terminals(self.world, self.outbox)
        self.service = Service(self.world, self.terminals)
        self.front = Front(self.service, self.faults, self.world, self.outbox)
        self.world.add_partner(Sandbox.API_KEY, "sandbox", True, "active")
        self.world.add_customer(Sandbox.DOCUMENTO, Sandbox.API_KEY)
        self.world.add_terminal(Sandbox.SMARTPOS_ID, Sandbox.DOCUMENTO, None, "STONE", None, None)


@pytest.fixture
def parts() -> Iterator[Parts]:
    """A hand-assembled sandbox, closed after the test."""
    assembled = Parts()
    yield assembled
    assembled.outbox.close()


def _post(path: str, body: dict[str, object]) -> Request:
    return Request("POST", path, JSON, json.dumps(body).encode())


def test_the_service_is_a_function_of_a_plain_request(parts: Parts) -> None:
    """Service.handle answers a method, path, headers and body with a status, headers and body."""
    path = f"/v1/customers/{Sandbox.DOCUMENTO}/smartpos"
    listed = parts.service.handle(Request("GET", path, KEY, b""))
    refused = parts.service.handle(Request("GET", path, {}, b""))
    assert (200, [Sandbox.SMARTPOS_ID]) == (
        listed.status,
        [t["smartposId"] for t in json.loads(listed.body)["smartpos"]],
    )
    assert (401, "API_KEY_NAO_INFORMADA") == (
        refused.status,
        json.loads(refused.body)["erro"]["codigo"],
    )
    assert "application/json; charset=utf-8" == listed.headers["content-type"]


def test_the_service_alone_applies_no_fault_logs_nothing_delivers_nothing(parts: Parts) -> None:
    """Faults, the request log and delivery belong to the front door; the service only queues."""
    parts.faults.fail_next("*", RateLimited(), 1)
    answer = parts.service.handle(_post("/v1/payments", Bodies.payment()))
    assert (202, [], []) == (answer.status, parts.world.list_requests(), parts.outbox.events)
    parts.outbox.flush()
    assert ["pagamento.aprovado"] == [e["tipo"] for e in parts.outbox.events]


def test_the_front_door_takes_one_fault_per_request(parts: Parts) -> None:
    """begin() uses up one planned fault per request; the next request meets none."""
    parts.faults.fail_next("payments", Latency(30.0), 1)
    first = parts.front.begin(_post("/v1/payments", Bodies.payment()))
    second = parts.front.begin(_post("/v1/payments", Bodies.payment()))
    assert (Latency(30.0), 30.0) == (first.fault, first.delay)
    assert (None, None) == (second.fault, second.delay)


def test_a_fault_after_processing_is_no_response_after_the_state_changed(parts: Parts) -> None:
    """DropConnection and ReadTimeout answer NoResponse once the operation happened, and log it."""
    parts.faults.fail_next("payments", DropConnection(), 1)
    parts.faults.fail_next("print_jobs", ReadTimeout(hold=2.5), 1)
    body = Bodies.payment()
    dropped = parts.front.handle(_post("/v1/payments", body))
    silent = parts.front.handle(_post("/v1/print-jobs", Bodies.print_job()))
    assert (NoResponse("dropped"), NoResponse("timeout", 2.5)) == (dropped, silent)
    assert "aprovado" == parts.world.get_payment(body["referencia"]).status
    assert [(None, "DropConnection"), (None, "ReadTimeout")] == [
        (r.status_code, r.fault) for r in parts.world.list_requests()
    ]


def test_the_front_door_delivers_the_events_a_request_caused(parts: Parts) -> None:
    """After answer() the payment's event is delivered: the outbox was flushed."""
    answer = parts.front.handle(_post("/v1/payments", Bodies.payment()))
    assert isinstance(answer, Response)
    assert ["pagamento.aprovado"] == [e["tipo"] for e in parts.outbox.events]
