"""The example apps served on 127.0.0.1 with the served sandbox, for the cashier's
screen flows (a browser and plain HTTP drive the same scenarios)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "integrations"))
from framework_helpers import free_port, serve_process  # noqa: E402

from smartpos.testing import Sandbox  # noqa: E402

SHOP = ROOT / "examples" / "django_shop"
SECRET = "caixa-secret"
USER, PASSWORD = "caixa", "caixa-senha-123"
#: Where the browser tests write their screenshots (git-ignored); docs/ images come from here.
SCREENSHOTS = Path(os.environ.get("SMARTPOS_SCREENSHOTS", ROOT / "screenshots"))

__all__ = ["PASSWORD", "SCREENSHOTS", "TOKEN", "USER", "Shop", "shop"]


EXAMPLES = ROOT / "examples"
TOKEN = "caixa-token-123"


class Shop:
    """A running example app: its URL, the sandbox behind it, how a cashier logs in."""

    def __init__(self, kind: str, url: str, sandbox: Sandbox, env: dict[str, str]) -> None:
        self.kind = kind
        self.url = url
        self.sandbox = sandbox
        self.env = env
        self._orders = 0

    def order(self, total: str = "45,90") -> str:
        """A new order's numero (the Django shop creates it through its own models; the
        FastAPI app takes the total from the page)."""
        self._orders += 1
        numero = f"{self.kind}-{os.getpid()}-{self._orders}"
        if self.kind == "django":
            code = (
                "import smartpos; from shop.models import Order; "
                f"Order.objects.create(numero={numero!r}, "
                f"total_centavos=smartpos.to_centavos({total!r}))"
            )
            manage(self.env, "shell", "-c", code)
        return numero


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=SHOP,
        env=env,
        check=True,
        timeout=120,
        capture_output=True,
    )


@pytest.fixture(scope="session", params=["django", "fastapi"])
def shop(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Shop]:
    """An example app on 127.0.0.1, its smartpos client talking to a sandbox served over HTTP
    that delivers webhooks back: the Django shop under ``runserver`` (threaded WSGI, its own
    SQLite database, ``DjangoStore``), or the FastAPI app under uvicorn (an SQLite inbox)."""
    kind = request.param
    tmp = tmp_path_factory.mktemp(kind)
    sandbox = Sandbox(webhook_headers={"x-webhook-secret": SECRET})
    port = free_port()
    with sandbox.serve() as sandbox_url:
        env = {
            **os.environ,
            "SMARTPOS_API_KEY": Sandbox.API_KEY,
            "SMARTPOS_BASE_URL": sandbox_url,
            "SMARTPOS_WEBHOOK_SECRET": SECRET,
        }
        if kind == "django":
            env.update(
                PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(SHOP)]),
                DJANGO_SETTINGS_MODULE="shop.settings",
                DJANGO_DB=str(tmp / "shop.sqlite3"),
                DJANGO_SUPERUSER_PASSWORD=PASSWORD,
            )
            manage(env, "migrate", "--noinput", "--skip-checks")
            manage(
                env, "createsuperuser", "--noinput", "--username", USER, "--email", "c@x.invalid"
            )
            sandbox.set_webhook(f"http://127.0.0.1:{port}/webhooks/smartpos/")
            # Threaded (the default): one thread per open stream.
            args = ["manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
            cwd = SHOP
        else:
            env.update(
                PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(EXAMPLES)]),
                SMARTPOS_STORE=str(tmp / "inbox.sqlite3"),
                CAIXA_TOKEN=TOKEN,
            )
            sandbox.set_webhook(f"http://127.0.0.1:{port}/webhooks/smartpos")
            args = ["-m", "uvicorn", "fastapi_app:create_app", "--factory", "--port", str(port)]
            args += ["--host", "127.0.0.1", "--log-level", "warning"]
            cwd = EXAMPLES
        with serve_process(args, port=port, cwd=cwd, env=env, log=tmp / "server.log") as url:
            yield Shop(kind, url, sandbox, env)
