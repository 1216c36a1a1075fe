"""docs/en/architecture.md's "Where to add", executable: a missing sibling names the next file.

An endpoint lives in several places on purpose (the simulator speaks raw dicts written from
the spec, the SDK its own records). These tests walk the sandbox's route table and the SDK's
operation paths, and fail naming the file to edit when one side has an endpoint the other
lacks. Event kinds have theirs in tests/test_event_kinds.py.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

import smartpos
from smartpos.testing import _service
from smartpos.webhooks import _outcomes

ROOT = Path(__file__).resolve().parent.parent
ROUTES = [pytest.param(route, id=f"{route.method} {route.template}") for route in _service.ROUTES]


def _literal_parts(template: str) -> list[str]:
    """The fixed parts of a route template: ``/v1/customers/{doc}/smartpos`` -> 2 parts."""
    return [part for part in re.split(r"\{[A-Za-z]+\}", template) if part]


def _missing(path: Path, template: str) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [part for part in _literal_parts(template) if part not in text]


@pytest.mark.parametrize("route", ROUTES)
def test_every_sandbox_endpoint_has_a_resource_on_both_clients(route: _service.Route) -> None:
    """The clients have a resource named after the endpoint."""
    transport = httpx.MockTransport(lambda request: httpx.Response(500))
    for client_class in (smartpos.Client, smartpos.AsyncClient):
        client = client_class(api_key="k", base_url="http://h.invalid", transport=transport)
        assert hasattr(client, route.endpoint), (
            f"{route.method} {route.template}: add the resource {route.endpoint!r} to "
            "src/smartpos/_async_client.py, then run python scripts/unasync.py"
        )


@pytest.mark.parametrize("route", ROUTES)
def test_every_sandbox_endpoint_has_a_builder(route: _service.Route) -> None:
    """src/smartpos/_calls.py builds a Call for the endpoint's path."""
    missing = _missing(ROOT / "src" / "smartpos" / "_calls.py", route.template)
    assert [] == missing, (
        f"{route.method} {route.template}: add its builder to src/smartpos/_calls.py (its "
        "request record in _requests.py, its argument checks in _arguments.py)"
    )


@pytest.mark.parametrize("route", ROUTES)
def test_every_sandbox_endpoint_has_golden_bytes(route: _service.Route) -> None:
    """tests/test_wire_requests.py pins the exact bytes the SDK sends to the endpoint."""
    missing = _missing(ROOT / "tests" / "test_wire_requests.py", route.template)
    assert [] == missing, (
        f"{route.method} {route.template}: add its golden request to tests/test_wire_requests.py"
    )


@pytest.mark.parametrize("path", sorted(_outcomes._PATH_KINDS))
def test_every_operation_path_is_served_by_the_sandbox(path: str) -> None:
    """An operation the SDK journals has a route in the simulator that tests it."""
    assert _service.endpoint_of(path) is not None, (
        f"{path}: add a Route to ROUTES in src/smartpos/testing/_service.py (and its rules "
        "in testing/_rules.py, raw dicts from the spec)"
    )
