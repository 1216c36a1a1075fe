"""The control API: every switch of [`Sandbox`][smartpos.testing.Sandbox], as JSON over HTTP.

Served under the reserved, versioned prefix ``/_sandbox/v1/`` (no API key), for tools in any
language, the ``smartpos sandbox ...`` commands and
[`RemoteSandbox`][smartpos.testing.RemoteSandbox]. Each route calls the facade's method of the same
meaning (its *twin*, named in `ROUTES`), so that the Python and the HTTP switches cannot drift
apart; a test holds the table complete. Outcomes and faults are read with the one vocabulary of
`_vocabulary`, records written by `_codec`. ``docs/en/testing.md`` documents every route.

With a key (``Sandbox(control_key=...)``, ``smartpos sandbox --control-key``, env
``SMARTPOS_SANDBOX_CONTROL_KEY``), every control request must carry it in the `KEY_HEADER`
header, compared in constant time; without it the answer is 401 ``CHAVE_CONTROLE_INVALIDA``
(the key is in no answer and no log).

Errors use the service's ``erro`` shape: 400 ``CAMPO_OBRIGATORIO``/``CAMPO_INVALIDO`` with
``campo`` for a bad argument, 400 ``SANDBOX`` for a misuse (unknown terminal, event...), 409
``QR_CODE_EXPIRADO``, 408 ``TEMPO_ESGOTADO`` for a wait that timed out, 404/405 for a wrong
path or method.
"""

from __future__ import annotations

import contextlib
import hmac
import math
import re
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from . import _rules
from ._codec import to_json
from ._errors import QRCodeExpiredError, SandboxError
from ._protocol import Request, Response, error_response, json_response
from ._rules import Reject
from ._vocabulary import (
    KINDS,
    WebhookFault,
    endpoint_name,
    fault_from_json,
    outcome_from_json,
)

__all__ = ["KEY_HEADER", "PREFIX", "ROUTES", "Control", "Route", "twins"]

PREFIX = "/_sandbox/v1"
"""Where the control API lives."""

KEY_HEADER = "x-sandbox-control-key"
"""The header that carries the control key of a sandbox that has one."""


class _Call:
    """One control request: its path parameters, query and JSON body, with typed readers."""

    def __init__(self, params: dict[str, str], query: str, body: dict[str, Any]) -> None:
        self.params = params
        self.query = {k: v[-1] for k, v in urllib.parse.parse_qs(query).items()}
        self.body = body

    def _value(self, key: str, default: Any, required: bool) -> Any:
        if key in self.body:
            return self.body[key]
        if key in self.query:
            return self.query[key]
        if required:
            raise Reject("CAMPO_OBRIGATORIO", key, mensagem=f"Campo obrigatório: {key}.")
        return default

    def text(self, key: str, default: str | None = None, *, required: bool = False) -> Any:
        value = self._value(key, default, required)
        if value is not None and not isinstance(value, str):
            raise Reject("CAMPO_INVALIDO", key, mensagem=f"{key} deve ser texto.")
        return value

    def number(self, key: str, default: float, *, whole: bool = False) -> Any:
        value = self._value(key, default, False)
        if isinstance(value, str) and key in self.query:
            with contextlib.suppress(ValueError):
                value = int(value) if whole else float(value)
        kinds = (int,) if whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not math.isfinite(value):
            kind = "um inteiro" if whole else "um número"
            raise Reject("CAMPO_INVALIDO", key, mensagem=f"{key} deve ser {kind}.")
        return value

    def flag(self, key: str, default: bool = False) -> bool:
        value = self._value(key, default, False)
        if isinstance(value, str) and key in self.query:
            value = value.lower() in ("1", "true", "yes")
        if not isinstance(value, bool):
            raise Reject("CAMPO_INVALIDO", key, mensagem=f"{key} deve ser true ou false.")
        return value

    def outcome(self, kind: str, key: str, value: object) -> Any:
        try:
            return outcome_from_json(kind, value)
        except (ValueError, TypeError) as exc:
            raise Reject("CAMPO_INVALIDO", key, mensagem=f"{key}: {exc}") from None


@attrs.frozen
class Route:
    """One route of the control API.

    Attributes:
        method: The HTTP method.
        path: The path after `PREFIX`; ``{name}`` is a parameter.
        twins: The ``Sandbox`` members it is the HTTP twin of.
        handler: Calls the sandbox; returns the status and the JSON body.
    """

    method: str
    path: str
    twins: tuple[str, ...]
    handler: Callable[[Any, _Call], tuple[int, Any]] = attrs.field(repr=False)
    pattern: re.Pattern[str] = attrs.field(
        init=False,
        repr=False,
        default=attrs.Factory(
            lambda self: re.compile(
                re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(self.path))
            ),
            takes_self=True,
        ),
    )


_Handler = Callable[[Any, _Call], tuple[int, Any]]
_OK: dict[str, Any] = {"ok": True}


def _do(act: Callable[[Any, _Call], object]) -> _Handler:
    """A route that acts and answers ``{"ok": true}``."""

    def handle(sandbox: Any, call: _Call) -> tuple[int, Any]:
        act(sandbox, call)
        return 200, _OK

    return handle


def _webhook(call: _Call, key: str) -> Any:
    value = call._value(key, True, False)
    if not isinstance(value, (bool, str)):
        raise Reject("CAMPO_INVALIDO", key, mensagem=f"{key} é uma URL, true ou false.")
    return value


def _add_terminal(sandbox: Any, call: _Call) -> tuple[int, Any]:
    outcomes = {
        kind: call.outcome(kind, key, call.body[key])
        for kind, key in (("payment", "payments"), ("print", "prints"))
        if call.body.get(key) is not None
    }
    terminal = sandbox.add_terminal(
        call.text("smartposId", required=True),
        documento_cliente=call.text("documentoCliente"),
        numero_serie_terminal=call.text("numeroSerieTerminal"),
        adquirente=call.text("adquirente", "STONE"),
        payments=outcomes.get("payment"),
        prints=outcomes.get("print"),
    )
    return 201, {"terminal": to_json(terminal)}


def _link_terminal(sandbox: Any, call: _Call) -> tuple[int, Any]:
    if "documentoCliente" not in call.body:
        raise Reject("CAMPO_OBRIGATORIO", "documentoCliente", mensagem="Envie documentoCliente.")
    sandbox.link_terminal(call.text("smartposId", required=True), call.text("documentoCliente"))
    return 200, _OK


def _script(sandbox: Any, call: _Call) -> tuple[int, Any]:
    kind = call.text("kind", required=True)
    if kind not in KINDS:
        raise Reject("CAMPO_INVALIDO", "kind", mensagem="kind é payment ou print.")
    given = call.body.get("outcomes")
    if given is None and "outcome" in call.body:
        given = [call.body["outcome"]]
    if not isinstance(given, list) or not given:
        raise Reject("CAMPO_OBRIGATORIO", "outcomes", mensagem="Envie outcomes (uma lista).")
    outcomes = [call.outcome(kind, f"outcomes[{i}]", o) for i, o in enumerate(given)]
    method = sandbox.script_payments if kind == "payment" else sandbox.script_prints
    method(
        *outcomes,
        times=call.number("times", 1, whole=True),
        smartpos_id=call.text("smartposId"),
    )
    return 200, _OK


def _set_outcomes(sandbox: Any, call: _Call) -> tuple[int, Any]:
    given = {
        kind: call.outcome(kind, key, call.body[key])
        for kind, key in (("payment", "payments"), ("print", "prints"))
        if call.body.get(key) is not None
    }
    if not given:
        raise Reject("CAMPO_OBRIGATORIO", "payments", mensagem="Envie payments e/ou prints.")
    sandbox.set_outcomes(
        payments=given.get("payment"),
        prints=given.get("print"),
        smartpos_id=call.text("smartposId"),
    )
    return 200, _OK


def _fail(sandbox: Any, call: _Call) -> tuple[int, Any]:
    try:
        endpoint = endpoint_name(call.text("endpoint", "*"))
    except ValueError as exc:
        raise Reject("CAMPO_INVALIDO", "endpoint", mensagem=str(exc)) from None
    if "fault" not in call.body:
        raise Reject("CAMPO_OBRIGATORIO", "fault", mensagem="Envie fault.")
    try:
        fault = fault_from_json(endpoint, call.body["fault"])
    except (ValueError, TypeError) as exc:
        raise Reject("CAMPO_INVALIDO", "fault", mensagem=str(exc)) from None
    times = call.number("times", 1, whole=True)
    if isinstance(fault, WebhookFault):
        if fault.status_code is None:
            sandbox.slow_webhook(times=times)
        else:
            sandbox.fail_webhook(times=times, status_code=fault.status_code)
    else:
        sandbox.fail_next(endpoint, fault, times=times)
    return 200, _OK


def _operator_start(sandbox: Any, call: _Call) -> tuple[int, Any]:
    outcome = call.body.get("outcome")
    envelope = sandbox.operator_start(
        call.text("referencia", required=True),
        smartpos_id=call.text("smartposId"),
        outcome=None if outcome is None else call.outcome("payment", "outcome", outcome),
    )
    return 200, {"event": envelope}


_LONGEST_WAIT = 60.0
"""A request that waits holds a server thread: never longer than this."""


def _wait(call: _Call, key: str, default: float) -> float:
    return max(0.0, min(float(call.number(key, default)), _LONGEST_WAIT))


def _events(sandbox: Any, call: _Call) -> tuple[int, Any]:
    if "count" in call.query:
        count = call.number("count", 0, whole=True)
        events = sandbox.wait_for_events(count, timeout=_wait(call, "timeout", 5.0))
    else:
        events = sandbox.events
    return 200, {"events": events}


def _deliveries(sandbox: Any, call: _Call) -> tuple[int, Any]:
    if "timeout" in call.query:
        sandbox.wait_for_deliveries(timeout=_wait(call, "timeout", 5.0))
    return 200, {"deliveries": to_json(sandbox.deliveries)}


def _last(sandbox: Any) -> object:
    """The newest delivery record, the mark `_since` counts from (``None``: none yet)."""
    deliveries = sandbox.deliveries
    return deliveries[-1] if deliveries else None


def _since(sandbox: Any, event_id: str, mark: object) -> list[Any]:
    # Found by identity, not by position: the sandbox keeps only the newest deliveries
    # (log_limit), so a position taken before may point elsewhere afterwards.
    deliveries = sandbox.deliveries
    start = 0
    for index in range(len(deliveries) - 1, -1, -1):
        if deliveries[index] is mark:
            start = index + 1
            break
    return [d for d in deliveries[start:] if d.event_id == event_id]


def _headers(call: _Call) -> dict[str, str] | None:
    value = call.body.get("headers")
    if value is None:
        return None
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise Reject("CAMPO_INVALIDO", "headers", mensagem="headers é um objeto de textos.")
    return value


def _signing(call: _Call) -> Any:
    """The ``signing`` of a request (``{scheme, secret, options}``), or ``None``."""
    from ._signing import signing_from_json

    value = call.body.get("signing")
    if value is None:
        return None
    try:
        return signing_from_json(value)
    except (ValueError, TypeError) as exc:
        raise Reject("CAMPO_INVALIDO", "signing", mensagem=f"signing: {exc}") from None


def _set_signing(sandbox: Any, call: _Call) -> tuple[int, Any]:
    if "signing" not in call.body:
        raise Reject(
            "CAMPO_OBRIGATORIO",
            "signing",
            mensagem="Envie signing: {scheme, secret, options}, ou null para não assinar.",
        )
    sandbox.set_webhook_signing(_signing(call))
    return 200, _OK


def _set_headers(sandbox: Any, call: _Call) -> tuple[int, Any]:
    if "headers" not in call.body:
        raise Reject("CAMPO_OBRIGATORIO", "headers", mensagem="Envie headers: um objeto, ou null.")
    sandbox.set_webhook_headers(_headers(call))
    return 200, _OK


def _resend(sandbox: Any, call: _Call) -> tuple[int, Any]:
    event_id = call.params["id"]
    before = _last(sandbox)
    sandbox.resend(event_id, to=call.text("to"), headers=_headers(call), signing=_signing(call))
    return 200, {"deliveries": to_json(_since(sandbox, event_id, before))}


def _trigger(sandbox: Any, call: _Call) -> tuple[int, Any]:
    before = _last(sandbox)
    envelope = sandbox.trigger(
        call.text("tipo", required=True),
        to=call.text("to"),
        documento_cliente=call.text("documentoCliente", sandbox.DOCUMENTO),
        smartpos_id=call.text("smartposId", sandbox.SMARTPOS_ID),
        valor_centavos=call.number("valorCentavos", 1990, whole=True),
        referencia=call.text("referencia"),
        headers=_headers(call),
        signing=_signing(call),
    )
    deliveries = _since(sandbox, envelope["id"], before)
    return 201, {"event": envelope, "deliveries": to_json(deliveries)}


def _log(sandbox: Any, call: _Call) -> tuple[int, Any]:
    since = call.number("since", 0, whole=True)
    wait = _wait(call, "wait", 0.0)
    entries = sandbox.log(since, wait=wait)
    return 200, {"entries": to_json(entries), "next": entries[-1].seq if entries else since}


def _listing(member: str, key: str) -> _Handler:
    return lambda sandbox, call: (200, {key: to_json(getattr(sandbox, member))})


def _action(member: str, **fields: str) -> _Handler:
    """A route that calls ``member`` with required text fields: ``argument="jsonKey"``."""
    return _do(
        lambda sandbox, call: getattr(sandbox, member)(
            **{name: call.text(key, required=True) for name, key in fields.items()}
        )
    )


ROUTES: tuple[Route, ...] = (
    Route("GET", "/clock", ("now",), lambda s, c: (200, {"now": s.now()})),
    Route(
        "POST",
        "/clock/advance",
        ("advance",),
        _do(lambda s, c: s.advance(c.number("seconds", 0.0))),
    ),
    Route("GET", "/partners", ("partners",), _listing("partners", "partners")),
    Route(
        "POST",
        "/partners",
        ("add_partner",),
        lambda s, c: (
            201,
            {
                "partner": to_json(
                    s.add_partner(
                        c.text("apiKey", required=True),
                        name=c.text("name"),
                        webhook=_webhook(c, "webhook"),
                        key_status=c.text("keyStatus", "active"),
                    )
                )
            },
        ),
    ),
    Route(
        "PUT",
        "/webhook",
        ("set_webhook",),
        _do(
            lambda s, c: s.set_webhook(_webhook(c, "webhook"), api_key=c.text("apiKey", s.API_KEY))
        ),
    ),
    Route("PUT", "/webhook/signing", ("set_webhook_signing",), _set_signing),
    Route("PUT", "/webhook/headers", ("set_webhook_headers",), _set_headers),
    Route(
        "POST",
        "/keys/status",
        ("set_key_status",),
        _action("set_key_status", api_key="apiKey", status="status"),
    ),
    Route(
        "POST",
        "/keys/rotate",
        ("rotate_key",),
        _action("rotate_key", api_key="apiKey", new_api_key="newApiKey"),
    ),
    Route("GET", "/customers", ("customers",), _listing("customers", "customers")),
    Route(
        "POST",
        "/customers",
        ("add_customer",),
        lambda s, c: (
            201,
            {
                "customer": to_json(
                    s.add_customer(
                        c.text("documentoCliente", required=True),
                        api_key=c.text("apiKey", s.API_KEY),
                    )
                )
            },
        ),
    ),
    Route(
        "GET",
        "/terminals",
        ("terminals",),
        lambda s, c: (200, {"terminals": to_json(s.terminals(c.text("documentoCliente")))}),
    ),
    Route("POST", "/terminals", ("add_terminal",), _add_terminal),
    Route("POST", "/terminals/link", ("link_terminal",), _link_terminal),
    Route("POST", "/outcomes", ("script_payments", "script_prints"), _script),
    Route("PUT", "/outcomes", ("set_outcomes",), _set_outcomes),
    Route("POST", "/faults", ("fail_next", "fail_webhook", "slow_webhook"), _fail),
    Route("DELETE", "/faults", ("clear_faults",), _do(lambda s, c: s.clear_faults())),
    Route(
        "POST",
        "/scan",
        ("scan",),
        lambda s, c: (
            200,
            {"event": s.scan(c.text("qrCode"), c.text("smartposId", s.SMARTPOS_ID))},
        ),
    ),
    Route("GET", "/qrcodes", ("qrcodes",), _listing("qrcodes", "qrcodes")),
    Route(
        "GET",
        "/queue",
        ("manual_queue",),
        lambda s, c: (200, {"cards": to_json(s.manual_queue(c.text("documentoCliente")))}),
    ),
    Route("POST", "/operator/start", ("operator_start",), _operator_start),
    Route(
        "POST",
        "/operator/cancel",
        ("operator_cancel",),
        lambda s, c: (
            200,
            {
                "event": s.operator_cancel(
                    c.text("referencia", required=True),
                    mensagem_operador=c.text("mensagemOperador", "CANCELADO PELO OPERADOR"),
                )
            },
        ),
    ),
    Route("GET", "/payments", ("payments",), _listing("payments", "payments")),
    Route(
        "GET",
        "/payments/{referencia}",
        ("payment",),
        lambda s, c: (200, {"payment": to_json(s.payment(c.params["referencia"]))}),
    ),
    Route("GET", "/refunds", ("refunds",), _listing("refunds", "refunds")),
    Route("GET", "/print-jobs", ("print_jobs",), _listing("print_jobs", "printJobs")),
    Route("GET", "/requests", ("requests",), _listing("requests", "requests")),
    Route("GET", "/events", ("events", "wait_for_events"), _events),
    Route("GET", "/deliveries", ("deliveries", "wait_for_deliveries"), _deliveries),
    Route("POST", "/events/hold", ("hold_events",), _do(lambda s, c: s.hold_events())),
    Route("GET", "/events/held", ("held_events",), lambda s, c: (200, {"events": s.held_events})),
    Route(
        "POST",
        "/events/release",
        ("release_events",),
        lambda s, c: (200, {"events": s.release_events(reverse=c.flag("reverse"))}),
    ),
    Route(
        "GET",
        "/events/held/by-referencia",
        ("held_by_referencia",),
        lambda s, c: (200, {"held": s.held_by_referencia}),
    ),
    Route(
        "POST",
        "/events/held/{referencia}/release",
        ("release",),
        lambda s, c: (200, {"events": s.release(c.params["referencia"])}),
    ),
    Route("POST", "/events/{id}/resend", ("resend",), _resend),
    Route("GET", "/log", ("log",), _log),
    Route("POST", "/trigger", ("trigger",), _trigger),
)
"""Every route; ``twins`` names the ``Sandbox`` members each one mirrors."""

# The unversioned paths of the first release, kept for the tools that use them.
_LEGACY = {
    "/_sandbox/events": PREFIX + "/events",
    "/_sandbox/scan": PREFIX + "/scan",
    "/_sandbox/operator-start": PREFIX + "/operator/start",
}


def _erro(status: int, codigo: str, mensagem: str) -> Response:
    erro = {"codigo": codigo, "mensagem": mensagem, "acao": "Veja docs/en/testing.md."}
    return json_response(status, {"erro": erro})


class Control:
    """Answers ``/_sandbox/`` requests by calling the sandbox's own methods.

    Args:
        sandbox: The [`Sandbox`][smartpos.testing.Sandbox] (any object with its methods).
        key: The control key every request must carry in `KEY_HEADER`, or ``None``.
    """

    def __init__(self, sandbox: Any, *, key: str | None = None) -> None:
        if key is not None and (not isinstance(key, str) or not key.strip()):
            raise ValueError("control_key must be a non-empty str (or None for no key)")
        self._sandbox = sandbox
        self._key = None if key is None else key.encode()

    def _authorized(self, request: Request) -> bool:
        if self._key is None:
            return True
        given = request.headers.get(KEY_HEADER, "").encode()
        return hmac.compare_digest(given, self._key)

    def handle(self, request: Request) -> Response:
        """Answer a request to a ``/_sandbox/`` path.

        Args:
            request: The request.

        Returns:
            The answer (see the module docstring for errors).
        """
        if not self._authorized(request):
            return _erro(
                401,
                "CHAVE_CONTROLE_INVALIDA",
                "Chave de controle ausente ou inválida: envie-a no cabeçalho "
                f"{KEY_HEADER} (smartpos sandbox --control-key, RemoteSandbox(control_key=...)).",
            )
        method = request.method
        path = _LEGACY.get(request.path, request.path)
        if path in (PREFIX, PREFIX + "/"):
            routes = [f"{r.method} {PREFIX}{r.path}" for r in ROUTES]
            return json_response(200, {"version": 1, "routes": routes})
        found = self._route(method, path)
        if isinstance(found, Response):
            return found
        route, params = found
        try:
            body = _rules.decode_json(request.body) if request.body.strip() else {}
            status, data = route.handler(self._sandbox, _Call(params, request.query, body))
        except Reject as reject:
            return error_response(reject)
        except QRCodeExpiredError as exc:
            return _erro(409, "QR_CODE_EXPIRADO", str(exc))
        except SandboxError as exc:
            return _erro(400, "SANDBOX", str(exc))
        except TimeoutError as exc:
            return _erro(408, "TEMPO_ESGOTADO", str(exc))
        except (ValueError, TypeError) as exc:
            return json_response(400, Reject("CAMPO_INVALIDO", "$", mensagem=str(exc)).body())
        return json_response(status, data)

    @staticmethod
    def _route(method: str, path: str) -> tuple[Route, dict[str, str]] | Response:
        if not path.startswith(PREFIX + "/"):
            return error_response(Reject("RECURSO_NAO_ENCONTRADO"))
        rest = path[len(PREFIX) :]
        allowed = []
        for route in ROUTES:
            match = route.pattern.fullmatch(rest)
            if match is None:
                continue
            if route.method == method:
                return route, match.groupdict()
            allowed.append(route.method)
        if allowed:
            allow = ", ".join(sorted(set(allowed)))
            return error_response(Reject("METODO_NAO_PERMITIDO", headers={"allow": allow}))
        return error_response(Reject("RECURSO_NAO_ENCONTRADO"))


def twins() -> Mapping[str, Route]:
    """Every ``Sandbox`` member with an HTTP twin, and its route."""
    return {twin: route for route in ROUTES for twin in route.twins}
