"""Django: the example shop with Django's test clients, its checks, its worker command, and
real server processes (runserver under WSGI, uvicorn under ASGI) on a real SQLite inbox."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import asyncio
import logging
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from framework_helpers import DOC, EXAMPLES, SECRET, delivery, free_port, serve_process

import smartpos
from smartpos import webhooks
from smartpos.testing import Sandbox

django = pytest.importorskip("django")

SHOP = EXAMPLES / "django_shop"
URL = "/webhooks/smartpos/"
ASYNC_URL = "/webhooks/smartpos-async/"
HEADERS = {"headers": {"x-webhook-secret": SECRET}}

handled: list[str] = []


def record(event: webhooks.Event) -> None:
    """A handler for the worker command's tests."""
    handled.append(event.id)


async def record_async(event: webhooks.Event) -> None:
    """An async handler for the worker command's tests."""
    await asyncio.sleep(0)
    handled.append(f"async:{event.id}")


@pytest.fixture(scope="module", autouse=True)
def django_shop(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Configure Django with the example shop's settings, once for this process."""
    from django.conf import settings

    if not settings.configured:
        sys.path.insert(0, str(SHOP))
        os.environ["DJANGO_SETTINGS_MODULE"] = "shop.settings"
        os.environ["DJANGO_DB"] = str(tmp_path_factory.mktemp("django") / "shop.sqlite3")
        tz = os.environ.get("TZ")
        try:
            django.setup()  # reads both variables: the rest of the suite needs neither
        finally:
            os.environ.pop("DJANGO_SETTINGS_MODULE", None)
            os.environ.pop("DJANGO_DB", None)
            # Django sets the process's TZ to TIME_ZONE; servers the suite starts later
            # (PostgreSQL) would inherit it.
            if tz is None:
                os.environ.pop("TZ", None)
            else:
                os.environ["TZ"] = tz
            time.tzset()


@pytest.fixture
def smartpos_settings(tmp_inbox: Path) -> Iterator[dict[str, Any]]:
    """Override SMARTPOS with a fresh SQLite inbox and the test secret for one test."""
    from django.conf import settings
    from django.test import override_settings

    # The shop's ON_SALE needs its DjangoStore; these tests use an SQLite inbox of their own.
    shop = {key: value for key, value in settings.SMARTPOS.items() if key != "ON_SALE"}
    values = {
        **shop,
        "STORE": str(tmp_inbox),
        "WEBHOOK_SECRET": SECRET,
        "API_KEY": Sandbox.API_KEY,
        "BASE_URL": "http://sandbox.invalid",
    }
    handled.clear()
    with override_settings(SMARTPOS=values):
        yield values


def inbox_state(path: Path, event_id: str) -> webhooks.EventState | None:
    """The state of an event in an SQLite inbox file."""
    with webhooks.SQLiteStore(path) as store:
        record = store.get(event_id)
    return None if record is None else record.state


class FailingStore(webhooks.MemoryStore):
    """A store whose writes fail, as a full disk or a lost server would."""

    def put(self, event: Any, *, timeout: float | None = None) -> webhooks.PutResult:
        raise webhooks.StoreError("disk full")

    def put_many(self, events: Any, *, timeout: float | None = None) -> list[webhooks.PutResult]:
        raise webhooks.StoreError("disk full")


# --- the webhook views under Django's test clients ----------------------------------------


def test_sync_view_answers_like_the_receiver(
    smartpos_settings: dict[str, Any], tmp_inbox: Path
) -> None:
    """The sync view: 200 new and duplicate, 400, 401, 405 with Allow, 413; stored once."""
    from django.test import Client

    client = Client()
    post = {"content_type": "application/json", **HEADERS}

    first = client.post(URL, delivery("evt-dj-1"), **post)
    again = client.post(URL, delivery("evt-dj-1"), **post)
    bad = client.post(URL, b'{"id": 1}', **post)
    forged = client.post(URL, delivery("evt-dj-2"), content_type="application/json")
    wrong = client.get(URL)
    huge = client.post(URL, b"{" + b" " * 300_000 + b"}", **post)

    assert (200, {"recebido": True, "duplicado": False}) == (first.status_code, first.json())
    assert (200, True) == (again.status_code, again.json()["duplicado"])
    assert (400, "EVENTO_INVALIDO") == (bad.status_code, bad.json()["erro"]["codigo"])
    assert (401, "NAO_AUTORIZADO") == (forged.status_code, forged.json()["erro"]["codigo"])
    assert (405, "POST") == (wrong.status_code, wrong["Allow"])
    assert (413, "CORPO_MUITO_GRANDE") == (huge.status_code, huge.json()["erro"]["codigo"])
    assert "application/json" == first["Content-Type"]
    assert webhooks.EventState.PENDING == inbox_state(tmp_inbox, "evt-dj-1")
    assert None is inbox_state(tmp_inbox, "evt-dj-2")


def test_views_answer_503_when_the_store_fails(smartpos_settings: dict[str, Any]) -> None:
    """A failing store gives 503 with Retry-After on both views: the service delivers again."""
    from django.test import AsyncClient, Client, override_settings

    with override_settings(SMARTPOS={**smartpos_settings, "STORE": FailingStore()}):
        sync = Client().post(URL, delivery("evt-dj-503"), "application/json", **HEADERS)
        asynchronous = asyncio.run(
            AsyncClient().post(ASYNC_URL, delivery("evt-dj-503"), "application/json", **HEADERS)
        )

    for response in (sync, asynchronous):
        assert (503, "1") == (response.status_code, response["Retry-After"])
        assert "ARMAZENAMENTO_INDISPONIVEL" == response.json()["erro"]["codigo"]


def test_async_view_stores_concurrent_deliveries(
    smartpos_settings: dict[str, Any], tmp_inbox: Path
) -> None:
    """The async view stores concurrent deliveries (one group commit) and answers each."""
    from django.test import AsyncClient

    async def deliver() -> list[Any]:
        client = AsyncClient()
        posts = [
            client.post(ASYNC_URL, delivery(f"evt-dja-{i}"), "application/json", **HEADERS)
            for i in range(5)
        ]
        posts.append(client.post(ASYNC_URL, delivery("evt-dja-0"), "application/json"))
        posts.append(client.get(ASYNC_URL))
        return list(await asyncio.gather(*posts))

    *stored, forged, wrong = asyncio.run(deliver())

    assert [200] * 5 == [r.status_code for r in stored]
    assert (401, 405) == (forged.status_code, wrong.status_code)
    states = {inbox_state(tmp_inbox, f"evt-dja-{i}") for i in range(5)}
    assert {webhooks.EventState.PENDING} == states


# --- the worker command --------------------------------------------------------------------


def test_worker_command_processes_the_inbox_with_the_example_handler(
    smartpos_settings: dict[str, Any], tmp_inbox: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """smartpos_worker --once runs SMARTPOS["HANDLER"] (the shop's) and acks each event."""
    from django.core.management import call_command
    from django.test import Client

    Client().post(URL, delivery("evt-dj-w1", valor=123456), "application/json", **HEADERS)
    out = _Output()

    with caplog.at_level(logging.INFO, logger="shop.payments"):
        call_command("smartpos_worker", "--once", stdout=out)

    assert "smartpos_worker: 1 event(s) processed\n" == out.text
    assert any("approved: R$ 1.234,56" in r.getMessage() for r in caplog.records)
    assert webhooks.EventState.DONE == inbox_state(tmp_inbox, "evt-dj-w1")


@pytest.mark.parametrize(
    ("handler", "expected"),
    [("test_django.record", ["evt-dj-w2"]), ("test_django.record_async", ["async:evt-dj-w2"])],
)
def test_worker_command_takes_sync_and_async_handlers(
    smartpos_settings: dict[str, Any], tmp_inbox: Path, handler: str, expected: list[str]
) -> None:
    """--handler overrides HANDLER; an async def handler runs on an AsyncWorker."""
    from django.core.management import call_command
    from django.test import Client

    Client().post(URL, delivery("evt-dj-w2"), "application/json", **HEADERS)

    call_command("smartpos_worker", "--once", "--handler", handler, stdout=_Output())

    assert expected == handled
    assert webhooks.EventState.DONE == inbox_state(tmp_inbox, "evt-dj-w2")


def test_worker_command_without_a_handler(
    smartpos_settings: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No HANDLER and no --handler: a CommandError that says what to set (in Portuguese under
    SMARTPOS_LANG=pt_BR)."""
    from django.core.management import CommandError, call_command
    from django.test import override_settings

    from smartpos import _messages

    values = {k: v for k, v in smartpos_settings.items() if k != "HANDLER"}
    with override_settings(SMARTPOS=values), pytest.raises(CommandError) as info:
        call_command("smartpos_worker", "--once")

    assert "set SMARTPOS['HANDLER'] = 'yourapp.module.handle_event'" in str(info.value)
    monkeypatch.setenv("SMARTPOS_LANG", "pt_BR")
    _messages.reset()
    try:
        with override_settings(SMARTPOS=values), pytest.raises(CommandError) as info:
            call_command("smartpos_worker", "--once")
    finally:
        _messages.reset()
    assert str(info.value).startswith("nenhum handler: defina SMARTPOS['HANDLER']")


@pytest.mark.parametrize(
    ("options", "settings_change", "expected"),
    [
        (
            ["--handler", "shop.payments.nothing"],
            {},
            '--handler cannot be imported: Module "shop.payments" does not define a "nothing" '
            "attribute/class (Give the dotted path of a function: 'shop.payments.handle_event'.)",
        ),
        (
            ["--handler", "shop.settings.DEBUG"],
            {},
            "--handler 'shop.settings.DEBUG' is not callable",
        ),
        (
            [],
            {"ON_SALE": "shop.settings.ALLOWED_HOSTS"},
            "SMARTPOS['ON_SALE'] 'shop.settings.ALLOWED_HOSTS' is not callable",
        ),
    ],
    ids=["not-importable", "not-callable", "on-sale-not-callable"],
)
def test_worker_command_refuses_what_the_checks_refuse(
    smartpos_settings: dict[str, Any],
    options: list[str],
    settings_change: dict[str, Any],
    expected: str,
) -> None:
    """The worker imports HANDLER, ON_SALE and --handler as the checks (E005) do, and names the
    one it could not use: before it ran anything, not at the first event."""
    from django.core.management import CommandError, call_command
    from django.test import override_settings

    with (
        override_settings(SMARTPOS={**smartpos_settings, **settings_change}),
        pytest.raises(CommandError) as info,
    ):
        call_command("smartpos_worker", "--once", *options, stdout=_Output())

    assert expected == str(info.value)


# --- the migrate command -------------------------------------------------------------------


@pytest.fixture
def postgres_inbox(
    smartpos_settings: dict[str, Any], request: pytest.FixtureRequest
) -> Iterator[tuple[str, str]]:
    """SMARTPOS["STORE"] on a new table of a real PostgreSQL: its DSN and table name."""
    import uuid

    from django.test import override_settings

    pytest.importorskip("psycopg_pool")
    server = request.getfixturevalue("postgres_server")
    table = f"t_{uuid.uuid4().hex[:12]}"
    url = f"postgresql://postgres@127.0.0.1:{server.port}/postgres"
    values = {**smartpos_settings, "STORE": url, "STORE_OPTIONS": {"table": table}}
    with override_settings(SMARTPOS=values):
        yield server.dsn, table


def test_migrate_command_says_what_it_migrated(postgres_inbox: tuple[str, str]) -> None:
    """smartpos_migrate names the versions it applied, then says the schema is up to date."""
    from django.core.management import call_command

    from smartpos.webhooks._postgres import SCHEMA_VERSION

    _, table = postgres_inbox
    first, second = _Output(), _Output()

    call_command("smartpos_migrate", stdout=first)
    call_command("smartpos_migrate", stdout=second)

    store = f"PostgresStore(table='{table}')"
    applied = ", ".join(str(v) for v in range(1, SCHEMA_VERSION + 1))
    assert (
        f"smartpos_migrate: {store} migrated to schema version {SCHEMA_VERSION} "
        f"(applied {applied})\n"
    ) == first.text
    assert (
        f"smartpos_migrate: {store} is up to date (schema version {SCHEMA_VERSION})\n"
    ) == second.text


def test_migrate_command_failure_is_a_command_error(postgres_inbox: tuple[str, str]) -> None:
    """A migration PostgreSQL refuses is a CommandError saying nothing changed, no traceback."""
    import psycopg
    from django.core.management import CommandError, call_command

    dsn, table = postgres_inbox
    # Something the schema's trigger function cannot replace: the same name, another type.
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            f'CREATE FUNCTION "{table}_notify"() RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$'
        )

    with pytest.raises(CommandError) as info:
        call_command("smartpos_migrate", stdout=_Output())

    assert "could not be migrated, nothing was changed" in str(info.value)
    assert "return type" in str(info.value)


class _Output:
    """A stdout for call_command that keeps what was written."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


def test_webhook_scheme_settings_choose_the_verifier(
    smartpos_settings: dict[str, Any], tmp_inbox: Path
) -> None:
    """WEBHOOK_SCHEME standard-webhooks with WEBHOOK_SECRET its whsec_ key: signed deliveries
    are stored, the old x-webhook-secret header and forged signatures are 401."""
    from django.test import Client, override_settings

    from smartpos.testing import sign

    whsec = "whsec_ZGphbmdvLXNjaGVtZS1zZWNyZXQtMjQ="
    settings = {
        **smartpos_settings,
        "WEBHOOK_SCHEME": "standard-webhooks",
        "WEBHOOK_SECRET": [whsec],
        "WEBHOOK_SCHEME_OPTIONS": {"tolerance": 60},
    }
    good, forged = delivery("evt-dj-sw-1"), delivery("evt-dj-sw-2")
    with override_settings(SMARTPOS=settings):
        client = Client()
        post = {"content_type": "application/json"}
        ok = client.post(URL, good, headers=sign(good, secret=whsec), **post)
        old_style = client.post(URL, forged, headers={"x-webhook-secret": whsec}, **post)
        wrong = client.post(URL, forged, headers=sign(good, secret=whsec), **post)
        checks = smartpos_checks(deploy=True)

    assert (200, 401, 401) == (ok.status_code, old_style.status_code, wrong.status_code)
    assert webhooks.EventState.PENDING == inbox_state(tmp_inbox, "evt-dj-sw-1")
    assert None is inbox_state(tmp_inbox, "evt-dj-sw-2")
    assert {} == checks


class ShopView:
    """A sandbox webhook target that posts each delivery to the shop's view (Django's client)."""

    def __init__(self, url: str) -> None:
        from django.test import Client

        self.client = Client()
        self.url = url

    def receive(self, body: bytes, headers: Mapping[str, str]) -> Any:
        """POST the delivery as the sandbox would, its headers included; return the response."""
        sent = {k: v for k, v in headers.items() if k != "content-type"}
        return self.client.post(self.url, body, content_type="application/json", headers=sent)


def test_the_sandbox_delivers_to_the_documented_settings_unchanged(
    smartpos_settings: dict[str, Any], tmp_inbox: Path
) -> None:
    """WEBHOOK_SECRET as documented: a sandbox without the header gets 401 (issue 23's report);
    with webhook_headers it is stored; WEBHOOK_SCHEME standard-webhooks takes its signing."""
    from django.test import override_settings

    from smartpos.testing import WebhookSigning

    whsec = "whsec_ZGphbmdvLXNhbmRib3gtc2VjcmV0LTI0"
    with Sandbox(webhook_attempts=2) as sandbox:
        sandbox.set_webhook(ShopView(URL))
        refused = sandbox.trigger("pagamento.aprovado")
        sandbox.set_webhook_headers({"x-webhook-secret": SECRET})
        stored = sandbox.trigger("pagamento.aprovado")
        sandbox.set_webhook_headers(None)
        sandbox.set_webhook_signing(WebhookSigning("standard-webhooks", whsec))
        scheme = {
            **smartpos_settings,
            "WEBHOOK_SCHEME": "standard-webhooks",
            "WEBHOOK_SECRET": whsec,
        }
        with override_settings(SMARTPOS=scheme):
            signed = sandbox.trigger("impressao.concluida")
    statuses = {
        event["id"]: [d.status_code for d in sandbox.deliveries if d.event_id == event["id"]]
        for event in (refused, stored, signed)
    }
    assert {refused["id"]: [401, 401], stored["id"]: [200], signed["id"]: [200]} == statuses
    assert None is inbox_state(tmp_inbox, refused["id"])
    assert webhooks.EventState.PENDING == inbox_state(tmp_inbox, stored["id"])
    assert webhooks.EventState.PENDING == inbox_state(tmp_inbox, signed["id"])


@pytest.mark.slow
def test_smartpos_sandbox_with_the_header_delivers_to_runserver(tmp_path: Path) -> None:
    """The documented set-up, two real processes: the shop under runserver with
    SMARTPOS_WEBHOOK_SECRET, and ``smartpos sandbox --webhook-header 'x-webhook-secret: ...'``
    delivering to it; a payment through the served sandbox is stored, answered 200."""
    from smartpos.testing import RemoteSandbox

    inbox = tmp_path / "inbox.sqlite3"
    env = {
        "SMARTPOS_STORE": str(inbox),
        "SMARTPOS_WEBHOOK_SECRET": SECRET,
        "DJANGO_DB": str(tmp_path / "shop.sqlite3"),
    }
    shop_port, sandbox_port = free_port(), free_port()
    shop_args = ["manage.py", "runserver", f"127.0.0.1:{shop_port}", "--noreload", "--skip-checks"]
    sandbox_args = [
        "-m", "smartpos", "sandbox", "--port", str(sandbox_port), "--quiet",
        "--webhook", f"http://127.0.0.1:{shop_port}{URL}",
        "--webhook-header", f"x-webhook-secret: {SECRET}",
    ]  # fmt: skip
    clean = {k: "" for k in os.environ if k.startswith("SMARTPOS_SANDBOX_")}
    with (
        serve_process(shop_args, port=shop_port, cwd=SHOP, env=env, log=tmp_path / "shop.log"),
        serve_process(
            sandbox_args, port=sandbox_port, cwd=tmp_path, env=clean, log=tmp_path / "sb.log"
        ) as sandbox_url,
        RemoteSandbox(sandbox_url) as remote,
        smartpos.Client(api_key=Sandbox.API_KEY, base_url=sandbox_url) as client,
    ):
        client.payments.create(
            documento_cliente=DOC, smartpos_id=Sandbox.SMARTPOS_ID, valor_centavos=1990
        )
        [event] = remote.wait_for_events(1, timeout=20)
        deliveries = remote.deliveries
    assert [(1, True, 200)] == [(d.attempt, d.ok, d.status_code) for d in deliveries]
    assert webhooks.EventState.PENDING == inbox_state(inbox, event["id"])
    assert SECRET not in (tmp_path / "sb.log").read_text()


# --- checks ---------------------------------------------------------------------------------


def smartpos_checks(*, deploy: bool = False) -> dict[str, str]:
    """Run the system checks; the smartpos ones, id -> their messages and hints."""
    from django.core.checks import run_checks

    found: dict[str, str] = {}
    for m in run_checks(include_deployment_checks=deploy):
        if (m.id or "").startswith("smartpos."):
            found[m.id or ""] = found.get(m.id or "", "") + f"{m.msg} | {m.hint}\n"
    return found


@pytest.mark.parametrize(
    ("change", "expected_id", "expected_text"),
    [
        ({"WEBHOOK_SECRETS": "x"}, "smartpos.E002", "did you mean 'WEBHOOK_SECRET'?"),
        ({"STORE": None}, "smartpos.E003", "SMARTPOS['STORE'] is not set"),
        ({"STORE": "mongodb://x"}, "smartpos.E004", "scheme 'mongodb' is not supported"),
        ({"STORE": "/no/such/folder/inbox.db"}, "smartpos.E004", "does not exist"),
        ({"HANDLER": "shop.payments.nothing"}, "smartpos.E005", "cannot be imported"),
        ({"ON_SALE": "shop.settings.DEBUG"}, "smartpos.E005", "'shop.settings.DEBUG' is not"),
        ({"STORE": "memory://"}, "smartpos.W002", "lost at every restart"),
        ({"API_KEY": None}, "smartpos.W003", "get_client() and get_async_client() will raise"),
        ({"CLIENT_OPTIONS": ["timeout"]}, "smartpos.E001", "must be a dict"),
        ({"WEBHOOK_SCHEME": "nope"}, "smartpos.E006", "unknown signature scheme 'nope'"),
        ({"WEBHOOK_SCHEME": "hmac-manifest"}, "smartpos.E006", "needs the option template"),
        ({"WEBHOOK_SCHEME_OPTIONS": {"x": 1}}, "smartpos.E006", "without a scheme"),
        ({"WEBHOOK_SCHEME": 5}, "smartpos.E001", "SMARTPOS['WEBHOOK_SCHEME'] must be a str"),
    ],
)
def test_checks_report_misconfiguration(
    smartpos_settings: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    change: dict[str, Any],
    expected_id: str,
    expected_text: str,
) -> None:
    """manage.py check names each misconfiguration with its own id and what to do."""
    from django.test import override_settings

    monkeypatch.delenv("SMARTPOS_API_KEY", raising=False)
    with override_settings(SMARTPOS={**smartpos_settings, **change}):
        found = smartpos_checks()

    assert [expected_id] == list(found)
    assert expected_text in found[expected_id]


def test_checks_pass_on_a_good_configuration(smartpos_settings: dict[str, Any]) -> None:
    """The example's settings with a store, a secret and a key raise no smartpos message."""
    assert {} == smartpos_checks(deploy=True)


def test_deploy_check_reads_the_redis_settings(
    smartpos_settings: dict[str, Any], redis_server: Any, redis_server_unsafe: Any
) -> None:
    """check --deploy asks Redis: appendonly off and eviction on are warnings; a safe one passes."""
    from django.test import override_settings

    with override_settings(SMARTPOS={**smartpos_settings, "STORE": redis_server_unsafe.url}):
        unsafe = smartpos_checks(deploy=True)
        without_deploy = smartpos_checks()
    with override_settings(SMARTPOS={**smartpos_settings, "STORE": redis_server.url}):
        safe = smartpos_checks(deploy=True)
    gone = f"redis://127.0.0.1:{free_port()}/0"
    with override_settings(SMARTPOS={**smartpos_settings, "STORE": gone}):
        unreachable = smartpos_checks(deploy=True)

    assert ["smartpos.W010"] == list(unsafe)
    assert "setting appendonly breaks" in unsafe["smartpos.W010"]
    assert "setting maxmemory-policy breaks" in unsafe["smartpos.W010"]
    assert {} == without_deploy
    assert {} == safe
    assert "ConnectionError" in unreachable["smartpos.W011"]


def _check_output(*args: str) -> str:
    """What ``manage.py check`` prints (its report goes to stderr, its verdict to stdout)."""
    from django.core.management import call_command

    out, err = _Output(), _Output()
    call_command("check", *args, stdout=out, stderr=err)
    return out.text + err.text


def test_no_secret_is_warned_where_deliveries_are_received_only(
    smartpos_settings: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    """W001 is not printed by every manage.py command (shell, migrate run the plain checks):
    it is a deployment check, smartpos_worker says it, and the views log it when serving."""
    from django.core.management import call_command
    from django.test import Client, override_settings

    from smartpos.integrations.django import _state

    values = {**smartpos_settings, "WEBHOOK_SECRET": None}
    with override_settings(SMARTPOS=values):
        plain = _check_output()
        deploy = _check_output("--deploy")
        err = _Output()
        call_command("smartpos_worker", "--once", stdout=_Output(), stderr=err)
        with caplog.at_level(logging.WARNING, logger="smartpos"):
            Client().post(URL, delivery("evt-dj-w001"), "application/json")
        _state.close_all()

    assert "smartpos.W001" not in plain
    assert "smartpos.W001" in deploy
    assert "accepts events from anyone" in deploy
    assert "(smartpos.W001) SMARTPOS has no WEBHOOK_SECRET" in err.text
    assert [r for r in caplog.records if "smartpos.W001" in r.getMessage()]
    assert "smartpos.W001" not in _check_output("--deploy")  # the secret is back


def test_checks_speak_portuguese_under_smartpos_lang(
    smartpos_settings: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under SMARTPOS_LANG=pt_BR every smartpos check message and hint is Portuguese."""
    from django.test import override_settings

    from smartpos import _messages

    monkeypatch.setenv("SMARTPOS_LANG", "pt_BR")
    monkeypatch.delenv("SMARTPOS_API_KEY", raising=False)
    _messages.reset()
    found: dict[str, str] = {}
    try:
        for change in (
            {"WEBHOOK_SECRETS": "x"},
            {"STORE": None, "WEBHOOK_SECRET": None, "API_KEY": None},
            {"STORE": "/no/such/folder/inbox.db", "HANDLER": "shop.payments.nothing"},
            {"STORE": "memory://", "HANDLER": "shop.settings.DEBUG"},
            {"CLIENT_OPTIONS": ["timeout"]},
        ):
            with override_settings(SMARTPOS={**smartpos_settings, **change}):
                found.update(smartpos_checks(deploy=True))
    finally:
        _messages.reset()

    assert {
        "smartpos.E001", "smartpos.E002", "smartpos.E003", "smartpos.E004", "smartpos.E005",
        "smartpos.W001", "smartpos.W002", "smartpos.W003",
    } == set(found)  # fmt: skip
    assert "você quis dizer 'WEBHOOK_SECRET'?" in found["smartpos.E002"]
    assert "aceita eventos de qualquer um" in found["smartpos.W001"]
    english = {"the", "must", "is", "not", "and", "with", "cannot", "has", "or", "of", "set"}
    for text in found.values():
        words = set(re.findall(r"[a-zà-ú]+", text.replace("| None", "").lower()))
        assert set() == words & english, text


# --- clients built once per process --------------------------------------------------------


def test_clients_are_built_once_per_process_and_per_loop(
    smartpos_settings: dict[str, Any],
) -> None:
    """get_client() is one object; get_async_client() one per event loop; both forgotten when
    SMARTPOS changes."""
    from django.test import override_settings

    import smartpos
    from smartpos.integrations.django import get_async_client, get_client

    async def two() -> tuple[smartpos.AsyncClient, smartpos.AsyncClient]:
        return get_async_client(), get_async_client()

    first = get_client()
    a1, a2 = asyncio.run(two())
    b1, _ = asyncio.run(two())
    assert first is get_client()
    assert isinstance(first, smartpos.Client)
    assert isinstance(a1, smartpos.AsyncClient)
    assert a1 is a2
    assert a1 is not b1
    with override_settings(SMARTPOS={**smartpos_settings, "CLIENT_OPTIONS": {"max_retries": 0}}):
        assert first is not get_client()
    with pytest.raises(RuntimeError, match=r"in sync code use get_client\(\)"):
        get_async_client()


def test_example_views_pair_and_charge_against_the_sandbox(
    smartpos_settings: dict[str, Any],
) -> None:
    """The shop's views: a QR code as an <img> data: URI, an order, a charge typed as "19,90"
    on it, and a second charge refused while the first is in flight."""
    from django.core.management import call_command
    from django.test import AsyncClient, Client, override_settings

    call_command("migrate", "shop", verbosity=0)  # the shop's orders
    sandbox = Sandbox()
    with (
        sandbox.serve() as base_url,
        override_settings(SMARTPOS={**smartpos_settings, "BASE_URL": base_url}),
    ):
        page = Client().get(f"/pair/{DOC}/")
        opened = Client().post("/orders/", {"numero": "mesa-1", "total": "59,90"})
        charge = {"numero": "mesa-1", "documento": DOC, "terminal": Sandbox.SMARTPOS_ID}
        charged = asyncio.run(AsyncClient().post("/charge/", {**charge, "valor": "19,90"}))
        refused = asyncio.run(AsyncClient().post("/charge/", {**charge, "valor": "19.999"}))
        busy = asyncio.run(AsyncClient().post("/charge/", {**charge, "valor": "10,00"}))

    assert 200 == page.status_code
    html = page.content.decode()  # HttpResponse.text is Django 5's; 4.2 is supported too
    assert '<img alt="QR code to pair the terminal" src="data:image/svg+xml;' in html
    assert (201, "R$ 59,90") == (opened.status_code, opened.json()["total"])
    assert (202, "R$ 19,90") == (charged.status_code, charged.json()["valor"])
    assert [1990] == [p.valor_centavos for p in sandbox.payments]
    assert 400 == refused.status_code
    assert "ambiguous" in refused.json()["erro"]
    # One attempt of an order open at a time: the first is still waiting for its event.
    assert 409 == busy.status_code


# --- real servers ---------------------------------------------------------------------------


@pytest.mark.slow
def test_runserver_process_stores_deliveries_for_the_worker(tmp_path: Path) -> None:
    """python manage.py runserver on 127.0.0.1: deliveries answered and stored in the SQLite
    inbox; smartpos_worker --once in its own process then processes them."""
    inbox = tmp_path / "inbox.sqlite3"
    env = {
        "SMARTPOS_STORE": str(inbox),
        "SMARTPOS_WEBHOOK_SECRET": SECRET,
        "DJANGO_DB": str(tmp_path / "shop.sqlite3"),
    }
    port = free_port()
    args = ["manage.py", "runserver", f"127.0.0.1:{port}", "--noreload", "--skip-checks"]
    log = tmp_path / "server.log"
    with (
        serve_process(args, port=port, cwd=SHOP, env=env, log=log) as base,
        httpx.Client(base_url=base, timeout=10) as http,
    ):
        headers = {"x-webhook-secret": SECRET, "content-type": "application/json"}
        first = http.post(URL, content=delivery("evt-dj-real"), headers=headers)
        again = http.post(URL, content=delivery("evt-dj-real"), headers=headers)
        forged = http.post(URL, content=delivery("evt-dj-x"), headers={"x-webhook-secret": "no"})

    worker = subprocess.run(
        [sys.executable, "manage.py", "smartpos_worker", "--once"],
        cwd=SHOP,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert (200, False) == (first.status_code, first.json()["duplicado"])
    assert (200, True) == (again.status_code, again.json()["duplicado"])
    assert 401 == forged.status_code
    assert (0, "smartpos_worker: 1 event(s) processed\n") == (worker.returncode, worker.stdout)
    assert "sale 3f2b8c1e-9a4d-4f6b-8e2a-1c5d7e9f0a1b approved: R$ 159,90" in worker.stderr
    assert webhooks.EventState.DONE == inbox_state(inbox, "evt-dj-real")


@pytest.mark.slow
def test_uvicorn_process_serves_the_async_view(tmp_path: Path) -> None:
    """The shop's ASGI application under a real uvicorn: the async view stores deliveries."""
    pytest.importorskip("uvicorn")
    inbox = tmp_path / "inbox.sqlite3"
    env = {
        "SMARTPOS_STORE": str(inbox),
        "SMARTPOS_WEBHOOK_SECRET": SECRET,
        "DJANGO_DB": str(tmp_path / "shop.sqlite3"),
    }
    port = free_port()
    args = ["-m", "uvicorn", "shop.asgi:application", "--host", "127.0.0.1", "--port", str(port)]
    log = tmp_path / "server.log"
    with (
        serve_process(args, port=port, cwd=SHOP, env=env, log=log) as base,
        httpx.Client(base_url=base, timeout=10) as http,
    ):
        headers = {"x-webhook-secret": SECRET, "content-type": "application/json"}
        answers = [
            http.post(ASYNC_URL, content=delivery(f"evt-dj-asgi-{i}"), headers=headers)
            for i in range(3)
        ]
        bad = http.post(ASYNC_URL, content=b"[]", headers=headers)

    assert [200, 200, 200] == [a.status_code for a in answers]
    assert 400 == bad.status_code
    assert webhooks.EventState.PENDING == inbox_state(inbox, "evt-dj-asgi-2")


def test_reconcile_command_settles_a_lost_answer_without_a_second_charge(
    smartpos_settings: dict[str, Any], tmp_inbox: Path
) -> None:
    """A payment whose answers were all lost is journaled unknown; smartpos_reconcile resends
    its exact bytes (same referencia): it ends accepted, and the sandbox charged it once."""
    from django.core.management import call_command
    from django.test import override_settings

    import smartpos
    from smartpos.integrations.django import get_client

    sandbox = Sandbox()  # its events are not delivered here: the operation stays open
    with (
        sandbox.serve() as base_url,
        override_settings(SMARTPOS={**smartpos_settings, "BASE_URL": base_url}),
    ):
        client = get_client()
        sandbox.fail_next("payments", "drop", times=3)
        with pytest.raises(smartpos.OutcomeUnknownError) as info:
            client.payments.create(
                documento_cliente=DOC, valor_centavos=1990, smartpos_id=Sandbox.SMARTPOS_ID
            )
        referencia = info.value.referencia
        out = _Output()

        call_command("smartpos_reconcile", stdout=out)

        with webhooks.SQLiteStore(tmp_inbox) as store:
            operation = store.operation(referencia)
    assert f"payment {referencia}: accepted" in out.text
    assert "smartpos_reconcile: 1 open operation(s), 0 still unknown" in out.text
    assert operation is not None
    assert "accepted" == operation.state
    assert [referencia] == [p.referencia for p in sandbox.payments]
