"""Flask: the example app under Flask's test client and CLI runner, and a real server process."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import importlib.util
import io
import logging
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from framework_helpers import DOC, EXAMPLES, SECRET, delivery, free_port, serve_process

from smartpos import ConfigurationError, webhooks
from smartpos.testing import Sandbox

pytest.importorskip("flask")

from flask import Flask

from smartpos.integrations.flask import SmartPOS

URL = "/webhooks/smartpos"
AUTH = {"x-webhook-secret": SECRET, "content-type": "application/json"}


def load_example() -> ModuleType:
    """Import examples/flask_app.py."""
    spec = importlib.util.spec_from_file_location("example_flask_app", EXAMPLES / "flask_app.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def state(path: Path, event_id: str) -> webhooks.EventState | None:
    """The state of an event in an SQLite inbox."""
    with webhooks.SQLiteStore(path) as store:
        record = store.get(event_id)
    return None if record is None else record.state


def test_blueprint_answers_and_cli_worker_processes(
    tmp_inbox: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The blueprint answers like the receiver; `flask smartpos worker --once` processes."""
    example = load_example()
    app = example.create_app({"SMARTPOS_STORE": str(tmp_inbox), "SMARTPOS_WEBHOOK_SECRET": SECRET})
    client = app.test_client()

    first = client.post(URL, data=delivery("evt-fl-1", valor=990), headers=AUTH)
    again = client.post(URL, data=delivery("evt-fl-1", valor=990), headers=AUTH)
    bad = client.post(URL, data=b"nope", headers=AUTH)
    forged = client.post(URL, data=delivery("evt-fl-2"), headers={"x-webhook-secret": "x"})
    huge = client.post(URL, data=b"{" + b" " * 300_000 + b"}", headers=AUTH)
    wrong = client.get(URL)
    with caplog.at_level(logging.INFO, logger="flask_app"):
        result = app.test_cli_runner().invoke(args=["smartpos", "worker", "--once"])
    example.smartpos_ext.close(app)

    assert (200, {"recebido": True, "duplicado": False}) == (first.status_code, first.json)
    assert (200, True) == (again.status_code, again.json["duplicado"])  # type: ignore[index]
    assert 400 == bad.status_code
    assert 401 == forged.status_code
    assert (413, "CORPO_MUITO_GRANDE") == (huge.status_code, huge.json["erro"]["codigo"])  # type: ignore[index]
    assert 405 == wrong.status_code
    assert (0, "smartpos worker: 1 event(s) processed\n") == (result.exit_code, result.output)
    assert any("approved: R$ 9,90" in r.getMessage() for r in caplog.records)
    assert webhooks.EventState.DONE == state(tmp_inbox, "evt-fl-1")
    assert None is state(tmp_inbox, "evt-fl-2")


def test_incomplete_body_is_400() -> None:
    """A body shorter than its Content-Length is refused, not stored."""
    app = Flask(__name__)
    app.config["SMARTPOS_STORE"] = "memory://"
    SmartPOS(app)
    environ = {"CONTENT_LENGTH": "500", "wsgi.input": io.BytesIO(delivery("evt-fl-cut"))}

    answer = app.test_client().post(URL, environ_overrides=environ)

    assert (400, "CORPO_INCOMPLETO") == (answer.status_code, answer.json["erro"]["codigo"])  # type: ignore[index]


def test_app_factory_extension_and_shared_client(tmp_inbox: Path) -> None:
    """One SmartPOS() serves several apps, each with its own store and one shared client."""
    example = load_example()
    sandbox = Sandbox()
    config = {
        "SMARTPOS_STORE": str(tmp_inbox),
        "SMARTPOS_API_KEY": Sandbox.API_KEY,
        "SMARTPOS_BASE_URL": "http://sandbox.invalid",
        "SMARTPOS_CLIENT_OPTIONS": {"transport": sandbox.transport()},
    }
    first, second = (
        example.create_app(config),
        example.create_app({**config, "SMARTPOS_STORE": "memory://"}),
    )
    with first.app_context():
        client_1, client_1_again = example.smartpos_ext.client, example.smartpos_ext.client
        store_1 = example.smartpos_ext.store
    with second.app_context():
        store_2 = example.smartpos_ext.store
    charged = first.test_client().post(
        "/charge", data={"valor": "R$ 1.234,50", "documento": DOC, "terminal": Sandbox.SMARTPOS_ID}
    )
    page = first.test_client().get(f"/pair/{DOC}")
    example.smartpos_ext.close(first)
    example.smartpos_ext.close(second)

    assert client_1 is client_1_again
    assert isinstance(store_1, webhooks.SQLiteStore)
    assert isinstance(store_2, webhooks.MemoryStore)
    assert (202, "R$ 1.234,50") == (charged.status_code, charged.json["valor"])  # type: ignore[index]
    assert [123450] == [p.valor_centavos for p in sandbox.payments]
    assert 'src="data:image/svg+xml;' in page.text


def test_webhook_scheme_config_chooses_the_verifier(tmp_inbox: Path) -> None:
    """SMARTPOS_WEBHOOK_SCHEME=stripe: Stripe-style deliveries stored, others 401."""
    from smartpos.testing import sign

    app = Flask(__name__)
    app.config.update(
        SMARTPOS_STORE=str(tmp_inbox),
        SMARTPOS_WEBHOOK_SCHEME="stripe",
        SMARTPOS_WEBHOOK_SECRET="whsec_flask",
        SMARTPOS_WEBHOOK_SCHEME_OPTIONS={"header": "x-smartpos-signature"},
    )
    ext = SmartPOS(app)
    client = app.test_client()
    good, forged = delivery("evt-fl-st-1"), delivery("evt-fl-st-2")
    headers = sign(good, secret="whsec_flask", scheme="stripe", header="x-smartpos-signature")

    ok = client.post(URL, data=good, headers=headers)
    refused = client.post(URL, data=forged, headers=headers)
    secret_header = client.post(URL, data=forged, headers={"x-webhook-secret": "whsec_flask"})
    ext.close(app)

    assert (200, 401, 401) == (ok.status_code, refused.status_code, secret_header.status_code)
    assert webhooks.EventState.PENDING == state(tmp_inbox, "evt-fl-st-1")
    assert None is state(tmp_inbox, "evt-fl-st-2")


def test_misconfiguration_is_refused_with_what_to_do() -> None:
    """A SMARTPOS_* typo fails init_app; a missing store fails the delivery's view clearly."""
    typo = Flask(__name__)
    typo.config["SMARTPOS_WEBHOOK_SECRETS"] = "x"
    with pytest.raises(ConfigurationError, match="SMARTPOS_WEBHOOK_SECRETS"):
        SmartPOS(typo)

    app = Flask(__name__)
    ext = SmartPOS(app)
    with app.app_context(), pytest.raises(ConfigurationError, match="SMARTPOS_STORE"):
        _ = ext.store
    result = app.test_cli_runner().invoke(args=["smartpos", "worker", "--once"])
    assert 0 != result.exit_code


@pytest.mark.slow
def test_flask_run_process_and_worker_process(tmp_path: Path) -> None:
    """`flask run` on 127.0.0.1 stores deliveries; `flask smartpos worker --once` in another
    process processes them from the same SQLite inbox."""
    inbox = tmp_path / "inbox.sqlite3"
    env = {"SMARTPOS_STORE": str(inbox), "SMARTPOS_WEBHOOK_SECRET": SECRET}
    port = free_port()
    args = ["-m", "flask", "--app", "flask_app", "run", "--host", "127.0.0.1", "--port", str(port)]
    log = tmp_path / "server.log"
    with (
        serve_process(args, port=port, cwd=EXAMPLES, env=env, log=log) as base,
        httpx.Client(base_url=base, timeout=10) as http,
    ):
        first = http.post(URL, content=delivery("evt-fl-real"), headers=AUTH)
        forged = http.post(URL, content=delivery("evt-fl-x"), headers={"x-webhook-secret": "no"})
    worker: Any = subprocess.run(
        [sys.executable, "-m", "flask", "--app", "flask_app", "smartpos", "worker", "--once"],
        cwd=EXAMPLES,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert (200, 401) == (first.status_code, forged.status_code)
    assert (0, "smartpos worker: 1 event(s) processed\n") == (worker.returncode, worker.stdout)
    assert webhooks.EventState.DONE == state(inbox, "evt-fl-real")
