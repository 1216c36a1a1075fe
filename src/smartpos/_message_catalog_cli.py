"""The command's own texts: the help of ``smartpos`` and what its commands say.

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
    "cli.help.smartpos.version": {
        "en": "show program's version number and exit",
        "pt_BR": "mostra a versão do programa e sai",
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
            "_CONTROL_KEY, _LOG_LIMIT, _SIGN, _SECRET, _SIGN_OPTIONS, _WEBHOOK_HEADERS,\n"
            "_WEBHOOK_ATTEMPTS and _WEBHOOK_BACKOFF.\n"
            "\n"
            "With an action: drive a running sandbox through its control API (--url, else\n"
            "SMARTPOS_SANDBOX_URL, else SMARTPOS_BASE_URL, else http://127.0.0.1:8765)."
        ),
        "pt_BR": (
            "Sem ação: serve o sandbox, um simulador do serviço inteiro, por HTTP até Ctrl-C\n"
            "ou SIGTERM, imprimindo uma linha por requisição e por tentativa de entrega.\n"
            "As opções podem vir de SMARTPOS_SANDBOX_HOST, _PORT, _WEBHOOK, _SEED, _LOG,\n"
            "_CONTROL_KEY, _LOG_LIMIT, _SIGN, _SECRET, _SIGN_OPTIONS, _WEBHOOK_HEADERS,\n"
            "_WEBHOOK_ATTEMPTS e _WEBHOOK_BACKOFF.\n"
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
    "cli.title.deliveries": {
        "en": "webhook deliveries",
        "pt_BR": "entregas de webhooks",
    },
    "cli.title.signing": {
        "en": "signing what it posts",
        "pt_BR": "assinatura do que envia",
    },
    "cli.help.sandbox.sign": {
        "en": (
            "sign every delivery under this scheme ({schemes}), with --secret; each retry is "
            "signed again with a fresh timestamp and the same webhook-id (default: env "
            "SMARTPOS_SANDBOX_SIGN; not signed)"
        ),
        "pt_BR": (
            "assina cada entrega neste esquema ({schemes}), com --secret; cada nova tentativa "
            "é assinada de novo, com um timestamp novo e o mesmo webhook-id (padrão: env "
            "SMARTPOS_SANDBOX_SIGN; sem assinatura)"
        ),
    },
    "cli.help.trigger.sign": {
        "en": "sign the event under this scheme ({schemes}), with --secret",
        "pt_BR": "assina o evento neste esquema ({schemes}), com --secret",
    },
    "cli.help.sign.secret": {
        "en": (
            "the key material --sign signs with (repeatable: one signature per key, as a "
            "sender rotating its secret; default: env SMARTPOS_SANDBOX_SECRET, which ps and "
            "the shell's history do not show)"
        ),
        "pt_BR": (
            "o material de chave com que --sign assina (repetível: uma assinatura por chave, "
            "como um remetente trocando o segredo; padrão: env SMARTPOS_SANDBOX_SECRET, que o "
            "ps e o histórico do shell não mostram)"
        ),
    },
    "cli.help.sign.option": {
        "en": (
            "an option of the scheme, e.g. template='ts:{{timestamp}};{{body}}' or "
            "header=x-signature (repeatable; default: env SMARTPOS_SANDBOX_SIGN_OPTIONS, a "
            "JSON object)"
        ),
        "pt_BR": (
            "uma opção do esquema, por exemplo template='ts:{{timestamp}};{{body}}' ou "
            "header=x-signature (repetível; padrão: env SMARTPOS_SANDBOX_SIGN_OPTIONS, um "
            "objeto JSON)"
        ),
    },
    "cli.help.sandbox.webhook_header": {
        "en": (
            "a header every delivery carries, e.g. 'x-webhook-secret: change-me' for a "
            "receiver that checks a shared secret (repeatable; default: env "
            "SMARTPOS_SANDBOX_WEBHOOK_HEADERS, a JSON object); its value is never printed"
        ),
        "pt_BR": (
            "um cabeçalho que toda entrega leva, por exemplo 'x-webhook-secret: change-me' "
            "para um receptor que confere um segredo compartilhado (repetível; padrão: env "
            "SMARTPOS_SANDBOX_WEBHOOK_HEADERS, um objeto JSON); seu valor nunca é impresso"
        ),
    },
    "cli.help.sandbox.webhook_attempts": {
        "en": (
            "attempts per delivery, the first included (default: env "
            "SMARTPOS_SANDBOX_WEBHOOK_ATTEMPTS, else 8)"
        ),
        "pt_BR": (
            "tentativas por entrega, contando a primeira (padrão: env "
            "SMARTPOS_SANDBOX_WEBHOOK_ATTEMPTS, senão 8)"
        ),
    },
    "cli.help.sandbox.webhook_backoff": {
        "en": (
            "seconds before the first retry, doubled on each retry (default: env "
            "SMARTPOS_SANDBOX_WEBHOOK_BACKOFF, else 5: retries over about 10 minutes, as a "
            "real sender; 0.05 for tests)"
        ),
        "pt_BR": (
            "segundos até a primeira nova tentativa, dobrando a cada vez (padrão: env "
            "SMARTPOS_SANDBOX_WEBHOOK_BACKOFF, senão 5: novas tentativas por cerca de 10 "
            "minutos, como um remetente real; 0.05 para testes)"
        ),
    },
    "cli.label.signing": {
        "en": "signing",
        "pt_BR": "assinatura",
    },
    "cli.label.headers": {
        "en": "headers",
        "pt_BR": "cabeçalhos",
    },
    "cli.label.retries": {
        "en": "retries",
        "pt_BR": "novas tentativas",
    },
    "cli.sandbox_not_signed": {
        "en": "none (--sign SCHEME --secret ... signs every delivery)",
        "pt_BR": "nenhuma (--sign ESQUEMA --secret ... assina cada entrega)",
    },
    "cli.sandbox_signed": {
        "en": "{scheme}, {keys} key(s)",
        "pt_BR": "{scheme}, {keys} chave(s)",
    },
    "cli.sandbox_headers": {
        "en": "{names} (values not shown)",
        "pt_BR": "{names} (valores omitidos)",
    },
    "cli.sandbox_schedule": {
        "en": "{attempts} attempts, the first retry after {backoff} s, each wait doubled",
        "pt_BR": (
            "{attempts} tentativas, a primeira nova tentativa após {backoff} s, cada espera dobrada"
        ),
    },
    "cli.bad_sign_option": {
        "en": "bad --sign-option {value!r}",
        "pt_BR": "--sign-option inválida {value!r}",
    },
    "cli.bad_sign_option_hint": {
        "en": "write it as NAME=VALUE, e.g. --sign-option header=x-signature.",
        "pt_BR": "escreva como NOME=VALOR, por exemplo --sign-option header=x-signature.",
    },
    "cli.sign_needs_secret": {
        "en": "--sign {scheme} needs --secret (or SMARTPOS_SANDBOX_SECRET)",
        "pt_BR": "--sign {scheme} precisa de --secret (ou SMARTPOS_SANDBOX_SECRET)",
    },
    "cli.secret_needs_sign": {
        "en": "--secret and --sign-option need --sign SCHEME",
        "pt_BR": "--secret e --sign-option precisam de --sign ESQUEMA",
    },
    "cli.sign_refused": {
        "en": "cannot sign under --sign {scheme}: {error}",
        "pt_BR": "não é possível assinar com --sign {scheme}: {error}",
    },
    "cli.sign_refused_hint": {
        "en": "see the scheme's options in the docs' page Webhook authenticity.",
        "pt_BR": "veja as opções do esquema na página Autenticidade dos webhooks da documentação.",
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
            "the next event), contradicao (followed by an event saying the opposite),\n"
            "segurar (held until 'smartpos sandbox release REFERENCIA').\n"
            "Accented forms work too ({accented})."
        ),
        "pt_BR": (
            "Roteiriza o resultado do próximo pagamento ou impressão (ou de todos, --always).\n"
            "payment: aprovar, recusar, silencio (nenhum evento, nunca);  print: concluir,\n"
            "falhar, silencio. Qualquer um deles pode vir depois destas palavras, que mudam\n"
            "como o evento viaja: atraso SECONDS (atrasado), duplicar (duas vezes, mesmo id),\n"
            "fora-de-ordem (depois do evento seguinte), contradicao (seguido de um evento\n"
            "dizendo o contrário), segurar (retido até 'smartpos sandbox release REFERENCIA').\n"
            "As formas acentuadas também valem ({accented})."
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
            "timeout. Para 'webhook': um status que não é 2xx (500, 503...) ou timeout, nas\n"
            "próximas tentativas de entrega."
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
    "cli.command.sandbox_held": {
        "en": "list the events held back per attempt ('segurar')",
        "pt_BR": "lista os eventos retidos por tentativa ('segurar')",
    },
    "cli.about.sandbox_held": {
        "en": (
            "List the events held back for each referencia. An attempt scripted with\n"
            "'segurar' (smartpos sandbox next payment segurar aprovar) has its event\n"
            "emitted, but not delivered until 'smartpos sandbox release REFERENCIA'."
        ),
        "pt_BR": (
            "Lista os eventos retidos de cada referencia. Uma tentativa roteirizada com\n"
            "'segurar' (smartpos sandbox next payment segurar aprovar) tem o evento\n"
            "emitido, mas só entregue depois de 'smartpos sandbox release REFERENCIA'."
        ),
    },
    "cli.command.sandbox_release": {
        "en": "deliver the held events of one attempt",
        "pt_BR": "entrega os eventos retidos de uma tentativa",
    },
    "cli.about.sandbox_release": {
        "en": (
            "Deliver now, to the partner's webhook, the events held back for REFERENCIA (an\n"
            "attempt scripted with 'segurar'): the approval that comes after the cashier\n"
            "gave up on the attempt."
        ),
        "pt_BR": (
            "Entrega agora, ao webhook do parceiro, os eventos retidos de REFERENCIA (uma\n"
            "tentativa roteirizada com 'segurar'): a aprovação que chega depois que o caixa\n"
            "desistiu da tentativa."
        ),
    },
    "cli.help.sandbox_release.referencia": {
        "en": "the attempt's referencia ('smartpos sandbox held' lists them)",
        "pt_BR": "a referencia da tentativa ('smartpos sandbox held' lista as retidas)",
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
            "Make an event of any kind the SDK knows happen in a running sandbox, and send it\n"
            "to a webhook endpoint (yours, or 'smartpos listen', the default --to): the\n"
            "operation exists in the sandbox, so a triggered pagamento.aprovado can be "
            "refunded.\n"
            "Without a sandbox (none answers, or --no-sandbox) a realistic standalone sample,\n"
            "with the full dados of spec section 6, is posted instead.\n"
            "--resend ID sends the same envelope again, as the service's manual resend does:\n"
            "a correct receiver stores it once and answers 2xx."
        ),
        "pt_BR": (
            "Faz um evento de qualquer tipo que o SDK conhece acontecer num sandbox em\n"
            "execução e o envia a um endpoint de webhook (o seu, ou 'smartpos listen', o --to\n"
            "padrão): a operação existe no sandbox, então um pagamento.aprovado disparado pode\n"
            "ser estornado.\n"
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
    "cli.command.sales": {
        "en": "list and show the sales of a store, abandon an attempt, compensate, close the till",
        "pt_BR": (
            "lista e mostra as vendas de um store, abandona uma tentativa, compensa, fecha o caixa"
        ),
    },
    "cli.about.sales": {
        "en": (
            "A sale (a tab, an order, a ticket) and its attempts, as a Client(store=...)\n"
            "journals them (payments.create(..., sale=...)): one open attempt at a time, paid\n"
            "once. Without an action, list the sales, oldest first. Before closing the till,\n"
            "'sales --attention' lists the ones with pendencias (a late approval, an outcome\n"
            "still unknown) and 'sales report' sums up the day."
        ),
        "pt_BR": (
            "Uma venda (uma comanda, um pedido, um tíquete) e as tentativas dela, como um\n"
            "Client(store=...) as registra no diário (payments.create(..., sale=...)): uma\n"
            "tentativa aberta por vez, paga uma vez só. Sem ação, lista as vendas, da mais antiga\n"
            "para a mais nova. Antes de fechar o caixa, 'sales --attention' lista as que têm\n"
            "pendências (uma aprovação tardia, um resultado ainda desconhecido) e 'sales\n"
            "report' resume o dia."
        ),
    },
    "cli.command.sales_list": {
        "en": "list the sales, oldest first (the default)",
        "pt_BR": "lista as vendas, da mais antiga para a mais nova (o padrão)",
    },
    "cli.about.sales_list": {
        "en": (
            "List the sales of the store, oldest first: state, key, approved of total, when\n"
            "it began, attempts, and its pendencias, if any."
        ),
        "pt_BR": (
            "Lista as vendas do store, da mais antiga para a mais nova: estado, chave, aprovado\n"
            "do total, quando começou, tentativas, e as pendências dela, se houver."
        ),
    },
    "cli.help.sales.attention": {
        "en": "only the sales with pendencias (what a human reviews before closing the till)",
        "pt_BR": "só as vendas com pendências (o que uma pessoa revisa antes de fechar o caixa)",
    },
    "cli.help.sales.state": {
        "en": "only the sales in this state",
        "pt_BR": "só as vendas neste estado",
    },
    "cli.help.sales.sale": {
        "en": "the sale's key (the sale= of payments.create)",
        "pt_BR": "a chave da venda (o sale= de payments.create)",
    },
    "cli.command.sales_show": {
        "en": "show a sale: its attempts, approvals, pendencias and compensations",
        "pt_BR": "mostra uma venda: tentativas, aprovações, pendências e compensações",
    },
    "cli.about.sales_show": {
        "en": (
            "Show SALE: its total, what is approved and what remains; each attempt\n"
            "(referencia, state, amount, terminal, and who abandoned it, why and when); the\n"
            "counted approvals; the pendencias (reason, referencia, since when); the\n"
            "compensation refunds. Documents are masked."
        ),
        "pt_BR": (
            "Mostra SALE: o valor total, o que está aprovado e o que falta; cada tentativa\n"
            "(referencia, estado, valor, terminal, e quem a abandonou, por quê e quando); as\n"
            "aprovações contadas; as pendências (motivo, referencia, desde quando); os estornos\n"
            "de compensação. Os documentos saem mascarados."
        ),
    },
    "cli.command.sales_abandon": {
        "en": "give up the open attempt of a sale: nothing is sent",
        "pt_BR": "desiste da tentativa aberta de uma venda: nada é enviado",
    },
    "cli.about.sales_abandon": {
        "en": (
            "The cashier gives up the open attempt of SALE (the customer pays another way, or\n"
            "tries again): it is marked abandoned, with who, why and when; the sale is open for\n"
            "a new attempt and its terminal free at once. Nothing is sent (the service has no\n"
            "cancel, and the terminal may still run it), so no API key is needed. If the\n"
            "terminal approves it anyway, that approval is never counted: it is a\n"
            "late_approval pendencia, which 'sales compensate' refunds. A sale without an open\n"
            "attempt is left as it is."
        ),
        "pt_BR": (
            "O caixa desiste da tentativa aberta de SALE (o cliente paga de outro jeito, ou\n"
            "tenta de novo): ela fica marcada como abandonada, com quem, por quê e quando; a\n"
            "venda fica aberta para uma nova tentativa e o terminal livre na hora. Nada é\n"
            "enviado (o serviço não tem cancelamento, e o terminal ainda pode executá-la), então\n"
            "nenhuma chave de API é necessária. Se o terminal aprová-la mesmo assim, essa\n"
            "aprovação nunca conta: é uma pendência late_approval, que 'sales compensate'\n"
            "estorna. Uma venda sem tentativa aberta fica como está."
        ),
    },
    "cli.help.sales_abandon.motivo": {
        "en": "why, in the cashier's words (at most 200 characters)",
        "pt_BR": "por quê, nas palavras do caixa (no máximo 200 caracteres)",
    },
    "cli.help.sales_abandon.operador": {
        "en": "who gave it up (at most 200 characters)",
        "pt_BR": "quem desistiu (no máximo 200 caracteres)",
    },
    "cli.command.sales_compensate": {
        "en": "refund each late approval of a sale, once",
        "pt_BR": "estorna cada aprovação tardia de uma venda, uma vez só",
    },
    "cli.about.sales_compensate": {
        "en": (
            "Refund in full each late approval of SALE (the approval of an attempt the cashier\n"
            "abandoned), under a referencia made from the late attempt's: a compensation the\n"
            "store holds already, from this or another process, is never sent again (unless\n"
            "the service surely refused it: then it is sent again under the same referencia),\n"
            "so running it twice refunds once. Takes the service options."
        ),
        "pt_BR": (
            "Estorna por inteiro cada aprovação tardia de SALE (a aprovação de uma tentativa\n"
            "que o caixa abandonou), com uma referencia feita a partir da tentativa tardia:\n"
            "uma compensação que o store já tem, deste ou de outro processo, nunca é enviada de\n"
            "novo (a não ser que o serviço certamente a recusou: aí ela é reenviada com a mesma\n"
            "referencia), então rodar duas vezes estorna uma vez só. Aceita as opções do serviço."
        ),
    },
    "cli.epilog.sales_compensate": {
        "en": (
            "exit status: 0 each compensation accepted (or none to make), 1 the service refused\n"
            "one (it stays a pendencia; once fixed, run this again: a refused one is sent again\n"
            "under its referencia, never twice) or an error, 3 the outcome of one is unknown\n"
            "(reconcile it: 'smartpos operations reconcile REFERENCIA', never refund by hand)"
        ),
        "pt_BR": (
            "status de saída: 0 cada compensação aceita (ou nenhuma a fazer), 1 o serviço\n"
            "recusou uma (ela continua uma pendência; depois de corrigir, rode de novo: uma\n"
            "recusada é reenviada com a mesma referencia, nunca duas vezes) ou um erro, 3 o\n"
            "resultado de uma é desconhecido (reconcilie: 'smartpos operations reconcile\n"
            "REFERENCIA', nunca estorne à mão)"
        ),
    },
    "cli.command.sales_report": {
        "en": "the till close of a day, per terminal and per payment method",
        "pt_BR": "o fechamento de caixa de um dia, por terminal e por forma de pagamento",
    },
    "cli.about.sales_report": {
        "en": (
            "The sales created on a day (the host's local day, midnight to midnight, its\n"
            "bounds printed with their UTC offset), per terminal (smartposId) and per\n"
            "formaPagamento: the counted approvals (count and sum), the refusals, the\n"
            "compensation refunds and the pendencias; then each pendencia, plainly.\n"
            "Documents are masked."
        ),
        "pt_BR": (
            "As vendas criadas num dia (o dia local da máquina, de meia-noite a meia-noite, os\n"
            "limites impressos com o deslocamento de UTC), por terminal (smartposId) e por\n"
            "formaPagamento: as aprovações contadas (quantidade e soma), as recusas, os\n"
            "estornos de compensação e as pendências; depois cada pendência, às claras.\n"
            "Os documentos saem mascarados."
        ),
    },
    "cli.epilog.sales_report": {
        "en": (
            "exit status: 0 no pendencia remains (the till can close), 1 an error, 4 pendencias\n"
            "remain: the report is printed, and a human decides each one before the till\n"
            "closes"
        ),
        "pt_BR": (
            "status de saída: 0 nenhuma pendência resta (o caixa pode fechar), 1 um erro, 4\n"
            "restam pendências: o relatório é impresso, e uma pessoa decide cada uma antes de\n"
            "fechar o caixa"
        ),
    },
    "cli.help.sales_report.date": {
        "en": "the day (default: today, in the host's time zone)",
        "pt_BR": "o dia (padrão: hoje, no fuso horário da máquina)",
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
            "  4  sales report: pendencias remain; a human decides before the till closes\n"
            "\n"
            "environment:\n"
            "  SMARTPOS_API_KEY   the integration key (or --api-key; it is never printed)\n"
            "  SMARTPOS_BASE_URL  the service's base address (or --base-url)\n"
            "  SMARTPOS_INBOX     the store of listen, events, operations and sales: a file or a\n"
            "                     URL (default: smartpos-inbox.db)\n"
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
            "  4  sales report: restam pendências; uma pessoa decide antes de fechar o caixa\n"
            "\n"
            "ambiente:\n"
            "  SMARTPOS_API_KEY   a chave de integração (ou --api-key; ela nunca é impressa)\n"
            "  SMARTPOS_BASE_URL  o endereço base do serviço (ou --base-url)\n"
            "  SMARTPOS_INBOX     o store de listen, events, operations e sales: um arquivo ou "
            "uma\n"
            "                     URL (padrão: smartpos-inbox.db)\n"
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
    # --- cli: the commands' own lines, refusals and advice ------------------------------
    "cli.ctrl_c": {
        "en": "Ctrl-C to stop.",
        "pt_BR": "Ctrl-C para parar.",
    },
    "cli.see_help": {
        "en": "see '{command} --help'.",
        "pt_BR": "veja '{command} --help'.",
    },
    "cli.cannot_listen": {
        "en": "cannot listen on {host}:{port}: {error}",
        "pt_BR": "não foi possível escutar em {host}:{port}: {error}",
    },
    "cli.cannot_listen_hint": {
        "en": "pick another port with --port (0 picks a free one).",
        "pt_BR": "escolha outra porta com --port (0 escolhe uma livre).",
    },
    "cli.deliver_failed": {
        "en": "could not deliver to {url}: {error}",
        "pt_BR": "não foi possível entregar em {url}: {error}",
    },
    "cli.deliver_failed_endpoint_hint": {
        "en": "is your endpoint running at that URL?",
        "pt_BR": "o seu endpoint está rodando nessa URL?",
    },
    "cli.deliver_failed_receiver_hint": {
        "en": "is the receiver running? ('smartpos listen' starts one on port 8766)",
        "pt_BR": "o receptor está rodando? ('smartpos listen' inicia um na porta 8766)",
    },
    "cli.failed": {
        "en": "FAILED {error}",
        "pt_BR": "FALHOU {error}",
    },
    "cli.label.state": {
        "en": "state",
        "pt_BR": "estado",
    },
    "cli.label.attempts": {
        "en": "attempts",
        "pt_BR": "tentativas",
    },
    "cli.label.received": {
        "en": "received",
        "pt_BR": "recebido",
    },
    "cli.label.done": {
        "en": "done",
        "pt_BR": "concluído",
    },
    "cli.label.next_attempt": {
        "en": "next attempt",
        "pt_BR": "próxima tentativa",
    },
    "cli.label.claimed_by": {
        "en": "claimed by",
        "pt_BR": "reservado por",
    },
    "cli.label.last_error": {
        "en": "last error",
        "pt_BR": "último erro",
    },
    "cli.label.saved_to": {
        "en": "saved to",
        "pt_BR": "salvo em",
    },
    "cli.label.control_api": {
        "en": "control API",
        "pt_BR": "API de controle",
    },
    "cli.events_none": {
        "en": "no events in {store}",
        "pt_BR": "nenhum evento em {store}",
    },
    "cli.events_none_in_state": {
        "en": "no {state} events in {store}",
        "pt_BR": "nenhum evento {state} em {store}",
    },
    "cli.events_attempts": {
        "en": "attempts {attempts}",
        "pt_BR": "tentativas {attempts}",
    },
    "cli.events_last_error": {
        "en": "last error: {error}",
        "pt_BR": "último erro: {error}",
    },
    "cli.events_count": {
        "en": "{count} event(s) in {store}",
        "pt_BR": "{count} evento(s) em {store}",
    },
    "cli.events_no_event": {
        "en": "no event {event_id} in {store}",
        "pt_BR": "nenhum evento {event_id} em {store}",
    },
    "cli.events_list_hint": {
        "en": "list the ids with 'smartpos events list'.",
        "pt_BR": "liste os ids com 'smartpos events list'.",
    },
    "cli.events_envelope": {
        "en": "  envelope (document masked):",
        "pt_BR": "  envelope (documento mascarado):",
    },
    "cli.events_requeued": {
        "en": "requeued {event_id}: pending again, attempts reset to 0.",
        "pt_BR": "{event_id} voltou à fila: pendente de novo, tentativas zeradas.",
    },
    "cli.events_not_requeued": {
        "en": "event {event_id} is {state}: only dead or done events can be requeued",
        "pt_BR": "o evento {event_id} está {state}: só eventos dead ou done podem voltar à fila",
    },
    "cli.events_not_requeued_hint": {
        "en": "a pending or claimed event is still going to be processed; wait for it.",
        "pt_BR": "um evento pending ou claimed ainda vai ser processado; espere por ele.",
    },
    "cli.events_replayed": {
        "en": "replayed ",
        "pt_BR": "repetido ",
    },
    "cli.endpoint_answered": {
        "en": "{url} answered HTTP {status}",
        "pt_BR": "{url} respondeu HTTP {status}",
    },
    "cli.endpoint_answered_hint": {
        "en": "a webhook endpoint answers 2xx once the event is stored.",
        "pt_BR": "um endpoint de webhook responde 2xx assim que o evento está guardado.",
    },
    "cli.listen_forwarded": {
        "en": "    forwarded to {url}: {status}",
        "pt_BR": "    encaminhado para {url}: {status}",
    },
    "cli.listen_forward_failed": {
        "en": "    forward to {url} failed: {error}",
        "pt_BR": "    o encaminhamento para {url} falhou: {error}",
    },
    "cli.listen_forward_hint": {
        "en": ("give an absolute http(s) URL, e.g. --forward-to http://127.0.0.1:8000/webhooks"),
        "pt_BR": (
            "passe uma URL http(s) absoluta, por exemplo --forward-to "
            "http://127.0.0.1:8000/webhooks"
        ),
    },
    "cli.listen_forward_not_url": {
        "en": "--forward-to {url!r} is not a URL: {error}",
        "pt_BR": "--forward-to {url!r} não é uma URL: {error}",
    },
    "cli.listen_forward_no_host": {
        "en": "--forward-to must be an http(s) URL with a host, not {url!r}",
        "pt_BR": "--forward-to deve ser uma URL http(s) com host, não {url!r}",
    },
    "cli.listen_ready": {
        "en": "smartpos listen: ready at {url}  (inbox {store})",
        "pt_BR": "smartpos listen: pronto em {url}  (caixa de entrada {store})",
    },
    "cli.listen_forwarding": {
        "en": "  forwarding every delivery to {url}",
        "pt_BR": "  encaminhando cada entrega para {url}",
    },
    "cli.listen_point_sandbox": {
        "en": "  point the sandbox at it:  smartpos sandbox --webhook {url}",
        "pt_BR": "  aponte o sandbox para ele:  smartpos sandbox --webhook {url}",
    },
    "cli.listen_send_sample": {
        "en": "  or send a sample:         smartpos trigger pagamento.aprovado --to {url}",
        "pt_BR": "  ou envie uma amostra:       smartpos trigger pagamento.aprovado --to {url}",
    },
    "cli.listen_stopped": {
        "en": (
            "stopped: {deliveries} deliveries, {new} new, {duplicates} duplicates, {rejected} "
            "rejected."
        ),
        "pt_BR": (
            "parado: {deliveries} entregas, {new} novas, {duplicates} duplicadas, {rejected} "
            "recusadas."
        ),
    },
    "cli.listen_rejected": {
        "en": "rejected: {error}",
        "pt_BR": "recusada: {error}",
    },
    "cli.listen_conflict": {
        "en": "DUPLICATE id with a different body (the first one is kept)",
        "pt_BR": "DUPLICATE: id com um corpo diferente (o primeiro é mantido)",
    },
    "cli.listen_duplicate": {
        "en": "DUPLICATE (already in the inbox: not stored again)",
        "pt_BR": "DUPLICATE (já está na caixa de entrada: não é guardado de novo)",
    },
    "cli.listen_not_stored": {
        "en": "NOT STORED: {error}",
        "pt_BR": "NÃO GUARDADO: {error}",
    },
    "cli.listen_schema": {
        "en": "stored, but dados does not fit the schema: {error}",
        "pt_BR": "guardado, mas dados não segue o esquema: {error}",
    },
    "cli.operations_none_journaled": {
        "en": "no operation journaled in {store}",
        "pt_BR": "nenhuma operação no diário de {store}",
    },
    "cli.operations_none_waiting": {
        "en": "no operation waiting in {store}",
        "pt_BR": "nenhuma operação esperando em {store}",
    },
    "cli.operations_count": {
        "en": "{count} operation(s) in {store}",
        "pt_BR": "{count} operação(ões) em {store}",
    },
    "cli.operations_waiting": {
        "en": "{count} operation(s) waiting for an outcome in {store}",
        "pt_BR": "{count} operação(ões) esperando um resultado em {store}",
    },
    "cli.operations_settle": {
        "en": (
            "settle each one, never with a new referencia: smartpos operations reconcile "
            "REFERENCIA, then smartpos operations wait REFERENCIA"
        ),
        "pt_BR": (
            "resolva cada uma, nunca com uma nova referencia: smartpos operations reconcile "
            "REFERENCIA, depois smartpos operations wait REFERENCIA"
        ),
    },
    "cli.operations_anomaly": {
        "en": "anomaly {reason}: {tipo} {event_id}: {detail}",
        "pt_BR": "anomalia {reason}: {tipo} {event_id}: {detail}",
    },
    "cli.operations_no_operation": {
        "en": "no operation {referencia} in {store}: nothing sent",
        "pt_BR": "nenhuma operação {referencia} em {store}: nada foi enviado",
    },
    "cli.operations_no_operation_hint": {
        "en": (
            "list the journaled ones with 'smartpos operations --all'; an operation nobody "
            "journaled can still be waited for: smartpos operations wait REFERENCIA"
        ),
        "pt_BR": (
            "liste as registradas no diário com 'smartpos operations --all'; uma operação que "
            "ninguém registrou ainda pode ser esperada: smartpos operations wait REFERENCIA"
        ),
    },
    "cli.operations_accepted": {
        "en": (
            "accepted: the service has it; its event says the rest (smartpos operations wait "
            "{referencia})"
        ),
        "pt_BR": (
            "aceita: o serviço a recebeu; o evento dela diz o resto (smartpos operations wait "
            "{referencia})"
        ),
    },
    "cli.operations_final": {
        "en": "final: its outcome is stored",
        "pt_BR": "final: o resultado dela está guardado",
    },
    "cli.operations_rejected": {
        "en": (
            "rejected: the service surely did not accept it; a new attempt needs a new referencia"
        ),
        "pt_BR": (
            "recusada: o serviço certamente não a aceitou; uma nova tentativa precisa de uma "
            "nova referencia"
        ),
    },
    "cli.operations_empty_referencia": {
        "en": "REFERENCIA cannot be empty",
        "pt_BR": "REFERENCIA não pode ser vazia",
    },
    "cli.operations_wait_rejected": {
        "en": (
            "referencia {referencia} is journaled in {store} as rejected: the service surely did "
            "not accept it, so no event will come and nothing was charged"
        ),
        "pt_BR": (
            "a referencia {referencia} está no diário de {store} como recusada: o serviço "
            "certamente não a aceitou, então nenhum evento virá e nada foi cobrado"
        ),
    },
    "cli.operations_wait_rejected_hint": {
        "en": "fix the request and send it again under a new referencia",
        "pt_BR": "corrija a requisição e envie de novo com uma nova referencia",
    },
    "cli.operations_wait_pending": {
        "en": (
            "no final event for referencia {referencia} in {store} within {seconds} s: its "
            "outcome is still pending"
        ),
        "pt_BR": (
            "nenhum evento final da referencia {referencia} em {store} dentro de {seconds} s: o "
            "resultado dela ainda está pendente"
        ),
    },
    "cli.operations_wait_store_failed": {
        "en": (
            "no final event for referencia {referencia} in {store} within {seconds} s (the store "
            "failed: {error}): its outcome is still pending"
        ),
        "pt_BR": (
            "nenhum evento final da referencia {referencia} em {store} dentro de {seconds} s (o "
            "store falhou: {error}): o resultado dela ainda está pendente"
        ),
    },
    "cli.operations_wait_pending_hint": {
        "en": (
            "do NOT retry with a new referencia (that may charge twice); wait again later, or "
            "reconcile it if its answer was lost: smartpos operations reconcile {referencia}"
        ),
        "pt_BR": (
            "NÃO tente de novo com uma nova referencia (isso pode cobrar duas vezes); espere de "
            "novo mais tarde, ou reconcilie se a resposta dela se perdeu: smartpos operations "
            "reconcile {referencia}"
        ),
    },
    "cli.sales_none": {
        "en": "no sale in {store}",
        "pt_BR": "nenhuma venda em {store}",
    },
    "cli.sales_none_attention": {
        "en": "no sale needs attention in {store}: no pendencia",
        "pt_BR": "nenhuma venda precisa de atenção em {store}: nenhuma pendência",
    },
    "cli.sales_none_in_state": {
        "en": "no sale in state {state} in {store}",
        "pt_BR": "nenhuma venda no estado {state} em {store}",
    },
    "cli.sales_count": {
        "en": "{count} sale(s) in {store}",
        "pt_BR": "{count} venda(s) em {store}",
    },
    "cli.sales_review": {
        "en": ("review the ones with pendencias before closing the till: smartpos sales show SALE"),
        "pt_BR": ("revise as que têm pendências antes de fechar o caixa: smartpos sales show SALE"),
    },
    "cli.sales_pendencias": {
        "en": "pendencias {count}: {reasons}",
        "pt_BR": "pendências {count}: {reasons}",
    },
    "cli.sales_pendencia": {
        "en": "{reason}  referencia {referencia}  since {since}",
        "pt_BR": "{reason}  referencia {referencia}  desde {since}",
    },
    "cli.sales_pendencia_compensation": {
        "en": "compensation {referencia} {state}",
        "pt_BR": "compensação {referencia} {state}",
    },
    "cli.sales_sale": {
        "en": "sale {sale}",
        "pt_BR": "venda {sale}",
    },
    "cli.label.total": {
        "en": "total",
        "pt_BR": "valor total",
    },
    "cli.label.approved": {
        "en": "approved",
        "pt_BR": "aprovado",
    },
    "cli.label.remaining": {
        "en": "remaining",
        "pt_BR": "restante",
    },
    "cli.label.created": {
        "en": "created",
        "pt_BR": "criada",
    },
    "cli.label.updated": {
        "en": "updated",
        "pt_BR": "atualizada",
    },
    "cli.sales_attempts": {
        "en": "attempts ({count})",
        "pt_BR": "tentativas ({count})",
    },
    "cli.sales_abandoned_by": {
        "en": "abandoned by {operador} at {at}: {motivo}",
        "pt_BR": "abandonada por {operador} em {at}: {motivo}",
    },
    "cli.sales_approvals": {
        "en": "approvals ({count})",
        "pt_BR": "aprovações ({count})",
    },
    "cli.sales_compensations": {
        "en": "compensations ({count})",
        "pt_BR": "compensações ({count})",
    },
    "cli.sales_compensates": {
        "en": "refunds the late approval of referencia {referencia} ({valor})",
        "pt_BR": "estorna a aprovação tardia da referencia {referencia} ({valor})",
    },
    "cli.sales_pendencias_heading": {
        "en": "pendencias ({count}): a human decides before the till closes",
        "pt_BR": "pendências ({count}): uma pessoa decide antes de fechar o caixa",
    },
    "cli.sales_todo_late_approval": {
        "en": (
            "late_approval: money the customer paid that the sale did not take; smartpos sales "
            "compensate {sale} refunds it"
        ),
        "pt_BR": (
            "late_approval: dinheiro que o cliente pagou e a venda não levou; smartpos sales "
            "compensate {sale} o estorna"
        ),
    },
    "cli.sales_todo_compensation_unknown": {
        "en": (
            "a compensation whose outcome is unknown ({referencias}): never refund by hand; "
            "smartpos operations reconcile REFERENCIA settles it"
        ),
        "pt_BR": (
            "uma compensação de resultado desconhecido ({referencias}): nunca estorne à mão; "
            "smartpos operations reconcile REFERENCIA a resolve"
        ),
    },
    "cli.sales_todo_no_outcome": {
        "en": (
            "no_outcome: never charge again under a new referencia; smartpos operations "
            "reconcile REFERENCIA, then smartpos operations wait REFERENCIA"
        ),
        "pt_BR": (
            "no_outcome: nunca cobre de novo com uma nova referencia; smartpos operations "
            "reconcile REFERENCIA, depois smartpos operations wait REFERENCIA"
        ),
    },
    "cli.sales_todo_event": {
        "en": "{reasons}: read the event (smartpos events show ID) and decide; it may have charged",
        "pt_BR": (
            "{reasons}: leia o evento (smartpos events show ID) e decida; ele pode ter cobrado"
        ),
    },
    "cli.sales_no_sale": {
        "en": "no sale {sale!r} in {store}",
        "pt_BR": "nenhuma venda {sale!r} em {store}",
    },
    "cli.sales_no_sale_hint": {
        "en": (
            "list them with 'smartpos sales list' (a sale is in the store once a client with "
            "this store charged it)"
        ),
        "pt_BR": (
            "liste-as com 'smartpos sales list' (uma venda está no store depois que um cliente "
            "com este store a cobrou)"
        ),
    },
    "cli.sales_nothing_to_abandon": {
        "en": "sale {sale} has no open attempt: nothing recorded (it is {state})",
        "pt_BR": "a venda {sale} não tem tentativa aberta: nada registrado (ela está {state})",
    },
    "cli.sales_abandoned": {
        "en": (
            "abandoned referencia {referencia}, nothing sent: the sale is {state} again, its "
            "terminal free"
        ),
        "pt_BR": (
            "referencia {referencia} abandonada, nada enviado: a venda está {state} de novo, o "
            "terminal livre"
        ),
    },
    "cli.sales_late_approval_hint": {
        "en": (
            "if the terminal approves it anyway, that approval is never counted: smartpos sales "
            "compensate {sale} refunds it"
        ),
        "pt_BR": (
            "se o terminal aprová-la mesmo assim, essa aprovação nunca conta: smartpos sales "
            "compensate {sale} a estorna"
        ),
    },
    "cli.sales_no_late_approval": {
        "en": "sale {sale} has no late approval to compensate: nothing sent",
        "pt_BR": "a venda {sale} não tem aprovação tardia a compensar: nada enviado",
    },
    "cli.sales_compensated": {
        "en": (
            "{count} compensation refund(s) accepted by the service; running this again sends "
            "nothing"
        ),
        "pt_BR": (
            "{count} estorno(s) de compensação aceito(s) pelo serviço; rodar de novo não envia nada"
        ),
    },
    "cli.sales_pendencias_left": {
        "en": "the sale still has {count} pendencia(s): smartpos sales show {sale}",
        "pt_BR": "a venda ainda tem {count} pendência(s): smartpos sales show {sale}",
    },
    "cli.sales_compensation_unknown": {
        "en": (
            "the outcome of compensation refund(s) {referencias} is unknown: the service may "
            "have accepted it"
        ),
        "pt_BR": (
            "o resultado do(s) estorno(s) de compensação {referencias} é desconhecido: o serviço "
            "pode tê-lo aceitado"
        ),
    },
    "cli.sales_compensation_unknown_hint": {
        "en": (
            "do NOT refund by hand (that may refund twice), and compensate never sends it "
            "again: settle it with smartpos operations reconcile {referencia}"
        ),
        "pt_BR": (
            "NÃO estorne à mão (isso pode estornar duas vezes), e compensate nunca o envia de "
            "novo: resolva com smartpos operations reconcile {referencia}"
        ),
    },
    "cli.sales_compensation_rejected": {
        "en": (
            "the service refused compensation refund(s) {referencias}: the late approval stays "
            "a pendencia"
        ),
        "pt_BR": (
            "o serviço recusou o(s) estorno(s) de compensação {referencias}: a aprovação "
            "tardia continua uma pendência"
        ),
    },
    "cli.sales_compensation_rejected_hint": {
        "en": (
            "fix what the service said (the API key, say) and run smartpos sales compensate "
            "{sale} again: a refused refund is sent again under its referencia, never twice"
        ),
        "pt_BR": (
            "corrija o que o serviço disse (a chave de API, por exemplo) e rode smartpos sales "
            "compensate {sale} de novo: um estorno recusado é reenviado com a mesma referencia, "
            "nunca duas vezes"
        ),
    },
    "cli.sales_report_title": {
        "en": "till close {date}: sales created from {start} to {end} in {store}",
        "pt_BR": "fechamento de caixa {date}: vendas criadas de {start} a {end} em {store}",
    },
    "cli.sales_report_none": {
        "en": "no sale was created on {date}",
        "pt_BR": "nenhuma venda criada em {date}",
    },
    "cli.sales_report_sales": {
        "en": (
            "sales {count}: paid {paid}, open {open}, in_progress {in_progress}; total {total}, "
            "remaining {remaining}"
        ),
        "pt_BR": (
            "vendas {count}: pagas {paid}, abertas {open}, em andamento {in_progress}; valor "
            "total {total}, restante {remaining}"
        ),
    },
    "cli.sales_column_approved": {
        "en": "approved",
        "pt_BR": "aprovados",
    },
    "cli.sales_column_refused": {
        "en": "refused",
        "pt_BR": "recusados",
    },
    "cli.sales_column_compensated": {
        "en": "compensated",
        "pt_BR": "compensados",
    },
    "cli.sales_column_pendencias": {
        "en": "pendencias",
        "pt_BR": "pendências",
    },
    "cli.sales_all": {
        "en": "all",
        "pt_BR": "todos",
    },
    "cli.sales_report_earlier": {
        "en": (
            "{count} sale(s) of earlier days still have pendencias, not counted here: {sales} "
            "(smartpos sales --attention)"
        ),
        "pt_BR": (
            "{count} venda(s) de dias anteriores ainda têm pendências, fora desta conta: {sales} "
            "(smartpos sales --attention)"
        ),
    },
    "cli.sales_report_clean": {
        "en": "no pendencia: the till can close",
        "pt_BR": "nenhuma pendência: o caixa pode fechar",
    },
    "cli.sales_report_pendencias": {
        "en": "PENDENCIAS REMAIN: {count}; a human decides each one before the till closes",
        "pt_BR": "RESTAM PENDÊNCIAS: {count}; uma pessoa decide cada uma antes de fechar o caixa",
    },
    "cli.sample_unknown_tipo": {
        "en": "no sample of tipo {tipo!r}: this version of the CLI cannot build one",
        "pt_BR": "sem exemplo do tipo {tipo!r}: esta versão da CLI não sabe montá-lo",
    },
    "cli.sample_unknown_tipo_hint": {
        "en": "samples exist for {tipos}; trigger the others through a sandbox (--sandbox URL).",
        "pt_BR": "há exemplos de {tipos}; dispare os outros por um sandbox (--sandbox URL).",
    },
    "cli.bad_header": {
        "en": "bad header {value!r}",
        "pt_BR": "cabeçalho inválido {value!r}",
    },
    "cli.bad_header_hint": {
        "en": "write it as 'Name: value'.",
        "pt_BR": "escreva como 'Nome: valor'.",
    },
    "cli.bad_url": {
        "en": "bad URL {url!r}: {error}",
        "pt_BR": "URL inválida {url!r}: {error}",
    },
    "cli.bad_to": {
        "en": "--to must be an http(s) URL, not {url!r}",
        "pt_BR": "--to deve ser uma URL http(s), não {url!r}",
    },
    "cli.bad_to_hint": {
        "en": "e.g. --to http://127.0.0.1:8766/",
        "pt_BR": "por exemplo --to http://127.0.0.1:8766/",
    },
    "cli.sandbox_none": {
        "en": "no sandbox answers at {url}",
        "pt_BR": "nenhum sandbox responde em {url}",
    },
    "cli.sandbox_failed": {
        "en": "the sandbox at {url} failed: {error}",
        "pt_BR": "o sandbox em {url} falhou: {error}",
    },
    "cli.sandbox_loopback_hint": {
        "en": "the sandbox delivers to loopback URLs.",
        "pt_BR": "o sandbox entrega em URLs de loopback.",
    },
    "cli.sandbox_not_a_sandbox": {
        "en": "{url} is not a smartpos sandbox",
        "pt_BR": "{url} não é um sandbox do smartpos",
    },
    "cli.sandbox_no_event": {
        "en": "the sandbox at {url} has no event {event_id}",
        "pt_BR": "o sandbox em {url} não tem o evento {event_id}",
    },
    "cli.sandbox_refused": {
        "en": "the sandbox at {url} refused: {error}",
        "pt_BR": "o sandbox em {url} recusou: {error}",
    },
    "cli.sandbox_refused_hint": {
        "en": (
            "check --documento and --smartpos-id against the sandbox's world, or use "
            "--no-sandbox for a standalone sample."
        ),
        "pt_BR": (
            "confira --documento e --smartpos-id com o mundo do sandbox, ou use --no-sandbox "
            "para uma amostra avulsa."
        ),
    },
    "cli.trigger_standalone": {
        "en": (
            "{reason}: sending a standalone sample, which no sandbox knows (refunding it fails "
            "with 404). Start one with 'smartpos sandbox', or pass --no-sandbox."
        ),
        "pt_BR": (
            "{reason}: enviando uma amostra avulsa, que nenhum sandbox conhece (estorná-la falha "
            "com 404). Inicie um com 'smartpos sandbox', ou passe --no-sandbox."
        ),
    },
    "cli.trigger_sent": {
        "en": "sent ",
        "pt_BR": "enviado ",
    },
    "cli.trigger_resent": {
        "en": "resent ",
        "pt_BR": "reenviado ",
    },
    "cli.trigger_resent_line": {
        "en": "resent {tipo}  id {event_id}",
        "pt_BR": "reenviado {tipo}  id {event_id}",
    },
    "cli.trigger_duplicate": {
        "en": "  the receiver recognised the id: a duplicate, not processed again.",
        "pt_BR": "  o receptor reconheceu o id: uma duplicata, não processada de novo.",
    },
    "cli.trigger_made_by": {
        "en": "  made by the sandbox at {url}: its operation exists there.",
        "pt_BR": "  feito pelo sandbox em {url}: a operação dele existe lá.",
    },
    "cli.trigger_resend_it": {
        "en": "  resend it:  smartpos trigger {tipo} --to {url} --resend {event_id}",
        "pt_BR": "  reenvie:  smartpos trigger {tipo} --to {url} --resend {event_id}",
    },
    "cli.receiver_answered": {
        "en": "the receiver answered HTTP {status}",
        "pt_BR": "o receptor respondeu HTTP {status}",
    },
    "cli.receiver_answered_hint": {
        "en": (
            "the service delivers again after a non-2xx answer: store the event and answer 2xx "
            "within 1-2 s; answer 4xx only to a body that cannot be an event."
        ),
        "pt_BR": (
            "o serviço entrega de novo depois de uma resposta que não é 2xx: guarde o evento e "
            "responda 2xx em 1-2 s; responda 4xx só a um corpo que não pode ser um evento."
        ),
    },
    "cli.sandbox_none_error": {
        "en": "no sandbox answers at {url}: {error}",
        "pt_BR": "nenhum sandbox responde em {url}: {error}",
    },
    "cli.sandbox_none_hint": {
        "en": (
            "start one with 'smartpos sandbox', or point at it with --url or SMARTPOS_SANDBOX_URL."
        ),
        "pt_BR": (
            "inicie um com 'smartpos sandbox', ou aponte para ele com --url ou "
            "SMARTPOS_SANDBOX_URL."
        ),
    },
    "cli.sandbox_no_control_api": {
        "en": "{url} is not a smartpos sandbox (no control API at /_sandbox/v1/)",
        "pt_BR": "{url} não é um sandbox do smartpos (nenhuma API de controle em /_sandbox/v1/)",
    },
    "cli.sandbox_point_hint": {
        "en": "point at a sandbox with --url or SMARTPOS_SANDBOX_URL.",
        "pt_BR": "aponte para um sandbox com --url ou SMARTPOS_SANDBOX_URL.",
    },
    "cli.sandbox_webhook_hint": {
        "en": "give a loopback http URL, e.g. --webhook http://127.0.0.1:8766/",
        "pt_BR": "passe uma URL http de loopback, por exemplo --webhook http://127.0.0.1:8766/",
    },
    "cli.sandbox_stopped": {
        "en": "sandbox stopped.",
        "pt_BR": "sandbox parado.",
    },
    "cli.sandbox_serving": {
        "en": "smartpos sandbox serving at {url}",
        "pt_BR": "smartpos sandbox servindo em {url}",
    },
    "cli.sandbox_public_key": {
        "en": "{key}  (the sandbox's public test key)",
        "pt_BR": "{key}  (a chave de teste pública do sandbox)",
    },
    "cli.sandbox_no_webhook": {
        "en": "events recorded in the sandbox only",
        "pt_BR": "eventos registrados só no sandbox",
    },
    "cli.sandbox_key_required": {
        "en": "key required (--control-key or SMARTPOS_SANDBOX_CONTROL_KEY)",
        "pt_BR": "chave exigida (--control-key ou SMARTPOS_SANDBOX_CONTROL_KEY)",
    },
    "cli.sandbox_no_key": {
        "en": "no key",
        "pt_BR": "sem chave",
    },
    "cli.sandbox_use_it": {
        "en": "Use it from another terminal:",
        "pt_BR": "Use-o de outro terminal:",
    },
    "cli.sandbox_next_refused": {
        "en": "  smartpos sandbox next payment recusar   (the next payment is refused)",
        "pt_BR": "  smartpos sandbox next payment recusar   (o próximo pagamento é recusado)",
    },
    "cli.sandbox_scanned": {
        "en": "scanned: ",
        "pt_BR": "lido: ",
    },
    "cli.next_option_misplaced": {
        "en": "{flags} does not apply to {words!r}",
        "pt_BR": "{flags} não se aplica a {words!r}",
    },
    "cli.next_option_misplaced_hint": {
        "en": (
            "--mensagem goes with aprovar, recusar, concluir or falhar; --status and "
            "--codigo-status with recusar or falhar (e.g. 'next payment recusar --mensagem X')."
        ),
        "pt_BR": (
            "--mensagem vai com aprovar, recusar, concluir ou falhar; --status e --codigo-status "
            "com recusar ou falhar (por exemplo 'next payment recusar --mensagem X')."
        ),
    },
    "cli.next_always_times": {
        "en": "--always and --times do not go together",
        "pt_BR": "--always e --times não vão juntos",
    },
    "cli.next_always_on": {
        "en": "from now on, every {kind} on {terminal}: {words}",
        "pt_BR": "daqui em diante, todo {kind} em {terminal}: {words}",
    },
    "cli.next_always_any": {
        "en": "from now on, every {kind} on any terminal: {words}",
        "pt_BR": "daqui em diante, todo {kind} em qualquer terminal: {words}",
    },
    "cli.next_many_on": {
        "en": "the next {times} {kind}s on {terminal}: {words}",
        "pt_BR": "os próximos {times} {kind} em {terminal}: {words}",
    },
    "cli.next_many_any": {
        "en": "the next {times} {kind}s on any terminal: {words}",
        "pt_BR": "os próximos {times} {kind} em qualquer terminal: {words}",
    },
    "cli.next_one_on": {
        "en": "the next {kind} on {terminal}: {words}",
        "pt_BR": "o próximo {kind} em {terminal}: {words}",
    },
    "cli.next_one_any": {
        "en": "the next {kind} on any terminal: {words}",
        "pt_BR": "o próximo {kind} em qualquer terminal: {words}",
    },
    "cli.fault_clear_alone": {
        "en": "--clear takes no endpoint or fault",
        "pt_BR": "--clear não aceita endpoint nem falha",
    },
    "cli.fault_cleared": {
        "en": "every fault not used yet is forgotten.",
        "pt_BR": "toda falha ainda não usada foi esquecida.",
    },
    "cli.fault_missing": {
        "en": "give an ENDPOINT and a FAULT (or --clear)",
        "pt_BR": "passe um ENDPOINT e uma FAULT (ou --clear)",
    },
    "cli.fault_missing_hint": {
        "en": "e.g. 'smartpos sandbox fault payments drop' or 'fault webhook 503 --times 3'.",
        "pt_BR": (
            "por exemplo 'smartpos sandbox fault payments drop' ou 'fault webhook 503 --times 3'."
        ),
    },
    "cli.fault_webhook_one": {
        "en": "the next delivery attempt: {words}",
        "pt_BR": "a próxima tentativa de entrega: {words}",
    },
    "cli.fault_webhook_many": {
        "en": "the next {times} delivery attempts: {words}",
        "pt_BR": "as próximas {times} tentativas de entrega: {words}",
    },
    "cli.fault_any_one": {
        "en": "the next request to any endpoint: {words}",
        "pt_BR": "a próxima requisição a qualquer endpoint: {words}",
    },
    "cli.fault_any_many": {
        "en": "the next {times} requests to any endpoint: {words}",
        "pt_BR": "as próximas {times} requisições a qualquer endpoint: {words}",
    },
    "cli.fault_endpoint_one": {
        "en": "the next request to {endpoint}: {words}",
        "pt_BR": "a próxima requisição a {endpoint}: {words}",
    },
    "cli.fault_endpoint_many": {
        "en": "the next {times} requests to {endpoint}: {words}",
        "pt_BR": "as próximas {times} requisições a {endpoint}: {words}",
    },
    "cli.sandbox_resent_to": {
        "en": "resent {event_id} to {url}, same id.",
        "pt_BR": "{event_id} reenviado para {url}, mesmo id.",
    },
    "cli.sandbox_resent": {
        "en": "resent {event_id} to the partner's webhook, same id.",
        "pt_BR": "{event_id} reenviado para o webhook do parceiro, mesmo id.",
    },
    "cli.held_none": {
        "en": "no event is held.",
        "pt_BR": "nenhum evento retido.",
    },
    "cli.held_event": {
        "en": "held {referencia}: ",
        "pt_BR": "retido {referencia}: ",
    },
    "cli.released_event": {
        "en": "released {referencia}: ",
        "pt_BR": "liberado {referencia}: ",
    },
    "cli.release_nothing_held": {
        "en": "no event of {referencia} is held",
        "pt_BR": "nenhum evento de {referencia} está retido",
    },
    "cli.release_nothing_held_hint": {
        "en": (
            "an attempt's event is held when it is scripted with 'segurar' (smartpos sandbox "
            "next payment segurar aprovar); 'smartpos sandbox held' lists what is held."
        ),
        "pt_BR": (
            "o evento de uma tentativa fica retido quando ela é roteirizada com 'segurar' "
            "(smartpos sandbox next payment segurar aprovar); 'smartpos sandbox held' lista o "
            "que está retido."
        ),
    },
    "cli.cannot_read": {
        "en": "cannot read {path}: {error}",
        "pt_BR": "não foi possível ler {path}: {error}",
    },
    "cli.cannot_write": {
        "en": "cannot write {path}: {error}",
        "pt_BR": "não foi possível gravar {path}: {error}",
    },
    "cli.check_path_hint": {
        "en": "check the path.",
        "pt_BR": "confira o caminho.",
    },
    "cli.qrcode_show_it": {
        "en": (
            "Show it to the terminal; smartpos.identificado will carry the terminal's smartposId."
        ),
        "pt_BR": (
            "Mostre-o ao terminal; smartpos.identificado vai trazer o smartposId do terminal."
        ),
    },
    "cli.accepted": {
        "en": "accepted",
        "pt_BR": "aceito",
    },
    "cli.pay_not_final": {
        "en": (
            "The sale is not final yet: pagamento.aprovado (or pagamento.recusado) with this "
            "referencia reaches your webhook later."
        ),
        "pt_BR": (
            "A venda ainda não é final: pagamento.aprovado (ou pagamento.recusado) com esta "
            "referencia chega ao seu webhook mais tarde."
        ),
    },
    "cli.print_not_final": {
        "en": (
            "The print job is not final yet: impressao.concluida (or impressao.falhou) with this "
            "referencia reaches your webhook later."
        ),
        "pt_BR": (
            "A impressão ainda não é final: impressao.concluida (ou impressao.falhou) com esta "
            "referencia chega ao seu webhook mais tarde."
        ),
    },
    "cli.pay_comanda_missing": {
        "en": "--item and --endereco describe the manual-queue card: --comanda is missing",
        "pt_BR": "--item e --endereco descrevem o cartão da fila manual: falta --comanda",
    },
    "cli.pay_comanda_missing_hint": {
        "en": "add --comanda LABEL (with --manual).",
        "pt_BR": "acrescente --comanda LABEL (com --manual).",
    },
    "cli.refund_record_masked": {
        "en": (
            "{path} is an inbox record whose documentoCliente is masked, without the inbox it "
            "came from (store) and its id"
        ),
        "pt_BR": (
            "{path} é um registro de caixa de entrada com o documentoCliente mascarado, sem a "
            "caixa de entrada de onde veio (store) e o id dele"
        ),
    },
    "cli.refund_record_masked_hint": {
        "en": (
            "pipe it straight from 'smartpos events show ID --json', or pass the "
            "pagamento.aprovado envelope as received."
        ),
        "pt_BR": (
            "encadeie direto de 'smartpos events show ID --json', ou passe o envelope "
            "pagamento.aprovado como recebido."
        ),
    },
    "cli.refund_no_event": {
        "en": "no event {event_id} in {store}, the inbox named in {path}",
        "pt_BR": "nenhum evento {event_id} em {store}, a caixa de entrada indicada em {path}",
    },
    "cli.refund_no_event_hint": {
        "en": "list the ids with 'smartpos events list --store PATH'.",
        "pt_BR": "liste os ids com 'smartpos events list --store PATH'.",
    },
    "cli.refund_event_differs": {
        "en": "the event {event_id} in {store} differs from the one in {path}",
        "pt_BR": "o evento {event_id} em {store} difere do que está em {path}",
    },
    "cli.refund_event_differs_hint": {
        "en": "pipe it straight from 'smartpos events show ID --json'.",
        "pt_BR": "encadeie direto de 'smartpos events show ID --json'.",
    },
    "cli.refund_not_json": {
        "en": "{path} is not JSON: {error}",
        "pt_BR": "{path} não é JSON: {error}",
    },
    "cli.refund_not_json_hint": {
        "en": "pass the event's JSON.",
        "pt_BR": "passe o JSON do evento.",
    },
    "cli.refund_masked": {
        "en": (
            "the documentoCliente in {path} is masked ({documento}): a refund needs the "
            "customer's document"
        ),
        "pt_BR": (
            "o documentoCliente em {path} está mascarado ({documento}): um estorno precisa do "
            "documento do cliente"
        ),
    },
    "cli.refund_masked_hint": {
        "en": (
            "pass the envelope as received, or pipe 'smartpos events show ID --json' (it reads "
            "the document back from the inbox)."
        ),
        "pt_BR": (
            "passe o envelope como recebido, ou encadeie 'smartpos events show ID --json' (ele "
            "lê o documento de volta da caixa de entrada)."
        ),
    },
    "cli.refund_invalid_event": {
        "en": "{path} is not a valid event: {error}",
        "pt_BR": "{path} não é um evento válido: {error}",
    },
    "cli.refund_invalid_event_hint": {
        "en": (
            "pass the pagamento.aprovado envelope as received (id, tipo, criadoEm, dados), or "
            "pipe 'smartpos events show ID --json'."
        ),
        "pt_BR": (
            "passe o envelope pagamento.aprovado como recebido (id, tipo, criadoEm, dados), ou "
            "encadeie 'smartpos events show ID --json'."
        ),
    },
    "cli.refund_wrong_tipo": {
        "en": "{path} holds a {tipo} event; only pagamento.aprovado can be refunded",
        "pt_BR": "{path} contém um evento {tipo}; só pagamento.aprovado pode ser estornado",
    },
    "cli.refund_wrong_tipo_hint": {
        "en": "pass the pagamento.aprovado event of the payment.",
        "pt_BR": "passe o evento pagamento.aprovado do pagamento.",
    },
    "cli.refund_event_alone": {
        "en": (
            "--event takes the customer, the terminal and the authorization from the event: give "
            "no DOC, SMARTPOS_ID or authorization option with it"
        ),
        "pt_BR": (
            "--event tira do evento o cliente, o terminal e a autorização: não passe DOC, "
            "SMARTPOS_ID nem opção de autorização junto"
        ),
    },
    "cli.refund_valor_without_event": {
        "en": "--valor-centavos goes with --event; here the amount is VALOR_CENTAVOS",
        "pt_BR": "--valor-centavos vai com --event; aqui o valor é VALOR_CENTAVOS",
    },
    "cli.refund_give_options": {
        "en": "give DOC SMARTPOS_ID VALOR_CENTAVOS and {options}, or --event FILE",
        "pt_BR": "passe DOC SMARTPOS_ID VALOR_CENTAVOS e {options}, ou --event FILE",
    },
    "cli.refund_give_authorization": {
        "en": (
            "give DOC SMARTPOS_ID VALOR_CENTAVOS and the authorization options, or --event FILE"
        ),
        "pt_BR": (
            "passe DOC SMARTPOS_ID VALOR_CENTAVOS e as opções de autorização, ou --event FILE"
        ),
    },
    "cli.refund_requested": {
        "en": "refund requested",
        "pt_BR": "estorno pedido",
    },
    "cli.print_empty": {
        "en": "{path} is empty: there is nothing to print",
        "pt_BR": "{path} está vazio: não há nada para imprimir",
    },
    "cli.print_empty_hint": {
        "en": "check it.",
        "pt_BR": "confira o arquivo.",
    },
    "cli.terminals_none": {
        "en": "no terminal is linked to this customer; pair one with 'smartpos qrcode'.",
        "pt_BR": (
            "nenhum terminal está vinculado a este cliente; pareie um com 'smartpos qrcode'."
        ),
    },
    "cli.store_no_inbox": {
        "en": "no inbox at {path}",
        "pt_BR": "nenhuma caixa de entrada em {path}",
    },
    "cli.store_no_inbox_hint": {
        "en": (
            "pass the store with --store (a file, or a redis:// or postgresql:// URL) or "
            "SMARTPOS_INBOX (smartpos listen writes smartpos-inbox.db in its directory by "
            "default)."
        ),
        "pt_BR": (
            "passe o store com --store (um arquivo, ou uma URL redis:// ou postgresql://) ou "
            "SMARTPOS_INBOX (por padrão, smartpos listen grava smartpos-inbox.db no diretório "
            "dele)."
        ),
    },
    "cli.store_cannot_open": {
        "en": "cannot open {path}: {error}",
        "pt_BR": "não foi possível abrir {path}: {error}",
    },
    "cli.store_not_an_inbox": {
        "en": "{path} is not a smartpos inbox: {error}",
        "pt_BR": "{path} não é uma caixa de entrada do smartpos: {error}",
    },
    "cli.store_not_an_inbox_hint": {
        "en": "pass the right file with --store.",
        "pt_BR": "passe o arquivo certo com --store.",
    },
}
