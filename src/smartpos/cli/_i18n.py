"""The command's own words in the process's language: ``SMARTPOS_LANG=pt_BR`` speaks Portuguese.

The SDK's messages come from its catalog (``smartpos._messages``); this module holds what only
the command says: argparse's frame (``usage:``, ``error:``, the help headings, its refusals),
the labels of an error report, and the demo's lines. Each entry is an English ``str.format``
template and its Portuguese one, with the same fields (tests/cli/test_cli_i18n.py walks them);
a text without an entry stays as it is. Identifiers (options, tipos, codes, referencias) are
fields, so a line is never half in each language.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any, Final

__all__ = ["ARGPARSE", "PORTUGUESE_WORDS", "argparse_words", "portuguese", "words"]

#: argparse's own texts (its gettext message ids) in Portuguese.
ARGPARSE: Final[dict[str, str]] = {
    "usage: ": "uso: ",
    "options": "opções",
    "positional arguments": "argumentos posicionais",
    "subcommands": "subcomandos",
    "show this help message and exit": "mostra esta ajuda e sai",
    "show program's version number and exit": "mostra a versão do programa e sai",
    " (default: %(default)s)": " (padrão: %(default)s)",
    "%(prog)s: error: %(message)s\n": "%(prog)s: erro: %(message)s\n",
    "argument %(argument_name)s: %(message)s": "argumento %(argument_name)s: %(message)s",
    "the following arguments are required: %s": "os seguintes argumentos são obrigatórios: %s",
    "unrecognized arguments: %s": "argumentos não reconhecidos: %s",
    "invalid choice: %(value)r (choose from %(choices)s)": (
        "escolha inválida: %(value)r (escolha entre %(choices)s)"
    ),
    "invalid %(type)s value: %(value)r": "valor %(type)s inválido: %(value)r",
    "expected one argument": "esperava um argumento",
    "expected at most one argument": "esperava no máximo um argumento",
    "expected at least one argument": "esperava pelo menos um argumento",
    "expected %s argument": "esperava %s argumento",
    "expected %s arguments": "esperava %s argumentos",
    "not allowed with argument %s": "não permitido junto com o argumento %s",
    "one of the arguments %s is required": "um dos argumentos %s é obrigatório",
    "ambiguous option: %(option)s could match %(matches)s": (
        "opção ambígua: %(option)s pode ser %(matches)s"
    ),
    "ignored explicit argument %r": "argumento explícito ignorado: %r",
    "can't open '%(filename)s': %(error)s": "não foi possível abrir '%(filename)s': %(error)s",
}

#: The command's own lines: English template -> Portuguese template (same fields).
PORTUGUESE_WORDS: Final[dict[str, str]] = {
    # The frame of an error report (Output.error, Output.warn) and its labels.
    "error:": "erro:",
    "warning:": "aviso:",
    "what to do:": "o que fazer:",
    "option": "opção",
    "request id": "id da requisição",
    "last error": "último erro",
    "status code": "status HTTP",
    # The option converters (_convert), inside argparse's "argumento X: ..." line.
    "expected {what}, not {text!r}": "esperava {what}, não {text!r}",
    "a whole number": "um número inteiro",
    "a port number": "um número de porta",
    "seconds": "segundos",
    "expected a number >= 1, not {text!r}": "esperava um número >= 1, não {text!r}",
    "a port is 0 to 65535, not {value}": "uma porta vai de 0 a 65535, não {value}",
    "expected seconds > 0, not {text!r}": "esperava segundos > 0, não {text!r}",
    "expected 0 to 60 seconds, not {text!r}": "esperava de 0 a 60 segundos, não {text!r}",
    "expected a day as YYYY-MM-DD, not {text!r}": "esperava um dia como AAAA-MM-DD, não {text!r}",
    # The command's report of an SDK error (_app._report).
    (
        "the outcome of referencia {referencia} is unknown: the service may have accepted it"
    ): "o resultado da referencia {referencia} é desconhecido: o serviço pode tê-la aceitado",
    (
        "do NOT retry with a new referencia (that may charge or print twice). Wait for the "
        "webhook event whose dados.referencia is {referencia}."
    ): (
        "NÃO tente de novo com uma nova referencia (isso pode cobrar ou imprimir duas vezes). "
        "Espere o evento de webhook cujo dados.referencia é {referencia}."
    ),
    "the service already has a request with referencia {referencia} (HTTP 409)": (
        "o serviço já tem uma requisição com a referencia {referencia} (HTTP 409)"
    ),
    (
        "do NOT retry with a new referencia: an earlier request under this one may have been "
        "accepted. Wait for the webhook event whose dados.referencia is {referencia}."
    ): (
        "NÃO tente de novo com uma nova referencia: uma requisição anterior com esta pode ter "
        "sido aceita. Espere o evento de webhook cujo dados.referencia é {referencia}."
    ),
    "the service refused the request (HTTP {status})": (
        "o serviço recusou a requisição (HTTP {status})"
    ),
    "fix {option} as acao says": "corrija {option} como diz acao",
    "fix what acao says": "corrija o que diz acao",
    "; a new attempt needs a new referencia.": (
        "; uma nova tentativa precisa de uma nova referencia."
    ),
    "check the arguments and the API key.": "confira os argumentos e a chave de API.",
    "refused locally before sending: nothing was sent": (
        "recusado localmente antes do envio: nada foi enviado"
    ),
    "{option} is not valid": "{option} não é válido",
    "an argument is not valid": "um argumento não é válido",
    "fix {option} and run the command again.": "corrija {option} e rode o comando de novo.",
    "fix the argument and run the command again.": "corrija o argumento e rode o comando de novo.",
    (
        "set SMARTPOS_API_KEY and SMARTPOS_BASE_URL, or pass --api-key and --base-url. To try "
        "things out, run 'smartpos sandbox' in another terminal."
    ): (
        "defina SMARTPOS_API_KEY e SMARTPOS_BASE_URL, ou passe --api-key e --base-url. Para "
        "experimentar, rode 'smartpos sandbox' em outro terminal."
    ),
    "could not reach the service at {url}: {error}": (
        "não foi possível alcançar o serviço em {url}: {error}"
    ),
    (
        "check --base-url / SMARTPOS_BASE_URL and the network. Nothing reached the service, so "
        "it is safe to try again (with a new referencia)."
    ): (
        "confira --base-url / SMARTPOS_BASE_URL e a rede. Nada chegou ao serviço, então é "
        "seguro tentar de novo (com uma nova referencia)."
    ),
    (
        "check --base-url / SMARTPOS_BASE_URL and the network. Nothing reached the service, so "
        "it is safe to try again."
    ): (
        "confira --base-url / SMARTPOS_BASE_URL e a rede. Nada chegou ao serviço, então é "
        "seguro tentar de novo."
    ),
    "the service accepted the request but its answer could not be read: {error}": (
        "o serviço aceitou a requisição, mas a resposta dele não pôde ser lida: {error}"
    ),
    "do NOT retry with a new referencia; wait for the event of this referencia.": (
        "NÃO tente de novo com uma nova referencia; espere o evento desta referencia."
    ),
    "the service's answer could not be read: {error}": (
        "a resposta do serviço não pôde ser lida: {error}"
    ),
    "try again later.": "tente de novo mais tarde.",
    "check the path and its permissions.": "confira o caminho e as permissões dele.",
    # smartpos demo: the run.
    "smartpos demo - a whole sale against the sandbox": (
        "smartpos demo - uma venda completa contra o sandbox"
    ),
    "service": "serviço",
    "inbox": "caixa de entrada",
    "client": "cliente",
    "{url}  (the sandbox, over real HTTP)": "{url}  (o sandbox, por HTTP de verdade)",
    "{url}  (WebhookReceiver + SQLite inbox)": (
        "{url}  (WebhookReceiver + caixa de entrada SQLite)"
    ),
    "customer": "cliente final",
    "<- rejected": "<- recusada",
    "HTTP {status}, DUPLICATE: already in the inbox": (
        "HTTP {status}, DUPLICADO: já está na caixa de entrada"
    ),
    "HTTP {status}, stored in the inbox": "HTTP {status}, guardado na caixa de entrada",
    "processed by the worker: claimed, handled ({count}x), acked": (
        "processado pelo worker: reservado, tratado ({count}x), confirmado"
    ),
    "{tipo} attempt {attempt}: {error}": "{tipo} tentativa {attempt}: {error}",
    "{what} did not arrive within {wait} s": "{what} não chegou em {wait} s",
    " (webhook deliveries failed: {detail})": " (as entregas de webhook falharam: {detail})",
    "run it again with a longer --wait; if it keeps failing, report it with this output.": (
        "rode de novo com um --wait maior; se continuar falhando, reporte com esta saída."
    ),
    "Pair a terminal: a QR code on your screen, read by the terminal": (
        "Parear um terminal: um QR code na sua tela, lido pelo terminal"
    ),
    "  the terminal {terminal} reads the QR code...": "  o terminal {terminal} lê o QR code...",
    "  paired: save smartposId {terminal} for this customer.": (
        "  pareado: guarde o smartposId {terminal} para este cliente."
    ),
    "Charge {valor}: refused once, retried with a new referencia": (
        "Cobrar {valor}: recusada uma vez, tentada de novo com uma nova referencia"
    ),
    "  the customer taps the card and types the PIN...": (
        "  o cliente aproxima o cartão e digita a senha..."
    ),
    "refused": "recusado",
    " ({reason}): do not finalize. This attempt is over: the next one gets a new referencia.": (
        " ({reason}): não finalize a venda. Esta tentativa acabou: a próxima recebe uma nova "
        "referencia."
    ),
    "  the customer tries another card...": "  o cliente tenta outro cartão...",
    "the terminal refused the payment ({status})": "o terminal recusou o pagamento ({status})",
    "a new attempt needs a new referencia.": "uma nova tentativa precisa de uma nova referencia.",
    "approved": "aprovado",
    ": finalize the sale now; keep dados.autorizacao (codigo {codigo}) for a refund.": (
        ": finalize a venda agora; guarde dados.autorizacao (codigo {codigo}) para um estorno."
    ),
    "The service delivers pagamento.aprovado again (a manual resend, same id)": (
        "O serviço entrega pagamento.aprovado de novo (um reenvio manual, mesmo id)"
    ),
    "  answered 200 so the service stops resending; the worker does not see it again.": (
        "  respondido 200 para o serviço parar de reenviar; o worker não o vê de novo."
    ),
    "The next sale's answer is lost on the network: reconcile, never a new referencia": (
        "A resposta da próxima venda se perde na rede: reconciliar, nunca uma nova referencia"
    ),
    "the sandbox did not drop the answer": "o sandbox não descartou a resposta",
    "report it.": "reporte o problema.",
    "outcome unknown": "resultado desconhecido",
    (
        ": the connection dropped after the request was sent, {attempts} time(s). It may have "
        "been charged: a new referencia could charge twice."
    ): (
        ": a conexão caiu depois do envio da requisição, {attempts} vez(es). Pode ter sido "
        "cobrado: uma nova referencia poderia cobrar duas vezes."
    ),
    (
        "  reconciled: resent byte for byte, referencia {referencia}; the service already had "
        "it (409 REFERENCIA_DUPLICADA): {state}, charged {charges}x."
    ): (
        "  reconciliado: reenviado byte a byte, referencia {referencia}; o serviço já a tinha "
        "(409 REFERENCIA_DUPLICADA): {state}, cobrado {charges}x."
    ),
    "  the customer finishes paying...": "  o cliente termina de pagar...",
    "{tipo}: the lost answer is settled, with one charge.": (
        "{tipo}: a resposta perdida está resolvida, com uma só cobrança."
    ),
    "Print the receipt on the terminal, wait for impressao.concluida": (
        "Imprimir o comprovante no terminal, esperar impressao.concluida"
    ),
    "  the print failed: printing never changes the sale; print it again.": (
        "  a impressão falhou: imprimir nunca muda a venda; imprima de novo."
    ),
    "Refund the approved payment from its pagamento.aprovado event": (
        "Estornar o pagamento aprovado a partir do evento pagamento.aprovado"
    ),
    "  refund requested ({status}): referencia {referencia}": (
        "  estorno pedido ({status}): referencia {referencia}"
    ),
    "A sale the cashier gives up: the late approval is refunded once": (
        "Uma venda que o caixa abandona: a aprovação atrasada é estornada uma vez"
    ),
    "nothing is sent": "nada é enviado",
    "the late approval, refunded once": "a aprovação atrasada, estornada uma vez",
    "  the terminal is slow: the cashier gives up on referencia {referencia}": (
        "  o terminal está lento: o caixa desiste da referencia {referencia}"
    ),
    "  abandoned, nothing sent: the sale is {state} again": (
        "  abandonada, nada enviado: a venda está {state} de novo"
    ),
    "  the slow attempt was approved late: a pendência, never counted for the sale": (
        "  a tentativa lenta foi aprovada depois: uma pendência, nunca contada para a venda"
    ),
    "  compensated: refund {referencia}; compensate again sends nothing (refunded {refunds}x)": (
        "  compensada: estorno {referencia}; compensar de novo não envia nada (estornada "
        "{refunds}x)"
    ),
    "given-up sale": "venda abandonada",
    "late approval refunded {refunds}x (compensate run twice)": (
        "aprovação atrasada estornada {refunds}x (compensate rodou duas vezes)"
    ),
    "the late approval was refunded {refunds} time(s), not once": (
        "a aprovação atrasada foi estornada {refunds} vez(es), não uma"
    ),
    "sent": "enviado",
    "the worker to process {why}": "o worker processar {why}",
    "waiting for {why}": "esperando {why}",
    "waiting for the receiver to see the resend": "esperando o receptor ver o reenvio",
    "{why} for referencia {referencia}": "{why} da referencia {referencia}",
    "the resend of event {event_id}": "o reenvio do evento {event_id}",
    "  ... {text} (up to {wait} s)": "  ... {text} (até {wait} s)",
    "{text}: done after {elapsed} s": "{text}: pronto após {elapsed} s",
    "the outcome of {method} for referencia {referencia}": (
        "o resultado de {method} da referencia {referencia}"
    ),
    "the inbox already holds this id": "a caixa de entrada já tem este id",
    "the same bytes, same referencia": "os mesmos bytes, a mesma referencia",
    "total refund": "estorno total",
    # smartpos demo: the summary.
    "Summary": "Resumo",
    "steps": "passos",
    "events": "eventos",
    "deliveries": "entregas",
    "outcomes": "resultados",
    "duration": "duração",
    "{received} over HTTP, {duplicates} duplicate(s) answered 200 and not stored again": (
        "{received} por HTTP, {duplicates} duplicada(s) respondida(s) com 200 e não guardada(s) "
        "de novo"
    ),
    (
        "approved x{approved}, refused x1 (retried with a new referencia), lost answer x1 "
        "(reconciled: {state}, charged {charges}x)"
    ): (
        "aprovado x{approved}, recusado x1 (tentado de novo com uma nova referencia), resposta "
        "perdida x1 (reconciliado: {state}, cobrado {charges}x)"
    ),
    "{count} event(s), each processed exactly once (claim, handle, ack)": (
        "{count} evento(s), cada um processado exatamente uma vez (reservar, tratar, confirmar)"
    ),
    "PROCESSED MORE THAN ONCE: {ids}": "PROCESSADO MAIS DE UMA VEZ: {ids}",
    "  (temporary, deleted now)": "  (temporária, apagada agora)",
    "smartpos.{client} against the sandbox at {url}": "smartpos.{client} contra o sandbox em {url}",
    "Inspect the inbox: smartpos events list --store {path}": (
        "Examine a caixa de entrada: smartpos events list --store {path}"
    ),
    "Done.": "Pronto.",
    (
        " Next: docs/en/quickstart.md, or 'smartpos sandbox' + 'smartpos listen' to try your "
        "own code."
    ): (
        " Depois: docs/pt-BR/quickstart.md, ou 'smartpos sandbox' + 'smartpos listen' para "
        "testar o seu próprio código."
    ),
    "the reconciled payment was charged {charges} time(s), not once": (
        "o pagamento reconciliado foi cobrado {charges} vez(es), não uma"
    ),
    "this is a bug; please report it with this output.": (
        "isto é um bug; por favor reporte com esta saída."
    ),
    "the inbox check failed: events processed more than once: {ids}": (
        "a conferência da caixa de entrada falhou: eventos processados mais de uma vez: {ids}"
    ),
    "the inbox check failed: states {states}": (
        "a conferência da caixa de entrada falhou: estados {states}"
    ),
}


def portuguese() -> bool:
    """The process speaks Portuguese (``SMARTPOS_LANG=pt_BR``, read as the SDK reads it)."""
    from smartpos._messages import PORTUGUESE, current_language

    return current_language() == PORTUGUESE


def words(template: str, /, **fields: object) -> str:
    """``template`` in the process's language, formatted with ``fields``.

    A template without an entry in `PORTUGUESE_WORDS` is used as it is (an identifier).
    """
    if portuguese():
        template = PORTUGUESE_WORDS.get(template, template)
    return template.format(**fields) if fields else template


def _gettext(text: str) -> str:
    return ARGPARSE.get(text, text)


def _ngettext(singular: str, plural: str, count: int) -> str:
    return _gettext(singular if count == 1 else plural)


def _argument_error(error: argparse.ArgumentError) -> str:
    # Python < 3.12 formats "argument X: ..." without gettext: the same text, looked up here.
    if error.argument_name is None:
        return error.message
    template = _gettext("argument %(argument_name)s: %(message)s")
    return template % {"argument_name": error.argument_name, "message": error.message}


@contextlib.contextmanager
def argparse_words() -> Iterator[None]:
    """While the command parses and prints help, argparse speaks the process's language.

    argparse looks its texts up through the module globals ``_`` and ``ngettext`` (gettext);
    they are swapped for the command's run only, and only under Portuguese (with
    ``ArgumentError.__str__``, which older Pythons format without them).
    """
    if not portuguese():
        yield
        return
    module = vars(argparse)
    error_class: Any = argparse.ArgumentError
    saved = module["_"], module["ngettext"], error_class.__str__
    module["_"], module["ngettext"], error_class.__str__ = _gettext, _ngettext, _argument_error
    try:
        yield
    finally:
        module["_"], module["ngettext"], error_class.__str__ = saved
