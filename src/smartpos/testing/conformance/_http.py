"""The kit over HTTP, for a partner's system in any language: `HttpAdapter` and `run_remote`.

The partner's system runs as it would in production, configured with a served sandbox's
address as the service's base URL (``smartpos sandbox``); the kit drives that sandbox through
its control API and the system through a few URLs it exposes for the test (the contract; every
URL may hold ``{sale}``, replaced by the sale's id, URL-quoted):

========  ===================  =======================================================
what      request              answer
========  ===================  =======================================================
charge    ``POST`` JSON        any (recorded): ``{"sale", "valorCentavos",
                               "totalCentavos", "documentoCliente", "smartposId"}``
status    ``GET``              ``{"paid": bool, "paidCentavos": int, "attention": bool}``
abandon   ``POST`` JSON        any: ``{"sale", "motivo"}`` (optional URL)
refund    ``POST`` JSON        any: ``{"sale"}`` (optional URL)
settle    ``POST``             any, once the pending events are processed (optional URL;
                               without it the kit waits ``settle_seconds``)
========  ===================  =======================================================

A URL without ``{sale}`` gets ``?sale=<id>`` for the status read.
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

import httpx

from ._adapter import Adapter, NotSupported, SaleStatus
from ._runner import Runner, ScenarioResult, deliverer
from ._scenario import Scenario, scenarios

__all__ = ["HttpAdapter", "run_remote"]


def _url(template: str, sale: str, *, query: bool = False) -> str:
    quoted = urllib.parse.quote(sale, safe="")
    if "{sale}" in template:
        return template.replace("{sale}", quoted)
    if query:
        joiner = "&" if urllib.parse.urlsplit(template).query else "?"
        return f"{template}{joiner}sale={quoted}"
    return template


class HttpAdapter(Adapter):
    """An adapter that drives a running system through the URLs of the contract above.

    Args:
        webhook: The system's webhook URL (where the sandbox delivers).
        charge: The charge URL.
        status: The status URL.
        abandon: The abandon URL (``None``: the scenarios that need it are not applicable).
        refund: The refund URL (same).
        settle: The settle URL (``None``: wait ``settle_seconds`` instead).
        settle_seconds: Seconds to let the system process events when it has no settle URL.
        webhook_headers: Headers of every delivery (a shared secret its receiver checks).
        timeout: Seconds to wait for each of the system's answers.
    """

    def __init__(
        self,
        *,
        webhook: str,
        charge: str,
        status: str,
        abandon: str | None = None,
        refund: str | None = None,
        settle: str | None = None,
        settle_seconds: float = 1.0,
        webhook_headers: Mapping[str, str] | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.webhook = webhook
        self.webhook_headers = dict(webhook_headers or {})
        self._urls = {"charge": charge, "status": status, "abandon": abandon, "refund": refund}
        self._settle = settle
        self._settle_seconds = settle_seconds
        self._http = httpx.Client(timeout=timeout, trust_env=False)

    def close(self) -> None:
        """Close the HTTP client."""
        self._http.close()

    def __enter__(self) -> HttpAdapter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @staticmethod
    def _answer(response: httpx.Response) -> dict[str, Any]:
        try:
            body: Any = response.json()
        except ValueError:
            body = response.text[:500]
        return {"status": response.status_code, "body": body}

    def charge(
        self,
        sale: str,
        *,
        valor_centavos: int,
        total_centavos: int,
        documento_cliente: str,
        smartpos_id: str,
    ) -> object:
        """``POST`` the charge URL."""
        body = {
            "sale": sale,
            "valorCentavos": valor_centavos,
            "totalCentavos": total_centavos,
            "documentoCliente": documento_cliente,
            "smartposId": smartpos_id,
        }
        return self._answer(self._http.post(_url(self._urls["charge"] or "", sale), json=body))

    def status(self, sale: str) -> SaleStatus:
        """``GET`` the status URL.

        Raises:
            ValueError: The answer is not a status (the message says what it was).
        """
        response = self._http.get(_url(self._urls["status"] or "", sale, query=True))
        try:
            return SaleStatus.from_json(response.json())
        except ValueError as exc:
            raise ValueError(
                f"status URL answered {response.status_code} {response.text[:200]!r}: {exc}"
            ) from None

    def _post(self, what: str, sale: str, body: dict[str, Any]) -> object:
        url = self._urls[what]
        if url is None:
            raise NotSupported(what)
        return self._answer(self._http.post(_url(url, sale), json=body))

    def abandon(self, sale: str) -> None:
        """``POST`` the abandon URL."""
        self._post(
            "abandon", sale, {"sale": sale, "motivo": "conformance: cliente pagou em dinheiro"}
        )

    def refund(self, sale: str) -> None:
        """``POST`` the refund URL."""
        self._post("refund", sale, {"sale": sale})

    def settle(self) -> None:
        """``POST`` the settle URL, or wait ``settle_seconds``."""
        if self._settle is None:
            time.sleep(self._settle_seconds)
        else:
            self._http.post(self._settle)


def run_remote(
    sandbox: Any,
    adapter: Adapter,
    *,
    names: Iterable[str] | None = None,
    lang: str | None = None,
    settle_timeout: float = 30.0,
) -> list[ScenarioResult]:
    """Run scenarios against a running system through a served sandbox.

    Args:
        sandbox: A [`RemoteSandbox`][smartpos.testing.RemoteSandbox] (or a `Sandbox`) the
            system charges through.
        adapter: Usually an `HttpAdapter`.
        names: Only these scenarios (default: all).
        lang: The language of the messages.
        settle_timeout: Seconds to wait for the sandbox's deliveries at each settle.

    Returns:
        One result per scenario, in order.
    """
    chosen: list[Scenario] = scenarios()
    if names is not None:
        wanted = list(names)
        by_name = {s.name: s for s in chosen}
        chosen = [by_name[name] for name in wanted if name in by_name]
    sandbox.set_webhook(adapter.webhook)
    headers = dict(getattr(adapter, "webhook_headers", None) or {})
    sandbox.set_webhook_headers(headers or None)
    deliver = deliverer(adapter.webhook, headers)
    results = []
    for scenario in chosen:
        sandbox.clear_faults()
        runner = Runner(
            scenario,
            adapter,
            sandbox,
            deliver=deliver,
            settle_timeout=settle_timeout,
            lang=lang,
        )
        try:
            results.append(runner.run())
        except Exception as exc:  # noqa: BLE001 - one scenario's failure to run is reported
            results.append(ScenarioResult(scenario, "error", error=f"{type(exc).__name__}: {exc}"))
    return results
