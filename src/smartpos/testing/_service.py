"""The service itself: one function from a `Request` to a `Response`.

`Service.handle` routes, authenticates, checks the body with `_rules` (the rules
that need no state), then applies the rules that need the world (customer, ownership, webhook,
terminal, duplicates) and changes it. It speaks raw camelCase dicts written from the spec and
never imports the SDK's converter, so a wrong wire name cannot hide on both sides. Faults are
not its business: the front door (`_front`) applies them around it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

import attrs

from . import _rules
from ._documents import normalize_documento
from ._errors import SandboxError
from ._faults import Endpoint
from ._outbox import Plan
from ._outcomes import Approve, PaymentOutcome, PrintDone, PrintFail, PrintOutcome, Refuse
from ._protocol import Request, Response, error_response, json_response
from ._records import SandboxQRCode, SandboxRefund
from ._rules import Reject
from ._terminals import Terminals
from ._world import PaymentState, PrintJobState, TerminalState, World

__all__ = ["ROUTES", "TRIGGER_TIPOS", "Route", "Service", "endpoint_of"]


@attrs.frozen(slots=True)
class Route:
    """One endpoint of the service: the whole of what routing knows about it.

    Attributes:
        method: The one HTTP method it serves (another one is 405 with ``Allow``).
        template: Its path, with ``{name}`` for a path segment the handler receives.
        endpoint: Its name for faults (``sandbox.fail_next(endpoint, ...)``).
        handler: The ``Service`` method that answers it: called with the partner, then the
            decoded JSON body when ``json_body``, then the path segments, in order.
        json_body: Whether it takes a JSON object body (``Content-Type: application/json``).
    """

    method: str
    template: str
    endpoint: Endpoint
    handler: str
    json_body: bool = True
    pattern: re.Pattern[str] = attrs.field(init=False)

    @pattern.default
    def _compile(self) -> re.Pattern[str]:
        parts = re.split(r"\{[A-Za-z]+\}", self.template)
        return re.compile("([^/]+)".join(re.escape(part) for part in parts))


#: Every endpoint of the service (spec §2): add one here, and its handler to ``Service``; the
#: dispatch code does not change. A fault named after an endpoint (``"payments"``) covers
#: every request whose path is that endpoint's, whatever its method or body (a 405 or a 400
#: included), before authentication: the front door applies it around ``Service.handle``.
#: ``"*"`` covers any path, the service's or not.
ROUTES: tuple[Route, ...] = (
    Route("POST", "/qrcode", "qrcodes", "_create_qrcode"),
    Route("POST", "/v1/payments", "payments", "_create_payment"),
    Route("POST", "/v1/refunds", "refunds", "_create_refund"),
    Route("POST", "/v1/print-jobs", "print_jobs", "_create_print_job"),
    Route(
        "GET",
        "/v1/customers/{documentoCliente}/smartpos",
        "terminals",
        "_list_terminals",
        json_body=False,
    ),
)


def _routes_of(path: str) -> list[tuple[Route, tuple[str, ...]]]:
    """The routes whose template matches ``path``, with the path segments each one takes."""
    found = []
    for route in ROUTES:
        match = route.pattern.fullmatch(path)
        if match is not None:
            found.append((route, match.groups()))
    return found


_Answer = tuple[int, dict[str, Any]]


def endpoint_of(path: str) -> Endpoint | None:
    """Name the endpoint a path belongs to, as faults name it.

    Args:
        path: The URL path.

    Returns:
        ``"qrcodes"``, ``"payments"``, ``"refunds"``, ``"print_jobs"``, ``"terminals"``, or
        ``None`` for a path that is not one of the service's.
    """
    found = _routes_of(path)
    return found[0][0].endpoint if found else None


class Service:
    """The service's endpoints over the world.

    Args:
        world: The world the service reads and changes.
        terminals: The terminals that execute what the service accepts.
    """

    def __init__(self, world: World, terminals: Terminals) -> None:
        self._world = world
        self._terminals = terminals

    def handle(self, request: Request) -> Response:
        """Answer one request as the service would (faults are applied around this).

        Args:
            request: The request.

        Returns:
            The answer: a success, or the spec's error body for the first rule broken.
        """
        found = _routes_of(request.path)
        try:
            if not found:
                raise Reject("RECURSO_NAO_ENCONTRADO")
            chosen = [(r, params) for r, params in found if r.method == request.method]
            if not chosen:
                allow = ", ".join(sorted({route.method for route, _ in found}))
                raise Reject("METODO_NAO_PERMITIDO", headers={"allow": allow})
            route, params = chosen[0]
            partner = self._authenticate(request)
            arguments: list[Any] = [partner]
            if route.json_body:
                content_type = request.headers.get("content-type", "")
                if content_type.split(";")[0].strip().lower() != "application/json":
                    raise Reject("CONTENT_TYPE_INVALIDO")
                arguments.append(_rules.decode_json(request.body))
            status, body = getattr(self, route.handler)(*arguments, *params)
            return json_response(status, body)
        except Reject as reject:
            return error_response(reject)

    # ------------------------------------------------------------------ rules that need the world

    def _authenticate(self, request: Request) -> str:
        key = request.headers.get("x-api-key", "").strip()
        if not key:
            raise Reject("API_KEY_NAO_INFORMADA")
        world = self._world
        with world.lock:
            name = world.keys.get(key)
            if name is None or world.partners[name].keys[key] != "active":
                raise Reject("API_KEY_INVALIDA")
            return name

    def _customer(self, partner: str, documento_cliente: str) -> str:
        """Return the normalized document of ``partner``'s customer (lock held)."""
        documento = normalize_documento(documento_cliente)
        owner = None if documento is None else self._world.customers.get(documento)
        if documento is None or owner is None:
            raise Reject("DOCUMENTO_CLIENTE_INVALIDO", "documentoCliente")
        if owner != partner:
            raise Reject("CLIENTE_NAO_AUTORIZADO")
        return documento

    def _customer_terminal(self, documento: str, smartpos_id: str) -> TerminalState:
        terminal = self._world.terminals.get(smartpos_id)
        if terminal is None or terminal.documento != documento:
            raise Reject("SMARTPOS_NAO_ENCONTRADO", "smartposId")
        return terminal

    def _new_referencia(self, partner: str, referencia: str) -> None:
        if referencia in self._world.partners[partner].referencias:
            raise Reject("REFERENCIA_DUPLICADA", "referencia")

    # ------------------------------------------------------------------ endpoints

    def _create_qrcode(self, partner: str, body: Mapping[str, Any]) -> _Answer:
        req = _rules.check_qrcode(body)
        world = self._world
        with world.lock:
            documento = self._customer(partner, req.documento_cliente)
            qr_code_id = world.uuid()
            referencia = req.referencia or world.uuid()
            qr = SandboxQRCode(
                qr_code=f"smartpos:qr:v1:{qr_code_id}",
                qr_code_id=qr_code_id,
                referencia=referencia,
                documento_cliente=documento,
                expires_at=int(world.now() + world.qr_code_ttl),
            )
            world.qrcodes[qr.qr_code] = qr
        return 201, {"qrCode": qr.qr_code, "referencia": referencia, "expiresAt": qr.expires_at}

    def _create_payment(self, partner: str, body: Mapping[str, Any]) -> _Answer:
        return self._payment(partner, body, None, None)[0]

    def _payment(
        self,
        partner: str,
        body: Mapping[str, Any],
        outcome: PaymentOutcome | None,
        to: Plan | None,
    ) -> tuple[_Answer, dict[str, Any] | None]:
        req = _rules.check_payment(body)
        world = self._world
        with world.lock:
            documento = self._customer(partner, req.documento_cliente)
            if world.partners[partner].webhook is False:
                raise Reject("WEBHOOK_NAO_CONFIGURADO")
            if req.smartpos_id is not None:
                targets: tuple[str, ...] = (
                    self._customer_terminal(documento, req.smartpos_id).smartpos_id,
                )
            else:
                targets = tuple(
                    t.smartpos_id for t in world.terminals.values() if t.documento == documento
                )
                if not targets:
                    raise Reject(
                        "SMARTPOS_NAO_ENCONTRADO",
                        mensagem="O cliente não tem terminais vinculados.",
                    )
            self._new_referencia(partner, req.referencia)
            world.partners[partner].referencias.add(req.referencia)
            payment = PaymentState(
                partner=partner,
                referencia=req.referencia,
                documento=documento,
                valor=req.valor_centavos,
                modo=req.modo_execucao,
                smartpos_id=req.smartpos_id,
                targets=targets,
                forma=req.forma_pagamento,
                parcelas=req.parcelas,
                identificacao=req.identificacao,
                body=body,
            )
            world.payments[req.referencia] = payment
            response: dict[str, Any] = {"referencia": req.referencia, "status": "processando"}
            envelope = None
            if payment.modo == "imediato":
                response["mensagem"] = "Pagamento enviado ao terminal."
                response["smartposId"] = targets[0]
                envelope = self._terminals.run_payment(
                    payment, world.terminals[targets[0]], outcome, to=to
                )
            else:
                payment.status = "na_fila"
                response["mensagem"] = "Comanda criada na fila do operador."
            response["targets"] = [{"smartposId": t, "status": "enviado"} for t in targets]
        return (202, response), envelope

    def _create_refund(self, partner: str, body: Mapping[str, Any]) -> _Answer:
        req = _rules.check_refund(body)
        world = self._world
        with world.lock:
            documento = self._customer(partner, req.documento_cliente)
            self._customer_terminal(documento, req.smartpos_id)
            # 409 before the amount check: a retry of an accepted total refund must read as a
            # duplicate, not as "exceeds what is left".
            self._new_referencia(partner, req.referencia)
            original = self._find_original(partner, documento, req)
            if req.valor_centavos > original.valor - original.estornado:
                raise Reject(
                    "VALOR_INVALIDO",
                    "valorCentavos",
                    mensagem="valorCentavos excede o valor aprovado ainda não estornado.",
                )
            world.partners[partner].referencias.add(req.referencia)
            original.estornado += req.valor_centavos
            world.refunds.append(
                SandboxRefund(
                    referencia=req.referencia,
                    documento_cliente=documento,
                    smartpos_id=req.smartpos_id,
                    valor_centavos=req.valor_centavos,
                    pagamento_referencia=original.referencia,
                )
            )
        return 202, {
            "referencia": req.referencia,
            "status": "processando",
            "mensagem": "Estorno enviado ao terminal.",
            "smartposId": req.smartpos_id,
            "valorCentavos": req.valor_centavos,
            "targets": [{"smartposId": req.smartpos_id, "status": "enviado"}],
        }

    def _find_original(
        self, partner: str, documento: str, req: _rules.RefundRequest
    ) -> PaymentState:
        wanted = {
            "codigo": req.codigo_autorizacao,
            "numeroTransacao": req.numero_transacao,
            "dadosFinalizacao": req.dados_finalizacao,
            "tipoPagamento": req.tipo_pagamento,
        }
        for payment in self._world.payments.values():
            if (
                payment.partner == partner
                and payment.status == "aprovado"
                and payment.documento == documento
                and payment.smartpos_id == req.smartpos_id
                and payment.autorizacao == wanted
            ):
                return payment
        raise Reject("PAGAMENTO_ORIGINAL_NAO_ENCONTRADO", "pagamentoOriginal")

    def _create_print_job(self, partner: str, body: Mapping[str, Any]) -> _Answer:
        return self._print_job(partner, body, None, None)[0]

    def _print_job(
        self,
        partner: str,
        body: Mapping[str, Any],
        outcome: PrintOutcome | None,
        to: Plan | None,
    ) -> tuple[_Answer, dict[str, Any] | None]:
        req = _rules.check_print(body)
        world = self._world
        with world.lock:
            documento = self._customer(partner, req.documento_cliente)
            terminal = self._customer_terminal(documento, req.smartpos_id)
            self._new_referencia(partner, req.referencia)
            world.partners[partner].referencias.add(req.referencia)
            job = PrintJobState(partner, req.referencia, documento, req.smartpos_id, req.conteudo)
            world.prints[req.referencia] = job
            envelope = self._terminals.run_print(job, terminal, outcome, to=to)
        answer = {
            "referencia": req.referencia,
            "status": "processando",
            "mensagem": "Impressão enviada ao terminal.",
            "smartposId": req.smartpos_id,
            "targets": [{"smartposId": req.smartpos_id, "status": "enviado"}],
        }
        return (202, answer), envelope

    def _list_terminals(self, partner: str, documento_cliente: str) -> _Answer:
        world = self._world
        with world.lock:
            documento = self._customer(partner, documento_cliente)
            terminals = [t for t in world.terminals.values() if t.documento == documento]
            return 200, {
                "documentoCliente": documento,
                "smartpos": [
                    {
                        "smartposId": t.smartpos_id,
                        "numeroSerieTerminal": t.numero_serie,
                        "adquirente": t.adquirente,
                        "status": "ativo",
                    }
                    for t in terminals
                ],
            }

    # ------------------------------------------------------------------ trigger

    def trigger(
        self,
        tipo: str,
        *,
        documento_cliente: str,
        smartpos_id: str,
        valor_centavos: int,
        referencia: str | None,
        to: Plan | None,
    ) -> dict[str, Any]:
        """Make an event of ``tipo`` happen for real in the world; see ``Sandbox.trigger``.

        Raises:
            SandboxError: An unknown ``tipo`` or customer, or a rule of the service broken
                (its ``codigo`` and ``mensagem`` in the message).
        """
        world = self._world
        with world.lock:
            documento = world.existing_customer(documento_cliente)
            assert documento is not None
            partner = world.customers[documento]
            referencia = referencia or world.uuid()
        body: dict[str, Any] = {
            "referencia": referencia,
            "documentoCliente": documento,
            "smartposId": smartpos_id,
        }
        try:
            if tipo in _PAYMENT_TIPOS:
                body.update(
                    valorCentavos=valor_centavos, modoExecucao="imediato", formaPagamento="credito"
                )
                _, envelope = self._payment(partner, body, _PAYMENT_TIPOS[tipo], to)
            elif tipo in _PRINT_TIPOS:
                body["conteudo"] = {"tipo": "base64", "base64": "c21hcnRwb3MgdHJpZ2dlcgo="}
                _, envelope = self._print_job(partner, body, _PRINT_TIPOS[tipo], to)
            elif tipo == "smartpos.identificado":
                del body["smartposId"]
                _, qr = self._create_qrcode(partner, body)
                envelope = self._terminals.scan(qr["qrCode"], smartpos_id, to=to, flush=False)
            else:
                raise SandboxError(f"cannot trigger {tipo!r}; one of: {', '.join(TRIGGER_TIPOS)}")
        except Reject as reject:
            raise SandboxError(f"{reject.codigo}: {reject.mensagem}") from None
        assert envelope is not None
        return envelope


_PAYMENT_TIPOS: dict[str, PaymentOutcome] = {
    "pagamento.aprovado": Approve(),
    "pagamento.recusado": Refuse(),
}
_PRINT_TIPOS: dict[str, PrintOutcome] = {
    "impressao.concluida": PrintDone(),
    "impressao.falhou": PrintFail(),
}
#: Every tipo ``trigger`` makes happen, written here from the spec on purpose (the simulator
#: never imports the SDK's converter, hence not its event classes either);
#: tests/test_event_kinds.py compares it with the SDK's EVENT_KINDS.
TRIGGER_TIPOS: Final[tuple[str, ...]] = (*_PAYMENT_TIPOS, *_PRINT_TIPOS, "smartpos.identificado")
