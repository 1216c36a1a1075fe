"""The cashier's screen of the example shop, driven by headless Chromium and by plain HTTP:
pairing by QR code, approval, refusal then a new attempt, a reload mid-payment, abandon, and
a late approval. The browser run writes a screenshot of each step to ``screenshots/``."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import httpx
import pytest
from checkout_shop import PASSWORD, SCREENSHOTS, TOKEN, USER, Shop

from smartpos.testing import Approve, Hold, Refuse, Sandbox

DOC = Sandbox.DOCUMENTO
TERMINAL = Sandbox.SMARTPOS_ID
TIMEOUT = 20.0


class Cashier(Protocol):
    """What a cashier does on the screen, and what the screen then shows."""

    def open_checkout(self, numero: str) -> None: ...
    def open_pairing(self) -> None: ...
    def charge(self) -> None: ...
    def abandon(self) -> None: ...
    def pair(self) -> None: ...
    def reload(self) -> None: ...
    def wait_status(self, status: str) -> dict[str, Any]: ...
    def wait_until(self, condition: Callable[[dict[str, Any]], bool]) -> dict[str, Any]: ...
    def buttons(self) -> set[str]: ...
    def message(self) -> str: ...
    def shot(self, name: str) -> None: ...


class BrowserCashier:
    """The shop's pages in headless Chromium, through smartpos-checkout.js."""

    def __init__(self, shop: Shop, driver: Any) -> None:
        self.shop = shop
        self.driver = driver
        self.flow = ""

    def login(self) -> None:
        from selenium.webdriver.common.by import By

        if self.shop.kind == "fastapi":
            self.driver.get(f"{self.shop.url}/caixa/entrar?token={TOKEN}")
            return
        self.driver.get(f"{self.shop.url}/admin/login/")
        if not self.driver.find_elements(By.NAME, "username"):
            return  # logged in by an earlier test of this browser
        self.driver.find_element(By.NAME, "username").send_keys(USER)
        self.driver.find_element(By.NAME, "password").send_keys(PASSWORD)
        self.driver.find_element(By.CSS_SELECTOR, "[type=submit]").click()
        self._until(lambda: "login" not in self.driver.current_url)

    def _until(self, condition: Any) -> Any:
        deadline = time.monotonic() + TIMEOUT
        while True:
            value = condition()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"the page did not get there: {self.driver.current_url}")
            time.sleep(0.05)

    def _root(self) -> Any:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.ID, "checkout")

    def open_checkout(self, numero: str) -> None:
        self.driver.get(
            f"{self.shop.url}/caixa/{numero}/?documento={DOC}&terminal={TERMINAL}&total=45,90"
        )
        self._until(lambda: self._root().get_attribute("data-status"))

    def open_pairing(self) -> None:
        self.driver.get(f"{self.shop.url}/caixa/parear/?documento={DOC}")
        self._until(lambda: self._root().get_attribute("data-status"))

    def _click(self, css: str) -> None:
        self._root().find_element("css selector", css).click()

    def charge(self) -> None:
        self._click(".smartpos-charge")

    def abandon(self) -> None:
        self._click(".smartpos-abandon")

    def pair(self) -> None:
        self._click(".smartpos-pair")

    def reload(self) -> None:
        self.driver.refresh()
        self._until(lambda: self._root().get_attribute("data-status"))

    def _view(self) -> dict[str, Any]:
        view = self.driver.execute_script(
            "return document.getElementById('checkout').smartposCheckout.view"
        )
        return view if isinstance(view, dict) else {}

    def wait_status(self, status: str) -> dict[str, Any]:
        self._until(lambda: self._root().get_attribute("data-status") == status)
        return self._view()

    def wait_until(self, condition: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Without reloading: what the stream brings."""
        return dict(self._until(lambda: (view := self._view()) and condition(view) and view))

    def buttons(self) -> set[str]:
        found = self._root().find_elements("css selector", "button")
        return {
            b.get_attribute("class").removeprefix("smartpos-") for b in found if b.is_displayed()
        }

    def message(self) -> str:
        text: str = self._root().find_element("css selector", ".smartpos-message").text
        return text

    def shot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(SCREENSHOTS / f"{self.flow}-{name}.png"))


class HttpCashier:
    """The same endpoints with no browser: a logged-in session, JSON, the ?wait= long poll."""

    def __init__(self, shop: Shop) -> None:
        self.shop = shop
        self.http = httpx.Client(base_url=shop.url, timeout=30)
        self.numero = ""
        self.referencia = ""
        self.view: dict[str, Any] | None = None
        self.last_error = ""

    def login(self) -> None:
        if self.shop.kind == "fastapi":
            self.http.get("/caixa/entrar", params={"token": TOKEN})
            assert "caixa" in self.http.cookies
            return
        self.http.get("/admin/login/")
        token = self.http.cookies["csrftoken"]
        answer = self.http.post(
            "/admin/login/",
            data={"username": USER, "password": PASSWORD, "csrfmiddlewaretoken": token},
            headers={"Referer": f"{self.shop.url}/admin/login/"},
        )
        assert answer.status_code in (200, 302)
        assert "sessionid" in self.http.cookies

    def _post(self, path: str, data: dict[str, str]) -> httpx.Response:
        token = self.http.cookies.get("csrftoken", "")
        answer = self.http.post(
            path, data=data, headers={"X-CSRFToken": token, "Referer": f"{self.shop.url}/"}
        )
        self.last_error = answer.json().get("erro", "") if answer.status_code >= 400 else ""
        return answer

    def _url(self) -> str:
        if self.numero:
            return f"/caixa/smartpos/sales/{self.numero}"
        return f"/caixa/smartpos/operations/{self.referencia}"

    def open_checkout(self, numero: str) -> None:
        self.numero, self.referencia = numero, ""
        assert self.http.get(f"/caixa/{numero}/", params={"total": "45,90"}).status_code == 200
        self.view = self.http.get(self._url()).json()

    def open_pairing(self) -> None:
        self.numero = self.referencia = ""
        assert self.http.get("/caixa/parear/").status_code == 200
        self.view = None

    def charge(self) -> None:
        fields = {"documento": DOC, "terminal": TERMINAL, "valor": "45,90"}
        self._post(f"/caixa/{self.numero}/cobrar", fields)

    def abandon(self) -> None:
        self._post(f"/caixa/{self.numero}/abandonar", {})

    def pair(self) -> None:
        self.referencia = self._post("/caixa/parear/novo", {"documento": DOC}).json()["referencia"]

    def reload(self) -> None:
        self.view = self.http.get(self._url()).json()

    def wait_status(self, status: str) -> dict[str, Any]:
        return self.wait_until(lambda view: view["status"] == status)

    def wait_until(self, condition: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The long poll: each answer is the first change after the state it had."""
        deadline = time.monotonic() + TIMEOUT
        view = self.http.get(self._url()).json()
        while not condition(view):
            if time.monotonic() > deadline:
                raise AssertionError(f"still {view['status']}")
            view = self.http.get(self._url(), params={"wait": "5", "since": view["id"]}).json()
        self.view = view
        return view

    def buttons(self) -> set[str]:
        view = self.view
        assert view is not None
        shown = set()
        if view["type"] == "sale" and view["open_attempt"]:
            shown.add("abandon")
        elif view["type"] == "sale" and view["state"] != "paid":
            shown.add("charge")
        return shown

    def message(self) -> str:
        assert self.view is not None
        if self.last_error:
            return self.last_error
        attempts = self.view.get("attempts") or [self.view]
        outcome = attempts[-1].get("outcome") or {}
        return str(outcome.get("mensagem") or "")

    def shot(self, name: str) -> None:
        pass


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=900,900",
    ):
        options.add_argument(argument)
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    assert binary, "Chromium is missing: sudo bash .ci/install-servers.sh"
    options.binary_location = binary
    service = Service(executable_path=shutil.which("chromedriver"))
    browser = webdriver.Chrome(options=options, service=service)
    try:
        yield browser
    finally:
        browser.quit()


@pytest.fixture(params=["browser", "http"])
def cashier(request: pytest.FixtureRequest, shop: Shop) -> Iterator[Cashier]:
    if request.param == "browser":
        browser = BrowserCashier(shop, request.getfixturevalue("driver"))
        browser.flow = shop.kind + "-" + request.node.originalname.removeprefix("test_")
        browser.login()
        yield browser
    else:
        plain = HttpCashier(shop)
        plain.login()
        yield plain
        plain.http.close()


def test_pairing_shows_the_qr_code_until_the_terminal_reads_it(
    cashier: Cashier, shop: Shop
) -> None:
    cashier.open_pairing()
    cashier.pair()
    view = cashier.wait_status("waiting")
    assert view["qr_image"].startswith("data:image/svg+xml")
    cashier.shot("1-qrcode")
    shop.sandbox.scan(view["qr_code"], TERMINAL)
    paired = cashier.wait_status("paired")
    assert paired["outcome"]["smartpos_id"] == TERMINAL
    assert DOC not in json.dumps(paired)
    cashier.shot("2-paired")


def test_charge_shows_waiting_then_approved(cashier: Cashier, shop: Shop) -> None:
    numero = shop.order()
    cashier.open_checkout(numero)
    assert cashier.buttons() == {"charge"}
    cashier.shot("1-ready")
    shop.sandbox.script_payments(Hold(Approve()))
    cashier.charge()
    waiting = cashier.wait_status("waiting")
    assert cashier.buttons() == {"abandon"}
    cashier.shot("2-waiting")
    shop.sandbox.release(waiting["open_attempt"])
    approved = cashier.wait_status("approved")
    assert approved["state"] == "paid"
    assert cashier.buttons() == set()
    cashier.shot("3-approved")


def test_refusal_shows_the_message_and_allows_a_new_attempt(cashier: Cashier, shop: Shop) -> None:
    numero = shop.order()
    cashier.open_checkout(numero)
    shop.sandbox.script_payments(Refuse(mensagem_operador="SALDO INSUFICIENTE"))
    cashier.charge()
    cashier.wait_status("refused")
    assert "SALDO INSUFICIENTE" in cashier.message()
    assert cashier.buttons() == {"charge"}
    cashier.shot("1-refused")
    cashier.charge()  # another card
    approved = cashier.wait_status("approved")
    assert len(approved["attempts"]) == 2
    cashier.shot("2-approved")


def test_reload_mid_payment_reattaches_and_shows_the_outcome(cashier: Cashier, shop: Shop) -> None:
    numero = shop.order()
    cashier.open_checkout(numero)
    shop.sandbox.script_payments(Hold(Approve()))
    cashier.charge()
    waiting = cashier.wait_status("waiting")
    cashier.reload()  # the cashier pressed F5: the page comes back to the attempt in flight
    again = cashier.wait_status("waiting")
    assert again["open_attempt"] == waiting["open_attempt"]
    assert cashier.buttons() == {"abandon"}  # no second charge offered
    cashier.shot("1-reattached")
    shop.sandbox.release(waiting["open_attempt"])
    cashier.wait_status("approved")
    cashier.shot("2-approved")


def test_abandon_frees_the_sale_and_a_late_approval_is_a_pendencia(
    cashier: Cashier, shop: Shop
) -> None:
    numero = shop.order()
    cashier.open_checkout(numero)
    shop.sandbox.script_payments(Hold(Approve()))
    cashier.charge()
    waiting = cashier.wait_status("waiting")
    cashier.abandon()
    abandoned = cashier.wait_status("abandoned")
    assert abandoned["state"] == "open"
    assert abandoned["open_attempt"] is None
    assert cashier.buttons() == {"charge"}  # the sale is free for a new attempt
    cashier.shot("1-abandoned")
    shop.sandbox.release(waiting["open_attempt"])  # the customer's approval comes late
    view = cashier.wait_until(lambda view: bool(view["pendencias"]))  # live, no reload
    assert view["status"] == "abandoned"
    assert [p["reason"] for p in view["pendencias"]] == ["late_approval"]
    assert view["attempts"][0]["status"] == "late_approval"
    cashier.shot("2-late-approval")


def test_without_eventsource_the_long_poll_follows_the_sale(shop: Shop, driver: Any) -> None:
    """A browser (or a proxy) without Server-Sent Events: the script long-polls ?wait=25."""
    browser = BrowserCashier(shop, driver)
    browser.flow = shop.kind + "-long-poll"
    browser.login()
    driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": "delete window.EventSource;"}
    )
    try:
        numero = shop.order()
        browser.open_checkout(numero)
        assert driver.execute_script("return typeof window.EventSource") == "undefined"
        shop.sandbox.script_payments(Hold(Approve()))
        browser.charge()
        waiting = browser.wait_status("waiting")
        shop.sandbox.release(waiting["open_attempt"])
        assert browser.wait_status("approved")["state"] == "paid"
    finally:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": ""})
        driver.get("about:blank")
