"""The status URLs in Django: sync views (Django's test client), async views (its async test
client, an SSE stream read as it comes), authorization, the missing authorizer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_django import django_shop, smartpos_settings  # noqa: F401 - fixtures

import smartpos
from smartpos import webhooks
from smartpos.testing import Approve, Hold, Sandbox

pytest.importorskip("django")


def may_see(request: Any, key: str) -> bool:
    return request.headers.get("X-Caixa") == "ok"


async def may_see_async(request: Any, key: str) -> bool:
    await asyncio.sleep(0)
    return may_see(request, key)


def _urls() -> list[Any]:
    from django.urls import include, path

    from smartpos.integrations.django.status_urls import status_urls

    return [
        path("caixa/", include(status_urls(authorize=may_see))),
        path("caixa-async/", include(status_urls(authorize=may_see_async, asgi=True))),
    ]


urlpatterns: list[Any] = []


@pytest.fixture
def held(
    smartpos_settings: dict[str, Any],  # noqa: F811 - the imported fixture
    tmp_inbox: Path,
) -> Iterator[tuple[Sandbox, str]]:
    """A sale with an attempt in flight, journaled in the SMARTPOS store; the URLs routed."""
    from django.test import override_settings

    urlpatterns[:] = _urls()
    store = webhooks.SQLiteStore(tmp_inbox)
    sandbox = Sandbox()
    sandbox.set_webhook(webhooks.WebhookReceiver(store))
    client = smartpos.Client(
        api_key=Sandbox.API_KEY,
        base_url="http://sandbox.invalid",
        transport=sandbox.transport(),
        store=store,
    )
    sandbox.script_payments(Hold(Approve()))
    accepted = client.payments.create(
        documento_cliente=Sandbox.DOCUMENTO,
        smartpos_id=Sandbox.SMARTPOS_ID,
        valor_centavos=4590,
        sale="mesa-9",
    )
    try:
        with override_settings(ROOT_URLCONF=__name__):
            yield sandbox, accepted.referencia
    finally:
        client.close()
        sandbox.close()
        store.close()


def test_sync_views(held: tuple[Sandbox, str]) -> None:
    from django.test import Client

    http = Client()
    ok = http.get("/caixa/sales/mesa-9", headers={"X-Caixa": "ok"})
    assert ok.status_code == 200
    assert ok.json()["status"] == "waiting"
    assert http.get("/caixa/sales/mesa-9").status_code == 403
    op = http.get(f"/caixa/operations/{held[1]}", headers={"X-Caixa": "ok"})
    assert op.json()["sale_id"] == "mesa-9"
    assert b"EventSource" in http.get("/caixa/smartpos-checkout.js").content


def test_async_stream_gets_the_approval(held: tuple[Sandbox, str]) -> None:
    from django.test import AsyncClient

    sandbox, referencia = held

    async def run() -> list[dict[str, Any]]:
        http = AsyncClient()
        denied = await http.get("/caixa-async/sales/mesa-9")
        assert denied.status_code == 403
        response = await http.get(
            "/caixa-async/sales/mesa-9",
            headers={"X-Caixa": "ok", "Accept": "text/event-stream"},
        )
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/event-stream")
        states: list[dict[str, Any]] = []
        chunks = response.streaming_content.__aiter__()
        while not states or states[-1]["status"] != "approved":
            chunk = await asyncio.wait_for(chunks.__anext__(), 10)
            for block in bytes(chunk).decode().split("\n\n"):
                for line in block.split("\n"):
                    if line.startswith("data: "):
                        states.append(json.loads(line[6:]))
            if len(states) == 1:
                await asyncio.to_thread(sandbox.release, referencia)
        await chunks.aclose()
        return states

    states = asyncio.run(run())
    assert [s["status"] for s in states] == ["waiting", "approved"]


def test_no_authorizer_no_urls() -> None:
    from smartpos.integrations.django.status_urls import status_urls

    with pytest.raises(smartpos.ConfigurationError, match="authorize"):
        status_urls(authorize=None)
