"""The three attempts a sale's tests need, scripted every way the sandbox can be scripted.

1. An approval held back until the test releases it (``Hold``, ``segurar aprovar``): the
   approval that comes after the cashier gave up on the attempt.
2. A refusal followed by a contradicting approval (``Contradict(Refuse())``, ``contradicao
   recusar``).
3. An attempt that never gets an event (``NoAnswer()``, ``silencio``).

Each case is scripted with Python objects, with Python words, through `RemoteSandbox` (the
control API on 127.0.0.1, objects sent as the vocabulary's JSON), through the control API's raw
JSON (hand-written, read back over raw HTTP), and with pytest markers; the same checks then run
on what the sandbox did. The command line's route is in ``tests/cli/test_cli_sandbox.py``. How a
held event travels with the other wrappers is at the end.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

from collections.abc import Callable, Iterator
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
    Hold,
    NoAnswer,
    OutOfOrder,
    Refuse,
    RemoteSandbox,
    Sandbox,
    SandboxError,
)
from smartpos.testing._control import PREFIX

# ------------------------------------------------------------------------------ the switches


class RawControl:
    """The control API spoken in raw JSON: what a tool in another language sends and reads."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http

    def _ok(self, response: httpx.Response) -> Any:
        assert 200 == response.status_code, response.text
        return response.json()

    def script_payments(self, outcome: object) -> None:
        body = {"kind": "payment", "outcomes": [outcome]}
        self._ok(self.http.post(f"{PREFIX}/outcomes", json=body))

    @property
    def events(self) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = self._ok(self.http.get(f"{PREFIX}/events"))["events"]
        return events

    @property
    def held_by_referencia(self) -> dict[str, list[dict[str, Any]]]:
        held: dict[str, list[dict[str, Any]]] = self._ok(
            self.http.get(f"{PREFIX}/events/held/by-referencia")
        )["held"]
        return held

    def release(self, referencia: str) -> list[dict[str, Any]]:
        response = self.http.post(f"{PREFIX}/events/held/{referencia}/release")
        if response.status_code == 400 and response.json()["erro"]["codigo"] == "SANDBOX":
            raise SandboxError(response.json()["erro"]["mensagem"])
        events: list[dict[str, Any]] = self._ok(response)["events"]
        return events

    def release_events(self) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = self._ok(self.http.post(f"{PREFIX}/events/release"))[
            "events"
        ]
        return events

    def advance(self, seconds: float) -> None:
        self._ok(self.http.post(f"{PREFIX}/clock/advance", json={"seconds": seconds}))

    def status(self, referencia: str) -> str:
        payment = self._ok(self.http.get(f"{PREFIX}/payments/{referencia}"))["payment"]
        return str(payment["status"])


@dataclass
class Case:
    """One attempt a sale's tests need, in each written form, and the checks of its result."""

    name: str
    python: object
    words: str
    json: object
    check: Callable[[Any, smartpos.Client], None]


def _pay(client: smartpos.Client) -> str:
    return client.payments.create(
        documento_cliente=Sandbox.DOCUMENTO,
        smartpos_id=Sandbox.SMARTPOS_ID,
        valor_centavos=4_990,
    ).referencia


def _status(control: Any, referencia: str) -> str:
    if isinstance(control, RawControl):
        return control.status(referencia)
    return str(control.payment(referencia).status)


def _referencias(events: list[dict[str, Any]]) -> list[str]:
    return [e["dados"]["referencia"] for e in events]


def check_held_approval(control: Any, client: smartpos.Client) -> None:
    """Held until release(referencia), whatever else happens; delivered once; refundable."""
    held, other = _pay(client), _pay(client)  # the second is not scripted: delivered at once
    assert [other] == _referencias(control.events)
    [(referencia, [envelope])] = control.held_by_referencia.items()
    assert (held, "pagamento.aprovado", held) == (
        referencia,
        envelope["tipo"],
        envelope["dados"]["referencia"],
    )
    assert "aprovado" == _status(control, held)  # the terminal did approve
    assert [] == control.release_events()  # the global release leaves it alone...
    control.advance(86_400)  # ...and so does time
    assert [other] == _referencias(control.events)

    released = control.release(held)

    assert [envelope] == released
    assert [other, held] == _referencias(control.events)
    assert envelope == control.events[-1]
    assert {} == control.held_by_referencia
    with pytest.raises(SandboxError, match="is held"):
        control.release(held)
    late = webhooks.parse_event(released[0])
    assert isinstance(late, webhooks.PagamentoAprovado)
    assert 4_990 == client.refunds.create_for(late).raw["valorCentavos"]  # the compensation


def check_contradicted_refusal(control: Any, client: smartpos.Client) -> None:
    """A refusal, then an approval of the same referencia under another id; the refusal counts."""
    referencia = _pay(client)
    refusal, approval = control.events
    assert ["pagamento.recusado", "pagamento.aprovado"] == [refusal["tipo"], approval["tipo"]]
    assert [referencia, referencia] == _referencias([refusal, approval])
    assert refusal["id"] != approval["id"]
    assert approval["dados"]["autorizacao"]["codigo"]
    assert ("recusado", {}) == (_status(control, referencia), control.held_by_referencia)


def check_silence(control: Any, client: smartpos.Client) -> None:
    """Accepted, and no event ever: not a day later, not held, nothing to release."""
    referencia = _pay(client)
    control.advance(86_400)
    assert ([], {}, []) == (control.events, control.held_by_referencia, control.release_events())
    assert "processando" == _status(control, referencia)
    with pytest.raises(SandboxError):
        control.release(referencia)


CASES = [
    Case(
        "held-approval",
        Hold(Approve()),
        "segurar aprovar",
        {"outcome": "segurar", "then": "aprovar"},
        check_held_approval,
    ),
    Case(
        "contradicted-refusal",
        Contradict(Refuse()),
        "contradição recusar",
        {"outcome": "contradicao", "then": {"outcome": "recusar"}},
        check_contradicted_refusal,
    ),
    Case("silence", NoAnswer(), "silêncio", "silencio", check_silence),
]
ROUTES = ["python-object", "python-words", "remote-object", "remote-words", "raw-json"]


@pytest.fixture
def served() -> Iterator[tuple[Sandbox, str]]:
    """A sandbox on a fixed clock, served on 127.0.0.1."""
    with Sandbox(clock=lambda: 1_700_000_000.0) as sandbox, sandbox.serve() as base_url:
        yield sandbox, base_url


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_each_case_by_each_route(case: Case, route: str, served: tuple[Sandbox, str]) -> None:
    """The case scripted through the route does what the case says, seen through that route."""
    sandbox, base_url = served
    with (
        smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, max_retries=0) as client,
        RemoteSandbox(base_url) as remote,
        httpx.Client(base_url=base_url, trust_env=False) as http,
    ):
        control: Any = {"python": sandbox, "remote": remote, "raw": RawControl(http)}[
            route.split("-")[0]
        ]
        given = {"object": case.python, "words": case.words, "json": case.json}[route.split("-")[1]]
        control.script_payments(given)
        case.check(control, client)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case, marks=pytest.mark.smartpos_payments(written), id=f"{case.name}-{form}")
        for case in CASES
        for form, written in (("object", case.python), ("words", case.words))
    ],
)
def test_each_case_by_marker(
    case: Case, smartpos_sandbox: Sandbox, smartpos_client: smartpos.Client
) -> None:
    """@pytest.mark.smartpos_payments("segurar aprovar") (or the object) scripts the case."""
    case.check(smartpos_sandbox, smartpos_client)


def test_the_control_api_says_what_is_held_in_its_own_words(served: tuple[Sandbox, str]) -> None:
    """GET .../events/held/by-referencia answers {"held": {...}}; a release of nothing is 400
    SANDBOX, and a release of a referencia that needs quoting finds it."""
    sandbox, base_url = served
    sandbox.script_payments("segurar")
    with smartpos.Client(
        api_key=Sandbox.API_KEY, base_url="http://sandbox.invalid", transport=sandbox.transport()
    ) as client:
        held = client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            smartpos_id=Sandbox.SMARTPOS_ID,
            valor_centavos=100,
            referencia=smartpos.new_referencia("mesa:7"),
        ).referencia
    with httpx.Client(base_url=base_url + PREFIX, trust_env=False) as http:
        answer = http.get("/events/held/by-referencia")
        refused = http.post("/events/held/nada-retido/release")
        quoted = http.post(f"/events/held/{held.replace(':', '%3A')}/release")
        index = http.get("").json()["routes"]
    assert (200, [held]) == (answer.status_code, list(answer.json()["held"]))
    assert (400, "SANDBOX") == (refused.status_code, refused.json()["erro"]["codigo"])
    assert "'nada-retido'" in refused.json()["erro"]["mensagem"]
    assert (200, [held]) == (quoted.status_code, _referencias(quoted.json()["events"]))
    assert {
        f"GET {PREFIX}/events/held/by-referencia",
        f"POST {PREFIX}/events/held/{{referencia}}/release",
    } <= set(index)


# ----------------------------------------------------------- a held event and the other wrappers


@pytest.fixture(params=["python", "http"])
def control(request: pytest.FixtureRequest, served: tuple[Sandbox, str]) -> Iterator[Any]:
    """The served sandbox's switches, in Python or over the control API."""
    sandbox, base_url = served
    if request.param == "python":
        yield sandbox
    else:
        with RemoteSandbox(base_url) as remote:
            yield remote


@pytest.fixture
def client(served: tuple[Sandbox, str]) -> Iterator[smartpos.Client]:
    """A client of the served sandbox over real HTTP."""
    _, base_url = served
    with smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, max_retries=0) as client:
        yield client


def test_a_standing_hold_keeps_each_attempt_apart(control: Any, client: smartpos.Client) -> None:
    """set_outcomes(payments="segurar"): every attempt held under its own referencia, released
    in any order."""
    control.set_outcomes(payments="segurar")
    first, second = _pay(client), _pay(client)
    assert [first, second] == list(control.held_by_referencia)
    assert [second] == _referencias(control.release(second))
    assert [first] == list(control.held_by_referencia)
    control.release(first)
    assert [second, first] == _referencias(control.events)


def test_a_held_duplicate_is_released_twice_with_one_id(
    control: Any, client: smartpos.Client
) -> None:
    """segurar duplicar: both deliveries held, both released, the same id."""
    control.script_payments(Hold(Duplicate(times=2)))
    referencia = _pay(client)
    assert 2 == len(control.held_by_referencia[referencia])
    released = control.release(referencia)
    assert (2, 1) == (len(released), len({e["id"] for e in released}))
    assert [e["id"] for e in released] == [e["id"] for e in control.events]


def test_a_delay_inside_a_hold_counts_from_the_release(
    control: Any, client: smartpos.Client
) -> None:
    """atraso 30 segurar recusar: nothing after 30 s; released, it comes 30 s after that."""
    control.script_payments("atraso 30 segurar recusar")
    referencia = _pay(client)
    control.advance(30)
    assert ([], [referencia]) == (control.events, list(control.held_by_referencia))
    assert ["pagamento.recusado"] == [e["tipo"] for e in control.release(referencia)]
    assert ([], {}) == (control.events, control.held_by_referencia)
    control.advance(30)
    assert [referencia] == _referencias(control.events)


def test_out_of_order_inside_a_hold_waits_for_the_next_event_after_the_release(
    control: Any, client: smartpos.Client
) -> None:
    """segurar fora-de-ordem: released, it still comes after the next event."""
    control.script_payments(Hold(OutOfOrder()))
    held = _pay(client)
    control.release(held)
    assert [] == control.events
    after = _pay(client)
    assert [after, held] == _referencias(control.events)


def test_a_release_while_every_delivery_is_held_joins_them(
    control: Any, client: smartpos.Client
) -> None:
    """hold_events() holds the released events too, as new deliveries, until release_events()."""
    control.script_payments("segurar")
    referencia = _pay(client)
    control.hold_events()
    control.release(referencia)
    assert ([], [referencia]) == (control.events, _referencias(control.held_events))
    control.release_events()
    assert [referencia] == _referencias(control.events)


def test_a_held_print_job_and_a_held_operator_start(control: Any, client: smartpos.Client) -> None:
    """Print jobs hold too ('segurar falhar'), and so may the operator's start of a card."""
    control.script_prints("segurar falhar")
    job = client.print_jobs.create(
        documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, conteudo="x"
    ).referencia
    card = client.payments.create(
        documento_cliente=Sandbox.DOCUMENTO,
        valor_centavos=500,
        modo_execucao="manual",
        comanda=smartpos.Comanda("Mesa 3"),
    ).referencia
    started = control.operator_start(card, outcome="segurar recusar")
    assert ("pagamento.recusado", []) == (started["tipo"], control.events)
    assert [job, card] == list(control.held_by_referencia)
    control.release(card)
    control.release(job)
    assert ["pagamento.recusado", "impressao.falhou"] == [e["tipo"] for e in control.events]


def test_a_held_event_reaches_a_url_target_when_released(
    control: Any, client: smartpos.Client
) -> None:
    """Released, the event is posted to the partner's URL like any other (delivery thread)."""
    with receiving() as receiver:
        control.set_webhook(receiver.url)
        control.script_payments("segurar")
        referencia = _pay(client)
        control.wait_for_deliveries(timeout=10)
        assert [] == receiver.events
        [envelope] = control.release(referencia)
        control.wait_for_events(1, timeout=10)
        control.wait_for_deliveries(timeout=10)
        assert [envelope["id"]] == [e["id"] for e in receiver.events]


def test_silence_cannot_be_held(control: Any) -> None:
    """Hold (and Contradict) around silence, even through other wrappers, is refused."""
    for bad in ("segurar silencio", "segurar atraso 5 silencio", Hold(NoAnswer())):
        with pytest.raises(ValueError, match="Hold needs an outcome with an event"):
            control.script_payments(bad)
    with pytest.raises(ValueError, match="Contradict needs an outcome with an event"):
        control.script_payments(Contradict(Delay(5, NoAnswer())))
