"""docs/en/client.md's "After a crash" recipe runs as written, and settles a crashed payment."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

import smartpos
from smartpos.testing import Sandbox
from smartpos.webhooks import SQLiteStore, WebhookReceiver

DOC = Path(__file__).resolve().parents[2] / "docs" / "en" / "client.md"


def recipe() -> str:
    """The python block of the "After a crash" section."""
    section = DOC.read_text(encoding="utf-8").split("### After a crash", 1)[1]
    [block, *_] = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    return block


class CrashAfterSend(httpx.BaseTransport):
    """Forwards the request, then "crashes" before the client can record the answer."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.inner.handle_request(request).read()
        raise KeyboardInterrupt  # the process dies here: not an error the SDK classifies


def test_the_after_a_crash_recipe_settles_an_open_payment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A payment left sending is reconciled (charged once) and finalized by its event."""
    monkeypatch.chdir(tmp_path)
    finalized: list[tuple[str, Any]] = []
    with Sandbox() as sandbox, SQLiteStore(tmp_path / "inbox.sqlite3") as store:
        sandbox.set_webhook(WebhookReceiver(store))
        sandbox.hold_events()
        monkeypatch.setenv("SMARTPOS_API_KEY", Sandbox.API_KEY)
        monkeypatch.setenv("SMARTPOS_BASE_URL", "http://sandbox.test")
        crashing = smartpos.Client(store=store, transport=CrashAfterSend(sandbox.transport()))
        with crashing, pytest.raises(KeyboardInterrupt):
            crashing.payments.create(
                documento_cliente=Sandbox.DOCUMENTO,
                valor_centavos=990,
                smartpos_id=Sandbox.SMARTPOS_ID,
            )
        [open_operation] = store.operations()
        assert "sending" == open_operation.state
        # The recipe's own client reaches the sandbox through this transport.
        original = smartpos.Client

        def client(**options: Any) -> smartpos.Client:
            return original(**options, transport=sandbox.transport())

        monkeypatch.setattr(smartpos, "Client", client)
        threading.Timer(0.2, sandbox.release_events).start()

        # The documented recipe, as a user runs it.
        exec(recipe(), {"finalize_sale": lambda *args: finalized.append(args)})

        charges = [p for p in sandbox.payments if p.referencia == open_operation.referencia]
        assert 1 == len(charges)
        assert [open_operation.referencia] == [referencia for referencia, _ in finalized]
        assert [] == store.operations()
