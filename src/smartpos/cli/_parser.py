"""The ``smartpos`` command's parser: every command, action, option and its help.

Only ``argparse``, ``os`` and the package version are imported here, so that ``smartpos --help``
does not load the sandbox, the webhook kit or segno; each command's module is imported when the
command runs (``args.handler`` names it).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, Final

from smartpos._version import __version__

from ._convert import DEFAULT_STORE, NAMESPACE_HELP, STORE_HELP, store_default
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

_EXIT_STATUSES = """\
exit status:
  0  success
  1  error: the service refused (codigo, mensagem and acao are printed), a local
     validation error, a network failure, a file that cannot be read
  2  usage error
  3  outcome unknown: the service may have accepted the payment, refund or print
     job; do NOT retry with a new referencia, wait for the event of that referencia

environment:
  SMARTPOS_API_KEY   the integration key (or --api-key; it is never printed)
  SMARTPOS_BASE_URL  the service's base address (or --base-url)
  SMARTPOS_INBOX     the store of listen, events and operations: a file or a URL
                     (default: smartpos-inbox.db)
  SMARTPOS_SANDBOX_URL  the running sandbox of 'sandbox ACTION' and trigger (default:
                     SMARTPOS_BASE_URL, else http://127.0.0.1:8765)
  SMARTPOS_SANDBOX_HOST, _PORT, _WEBHOOK, _SEED, _LOG, _LOG_LIMIT  what 'smartpos sandbox'
                     serves
  SMARTPOS_SANDBOX_CONTROL_KEY  the control API's key (served, and sent by the actions)
  NO_COLOR           any value turns colours off (colour is only used on a terminal)
"""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32)


def _parents() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    json_parent = argparse.ArgumentParser(add_help=False)
    json_parent.add_argument(
        "--json", action="store_true", help="print JSON for scripts instead of text"
    )
    service = argparse.ArgumentParser(add_help=False)
    group = service.add_argument_group("service")
    group.add_argument(
        "--api-key",
        metavar="KEY",
        help=(
            "integration key (default: env SMARTPOS_API_KEY, which is safer: a key on the "
            "command line shows in ps and in the shell's history)"
        ),
    )
    group.add_argument(
        "--base-url", metavar="URL", help="service address (default: env SMARTPOS_BASE_URL)"
    )
    group.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        help="HTTP timeout (default: 5 s to connect, 30 s otherwise)",
    )
    group.add_argument(
        "--max-retries",
        type=int,
        default=2,
        metavar="N",
        help="retries of a failed call, always with the same referencia (default: 2)",
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


def build_parser() -> argparse.ArgumentParser:
    """Build the parser of every command.

    Returns:
        The ``smartpos`` parser; ``args.handler`` names the function that runs the command.
    """
    parser = argparse.ArgumentParser(
        prog="smartpos",
        description=(
            "Drive smart POS payment terminals from the command line, receive and replay\n"
            "their webhook events, and try it all against an embedded sandbox.\n\n"
            "Start with:  smartpos demo"
        ),
        epilog=_EXIT_STATUSES,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"smartpos {__version__}")
    parser.add_argument(
        "--no-color", action="store_true", help="no colours (also: env NO_COLOR set)"
    )
    parser.set_defaults(handler=None, terminal_op=False)
    json_parent, service = _parents()
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    demo = _add(
        sub,
        "demo",
        "_demo:run",
        help="run a whole sale against an embedded sandbox, in seconds",
        description=(
            "Start an embedded sandbox and a local webhook receiver with an SQLite inbox, then\n"
            "pair a terminal with a QR code, charge (a refusal retried with a new referencia,\n"
            "an approval, a lost answer settled by reconcile), print a receipt on the\n"
            "terminal, refund, and show every event as it arrives."
        ),
        epilog="example:\n  smartpos demo\n  smartpos demo --async --store inbox.sqlite3",
        parents=[json_parent],
    )
    demo.add_argument(
        "--async",
        dest="use_async",
        action="store_true",
        help="run the same flow on smartpos.AsyncClient (asyncio)",
    )
    demo.add_argument(
        "--store", metavar="PATH", help="keep the inbox in this SQLite file (default: temporary)"
    )
    demo.add_argument(
        "--valor-centavos",
        type=_positive_int,
        default=4990,
        metavar="N",
        help="amount to charge, in cents (default: 4990)",
    )
    demo.add_argument(
        "--wait",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="longest wait for each event (default: 10)",
    )
    demo.add_argument(
        "--delay",
        type=_delay,
        default=0.6,
        metavar="SECONDS",
        help="how long the simulated customer takes at the terminal (default: 0.6)",
    )
    demo.add_argument("--no-qr", action="store_true", help="do not draw the QR code")

    sandbox = _add(
        sub,
        "sandbox",
        "_sandbox:run",
        help="serve the simulator of the service, or drive a running one",
        description=(
            "Without an action: serve the sandbox, a simulator of the whole service, over HTTP\n"
            "until Ctrl-C or SIGTERM, printing one line per request and per delivery attempt.\n"
            "Options can come from SMARTPOS_SANDBOX_HOST, _PORT, _WEBHOOK, _SEED, _LOG,\n"
            "_CONTROL_KEY and _LOG_LIMIT.\n\n"
            "With an action: drive a running sandbox through its control API (--url, else\n"
            "SMARTPOS_SANDBOX_URL, else SMARTPOS_BASE_URL, else http://127.0.0.1:8765)."
        ),
        epilog=(
            "examples:\n"
            "  smartpos sandbox --port 8765 --webhook http://127.0.0.1:8766/\n"
            "  smartpos sandbox next payment recusar --mensagem 'SALDO INSUFICIENTE'\n"
            "  smartpos sandbox next payment atraso 5 duplicar\n"
            "  smartpos sandbox fault payments drop\n"
            "  smartpos sandbox scan --smartpos-id SP-BALCAO-2\n"
            "  smartpos sandbox log"
        ),
        parents=[json_parent],
    )
    sandbox.set_defaults(action=None)
    sandbox.add_argument(
        "--host",
        help="address to bind (default 127.0.0.1; another one, such as 0.0.0.0 in a "
        "container, is served with a warning)",
    )
    sandbox.add_argument(
        "--port",
        type=_port,
        help=f"port, 0 for any free one (default: {DEFAULT_SANDBOX_PORT})",
    )
    sandbox.add_argument(
        "--webhook", metavar="URL", help="also deliver every event to this URL (loopback)"
    )
    sandbox.add_argument("--seed", type=int, help="seed for reproducible ids")
    sandbox.add_argument("--quiet", action="store_true", help="no line per request and delivery")
    sandbox.add_argument(
        "--control-key",
        metavar="KEY",
        help="serving: require this key on the control API; actions: send it (default: env "
        "SMARTPOS_SANDBOX_CONTROL_KEY, which other users of the machine cannot see)",
    )
    sandbox.add_argument(
        "--log-limit",
        type=_positive_int,
        metavar="N",
        help="keep the last N log entries, requests and deliveries (default: 10000)",
    )
    actions = sandbox.add_subparsers(title="actions", metavar="ACTION", dest="action")
    url_parent = argparse.ArgumentParser(add_help=False)
    url_parent.add_argument(
        "--url",
        metavar="URL",
        help="the running sandbox (default: env SMARTPOS_SANDBOX_URL, else SMARTPOS_BASE_URL, "
        "else http://127.0.0.1:8765)",
    )
    url_parent.add_argument(
        "--control-key",
        metavar="KEY",
        default=argparse.SUPPRESS,
        help="the sandbox's control key (default: env SMARTPOS_SANDBOX_CONTROL_KEY)",
    )
    scan = actions.add_parser(
        "scan",
        help="a terminal reads a QR code (pairing)",
        description="A terminal reads a QR code: smartpos.identificado is delivered.",
        epilog="example:\n  smartpos sandbox scan --smartpos-id SP-BALCAO-2",
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    scan.add_argument(
        "qr_code", metavar="QR_CODE", nargs="?", help="the qrCode value (default: the newest)"
    )
    scan.add_argument(
        "--smartpos-id", default="SP-SANDBOX-1", metavar="ID", help="the terminal (SP-SANDBOX-1)"
    )
    next_ = actions.add_parser(
        "next",
        help="script what the next payments or print jobs do",
        description=(
            "Script the outcome of the next payment or print job (or of every one, --always).\n"
            "payment: aprovar, recusar, silencio (no event ever);  print: concluir, falhar,\n"
            "silencio. Any of them may follow these words, which change how the event\n"
            "travels: atraso SECONDS (late), duplicar (twice, same id), fora-de-ordem (after\n"
            "the next event), contradicao (followed by an event saying the opposite).\n"
            "Accented forms work too (silêncio, contradição)."
        ),
        epilog=(
            "examples:\n"
            "  smartpos sandbox next payment recusar --mensagem 'SALDO INSUFICIENTE'\n"
            "  smartpos sandbox next payment silencio --times 2\n"
            "  smartpos sandbox next payment atraso 5 recusar\n"
            "  smartpos sandbox next print falhar --always --smartpos-id SP-SANDBOX-1"
        ),
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    next_.add_argument("kind", choices=["payment", "print"], help="payment or print")
    next_.add_argument("outcome", nargs="+", metavar="OUTCOME", help="the outcome's words")
    next_.add_argument(
        "--times", type=_positive_int, default=1, metavar="N", help="the next N (default 1)"
    )
    next_.add_argument("--smartpos-id", metavar="ID", help="only on this terminal")
    next_.add_argument(
        "--always", action="store_true", help="from now on, when nothing is scripted"
    )
    next_.add_argument("--mensagem", metavar="TEXT", help="resultadoSmartPOS.mensagemOperador")
    next_.add_argument("--status", metavar="TEXT", help="dados.status of a refusal or failure")
    next_.add_argument("--codigo-status", metavar="CODE", help="resultadoSmartPOS.codigoStatus")
    fault = actions.add_parser(
        "fault",
        help="make the next requests or webhook deliveries fail",
        description=(
            "Make the next requests to an endpoint fail (payments, refunds, print-jobs,\n"
            "qrcodes, terminals, or any): 500 (--after-accept: processed first), 502, 429\n"
            "(--retry-after N), latency SECONDS, drop (the answer is lost after acceptance;\n"
            "--before-accept: nothing was read), refuse (the same as drop --before-accept),\n"
            "timeout. For 'webhook': a status that\n"
            "is not 2xx (500, 503...) or timeout, for the next delivery attempts."
        ),
        epilog=(
            "examples:\n"
            "  smartpos sandbox fault payments drop\n"
            "  smartpos sandbox fault payments 500 --after-accept\n"
            "  smartpos sandbox fault any 429 --retry-after 3 --times 2\n"
            "  smartpos sandbox fault webhook 503 --times 3\n"
            "  smartpos sandbox fault --clear"
        ),
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    fault.add_argument("endpoint", nargs="?", metavar="ENDPOINT", help="where it applies")
    fault.add_argument("fault", nargs="*", metavar="FAULT", help="the fault's words")
    fault.add_argument(
        "--times", type=_positive_int, default=1, metavar="N", help="the next N (default 1)"
    )
    when = fault.add_mutually_exclusive_group()
    when.add_argument(
        "--after-accept",
        action="store_true",
        help="500, drop: after the operation was processed (drop's default)",
    )
    when.add_argument(
        "--before-accept",
        action="store_true",
        help="drop: before anything was read (the same as 'refuse')",
    )
    fault.add_argument("--retry-after", type=_positive_int, metavar="N", help="429: Retry-After")
    fault.add_argument("--clear", action="store_true", help="forget every fault not used yet")
    resend = actions.add_parser(
        "resend",
        help="deliver an event again, with the same id",
        description="Deliver an event again with the same id, like the service's manual resend.",
        epilog="example:\n  smartpos sandbox resend EVENT_ID",
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    resend.add_argument("event_id", metavar="EVENT_ID")
    resend.add_argument(
        "--to", metavar="URL", help="only to this URL, once (default: the partner's webhook)"
    )
    log = actions.add_parser(
        "log",
        help="show the requests and deliveries of a running sandbox",
        description="Show every request and delivery attempt of a running sandbox, in order.",
        epilog="examples:\n  smartpos sandbox log\n  smartpos sandbox log --json",
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    log.add_argument(
        "-f", "--follow", action="store_true", help="keep printing new entries until Ctrl-C"
    )
    log.add_argument(
        "--since", type=int, default=0, metavar="SEQ", help="only entries after this number"
    )
    operator = actions.add_parser(
        "operator",
        help="the operator starts or cancels a manual-mode card",
        description=(
            "Act as the operator of manual mode: start a card waiting in the queue on a\n"
            "terminal (its payment goes on as scripted), or cancel it (pagamento.recusado,\n"
            "status cancelado). Without REFERENCIA: the oldest card in the queue. A card is\n"
            "queued by a payment in manual mode (smartpos pay ... --manual --comanda LABEL)."
        ),
        parents=[json_parent, url_parent],
        formatter_class=_Formatter,
    )
    operator_actions = operator.add_subparsers(
        title="actions", metavar="ACTION", dest="operator_action"
    )
    operator_actions.required = True
    card = argparse.ArgumentParser(add_help=False)
    card.add_argument(
        "referencia",
        metavar="REFERENCIA",
        nargs="?",
        help="the card's payment referencia (default: the oldest card in the queue)",
    )
    start = operator_actions.add_parser(
        "start",
        help="start a queued card on a terminal",
        description="Start a queued card on a terminal: its payment event follows.",
        parents=[json_parent, url_parent, card],
        formatter_class=_Formatter,
    )
    start.add_argument(
        "--smartpos-id", metavar="ID", help="the terminal (needed when the card has several)"
    )
    cancel = operator_actions.add_parser(
        "cancel",
        help="cancel a queued card (pagamento.recusado)",
        description="Cancel a queued card: it leaves the queue, pagamento.recusado is emitted.",
        parents=[json_parent, url_parent, card],
        formatter_class=_Formatter,
    )
    cancel.add_argument(
        "--mensagem",
        metavar="TEXT",
        default="CANCELADO PELO OPERADOR",
        help="resultadoSmartPOS.mensagemOperador (default: CANCELADO PELO OPERADOR)",
    )

    referencia = _add(
        sub,
        "referencia",
        "_service:referencia",
        help="print a new referencia (a UUID, optionally -suffix)",
        description="Print a new referencia: one per operational attempt (spec 2.6).",
        epilog="example:\n  smartpos referencia --suffix pdv7",
        parents=[json_parent],
    )
    referencia.add_argument("--suffix", help="appended after the UUID as -SUFFIX")

    qrcode = _add(
        sub,
        "qrcode",
        "_service:qrcode",
        help="create a QR code that pairs a terminal, and draw it",
        description=(
            "Create a QR code for a customer (POST /qrcode) and draw it in the terminal.\n"
            "When a terminal reads it, smartpos.identificado carries its smartposId."
        ),
        epilog="example:\n  smartpos qrcode 529.982.247-25 --png qr.png",
        parents=[json_parent, service],
    )
    qrcode.add_argument("documento", metavar="DOC", help="customer CPF or CNPJ (masked or not)")
    qrcode.add_argument("--referencia", help="echoed back (default: a new one)")
    image = qrcode.add_mutually_exclusive_group()
    image.add_argument("--png", metavar="PATH", help="also save it as a PNG image")
    image.add_argument("--svg", metavar="PATH", help="also save it as an SVG image")
    qrcode.add_argument("--no-draw", action="store_true", help="do not draw it in the terminal")
    qrcode.add_argument(
        "--invert", action="store_true", help="for terminals with a light background"
    )

    pay = _add(
        sub,
        "pay",
        "_service:pay",
        help="ask a terminal for a payment",
        description=(
            "Ask for a payment (POST /v1/payments). The answer only means accepted: the sale\n"
            "is final when pagamento.aprovado with the same referencia reaches your webhook."
        ),
        epilog=(
            "examples:\n"
            "  smartpos pay 52998224725 1990 --smartpos-id SP-SANDBOX-1 --forma pix\n"
            "  smartpos pay 52998224725 30000 --smartpos-id SP-SANDBOX-1 --forma credito \\\n"
            "      --parcelas 3 --parcelamento estabelecimento\n"
            "  smartpos pay 52998224725 4500 --manual --comanda 'Mesa 12' --item 'Pizza'"
        ),
        parents=[json_parent, service],
    )
    pay.set_defaults(terminal_op=True)
    pay.add_argument("documento", metavar="DOC", help="customer CPF or CNPJ")
    pay.add_argument(
        "valor_centavos", metavar="VALOR_CENTAVOS", type=int, help="amount in cents (1990)"
    )
    pay.add_argument("--smartpos-id", metavar="ID", help="terminal that charges (imediato mode)")
    pay.add_argument("--forma", choices=["credito", "debito", "pix", "voucher"])
    pay.add_argument("--parcelas", type=int, metavar="N", help="installments (credito)")
    pay.add_argument("--parcelamento", choices=["estabelecimento", "administradora"])
    pay.add_argument(
        "--manual", action="store_true", help="a card in the operator's queue (needs --comanda)"
    )
    pay.add_argument("--comanda", metavar="LABEL", help="label of the manual-queue card")
    pay.add_argument(
        "--item",
        action="append",
        default=[],
        metavar="TITULO[:DESCRICAO]",
        help="an item shown on the card (repeatable)",
    )
    pay.add_argument("--endereco", help="address or context shown to the operator")
    for who in ("cliente", "loja"):
        pay.add_argument(f"--imprimir-{who}", action="store_true", help=f"print the {who} receipt")
    pay.add_argument("--referencia", help="this attempt's referencia (default: a new one)")

    refund = _add(
        sub,
        "refund",
        "_service:refund",
        help="refund an approved payment",
        description=(
            "Refund an approved payment (POST /v1/refunds), from its pagamento.aprovado event\n"
            "(--event FILE) or from explicit authorization fields."
        ),
        epilog=(
            "examples:\n"
            "  smartpos refund --event aprovado.json\n"
            "  smartpos refund --event aprovado.json --valor-centavos 500\n"
            "  smartpos events show EVENT_ID --json | smartpos refund --event -\n"
            "  smartpos refund 52998224725 SP-SANDBOX-1 1990 --codigo-autorizacao 77FF4Y \\\n"
            "      --numero-transacao 700725970931 \\\n"
            "      --dados-finalizacao '634431|T2D71H4T3C29|0984' --tipo-pagamento CREDITO"
        ),
        parents=[json_parent, service],
    )
    refund.set_defaults(terminal_op=True)
    refund.add_argument("documento", metavar="DOC", nargs="?", help="customer CPF or CNPJ")
    refund.add_argument("smartpos_id", metavar="SMARTPOS_ID", nargs="?", help="the terminal")
    refund.add_argument(
        "valor_centavos", metavar="VALOR_CENTAVOS", nargs="?", type=int, help="amount in cents"
    )
    refund.add_argument(
        "--event",
        metavar="FILE",
        help="a pagamento.aprovado event as JSON ('-' for stdin); amount defaults to the total",
    )
    refund.add_argument(
        "--valor-centavos",
        dest="valor_parcial",
        type=_positive_int,
        metavar="N",
        help="with --event: refund only N cents (default: the approved total)",
    )
    refund.add_argument("--codigo-autorizacao", metavar="CODIGO")
    refund.add_argument("--numero-transacao", metavar="NUMERO")
    refund.add_argument("--dados-finalizacao", metavar="DADOS")
    refund.add_argument("--tipo-pagamento", metavar="TIPO")
    refund.add_argument("--referencia", help="the refund's referencia (default: a new one)")

    print_ = _add(
        sub,
        "print",
        "_service:print_job",
        help="print a file on a terminal",
        description=(
            "Print on a terminal (POST /v1/print-jobs). impressao.concluida or impressao.falhou\n"
            "reports the outcome; printing never changes a sale."
        ),
        epilog="examples:\n  smartpos print 52998224725 SP-SANDBOX-1 recibo.txt\n"
        "  echo 'Obrigado!' | smartpos print 52998224725 SP-SANDBOX-1 -",
        parents=[json_parent, service],
    )
    print_.set_defaults(terminal_op=True)
    print_.add_argument("documento", metavar="DOC", help="customer CPF or CNPJ")
    print_.add_argument("smartpos_id", metavar="SMARTPOS_ID", help="the terminal that prints")
    print_.add_argument("file", metavar="FILE", help="what to print; '-' reads stdin")
    print_.add_argument("--referencia", help="the print job's referencia (default: a new one)")

    terminals = _add(
        sub,
        "terminals",
        "_service:terminals",
        help="list a customer's terminals",
        description="List a customer's terminals (GET /v1/customers/{documentoCliente}/smartpos).",
        epilog="example:\n  smartpos terminals 52998224725 --json",
        parents=[json_parent, service],
    )
    terminals.add_argument("documento", metavar="DOC", help="customer CPF or CNPJ")

    listen = _add(
        sub,
        "listen",
        "_listen:run",
        help="receive webhook events locally and print them",
        description=(
            "Serve a webhook receiver on a loopback address: every delivery is stored in an\n"
            "inbox (an SQLite file, or --store redis://... or postgresql://...; deduplicated\n"
            "by id) and printed as it arrives; a resent id is\n"
            "marked DUPLICATE. Events stay pending in the inbox for your worker (see\n"
            "'smartpos events'). Stops on Ctrl-C or SIGTERM."
        ),
        epilog=(
            "examples:\n"
            "  smartpos listen\n"
            "  smartpos listen --port 9000 --store inbox.sqlite3 \\\n"
            "      --forward-to http://127.0.0.1:8000/webhooks/smartpos"
        ),
        parents=[json_parent],
    )
    listen.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    listen.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_LISTEN_PORT,
        help=f"port, 0 for any free one (default: {DEFAULT_LISTEN_PORT})",
    )
    listen.add_argument("--store", metavar="STORE", default=store_default(), help=STORE_HELP)
    listen.add_argument("--namespace", metavar="NAME", help=NAMESPACE_HELP)
    listen.add_argument(
        "--forward-to", metavar="URL", help="also POST every delivery, as received, to URL"
    )

    trigger = _add(
        sub,
        "trigger",
        "_samples:trigger",
        help="make an event happen and send it to a webhook endpoint",
        description=(
            "Make an event of any of the five kinds happen in a running sandbox, and send it\n"
            "to a webhook endpoint (yours, or 'smartpos listen', the default --to): the\n"
            "operation exists in the sandbox, so a triggered pagamento.aprovado can be refunded.\n"
            "Without a sandbox (none answers, or --no-sandbox) a realistic standalone sample,\n"
            "with the full dados of spec section 6, is posted instead.\n"
            "--resend ID sends the same envelope again, as the service's manual resend does:\n"
            "a correct receiver stores it once and answers 2xx."
        ),
        epilog=(
            "examples:\n"
            "  smartpos trigger pagamento.aprovado\n"
            "  smartpos trigger pagamento.aprovado --to http://127.0.0.1:8766/\n"
            "  smartpos trigger pagamento.aprovado --to http://127.0.0.1:8766/ --resend ID"
        ),
        parents=[json_parent],
    )
    trigger.add_argument("tipo", metavar="TIPO", choices=TIPOS, help=", ".join(TIPOS))
    trigger.add_argument(
        "--to",
        default=f"http://127.0.0.1:{DEFAULT_LISTEN_PORT}/",
        metavar="URL",
        help=f"the webhook endpoint (default: smartpos listen's, "
        f"http://127.0.0.1:{DEFAULT_LISTEN_PORT}/)",
    )
    where = trigger.add_mutually_exclusive_group()
    where.add_argument(
        "--sandbox",
        metavar="URL",
        help="the sandbox that makes the event (default: env SMARTPOS_SANDBOX_URL, else "
        "SMARTPOS_BASE_URL, else http://127.0.0.1:8765)",
    )
    where.add_argument(
        "--no-sandbox", action="store_true", help="post a standalone sample, no sandbox"
    )
    trigger.add_argument(
        "--resend",
        metavar="ID",
        help="send this event again (a sample: same id and options give the same body)",
    )
    trigger.add_argument("--documento", metavar="DOC", help="documentoCliente (a sandbox CPF)")
    trigger.add_argument("--referencia", help="dados.referencia (default: a new one)")
    trigger.add_argument("--smartpos-id", metavar="ID", help="dados.smartposId (SP-SANDBOX-1)")
    trigger.add_argument(
        "--valor-centavos", type=_positive_int, metavar="N", help="payments: amount (default 1990)"
    )
    trigger.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an extra request header, e.g. a shared secret (repeatable)",
    )
    trigger.add_argument(
        "--timeout", type=_seconds, default=5.0, metavar="SECONDS", help="(default: 5)"
    )

    events = _add(
        sub,
        "events",
        "_events:run",
        help="inspect, requeue and replay the events of an inbox",
        description=(
            "List, show, requeue and replay the events of an inbox: an SQLite file, or a\n"
            "redis:// or postgresql:// store (--store, --namespace)."
        ),
        epilog=(
            "examples:\n"
            "  smartpos events list --state dead\n"
            "  smartpos events show EVENT_ID --json\n"
            "  smartpos events requeue EVENT_ID --store inbox.sqlite3\n"
            "  smartpos events resend EVENT_ID --to http://127.0.0.1:8000/webhooks"
        ),
    )
    events_sub = events.add_subparsers(title="actions", metavar="ACTION", dest="action")
    events_sub.required = True
    store_parent = argparse.ArgumentParser(add_help=False)
    store_parent.add_argument("--store", metavar="STORE", default=store_default(), help=STORE_HELP)
    store_parent.add_argument("--namespace", metavar="NAME", help=NAMESPACE_HELP)
    ev_list = events_sub.add_parser(
        "list",
        help="list stored events, oldest first",
        description="List the events of an inbox, oldest first.",
        parents=[json_parent, store_parent],
        formatter_class=_Formatter,
    )
    ev_list.add_argument(
        "--state", choices=["pending", "claimed", "done", "dead"], help="only this state"
    )
    ev_list.add_argument(
        "--limit", type=_positive_int, default=100, metavar="N", help="at most N (default 100)"
    )
    ev_show = events_sub.add_parser(
        "show",
        help="show one event and its inbox record",
        description="Show one event: its inbox record and the envelope as received.",
        parents=[json_parent, store_parent],
        formatter_class=_Formatter,
    )
    ev_show.add_argument("event_id", metavar="ID")
    ev_requeue = events_sub.add_parser(
        "requeue",
        help="make a dead or done event pending again",
        description="Make a dead (or done) event pending again, its attempts reset to 0.",
        parents=[json_parent, store_parent],
        formatter_class=_Formatter,
    )
    ev_requeue.add_argument("event_id", metavar="ID")
    ev_resend = events_sub.add_parser(
        "resend",
        help="replay a stored event to your own endpoint",
        description=(
            "POST an event stored in the inbox, its envelope as received, to a URL: replay a\n"
            "delivery to your app (say, after fixing its handler). The inbox is not changed."
        ),
        epilog="example:\n  smartpos events resend EVENT_ID --to http://127.0.0.1:8000/webhooks",
        parents=[json_parent, store_parent],
        formatter_class=_Formatter,
    )
    ev_resend.add_argument("event_id", metavar="ID")
    ev_resend.add_argument("--to", required=True, metavar="URL", help="your webhook endpoint")
    ev_resend.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an extra request header (repeatable)",
    )
    ev_resend.add_argument(
        "--timeout", type=_seconds, default=5.0, metavar="SECONDS", help="(default: 5)"
    )
    from ._operations import add_parser as add_operations  # argparse only, like this module

    add_operations(sub, service=service, formatter=_Formatter)
    return parser
