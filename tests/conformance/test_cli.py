"""``smartpos conformance``: the kit over real HTTP, against a system served on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
from shops import NaiveShop, SdkShop
from werkzeug.serving import WSGIRequestHandler, make_server

from smartpos.cli import main
from smartpos.testing import Sandbox
from smartpos.testing.conformance import Adapter

pytestmark = pytest.mark.slow

Start = Callable[[dict[str, Any]], None]


class QuietHandler(WSGIRequestHandler):
    """werkzeug's request handler without access logs on stderr."""

    def log(self, type: str, message: str, *args: Any) -> None:
        pass


def shop_app(shop: Adapter) -> Callable[[dict[str, Any], Any], Iterable[bytes]]:
    """The kit's HTTP contract in front of a shop: what a partner exposes for the test."""

    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        method, path = environ["REQUEST_METHOD"], environ["PATH_INFO"]
        size = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(size)
        status, answer = "200 OK", b"{}"
        _, what, *rest = path.split("/")
        sale = rest[0] if rest else ""
        if what == "webhook":
            headers = {
                k[5:].replace("_", "-").lower(): v
                for k, v in environ.items()
                if k.startswith("HTTP_")
            }
            receiver: Any = shop.webhook
            if callable(receiver) and not hasattr(receiver, "receive"):
                receiver(json.loads(body))
            else:
                code = receiver.receive(body, headers).status_code
                status = f"{code} X"
        elif what == "charge" and method == "POST":
            data = json.loads(body)
            try:
                result = shop.charge(
                    sale,
                    valor_centavos=data["valorCentavos"],
                    total_centavos=data["totalCentavos"],
                    documento_cliente=data["documentoCliente"],
                    smartpos_id=data["smartposId"],
                )
                answer = json.dumps(result).encode()
                status = "202 Accepted"
            except Exception as exc:
                status, answer = "409 Conflict", json.dumps({"erro": str(exc)}).encode()
        elif what == "status":
            answer = json.dumps(shop.status(sale).to_json()).encode()
        elif what in ("abandon", "refund"):
            getattr(shop, what)(sale)
        else:
            status = "404 Not Found"
        start_response(status, [("content-type", "application/json")])
        return [answer]

    return app


@pytest.fixture
def served() -> Iterator[Callable[[Callable[[str], Adapter]], tuple[str, str]]]:
    """Serve a sandbox and a shop (made from the sandbox's URL); yields -> (sandbox, shop) URLs."""
    stack: list[Any] = []

    def start(make: Callable[[str], Adapter]) -> tuple[str, str]:
        sandbox = Sandbox(webhook_attempts=5, webhook_backoff=0.05)
        serving = sandbox.serve()
        base = serving.__enter__()
        stack.append(serving.__exit__)
        shop = make(base)
        server = make_server(
            "127.0.0.1", 0, shop_app(shop), threaded=True, request_handler=QuietHandler
        )
        thread = threading.Thread(target=server.serve_forever)
        thread.start()

        def stop() -> None:
            server.shutdown()
            thread.join(timeout=10)
            server.server_close()
            shop.client.close()  # type: ignore[attr-defined]

        stack.append(lambda *a: stop())
        return base, f"http://127.0.0.1:{server.server_port}"

    yield start
    for close in reversed(stack):
        close(None, None, None)


def arguments(sandbox: str, shop: str, *more: str) -> list[str]:
    """The command line of a run against the served shop."""
    return [
        "conformance", "run", "--json",
        "--control", sandbox,
        "--webhook", f"{shop}/webhook/",
        "--charge", f"{shop}/charge/{{sale}}",
        "--status", f"{shop}/status/{{sale}}",
        "--abandon", f"{shop}/abandon/{{sale}}",
        "--refund", f"{shop}/refund/{{sale}}",
        "--settle-seconds", "0.05",
        *more,
    ]  # fmt: skip


def test_the_recommended_shop_passes_over_http(
    served: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every scenario passes over HTTP for the SDK-based shop: exit 0 and a JSON report."""
    sandbox, shop = served(SdkShop)
    assert 0 == main(arguments(sandbox, shop))
    report = json.loads(capsys.readouterr().out)
    assert 18 == report["summary"]["passed"]
    assert ["passed"] * 18 == [r["outcome"] for r in report["results"]]


def test_the_naive_shop_fails_over_http(served: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """The naive shop fails with exit 1; the report names scenario, invariant and what to do."""
    sandbox, shop = served(NaiveShop)
    code = main(
        arguments(sandbox, shop, "--scenario", "approved-once", "--scenario", "answer-lost")
    )
    assert 1 == code
    report = json.loads(capsys.readouterr().out)
    by_name = {r["scenario"]: r for r in report["results"]}
    assert {"approved-once", "answer-lost"} == set(by_name)
    first = by_name["approved-once"]["violations"][0]
    assert ("not-from-202", 4) == (first["invariant"], first["step"])
    lost = {v["invariant"] for v in by_name["answer-lost"]["violations"]}
    assert {"same-referencia", "paid-once"} <= lost


def test_text_report_and_usage(served: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """Text mode prints one line per scenario and a summary; an unknown scenario is usage (2)."""
    sandbox, shop = served(SdkShop)
    args = [a for a in arguments(sandbox, shop, "--scenario", "split-bill") if a != "--json"]
    assert 0 == main(args)
    out = capsys.readouterr().out
    assert "ok    split-bill" in out
    assert "1 passed, 0 failed, 0 not applicable, 0 errors, of 1 scenarios" in out
    assert 2 == main(arguments(sandbox, shop, "--scenario", "teleport"))
    assert 2 == main(["conformance", "run", "--control", sandbox])
