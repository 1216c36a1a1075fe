"""The project's own examples run the whole conformance kit, as a partner would run it.

Each example gets an adapter written as its partner would write one: the kit charges through
the example's own views, reads whether the sale is paid from the example's own data, and the
sandbox delivers to the example's own webhook URL (through the framework's test client).

- the Django shop (``examples/django_shop``): an ``Order`` per sale, ``/orders/`` and
  ``/charge/``, the webhook view storing events in the shop's database and
  ``manage.py smartpos_worker`` applying them (``on_sale`` marks the order paid);
- the FastAPI app and the Flask app (``examples/fastapi_app.py``, ``examples/flask_app.py``):
  ``POST /charge`` with the sale (``venda``), ``GET /sales/<venda>`` read from the inbox's sale
  (the status URL of ``smartpos conformance run``), the webhook router or blueprint storing the
  events; abandon and refund are the back office's, a client on the same inbox.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
import tempfile
import time
import uuid
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import pytest

import smartpos
from smartpos import webhooks
from smartpos.testing import Sandbox
from smartpos.testing.conformance import Adapter, SaleStatus, pytest_scenarios

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SECRET = "conformance-secret"


def _reais(centavos: int) -> str:
    """``1990`` as the till types it: ``"19,90"``."""
    return f"{centavos // 100},{centavos % 100:02d}"


# ---------------------------------------------------------------------- the Django shop


def _setup_django(scratch: Path) -> None:
    """Django on the shop's settings and a fresh SQLite file (as the integration tests do)."""
    import django
    from django.conf import settings

    if settings.configured:
        return
    sys.path.insert(0, str(EXAMPLES / "django_shop"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "shop.settings"
    os.environ["DJANGO_DB"] = str(scratch / f"shop-{uuid.uuid4().hex[:8]}.sqlite3")
    tz = os.environ.get("TZ")
    try:
        django.setup()
    finally:
        os.environ.pop("DJANGO_SETTINGS_MODULE", None)
        os.environ.pop("DJANGO_DB", None)
        # Django sets the process's TZ to TIME_ZONE; servers started later would inherit it.
        if tz is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = tz
        time.tzset()


@pytest.fixture(scope="module")
def django_shop(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The shop's tables and smartpos's, made by the migrations as in production."""
    pytest.importorskip("django")
    _setup_django(tmp_path_factory.mktemp("django-shop"))
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


class _DjangoWebhook:
    """The shop's webhook URL (``/webhooks/smartpos/``), reached through Django's test client."""

    def receive(self, body: bytes, headers: Any) -> Any:
        from django.test import Client

        extra = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        return Client().post(
            "/webhooks/smartpos/", body, content_type="application/json", headers=extra
        )


class DjangoShop(Adapter):
    """The Django shop, driven through its views; its worker applies what was delivered."""

    webhook_headers: ClassVar[dict[str, str]] = {"x-webhook-secret": SECRET}

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.webhook = _DjangoWebhook()

    def __enter__(self) -> DjangoShop:
        from django.conf import settings
        from django.test import override_settings

        from smartpos.integrations.django import close_all

        close_all()  # nothing cached from another module's settings
        self._settings = override_settings(
            SMARTPOS={
                **settings.SMARTPOS,
                "API_KEY": Sandbox.API_KEY,
                "BASE_URL": "http://sandbox.test",
                "WEBHOOK_SECRET": SECRET,
                "WEBHOOK_SECRET_HEADER": "x-webhook-secret",
                "CLIENT_OPTIONS": {"transport": self.sandbox.transport(), "retry_backoff": 0},
            }
        )
        self._settings.enable()
        return self

    def __exit__(self, *exc_info: object) -> None:
        from smartpos.integrations.django import close_all

        close_all()
        self._settings.disable()

    def charge(
        self,
        sale: str,
        *,
        valor_centavos: int,
        total_centavos: int,
        documento_cliente: str,
        smartpos_id: str,
    ) -> object:
        from django.test import AsyncClient, Client
        from shop.models import Order

        if not Order.objects.filter(numero=sale).exists():
            opened = Client().post("/orders/", {"numero": sale, "total": _reais(total_centavos)})
            assert opened.status_code == 201, opened.content
        data = {
            "numero": sale,
            "documento": documento_cliente,
            "terminal": smartpos_id,
            "valor": _reais(valor_centavos),
        }
        answer = asyncio.run(AsyncClient().post("/charge/", data))
        return {"status": answer.status_code, **answer.json()}

    def status(self, sale: str) -> SaleStatus:
        from shop.models import Order

        from smartpos.integrations.django import get_store

        order = Order.objects.filter(numero=sale).first()
        if order is None:
            return SaleStatus(paid=False)
        found = get_store().sale(sale)
        return SaleStatus(
            paid=order.paid,
            paid_centavos=0 if found is None else found.approved_centavos,
            attention=order.late_approvals > 0 or bool(found is not None and found.pendencias),
        )

    def settle(self) -> None:
        from django.core.management import call_command

        call_command("smartpos_worker", "--once", verbosity=0)

    def abandon(self, sale: str) -> None:
        from smartpos.integrations.django import get_client

        get_client().abandon(sale, motivo="cliente pagou em dinheiro", operador="caixa 1")

    def refund(self, sale: str) -> None:
        from smartpos.integrations.django import get_client, get_store

        found = get_store().sale(sale)
        assert found is not None
        get_client().refunds.create_for(
            found.approvals[0], referencia=smartpos.referencia_for(f"estorno:{sale}")
        )


test_django_shop = pytest.mark.usefixtures("django_shop")(pytest_scenarios(DjangoShop))


# ---------------------------------------------------------------------- FastAPI and Flask


def _load(name: str) -> ModuleType:
    """Import ``examples/<name>.py`` under a name of its own."""
    spec = importlib.util.spec_from_file_location(f"conformance_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Post:
    """A webhook URL of the app, reached through the framework's test client."""

    def __init__(self, post: Any, url: str) -> None:
        self.post = post
        self.url = url

    def receive(self, body: bytes, headers: Any) -> Any:
        return self.post(self.url, body, dict(headers))


class _AppShop(Adapter):
    """An example app driven over its own URLs; the back office abandons and refunds.

    Subclasses open the app and its test client in ``__enter__`` and say how to post.
    """

    webhook_headers: ClassVar[dict[str, str]] = {"x-webhook-secret": SECRET}

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self._scratch = tempfile.TemporaryDirectory(prefix="smartpos-example-")
        self.inbox = str(Path(self._scratch.name) / "inbox.sqlite3")
        self.client_options = {
            "api_key": Sandbox.API_KEY,
            "base_url": "http://sandbox.invalid",
            "transport": sandbox.transport(),
            "retry_backoff": 0,
        }
        # The operator's own tool: a client on the same inbox (abandon, refund).
        self.store = webhooks.SQLiteStore(self.inbox)
        self.back_office = smartpos.Client(**self.client_options, store=self.store)

    def _post(self, url: str, data: dict[str, str]) -> Any:
        raise NotImplementedError

    def _get(self, url: str) -> Any:
        raise NotImplementedError

    def charge(
        self,
        sale: str,
        *,
        valor_centavos: int,
        total_centavos: int,
        documento_cliente: str,
        smartpos_id: str,
    ) -> object:
        data = {
            "venda": sale,
            "documento": documento_cliente,
            "terminal": smartpos_id,
            "valor": _reais(valor_centavos),
            "total": _reais(total_centavos),
        }
        status, answer = self._post("/charge", data)
        return {"status": status, **answer}

    def status(self, sale: str) -> SaleStatus:
        return SaleStatus.from_json(self._get(f"/sales/{sale}"))

    def abandon(self, sale: str) -> None:
        self.back_office.abandon(sale, motivo="cliente pagou em dinheiro", operador="caixa 1")

    def refund(self, sale: str) -> None:
        found = self.store.sale(sale)
        assert found is not None
        self.back_office.refunds.create_for(
            found.approvals[0], referencia=smartpos.referencia_for(f"estorno:{sale}")
        )


class FastAPIApp(_AppShop):
    """``examples/fastapi_app.py`` under FastAPI's TestClient (its lifespan runs the worker)."""

    def __enter__(self) -> FastAPIApp:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Starlette's TestClient would prefer httpx2
            from fastapi.testclient import TestClient
        app = _load("fastapi_app").create_app(
            self.inbox, secret=SECRET, client_options=self.client_options
        )
        self.http = TestClient(app).__enter__()
        self.webhook = _Post(
            lambda url, body, headers: self.http.post(url, content=body, headers=headers),
            "/webhooks/smartpos",
        )
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.http.__exit__(None, None, None)
        self.back_office.close()
        self.store.close()
        self._scratch.cleanup()

    def _post(self, url: str, data: dict[str, str]) -> Any:
        answer = self.http.post(url, json=data)
        return answer.status_code, answer.json()

    def _get(self, url: str) -> Any:
        answer = self.http.get(url)
        assert answer.status_code == 200, answer.text
        return answer.json()


class FlaskApp(_AppShop):
    """``examples/flask_app.py`` under Flask's test client."""

    def __enter__(self) -> FlaskApp:
        self.module = _load("flask_app")
        self.app = self.module.create_app(
            {
                "SMARTPOS_STORE": self.inbox,
                "SMARTPOS_WEBHOOK_SECRET": SECRET,
                "SMARTPOS_API_KEY": Sandbox.API_KEY,
                "SMARTPOS_BASE_URL": "http://sandbox.invalid",
                "SMARTPOS_CLIENT_OPTIONS": {
                    "transport": self.sandbox.transport(),
                    "retry_backoff": 0,
                },
            }
        )
        self.http = self.app.test_client()
        self.webhook = _Post(
            lambda url, body, headers: self.http.post(url, data=body, headers=headers),
            "/webhooks/smartpos",
        )
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.module.smartpos_ext.close(self.app)
        self.back_office.close()
        self.store.close()
        self._scratch.cleanup()

    def _post(self, url: str, data: dict[str, str]) -> Any:
        answer = self.http.post(url, data=data)
        return answer.status_code, answer.json

    def _get(self, url: str) -> Any:
        answer = self.http.get(url)
        assert answer.status_code == 200, answer.text
        return answer.json


test_fastapi_app = pytest_scenarios(FastAPIApp)
test_flask_app = pytest_scenarios(FlaskApp)
