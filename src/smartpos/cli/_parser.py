"""The ``smartpos`` command's parser: every command, action, option and its help.

Every help text, description and epilog is a ``cli.*`` message of the catalog: the parser is
built per run, once ``SMARTPOS_LANG`` is known, so ``--help`` is wholly in one language.

Only ``argparse``, ``os`` and the package version are imported here, so that ``smartpos --help``
does not load the sandbox, the webhook kit or segno; each command's module is imported when the
command runs (``args.handler`` names it).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, Final

from smartpos._messages import message
from smartpos._version import __version__

from ._convert import DEFAULT_STORE, store_default
from ._convert import delay as _delay
from ._convert import port as _port
from ._convert import positive_int as _positive_int
from ._convert import seconds as _seconds
from ._samples import TIPOS

__all__ = [
    "DEFAULT_LISTEN_PORT",
    "DEFAULT_SANDBOX_PORT",
    "DEFAULT_STORE",
    "TIPOS",
    "build_parser",
]

DEFAULT_SANDBOX_PORT: Final = 8765
"""Port of ``smartpos sandbox`` (the same as ``python -m smartpos.testing``)."""
DEFAULT_LISTEN_PORT: Final = 8766
"""Port of ``smartpos listen``."""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32)


def _parents() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    json_parent = argparse.ArgumentParser(add_help=False)
    json_parent.add_argument("--json", action="store_true", help=message("cli.help.json"))
    service = argparse.ArgumentParser(add_help=False)
    group = service.add_argument_group(message("cli.title.service"))
    group.add_argument(
        "--api-key",
        metavar="KEY",
        help=message("cli.help.service.api_key"),
    )
    group.add_argument("--base-url", metavar="URL", help=message("cli.help.service.base_url"))
    group.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        help=message("cli.help.service.timeout"),
    )
    group.add_argument(
        "--max-retries",
        type=int,
        default=2,
        metavar="N",
        help=message("cli.help.service.max_retries"),
    )
    return json_parent, service


def _add(
    sub: Any,
    name: str,
    handler: str,
    *,
    help: str,
    description: str,
    epilog: str = "",
    parents: Sequence[argparse.ArgumentParser] = (),
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help,
        description=description,
        epilog=epilog,
        parents=list(parents),
        formatter_class=_Formatter,
    )
    parser.set_defaults(handler=handler)
    return parser


def _signing_options(group: Any, command: str) -> None:
    """``--sign``, ``--secret`` and ``--sign-option`` of ``sandbox`` and ``trigger``."""
    from smartpos._signatures import SCHEMES  # the one list of schemes; imports nothing heavy

    group.add_argument(
        "--sign",
        metavar="SCHEME",
        choices=SCHEMES,
        help=message(
            "cli.help.sandbox.sign" if command == "sandbox" else "cli.help.trigger.sign",
            schemes=", ".join(SCHEMES),
        ),
    )
    group.add_argument(
        "--secret",
        action="append",
        metavar="SECRET",
        help=message("cli.help.sign.secret"),
    )
    group.add_argument(
        "--sign-option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=message("cli.help.sign.option"),
    )


def build_parser() -> argparse.ArgumentParser:
    """Build the parser of every command.

    Returns:
        The ``smartpos`` parser; ``args.handler`` names the function that runs the command.
    """
    parser = argparse.ArgumentParser(
        prog="smartpos",
        description=message("cli.about.smartpos"),
        epilog=message("cli.epilog.smartpos"),
        formatter_class=_Formatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"smartpos {__version__}",
        help=message("cli.help.smartpos.version"),  # argparse 3.10 does not translate its own
    )
    parser.add_argument(
        "--no-color", action="store_true", help=message("cli.help.smartpos.no_color")
    )
    parser.set_defaults(handler=None, terminal_op=False)
    json_parent, service = _parents()
    sub = parser.add_subparsers(title=message("cli.title.commands"), metavar="COMMAND")

    demo = _add(
        sub,
        "demo",
        "_demo:run",
        help=message("cli.command.demo"),
        description=message("cli.about.demo"),
        epilog=message("cli.example")
        + "\n  smartpos demo\n  smartpos demo --async --store inbox.sqlite3",
        parents=[json_parent],
    )
    demo.add_argument(
        "--async",
        dest="use_async",
        action="store_true",
        help=message("cli.help.demo.use_async"),
    )
    demo.add_argument("--store", metavar="PATH", help=message("cli.help.demo.store"))
    demo.add_argument(
        "--valor-centavos",
        type=_positive_int,
        default=4990,
        metavar="N",
        help=message("cli.help.demo.valor_centavos"),
    )
    demo.add_argument(
        "--wait",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help=message("cli.help.demo.wait"),
    )
    demo.add_argument(
        "--delay",
        type=_delay,
        default=0.6,
        metavar="SECONDS",
        help=message("cli.help.demo.delay"),
    )
    demo.add_argument("--no-qr", action="store_true", help=message("cli.help.demo.no_qr"))

    sandbox = _add(
        sub,
        "sandbox",
        "_sandbox:run",
        help=message("cli.command.sandbox"),
        description=message("cli.about.sandbox"),
        epilog=(
            message("cli.examples")
            + (
                "\n"
                "  smartpos sandbox --port 8765 --webhook http://127.0.0.1:8766/\n"
                "  smartpos sandbox --webhook http://127.0.0.1:8000/webhooks/smartpos/ \\\n"
                "      --webhook-header 'x-webhook-secret: change-me'\n"
                "  smartpos sandbox --webhook http://127.0.0.1:8000/webhooks/smartpos/ \\\n"
                "      --sign standard-webhooks --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"
                "  smartpos sandbox next payment recusar --mensagem 'SALDO INSUFICIENTE'\n"
                "  smartpos sandbox next payment atraso 5 duplicar\n"
                "  smartpos sandbox next payment segurar aprovar\n"
                "  smartpos sandbox fault payments drop\n"
                "  smartpos sandbox scan --smartpos-id SP-BALCAO-2\n"
                "  smartpos sandbox log"
            )
        ),
        parents=[json_parent],
    )
    sandbox.set_defaults(action=None)
    sandbox.add_argument(
        "--host",
        help=message("cli.help.sandbox.host"),
    )
    sandbox.add_argument(
        "--port",
        type=_port,
        help=message("cli.help.port", port=DEFAULT_SANDBOX_PORT),
    )
    sandbox.add_argument("--webhook", metavar="URL", help=message("cli.help.sandbox.webhook"))
    sandbox.add_argument("--seed", type=int, help=message("cli.help.sandbox.seed"))
    sandbox.add_argument("--quiet", action="store_true", help=message("cli.help.sandbox.quiet"))
    sandbox.add_argument(
        "--control-key",
        metavar="KEY",
        help=message("cli.help.sandbox.control_key"),
    )
    sandbox.add_argument(
        "--log-limit",
        type=_positive_int,
        metavar="N",
        help=message("cli.help.sandbox.log_limit"),
    )
    deliveries = sandbox.add_argument_group(message("cli.title.deliveries"))
    _signing_options(deliveries, "sandbox")
    deliveries.add_argument(
        "--webhook-header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help=message("cli.help.sandbox.webhook_header"),
    )
    deliveries.add_argument(
        "--webhook-attempts",
        type=_positive_int,
        metavar="N",
        help=message("cli.help.sandbox.webhook_attempts"),
    )
    deliveries.add_argument(
        "--webhook-backoff",
        type=_seconds,
        metavar="SECONDS",
        help=message("cli.help.sandbox.webhook_backoff"),
    )
    actions = sandbox.add_subparsers(
        title=message("cli.title.actions"), metavar="ACTION", dest="action"
    )
    url_parent = argparse.ArgumentParser(add_help=False)
    url_parent.add_argument(
        "--url",
        metavar="URL",
        help=message("cli.help.sandbox_url.url"),
    )
    url_parent.add_argument(
        "--control-key",
        metavar="KEY",
        default=argparse.SUPPRESS,
        help=message("cli.help.sandbox_url.control_key"),
    )
    scan = actions.add_parser(
        "scan",
        help=message("cli.command.sandbox_scan"),
        description=message("cli.about.sandbox_scan"),
        epilog=message("cli.example") + "\n  smartpos sandbox scan --smartpos-id SP-BALCAO-2",
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    scan.add_argument(
        "qr_code", metavar="QR_CODE", nargs="?", help=message("cli.help.sandbox_scan.qr_code")
    )
    scan.add_argument(
        "--smartpos-id",
        default="SP-SANDBOX-1",
        metavar="ID",
        help=message("cli.help.sandbox_scan.smartpos_id"),
    )
    next_ = actions.add_parser(
        "next",
        help=message("cli.command.sandbox_next"),
        description=message("cli.about.sandbox_next", accented="silêncio, contradição"),
        epilog=(
            message("cli.examples")
            + (
                "\n"
                "  smartpos sandbox next payment recusar --mensagem 'SALDO INSUFICIENTE'\n"
                "  smartpos sandbox next payment silencio --times 2\n"
                "  smartpos sandbox next payment atraso 5 recusar\n"
                "  smartpos sandbox next payment segurar aprovar\n"
                "  smartpos sandbox next payment contradicao recusar\n"
                "  smartpos sandbox next print falhar --always --smartpos-id SP-SANDBOX-1"
            )
        ),
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    next_.add_argument(
        "kind", choices=["payment", "print"], help=message("cli.help.sandbox_next.kind")
    )
    next_.add_argument(
        "outcome", nargs="+", metavar="OUTCOME", help=message("cli.help.sandbox_next.outcome")
    )
    next_.add_argument(
        "--times", type=_positive_int, default=1, metavar="N", help=message("cli.help.next_n")
    )
    next_.add_argument(
        "--smartpos-id", metavar="ID", help=message("cli.help.sandbox_next.smartpos_id")
    )
    next_.add_argument(
        "--always", action="store_true", help=message("cli.help.sandbox_next.always")
    )
    next_.add_argument("--mensagem", metavar="TEXT", help="resultadoSmartPOS.mensagemOperador")
    next_.add_argument("--status", metavar="TEXT", help=message("cli.help.sandbox_next.status"))
    next_.add_argument("--codigo-status", metavar="CODE", help="resultadoSmartPOS.codigoStatus")
    fault = actions.add_parser(
        "fault",
        help=message("cli.command.sandbox_fault"),
        description=message("cli.about.sandbox_fault"),
        epilog=(
            message("cli.examples")
            + (
                "\n"
                "  smartpos sandbox fault payments drop\n"
                "  smartpos sandbox fault payments 500 --after-accept\n"
                "  smartpos sandbox fault any 429 --retry-after 3 --times 2\n"
                "  smartpos sandbox fault webhook 503 --times 3\n"
                "  smartpos sandbox fault --clear"
            )
        ),
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    fault.add_argument(
        "endpoint", nargs="?", metavar="ENDPOINT", help=message("cli.help.sandbox_fault.endpoint")
    )
    fault.add_argument(
        "fault", nargs="*", metavar="FAULT", help=message("cli.help.sandbox_fault.fault")
    )
    fault.add_argument(
        "--times", type=_positive_int, default=1, metavar="N", help=message("cli.help.next_n")
    )
    when = fault.add_mutually_exclusive_group()
    when.add_argument(
        "--after-accept",
        action="store_true",
        help=message("cli.help.sandbox_fault.after_accept"),
    )
    when.add_argument(
        "--before-accept",
        action="store_true",
        help=message("cli.help.sandbox_fault.before_accept"),
    )
    fault.add_argument("--retry-after", type=_positive_int, metavar="N", help="429: Retry-After")
    fault.add_argument("--clear", action="store_true", help=message("cli.help.sandbox_fault.clear"))
    resend = actions.add_parser(
        "resend",
        help=message("cli.command.sandbox_resend"),
        description=message("cli.about.sandbox_resend"),
        epilog=message("cli.example") + "\n  smartpos sandbox resend EVENT_ID",
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    resend.add_argument("event_id", metavar="EVENT_ID")
    resend.add_argument("--to", metavar="URL", help=message("cli.help.sandbox_resend.to"))
    actions.add_parser(
        "held",
        help=message("cli.command.sandbox_held"),
        description=message("cli.about.sandbox_held"),
        epilog=message("cli.example") + "\n  smartpos sandbox held --json",
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    release = actions.add_parser(
        "release",
        help=message("cli.command.sandbox_release"),
        description=message("cli.about.sandbox_release"),
        epilog=message("cli.example") + "\n  smartpos sandbox release REFERENCIA",
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    release.add_argument(
        "referencia", metavar="REFERENCIA", help=message("cli.help.sandbox_release.referencia")
    )
    log = actions.add_parser(
        "log",
        help=message("cli.command.sandbox_log"),
        description=message("cli.about.sandbox_log"),
        epilog=message("cli.examples") + "\n  smartpos sandbox log\n  smartpos sandbox log --json",
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    log.add_argument(
        "-f", "--follow", action="store_true", help=message("cli.help.sandbox_log.follow")
    )
    log.add_argument(
        "--since", type=int, default=0, metavar="SEQ", help=message("cli.help.sandbox_log.since")
    )
    operator = actions.add_parser(
        "operator",
        help=message("cli.command.sandbox_operator"),
        description=message("cli.about.sandbox_operator"),
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    operator_actions = operator.add_subparsers(
        title=message("cli.title.actions"), metavar="ACTION", dest="operator_action"
    )
    operator_actions.required = True
    card = argparse.ArgumentParser(add_help=False)
    card.add_argument(
        "referencia",
        metavar="REFERENCIA",
        nargs="?",
        help=message("cli.help.sandbox_operator.referencia"),
    )
    start = operator_actions.add_parser(
        "start",
        help=message("cli.command.sandbox_operator_start"),
        description=message("cli.about.sandbox_operator_start"),
        parents=[json_parent, url_parent, card],
        formatter_class=_Formatter,
    )
    start.add_argument(
        "--smartpos-id", metavar="ID", help=message("cli.help.sandbox_operator_start.smartpos_id")
    )
    cancel = operator_actions.add_parser(
        "cancel",
        help=message("cli.command.sandbox_operator_cancel"),
        description=message("cli.about.sandbox_operator_cancel"),
        parents=[json_parent, url_parent, card],
        formatter_class=_Formatter,
    )
    cancel.add_argument(
        "--mensagem",
        metavar="TEXT",
        default="CANCELADO PELO OPERADOR",
        help=message("cli.help.sandbox_operator_cancel.mensagem"),
    )

    referencia = _add(
        sub,
        "referencia",
        "_service:referencia",
        help=message("cli.command.referencia"),
        description=message("cli.about.referencia"),
        epilog=message("cli.example") + "\n  smartpos referencia --suffix pdv7",
        parents=[json_parent],
    )
    referencia.add_argument("--suffix", help=message("cli.help.referencia.suffix"))

    qrcode = _add(
        sub,
        "qrcode",
        "_service:qrcode",
        help=message("cli.command.qrcode"),
        description=message("cli.about.qrcode"),
        epilog=message("cli.example") + "\n  smartpos qrcode 529.982.247-25 --png qr.png",
        parents=[json_parent, service],
    )
    qrcode.add_argument("documento", metavar="DOC", help=message("cli.help.qrcode.documento"))
    qrcode.add_argument("--referencia", help=message("cli.help.qrcode.referencia"))
    image = qrcode.add_mutually_exclusive_group()
    image.add_argument("--png", metavar="PATH", help=message("cli.help.qrcode.png"))
    image.add_argument("--svg", metavar="PATH", help=message("cli.help.qrcode.svg"))
    qrcode.add_argument("--no-draw", action="store_true", help=message("cli.help.qrcode.no_draw"))
    qrcode.add_argument("--invert", action="store_true", help=message("cli.help.qrcode.invert"))

    pay = _add(
        sub,
        "pay",
        "_service:pay",
        help=message("cli.command.pay"),
        description=message("cli.about.pay"),
        epilog=(
            message("cli.examples")
            + (
                "\n"
                "  smartpos pay 52998224725 1990 --smartpos-id SP-SANDBOX-1 --forma pix\n"
                "  smartpos pay 52998224725 30000 --smartpos-id SP-SANDBOX-1 --forma credito \\\n"
                "      --parcelas 3 --parcelamento estabelecimento\n"
                "  smartpos pay 52998224725 4500 --manual --comanda 'Mesa 12' --item 'Pizza'"
            )
        ),
        parents=[json_parent, service],
    )
    pay.set_defaults(terminal_op=True)
    pay.add_argument("documento", metavar="DOC", help=message("cli.help.pay.documento"))
    pay.add_argument(
        "valor_centavos",
        metavar="VALOR_CENTAVOS",
        type=int,
        help=message("cli.help.pay.valor_centavos"),
    )
    pay.add_argument("--smartpos-id", metavar="ID", help=message("cli.help.pay.smartpos_id"))
    pay.add_argument("--forma", choices=["credito", "debito", "pix", "voucher"])
    pay.add_argument("--parcelas", type=int, metavar="N", help=message("cli.help.pay.parcelas"))
    pay.add_argument("--parcelamento", choices=["estabelecimento", "administradora"])
    pay.add_argument("--manual", action="store_true", help=message("cli.help.pay.manual"))
    pay.add_argument("--comanda", metavar="LABEL", help=message("cli.help.pay.comanda"))
    pay.add_argument(
        "--item",
        action="append",
        default=[],
        metavar="TITULO[:DESCRICAO]",
        help=message("cli.help.pay.item"),
    )
    pay.add_argument("--endereco", help=message("cli.help.pay.endereco"))
    receipts = {
        "cliente": message("cli.help.pay.imprimir_cliente"),
        "loja": message("cli.help.pay.imprimir_loja"),
    }
    for who, receipt_help in receipts.items():
        pay.add_argument(f"--imprimir-{who}", action="store_true", help=receipt_help)
    pay.add_argument("--referencia", help=message("cli.help.pay.referencia"))

    refund = _add(
        sub,
        "refund",
        "_service:refund",
        help=message("cli.command.refund"),
        description=message("cli.about.refund"),
        epilog=(
            message("cli.examples")
            + (
                "\n"
                "  smartpos refund --event aprovado.json\n"
                "  smartpos refund --event aprovado.json --valor-centavos 500\n"
                "  smartpos events show EVENT_ID --json | smartpos refund --event -\n"
                "  smartpos refund 52998224725 SP-SANDBOX-1 1990 --codigo-autorizacao 77FF4Y \\\n"
                "      --numero-transacao 700725970931 \\\n"
                "      --dados-finalizacao '634431|T2D71H4T3C29|0984' --tipo-pagamento CREDITO"
            )
        ),
        parents=[json_parent, service],
    )
    refund.set_defaults(terminal_op=True)
    refund.add_argument(
        "documento", metavar="DOC", nargs="?", help=message("cli.help.pay.documento")
    )
    refund.add_argument(
        "smartpos_id", metavar="SMARTPOS_ID", nargs="?", help=message("cli.help.refund.smartpos_id")
    )
    refund.add_argument(
        "valor_centavos",
        metavar="VALOR_CENTAVOS",
        nargs="?",
        type=int,
        help=message("cli.help.refund.valor_centavos"),
    )
    refund.add_argument(
        "--event",
        metavar="FILE",
        help=message("cli.help.refund.event"),
    )
    refund.add_argument(
        "--valor-centavos",
        dest="valor_parcial",
        type=_positive_int,
        metavar="N",
        help=message("cli.help.refund.valor_parcial"),
    )
    refund.add_argument("--codigo-autorizacao", metavar="CODIGO")
    refund.add_argument("--numero-transacao", metavar="NUMERO")
    refund.add_argument("--dados-finalizacao", metavar="DADOS")
    refund.add_argument("--tipo-pagamento", metavar="TIPO")
    refund.add_argument("--referencia", help=message("cli.help.refund.referencia"))

    print_ = _add(
        sub,
        "print",
        "_service:print_job",
        help=message("cli.command.print"),
        description=message("cli.about.print"),
        epilog=message("cli.examples")
        + (
            "\n"
            "  smartpos print 52998224725 SP-SANDBOX-1 recibo.txt\n"
            "  echo 'Obrigado!' | smartpos print 52998224725 SP-SANDBOX-1 -"
        ),
        parents=[json_parent, service],
    )
    print_.set_defaults(terminal_op=True)
    print_.add_argument("documento", metavar="DOC", help=message("cli.help.pay.documento"))
    print_.add_argument(
        "smartpos_id", metavar="SMARTPOS_ID", help=message("cli.help.print.smartpos_id")
    )
    print_.add_argument("file", metavar="FILE", help=message("cli.help.print.file"))
    print_.add_argument("--referencia", help=message("cli.help.print.referencia"))

    terminals = _add(
        sub,
        "terminals",
        "_service:terminals",
        help=message("cli.command.terminals"),
        description=message("cli.about.terminals"),
        epilog=message("cli.example") + "\n  smartpos terminals 52998224725 --json",
        parents=[json_parent, service],
    )
    terminals.add_argument("documento", metavar="DOC", help=message("cli.help.pay.documento"))

    listen = _add(
        sub,
        "listen",
        "_listen:run",
        help=message("cli.command.listen"),
        description=message("cli.about.listen"),
        epilog=(
            message("cli.examples")
            + (
                "\n"
                "  smartpos listen\n"
                "  smartpos listen --port 9000 --store inbox.sqlite3 \\\n"
                "      --forward-to http://127.0.0.1:8000/webhooks/smartpos"
            )
        ),
        parents=[json_parent],
    )
    listen.add_argument("--host", default="127.0.0.1", help=message("cli.help.listen.host"))
    listen.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_LISTEN_PORT,
        help=message("cli.help.port", port=DEFAULT_LISTEN_PORT),
    )
    listen.add_argument(
        "--store", metavar="STORE", default=store_default(), help=message("cli.help.store")
    )
    listen.add_argument("--namespace", metavar="NAME", help=message("cli.help.namespace"))
    listen.add_argument("--forward-to", metavar="URL", help=message("cli.help.listen.forward_to"))

    trigger = _add(
        sub,
        "trigger",
        "_samples:trigger",
        help=message("cli.command.trigger"),
        description=message("cli.about.trigger"),
        epilog=(
            message("cli.examples")
            + (
                "\n"
                "  smartpos trigger pagamento.aprovado\n"
                "  smartpos trigger pagamento.aprovado --to http://127.0.0.1:8766/\n"
                "  smartpos trigger pagamento.aprovado --to http://127.0.0.1:8766/ --resend ID"
            )
        ),
        parents=[json_parent],
    )
    trigger.add_argument("tipo", metavar="TIPO", choices=TIPOS, help=", ".join(TIPOS))
    trigger.add_argument(
        "--to",
        default=f"http://127.0.0.1:{DEFAULT_LISTEN_PORT}/",
        metavar="URL",
        help=message("cli.help.trigger.to", url=f"http://127.0.0.1:{DEFAULT_LISTEN_PORT}/"),
    )
    where = trigger.add_mutually_exclusive_group()
    where.add_argument(
        "--sandbox",
        metavar="URL",
        help=message("cli.help.trigger.sandbox"),
    )
    where.add_argument(
        "--no-sandbox", action="store_true", help=message("cli.help.trigger.no_sandbox")
    )
    trigger.add_argument(
        "--resend",
        metavar="ID",
        help=message("cli.help.trigger.resend"),
    )
    trigger.add_argument("--documento", metavar="DOC", help=message("cli.help.trigger.documento"))
    trigger.add_argument("--referencia", help=message("cli.help.trigger.referencia"))
    trigger.add_argument("--smartpos-id", metavar="ID", help="dados.smartposId (SP-SANDBOX-1)")
    trigger.add_argument(
        "--valor-centavos",
        type=_positive_int,
        metavar="N",
        help=message("cli.help.trigger.valor_centavos"),
    )
    trigger.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help=message("cli.help.trigger.header"),
    )
    trigger.add_argument(
        "--timeout",
        type=_seconds,
        default=5.0,
        metavar="SECONDS",
        help=message("cli.help.timeout_5"),
    )
    _signing_options(trigger.add_argument_group(message("cli.title.signing")), "trigger")

    events = _add(
        sub,
        "events",
        "_events:run",
        help=message("cli.command.events"),
        description=message("cli.about.events"),
        epilog=(
            message("cli.examples")
            + (
                "\n"
                "  smartpos events list --state dead\n"
                "  smartpos events show EVENT_ID --json\n"
                "  smartpos events requeue EVENT_ID --store inbox.sqlite3\n"
                "  smartpos events resend EVENT_ID --to http://127.0.0.1:8000/webhooks"
            )
        ),
    )
    events_sub = events.add_subparsers(
        title=message("cli.title.actions"), metavar="ACTION", dest="action"
    )
    events_sub.required = True
    store_parent = argparse.ArgumentParser(add_help=False)
    store_parent.add_argument(
        "--store", metavar="STORE", default=store_default(), help=message("cli.help.store")
    )
    store_parent.add_argument("--namespace", metavar="NAME", help=message("cli.help.namespace"))
    ev_list = events_sub.add_parser(
        "list",
        help=message("cli.command.events_list"),
        description=message("cli.about.events_list"),
        parents=[json_parent, store_parent],
        formatter_class=_Formatter,
    )
    ev_list.add_argument(
        "--state",
        choices=["pending", "claimed", "done", "dead"],
        help=message("cli.help.events_list.state"),
    )
    ev_list.add_argument(
        "--limit", type=_positive_int, default=100, metavar="N", help=message("cli.help.at_most_n")
    )
    ev_show = events_sub.add_parser(
        "show",
        help=message("cli.command.events_show"),
        description=message("cli.about.events_show"),
        parents=[json_parent, store_parent],
        formatter_class=_Formatter,
    )
    ev_show.add_argument("event_id", metavar="ID")
    ev_requeue = events_sub.add_parser(
        "requeue",
        help=message("cli.command.events_requeue"),
        description=message("cli.about.events_requeue"),
        parents=[json_parent, store_parent],
        formatter_class=_Formatter,
    )
    ev_requeue.add_argument("event_id", metavar="ID")
    ev_resend = events_sub.add_parser(
        "resend",
        help=message("cli.command.events_resend"),
        description=message("cli.about.events_resend"),
        epilog=message("cli.example")
        + "\n  smartpos events resend EVENT_ID --to http://127.0.0.1:8000/webhooks",
        parents=[json_parent, store_parent],
        formatter_class=_Formatter,
    )
    ev_resend.add_argument("event_id", metavar="ID")
    ev_resend.add_argument(
        "--to", required=True, metavar="URL", help=message("cli.help.events_resend.to")
    )
    ev_resend.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help=message("cli.help.events_resend.header"),
    )
    ev_resend.add_argument(
        "--timeout",
        type=_seconds,
        default=5.0,
        metavar="SECONDS",
        help=message("cli.help.timeout_5"),
    )
    from ._operations import add_parser as add_operations  # argparse only, like this module

    add_operations(sub, service=service, formatter=_Formatter)
    from ._sales import add_parser as add_sales  # argparse only, like this module

    add_sales(sub, service=service, formatter=_Formatter)
    from ._conformance import add_parser as add_conformance  # argparse only, like this module

    add_conformance(sub, formatter=_Formatter)
    return parser
