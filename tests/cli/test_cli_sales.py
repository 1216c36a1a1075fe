"""``smartpos sales``: list, show, abandon, compensate and the till close, in process.

A served sandbox delivers into a real SQLite inbox that a client with that store journals its
sales into; the command reads (and, for ``abandon`` and ``compensate``, writes) the same file.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke

import smartpos
from smartpos import _messages
from smartpos.cli._sales import SALE_STATES, sales_created, till_close
from smartpos.testing import DropConnection, Hold, Refuse, Sandbox
from smartpos.webhooks import SQLiteStore, StoreBase, WebhookReceiver
from smartpos.webhooks._sales import SALE_STATES as SDK_SALE_STATES
from smartpos.webhooks._sales import compensation_referencia

#: The masked CPF the command prints instead of Sandbox.DOCUMENTO.
MASKED = "529.***.***-25"
SALE = "mesa-12"


class World:
    """A served sandbox delivering into an SQLite inbox, and a client journaling sales into it."""

    def __init__(self, sandbox: Sandbox, base_url: str, path: Path, store: StoreBase) -> None:
        self.sandbox = sandbox
        self.base_url = base_url
        self.path = path
        self.store = store
        self.client = smartpos.Client(
            api_key=Sandbox.API_KEY, base_url=base_url, store=store, retry_backoff=0
        )

    def charge(self, sale: str, valor: int, forma: str, **extra: Any) -> str:
        """Charge a sale and wait for the outcome; return the attempt's referencia."""
        event = self.client.payments.create_and_wait(
            documento_cliente=Sandbox.DOCUMENTO,
            smartpos_id=Sandbox.SMARTPOS_ID,
            valor_centavos=valor,
            forma_pagamento=forma,
            sale=sale,
            timeout=10,
            **extra,
        )
        return event.dados.referencia

    def slow(self, sale: str, valor: int = 5000) -> str:
        """Start an attempt whose approval the sandbox holds back; return its referencia."""
        self.sandbox.script_payments(Hold())
        return self.client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            smartpos_id=Sandbox.SMARTPOS_ID,
            valor_centavos=valor,
            forma_pagamento="credito",
            sale=sale,
        ).referencia

    def given_up(self) -> str:
        """mesa-12: refused, then given up (its approval comes late), then paid by pix.

        Returns:
            The referencia of the late approval.
        """
        self.sandbox.script_payments(Refuse())
        self.charge(SALE, 5000, "credito")
        slow = self.slow(SALE)
        self.client.abandon(SALE, motivo="cliente pagou em dinheiro", operador="caixa 1")
        self.charge(SALE, 5000, "pix")
        self.sandbox.release(slow)
        self.client.wait(slow, timeout=10)
        return slow

    def refunds(self, referencia: str) -> int:
        return sum(1 for r in self.sandbox.refunds if r.referencia == referencia)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """The world, with the command's environment pointing at its sandbox and its inbox."""
    path = tmp_path / "inbox.sqlite3"
    with Sandbox() as sandbox, sandbox.serve() as base_url, SQLiteStore(path) as store:
        sandbox.set_webhook(WebhookReceiver(store))
        monkeypatch.setenv("SMARTPOS_API_KEY", Sandbox.API_KEY)
        monkeypatch.setenv("SMARTPOS_BASE_URL", base_url)
        monkeypatch.setenv("SMARTPOS_INBOX", str(path))
        monkeypatch.delenv("SMARTPOS_LANG", raising=False)
        _messages.reset()
        world = World(sandbox, base_url, path, store)
        yield world
        world.client.close()


def _today() -> str:
    return dt.date.today().isoformat()


# --- list and show --------------------------------------------------------------------------


def test_list_shows_each_sale_and_what_needs_a_human(world: World) -> None:
    """``sales`` lists both sales oldest first; the given-up one names its pendência, and
    ``--attention`` lists it alone; ``--state`` filters."""
    world.given_up()
    world.charge("pedido-7", 3000, "debito", total_centavos=9000)

    listed = invoke("sales")
    attention = invoke("sales", "--attention", "--json")
    open_ = invoke("sales", "list", "--state", "open", "--json")

    assert (0, 0, 0) == (listed.returncode, attention.returncode, open_.returncode)
    lines = listed.stdout.splitlines()
    assert ["paid", "open"] == [line.split()[0] for line in lines if line[:1].isalpha()][:2]
    assert "mesa-12  R$ 50,00/R$ 50,00" in lines[0]
    assert "pendencias 1: late_approval" in lines[1]
    assert "pedido-7  R$ 30,00/R$ 90,00" in lines[2]
    assert "smartpos sales show SALE" in listed.stdout
    assert [SALE] == [s["sale_id"] for s in json.loads(attention.stdout)]
    assert ["pedido-7"] == [s["sale_id"] for s in json.loads(open_.stdout)]


def test_show_json_has_attempts_approvals_pendencias_and_masks_documents(world: World) -> None:
    """``sales show --json``: each attempt with its amount, terminal, method and abandon; the
    counted approval; the late approval as a pendência; no CPF anywhere, only its mask."""
    late = world.given_up()

    shown = invoke("sales", "show", SALE, "--json")

    assert 0 == shown.returncode, shown
    sale = json.loads(shown.stdout)
    assert ("paid", 5000, 5000, 0, True) == (
        sale["state"],
        sale["total_centavos"],
        sale["approved_centavos"],
        sale["remaining_centavos"],
        sale["attention"],
    )
    attempts = [
        (
            a["state"],
            a["event"]["tipo"],
            a["valor_centavos"],
            a["smartpos_id"],
            a["forma_pagamento"],
        )
        for a in sale["attempts"]
    ]
    assert [
        ("final", "pagamento.recusado", 5000, Sandbox.SMARTPOS_ID, "credito"),
        ("final", "pagamento.aprovado", 5000, Sandbox.SMARTPOS_ID, "credito"),
        ("final", "pagamento.aprovado", 5000, Sandbox.SMARTPOS_ID, "pix"),
    ] == attempts
    abandoned = sale["attempts"][1]["abandoned"]
    assert ("cliente pagou em dinheiro", "caixa 1") == (abandoned["motivo"], abandoned["operador"])
    assert dt.datetime.fromisoformat(abandoned["at"]).tzinfo is not None
    assert [None, None] == [sale["attempts"][i]["abandoned"] for i in (0, 2)]
    [approval] = sale["approvals"]
    assert (5000, "pix", MASKED) == (
        approval["valor_centavos"],
        approval["forma_pagamento"],
        approval["documento_cliente"],
    )
    [pendencia] = sale["pendencias"]
    assert ("late_approval", late, "pagamento.aprovado", MASKED) == (
        pendencia["reason"],
        pendencia["referencia"],
        pendencia["event"]["tipo"],
        pendencia["documento_cliente"],
    )
    assert [] == sale["compensations"]
    assert Sandbox.DOCUMENTO not in shown.stdout


def test_show_text_says_who_gave_up_why_and_what_to_do(world: World) -> None:
    """The text names the abandon (who, why), the approval with its document masked, the
    pendência and the command that settles it."""
    late = world.given_up()

    shown = invoke("sales", "show", SALE)

    assert 0 == shown.returncode, shown
    assert shown.stdout.startswith("sale mesa-12  paid\n")
    assert "abandoned by caixa 1 at " in shown.stdout
    assert ": cliente pagou em dinheiro" in shown.stdout
    assert "approvals (1)" in shown.stdout
    assert f"documento {MASKED}" in shown.stdout
    assert f"late_approval  referencia {late}  since " in shown.stdout
    assert "smartpos sales compensate mesa-12 refunds it" in shown.stdout
    assert Sandbox.DOCUMENTO not in shown.stdout


def test_an_unknown_sale_is_exit_1_with_the_way_to_list_them(world: World) -> None:
    """``show`` of a sale the store does not know: exit 1, and the hint lists them."""
    shown = invoke("sales", "show", "nenhuma")

    assert 1 == shown.returncode
    assert shown.stderr.startswith(f"error: no sale 'nenhuma' in {world.path}")
    assert "smartpos sales list" in shown.stderr


def test_an_empty_store_lists_no_sale(world: World) -> None:
    """No sale journaled yet: each listing says so, exit 0."""
    assert f"no sale in {world.path}" == invoke("sales").stdout.strip()
    assert "no sale needs attention" in invoke("sales", "--attention").stdout
    assert "no sale in state paid" in invoke("sales", "--state", "paid").stdout
    assert [] == json.loads(invoke("sales", "--json").stdout)


# --- abandon --------------------------------------------------------------------------------


def test_abandon_needs_no_api_key_and_frees_the_sale(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``abandon`` writes the store only: without any service setting it gives up the open
    attempt (who, why), the sale is open again and takes a new charge at once."""
    slow = world.slow(SALE)
    monkeypatch.delenv("SMARTPOS_API_KEY")
    monkeypatch.delenv("SMARTPOS_BASE_URL")

    given_up = invoke("sales", "abandon", SALE, "--motivo", "cartão recusado", "--operador", "Ana")
    again = invoke("sales", "abandon", SALE, "--motivo", "de novo", "--json")
    sale = world.store.sale(SALE)

    assert (0, 0) == (given_up.returncode, again.returncode), (given_up, again)
    assert f"abandoned referencia {slow}, nothing sent: the sale is open again" in given_up.stdout
    assert "smartpos sales compensate mesa-12 refunds it" in given_up.stdout
    assert [] == json.loads(again.stdout)["abandoned"]
    assert sale is not None
    assert "open" == sale.state
    [attempt] = sale.attempts
    assert attempt.abandoned is not None
    assert ("cartão recusado", "Ana") == (attempt.abandoned.motivo, attempt.abandoned.operador)
    assert 1 == len(world.sandbox.payments)  # nothing sent
    world.charge(SALE, 5000, "pix")  # the sale is free: no SaleInProgressError


def test_abandon_says_when_there_is_nothing_to_give_up(world: World) -> None:
    """A paid sale has no open attempt: nothing recorded, exit 0."""
    world.charge(SALE, 5000, "pix")

    result = invoke("sales", "abandon", SALE, "--motivo", "engano")

    assert 0 == result.returncode, result
    assert "sale mesa-12 has no open attempt: nothing recorded (it is paid)" in result.stdout


@pytest.mark.parametrize(
    ("args", "status", "said"),
    [
        (["--motivo", ""], 1, "error: --motivo is not valid"),
        (["--motivo", "x" * 201], 1, "error: --motivo is not valid"),
        (["--motivo", "ok", "--operador", " "], 1, "error: --operador is not valid"),
        ([], 2, "the following arguments are required: --motivo"),
    ],
)
def test_abandon_checks_its_arguments_as_the_client_does(
    world: World, args: list[str], status: int, said: str
) -> None:
    """``client.abandon``'s own checks, named by the command's options; nothing recorded."""
    world.slow(SALE)

    result = invoke("sales", "abandon", SALE, *args)
    sale = world.store.sale(SALE)

    assert status == result.returncode, result
    assert said in result.stderr
    assert sale is not None
    assert "in_progress" == sale.state


def test_abandon_of_an_unknown_sale_is_exit_1(world: World) -> None:
    """A sale the store does not know: exit 1, nothing created."""
    result = invoke("sales", "abandon", "nenhuma", "--motivo", "x", "--json")

    assert 1 == result.returncode
    assert "no sale 'nenhuma'" in json.loads(result.stderr)["error"]["message"]
    assert world.store.sale("nenhuma") is None


# --- compensate -----------------------------------------------------------------------------


def test_compensate_refunds_each_late_approval_once(world: World) -> None:
    """Run twice: one refund of the late approval under its deterministic referencia; the
    sale has no pendência left and the till close counts the compensation."""
    late = world.given_up()
    referencia = compensation_referencia(late)

    first = invoke("sales", "compensate", SALE)
    second = invoke("sales", "compensate", SALE, "--json")
    report = invoke("sales", "report", "--json")

    assert (0, 0, 0) == (first.returncode, second.returncode, report.returncode), (
        first,
        second,
        report,
    )
    assert referencia in first.stdout
    assert f"refunds the late approval of referencia {late} (R$ 50,00)" in first.stdout
    assert "1 compensation refund(s) accepted by the service" in first.stdout
    again = json.loads(second.stdout)
    assert [(referencia, "refund", late)] == [
        (o["referencia"], o["kind"], o["compensates"]) for o in again["compensations"]
    ]
    assert [] == again["pendencias"]
    assert 1 == world.refunds(referencia)
    closed = json.loads(report.stdout)
    assert (1, 5000, [], False) == (
        closed["totals"]["compensated_count"],
        closed["totals"]["compensated_centavos"],
        closed["pendencias"],
        closed["attention"],
    )


def test_compensate_with_nothing_late_sends_nothing(world: World) -> None:
    """A sale without a late approval: said so, exit 0, no refund."""
    world.charge(SALE, 5000, "pix")

    result = invoke("sales", "compensate", SALE)

    assert 0 == result.returncode, result
    assert "sale mesa-12 has no late approval to compensate: nothing sent" in result.stdout
    assert [] == world.sandbox.refunds


def test_compensate_needs_the_service_settings(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without an API key nothing is sent: exit 1, and the hint names the settings."""
    world.given_up()
    monkeypatch.delenv("SMARTPOS_API_KEY")

    result = invoke("sales", "compensate", SALE)

    assert 1 == result.returncode
    assert "SMARTPOS_API_KEY" in result.stderr
    assert [] == world.sandbox.refunds


def test_compensate_of_an_unknown_sale_is_exit_1(world: World) -> None:
    """A sale the store does not know: exit 1, nothing sent."""
    result = invoke("sales", "compensate", "nenhuma")

    assert 1 == result.returncode
    assert result.stderr.startswith("error: no sale 'nenhuma'")
    assert [] == world.sandbox.refunds


def test_a_compensation_whose_answer_is_lost_is_exit_3_and_never_sent_again(
    world: World,
) -> None:
    """The refund's answer is lost: exit 3 with the reconcile to run; compensate again sends
    nothing (it is journaled) and still says 3; the late approval stays a pendência, with its
    compensation, and the till close says to reconcile it, not to refund by hand."""
    late = world.given_up()
    referencia = compensation_referencia(late)
    world.sandbox.fail_next("refunds", DropConnection())

    lost = invoke("sales", "compensate", SALE, "--max-retries", "0")
    again = invoke("sales", "compensate", SALE, "--max-retries", "0")
    report = invoke("sales", "report", "--json")
    text = invoke("sales", "report")

    assert (3, 3, 4, 4) == (
        lost.returncode,
        again.returncode,
        report.returncode,
        text.returncode,
    ), (lost, again, report)
    assert f"the outcome of compensation refund(s) {referencia} is unknown" in lost.stderr
    assert f"smartpos operations reconcile {referencia}" in lost.stderr
    assert "do NOT refund by hand" in lost.stderr
    assert 1 == world.refunds(referencia)
    closed = json.loads(report.stdout)
    assert [("late_approval", late, {"referencia": referencia, "state": "unknown"})] == [
        (p["reason"], p["referencia"], p["compensation"]) for p in closed["pendencias"]
    ]
    assert 0 == closed["totals"]["compensated_count"]
    assert f"compensation {referencia} unknown" in text.stdout
    assert f"a compensation whose outcome is unknown ({referencia}): never refund" in text.stdout
    assert "smartpos sales compensate SALE refunds it" not in text.stdout


def test_a_compensation_the_service_refused_is_exit_1_and_sent_again_once_fixed(
    world: World,
) -> None:
    """The service refuses the refund (a wrong key: HTTP 401): exit 1, the late approval stays
    a pendência and the till close needs a human; with the right key compensate sends it again
    under the same referencia: one refund."""
    late = world.given_up()
    referencia = compensation_referencia(late)

    refused = invoke("sales", "compensate", SALE, "--api-key", "sk_test_wrong")
    report = invoke("sales", "report", "--json")
    fixed = invoke("sales", "compensate", SALE)

    assert (1, 4, 0) == (refused.returncode, report.returncode, fixed.returncode), (
        refused,
        report,
        fixed,
    )
    assert "rejected  refund" in refused.stdout
    assert "the service refused compensation refund(s)" in refused.stderr
    assert "run smartpos sales compensate mesa-12 again" in refused.stderr
    assert [("late_approval", late, {"referencia": referencia, "state": "rejected"})] == [
        (p["reason"], p["referencia"], p["compensation"])
        for p in json.loads(report.stdout)["pendencias"]
    ]
    assert f"accepted  refund     {referencia}" in fixed.stdout
    assert 1 == world.refunds(referencia)


# --- report ---------------------------------------------------------------------------------


def test_report_sums_the_day_per_terminal_and_method_and_exits_4_on_pendencias(
    world: World,
) -> None:
    """The till close: approvals counted (count and sum), the refusal, the late approval as an
    open pendência (masked document), per terminal and per formaPagamento; exit 4."""
    late = world.given_up()
    world.charge("pedido-7", 3000, "debito", total_centavos=9000)

    report = invoke("sales", "report", "--date", _today(), "--json")

    assert 4 == report.returncode, report
    closed = json.loads(report.stdout)
    assert (_today(), str(world.path.resolve()), True) == (
        closed["date"],
        closed["store"],
        closed["attention"],
    )
    assert {"count": 2, "open": 1, "in_progress": 0, "paid": 1} == {
        k: closed["sales"][k] for k in ("count", "open", "in_progress", "paid")
    }
    assert (14000, 6000) == (
        closed["sales"]["total_centavos"],
        closed["sales"]["remaining_centavos"],
    )
    tally = ("approved_count", "approved_centavos", "refused_count", "pendencias")
    assert [(Sandbox.SMARTPOS_ID, 2, 8000, 1, 1)] == [
        (row["smartpos_id"], *(row[k] for k in tally)) for row in closed["by_terminal"]
    ]
    assert [
        ("credito", 0, 0, 1, 1),
        ("debito", 1, 3000, 0, 0),
        ("pix", 1, 5000, 0, 0),
    ] == [(row["forma_pagamento"], *(row[k] for k in tally)) for row in closed["by_forma"]]
    [pendencia] = closed["pendencias"]
    assert (SALE, "late_approval", late, "credito", 5000, MASKED) == (
        pendencia["sale_id"],
        pendencia["reason"],
        pendencia["referencia"],
        pendencia["forma_pagamento"],
        pendencia["valor_centavos"],
        pendencia["documento_cliente"],
    )
    assert Sandbox.DOCUMENTO not in report.stdout


def test_report_text_says_plainly_that_pendencias_remain(world: World) -> None:
    """Text: the day's bounds with their offset, the tables, and the pendências in capitals."""
    late = world.given_up()

    report = invoke("sales", "report")

    assert 4 == report.returncode, report
    first = report.stdout.splitlines()[0]
    assert first.startswith(f"till close {_today()}: sales created from {_today()}T00:00:00")
    assert "PENDENCIAS REMAIN: 1; a human decides each one before the till closes" in (
        report.stdout
    )
    assert f"mesa-12  late_approval  referencia {late}" in report.stdout
    assert MASKED in report.stdout
    assert "smartpos sales compensate SALE refunds it" in report.stdout
    assert Sandbox.DOCUMENTO not in report.stdout


def test_report_of_a_day_without_sales_is_clean(world: World) -> None:
    """Another day: no sale, no pendência, exit 0."""
    world.given_up()

    report = invoke("sales", "report", "--date", "2001-01-01")

    assert 0 == report.returncode, report
    assert "no sale was created on 2001-01-01" in report.stdout
    assert "no pendencia: the till can close" in report.stdout
    assert "earlier days" not in report.stdout


def test_report_names_earlier_sales_that_still_need_a_human(world: World) -> None:
    """The next day's close has no sale of its own, so exit 0, but it names yesterday's sale
    whose late approval is still owed."""
    world.given_up()
    tomorrow = (dt.date.today() + dt.timedelta(days=1)).isoformat()

    text = invoke("sales", "report", "--date", tomorrow)
    data = invoke("sales", "report", "--date", tomorrow, "--json")

    assert (0, 0) == (text.returncode, data.returncode), (text, data)
    assert "1 sale(s) of earlier days still have pendencias, not counted here: mesa-12" in (
        text.stdout
    )
    assert ([SALE], [], False) == (
        json.loads(data.stdout)["earlier_attention"],
        json.loads(data.stdout)["pendencias"],
        json.loads(data.stdout)["attention"],
    )


@pytest.mark.parametrize("text", ["2026-13-01", "26-11-2026", "20261126", "today"])
def test_report_refuses_a_date_that_is_not_yyyy_mm_dd(text: str) -> None:
    """``--date`` takes ``YYYY-MM-DD`` only: anything else is a usage error."""
    result = invoke("sales", "report", "--date", text)

    assert 2 == result.returncode
    assert f"expected a day as YYYY-MM-DD, not {text!r}" in result.stderr


def test_the_day_is_the_local_one(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """The day is the host's: in São Paulo it runs from 00:00 -03:00, the report of the sale's
    local day holds it and the next local day's does not."""
    world.charge(SALE, 5000, "pix")
    sale = world.store.sale(SALE)
    assert sale is not None
    monkeypatch.setenv("TZ", "America/Sao_Paulo")
    time.tzset()
    try:
        local_day = sale.created_at.astimezone().date()
        report = invoke("sales", "report", "--date", local_day.isoformat(), "--json")
        other = local_day + dt.timedelta(days=1)
        next_day = invoke("sales", "report", "--date", other.isoformat(), "--json")
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()

    closed = json.loads(report.stdout)
    assert f"{local_day.isoformat()}T00:00:00-03:00" == closed["from"]
    assert 1 == closed["sales"]["count"]
    assert 0 == json.loads(next_day.stdout)["sales"]["count"]


def test_till_close_without_sales_is_empty_and_clean() -> None:
    """The pure sum of no sale: zero everywhere, nothing needs a human."""
    start = dt.datetime(2026, 11, 26, tzinfo=dt.timezone.utc)
    report = till_close([], day=start.date(), start=start, end=start + dt.timedelta(days=1))

    assert ([], [], [], False) == (
        report["by_terminal"],
        report["by_forma"],
        report["pendencias"],
        report["attention"],
    )
    assert {0} == set(report["totals"].values())


def test_sales_created_pages_through_many_sales(world: World) -> None:
    """More sales than a page: every one of the day is found, in order."""
    from smartpos.cli import _sales

    for number in range(5):
        world.charge(f"pedido-{number}", 100, "pix")
    start = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)
    end = start + dt.timedelta(hours=2)
    saved = _sales._PAGE
    _sales._PAGE = 2
    try:
        found = sales_created(world.store, start, end)
    finally:
        _sales._PAGE = saved

    assert [f"pedido-{n}" for n in range(5)] == [s.sale_id for s in found]


def test_the_state_choices_are_the_sdks() -> None:
    """``--state`` offers exactly the states a sale has (written out for a fast parser)."""
    assert tuple(SDK_SALE_STATES) == SALE_STATES


def test_the_till_close_speaks_portuguese(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under SMARTPOS_LANG=pt_BR the report and a refusal are Portuguese; the JSON keys and the
    identifiers stay."""
    world.given_up()
    monkeypatch.setenv("SMARTPOS_LANG", "pt_BR")
    _messages.reset()
    try:
        report = invoke("sales", "report")
        missing = invoke("sales", "show", "nenhuma")
    finally:
        monkeypatch.delenv("SMARTPOS_LANG")
        _messages.reset()

    assert (4, 1) == (report.returncode, missing.returncode)
    assert report.stdout.startswith(f"fechamento de caixa {_today()}: vendas criadas de ")
    assert "RESTAM PENDÊNCIAS: 1; uma pessoa decide cada uma antes de fechar o caixa" in (
        report.stdout
    )
    assert "smartpos sales compensate SALE o estorna" in report.stdout
    assert missing.stderr.startswith("erro: nenhuma venda 'nenhuma' em ")
    assert "o que fazer: liste-as com 'smartpos sales list'" in missing.stderr
