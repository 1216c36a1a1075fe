"""FastAPI: the example app under FastAPI's TestClient and a real uvicorn process."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import importlib.util
import logging
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from framework_helpers import DOC, EXAMPLES, SECRET, delivery, free_port, serve_process, wait_for

from smartpos import ConfigurationError, webhooks
from smartpos.testing import Sandbox

pytest.importorskip("fastapi")

from fastapi import FastAPI

from smartpos.integrations.fastapi import SmartPOS, SmartPOSClient

URL = "/webhooks/smartpos"
AUTH = {"x-webhook-secret": SECRET, "content-type": "application/json"}


def load_example() -> ModuleType:
    """Import examples/fastapi_app.py."""
    spec = importlib.util.spec_from_file_location(
        "example_fastapi_app", EXAMPLES / "fastapi_app.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def test_client_class() -> Any:
    """FastAPI's TestClient (Starlette warns that it prefers httpx2 to httpx: not our concern)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    return TestClient


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    """A sandbox for the shared client's calls."""
    with Sandbox() as box:
        yield box


def test_openapi_documents_the_webhook(test_client_class: Any, tmp_inbox: Path) -> None:
    """The router's POST is in the app's OpenAPI: envelope schema and every receiver answer."""
    app = load_example().create_app(str(tmp_inbox), secret=SECRET)

    schema = test_client_class(app).get("/openapi.json").json()

    operation = schema["paths"][URL]["post"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert ["id", "tipo"] == body["required"]
    assert "pagamento.aprovado" == body["example"]["tipo"]
    assert {"200", "400", "401", "405", "413", "503"} == set(operation["responses"])
    ok = operation["responses"]["200"]["content"]["application/json"]["schema"]
    error = operation["responses"]["503"]["content"]["application/json"]["schema"]
    assert ("#/components/schemas/WebhookAnswer", "#/components/schemas/WebhookError") == (
        ok["$ref"],
        error["$ref"],
    )
    assert {"WebhookAnswer", "WebhookError", "WebhookErrorBody"} <= set(
        schema["components"]["schemas"]
    )
    assert ["smartpos"] == operation["tags"]
    assert "ARMAZENAMENTO_INDISPONIVEL" in operation["responses"]["503"]["description"]


def _examples_of(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Bodies the schema allows: its example; only its required properties; its example
    without each optional property; each string property at its minLength and maxLength."""
    example = schema["example"]
    required = schema["required"]
    examples = [example, {key: example[key] for key in required}]
    examples += [
        {k: v for k, v in example.items() if k != key}
        for key in schema["properties"]
        if key not in required
    ]
    for key, spec in schema["properties"].items():
        for length in (spec.get("minLength"), spec.get("maxLength")):
            if spec["type"] == "string" and length is not None:
                examples.append({**example, key: "x" * length})
    return examples


def test_every_body_the_openapi_schema_allows_is_accepted(
    test_client_class: Any, tmp_inbox: Path
) -> None:
    """The schema says what the receiver really admits: each body derived from it is stored
    (200), and ``id: ""`` (below minLength) or no ``id`` (required) is refused with 400."""
    app = load_example().create_app(str(tmp_inbox), secret=SECRET)
    client = test_client_class(app)
    schema = client.get("/openapi.json").json()
    body_schema = schema["paths"][URL]["post"]["requestBody"]["content"]["application/json"]
    envelope = body_schema["schema"]
    assert 1 == envelope["properties"]["id"]["minLength"]
    assert "dados" not in envelope["required"]

    examples = _examples_of(envelope)
    answers = []
    for number, example in enumerate(examples):
        # Each its own new event (not a duplicate of the example's id), stored by the receiver.
        body = dict(example)
        if body["id"] == envelope["example"]["id"]:
            body["id"] = f"evt-schema-{number}"
        answers.append(client.post(URL, json=body, headers=AUTH).status_code)
    refused_empty = client.post(URL, json={**envelope["example"], "id": ""}, headers=AUTH)
    without_id = {k: v for k, v in envelope["example"].items() if k != "id"}
    refused_missing = client.post(URL, json=without_id, headers=AUTH)

    assert len(examples) >= 6
    assert [200] * len(examples) == answers
    assert (400, "EVENTO_INVALIDO") == (
        refused_empty.status_code,
        refused_empty.json()["erro"]["codigo"],
    )
    assert 400 == refused_missing.status_code


def test_router_answers_and_lifespan_worker_processes(
    test_client_class: Any, tmp_inbox: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Deliveries get the receiver's answers; the worker the lifespan started processes them."""
    app = load_example().create_app(str(tmp_inbox), secret=SECRET)
    store = webhooks.SQLiteStore(tmp_inbox)

    with caplog.at_level(logging.INFO, logger="fastapi_app"), test_client_class(app) as client:
        first = client.post(URL, content=delivery("evt-fa-1", valor=1990), headers=AUTH)
        again = client.post(URL, content=delivery("evt-fa-1", valor=1990), headers=AUTH)
        bad = client.post(URL, content=b"[1]", headers=AUTH)
        forged = client.post(URL, content=delivery("evt-fa-2"), headers={"x-webhook-secret": "x"})
        huge = client.post(URL, content=b"{" + b" " * 300_000 + b"}", headers=AUTH)
        wrong = client.get(URL)
        wait_for(lambda: _state(store, "evt-fa-1") is webhooks.EventState.DONE)

    assert (200, {"recebido": True, "duplicado": False}) == (first.status_code, first.json())
    assert (200, True) == (again.status_code, again.json()["duplicado"])
    assert (400, "EVENTO_INVALIDO") == (bad.status_code, bad.json()["erro"]["codigo"])
    assert 401 == forged.status_code
    assert (413, "CORPO_MUITO_GRANDE") == (huge.status_code, huge.json()["erro"]["codigo"])
    assert 405 == wrong.status_code
    assert None is _state(store, "evt-fa-2")
    assert any("approved: R$ 19,90" in r.getMessage() for r in caplog.records)
    store.close()


def _state(store: webhooks.Store, event_id: str) -> webhooks.EventState | None:
    record = store.get(event_id)
    return None if record is None else record.state


def test_streamed_body_over_the_limit_is_413(test_client_class: Any) -> None:
    """A chunked body without Content-Length is cut off as soon as it passes the limit."""
    smartpos_app = SmartPOS(store="memory://", receiver_options={"max_body_bytes": 64})
    app = FastAPI(lifespan=smartpos_app.lifespan)
    app.include_router(smartpos_app.router)

    def chunks() -> Iterator[bytes]:
        yield b'{"id": "x", '
        yield b" " * 100

    with test_client_class(app) as client:
        answer = client.post("/smartpos", content=chunks())

    assert 413 == answer.status_code


def test_webhook_scheme_chooses_the_verifier(test_client_class: Any) -> None:
    """webhook_scheme="hmac-manifest": manifest-signed deliveries stored, others 401; a bad
    scheme fails when SmartPOS is built."""
    from smartpos.testing import sign

    template = "id:{json:id};request-id:{header:x-request-id};ts:{timestamp};{body}"
    store = webhooks.MemoryStore()
    smartpos_app = SmartPOS(
        store=store,
        webhook_secret=["old-secret", "new-secret"],
        webhook_scheme="hmac-manifest",
        webhook_scheme_options={"template": template},
    )
    app = FastAPI(lifespan=smartpos_app.lifespan)
    app.include_router(smartpos_app.router)
    good, forged = delivery("evt-fa-mf-1"), delivery("evt-fa-mf-2")
    headers = sign(
        good,
        secret="old-secret",
        scheme="hmac-manifest",
        template=template,
        headers={"x-request-id": "req-7"},
    )

    with test_client_class(app) as client:
        ok = client.post("/smartpos", content=good, headers=headers)
        refused = client.post("/smartpos", content=forged, headers=headers)

    assert (200, 401) == (ok.status_code, refused.status_code)
    assert None is not store.get("evt-fa-mf-1")
    assert None is store.get("evt-fa-mf-2")
    with pytest.raises(ConfigurationError, match="needs the option template"):
        SmartPOS(store=store, webhook_secret="s", webhook_scheme="hmac-manifest")


def test_store_failure_is_503_with_retry_after(test_client_class: Any) -> None:
    """A store that fails gives 503 and Retry-After: the service delivers again."""

    class Failing(webhooks.MemoryStore):
        def put_many(self, events: Any, *, timeout: float | None = None) -> list[Any]:
            raise webhooks.StoreError("down")

    smartpos_app = SmartPOS(store=Failing())
    app = FastAPI(lifespan=smartpos_app.lifespan)
    app.include_router(smartpos_app.router)

    with test_client_class(app) as client:
        answer = client.post("/smartpos", content=delivery("evt-fa-503"))

    assert (503, "1") == (answer.status_code, answer.headers["retry-after"])


def test_client_dependency_is_the_shared_async_client(
    test_client_class: Any, tmp_inbox: Path, sandbox: Sandbox
) -> None:
    """SmartPOSClient gives the same AsyncClient to every request; "19,90" becomes 1990."""
    app = load_example().create_app(
        str(tmp_inbox),
        secret=SECRET,
        client_options={"api_key": Sandbox.API_KEY, "base_url": "http://sandbox.invalid",
                        "transport": sandbox.transport()},
    )  # fmt: skip
    seen: list[int] = []

    @app.get("/which")
    async def which(client: SmartPOSClient) -> int:
        seen.append(id(client))
        return len(seen)

    charge = {"documento": DOC, "terminal": Sandbox.SMARTPOS_ID, "valor": "19,90"}
    with test_client_class(app) as client:
        client.get("/which")
        client.get("/which")
        accepted = client.post("/charge", json=charge)
        refused = client.post("/charge", json={**charge, "valor": "19.9"[:-1] + "1.5"})

    assert 1 == len(set(seen))
    assert (202, "R$ 19,90") == (accepted.status_code, accepted.json()["valor"])
    assert [1990] == [p.valor_centavos for p in sandbox.payments]
    assert 400 == refused.status_code


def test_dependency_without_the_lifespan_says_what_to_do(test_client_class: Any) -> None:
    """An app that never ran SmartPOS's lifespan gets a RuntimeError that names it."""
    app = FastAPI()

    @app.get("/x")
    async def x(client: SmartPOSClient) -> str:
        return "unreachable"

    with pytest.raises(RuntimeError, match=r"FastAPI\(lifespan=smartpos_app.lifespan\)"):
        test_client_class(app).get("/x")


def test_sync_handler_runs_in_a_worker_thread(test_client_class: Any) -> None:
    """A plain-function handler runs in a Worker thread, the event loop stays free."""
    handled: list[str] = []
    smartpos_app = SmartPOS(
        store="memory://", handler=lambda event: handled.append(event.id),
        worker_options={"poll_interval": 0.05},
    )  # fmt: skip
    app = FastAPI(lifespan=smartpos_app.lifespan)
    app.include_router(smartpos_app.router)

    with test_client_class(app) as client:
        client.post("/smartpos", content=delivery("evt-fa-sync"))
        wait_for(lambda: handled == ["evt-fa-sync"])

    assert ["evt-fa-sync"] == handled


@pytest.mark.slow
def test_uvicorn_process_serves_the_example(tmp_path: Path) -> None:
    """The example under a real uvicorn process on 127.0.0.1: stored, then processed."""
    inbox = tmp_path / "inbox.sqlite3"
    env = {"SMARTPOS_STORE": str(inbox), "SMARTPOS_WEBHOOK_SECRET": SECRET}
    port = free_port()
    args = ["-m", "uvicorn", "fastapi_app:create_app", "--factory", "--port", str(port),
            "--host", "127.0.0.1"]  # fmt: skip
    log = tmp_path / "server.log"
    with (
        serve_process(args, port=port, cwd=EXAMPLES, env=env, log=log) as base,
        httpx.Client(base_url=base, timeout=10) as http,
        webhooks.SQLiteStore(inbox) as store,
    ):
        first = http.post(URL, content=delivery("evt-fa-real"), headers=AUTH)
        forged = http.post(URL, content=delivery("evt-fa-x"), headers={"x-webhook-secret": "no"})
        docs = http.get("/openapi.json")
        wait_for(lambda: _state(store, "evt-fa-real") is webhooks.EventState.DONE)

    assert (200, 401) == (first.status_code, forged.status_code)
    assert "post" in docs.json()["paths"][URL]
