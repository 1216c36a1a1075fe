"""Commands that call a service (the real one or a sandbox): qrcode, pay, refund, print, terminals.

Each builds a [`smartpos.Client`][smartpos.Client] from ``--api-key``/``--base-url`` or the
environment, makes one call and prints its result. Errors are left to the dispatcher, which prints
``codigo``, ``mensagem`` and ``acao`` and picks the exit status.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smartpos._messages import message

from ._output import EXIT_OK, CommandError, Output, is_masked, mask_documents

if TYPE_CHECKING:
    from smartpos import Acceptance, Client, QRCode

__all__ = [
    "acceptance_data",
    "make_client",
    "pay",
    "print_job",
    "qrcode",
    "qrcode_data",
    "read_input",
    "referencia",
    "refund",
    "show_qrcode",
    "terminals",
]


def make_client(args: argparse.Namespace) -> Client:
    """Build a client from the command's service options and the environment.

    Args:
        args: The parsed options (``api_key``, ``base_url``, ``timeout``, ``max_retries``).

    Returns:
        A client; close it after use.

    Raises:
        ConfigurationError: No API key or base URL anywhere.
    """
    from smartpos import Client

    return Client(
        api_key=args.api_key,
        base_url=args.base_url,
        timeout=args.timeout,
        max_retries=max(0, args.max_retries),
    )


def read_input(path: str) -> bytes:
    """Read a file, or standard input for ``-``.

    Args:
        path: A file path or ``-``.

    Returns:
        The bytes read.

    Raises:
        CommandError: The file cannot be read.
    """
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise CommandError(
            message("cli.cannot_read", path=path, error=exc.strerror or exc),
            hint=message("cli.check_path_hint"),
        ) from exc


def acceptance_data(acceptance: Acceptance) -> dict[str, Any]:
    """Return an ``Acceptance`` as JSON-ready data (SDK field names).

    Args:
        acceptance: The result of a payment or print job.

    Returns:
        ``referencia``, ``status``, ``mensagem``, ``smartpos_id``, ``targets``, ``request_id``.
    """
    return {
        "referencia": acceptance.referencia,
        "status": acceptance.status,
        "mensagem": acceptance.mensagem,
        "smartpos_id": acceptance.smartpos_id,
        "targets": [{"smartpos_id": t.smartpos_id, "status": t.status} for t in acceptance.targets],
        "request_id": acceptance.http.request_id if acceptance.http else None,
    }


def qrcode_data(qr: QRCode) -> dict[str, Any]:
    """Return a ``QRCode`` as JSON-ready data.

    Args:
        qr: The QR code.

    Returns:
        ``qr_code``, ``referencia`` and ``expires_at`` (ISO 8601, UTC).
    """
    return {"qr_code": qr.qr_code, "referencia": qr.referencia, "expires_at": qr.expires_at}


def show_qrcode(out: Output, content: str, *, invert: bool = False) -> None:
    """Draw a QR code in the terminal, in whatever the output can show.

    With colour, black on white is set explicitly (right on any theme); when stdout cannot
    encode the block characters, ``##`` blocks are used.

    Args:
        out: The output.
        content: The QR code's value.
        invert: Draw for a light-background terminal (without colour).
    """
    from smartpos._qr import to_terminal

    encoding = getattr(out.stdout, "encoding", None) or "ascii"
    try:
        "\u2580\u2584\u2588".encode(encoding)
        ascii_only = False
    except (UnicodeEncodeError, LookupError):
        ascii_only = True
    drawing = to_terminal(content, invert=invert, colour=out.colour, ascii_only=ascii_only)
    for row in drawing.splitlines():
        out.line("  " + row)


def referencia(args: argparse.Namespace, out: Output) -> int:
    """``smartpos referencia``: print a new referencia."""
    from smartpos import new_referencia

    value = new_referencia(args.suffix)
    if out.json:
        out.data({"referencia": value})
    else:
        out.line(value)
    return EXIT_OK


def qrcode(args: argparse.Namespace, out: Output) -> int:
    """``smartpos qrcode``: create a QR code, draw it, and optionally save it as an image."""
    with make_client(args) as client:
        qr = client.qrcodes.create(documento_cliente=args.documento, referencia=args.referencia)
    saved = args.png or args.svg
    if saved:
        try:
            qr.save(saved)
        except OSError as exc:
            raise CommandError(
                message("cli.cannot_write", path=saved, error=exc.strerror or exc),
                hint=message("cli.check_path_hint"),
            ) from exc
    if out.json:
        out.data({**qrcode_data(qr), "saved_to": saved})
        return EXIT_OK
    if not args.no_draw:
        show_qrcode(out, qr.qr_code, invert=args.invert)
    out.fields(
        {
            "qrCode": qr.qr_code,
            "referencia": qr.referencia,
            "expiresAt": qr.expires_at.isoformat(),
            **({message("cli.label.saved_to"): saved} if saved else {}),
        }
    )
    out.line(message("cli.qrcode_show_it"))
    return EXIT_OK


def _print_acceptance(out: Output, acceptance: Acceptance, *, later: str) -> None:
    out.line(
        out.style(message("cli.accepted"), "bold", "green")
        + f": {acceptance.status} - {acceptance.mensagem}"
    )
    values: dict[str, object] = {"referencia": acceptance.referencia}
    for target in acceptance.targets:
        values[f"terminal {target.smartpos_id}"] = target.status
    out.fields(values)
    out.line(later)


def pay(args: argparse.Namespace, out: Output) -> int:
    """``smartpos pay``: ask a terminal for a payment."""
    from smartpos import Comanda, Comprovante, ItemComanda, ModoExecucao

    comanda = None
    if args.comanda is not None or args.item or args.endereco:
        if args.comanda is None:
            raise CommandError(
                message("cli.pay_comanda_missing"),
                hint=message("cli.pay_comanda_missing_hint"),
                code=2,
            )
        itens = []
        for item in args.item:
            titulo, _, descricao = item.partition(":")
            itens.append(ItemComanda(titulo=titulo or None, descricao=descricao or None))
        comanda = Comanda(args.comanda, itens=itens, endereco=args.endereco)
    comprovante = None
    if args.imprimir_cliente or args.imprimir_loja:
        comprovante = Comprovante(
            imprimir_cliente=args.imprimir_cliente or None,
            imprimir_loja=args.imprimir_loja or None,
        )
    with make_client(args) as client:
        acceptance = client.payments.create(
            documento_cliente=args.documento,
            valor_centavos=args.valor_centavos,
            smartpos_id=args.smartpos_id,
            referencia=args.referencia,
            forma_pagamento=args.forma,
            parcelas=args.parcelas,
            parcelamento=args.parcelamento,
            modo_execucao=ModoExecucao.MANUAL if args.manual else ModoExecucao.IMEDIATO,
            comanda=comanda,
            comprovante=comprovante,
        )
    if out.json:
        out.data(acceptance_data(acceptance))
    else:
        _print_acceptance(out, acceptance, later=message("cli.pay_not_final"))
    return EXIT_OK


def _envelope_from_record(path: str, record: Mapping[str, Any]) -> Mapping[str, Any]:
    """The envelope of an inbox record printed by ``smartpos events show/list --json``.

    The record's ``raw`` has ``documentoCliente`` masked (everything the command prints has),
    and a refund needs the real document: the envelope is read back from the inbox the record
    names (``store``, ``namespace``) by its ``id``, and must match the printed one.
    """
    from ._events import open_inbox

    printed: Mapping[str, Any] = record["raw"]
    dados = printed.get("dados")
    if not (isinstance(dados, Mapping) and is_masked(dados.get("documentoCliente"))):
        return printed  # an unmasked envelope: use it as it is
    event_id, store = record.get("id"), record.get("store")
    if not isinstance(event_id, str) or not isinstance(store, str):
        raise CommandError(
            message("cli.refund_record_masked", path=path),
            hint=message("cli.refund_record_masked_hint"),
        )
    namespace = record.get("namespace")
    with open_inbox(store, namespace if isinstance(namespace, str) else None) as inbox:
        stored = inbox.get(event_id)
    if stored is None:
        raise CommandError(
            message("cli.refund_no_event", event_id=event_id, store=store, path=path),
            hint=message("cli.refund_no_event_hint"),
        )
    if mask_documents(dict(stored.raw)) != mask_documents(dict(printed)):
        raise CommandError(
            message("cli.refund_event_differs", event_id=event_id, store=store, path=path),
            hint=message("cli.refund_event_differs_hint"),
        )
    return stored.raw


def _event_from_file(path: str) -> Any:
    """Read a ``pagamento.aprovado`` event from a JSON file (or stdin for ``-``).

    The file holds the envelope as received, or the inbox record ``smartpos events show ID
    --json`` prints (the envelope under ``raw``, read back from its inbox for the document).
    """
    from smartpos.webhooks import InvalidEventError, PagamentoAprovado, parse_event

    body = read_input(path)
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise CommandError(
            message("cli.refund_not_json", path=path, error=exc),
            hint=message("cli.refund_not_json_hint"),
        ) from exc
    if isinstance(data, Mapping) and isinstance(data.get("raw"), Mapping) and "state" in data:
        data = _envelope_from_record(path, data)
    elif isinstance(data, Mapping):
        dados = data.get("dados")
        if isinstance(dados, Mapping) and is_masked(dados.get("documentoCliente")):
            raise CommandError(
                message("cli.refund_masked", path=path, documento=dados.get("documentoCliente")),
                hint=message("cli.refund_masked_hint"),
            )
    try:
        event = parse_event(data)
    except InvalidEventError as exc:
        raise CommandError(
            message("cli.refund_invalid_event", path=path, error=exc),
            hint=message("cli.refund_invalid_event_hint"),
        ) from exc
    if not isinstance(event, PagamentoAprovado):
        raise CommandError(
            message("cli.refund_wrong_tipo", path=path, tipo=event.tipo),
            hint=message("cli.refund_wrong_tipo_hint"),
        )
    return event


def refund(args: argparse.Namespace, out: Output) -> int:
    """``smartpos refund``: refund from an event file or from explicit fields."""
    from smartpos import PagamentoOriginal

    explicit = {
        "--codigo-autorizacao": args.codigo_autorizacao,
        "--numero-transacao": args.numero_transacao,
        "--dados-finalizacao": args.dados_finalizacao,
        "--tipo-pagamento": args.tipo_pagamento,
    }
    if args.event is not None:
        if args.documento or args.smartpos_id or any(v is not None for v in explicit.values()):
            raise CommandError(
                message("cli.refund_event_alone"),
                hint="smartpos refund --event FILE [--valor-centavos N]",
                code=2,
            )
        event = _event_from_file(args.event)
        with make_client(args) as client:
            result = client.refunds.create_for(
                event, valor_centavos=args.valor_parcial, referencia=args.referencia
            )
    else:
        missing = [name for name, value in explicit.items() if value is None]
        if args.valor_parcial is not None:
            raise CommandError(
                message("cli.refund_valor_without_event"),
                hint=message("cli.see_help", command="smartpos refund"),
                code=2,
            )
        if args.valor_centavos is None or missing:
            raise CommandError(
                message("cli.refund_give_options", options=", ".join(missing))
                if missing
                else message("cli.refund_give_authorization"),
                hint=message("cli.see_help", command="smartpos refund"),
                code=2,
            )
        original = PagamentoOriginal(
            codigo_autorizacao=args.codigo_autorizacao,
            numero_transacao=args.numero_transacao,
            dados_finalizacao=args.dados_finalizacao,
            tipo_pagamento=args.tipo_pagamento,
        )
        with make_client(args) as client:
            result = client.refunds.create(
                documento_cliente=args.documento,
                smartpos_id=args.smartpos_id,
                valor_centavos=args.valor_centavos,
                pagamento_original=original,
                referencia=args.referencia,
            )
    if out.json:
        out.data(
            {
                "referencia": result.referencia,
                "status": result.status,
                "mensagem": result.mensagem,
                "raw": mask_documents(dict(result.raw)),
            }
        )
        return EXIT_OK
    out.line(
        out.style(message("cli.refund_requested"), "bold", "green")
        + (f": {result.status}" if result.status else "")
        + (f" - {result.mensagem}" if result.mensagem else "")
    )
    values: dict[str, object] = {"referencia": result.referencia}
    valor = result.raw.get("valorCentavos")
    if isinstance(valor, int):
        from ._output import format_centavos

        values["valor"] = format_centavos(valor)
    out.fields(values)
    return EXIT_OK


def print_job(args: argparse.Namespace, out: Output) -> int:
    """``smartpos print``: print a file (or stdin) on a terminal."""
    conteudo = read_input(args.file)
    if not conteudo:
        raise CommandError(
            message("cli.print_empty", path=args.file), hint=message("cli.print_empty_hint")
        )
    with make_client(args) as client:
        acceptance = client.print_jobs.create(
            documento_cliente=args.documento,
            smartpos_id=args.smartpos_id,
            conteudo=conteudo,
            referencia=args.referencia,
        )
    if out.json:
        out.data(acceptance_data(acceptance))
    else:
        _print_acceptance(out, acceptance, later=message("cli.print_not_final"))
    return EXIT_OK


def terminals(args: argparse.Namespace, out: Output) -> int:
    """``smartpos terminals``: list a customer's terminals."""
    with make_client(args) as client:
        found = client.terminals.list(documento_cliente=args.documento)
    if out.json:
        out.data(
            [{"smartpos_id": t.smartpos_id, "raw": mask_documents(dict(t.raw))} for t in found]
        )
        return EXIT_OK
    if not found:
        out.line(message("cli.terminals_none"))
        return EXIT_OK
    for terminal in found:
        extra = {
            k: v
            for k, v in terminal.raw.items()
            if k != "smartposId" and isinstance(v, (str, int, float, bool))
        }
        details = "  ".join(f"{out.style(k, 'dim')} {v}" for k, v in extra.items())
        out.line(f"{out.style(str(terminal.smartpos_id), 'bold')}  {details}".rstrip())
    return EXIT_OK
