"""``smartpos trigger``: an event made by a running sandbox, or a realistic standalone sample.

Through a sandbox (its control API's ``/trigger``), the event's operation exists in the
sandbox's world: a triggered ``pagamento.aprovado`` can be refunded there, and ``--resend ID``
asks the sandbox to deliver it again. Without one, a sample is posted (spec section 6, every
``dados`` field). A sample is a pure function of its id and options: every generated value
(referencia, authorization code, serial number...) is drawn from a generator seeded with the id,
and ids made here are UUIDv7, whose first 48 bits are the creation time in milliseconds, so
``criadoEm`` is rebuilt from the id too. ``--resend ID`` therefore posts byte for byte the body
sent the first time, as the service's manual resend does, and a correct receiver sees a
duplicate. Changing an option on a resend changes the body: a receiver should then keep the
first one (a conflict).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import random
import secrets
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Final, NamedTuple

from smartpos._messages import message

from ._output import EXIT_ERROR, EXIT_OK, CommandError, Output, mask_documents

__all__ = [
    "SAMPLE_DOCUMENTO",
    "SAMPLE_SMARTPOS_ID",
    "TIPOS",
    "check_to",
    "new_event_id",
    "sample",
    "trigger",
]


TIPOS: Final = (
    # The event kinds the SDK knows (smartpos.webhooks._events.EVENT_KINDS), written here on
    # purpose: building the parser must not import the webhook kit (`smartpos --help` stays
    # fast). tests/test_event_kinds.py compares it with the registry.
    "smartpos.identificado",
    "pagamento.aprovado",
    "pagamento.recusado",
    "impressao.concluida",
    "impressao.falhou",
)

SAMPLE_DOCUMENTO: Final = "52998224725"
"""The sandbox customer's CPF (valid check digits)."""
SAMPLE_SMARTPOS_ID: Final = "SP-SANDBOX-1"
"""The sandbox terminal."""
_BRT: Final = _dt.timezone(_dt.timedelta(hours=-3), "BRT")
_ALNUM: Final = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"


def new_event_id(now: float | None = None) -> str:
    """Return a new event id: a UUIDv7 carrying the creation time in milliseconds.

    Args:
        now: Unix time to encode; default the current time.

    Returns:
        The id, in the canonical UUID form.
    """
    ms = int((time.time() if now is None else now) * 1000) & ((1 << 48) - 1)
    value = (ms << 80) | (0x7 << 76) | (secrets.randbits(12) << 64)
    value |= (0b10 << 62) | secrets.randbits(62)
    return str(uuid.UUID(int=value))


def _created_at(event_id: str) -> _dt.datetime:
    """``criadoEm`` of a sample: the time inside a UUIDv7 id, else now."""
    try:
        parsed = uuid.UUID(event_id)
    except ValueError:
        parsed = None
    if parsed is not None and parsed.version == 7:
        return _dt.datetime.fromtimestamp((parsed.int >> 80) / 1000, _BRT)
    return _dt.datetime.now(_BRT)


def _code(rng: random.Random, alphabet: str, size: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


class _Codes:
    """The sandbox builders' generated codes, drawn from a sample's own seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def alnum(self, size: int) -> str:
        return _code(self.rng, _ALNUM, size)

    def digits(self, size: int) -> str:
        return _code(self.rng, "0123456789", size)


class _Fields(NamedTuple):
    codes: _Codes
    referencia: str
    documento: str
    smartpos_id: str
    valor_centavos: int


def _identification(fields: _Fields) -> tuple[str, dict[str, Any]]:
    from smartpos.testing._terminals import identification_event

    rng = fields.codes.rng
    return identification_event(
        qr_code_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        referencia=fields.referencia,
        documento=fields.documento,
        smartpos_id=fields.smartpos_id,
        numero_serie="SN" + fields.codes.digits(10),
        adquirente="STONE",
    )


def _payment(approved: bool) -> Callable[[_Fields], tuple[str, dict[str, Any]]]:
    def build(fields: _Fields) -> tuple[str, dict[str, Any]]:
        from smartpos.testing import Approve, Refuse
        from smartpos.testing._terminals import payment_event

        return payment_event(
            Approve() if approved else Refuse(),
            fields.codes,
            referencia=fields.referencia,
            documento=fields.documento,
            valor=fields.valor_centavos,
            forma="credito",
            parcelas=1,
            smartpos_id=fields.smartpos_id,
        )

    return build


def _print(done: bool) -> Callable[[_Fields], tuple[str, dict[str, Any]]]:
    def build(fields: _Fields) -> tuple[str, dict[str, Any]]:
        from smartpos.testing import PrintDone, PrintFail
        from smartpos.testing._terminals import print_event

        return print_event(
            PrintDone() if done else PrintFail(),
            referencia=fields.referencia,
            documento=fields.documento,
            smartpos_id=fields.smartpos_id,
        )

    return build


# What a standalone sample of each tipo is: the sandbox's own builder of that event (one
# builder per event, smartpos.testing._terminals), fed values drawn from the sample's id.
_SAMPLES: Final[Mapping[str, Callable[[_Fields], tuple[str, dict[str, Any]]]]] = {
    "smartpos.identificado": _identification,
    "pagamento.aprovado": _payment(approved=True),
    "pagamento.recusado": _payment(approved=False),
    "impressao.concluida": _print(done=True),
    "impressao.falhou": _print(done=False),
}


def sample(
    tipo: str,
    event_id: str,
    *,
    documento: str | None = None,
    referencia: str | None = None,
    smartpos_id: str | None = None,
    valor_centavos: int | None = None,
) -> dict[str, Any]:
    """Build a realistic event envelope of a known kind, with every ``dados`` field.

    The same arguments always give the same envelope. ``dados`` is built by the sandbox's own
    builder of that event, so a sample and a sandbox's event never drift apart.

    Args:
        tipo: One of `TIPOS`.
        event_id: The envelope's ``id``; a UUIDv7 also gives ``criadoEm``.
        documento: ``dados.documentoCliente`` (default: the sandbox CPF), sent without mask.
        referencia: ``dados.referencia`` (default: a UUID derived from the id).
        smartpos_id: ``dados.smartposId`` (default ``SP-SANDBOX-1``).
        valor_centavos: Payments: ``dados.valorCentavos`` (default 1990).

    Returns:
        The envelope: ``id``, ``tipo``, ``criadoEm`` (ISO 8601, ``-03:00``), ``dados``.

    Raises:
        CommandError: A ``tipo`` the CLI cannot build a sample of (an unknown one, or a kind
            newer than its samples): trigger it through a sandbox instead.
    """
    from smartpos._documents import normalize_documento

    build = _SAMPLES.get(tipo)
    if build is None:
        raise CommandError(
            message("cli.sample_unknown_tipo", tipo=tipo),
            hint=message("cli.sample_unknown_tipo_hint", tipos=", ".join(_SAMPLES)),
            code=2,
        )
    rng = random.Random(f"smartpos-sample:{event_id}")
    documento = documento or SAMPLE_DOCUMENTO
    documento = normalize_documento(documento) or documento
    fields = _Fields(
        _Codes(rng),
        referencia or str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        documento,
        smartpos_id or SAMPLE_SMARTPOS_ID,
        valor_centavos if valor_centavos is not None else 1990,
    )
    tipo, dados = build(fields)
    return {
        "id": event_id,
        "tipo": tipo,
        "criadoEm": _created_at(event_id).isoformat(timespec="milliseconds"),
        "dados": dados,
    }


def check_to(to: str) -> None:
    import httpx

    try:
        url = httpx.URL(to)
    except httpx.InvalidURL as exc:
        raise CommandError(message("cli.bad_url", url=to, error=exc), code=2) from exc
    if url.scheme not in ("http", "https") or not url.host:
        raise CommandError(
            message("cli.bad_to", url=to),
            hint=message("cli.bad_to_hint"),
            code=2,
        )


class _NoSandbox(Exception):
    """No sandbox can make the event (why in the message): send a standalone sample."""


def _through_sandbox(
    args: argparse.Namespace, url: str, headers: dict[str, str], signing: Any
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """Ask the sandbox at ``url`` to make (or resend) the event and deliver it to ``--to``.

    Returns:
        The envelope (``None`` for a resend) and the delivery attempt.

    Raises:
        _NoSandbox: No sandbox answers there, it is not a sandbox, or it does not know a
            resent id.
        CommandError: The sandbox refused (an unknown customer or terminal, a bad --to).
    """
    import httpx

    from smartpos.testing import RemoteSandbox, SandboxError
    from smartpos.testing._signing import signing_to_json

    body: dict[str, Any] = {
        "to": args.to,
        "headers": headers or None,
        "signing": None if signing is None else signing_to_json(signing),
    }
    try:
        with RemoteSandbox(url, timeout=args.timeout + 5.0) as sandbox:
            if args.resend:
                data = sandbox.call("POST", f"/events/{args.resend}/resend", body)
            else:
                body.update(
                    tipo=args.tipo,
                    documentoCliente=args.documento,
                    smartposId=args.smartpos_id,
                    valorCentavos=args.valor_centavos,
                    referencia=args.referencia,
                )
                data = sandbox.call("POST", "/trigger", body)
    except httpx.ConnectError:
        raise _NoSandbox(message("cli.sandbox_none", url=url)) from None
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"
        raise CommandError(message("cli.sandbox_failed", url=url, error=error)) from exc
    except ValueError as exc:
        raise CommandError(str(exc), hint=message("cli.sandbox_loopback_hint"), code=2) from exc
    except SandboxError as exc:
        if str(exc).startswith("RECURSO_NAO_ENCONTRADO"):
            raise _NoSandbox(message("cli.sandbox_not_a_sandbox", url=url)) from None
        if args.resend and "no event" in str(exc):
            no_event = message("cli.sandbox_no_event", url=url, event_id=args.resend)
            raise _NoSandbox(no_event) from None
        raise CommandError(
            message("cli.sandbox_refused", url=url, error=exc),
            hint=message("cli.sandbox_refused_hint"),
        ) from exc
    deliveries = data.get("deliveries") if isinstance(data, dict) else None
    if not isinstance(deliveries, list) or not deliveries:
        raise _NoSandbox(message("cli.sandbox_not_a_sandbox", url=url))
    return (None if args.resend else data.get("event")), deliveries[-1]


def trigger(args: argparse.Namespace, out: Output) -> int:
    """``smartpos trigger``: make an event happen and report what the endpoint answered.

    Through a running sandbox when one answers (the event's operation then exists in it),
    else a standalone sample.

    Args:
        args: ``tipo``, ``to``, ``sandbox``, ``no_sandbox``, ``resend``, ``documento``,
            ``referencia``, ``smartpos_id``, ``valor_centavos``, ``header``, ``timeout``,
            ``sign``, ``secret``, ``sign_option`` (signed as the sandbox signs: through a
            sandbox, it signs that one delivery so).
        out: The output.

    Returns:
        0 when the endpoint answered 2xx, 1 otherwise.

    Raises:
        CommandError: The URL is not http(s), a bad header, or the endpoint is unreachable.
    """
    from ._sandbox import sandbox_url
    from ._signing import parse_headers, signing_of

    check_to(args.to)
    headers = parse_headers(args.header)
    signing = signing_of(args)
    if args.no_sandbox:
        return _standalone(args, out, headers, signing)
    url = sandbox_url(args.sandbox)
    try:
        envelope, attempt = _through_sandbox(args, url, headers, signing)
    except _NoSandbox as exc:
        out.warn(message("cli.trigger_standalone", reason=exc))
        return _standalone(args, out, headers, signing)
    if envelope is None:
        envelope = {"id": args.resend, "tipo": args.tipo}
    if attempt.get("statusCode") is None:
        raise CommandError(
            message("cli.deliver_failed", url=args.to, error=attempt.get("error")),
            hint=message("cli.deliver_failed_receiver_hint"),
        )
    return _report(out, args, envelope, attempt["statusCode"], attempt.get("answer") or "", url)


def _standalone(
    args: argparse.Namespace, out: Output, headers: dict[str, str], signing: Any
) -> int:
    import httpx

    from smartpos._version import __version__

    event_id = args.resend or new_event_id()
    envelope = sample(
        args.tipo,
        event_id,
        documento=args.documento,
        referencia=args.referencia,
        smartpos_id=args.smartpos_id,
        valor_centavos=args.valor_centavos,
    )
    body = json.dumps(envelope, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    all_headers = {
        "content-type": "application/json",
        "user-agent": f"smartpos-cli/{__version__} (trigger)",
        **headers,
    }
    if signing is not None:
        try:
            all_headers.update(signing.headers(body, headers=headers))
        except ValueError as exc:  # a manifest field neither the sample nor -H holds
            raise CommandError(
                message("cli.sign_refused", scheme=signing.scheme, error=exc),
                hint=message("cli.sign_refused_hint"),
                code=2,
            ) from None
    try:
        with httpx.Client(timeout=args.timeout, trust_env=False) as client:
            response = client.post(args.to, content=body, headers=all_headers)
    except httpx.HTTPError as exc:
        raise CommandError(
            message("cli.deliver_failed", url=args.to, error=f"{type(exc).__name__}: {exc}"),
            hint=message("cli.deliver_failed_receiver_hint"),
        ) from exc
    return _report(out, args, envelope, response.status_code, response.text, None)


def _report(
    out: Output,
    args: argparse.Namespace,
    envelope: dict[str, Any],
    status_code: int,
    text: str,
    sandbox: str | None,
) -> int:
    import http

    try:
        answer: Any = json.loads(text)
    except ValueError:
        answer = text[:500]
    ok = 200 <= status_code < 300
    duplicate = isinstance(answer, dict) and answer.get("duplicado") is True
    event_id = envelope["id"]
    if out.json:
        out.data(
            {
                "id": event_id,
                "tipo": envelope.get("tipo", args.tipo),
                "to": args.to,
                "sandbox": sandbox,
                "status_code": status_code,
                "duplicate": duplicate,
                "response": answer,
                "event": mask_documents(envelope),
            }
        )
    else:
        if "dados" in envelope:
            prefix = message("cli.trigger_resent" if args.resend else "cli.trigger_sent")
            out.event(envelope, prefix=prefix)
        else:
            tipo = out.tipo(str(envelope["tipo"]))
            out.line(message("cli.trigger_resent_line", tipo=tipo, event_id=event_id))
        try:
            reason = http.HTTPStatus(status_code).phrase
        except ValueError:
            reason = ""
        shown = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
        colour = "green" if ok else "red"
        out.line(f"  -> {out.style(f'{status_code} {reason}'.strip(), 'bold', colour)}  {shown}")
        if duplicate:
            out.line(message("cli.trigger_duplicate"))
        if sandbox is not None and not args.resend:
            out.line(message("cli.trigger_made_by", url=sandbox))
        if ok and not args.resend:
            out.line(
                message("cli.trigger_resend_it", tipo=args.tipo, url=args.to, event_id=event_id)
            )
    if not ok:
        out.error(
            message("cli.receiver_answered", status=status_code),
            hint=message("cli.receiver_answered_hint"),
        )
        return EXIT_ERROR
    return EXIT_OK
