"""The command's own texts: the help of ``smartpos`` (its commands, actions and options).

``_message_catalog`` merges it into ``CATALOG`` (same rules: one whole template per language,
the same ``str.format`` fields in both). ``smartpos.cli._parser`` builds the parser once the
language is known, so ``smartpos --help`` is wholly in one language.
"""

from __future__ import annotations

from typing import Final

__all__ = ["CLI"]

CLI: Final[dict[str, dict[str, str]]] = {
    # --- cli: the parser's help, descriptions and epilogs ----------------------------------
    "cli.help.json": {
        "en": "print JSON for scripts instead of text",
        "pt_BR": "imprime JSON para scripts em vez de texto",
    },
    "cli.title.service": {
        "en": "service",
        "pt_BR": "serviço",
    },
    "cli.help.service.api_key": {
        "en": (
            "integration key (default: env SMARTPOS_API_KEY, which is safer: a key on the "
            "command line shows in ps and in the shell's history)"
        ),
        "pt_BR": (
            "chave de integração (padrão: env SMARTPOS_API_KEY, mais seguro: uma chave na linha "
            "de comando aparece no ps e no histórico do shell)"
        ),
    },
    "cli.help.service.base_url": {
        "en": "service address (default: env SMARTPOS_BASE_URL)",
        "pt_BR": "endereço do serviço (padrão: env SMARTPOS_BASE_URL)",
    },
    "cli.help.service.timeout": {
        "en": "HTTP timeout (default: 5 s to connect, 30 s otherwise)",
        "pt_BR": "timeout HTTP (padrão: 5 s para conectar, 30 s no resto)",
    },
    "cli.help.service.max_retries": {
        "en": "retries of a failed call, always with the same referencia (default: 2)",
        "pt_BR": (
            "novas tentativas de uma chamada que falhou, sempre com a mesma referencia (padrão: 2)"
        ),
    },
    "cli.help.smartpos.no_color": {
        "en": "no colours (also: env NO_COLOR set)",
        "pt_BR": "sem cores (também: env NO_COLOR definida)",
    },
    "cli.title.commands": {
        "en": "commands",
        "pt_BR": "comandos",
    },
    "cli.command.demo": {
        "en": "run a whole sale against an embedded sandbox, in seconds",
        "pt_BR": "roda uma venda completa contra um sandbox embutido, em segundos",
    },
    "cli.about.demo": {
        "en": (
            "Start an embedded sandbox and a local webhook receiver with an SQLite inbox, then\n"
            "pair a terminal with a QR code, charge (a refusal retried with a new referencia,\n"
            "an approval, a lost answer settled by reconcile), print a receipt on the\n"
            "terminal, refund, and show every event as it arrives."
        ),
        "pt_BR": (
            "Inicia um sandbox embutido e um receptor de webhooks local com uma caixa de "
            "entrada\n"
            "SQLite; depois pareia um terminal com um QR code, cobra (uma recusa tentada de novo "
            "com\n"
            "uma nova referencia, uma aprovação, uma resposta perdida resolvida pelo "
            "reconcile),\n"
            "imprime um comprovante no terminal, estorna e mostra cada evento quando ele chega."
        ),
    },
    "cli.example": {
        "en": "example:",
        "pt_BR": "exemplo:",
    },
    "cli.help.demo.use_async": {
        "en": "run the same flow on smartpos.AsyncClient (asyncio)",
        "pt_BR": "roda o mesmo fluxo com smartpos.AsyncClient (asyncio)",
    },
    "cli.help.demo.store": {
        "en": "keep the inbox in this SQLite file (default: temporary)",
        "pt_BR": ("guarda a caixa de entrada neste arquivo SQLite (padrão: um arquivo temporário)"),
    },
    "cli.help.demo.valor_centavos": {
        "en": "amount to charge, in cents (default: 4990)",
        "pt_BR": "valor a cobrar, em centavos (padrão: 4990)",
    },
    "cli.help.demo.wait": {
        "en": "longest wait for each event (default: 10)",
        "pt_BR": "espera máxima por cada evento (padrão: 10)",
    },
    "cli.help.demo.delay": {
        "en": "how long the simulated customer takes at the terminal (default: 0.6)",
        "pt_BR": "quanto tempo o cliente simulado leva no terminal (padrão: 0.6)",
    },
    "cli.help.demo.no_qr": {
        "en": "do not draw the QR code",
        "pt_BR": "não desenha o QR code",
    },
    "cli.command.sandbox": {
        "en": "serve the simulator of the service, or drive a running one",
        "pt_BR": "serve o simulador do serviço, ou comanda um que já está rodando",
    },
    "cli.about.sandbox": {
        "en": (
            "Without an action: serve the sandbox, a simulator of the whole service, over HTTP\n"
            "until Ctrl-C or SIGTERM, printing one line per request and per delivery attempt.\n"
            "Options can come from SMARTPOS_SANDBOX_HOST, _PORT, _WEBHOOK, _SEED, _LOG,\n"
            "_CONTROL_KEY and _LOG_LIMIT.\n"
            "\n"
            "With an action: drive a running sandbox through its control API (--url, else\n"
            "SMARTPOS_SANDBOX_URL, else SMARTPOS_BASE_URL, else http://127.0.0.1:8765)."
        ),
        "pt_BR": (
            "Sem ação: serve o sandbox, um simulador do serviço inteiro, por HTTP até Ctrl-C\n"
            "ou SIGTERM, imprimindo uma linha por requisição e por tentativa de entrega.\n"
            "As opções podem vir de SMARTPOS_SANDBOX_HOST, _PORT, _WEBHOOK, _SEED, _LOG,\n"
            "_CONTROL_KEY e _LOG_LIMIT.\n"
            "\n"
            "Com uma ação: comanda um sandbox em execução pela API de controle dele (--url,\n"
            "senão SMARTPOS_SANDBOX_URL, senão SMARTPOS_BASE_URL, senão http://127.0.0.1:8765)."
        ),
    },
    "cli.examples": {
        "en": "examples:",
        "pt_BR": "exemplos:",
    },
    "cli.help.sandbox.host": {
        "en": (
            "address to bind (default 127.0.0.1; another one, such as 0.0.0.0 in a container, is "
            "served with a warning)"
        ),
        "pt_BR": (
            "endereço de escuta (padrão 127.0.0.1; outro, como 0.0.0.0 num contêiner, é servido "
            "com um aviso)"
        ),
    },
    "cli.help.sandbox.webhook": {
        "en": "also deliver every event to this URL (loopback)",
        "pt_BR": "entrega também cada evento a esta URL (loopback)",
    },
    "cli.help.sandbox.seed": {
        "en": "seed for reproducible ids",
        "pt_BR": "semente para ids reproduzíveis",
    },
    "cli.help.sandbox.quiet": {
        "en": "no line per request and delivery",
        "pt_BR": "sem uma linha por requisição e por entrega",
    },
    "cli.help.sandbox.control_key": {
        "en": (
            "serving: require this key on the control API; actions: send it (default: env "
            "SMARTPOS_SANDBOX_CONTROL_KEY, which other users of the machine cannot see)"
        ),
        "pt_BR": (
            "servindo: exige esta chave na API de controle; ações: envia a chave (padrão: env "
            "SMARTPOS_SANDBOX_CONTROL_KEY, que outros usuários da máquina não veem)"
        ),
    },
    "cli.help.sandbox.log_limit": {
        "en": "keep the last N log entries, requests and deliveries (default: 10000)",
        "pt_BR": "guarda as últimas N entradas do log, requisições e entregas (padrão: 10000)",
    },
    "cli.title.actions": {
        "en": "actions",
        "pt_BR": "ações",
    },
    "cli.help.sandbox_url.url": {
        "en": (
            "the running sandbox (default: env SMARTPOS_SANDBOX_URL, else SMARTPOS_BASE_URL, "
            "else http://127.0.0.1:8765)"
        ),
        "pt_BR": (
            "o sandbox em execução (padrão: env SMARTPOS_SANDBOX_URL, senão SMARTPOS_BASE_URL, "
            "senão http://127.0.0.1:8765)"
        ),
    },
    "cli.help.sandbox_url.control_key": {
        "en": "the sandbox's control key (default: env SMARTPOS_SANDBOX_CONTROL_KEY)",
        "pt_BR": "a chave de controle do sandbox (padrão: env SMARTPOS_SANDBOX_CONTROL_KEY)",
    },
    "cli.command.sandbox_scan": {
        "en": "a terminal reads a QR code (pairing)",
        "pt_BR": "um terminal lê um QR code (pareamento)",
    },
    "cli.about.sandbox_scan": {
        "en": "A terminal reads a QR code: smartpos.identificado is delivered.",
        "pt_BR": "Um terminal lê um QR code: smartpos.identificado é entregue.",
    },
    "cli.help.sandbox_scan.qr_code": {
        "en": "the qrCode value (default: the newest)",
        "pt_BR": "o valor do qrCode (padrão: o mais recente)",
    },
    "cli.help.sandbox_scan.smartpos_id": {
        "en": "the terminal (SP-SANDBOX-1)",
        "pt_BR": "o terminal (SP-SANDBOX-1)",
    },
    "cli.command.sandbox_next": {
        "en": "script what the next payments or print jobs do",
        "pt_BR": "roteiriza o que fazem os próximos pagamentos ou impressões",
    },
    "cli.about.sandbox_next": {
        "en": (
            "Script the outcome of the next payment or print job (or of every one, --always).\n"
            "payment: aprovar, recusar, silencio (no event ever);  print: concluir, falhar,\n"
            "silencio. Any of them may follow these words, which change how the event\n"
            "travels: atraso SECONDS (late), duplicar (twice, same id), fora-de-ordem (after\n"
            "the next event), contradicao (followed by an event saying the opposite).\n"
            "Accented forms work too ({accented})."
        ),
        "pt_BR": (
            "Roteiriza o resultado do próximo pagamento ou impressão (ou de todos, --always).\n"
            "payment: aprovar, recusar, silencio (nenhum evento, nunca);  print: concluir,\n"
            "falhar, silencio. Qualquer um deles pode vir depois destas palavras, que mudam\n"
            "como o evento viaja: atraso SECONDS (atrasado), duplicar (duas vezes, mesmo id),\n"
            "fora-de-ordem (depois do evento seguinte), contradicao (seguido de um evento\n"
            "dizendo o contrário). As formas acentuadas também valem ({accented})."
        ),
    },
    "cli.help.sandbox_next.kind": {
        "en": "payment or print",
        "pt_BR": "payment (pagamento) ou print (impressão)",
    },
    "cli.help.sandbox_next.outcome": {
        "en": "the outcome's words",
        "pt_BR": "as palavras do resultado",
    },
    "cli.help.next_n": {
        "en": "the next N (default 1)",
        "pt_BR": "os próximos N (padrão 1)",
    },
    "cli.help.sandbox_next.smartpos_id": {
        "en": "only on this terminal",
        "pt_BR": "só neste terminal",
    },
    "cli.help.sandbox_next.always": {
        "en": "from now on, when nothing is scripted",
        "pt_BR": "daqui em diante, quando nada estiver roteirizado",
    },
    "cli.help.sandbox_next.status": {
        "en": "dados.status of a refusal or failure",
        "pt_BR": "dados.status de uma recusa ou falha",
    },
    "cli.command.sandbox_fault": {
        "en": "make the next requests or webhook deliveries fail",
        "pt_BR": "faz as próximas requisições ou entregas de webhook falharem",
    },
    "cli.about.sandbox_fault": {
        "en": (
            "Make the next requests to an endpoint fail (payments, refunds, print-jobs,\n"
            "qrcodes, terminals, or any): 500 (--after-accept: processed first), 502, 429\n"
            "(--retry-after N), latency SECONDS, drop (the answer is lost after acceptance;\n"
            "--before-accept: nothing was read), refuse (the same as drop --before-accept),\n"
            "timeout. For 'webhook': a status that\n"
            "is not 2xx (500, 503...) or timeout, for the next delivery attempts."
        ),
        "pt_BR": (
            "Faz as próximas requisições a um endpoint falharem (payments, refunds, print-jobs,\n"
            "qrcodes, terminals, ou any): 500 (--after-accept: processada antes), 502, 429\n"
            "(--retry-after N), latency SECONDS, drop (a resposta se perde depois do aceite;\n"
            "--before-accept: nada foi lido), refuse (o mesmo que drop --before-accept),\n"
            "timeout. Para 'webhook': um status que\n"
            "não é 2xx (500, 503...) ou timeout, nas próximas tentativas de entrega."
        ),
    },
    "cli.help.sandbox_fault.endpoint": {
        "en": "where it applies",
        "pt_BR": "onde a falha vale",
    },
    "cli.help.sandbox_fault.fault": {
        "en": "the fault's words",
        "pt_BR": "as palavras da falha",
    },
    "cli.help.sandbox_fault.after_accept": {
        "en": "500, drop: after the operation was processed (drop's default)",
        "pt_BR": "500, drop: depois de a operação ser processada (o padrão do drop)",
    },
    "cli.help.sandbox_fault.before_accept": {
        "en": "drop: before anything was read (the same as 'refuse')",
        "pt_BR": "drop: antes de qualquer leitura (o mesmo que 'refuse')",
    },
    "cli.help.sandbox_fault.clear": {
        "en": "forget every fault not used yet",
        "pt_BR": "esquece toda falha ainda não usada",
    },
    "cli.command.sandbox_resend": {
        "en": "deliver an event again, with the same id",
        "pt_BR": "entrega um evento de novo, com o mesmo id",
    },
    "cli.about.sandbox_resend": {
        "en": "Deliver an event again with the same id, like the service's manual resend.",
        "pt_BR": "Entrega um evento de novo com o mesmo id, como o reenvio manual do serviço.",
    },
    "cli.help.sandbox_resend.to": {
        "en": "only to this URL, once (default: the partner's webhook)",
        "pt_BR": "só para esta URL, uma vez (padrão: o webhook do parceiro)",
    },
    "cli.command.sandbox_log": {
        "en": "show the requests and deliveries of a running sandbox",
        "pt_BR": "mostra as requisições e entregas de um sandbox em execução",
    },
    "cli.about.sandbox_log": {
        "en": "Show every request and delivery attempt of a running sandbox, in order.",
        "pt_BR": (
            "Mostra cada requisição e tentativa de entrega de um sandbox em execução, em ordem."
        ),
    },
    "cli.help.sandbox_log.follow": {
        "en": "keep printing new entries until Ctrl-C",
        "pt_BR": "continua imprimindo as novas entradas até Ctrl-C",
    },
    "cli.help.sandbox_log.since": {
        "en": "only entries after this number",
        "pt_BR": "só as entradas depois deste número",
    },
    "cli.command.sandbox_operator": {
        "en": "the operator starts or cancels a manual-mode card",
        "pt_BR": "o operador inicia ou cancela um cartão do modo manual",
    },
    "cli.about.sandbox_operator": {
        "en": (
            "Act as the operator of manual mode: start a card waiting in the queue on a\n"
            "terminal (its payment goes on as scripted), or cancel it (pagamento.recusado,\n"
            "status cancelado). Without REFERENCIA: the oldest card in the queue. A card is\n"
            "queued by a payment in manual mode (smartpos pay ... --manual --comanda LABEL)."
        ),
        "pt_BR": (
            "Faz o papel do operador do modo manual: inicia num terminal um cartão que aguarda "
            "na\n"
            "fila (o pagamento dele segue como roteirizado), ou o cancela (pagamento.recusado,\n"
            "status cancelado). Sem REFERENCIA: o cartão mais antigo da fila. Um cartão entra "
            "na\n"
            "fila por um pagamento em modo manual (smartpos pay ... --manual --comanda LABEL)."
        ),
    },
    "cli.help.sandbox_operator.referencia": {
        "en": "the card's payment referencia (default: the oldest card in the queue)",
        "pt_BR": "a referencia do pagamento do cartão (padrão: o cartão mais antigo da fila)",
    },
    "cli.command.sandbox_operator_start": {
        "en": "start a queued card on a terminal",
        "pt_BR": "inicia num terminal um cartão da fila",
    },
    "cli.about.sandbox_operator_start": {
        "en": "Start a queued card on a terminal: its payment event follows.",
        "pt_BR": (
            "Inicia num terminal um cartão da fila: o evento do pagamento dele vem em seguida."
        ),
    },
    "cli.help.sandbox_operator_start.smartpos_id": {
        "en": "the terminal (needed when the card has several)",
        "pt_BR": "o terminal (necessário quando o cartão tem vários)",
    },
    "cli.command.sandbox_operator_cancel": {
        "en": "cancel a queued card (pagamento.recusado)",
        "pt_BR": "cancela um cartão da fila (pagamento.recusado)",
    },
    "cli.about.sandbox_operator_cancel": {
        "en": "Cancel a queued card: it leaves the queue, pagamento.recusado is emitted.",
        "pt_BR": "Cancela um cartão da fila: ele sai da fila, e pagamento.recusado é emitido.",
    },
    "cli.help.sandbox_operator_cancel.mensagem": {
        "en": "resultadoSmartPOS.mensagemOperador (default: CANCELADO PELO OPERADOR)",
        "pt_BR": "resultadoSmartPOS.mensagemOperador (padrão: CANCELADO PELO OPERADOR)",
    },
    "cli.command.referencia": {
        "en": "print a new referencia (a UUID, optionally -suffix)",
        "pt_BR": "imprime uma nova referencia (um UUID, opcionalmente -sufixo)",
    },
    "cli.about.referencia": {
        "en": "Print a new referencia: one per operational attempt (spec 2.6).",
        "pt_BR": (
            "Imprime uma nova referencia: uma por tentativa operacional (especificação 2.6)."
        ),
    },
    "cli.help.referencia.suffix": {
        "en": "appended after the UUID as -SUFFIX",
        "pt_BR": "acrescentado depois do UUID como -SUFFIX",
    },
    "cli.command.qrcode": {
        "en": "create a QR code that pairs a terminal, and draw it",
        "pt_BR": "cria um QR code que pareia um terminal, e o desenha",
    },
    "cli.about.qrcode": {
        "en": (
            "Create a QR code for a customer (POST /qrcode) and draw it in the terminal.\n"
            "When a terminal reads it, smartpos.identificado carries its smartposId."
        ),
        "pt_BR": (
            "Cria um QR code para um cliente (POST /qrcode) e o desenha no terminal.\n"
            "Quando um terminal o lê, smartpos.identificado traz o smartposId dele."
        ),
    },
    "cli.help.qrcode.documento": {
        "en": "customer CPF or CNPJ (masked or not)",
        "pt_BR": "CPF ou CNPJ do cliente (com máscara ou sem)",
    },
    "cli.help.qrcode.referencia": {
        "en": "echoed back (default: a new one)",
        "pt_BR": "devolvida como veio (padrão: uma nova)",
    },
    "cli.help.qrcode.png": {
        "en": "also save it as a PNG image",
        "pt_BR": "salva também como imagem PNG",
    },
    "cli.help.qrcode.svg": {
        "en": "also save it as an SVG image",
        "pt_BR": "salva também como imagem SVG",
    },
    "cli.help.qrcode.no_draw": {
        "en": "do not draw it in the terminal",
        "pt_BR": "não o desenha no terminal",
    },
    "cli.help.qrcode.invert": {
        "en": "for terminals with a light background",
        "pt_BR": "para terminais de fundo claro",
    },
    "cli.command.pay": {
        "en": "ask a terminal for a payment",
        "pt_BR": "pede um pagamento a um terminal",
    },
    "cli.about.pay": {
        "en": (
            "Ask for a payment (POST /v1/payments). The answer only means accepted: the sale\n"
            "is final when pagamento.aprovado with the same referencia reaches your webhook."
        ),
        "pt_BR": (
            "Pede um pagamento (POST /v1/payments). A resposta só quer dizer aceito: a venda\n"
            "é final quando pagamento.aprovado com a mesma referencia chega ao seu webhook."
        ),
    },
    "cli.help.pay.documento": {
        "en": "customer CPF or CNPJ",
        "pt_BR": "CPF ou CNPJ do cliente",
    },
    "cli.help.pay.valor_centavos": {
        "en": "amount in cents (1990)",
        "pt_BR": "valor em centavos (1990)",
    },
    "cli.help.pay.smartpos_id": {
        "en": "terminal that charges (imediato mode)",
        "pt_BR": "terminal que cobra (modo imediato)",
    },
    "cli.help.pay.parcelas": {
        "en": "installments (credito)",
        "pt_BR": "parcelas (credito)",
    },
    "cli.help.pay.manual": {
        "en": "a card in the operator's queue (needs --comanda)",
        "pt_BR": "um cartão na fila do operador (precisa de --comanda)",
    },
    "cli.help.pay.comanda": {
        "en": "label of the manual-queue card",
        "pt_BR": "rótulo do cartão da fila manual",
    },
    "cli.help.pay.item": {
        "en": "an item shown on the card (repeatable)",
        "pt_BR": "um item mostrado no cartão (repetível)",
    },
    "cli.help.pay.endereco": {
        "en": "address or context shown to the operator",
        "pt_BR": "endereço ou contexto mostrado ao operador",
    },
    "cli.help.pay.referencia": {
        "en": "this attempt's referencia (default: a new one)",
        "pt_BR": "a referencia desta tentativa (padrão: uma nova)",
    },
    "cli.command.refund": {
        "en": "refund an approved payment",
        "pt_BR": "estorna um pagamento aprovado",
    },
    "cli.about.refund": {
        "en": (
            "Refund an approved payment (POST /v1/refunds), from its pagamento.aprovado event\n"
            "(--event FILE) or from explicit authorization fields."
        ),
        "pt_BR": (
            "Estorna um pagamento aprovado (POST /v1/refunds), a partir do evento\n"
            "pagamento.aprovado dele (--event FILE) ou de campos de autorização explícitos."
        ),
    },
    "cli.help.refund.smartpos_id": {
        "en": "the terminal",
        "pt_BR": "o terminal",
    },
    "cli.help.refund.valor_centavos": {
        "en": "amount in cents",
        "pt_BR": "valor em centavos",
    },
    "cli.help.refund.event": {
        "en": ("a pagamento.aprovado event as JSON ('-' for stdin); amount defaults to the total"),
        "pt_BR": (
            "um evento pagamento.aprovado em JSON ('-' para stdin); o valor padrão é o total"
        ),
    },
    "cli.help.refund.valor_parcial": {
        "en": "with --event: refund only N cents (default: the approved total)",
        "pt_BR": "com --event: estorna só N centavos (padrão: o total aprovado)",
    },
    "cli.help.refund.referencia": {
        "en": "the refund's referencia (default: a new one)",
        "pt_BR": "a referencia do estorno (padrão: uma nova)",
    },
    "cli.command.print": {
        "en": "print a file on a terminal",
        "pt_BR": "imprime um arquivo num terminal",
    },
    "cli.about.print": {
        "en": (
            "Print on a terminal (POST /v1/print-jobs). impressao.concluida or impressao.falhou\n"
            "reports the outcome; printing never changes a sale."
        ),
        "pt_BR": (
            "Imprime num terminal (POST /v1/print-jobs). impressao.concluida ou "
            "impressao.falhou\n"
            "informa o resultado; imprimir nunca muda uma venda."
        ),
    },
    "cli.help.print.smartpos_id": {
        "en": "the terminal that prints",
        "pt_BR": "o terminal que imprime",
    },
    "cli.help.print.file": {
        "en": "what to print; '-' reads stdin",
        "pt_BR": "o que imprimir; '-' lê de stdin",
    },
    "cli.help.print.referencia": {
        "en": "the print job's referencia (default: a new one)",
        "pt_BR": "a referencia da impressão (padrão: uma nova)",
    },
    "cli.command.terminals": {
        "en": "list a customer's terminals",
        "pt_BR": "lista os terminais de um cliente",
    },
    "cli.about.terminals": {
        "en": ("List a customer's terminals (GET /v1/customers/{{documentoCliente}}/smartpos)."),
        "pt_BR": (
            "Lista os terminais de um cliente (GET /v1/customers/{{documentoCliente}}/smartpos)."
        ),
    },
    "cli.command.listen": {
        "en": "receive webhook events locally and print them",
        "pt_BR": "recebe eventos de webhook localmente e os imprime",
    },
    "cli.about.listen": {
        "en": (
            "Serve a webhook receiver on a loopback address: every delivery is stored in an\n"
            "inbox (an SQLite file, or --store redis://... or postgresql://...; deduplicated\n"
            "by id) and printed as it arrives; a resent id is\n"
            "marked DUPLICATE. Events stay pending in the inbox for your worker (see\n"
            "'smartpos events'). Stops on Ctrl-C or SIGTERM."
        ),
        "pt_BR": (
            "Serve um receptor de webhooks num endereço de loopback: cada entrega é guardada\n"
            "numa caixa de entrada (um arquivo SQLite, ou --store redis://... ou\n"
            "postgresql://...; sem duplicatas por id) e impressa quando chega; um id reenviado\n"
            "é marcado DUPLICATE. Os eventos ficam pendentes na caixa de entrada para o seu\n"
            "worker (veja 'smartpos events'). Para com Ctrl-C ou SIGTERM."
        ),
    },
    "cli.help.listen.host": {
        "en": "address to listen on (127.0.0.1)",
        "pt_BR": "endereço de escuta (127.0.0.1)",
    },
    "cli.help.listen.forward_to": {
        "en": "also POST every delivery, as received, to URL",
        "pt_BR": "faz também POST de cada entrega, como recebida, para URL",
    },
    "cli.command.trigger": {
        "en": "make an event happen and send it to a webhook endpoint",
        "pt_BR": "faz um evento acontecer e o envia a um endpoint de webhook",
    },
    "cli.about.trigger": {
        "en": (
            "Make an event of any of the five kinds happen in a running sandbox, and send it\n"
            "to a webhook endpoint (yours, or 'smartpos listen', the default --to): the\n"
            "operation exists in the sandbox, so a triggered pagamento.aprovado can be "
            "refunded.\n"
            "Without a sandbox (none answers, or --no-sandbox) a realistic standalone sample,\n"
            "with the full dados of spec section 6, is posted instead.\n"
            "--resend ID sends the same envelope again, as the service's manual resend does:\n"
            "a correct receiver stores it once and answers 2xx."
        ),
        "pt_BR": (
            "Faz um evento de qualquer um dos cinco tipos acontecer num sandbox em execução e o\n"
            "envia a um endpoint de webhook (o seu, ou 'smartpos listen', o --to padrão): a\n"
            "operação existe no sandbox, então um pagamento.aprovado disparado pode ser "
            "estornado.\n"
            "Sem sandbox (nenhum responde, ou --no-sandbox) é enviada uma amostra avulsa "
            "realista,\n"
            "com os dados completos da seção 6 da especificação.\n"
            "--resend ID envia o mesmo envelope de novo, como faz o reenvio manual do serviço:\n"
            "um receptor correto o guarda uma vez e responde 2xx."
        ),
    },
    "cli.help.trigger.sandbox": {
        "en": (
            "the sandbox that makes the event (default: env SMARTPOS_SANDBOX_URL, else "
            "SMARTPOS_BASE_URL, else http://127.0.0.1:8765)"
        ),
        "pt_BR": (
            "o sandbox que produz o evento (padrão: env SMARTPOS_SANDBOX_URL, senão "
            "SMARTPOS_BASE_URL, senão http://127.0.0.1:8765)"
        ),
    },
    "cli.help.trigger.no_sandbox": {
        "en": "post a standalone sample, no sandbox",
        "pt_BR": "envia uma amostra avulsa, sem sandbox",
    },
    "cli.help.trigger.resend": {
        "en": "send this event again (a sample: same id and options give the same body)",
        "pt_BR": (
            "envia este evento de novo (uma amostra: o mesmo id e as mesmas opções dão o mesmo "
            "corpo)"
        ),
    },
    "cli.help.trigger.documento": {
        "en": "documentoCliente (a sandbox CPF)",
        "pt_BR": "documentoCliente (um CPF do sandbox)",
    },
    "cli.help.trigger.referencia": {
        "en": "dados.referencia (default: a new one)",
        "pt_BR": "dados.referencia (padrão: uma nova)",
    },
    "cli.help.trigger.valor_centavos": {
        "en": "payments: amount (default 1990)",
        "pt_BR": "pagamentos: valor (padrão 1990)",
    },
    "cli.help.trigger.header": {
        "en": "an extra request header, e.g. a shared secret (repeatable)",
        "pt_BR": (
            "um cabeçalho extra na requisição, por exemplo um segredo compartilhado (repetível)"
        ),
    },
    "cli.help.timeout_5": {
        "en": "(default: 5)",
        "pt_BR": "(padrão: 5)",
    },
    "cli.command.events": {
        "en": "inspect, requeue and replay the events of an inbox",
        "pt_BR": "examina, põe de volta na fila e reenvia os eventos de uma caixa de entrada",
    },
    "cli.about.events": {
        "en": (
            "List, show, requeue and replay the events of an inbox: an SQLite file, or a\n"
            "redis:// or postgresql:// store (--store, --namespace)."
        ),
        "pt_BR": (
            "Lista, mostra, põe de volta na fila e reenvia os eventos de uma caixa de entrada: "
            "um\n"
            "arquivo SQLite, ou um store redis:// ou postgresql:// (--store, --namespace)."
        ),
    },
    "cli.command.events_list": {
        "en": "list stored events, oldest first",
        "pt_BR": "lista os eventos guardados, do mais antigo ao mais novo",
    },
    "cli.about.events_list": {
        "en": "List the events of an inbox, oldest first.",
        "pt_BR": "Lista os eventos de uma caixa de entrada, do mais antigo ao mais novo.",
    },
    "cli.help.events_list.state": {
        "en": "only this state",
        "pt_BR": "só este estado",
    },
    "cli.help.at_most_n": {
        "en": "at most N (default 100)",
        "pt_BR": "no máximo N (padrão 100)",
    },
    "cli.command.events_show": {
        "en": "show one event and its inbox record",
        "pt_BR": "mostra um evento e o registro dele na caixa de entrada",
    },
    "cli.about.events_show": {
        "en": "Show one event: its inbox record and the envelope as received.",
        "pt_BR": (
            "Mostra um evento: o registro dele na caixa de entrada e o envelope como recebido."
        ),
    },
    "cli.command.events_requeue": {
        "en": "make a dead or done event pending again",
        "pt_BR": "torna pendente de novo um evento dead ou done",
    },
    "cli.about.events_requeue": {
        "en": "Make a dead (or done) event pending again, its attempts reset to 0.",
        "pt_BR": "Torna pendente de novo um evento dead (ou done), com as tentativas zeradas.",
    },
    "cli.command.events_resend": {
        "en": "replay a stored event to your own endpoint",
        "pt_BR": "reenvia um evento guardado ao seu próprio endpoint",
    },
    "cli.about.events_resend": {
        "en": (
            "POST an event stored in the inbox, its envelope as received, to a URL: replay a\n"
            "delivery to your app (say, after fixing its handler). The inbox is not changed."
        ),
        "pt_BR": (
            "Faz POST de um evento guardado na caixa de entrada, com o envelope como recebido,\n"
            "para uma URL: repete uma entrega para a sua aplicação (digamos, depois de corrigir\n"
            "o handler). A caixa de entrada não muda."
        ),
    },
    "cli.help.events_resend.to": {
        "en": "your webhook endpoint",
        "pt_BR": "o seu endpoint de webhook",
    },
    "cli.help.events_resend.header": {
        "en": "an extra request header (repeatable)",
        "pt_BR": "um cabeçalho extra na requisição (repetível)",
    },
    "cli.help.operations.all": {
        "en": "every operation, ended ones too (default: only those waiting for an outcome)",
        "pt_BR": (
            "todas as operações, também as encerradas (padrão: só as que esperam um resultado)"
        ),
    },
    "cli.command.operations": {
        "en": "list, reconcile and wait for the operations journaled in a store",
        "pt_BR": "lista, reconcilia e espera as operações registradas no diário de um store",
    },
    "cli.about.operations": {
        "en": (
            "The outcome journal of a store (what a Client(store=...) started on a terminal).\n"
            "Without an action, list the operations still waiting for an outcome. After a\n"
            "crash: reconcile each one (its request resent byte for byte, with the same\n"
            "referencia: never a second charge), then wait for its event."
        ),
        "pt_BR": (
            "O diário de resultados de um store (o que um Client(store=...) iniciou num "
            "terminal).\n"
            "Sem ação, lista as operações que ainda esperam um resultado. Depois de uma queda:\n"
            "reconcilie cada uma (a requisição dela reenviada byte a byte, com a mesma\n"
            "referencia: nunca uma segunda cobrança), e então espere o evento dela."
        ),
    },
    "cli.command.operations_list": {
        "en": "list the operations waiting for an outcome (the default)",
        "pt_BR": "lista as operações que esperam um resultado (o padrão)",
    },
    "cli.about.operations_list": {
        "en": "List the operations waiting for an outcome, oldest first.",
        "pt_BR": "Lista as operações que esperam um resultado, da mais antiga à mais nova.",
    },
    "cli.command.operations_reconcile": {
        "en": "resend an operation whose answer is unknown, with the same referencia",
        "pt_BR": "reenvia uma operação cuja resposta é desconhecida, com a mesma referencia",
    },
    "cli.about.operations_reconcile": {
        "en": (
            "Resend the journaled request of REFERENCIA byte for byte, with the same\n"
            "referencia: a 2xx or a 409 REFERENCIA_DUPLICADA makes it accepted, and its event\n"
            "says the rest. Never a second charge. Accepted, final and rejected operations\n"
            "are shown as they are, nothing sent."
        ),
        "pt_BR": (
            "Reenvia byte a byte a requisição de REFERENCIA registrada no diário, com a mesma\n"
            "referencia: um 2xx ou um 409 REFERENCIA_DUPLICADA a torna aceita, e o evento dela\n"
            "diz o resto. Nunca uma segunda cobrança. Operações aceitas, finais e recusadas\n"
            "são mostradas como estão, sem enviar nada."
        ),
    },
    "cli.epilog.operations_reconcile": {
        "en": (
            "exit status: 0 accepted or final, 1 rejected (a new attempt needs a new\n"
            "referencia) or an error, 3 still unknown (try again later)"
        ),
        "pt_BR": (
            "status de saída: 0 aceita ou final, 1 recusada (uma nova tentativa precisa de uma\n"
            "nova referencia) ou um erro, 3 ainda desconhecida (tente de novo mais tarde)"
        ),
    },
    "cli.command.operations_wait": {
        "en": "wait for the final event of a referencia",
        "pt_BR": "espera o evento final de uma referencia",
    },
    "cli.about.operations_wait": {
        "en": (
            "Wait for the final event of REFERENCIA in the store (stored by any process),\n"
            "and print it."
        ),
        "pt_BR": (
            "Espera o evento final de REFERENCIA no store (guardado por qualquer processo),\n"
            "e o imprime."
        ),
    },
    "cli.epilog.operations_wait": {
        "en": "exit status: 0 the event came, 3 no final event in time (wait again later)",
        "pt_BR": (
            "status de saída: 0 o evento chegou, 3 nenhum evento final a tempo (espere de novo "
            "mais tarde)"
        ),
    },
    "cli.about.smartpos": {
        "en": (
            "Drive smart POS payment terminals from the command line, receive and replay\n"
            "their webhook events, and try it all against an embedded sandbox.\n"
            "\n"
            "Start with:  smartpos demo"
        ),
        "pt_BR": (
            "Comanda terminais de pagamento smart POS pela linha de comando, recebe e repete os\n"
            "eventos de webhook deles, e experimenta tudo contra um sandbox embutido.\n"
            "\n"
            "Comece com:  smartpos demo"
        ),
    },
    "cli.help.store": {
        "en": (
            "the store: an SQLite inbox file or sqlite:///PATH, a redis://... or a "
            "postgresql://... URL (default: env SMARTPOS_INBOX, else smartpos-inbox.db)"
        ),
        "pt_BR": (
            "o store: um arquivo de caixa de entrada SQLite ou sqlite:///PATH, uma URL "
            "redis://... ou postgresql://... (padrão: env SMARTPOS_INBOX, senão "
            "smartpos-inbox.db)"
        ),
    },
    "cli.help.namespace": {
        "en": ("the RedisStore key prefix or the PostgresStore table (default: the store's own)"),
        "pt_BR": (
            "o prefixo de chaves do RedisStore ou a tabela do PostgresStore (padrão: o do "
            "próprio store)"
        ),
    },
    "cli.help.port": {
        "en": "port, 0 for any free one (default: {port})",
        "pt_BR": "porta, 0 para qualquer uma livre (padrão: {port})",
    },
    "cli.help.pay.imprimir_cliente": {
        "en": "print the cliente receipt",
        "pt_BR": "imprime a via do cliente",
    },
    "cli.help.pay.imprimir_loja": {
        "en": "print the loja receipt",
        "pt_BR": "imprime a via da loja",
    },
    "cli.help.trigger.to": {
        "en": "the webhook endpoint (default: smartpos listen's, {url})",
        "pt_BR": "o endpoint de webhook (padrão: o do smartpos listen, {url})",
    },
    "cli.help.operations_wait.timeout": {
        "en": "how long to wait (default: {seconds})",
        "pt_BR": "quanto tempo esperar (padrão: {seconds})",
    },
    "cli.epilog.operations": {
        "en": (
            "  (then, for each: operations reconcile REFERENCIA, operations wait REFERENCIA)\n"
            "\n"
            "exit status 3: the outcome is still unknown or pending; do NOT retry with a new\n"
            "referencia."
        ),
        "pt_BR": (
            "  (depois, para cada uma: operations reconcile REFERENCIA, operations wait "
            "REFERENCIA)\n"
            "\n"
            "status de saída 3: o resultado ainda é desconhecido ou pendente; NÃO tente de novo\n"
            "com uma nova referencia."
        ),
    },
    "cli.epilog.smartpos": {
        "en": (
            "exit status:\n"
            "  0  success\n"
            "  1  error: the service refused (codigo, mensagem and acao are printed), a local\n"
            "     validation error, a network failure, a file that cannot be read\n"
            "  2  usage error\n"
            "  3  outcome unknown: the service may have accepted the payment, refund or print\n"
            "     job; do NOT retry with a new referencia, wait for the event of that "
            "referencia\n"
            "\n"
            "environment:\n"
            "  SMARTPOS_API_KEY   the integration key (or --api-key; it is never printed)\n"
            "  SMARTPOS_BASE_URL  the service's base address (or --base-url)\n"
            "  SMARTPOS_INBOX     the store of listen, events and operations: a file or a URL\n"
            "                     (default: smartpos-inbox.db)\n"
            "  SMARTPOS_SANDBOX_URL  the running sandbox of 'sandbox ACTION' and trigger "
            "(default:\n"
            "                     SMARTPOS_BASE_URL, else http://127.0.0.1:8765)\n"
            "  SMARTPOS_SANDBOX_HOST, _PORT, _WEBHOOK, _SEED, _LOG, _LOG_LIMIT  what 'smartpos "
            "sandbox'\n"
            "                     serves\n"
            "  SMARTPOS_SANDBOX_CONTROL_KEY  the control API's key (served, and sent by the "
            "actions)\n"
            "  NO_COLOR           any value turns colours off (colour is only used on a "
            "terminal)\n"
        ),
        "pt_BR": (
            "status de saída:\n"
            "  0  sucesso\n"
            "  1  erro: o serviço recusou (codigo, mensagem e acao são impressos), um erro de\n"
            "     validação local, uma falha de rede, um arquivo que não pode ser lido\n"
            "  2  erro de uso\n"
            "  3  resultado desconhecido: o serviço pode ter aceitado o pagamento, o estorno ou "
            "a\n"
            "     impressão; NÃO tente de novo com uma nova referencia, espere o evento dessa "
            "referencia\n"
            "\n"
            "ambiente:\n"
            "  SMARTPOS_API_KEY   a chave de integração (ou --api-key; ela nunca é impressa)\n"
            "  SMARTPOS_BASE_URL  o endereço base do serviço (ou --base-url)\n"
            "  SMARTPOS_INBOX     o store de listen, events e operations: um arquivo ou uma URL\n"
            "                     (padrão: smartpos-inbox.db)\n"
            "  SMARTPOS_SANDBOX_URL  o sandbox em execução de 'sandbox ACTION' e de trigger "
            "(padrão:\n"
            "                     SMARTPOS_BASE_URL, senão http://127.0.0.1:8765)\n"
            "  SMARTPOS_SANDBOX_HOST, _PORT, _WEBHOOK, _SEED, _LOG, _LOG_LIMIT  o que 'smartpos "
            "sandbox'\n"
            "                     serve\n"
            "  SMARTPOS_SANDBOX_CONTROL_KEY  a chave da API de controle (servida, e enviada "
            "pelas ações)\n"
            "  NO_COLOR           qualquer valor desliga as cores (cor só é usada num terminal)\n"
        ),
    },
}
