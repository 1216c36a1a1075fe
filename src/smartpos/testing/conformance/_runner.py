"""Run one scenario against an adapter, and check the invariants from what the sandbox saw.

The runner works with any object that has the switches and records of
[`Sandbox`][smartpos.testing.Sandbox]: the in-process sandbox (`run_scenario`) or a
[`RemoteSandbox`][smartpos.testing.RemoteSandbox] of a served one (the CLI). It learns each
sale's referencias from the payment requests that reach the sandbox while the kit asks that
sale to be charged, so the partner's system needs to tell the kit nothing about them.

Checks come from two places:

- the scenario's ``expect`` steps: the adapter's status of a sale at that moment;
- rules that hold in every scenario, read from the sandbox: no payment of a sale the system
  reported paid, no new referencia while an earlier attempt's outcome is unknown, every
  request for the amount and customer the kit asked, no request started by a print or unknown
  event, no paid sale reported unpaid again (unless refunded), no more approved than the total.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs
import httpx

from smartpos._messages import message
from smartpos.testing._delivery import WebhookTarget, attempt_delivery

from ._adapter import Adapter, NotSupported, SaleStatus
from ._scenario import Scenario

__all__ = [
    "DOCUMENTO",
    "OTHER_DOCUMENTO",
    "Runner",
    "ScenarioResult",
    "Violation",
    "run_scenario",
]

DOCUMENTO = "52998224725"
"""The customer of every charge (the sandbox's default customer)."""
OTHER_DOCUMENTO = "11144477735"
"""A valid CPF of nobody in the scenarios: the misrouted approval's customer."""
_SMARTPOS_ID = "SP-SANDBOX-1"
_BRT = dt.timezone(dt.timedelta(hours=-3))
_FINAL_TIPOS = ("pagamento.aprovado", "pagamento.recusado")


@attrs.frozen
class Violation:
    """One broken invariant.

    Attributes:
        invariant: Its name (one of ``INVARIANTS``).
        key: The message catalog's key of the case.
        step: The scenario step (from 1) after which it was seen; ``None``: at the end.
        sale: The sale (the id the adapter was given), when it concerns one.
        message: What the partner's code did wrong and what to do, in the run's language.
    """

    invariant: str
    key: str
    step: int | None
    sale: str | None
    message: str


@attrs.frozen
class ScenarioResult:
    """What running one scenario gave.

    Attributes:
        scenario: The scenario.
        outcome: ``"passed"``, ``"failed"`` (``violations``), ``"not-applicable"`` (the
            adapter lacks an operation it needs: ``missing``) or ``"error"`` (the kit could not
            run it: ``error``).
        violations: The broken invariants, in the order they were seen.
        missing: The adapter operation that was not supported.
        error: Why the scenario could not run.
        transcript: What happened at each step (the step, and what the kit saw), for reports.
    """

    scenario: Scenario
    outcome: str
    violations: tuple[Violation, ...] = ()
    missing: str | None = None
    error: str | None = None
    transcript: tuple[Mapping[str, Any], ...] = attrs.field(default=(), repr=False)

    @property
    def passed(self) -> bool:
        """Whether every invariant held."""
        return self.outcome == "passed"

    def explain(self) -> str:
        """The result as text: one line per violation (what to fix), or why it did not run."""
        head = f"{self.scenario.name}: {self.outcome}"
        if self.error:
            return f"{head}: {self.error}"
        if self.missing:
            return f"{head}: {self.missing}"
        lines = [head]
        for violation in self.violations:
            where = "end" if violation.step is None else f"step {violation.step}"
            lines.append(f"  [{violation.invariant}] ({where}) {violation.message}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The result as JSON (the CLI's ``--json`` report)."""
        return {
            "scenario": self.scenario.name,
            "version": self.scenario.version,
            "outcome": self.outcome,
            "violations": [
                {
                    "invariant": v.invariant,
                    "key": v.key,
                    "step": v.step,
                    "sale": v.sale,
                    "message": v.message,
                }
                for v in self.violations
            ],
            "missing": self.missing,
            "error": self.error,
            "transcript": list(self.transcript),
        }


@attrs.define
class _Sale:
    """What the runner knows of one sale during a run."""

    name: str
    total: int = 0
    referencias: list[str] = attrs.Factory(list)
    asked: dict[str, tuple[int, str]] = attrs.Factory(dict)
    unknown: dict[str, str] = attrs.Factory(dict)
    abandoned: set[str] = attrs.Factory(set)
    reported_paid: bool = False
    refunded: bool = False


def _status_text(status: SaleStatus) -> str:
    return json.dumps(status.to_json(), sort_keys=True)


class Runner:
    """One run of one scenario: drives the sandbox and the adapter, collects violations.

    Args:
        scenario: The scenario.
        adapter: The partner's adapter.
        sandbox: A `Sandbox` or `RemoteSandbox` the partner's system charges through, with the
            adapter's webhook already configured.
        deliver: Delivers an envelope the kit writes itself (a re-minted id, a forged
            approval, a print or unknown event) to the partner's webhook, as the sandbox would.
        settle_timeout: Seconds to wait for the sandbox's deliveries at each ``settle``.
        lang: The language of the messages (``None``: the process's).
        smartpos_id: The terminal of the charges.
    """

    def __init__(
        self,
        scenario: Scenario,
        adapter: Adapter,
        sandbox: Any,
        *,
        deliver: Callable[[dict[str, Any]], None],
        settle_timeout: float = 10.0,
        lang: str | None = None,
        smartpos_id: str = _SMARTPOS_ID,
    ) -> None:
        self.scenario = scenario
        self.adapter = adapter
        self.sandbox = sandbox
        self.deliver = deliver
        self.settle_timeout = settle_timeout
        self.lang = lang
        self.smartpos_id = smartpos_id
        self.token = uuid.uuid4().hex[:8]
        self.sales: dict[str, _Sale] = {}
        self.violations: list[Violation] = []
        self.transcript: list[dict[str, Any]] = []
        self.step = 0
        self._seen = len(sandbox.requests)
        self._holding = False
        self._terminals: dict[str, str] = {}

    # ------------------------------------------------------------------ helpers

    def _sale(self, name: str) -> _Sale:
        if name not in self.sales:
            self.sales[name] = _Sale(f"{self.scenario.name}-{name}-{self.token}")
        return self.sales[name]

    def _violate(self, invariant: str, case: str, sale: _Sale | None, **fields: Any) -> None:
        key = f"conformance.{invariant.replace('-', '_')}.{case}"
        text = message(
            key,
            lang=self.lang,
            scenario=self.scenario.name,
            step=self.step,
            sale="" if sale is None else sale.name,
            **fields,
        )
        step = None if self.step > len(self.scenario.steps) else self.step
        self.violations.append(
            Violation(invariant, key, step, None if sale is None else sale.name, text)
        )

    def _delivered(self) -> set[str]:
        """The referencias with a final payment event delivered so far."""
        return {
            str(event.get("dados", {}).get("referencia"))
            for event in self.sandbox.events
            if event.get("tipo") in _FINAL_TIPOS
        }

    def _new_requests(self) -> list[Any]:
        requests: list[Any] = self.sandbox.requests
        new, self._seen = requests[self._seen :], len(requests)
        return new

    def _attribute(self, sale: _Sale | None, asked: tuple[int, str] | None, op: str) -> list[str]:
        """Give the payment requests that reached the sandbox since the last look to ``sale``.

        Returns:
            ``"METHOD path"`` of every request seen (for the transcript and the print rule).
        """
        seen: list[str] = []
        delivered = self._delivered()
        for request in self._new_requests():
            seen.append(f"{request.method} {request.path} -> {request.status_code}")
            body = request.json if isinstance(request.json, Mapping) else {}
            if request.method != "POST" or request.path != "/v1/payments":
                continue
            referencia = str(body.get("referencia"))
            owner = sale or self._owner(referencia)
            if owner is None:
                continue
            if owner.reported_paid and not owner.refunded and referencia not in owner.referencias:
                self._violate("paid-once", "charged_again", owner, referencia=referencia)
            if referencia not in owner.referencias:
                for earlier, cause in owner.unknown.items():
                    if earlier not in delivered and earlier not in owner.abandoned:
                        self._violate(
                            "same-referencia",
                            "new",
                            owner,
                            referencia=earlier,
                            new=referencia,
                            cause=cause,
                        )
                owner.referencias.append(referencia)
                if asked is not None:
                    owner.asked[referencia] = asked
            want = owner.asked.get(referencia)
            got = (body.get("valorCentavos"), body.get("documentoCliente"))
            if want is not None and got != want:
                self._violate(
                    "amount-agrees",
                    "request",
                    owner,
                    referencia=referencia,
                    asked=want[0],
                    sent=got[0],
                )
            status = request.status_code
            if referencia not in delivered and (status is None or status >= 500 or status == 409):
                owner.unknown[referencia] = str(request.fault or status)
        del op
        return seen

    def _owner(self, referencia: str) -> _Sale | None:
        for sale in self.sales.values():
            if referencia in sale.referencias:
                return sale
        charged = [sale for sale in self.sales.values() if sale.referencias]
        return charged[-1] if charged else None

    def _read(self, sale: _Sale) -> SaleStatus:
        status: object = self.adapter.status(sale.name)
        # A partner's adapter may answer the status URL's JSON instead of a SaleStatus.
        return status if isinstance(status, SaleStatus) else SaleStatus.from_json(status)

    def _observe(self, sale: _Sale, status: SaleStatus, *, reported: bool) -> None:
        if sale.reported_paid and not status.paid and not sale.refunded and not reported:
            self._violate("paid-once", "downgraded", sale, observed=_status_text(status))
        if status.paid:
            sale.reported_paid = True
        elif sale.refunded:
            sale.reported_paid = False

    # ------------------------------------------------------------------ steps

    def _terminal(self, name: str) -> str:
        """This run's own terminal for a terminal of the transcript.

        Each run charges on terminals of its own, so that an attempt a scenario leaves open
        (one that never gets an answer) does not keep the terminal busy for the next scenario
        of a system that runs them all (the CLI).
        """
        if name not in self._terminals:
            smartpos_id = f"SP-{self.token}-{len(self._terminals) + 1}"
            self.sandbox.add_terminal(smartpos_id, documento_cliente=DOCUMENTO)
            self._terminals[name] = smartpos_id
        return self._terminals[name]

    def run(self) -> ScenarioResult:
        """Run every step, then the end checks.

        Returns:
            The result.
        """
        for number, step in enumerate(self.scenario.steps, 1):
            self.step = number
            record: dict[str, Any] = {"step": self.step, **step}
            self.transcript.append(record)
            try:
                getattr(self, "_op_" + step["op"].replace("-", "_"))(step, record)
            except NotSupported as exc:
                return self._result("not-applicable", missing=str(exc) or step["op"])
        self.step += 1
        self._end_checks()
        return self._result("failed" if self.violations else "passed")

    def _result(self, outcome: str, **fields: Any) -> ScenarioResult:
        return ScenarioResult(
            self.scenario,
            outcome,
            tuple(self.violations),
            transcript=tuple(self.transcript),
            **fields,
        )

    def _op_script(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        self.sandbox.script_payments(*step["outcomes"])

    def _op_fault(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        self.sandbox.fail_next(step["endpoint"], step["fault"], times=step.get("times", 1))

    def _op_webhook_fault(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        if step["fault"] == "timeout":
            self.sandbox.slow_webhook(times=step["times"])
        else:
            self.sandbox.fail_webhook(times=step["times"], status_code=int(step["fault"]))

    def _op_terminal(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        record["terminal"] = self._terminal(step["smartposId"])

    def _op_charge(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        sale = self._sale(step["sale"])
        valor = step["valorCentavos"]
        sale.total = step.get("totalCentavos", valor)
        if not self._holding:
            # Events come after the answer, as from the service: held until the next settle.
            self.sandbox.hold_events()
            self._holding = True
        answer: object
        try:
            answer = self.adapter.charge(
                sale.name,
                valor_centavos=valor,
                total_centavos=sale.total,
                documento_cliente=DOCUMENTO,
                smartpos_id=self._terminal(step.get("smartposId", self.smartpos_id)),
            )
        except NotSupported:
            raise
        except Exception as exc:  # noqa: BLE001 - a refusal to charge is the system's right
            answer = f"{type(exc).__name__}: {exc}"
        record["answer"] = answer if isinstance(answer, (str, int, dict, list)) else repr(answer)
        record["requests"] = self._attribute(sale, (valor, DOCUMENTO), "charge")

    def _op_settle(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        if self._holding:
            self.sandbox.release_events()
            self._holding = False
        with contextlib.suppress(TimeoutError):
            self.sandbox.wait_for_deliveries(self.settle_timeout)
        self.adapter.settle()
        record["requests"] = self._attribute(None, None, "settle")

    def _op_release(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        sale = self._sale(step["sale"])
        held = self.sandbox.held_by_referencia
        released = [ref for ref in sale.referencias if ref in held]
        for referencia in released:
            self.sandbox.release(referencia)
        record["released"] = released

    def _op_abandon(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        sale = self._sale(step["sale"])
        self.adapter.abandon(sale.name)
        delivered = self._delivered()
        sale.abandoned.update(ref for ref in sale.referencias if ref not in delivered)
        record["requests"] = self._attribute(sale, None, "abandon")

    def _op_refund(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        sale = self._sale(step["sale"])
        try:
            self.adapter.refund(sale.name)
        except NotSupported:
            raise
        except Exception as exc:  # noqa: BLE001 - refusing a second refund is fine
            record["answer"] = f"{type(exc).__name__}: {exc}"
        sale.refunded = True
        record["requests"] = self._attribute(sale, None, "refund")

    def _op_inject(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        sale = self._sale(step["sale"])
        envelope = self._envelope(step, sale)
        record["event"] = envelope
        self.deliver(envelope)
        if step["kind"] in ("print", "unknown"):
            with contextlib.suppress(TimeoutError):
                self.sandbox.wait_for_deliveries(self.settle_timeout)
            self.adapter.settle()
            moved = [
                line
                for line in self._attribute(None, None, "inject")
                if line.startswith(("POST /v1/payments", "POST /v1/refunds"))
            ]
            record["requests"] = moved
            for line in moved:
                self._violate(
                    "no-money-from-print", "request", sale, tipo=envelope["tipo"], request=line
                )

    def _envelope(self, step: Mapping[str, Any], sale: _Sale) -> dict[str, Any]:
        referencia = sale.referencias[-1] if sale.referencias else str(uuid.uuid4())
        kind = step["kind"]
        last = None
        for event in self.sandbox.events:
            if event.get("dados", {}).get("referencia") == referencia and (
                event.get("tipo") == "pagamento.aprovado" or last is None
            ):
                last = event
        if kind == "remint" and last is not None:
            return {**last, "id": _event_id()}
        valor, documento = sale.asked.get(referencia, (sale.total, DOCUMENTO))
        dados: dict[str, Any] = {
            "referencia": referencia,
            "documentoCliente": documento,
            "smartposId": self._terminal(self.smartpos_id),
        }
        if kind in ("approval", "remint"):
            tipo = "pagamento.aprovado"
            dados.update(
                status="aprovado",
                valorCentavos=valor,
                valorFormatado=f"{valor / 100:.2f}",
                formaPagamento="credito",
                autorizacao={
                    "codigo": "A1B2C3",
                    "numeroTransacao": "000000424242",
                    "dadosFinalizacao": "FIN-CONFORMANCE",
                    "tipoPagamento": "CREDITO",
                },
            )
            for key in ("valorCentavos", "documentoCliente"):
                if key in step:
                    dados[key] = step[key]
        elif kind == "print":
            tipo = step.get("tipo", "impressao.concluida")
            dados["status"] = "concluida" if tipo == "impressao.concluida" else "falhou"
        else:
            tipo = step.get("tipo", "pagamento.desconhecido")
            dados.update(status=step.get("status", "aprovado"), valorCentavos=valor)
        return {
            "id": _event_id(),
            "tipo": tipo,
            "criadoEm": dt.datetime.now(_BRT).isoformat(timespec="seconds"),
            "dados": dados,
        }

    def _op_expect(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        sale = self._sale(step["sale"])
        status = self._read(sale)
        record["status"] = status.to_json()
        expected = {
            name: step[key]
            for name, key in (
                ("paid", "paid"),
                ("paid_centavos", "paidCentavos"),
                ("attention", "attention"),
            )
            if key in step
        }
        wrong = {name for name, value in expected.items() if getattr(status, name) != value}
        if wrong:
            shown = {key: step[key] for key in ("paid", "paidCentavos", "attention") if key in step}
            self._violate(
                step["invariant"],
                "expect",
                sale,
                expected=json.dumps(shown, sort_keys=True),
                observed=_status_text(status),
            )
        self._observe(sale, status, reported=bool(wrong))

    def _op_expect_late_handled(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        sale = self._sale(step["sale"])
        status = self._read(sale)
        record["status"] = status.to_json()
        refunds = self.sandbox.refunds
        for referencia in sorted(sale.abandoned):
            payment = self._payment(referencia)
            if payment is None or payment.status != "aprovado":
                continue
            refunded = sum(
                r.valor_centavos for r in refunds if r.pagamento_referencia == referencia
            )
            if refunded != payment.valor_centavos and not status.attention:
                self._violate(
                    "late-approval",
                    "unhandled",
                    sale,
                    referencia=referencia,
                    valor=payment.valor_centavos,
                    refunded=refunded,
                )

    def _op_expect_refund(self, step: Mapping[str, Any], record: dict[str, Any]) -> None:
        sale = self._sale(step["sale"])
        found = [r for r in self.sandbox.refunds if r.pagamento_referencia in sale.referencias]
        total = sum(r.valor_centavos for r in found)
        record["refunds"] = [r.referencia for r in found]
        if len(found) != step["count"] or total != step["valorCentavos"]:
            self._violate(
                "refund-once",
                "count",
                sale,
                count=len(found),
                centavos=total,
                expected_count=step["count"],
                expected=step["valorCentavos"],
            )

    def _payment(self, referencia: str) -> Any:
        for payment in self.sandbox.payments:
            if payment.referencia == referencia:
                return payment
        return None

    def _end_checks(self) -> None:
        payments = {p.referencia: p for p in self.sandbox.payments}
        for sale in self.sales.values():
            approved = [
                payments[ref]
                for ref in sale.referencias
                if ref in payments
                and payments[ref].status == "aprovado"
                and ref not in sale.abandoned
            ]
            centavos = sum(p.valor_centavos for p in approved)
            if sale.total and centavos > sale.total:
                self._violate(
                    "paid-once",
                    "charged_twice",
                    sale,
                    count=len(approved),
                    centavos=centavos,
                    total=sale.total,
                )


def _event_id() -> str:
    return f"evt-conformance-{uuid.uuid4().hex[:16]}"


def deliverer(
    target: WebhookTarget, headers: Mapping[str, str] | None = None, *, timeout: float = 5.0
) -> Callable[[dict[str, Any]], None]:
    """Return a function that delivers an envelope to ``target`` once, as the sandbox would.

    Args:
        target: A URL, an object with ``receive(body, headers)``, or a callable(envelope).
        headers: Headers of the delivery (a shared secret).
        timeout: Seconds to wait for a URL's answer.
    """

    def deliver(envelope: dict[str, Any]) -> None:
        body = json.dumps(envelope, ensure_ascii=False).encode()
        if isinstance(target, str):
            with httpx.Client(timeout=timeout, trust_env=False) as client:
                attempt_delivery(target, body, client, headers)
        else:
            attempt_delivery(target, body, None, headers)

    return deliver


AdapterFactory = Callable[[Any], Any]
"""``factory(sandbox)`` returns an `Adapter`, or a context manager that gives one."""


@contextlib.contextmanager
def _adapter_of(factory: AdapterFactory, sandbox: Any) -> Iterator[Adapter]:
    made = factory(sandbox)
    if hasattr(made, "__enter__") and hasattr(made, "__exit__"):
        with made as adapter:
            yield adapter
    else:
        yield made


def run_scenario(
    scenario: Scenario,
    adapter_factory: AdapterFactory,
    *,
    lang: str | None = None,
    settle_timeout: float = 10.0,
) -> ScenarioResult:
    """Run one scenario with a fresh in-process sandbox.

    Args:
        scenario: The scenario (see `scenarios`).
        adapter_factory: Called with the [`Sandbox`][smartpos.testing.Sandbox]; returns the
            partner's `Adapter` (its system bound to that sandbox: ``transport=
            sandbox.transport()``), or a context manager giving one (closed after the run).
        lang: The language of the messages (``"en"``, ``"pt_BR"``; ``None``: the process's).
        settle_timeout: Seconds to wait for deliveries to URL targets at each settle.

    Returns:
        The result.
    """
    from smartpos.testing._sandbox import Sandbox

    with (
        Sandbox(webhook_attempts=5, webhook_backoff=0.01) as sandbox,
        _adapter_of(adapter_factory, sandbox) as adapter,
    ):
        headers = dict(getattr(adapter, "webhook_headers", None) or {})
        sandbox.set_webhook(adapter.webhook)
        if headers:
            sandbox.set_webhook_headers(headers)
        runner = Runner(
            scenario,
            adapter,
            sandbox,
            deliver=deliverer(adapter.webhook, headers),
            settle_timeout=settle_timeout,
            lang=lang,
        )
        return runner.run()
