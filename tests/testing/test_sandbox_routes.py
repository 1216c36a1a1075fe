"""The sandbox service routes every request through one table, GET and POST alike."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

from typing import Any

import httpx
import pytest

from smartpos.testing import Sandbox, _service


def _get(sandbox: Sandbox, path: str, method: str = "GET") -> httpx.Response:
    with httpx.Client(transport=sandbox.transport(), base_url="http://sandbox.invalid") as http:
        return http.request(method, path, headers={"x-api-key": Sandbox.API_KEY})


def test_a_new_get_endpoint_is_one_route_and_one_handler(monkeypatch: pytest.MonkeyPatch) -> None:
    """A GET with two path segments: a Route and a handler, no change to the dispatch code."""
    seen: list[tuple[Any, ...]] = []

    def one_terminal(self: Any, partner: str, documento: str, smartpos_id: str) -> Any:
        seen.append((partner, documento, smartpos_id))
        return 200, {"smartposId": smartpos_id}

    route = _service.Route(
        "GET",
        "/v1/customers/{documentoCliente}/smartpos/{smartposId}",
        "terminals",
        "_one_terminal",
        json_body=False,
    )
    monkeypatch.setattr(_service, "ROUTES", (*_service.ROUTES, route))
    monkeypatch.setattr(_service.Service, "_one_terminal", one_terminal, raising=False)
    with Sandbox() as sandbox:
        answer = _get(sandbox, f"/v1/customers/{Sandbox.DOCUMENTO}/smartpos/SP-9")
    assert (200, {"smartposId": "SP-9"}) == (answer.status_code, answer.json())
    assert [(Sandbox.DOCUMENTO, "SP-9")] == [call[1:] for call in seen]
    assert "terminals" == _service.endpoint_of(f"/v1/customers/{Sandbox.DOCUMENTO}/smartpos/X")


def test_a_method_a_route_does_not_serve_is_405_with_allow() -> None:
    """POST to the terminal listing: 405 METODO_NAO_PERMITIDO, Allow: GET."""
    with Sandbox() as sandbox:
        answer = _get(sandbox, f"/v1/customers/{Sandbox.DOCUMENTO}/smartpos", "POST")
    assert (405, "GET", "METODO_NAO_PERMITIDO") == (
        answer.status_code,
        answer.headers["allow"],
        answer.json()["erro"]["codigo"],
    )


def test_a_path_no_route_serves_is_404() -> None:
    """A path of no endpoint: 404 RECURSO_NAO_ENCONTRADO, and no fault endpoint."""
    with Sandbox() as sandbox:
        answer = _get(sandbox, "/v1/nothing-here")
    assert (404, "RECURSO_NAO_ENCONTRADO") == (answer.status_code, answer.json()["erro"]["codigo"])
    assert _service.endpoint_of("/v1/nothing-here") is None


@pytest.mark.parametrize("route", _service.ROUTES, ids=lambda r: r.template)
def test_every_route_names_a_handler_of_the_service(route: _service.Route) -> None:
    """A route whose handler is missing fails here, not on the first request."""
    assert callable(getattr(_service.Service, route.handler, None))
