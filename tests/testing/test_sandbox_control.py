"""Every switch of the sandbox, tested once and run twice: in Python, and over the control API.

The ``rig`` fixture gives a ``control`` that is either the :class:`Sandbox` itself or a
:class:`RemoteSandbox` speaking HTTP to the same sandbox served on 127.0.0.1, and a
``smartpos.Client`` bound to that sandbox. The tests only call ``rig.control``'s methods, which
have the same names and arguments on both sides, so each test proves the Python switch and its
HTTP twin do the same thing. The hard cases of the outcomes issue (silence, delay, duplicate,
out of order, contradiction, a lost answer) are here.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sandbox_receiver import receiving

import smartpos
from smartpos import webhooks
from smartpos.testing import (
    Approve,
    Contradict,
    Delay,
    Duplicate,
    LogEntry,
    NoAnswer,
    OutOfOrder,
    PrintFail,
    QRCodeExpiredError,
    RecordedRequest,
    Refuse,
    RemoteSandbox,
    Sandbox,
    SandboxError,
    _service,
)
from smartpos.testing._control import PREFIX, ROUTES, twins

NEW_CPF = "11144477735"
#: Sandbox members that are no switch: the HTTP side of the sandbox itself, its life cycle.
NOT_REMOTE = {"transport", "serve", "handle", "close"}


@dataclass
class Rig:
    """A sandbox, the switch board of a test (Python or HTTP), and a client of the service."""

    sandbox: Sandbox
    control: Any
    client: smartpos.Client
    base_url: str

    def pay(self, valor: int = 1990, **extra: Any) -> str:
        """Charge on the default terminal; return the referencia."""
        acceptance = self.client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            smartpos_id=extra.pop("smartpos_id", Sandbox.SMARTPOS_ID),
            valor_centavos=valor,
            **extra,
        )
        return acceptance.referencia

    def tipos(self) -> list[str]:
        """The tipos of every event delivered, read through the control."""
        return [e["tipo"] for e in self.control.events]


@pytest.fixture(params=["python", "http"])
def rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    """The same sandbox driven through Python methods or through the control API."""
    with Sandbox(clock=lambda: 1_700_000_000.0) as sandbox, sandbox.serve() as base_url:
        if request.param == "python":
            control: Any = sandbox
            client = smartpos.Client(
                api_key=Sandbox.API_KEY,
                base_url="http://sandbox.invalid",
                transport=sandbox.transport(),
                max_retries=0,
            )
        else:
            control = RemoteSandbox(base_url)
            client = smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, max_retries=0)
        with client:
            yield Rig(sandbox, control, client, base_url)
        if isinstance(control, RemoteSandbox):
            control.close()


# ------------------------------------------------------------------------ the twins are complete


def _members(cls: type) -> set[str]:
    return {name for name in vars(cls) if not name.startswith("_") and name.islower()}


def test_every_python_switch_has_an_http_twin() -> None:
    """Each public member of Sandbox is served by a route, and RemoteSandbox has it too."""
    switches = _members(Sandbox) - NOT_REMOTE
    assert set() == switches - set(twins())
    assert set() == set(twins()) - switches
    assert set() == switches - _members(RemoteSandbox)


def test_the_twins_take_the_same_arguments() -> None:
    """Sandbox and RemoteSandbox methods have the same parameters, kinds and defaults."""
    for name in _members(Sandbox) - NOT_REMOTE:
        python, remote = getattr(Sandbox, name), getattr(RemoteSandbox, name)
        if isinstance(python, property):
            assert isinstance(remote, property), name
            continue

        def shape(function: Any) -> list[tuple[str, Any, Any]]:
            parameters = inspect.signature(function).parameters.values()
            return [(p.name, p.kind, p.default) for p in parameters]

        assert shape(python) == shape(remote), name


def test_every_route_is_versioned_and_listed(rig: Rig) -> None:
    """The index of the control API lists every route under /_sandbox/v1."""
    with httpx.Client(base_url=rig.base_url, trust_env=False) as http:
        index = http.get(PREFIX).json()
    assert 1 == index["version"]
    assert [f"{r.method} {PREFIX}{r.path}" for r in ROUTES] == index["routes"]


# ------------------------------------------------------------------------------------ the world


def test_world_building(rig: Rig) -> None:
    """Customers, terminals and links made through the control are what the service serves."""
    control = rig.control
    customer = control.add_customer("111.444.777-35")
    terminal = control.add_terminal("SP-NOVO", numero_serie_terminal="SN-9", adquirente="CIELO")
    assert (NEW_CPF, "sandbox") == (customer.documento_cliente, customer.partner)
    assert (None, "CIELO") == (terminal.documento_cliente, terminal.adquirente)
    control.link_terminal("SP-NOVO", NEW_CPF)
    listed = rig.client.terminals.list(documento_cliente=NEW_CPF)
    assert ["SP-NOVO"] == [t.smartpos_id for t in listed]
    assert ["SP-NOVO"] == [t.smartpos_id for t in control.terminals(NEW_CPF)]
    control.link_terminal("SP-NOVO", None)
    assert [] == control.terminals(NEW_CPF)
    assert {Sandbox.DOCUMENTO, NEW_CPF} == {c.documento_cliente for c in control.customers}


def test_partners_keys_and_webhook(rig: Rig) -> None:
    """A new partner, a rotated key (the old one answers 401), a webhook switched off."""
    control = rig.control
    partner = control.add_partner("key-loja", name="loja", webhook=False)
    assert (False, {"key-loja": "active"}) == (partner.webhook_configured, dict(partner.api_keys))
    control.rotate_key(Sandbox.API_KEY, "sandbox-key-2")
    with pytest.raises(smartpos.ApiKeyInvalidaError):
        rig.client.terminals.list(documento_cliente=Sandbox.DOCUMENTO)
    control.set_key_status("sandbox-key-2", "inactive")
    control.set_key_status(Sandbox.API_KEY, "active")
    control.set_webhook(False)
    with pytest.raises(smartpos.WebhookNaoConfiguradoError):
        rig.pay()
    names = {p.name: p for p in control.partners}
    assert {"sandbox", "loja"} == set(names)
    assert "inactive" == names["sandbox"].api_keys["sandbox-key-2"]


def test_the_clock(rig: Rig) -> None:
    """now() and advance() move the same clock (a QR code expires without sleeping)."""
    before = rig.control.now()
    qr = rig.client.qrcodes.create(documento_cliente=Sandbox.DOCUMENTO)
    rig.control.advance(301)
    assert 301 == rig.control.now() - before
    with pytest.raises(QRCodeExpiredError):
        rig.control.scan(qr.qr_code, "SP-LATE")


# ------------------------------------------------------------------------- scripted outcomes


def test_outcomes_in_words_and_objects_for_the_next_n_operations(rig: Rig) -> None:
    """'recusar' twice, then an object with its message, then the standing approval."""
    rig.control.script_payments("recusar", times=2)
    rig.control.script_payments(Refuse(mensagem_operador="SALDO INSUFICIENTE"))
    for _ in range(4):
        rig.pay()
    events = rig.control.events
    assert ["pagamento.recusado"] * 3 + ["pagamento.aprovado"] == [e["tipo"] for e in events]
    assert "SALDO INSUFICIENTE" == events[2]["dados"]["resultadoSmartPOS"]["mensagemOperador"]


def test_accented_and_spaced_words_are_the_same_outcome(rig: Rig) -> None:
    """'silêncio' is 'silencio'; 'Fora de ordem' is 'fora-de-ordem'."""
    rig.control.script_payments("silêncio", "Fora de ordem recusar")
    first, second, third = rig.pay(), rig.pay(), rig.pay()
    assert [(third, "pagamento.aprovado"), (second, "pagamento.recusado")] == [
        (e["dados"]["referencia"], e["tipo"]) for e in rig.control.events
    ]
    assert "processando" == rig.control.payment(first).status


def test_outcomes_per_terminal_and_standing(rig: Rig) -> None:
    """A terminal's script, a terminal's standing outcome and the sandbox-wide one."""
    control = rig.control
    control.add_terminal("SP-2", documento_cliente=Sandbox.DOCUMENTO)
    control.script_payments("recusar", smartpos_id="SP-2")
    control.set_outcomes(payments="silencio", smartpos_id="SP-2")
    control.set_outcomes(prints=PrintFail(mensagem_operador="SEM TINTA"))
    rig.pay(smartpos_id="SP-2")
    rig.pay(smartpos_id="SP-2")
    rig.pay()
    rig.client.print_jobs.create(
        documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, conteudo="x"
    )
    assert ["pagamento.recusado", "pagamento.aprovado", "impressao.falhou"] == rig.tipos()
    assert ["recusado", "processando", "aprovado"] == [p.status for p in control.payments]
    assert "SEM TINTA" == control.events[-1]["dados"]["resultadoSmartPOS"]["mensagemOperador"]


def test_print_outcomes(rig: Rig) -> None:
    """'falhar', 'silencio' and 'concluir' for print jobs; a payment word is refused."""
    rig.control.script_prints("falhar", "silencio", "concluir")
    for _ in range(3):
        rig.client.print_jobs.create(
            documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, conteudo="x"
        )
    assert ["impressao.falhou", "impressao.concluida"] == rig.tipos()
    assert ["falhou", "processando", "concluida"] == [j.status for j in rig.control.print_jobs]
    with pytest.raises((ValueError, TypeError)):
        rig.control.script_prints("aprovar")


def test_silence_the_customer_walked_away(rig: Rig) -> None:
    """silencio: accepted, and no event ever (not even after a day)."""
    rig.control.script_payments(NoAnswer())
    referencia = rig.pay()
    rig.control.advance(86_400)
    assert ([], "processando") == (rig.control.events, rig.control.payment(referencia).status)


def test_a_delayed_event_comes_when_its_time_has_come(rig: Rig) -> None:
    """atraso 30: nothing at first; advance(29) still nothing; advance(1) delivers it."""
    rig.control.script_payments("atraso 30 recusar")
    referencia = rig.pay()
    assert [] == rig.control.events
    rig.control.advance(29)
    assert [] == rig.control.events
    rig.control.advance(1)
    [event] = rig.control.events
    assert ("pagamento.recusado", referencia) == (event["tipo"], event["dados"]["referencia"])


def test_a_delay_passes_in_real_time_too() -> None:
    """On the real clock a short delay delivers by itself (the scheduler thread)."""
    with Sandbox() as sandbox, sandbox.serve() as base_url, RemoteSandbox(base_url) as remote:
        remote.script_payments(Delay(0.2))
        with smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url) as client:
            client.payments.create(
                documento_cliente=Sandbox.DOCUMENTO,
                smartpos_id=Sandbox.SMARTPOS_ID,
                valor_centavos=100,
            )
        [event] = remote.wait_for_events(1, timeout=10)
    assert "pagamento.aprovado" == event["tipo"]


def test_a_duplicated_event_has_the_same_id(rig: Rig) -> None:
    """duplicar: the same envelope delivered twice; an inbox stores it once."""
    store = webhooks.MemoryStore()
    rig.sandbox.set_webhook(webhooks.WebhookReceiver(store))
    rig.control.script_payments(Duplicate(times=3))
    rig.pay()
    events = rig.control.events
    assert (3, 1) == (len(events), len({e["id"] for e in events}))
    assert store.get(events[0]["id"]) is not None


def test_an_event_out_of_order_comes_after_the_next_one(rig: Rig) -> None:
    """fora-de-ordem: the first sale's event arrives after the second sale's."""
    rig.control.script_payments(OutOfOrder())
    first, second = rig.pay(), rig.pay()
    assert [second, first] == [e["dados"]["referencia"] for e in rig.control.events]


def test_an_event_out_of_order_with_nothing_after_it_waits_for_release(rig: Rig) -> None:
    """Held back until another event, or until release_events()."""
    rig.control.script_payments("fora-de-ordem")
    rig.pay()
    assert [] == rig.control.events
    assert [] == rig.control.release_events()
    assert ["pagamento.aprovado"] == rig.tipos()


def test_a_contradiction_keeps_the_first_outcome(rig: Rig) -> None:
    """contradicao: approval then refusal for one referencia; the approval can be refunded."""
    rig.control.script_payments(Contradict(Approve()))
    referencia = rig.pay()
    first, second = rig.control.events
    assert ["pagamento.aprovado", "pagamento.recusado"] == [first["tipo"], second["tipo"]]
    assert first["id"] != second["id"]
    assert {referencia} == {first["dados"]["referencia"], second["dados"]["referencia"]}
    assert "aprovado" == rig.control.payment(referencia).status
    approved = webhooks.parse_event(first)
    assert isinstance(approved, webhooks.PagamentoAprovado)
    assert "processando" == rig.client.refunds.create_for(approved).raw["status"]


def test_wrappers_nest(rig: Rig) -> None:
    """atraso 5 duplicar recusar: two refusals with one id, five seconds late."""
    rig.control.script_payments("atraso 5 duplicar recusar")
    rig.pay()
    assert [] == rig.control.events
    rig.control.advance(5)
    assert ["pagamento.recusado"] * 2 == rig.tipos()


def test_bad_outcomes_are_refused(rig: Rig) -> None:
    """An unknown word, a missing number, silence contradicted: ValueError, nothing queued."""
    for bad in ("talvez", "atraso", "contradicao silencio", "recusar aprovar"):
        with pytest.raises(ValueError):
            rig.control.script_payments(bad)
    with pytest.raises(ValueError):
        rig.control.script_payments("recusar", times=0)
    rig.pay()
    assert ["pagamento.aprovado"] == rig.tipos()


# ----------------------------------------------------------------------------------- faults


def test_a_dropped_answer_after_acceptance(rig: Rig) -> None:
    """drop: the payment happened once, its event came, the caller only knows 'unknown'."""
    rig.control.fail_next("payments", "drop")
    with pytest.raises(smartpos.OutcomeUnknownError) as info:
        rig.pay()
    [payment] = rig.control.payments
    assert payment.referencia == info.value.referencia
    assert ["pagamento.aprovado"] == rig.tipos()


@pytest.mark.parametrize(
    ("fault", "error", "accepted"),
    [
        ("500", smartpos.OutcomeUnknownError, 0),
        ("500 after-accept", smartpos.OutcomeUnknownError, 1),
        ("502", smartpos.OutcomeUnknownError, 0),
        ("429 7", smartpos.RateLimitError, 0),
        # Over a real server a refused connection is a socket closed unanswered (a listening
        # server cannot refuse one connection), which the client cannot tell from a drop.
        ("refuse", (smartpos.TransportError, smartpos.OutcomeUnknownError), 0),
        ("drop before-accept", (smartpos.TransportError, smartpos.OutcomeUnknownError), 0),
        ("drop after-accept", smartpos.OutcomeUnknownError, 1),
    ],
)
def test_faults_in_words(
    rig: Rig, fault: str, error: type[Exception] | tuple[type[Exception], ...], accepted: int
) -> None:
    """Each fault word gives the client the failure it names; before/after acceptance holds."""
    rig.control.fail_next("payments", fault)
    with pytest.raises(error) as info:
        rig.pay()
    assert accepted == len(rig.control.payments)
    if fault.startswith("429"):
        assert "7" == info.value.response.headers["retry-after"]  # type: ignore[attr-defined]


def test_latency_times_and_clear(rig: Rig) -> None:
    """A fault applies to its endpoint the given number of times; clear_faults forgets it."""
    rig.control.fail_next("print-jobs", "latency 0.01")
    rig.control.fail_next("*", "502", times=2)
    rig.client.print_jobs.create(
        documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, conteudo="x"
    )
    with pytest.raises(smartpos.InternalServerError):
        rig.client.terminals.list(documento_cliente=Sandbox.DOCUMENTO)
    rig.control.clear_faults()
    assert rig.client.terminals.list(documento_cliente=Sandbox.DOCUMENTO)
    faults = [r.fault for r in rig.control.requests if not r.path.startswith("/_sandbox/")]
    assert ["Latency", "BadGateway", None] == faults


def test_webhook_faults(rig: Rig) -> None:
    """fail_webhook and slow_webhook: failed attempts first, then the delivery that works."""
    rig.control.fail_webhook(times=2, status_code=503)
    rig.control.slow_webhook()
    rig.pay()
    attempts = [(d.attempt, d.ok, d.status_code) for d in rig.control.deliveries]
    assert [(1, False, 503), (2, False, 503), (3, False, None), (4, True, None)] == attempts


def test_bad_faults_are_refused(rig: Rig) -> None:
    """An unknown endpoint or fault word is a ValueError."""
    with pytest.raises(ValueError):
        rig.control.fail_next("nowhere", "500")
    with pytest.raises(ValueError):
        rig.control.fail_next("payments", "boom")


# ------------------------------------------------------------------- pairing and the operator


def test_scan_the_newest_qr_code(rig: Rig) -> None:
    """scan() without a QR code reads the newest; a new terminal is created and linked."""
    rig.client.qrcodes.create(documento_cliente=Sandbox.DOCUMENTO)
    qr = rig.client.qrcodes.create(documento_cliente=Sandbox.DOCUMENTO)
    event = rig.control.scan(smartpos_id="SP-BALCAO")
    assert ("smartpos.identificado", qr.referencia) == (
        event["tipo"],
        event["dados"]["referencia"],
    )
    assert qr.qr_code == rig.control.qrcodes[-1].qr_code
    assert "SP-BALCAO" in [t.smartpos_id for t in rig.control.terminals(Sandbox.DOCUMENTO)]
    with pytest.raises(SandboxError):
        rig.control.scan("smartpos:qr:v1:nope", "SP-X")


def test_the_operator_queue(rig: Rig) -> None:
    """Manual cards wait in the queue; the operator starts one with a word, cancels another."""
    cards = [
        rig.client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            valor_centavos=500,
            modo_execucao="manual",
            comanda=smartpos.Comanda(label),
        ).referencia
        for label in ("Mesa 1", "Mesa 2")
    ]
    queue = rig.control.manual_queue(Sandbox.DOCUMENTO)
    assert ["Mesa 1", "Mesa 2"] == [c.identificacao for c in queue]
    started = rig.control.operator_start(cards[0], outcome="recusar")
    cancelled = rig.control.operator_cancel(cards[1], mensagem_operador="DESISTIU")
    assert ("pagamento.recusado", "cancelado") == (started["tipo"], cancelled["dados"]["status"])
    assert [] == rig.control.manual_queue()


# ------------------------------------------------------------------------ records and events


def test_records(rig: Rig) -> None:
    """payments, payment, refunds, print_jobs and requests read the same records."""
    referencia = rig.pay(10_000)
    approved = webhooks.parse_event(rig.control.events[-1])
    assert isinstance(approved, webhooks.PagamentoAprovado)
    rig.client.refunds.create_for(approved, valor_centavos=4_000)
    rig.client.print_jobs.create(
        documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, conteudo="Olá"
    )
    payment = rig.control.payment(referencia)
    assert (10_000, 4_000, ("SP-SANDBOX-1",)) == (
        payment.valor_centavos,
        payment.valor_estornado_centavos,
        payment.targets,
    )
    assert [4_000] == [r.valor_centavos for r in rig.control.refunds]
    assert ["Olá".encode()] == [j.conteudo for j in rig.control.print_jobs]
    requests = [r for r in rig.control.requests if not r.path.startswith("/_sandbox/")]
    assert ["/v1/payments", "/v1/refunds", "/v1/print-jobs"] == [r.path for r in requests]
    assert all(isinstance(r, RecordedRequest) for r in requests)
    with pytest.raises(SandboxError):
        rig.control.payment("no-such-payment")


def test_resend_hold_and_release(rig: Rig) -> None:
    """resend delivers the same id again; held events go out newest first on release."""
    rig.pay()
    first = rig.control.events[0]
    rig.control.resend(first["id"])
    assert [first["id"]] * 2 == [e["id"] for e in rig.control.events]
    rig.control.hold_events()
    rig.pay()
    rig.client.print_jobs.create(
        documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, conteudo="x"
    )
    assert ["pagamento.aprovado", "impressao.concluida"] == [
        e["tipo"] for e in rig.control.held_events
    ]
    released = rig.control.release_events(reverse=True)
    assert ["impressao.concluida", "pagamento.aprovado"] == [e["tipo"] for e in released]
    assert rig.tipos()[-2:] == ["impressao.concluida", "pagamento.aprovado"]
    with pytest.raises(SandboxError):
        rig.control.resend("no-such-event")


def test_resend_to_one_url_answers_with_its_delivery(rig: Rig) -> None:
    """resend(id, to=URL) posts the envelope there, once, and records what it answered."""
    rig.pay()
    event_id = rig.control.events[0]["id"]
    with receiving(statuses=[202]) as receiver:
        rig.control.resend(event_id, to=receiver.url)
        assert [event_id] == [e["id"] for e in receiver.events]
    last = rig.control.deliveries[-1]
    assert (event_id, receiver.url, 202, True) == (
        last.event_id,
        last.target,
        last.status_code,
        last.ok,
    )
    with pytest.raises(ValueError):
        rig.control.resend(event_id, to="http://example.com/hooks")


def test_waiting_for_url_deliveries(rig: Rig) -> None:
    """wait_for_events and wait_for_deliveries wait for the delivery thread; a timeout raises."""
    with receiving() as receiver:
        rig.control.set_webhook(receiver.url)
        rig.pay()
        events = rig.control.wait_for_events(1, timeout=10)
        rig.control.wait_for_deliveries(timeout=10)
    assert [events[0]["id"]] == [e["id"] for e in receiver.events]
    with pytest.raises(TimeoutError):
        rig.control.wait_for_events(5, timeout=0.05)


def test_the_log_holds_requests_and_deliveries_in_order(rig: Rig) -> None:
    """log(): the payment request, then its delivery; log(since) only what came after."""
    rig.pay()
    entries = rig.control.log()
    mine = [e for e in entries if not (e.kind == "request" and "/_sandbox/" in e.record.path)]
    assert ["request", "delivery"] == [e.kind for e in mine]
    assert all(isinstance(e, LogEntry) for e in entries)
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    last = entries[-1].seq
    assert [] == rig.control.log(last)
    rig.client.terminals.list(documento_cliente=Sandbox.DOCUMENTO)
    [after] = [e for e in rig.control.log(last) if e.kind == "request"]
    assert "GET" == after.record.method


def test_control_reads_are_not_logged_and_keys_are_masked(rig: Rig) -> None:
    """A tool polling the log does not fill it; a key sent to the control API is masked."""
    rig.control.add_partner("very-secret-key")
    for _ in range(3):
        rig.control.events  # noqa: B018
    paths = [(r.method, r.path) for r in rig.sandbox.requests]
    if isinstance(rig.control, RemoteSandbox):
        assert [("POST", "/_sandbox/v1/partners")] == paths
        assert "very-secret-key" not in repr(rig.sandbox.requests)
    else:
        assert [] == paths


def test_trigger_makes_a_refundable_approval(rig: Rig) -> None:
    """trigger('pagamento.aprovado'): a real payment in the world, which a refund can name."""
    envelope = rig.control.trigger("pagamento.aprovado", valor_centavos=2_500)
    approved = webhooks.parse_event(envelope)
    assert isinstance(approved, webhooks.PagamentoAprovado)
    assert "aprovado" == rig.control.payment(approved.dados.referencia).status
    assert [envelope["id"]] == [e["id"] for e in rig.control.events]
    refund = rig.client.refunds.create_for(approved)
    assert 2_500 == refund.raw["valorCentavos"]


@pytest.mark.parametrize(
    "tipo",
    sorted(set(_service.TRIGGER_TIPOS) - {"pagamento.aprovado"}),  # approved: above
)
def test_trigger_every_kind(rig: Rig, tipo: str) -> None:
    """Every event kind can be triggered, delivered like any other event."""
    envelope = rig.control.trigger(tipo, smartpos_id=Sandbox.SMARTPOS_ID)
    assert [tipo] == rig.tipos()
    assert Sandbox.DOCUMENTO == envelope["dados"]["documentoCliente"]


def test_trigger_to_one_url(rig: Rig) -> None:
    """trigger(to=URL) delivers there only; the partner's webhook gets nothing."""
    with receiving() as receiver:
        envelope = rig.control.trigger("pagamento.recusado", to=receiver.url)
        assert [envelope["id"]] == [e["id"] for e in receiver.events]
    assert receiver.url == rig.control.deliveries[-1].target
    with pytest.raises(SandboxError):
        rig.control.trigger("pagamento.talvez")
    with pytest.raises(SandboxError):
        rig.control.trigger("pagamento.aprovado", smartpos_id="SP-DE-OUTRO")
