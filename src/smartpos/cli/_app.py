"""The command line: a dispatcher, and the mapping of errors to statuses and to the command's words.

The parser is `_parser`'s; each command's module is imported when that command runs, so
``smartpos --help`` does not load the sandbox, the webhook kit or segno.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Final

from ._i18n import argparse_words, words
from ._output import EXIT_ERROR, EXIT_UNKNOWN, EXIT_USAGE, CommandError, Output
from ._parser import DEFAULT_LISTEN_PORT, DEFAULT_SANDBOX_PORT, DEFAULT_STORE, TIPOS, build_parser

__all__ = [
    "DEFAULT_LISTEN_PORT",
    "DEFAULT_SANDBOX_PORT",
    "DEFAULT_STORE",
    "TIPOS",
    "build_parser",
    "cli_option",
    "cli_words",
    "run",
]

# What the user typed for each wire field (ValidationError.campo, APIError.campo), per command:
# errors name these, never the Python arguments of the SDK the command calls.
_DOC: Final = {"documentoCliente": "DOC"}
_OPTIONS: Final[dict[str, dict[str, str]]] = {
    "_service:referencia": {"referencia": "--suffix"},
    "_service:qrcode": {**_DOC, "referencia": "--referencia"},
    "_service:terminals": _DOC,
    "_service:pay": {
        **_DOC,
        "valorCentavos": "VALOR_CENTAVOS",
        "smartposId": "--smartpos-id",
        "referencia": "--referencia",
        "formaPagamento": "--forma",
        "parcelas": "--parcelas",
        "parcelamento": "--parcelamento",
        "modoExecucao": "--manual",
        "comanda.identificacao": "--comanda",
        "comanda.itens": "--item",
        "comanda.endereco": "--endereco",
        "comanda": "--comanda",
        "comprovante": "--imprimir-cliente/--imprimir-loja",
    },
    "_service:refund": {
        **_DOC,
        "smartposId": "SMARTPOS_ID",
        "valorCentavos": "VALOR_CENTAVOS",
        "referencia": "--referencia",
        "pagamentoOriginal.codigoAutorizacao": "--codigo-autorizacao",
        "pagamentoOriginal.numeroTransacao": "--numero-transacao",
        "pagamentoOriginal.dadosFinalizacao": "--dados-finalizacao",
        "pagamentoOriginal.tipoPagamento": "--tipo-pagamento",
        "pagamentoOriginal": "--codigo-autorizacao",
    },
    "refund --event": {
        "documentoCliente": "--event (its dados.documentoCliente)",
        "smartposId": "--event (its dados.smartposId)",
        "valorCentavos": "--valor-centavos",
        "referencia": "--referencia",
        "pagamentoOriginal.codigoAutorizacao": "--event (its dados.autorizacao.codigo)",
        "pagamentoOriginal.numeroTransacao": "--event (its dados.autorizacao.numeroTransacao)",
        "pagamentoOriginal.dadosFinalizacao": "--event (its dados.autorizacao.dadosFinalizacao)",
        "pagamentoOriginal.tipoPagamento": "--event (its dados.autorizacao.tipoPagamento)",
        "pagamentoOriginal": "--event",
    },
    "_sales:run": {"sale": "SALE", "motivo": "--motivo", "operador": "--operador"},
    "_service:print_job": {
        **_DOC,
        "smartposId": "SMARTPOS_ID",
        "referencia": "--referencia",
        "conteudo.base64": "FILE",
        "conteudo": "FILE",
    },
}
_BOOLEAN_OPTIONS: Final = frozenset({"--manual"})
# Phrases of the SDK's messages that only make sense in Python, and what the command says.
_PYTHON_PHRASES: Final = (
    (r"comanda=smartpos\.Comanda\([^)]*\)", "--comanda LABEL"),
    # The Portuguese messages (SMARTPOS_LANG=pt_BR) first: their "use smartpos..." would
    # otherwise meet the English rule below, and get an English ending.
    (
        r"use smartpos\.new_referencia\(\) ou smartpos\.referencia_for\(key\)"
        r"(, ou crie o cliente com strict_referencia=False para um sistema legado)?",
        "deixe --referencia de fora (uma nova é criada), ou crie uma com 'smartpos referencia'",
    ),
    (
        r"use refunds\.create com (os dados da autorização|o terminal que executou o pagamento)",
        "estorne com DOC SMARTPOS_ID VALOR_CENTAVOS e as opções de autorização em vez de --event",
    ),
    (
        r"use smartpos\.new_referencia\(\)( or smartpos\.referencia_for\(key\))?,?"
        r"( or build the client with strict_referencia=False for a legacy system)?",
        "leave --referencia out (a new one is made), or make one with 'smartpos referencia'",
    ),
    (
        r"use refunds\.create with (the authorization data|the terminal that executed the "
        r"payment)",
        "refund with DOC SMARTPOS_ID VALOR_CENTAVOS and the authorization options instead of "
        "--event",
    ),
    (r"(refunds\.)?create_for", "refund --event"),
)


def _handler(spec: str) -> Callable[[argparse.Namespace, Output], int]:
    module_name, _, function = spec.partition(":")
    module = importlib.import_module(f"{__package__}.{module_name}")
    handler: Callable[[argparse.Namespace, Output], int] = getattr(module, function)
    return handler


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, run the command, and turn what went wrong into an exit status.

    Args:
        argv: The arguments after the program name; ``sys.argv[1:]`` when ``None``.

    Returns:
        The exit status.
    """
    with argparse_words():  # usage, help headings and argparse's errors in SMARTPOS_LANG's
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else EXIT_USAGE
        if args.handler is None:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
    out = Output(json_mode=getattr(args, "json", False), no_colour=args.no_color)
    try:
        return _handler(args.handler)(args, out)
    except CommandError as exc:
        out.error(exc.message, hint=exc.hint)
        return exc.code
    except KeyboardInterrupt:
        out.line()
        return 130
    except BrokenPipeError:
        # `smartpos events list | head`: stop quietly, and keep Python from complaining again
        # when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - every SDK error becomes a message and a status
        return _report(exc, args, out)


def _options(args: argparse.Namespace) -> dict[str, str]:
    """The wire field -> option table of the command that ran (see ``_OPTIONS``)."""
    if args.handler == "_service:refund" and getattr(args, "event", None) is not None:
        options = _OPTIONS["refund --event"]
    else:
        options = _OPTIONS.get(args.handler, {})
    if hasattr(args, "api_key"):  # the client's own settings, in ConfigurationError messages
        options = {**options, "apiKey": "--api-key", "baseUrl": "--base-url"}
    return options


def cli_option(args: argparse.Namespace, campo: str | None) -> str | None:
    """Name what the user typed for a wire field: ``valorCentavos`` -> ``--valor-centavos``.

    Args:
        args: The parsed command line (its handler, and ``event`` for ``refund``).
        campo: A wire field, possibly nested (``comanda.itens[0].titulo``).

    Returns:
        The option or positional argument, or ``None`` when the command has none for it.
    """
    if not campo:
        return None
    options = _options(args)
    parts = re.split(r"(?=[.\[])", campo)  # comanda, .itens, [0], .titulo
    for size in range(len(parts), 0, -1):
        option = options.get("".join(parts[:size]))
        if option is not None:
            return option
    return None


def _snake(campo: str) -> str:
    last = campo.rsplit(".", 1)[-1]
    return re.sub(r"(?<!^)(?=[A-Z])", "_", last).lower()


def cli_words(args: argparse.Namespace, text: str) -> str:
    """Rewrite what an SDK message says in Python into what the command takes.

    ``send parcelas=1`` becomes ``send --parcelas 1``, ``needs smartpos_id`` becomes ``needs
    --smartpos-id``, ``comanda=smartpos.Comanda(...)`` becomes ``--comanda LABEL``. Wire names
    (``valorCentavos``) are the service's vocabulary and stay.

    Args:
        args: The parsed command line.
        text: An SDK message.

    Returns:
        The message in the command's terms.
    """
    for pattern, replacement in _PYTHON_PHRASES:
        text = re.sub(pattern, replacement, text)
    for campo, option in _options(args).items():
        name = _snake(campo)

        def swap(match: re.Match[str], option: str = option) -> str:
            value = match.group(1)
            if value is None or option in _BOOLEAN_OPTIONS or not option.startswith("--"):
                return option
            return f"{option} {value.strip(chr(39) + chr(34))}"

        value_part = r"(?:=('[^']*'|\"[^\"]*\"|[^\s,;:)]+))"
        # A name with an underscore is Python's; a plain word (parcelas) only in `name=value`.
        quantifier = "?" if "_" in name else ""
        text = re.sub(rf"(?<![\w.-])\b{re.escape(name)}\b{value_part}{quantifier}", swap, text)
    return text


def _report(exc: Exception, args: argparse.Namespace, out: Output) -> int:
    """Print an exception the way a user can act on, and return its exit status.

    JSON error keys are spelled like the success output (``request_id``, ``last_error``);
    text shows them with spaces.
    """
    from smartpos import _errors as errors

    base_url = getattr(args, "base_url", None) or os.environ.get("SMARTPOS_BASE_URL") or "?"
    terminal_op = bool(args.terminal_op)
    # Only the commands with service options send anything (referencia never does).
    sends = hasattr(args, "api_key")
    if isinstance(exc, errors.OutcomeUnknownError):
        out.error(
            words(
                "the outcome of referencia {referencia} is unknown: the service may have "
                "accepted it",
                referencia=exc.referencia,
            ),
            details={"referencia": exc.referencia, "last_error": _short(exc.last_error)},
            hint=words(
                "do NOT retry with a new referencia (that may charge or print twice). Wait for "
                "the webhook event whose dados.referencia is {referencia}.",
                referencia=exc.referencia,
            ),
        )
        return EXIT_UNKNOWN
    if isinstance(exc, errors.ReferenciaDuplicadaError) and terminal_op:
        # This call started nothing, but an earlier request under the same --referencia
        # may have: a new referencia could charge twice, so it is reported like an unknown
        # outcome (exit 3), never as "retry".
        referencia = getattr(args, "referencia", None) or "?"
        out.error(
            words(
                "the service already has a request with referencia {referencia} (HTTP 409)",
                referencia=referencia,
            ),
            details={
                "status_code": exc.status_code if out.json else None,
                "codigo": exc.codigo,
                "mensagem": exc.mensagem,
                "acao": exc.acao,
                "referencia": referencia,
                "request_id": exc.request_id,
            },
            hint=words(
                "do NOT retry with a new referencia: an earlier request under this one may have "
                "been accepted. Wait for the webhook event whose dados.referencia is "
                "{referencia}.",
                referencia=referencia,
            ),
        )
        return EXIT_UNKNOWN
    if isinstance(exc, errors.APIError):
        option = cli_option(args, exc.campo)
        out.error(
            words("the service refused the request (HTTP {status})", status=exc.status_code),
            details={
                "status_code": exc.status_code if out.json else None,
                "codigo": exc.codigo,
                "mensagem": exc.mensagem,
                "acao": exc.acao,
                "campo": exc.campo,
                "option": option,
                "request_id": exc.request_id,
            },
            hint=(
                (
                    words("fix {option} as acao says", option=option)
                    if option
                    else words("fix what acao says")
                )
                + words("; a new attempt needs a new referencia.")
                if terminal_op
                else (exc.acao or words("check the arguments and the API key."))
            ),
        )
        return EXIT_ERROR
    if isinstance(exc, errors.ValidationError):
        option = cli_option(args, exc.campo)
        mensagem = cli_words(args, exc.mensagem)
        if sends:
            message = words("refused locally before sending: nothing was sent")
        elif option:
            message = words("{option} is not valid", option=option)
        else:
            message = words("an argument is not valid")
        out.error(
            message,
            details={
                "codigo": exc.codigo,
                "campo": exc.campo if out.json else None,
                "option": option,
                "mensagem": mensagem,
            },
            hint=words("fix {option} and run the command again.", option=option)
            if option
            else words("fix the argument and run the command again."),
        )
        return EXIT_ERROR
    if isinstance(exc, errors.ConfigurationError):
        out.error(
            cli_words(args, str(exc)),
            hint=words(
                "set SMARTPOS_API_KEY and SMARTPOS_BASE_URL, or pass --api-key and --base-url. "
                "To try things out, run 'smartpos sandbox' in another terminal."
            ),
        )
        return EXIT_ERROR
    if isinstance(exc, errors.TransportError):
        out.error(
            words("could not reach the service at {url}: {error}", url=base_url, error=exc),
            hint=words(
                "check --base-url / SMARTPOS_BASE_URL and the network. Nothing reached the "
                "service, so it is safe to try again (with a new referencia)."
                if terminal_op
                else "check --base-url / SMARTPOS_BASE_URL and the network. Nothing reached the "
                "service, so it is safe to try again."
            ),
        )
        return EXIT_ERROR
    if isinstance(exc, errors.ResponseError):
        if terminal_op:
            out.error(
                words(
                    "the service accepted the request but its answer could not be read: {error}",
                    error=exc,
                ),
                details={"referencia": exc.referencia},
                hint=words(
                    "do NOT retry with a new referencia; wait for the event of this referencia."
                ),
            )
            return EXIT_UNKNOWN
        out.error(
            words("the service's answer could not be read: {error}", error=exc),
            hint=words("try again later."),
        )
        return EXIT_ERROR
    if isinstance(exc, errors.SmartPOSError):
        out.error(str(exc))
        return EXIT_ERROR
    if isinstance(exc, OSError):
        out.error(str(exc), hint=words("check the path and its permissions."))
        return EXIT_ERROR
    raise exc


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."
