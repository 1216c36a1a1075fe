"""The catalog's part for the conformance kit: what the partner's code did wrong, what to do.

``_message_catalog`` merges it into ``CATALOG`` (same rules: one whole template per language,
the same ``str.format`` fields in both). Every message may use ``{scenario}``, ``{step}`` and
``{sale}`` (the sale id the partner's adapter was given); ``{expected}`` and ``{observed}`` are
sale statuses as JSON (``{"attention": false, "paid": true, "paidCentavos": 1990}``).
"""

from __future__ import annotations

from typing import Final

__all__ = ["CONFORMANCE"]

_EXPECTED_EN: Final = (
    "sale {sale}, after step {step}: expected {expected}, your status says {observed}. "
)
_EXPECTED_PT: Final = (
    "venda {sale}, depois do passo {step}: esperado {expected}, o seu status diz {observed}. "
)

CONFORMANCE: Final[dict[str, dict[str, str]]] = {
    # --- expectations of a scenario's steps, one per invariant ------------------------------
    "conformance.paid_once.expect": {
        "en": _EXPECTED_EN + "A paid sale stays paid: a later refusal or contradicting event of "
        "an attempt already approved is kept for a human, never applied as a downgrade; and a "
        "paid sale is never charged again (with smartpos: pass sale= and keep SalePaidError as "
        "'already paid').",
        "pt_BR": _EXPECTED_PT + "Venda paga continua paga: uma recusa ou um evento contraditório "
        "posterior de uma tentativa já aprovada fica para uma pessoa, nunca rebaixa a venda; e uma "
        "venda paga nunca é cobrada de novo (com smartpos: passe sale= e trate SalePaidError como "
        "'já paga').",
    },
    "conformance.not_from_202.expect": {
        "en": _EXPECTED_EN + "Your system finalized the sale before any pagamento.aprovado "
        "arrived: the 202 (status processando) only says the request was accepted. Mark the "
        "sale paid only in the handler of pagamento.aprovado.",
        "pt_BR": _EXPECTED_PT + "O seu sistema finalizou a venda antes de chegar qualquer "
        "pagamento.aprovado: o 202 (status processando) só diz que o pedido foi aceito. Marque "
        "a venda como paga só no handler de pagamento.aprovado.",
    },
    "conformance.same_referencia.expect": {
        "en": _EXPECTED_EN + "After an unknown outcome, wait for the event of that referencia "
        "(or client.reconcile it); never start a new attempt.",
        "pt_BR": _EXPECTED_PT + "Depois de um resultado desconhecido, espere o evento daquela "
        "referencia (ou client.reconcile); nunca comece uma nova tentativa.",
    },
    "conformance.amount_agrees.expect": {
        "en": _EXPECTED_EN + "Count as paid only approvals whose documentoCliente, valorCentavos "
        "and smartposId agree with the request of their referencia, add up the approvals of a "
        "sale paid in several charges, and never count a refusal (with smartpos: "
        "store.sale(sale_id).approved_centavos and state).",
        "pt_BR": _EXPECTED_PT + "Conte como pago só aprovações cujos documentoCliente, "
        "valorCentavos e smartposId concordam com o pedido da sua referencia, some as aprovações "
        "de uma venda paga em várias cobranças, e nunca conte uma recusa (com smartpos: "
        "store.sale(sale_id).approved_centavos e state).",
    },
    "conformance.late_approval.expect": {
        "en": _EXPECTED_EN + "An approval that contradicts a refusal, or arrives after the cashier "
        "abandoned the attempt, is money the customer may have paid that the sale did not take: "
        "do not count it toward the sale; refund it (client.compensate) or flag the sale for a "
        "human (Sale.pendencias).",
        "pt_BR": _EXPECTED_PT + "Uma aprovação que contradiz uma recusa, ou que chega depois de o "
        "caixa desistir da tentativa, é dinheiro que o cliente pode ter pago e a venda não levou: "
        "não a conte na venda; estorne-a (client.compensate) ou sinalize a venda para uma pessoa "
        "(Sale.pendencias).",
    },
    "conformance.each_event_once.expect": {
        "en": _EXPECTED_EN + "Each event must be applied exactly once: store it first and answer "
        "2xx at once (process it later), deduplicate by the event id and by its referencia (a "
        "resend may carry a new id), keep it when your answer came late, and apply each event to "
        "the sale of its dados.referencia, whatever the order they arrive in.",
        "pt_BR": _EXPECTED_PT + "Cada evento deve ser aplicado exatamente uma vez: guarde-o "
        "primeiro e responda 2xx na hora (processe depois), deduplique pelo id do evento e pela "
        "sua referencia (um reenvio pode vir com outro id), mantenha-o quando a sua resposta "
        "atrasou, e aplique cada evento à venda da sua dados.referencia, em qualquer ordem que "
        "cheguem.",
    },
    "conformance.no_money_from_print.expect": {
        "en": _EXPECTED_EN + "Only pagamento.aprovado and pagamento.recusado decide a payment: "
        "choose by the exact tipo, never by dados.status, a tipo prefix or the referencia alone; "
        "keep print and unknown events without touching the sale.",
        "pt_BR": _EXPECTED_PT + "Só pagamento.aprovado e pagamento.recusado decidem um pagamento: "
        "escolha pelo tipo exato, nunca por dados.status, por um prefixo do tipo ou só pela "
        "referencia; guarde eventos de impressão e desconhecidos sem mexer na venda.",
    },
    "conformance.refund_once.expect": {
        "en": _EXPECTED_EN + "A refunded sale is no longer paid.",
        "pt_BR": _EXPECTED_PT + "Uma venda estornada não está mais paga.",
    },
    # --- what the sandbox saw ---------------------------------------------------------------
    "conformance.paid_once.charged_again": {
        "en": "sale {sale}, step {step}: your system sent a new payment (referencia "
        "{referencia}) for a sale it had reported paid. Check the sale's state before charging "
        "(with smartpos: pass sale= and answer SalePaidError as 'already paid').",
        "pt_BR": "venda {sale}, passo {step}: o seu sistema enviou um novo pagamento (referencia "
        "{referencia}) para uma venda que ele tinha dado como paga. Veja o estado da venda antes "
        "de cobrar (com smartpos: passe sale= e responda SalePaidError como 'já paga').",
    },
    "conformance.paid_once.downgraded": {
        "en": "sale {sale}, step {step}: reported paid before, now {observed}. A paid sale never "
        "goes back to unpaid on a later event; keep a contradiction for a human.",
        "pt_BR": "venda {sale}, passo {step}: dada como paga antes, agora {observed}. Uma venda "
        "paga nunca volta a não paga por um evento posterior; deixe uma contradição para uma "
        "pessoa.",
    },
    "conformance.paid_once.charged_twice": {
        "en": "sale {sale}: the sandbox approved {count} payments adding up to {centavos} "
        "centavos for a total of {total}: the customer was charged twice. Keep one open attempt "
        "per sale and never charge a sale whose attempt may still be approved (with smartpos: "
        "sale=, SaleInProgressError).",
        "pt_BR": "venda {sale}: o sandbox aprovou {count} pagamentos somando {centavos} centavos "
        "para um total de {total}: o cliente foi cobrado duas vezes. Mantenha uma tentativa "
        "aberta por venda e nunca cobre uma venda cuja tentativa ainda pode ser aprovada (com "
        "smartpos: sale=, SaleInProgressError).",
    },
    "conformance.same_referencia.new": {
        "en": "sale {sale}, step {step}: the outcome of referencia {referencia} was unknown "
        "({cause}) and your system started a new attempt, {new}: the customer may be charged "
        "twice. On OutcomeUnknownError keep its referencia, wait for its event or "
        "client.reconcile(referencia); never charge again with a new referencia.",
        "pt_BR": "venda {sale}, passo {step}: o resultado da referencia {referencia} era "
        "desconhecido ({cause}) e o seu sistema começou uma nova tentativa, {new}: o cliente pode "
        "ser cobrado duas vezes. Em OutcomeUnknownError guarde a referencia, espere o seu evento "
        "ou client.reconcile(referencia); nunca cobre de novo com uma nova referencia.",
    },
    "conformance.amount_agrees.request": {
        "en": "sale {sale}, step {step}: the kit asked for a charge of {asked} centavos and your "
        "system sent {sent} (referencia {referencia}). Send the amount of the sale as typed, in "
        "centavos (smartpos.to_centavos).",
        "pt_BR": "venda {sale}, passo {step}: o kit pediu uma cobrança de {asked} centavos e o seu "
        "sistema enviou {sent} (referencia {referencia}). Envie o valor da venda como digitado, "
        "em centavos (smartpos.to_centavos).",
    },
    "conformance.late_approval.unhandled": {
        "en": "sale {sale}, step {step}: referencia {referencia} was approved ({valor} centavos) "
        "after the cashier abandoned it, and your system neither refunded it ({refunded} "
        "refunded) nor flagged the sale for a human. Refund it (client.compensate(sale_id)) or "
        "list it for review (Sale.pendencias, store.sales(attention=True)).",
        "pt_BR": "venda {sale}, passo {step}: a referencia {referencia} foi aprovada ({valor} "
        "centavos) depois de o caixa desistir dela, e o seu sistema nem a estornou ({refunded} "
        "estornados) nem sinalizou a venda para uma pessoa. Estorne-a "
        "(client.compensate(sale_id)) ou liste-a para revisão (Sale.pendencias, "
        "store.sales(attention=True)).",
    },
    "conformance.no_money_from_print.request": {
        "en": "sale {sale}, step {step}: after a {tipo} event your system sent {request}. Print "
        "and unknown events never move money: only pagamento.aprovado and pagamento.recusado "
        "decide a payment.",
        "pt_BR": "venda {sale}, passo {step}: depois de um evento {tipo} o seu sistema enviou "
        "{request}. Eventos de impressão e desconhecidos nunca movem dinheiro: só "
        "pagamento.aprovado e pagamento.recusado decidem um pagamento.",
    },
    "conformance.refund_once.count": {
        "en": "sale {sale}, step {step}: the sandbox saw {count} refunds ({centavos} centavos); "
        "expected {expected_count} of {expected} centavos. Refund with a deterministic "
        "referencia (smartpos.referencia_for(f'estorno:{{sale_id}}')) so that a repeated click "
        "sends nothing, and refund the approved amount of the sale's payment.",
        "pt_BR": "venda {sale}, passo {step}: o sandbox viu {count} estornos ({centavos} "
        "centavos); esperado {expected_count} de {expected} centavos. Estorne com uma referencia "
        "determinística (smartpos.referencia_for(f'estorno:{{sale_id}}')) para que um clique "
        "repetido não envie nada, e estorne o valor aprovado do pagamento da venda.",
    },
    # --- the runner and the report --------------------------------------------------------------
    "conformance.report.summary": {
        "en": "{passed} passed, {failed} failed, {not_applicable} not applicable, {errors} "
        "errors, of {total} scenarios",
        "pt_BR": "{passed} passaram, {failed} falharam, {not_applicable} não se aplicam, "
        "{errors} erros, de {total} cenários",
    },
    "conformance.report.missing": {
        "en": "not applicable: the adapter has no '{operation}'",
        "pt_BR": "não se aplica: o adaptador não tem '{operation}'",
    },
    # --- the command ------------------------------------------------------------------------
    "conformance.cli.command": {
        "en": "run the conformance kit against your system",
        "pt_BR": "rodar o kit de conformidade contra o seu sistema",
    },
    "conformance.cli.about": {
        "en": "The conformance kit: the hard cases of payments, run against your own system.",
        "pt_BR": "O kit de conformidade: os casos difíceis de pagamento, contra o seu sistema.",
    },
    "conformance.cli.list": {"en": "list the scenarios", "pt_BR": "listar os cenários"},
    "conformance.cli.run": {
        "en": "run the scenarios over HTTP",
        "pt_BR": "rodar os cenários por HTTP",
    },
    "conformance.cli.run_about": {
        "en": "Drive a served sandbox (your system's base URL) and your system through the "
        "kit's HTTP contract; exit 0 when every scenario passed, 1 when one failed.",
        "pt_BR": "Conduz um sandbox servido (a base URL do seu sistema) e o seu sistema pelo "
        "contrato HTTP do kit; sai com 0 quando todos os cenários passaram, 1 quando um falhou.",
    },
    "conformance.cli.control": {
        "en": "the served sandbox's address (smartpos sandbox), e.g. http://127.0.0.1:8765",
        "pt_BR": "o endereço do sandbox servido (smartpos sandbox), ex. http://127.0.0.1:8765",
    },
    "conformance.cli.control_key": {
        "en": "the sandbox's control key, if it has one",
        "pt_BR": "a chave de controle do sandbox, se tiver",
    },
    "conformance.cli.webhook": {
        "en": "your system's webhook URL",
        "pt_BR": "a URL de webhook do seu sistema",
    },
    "conformance.cli.webhook_header": {
        "en": "a header of every delivery (a shared secret); repeatable",
        "pt_BR": "um cabeçalho de toda entrega (um segredo compartilhado); repetível",
    },
    "conformance.cli.charge": {
        "en": "URL the kit POSTs a charge to ({{sale}} is replaced by the sale id)",
        "pt_BR": "URL onde o kit faz POST de uma cobrança ({{sale}} vira o id da venda)",
    },
    "conformance.cli.status": {
        "en": "URL the kit GETs a sale's status from",
        "pt_BR": "URL de onde o kit faz GET do status de uma venda",
    },
    "conformance.cli.abandon": {
        "en": "URL to abandon a sale's open attempt (optional)",
        "pt_BR": "URL para desistir da tentativa aberta de uma venda (opcional)",
    },
    "conformance.cli.refund": {
        "en": "URL to refund a paid sale (optional)",
        "pt_BR": "URL para estornar uma venda paga (opcional)",
    },
    "conformance.cli.settle": {
        "en": "URL the kit POSTs to when your system should process pending events (optional)",
        "pt_BR": "URL onde o kit faz POST quando o seu sistema deve processar os eventos "
        "pendentes (opcional)",
    },
    "conformance.cli.settle_seconds": {
        "en": "seconds to let your system process events, without --settle (default 1)",
        "pt_BR": "segundos para o seu sistema processar eventos, sem --settle (padrão 1)",
    },
    "conformance.cli.scenario": {
        "en": "run only this scenario; repeatable",
        "pt_BR": "rodar só este cenário; repetível",
    },
    "conformance.cli.header": {
        "en": "{value!r} is not NAME:VALUE",
        "pt_BR": "{value!r} não é NOME:VALOR",
    },
    "conformance.cli.unknown_scenario": {
        "en": "no scenario {names}; known: {known}",
        "pt_BR": "nenhum cenário {names}; conhecidos: {known}",
    },
}
