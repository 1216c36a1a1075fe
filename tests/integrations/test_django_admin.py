"""The admin pages of DjangoStore's tables, through Django's test client as a browser would:
permissions (403 without them), documents masked, read-only rows, and each action (abandon
with a reason, compensate, reconcile, requeue) against the sandbox and a real SQLite store."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("django")

from django_stores import (
    add_database,
    drop_database,
    setup_django,
    sqlite_database,
    sqlite_template,
)
from outcome_events import payment_request

import smartpos
from smartpos.testing import Sandbox
from smartpos.webhooks import WebhookReceiver
from smartpos.webhooks._store import EventState

DOC = Sandbox.DOCUMENTO
MASKED = smartpos._documents.mask_documento(DOC)
PUNCTUATED = f"{DOC[:3]}.{DOC[3:6]}.{DOC[6:9]}-{DOC[9:]}" if len(DOC) == 11 else DOC
PASSWORD = "s3nha-do-admin"


@pytest.fixture(scope="module")
def new_database(tmp_path_factory: pytest.TempPathFactory) -> Callable[[], Any]:
    """Copies of a migrated SQLite file; the default database gets the admin's tables."""
    from django.core.management import call_command

    setup_django(tmp_path_factory.mktemp("django"))
    call_command("migrate", verbosity=0, database="default")
    directory: Path = tmp_path_factory.mktemp("django-admin")
    return sqlite_database(sqlite_template(directory), directory)


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox() as sandbox:
        yield sandbox


@pytest.fixture
def store(new_database: Callable[[], Any], sandbox: Sandbox) -> Iterator[Any]:
    """A DjangoStore on a fresh alias, SMARTPOS["STORE"]; the sandbox delivers into it and the
    app's client (get_client) talks to the sandbox."""
    from django.conf import settings
    from django.test import override_settings

    from smartpos.integrations.django import close_all, get_store

    alias, config = new_database()
    add_database(alias, config)
    values = {
        **settings.SMARTPOS,
        "STORE": f"django://{alias}",
        "WEBHOOK_SECRET": "s",
        "API_KEY": Sandbox.API_KEY,
        "BASE_URL": "http://sandbox.test",
        "CLIENT_OPTIONS": {"transport": sandbox.transport(), "retry_backoff": 0},
    }
    with override_settings(SMARTPOS=values):
        opened = get_store()
        sandbox.set_webhook(WebhookReceiver(opened))
        yield opened
        close_all()
    drop_database(alias)


def _user(name: str, *, superuser: bool = False, perms: tuple[str, ...] = ()) -> Any:
    from django.contrib.auth.models import Permission, User

    User.objects.filter(username=name).delete()
    if superuser:
        return User.objects.create_superuser(name, f"{name}@example.com", PASSWORD)
    user = User.objects.create_user(name, password=PASSWORD, is_staff=True)
    for codename in perms:
        user.user_permissions.add(Permission.objects.get(codename=codename))
    return user


def _browser(user: Any) -> Any:
    from django.test import Client

    browser = Client()
    browser.force_login(user)
    return browser


def until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition never held"
        time.sleep(0.02)


def _pay(sale: str, **extra: Any) -> smartpos.Acceptance:
    from smartpos.integrations.django import get_client

    return get_client().payments.create(
        documento_cliente=DOC,
        valor_centavos=1990,
        smartpos_id=Sandbox.SMARTPOS_ID,
        sale=sale,
        **extra,
    )


PAGES = ("sale", "operation", "event")


def test_a_staff_user_without_the_permissions_gets_403(store: Any) -> None:
    """Staff without smartpos permissions: every page and action is refused, and the admin
    index does not name the app; view permissions alone show the pages without actions."""
    _pay("mesa-1")
    blind = _browser(_user("blind"))
    viewer = _browser(_user("viewer", perms=("view_sale", "view_operation", "view_event")))

    refused = [blind.get(f"/admin/smartpos/{page}/").status_code for page in PAGES]
    refused_action = blind.post(
        "/admin/smartpos/event/", {"action": "requeue", "_selected_action": ["1"]}
    ).status_code
    index = blind.get("/admin/").content.decode()
    seen = [viewer.get(f"/admin/smartpos/{page}/") for page in PAGES]

    assert [403, 403, 403] == refused
    assert 403 == refused_action
    assert "/admin/smartpos/" not in index
    assert [200, 200, 200] == [page.status_code for page in seen]
    assert all('name="action"' not in page.content.decode() for page in seen)


def test_a_superuser_sees_masked_documents_and_read_only_rows(store: Any) -> None:
    """List and detail pages show the document masked, never whole; rows cannot be added,
    changed or deleted, superuser or not."""
    from smartpos.integrations.django import models

    accepted = _pay("mesa-2")
    until(lambda: store.sale("mesa-2") is not None and store.sale("mesa-2").state == "paid")
    browser = _browser(_user("root", superuser=True))
    event = models.Event.objects.using(store.using).get(referencia=accepted.referencia)
    sale = models.Sale.objects.using(store.using).get(sale_id="mesa-2")
    operation = models.Operation.objects.using(store.using).get(referencia=accepted.referencia)

    lists = {page: browser.get(f"/admin/smartpos/{page}/").content.decode() for page in PAGES}
    details = {
        page: browser.get(f"/admin/smartpos/{page}/{pk}/change/").content.decode()
        for page, pk in (("sale", sale.pk), ("operation", operation.pk), ("event", event.pk))
    }
    change = browser.post(f"/admin/smartpos/event/{event.pk}/change/", {"state": "done"})
    add = browser.get("/admin/smartpos/event/add/")
    delete = browser.post(f"/admin/smartpos/sale/{sale.pk}/delete/", {"post": "yes"})

    for text in (*lists.values(), *details.values()):
        assert DOC not in text
        assert PUNCTUATED not in text
    assert MASKED in lists["event"]
    assert MASKED in details["event"]  # the envelope, pretty-printed
    assert MASKED in details["sale"]  # its approval
    assert MASKED in details["operation"]  # the journaled request
    assert "mesa-2" in lists["sale"]
    assert "paid" in lists["sale"]
    assert "R$ 19,90" in lists["sale"]
    assert accepted.referencia in lists["operation"]
    assert "pagamento.aprovado" in details["event"]
    assert (403, 403, 403) == (change.status_code, add.status_code, delete.status_code)
    assert models.Sale.objects.using(store.using).filter(pk=sale.pk).exists()


def test_abandon_asks_the_reason_then_compensate_refunds_the_late_approval_once(
    store: Any, sandbox: Sandbox
) -> None:
    """The cashier's flow in the admin: abandon (a form asks why; the admin user is the
    operador), the approval arrives late (a pendência, listed by the attention filter),
    compensate refunds it once, however often it runs."""
    from smartpos.integrations.django import models

    sandbox.hold_events()
    late = _pay("mesa-3")
    pk = models.Sale.objects.using(store.using).get(sale_id="mesa-3").pk
    browser = _browser(_user("gerente", perms=("view_sale", "change_sale")))
    selected = {"action": "abandon", "_selected_action": [str(pk)]}

    asked = browser.post("/admin/smartpos/sale/", selected)
    empty = browser.post("/admin/smartpos/sale/", {**selected, "apply": "1", "motivo": ""})
    still_open = store.sale("mesa-3")
    done = browser.post(
        "/admin/smartpos/sale/", {**selected, "apply": "1", "motivo": "cliente desistiu"}
    )
    abandoned = store.sale("mesa-3")
    sandbox.release_events()
    until(lambda: bool(store.sale("mesa-3").pendencias))
    attention = browser.get("/admin/smartpos/sale/?attention=yes").content.decode()
    calm = browser.get("/admin/smartpos/sale/?attention=no").content.decode()
    compensate = {"action": "compensate", "_selected_action": [str(pk)]}
    first = browser.post("/admin/smartpos/sale/", compensate, follow=True)
    second = browser.post("/admin/smartpos/sale/", compensate, follow=True)
    after = store.sale("mesa-3")

    assert 200 == asked.status_code
    assert 'name="motivo"' in asked.content.decode()
    assert 200 == empty.status_code  # the form again, with its error
    assert "in_progress" == still_open.state
    assert 302 == done.status_code
    attempt = abandoned.attempts[0]
    assert (late.referencia, "cliente desistiu", "gerente") == (
        attempt.referencia,
        attempt.abandoned.motivo,
        attempt.abandoned.operador,
    )
    assert "open" == abandoned.state
    assert ">mesa-3<" in attention
    assert ">mesa-3<" not in calm
    assert "late_approval" in attention
    assert 1 == len(sandbox.refunds)
    assert [] == after.pendencias
    assert 1 == len(after.compensations)
    assert after.compensations[0].referencia in first.content.decode()
    assert 200 == second.status_code


def test_the_state_filter_and_a_view_only_user_cannot_act(store: Any) -> None:
    """The state filter lists what the store computes; without change_sale the action is
    not offered, and posting it changes nothing."""
    from smartpos.integrations.django import models

    _pay("mesa-4")
    until(lambda: store.sale("mesa-4").state == "paid")
    viewer = _browser(_user("caixa", perms=("view_sale",)))
    pk = models.Sale.objects.using(store.using).get(sale_id="mesa-4").pk

    paid = viewer.get("/admin/smartpos/sale/?state=paid").content.decode()
    opened = viewer.get("/admin/smartpos/sale/?state=open").content.decode()
    viewer.post(
        "/admin/smartpos/sale/",
        {"action": "abandon", "_selected_action": [str(pk)], "apply": "1", "motivo": "x"},
    )

    assert ">mesa-4<" in paid
    assert ">mesa-4<" not in opened
    assert all(a.abandoned is None for a in store.sale("mesa-4").attempts)


def test_reconcile_resends_a_journaled_operation_whose_answer_was_lost(
    store: Any, sandbox: Sandbox
) -> None:
    """An operation journaled but never answered (a crash after the journal write) is sent
    again by the reconcile action, byte for byte: accepted once."""
    from smartpos.integrations.django import models

    referencia = "4e1c0000-aaaa-4bbb-8ccc-000000000001"
    body = payment_request(referencia, valor=500, smartpos_id=Sandbox.SMARTPOS_ID)
    store._begin_operation(
        referencia, kind="payment", method="POST", path="/v1/payments", body=body
    )
    pk = models.Operation.objects.using(store.using).get(referencia=referencia).pk
    browser = _browser(_user("ops", perms=("view_operation", "change_operation")))

    waiting = browser.get("/admin/smartpos/operation/?state__exact=sending").content.decode()
    done = browser.post(
        "/admin/smartpos/operation/",
        {"action": "reconcile", "_selected_action": [str(pk)]},
        follow=True,
    ).content.decode()

    assert referencia in waiting
    assert f"{referencia}: accepted" in done or f"{referencia}: final" in done
    assert [referencia] == [p.referencia for p in sandbox.payments]
    assert store.operation(referencia).state in ("accepted", "final")


def test_requeue_takes_dead_letters_back(store: Any) -> None:
    """The dead-letter filter lists the dead; requeue makes them pending (attempts 0), and
    says which ones it could not requeue (pending: the worker has it)."""
    from store_contract import make_event

    from smartpos.integrations.django import models

    store.put(make_event("ev-dead"))
    (claim,) = store.claim(owner="w", lease=30)
    store.dead_letter(claim, error="ValueError: bad dados")
    store.put(make_event("ev-pending"))
    rows = models.Event.objects.using(store.using)
    ids = [str(rows.get(event_id=e).pk) for e in ("ev-dead", "ev-pending")]
    browser = _browser(_user("suporte", perms=("view_event", "change_event")))

    dead = browser.get("/admin/smartpos/event/?state=dead").content.decode()
    done = browser.post(
        "/admin/smartpos/event/", {"action": "requeue", "_selected_action": ids}, follow=True
    ).content.decode()
    requeued = store.get("ev-dead")

    assert "ev-dead" in dead
    assert "ValueError: bad dados" in dead
    assert "ev-pending" not in dead
    assert requeued is not None
    assert (EventState.PENDING, 0) == (requeued.state, requeued.attempts)
    assert "ev-pending" in done  # named as not requeued


def test_actions_refuse_a_store_that_is_not_the_pages_database(store: Any, tmp_path: Path) -> None:
    """With SMARTPOS["STORE"] elsewhere (an SQLite inbox), the pages read `default`'s tables,
    which nothing writes: the actions refuse and say how to set STORE."""
    from django.conf import settings
    from django.test import override_settings

    from smartpos.integrations.django import models

    other = {**settings.SMARTPOS, "STORE": str(tmp_path / "inbox.sqlite3")}
    browser = _browser(_user("root2", superuser=True))
    with override_settings(SMARTPOS=other):
        row = models.Event.objects.using("default").create(
            event_id="ev-x", tipo="t", raw="{}", body_hash="h", state="dead", received_at=1.0
        )
        try:
            answer = browser.post(
                "/admin/smartpos/event/",
                {"action": "requeue", "_selected_action": [str(row.pk)]},
                follow=True,
            ).content.decode()
            state = models.Event.objects.using("default").get(pk=row.pk).state
        finally:
            row.delete(using="default")

    assert "django://default" in answer
    assert "dead" == state
