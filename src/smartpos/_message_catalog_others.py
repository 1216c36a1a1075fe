"""The catalog's second half: the messages of the webhooks, the integrations and the outcomes.

``_message_catalog`` merges it into ``CATALOG`` (same rules: one whole template per language,
the same ``str.format`` fields in both).
"""

from __future__ import annotations

from typing import Final

__all__ = ["OTHERS"]

OTHERS: Final[dict[str, dict[str, str]]] = {
    # --- webhooks: stores, receiver, worker, verifiers -------------------------------------
    "webhooks.seconds_type": {
        "en": "{name} must be a number of seconds {bound}, not {type}",
        "pt_BR": "{name} deve ser um número de segundos {bound}, não {type}",
    },
    "webhooks.seconds_type_or_none": {
        "en": "{name} must be a number of seconds {bound} (or None), not {type}",
        "pt_BR": "{name} deve ser um número de segundos {bound} (ou None), não {type}",
    },
    "webhooks.seconds_range": {
        "en": "{name} must be a finite number {bound} of seconds, not {value!r}",
        "pt_BR": "{name} deve ser um número finito {bound} de segundos, não {value!r}",
    },
    "webhooks.seconds_range_or_none": {
        "en": "{name} must be a finite number {bound} of seconds (or None), not {value!r}",
        "pt_BR": "{name} deve ser um número finito {bound} de segundos (ou None), não {value!r}",
    },
    "webhooks.int_at_least_one": {
        "en": "{name} must be an int >= 1, not {value!r}",
        "pt_BR": "{name} deve ser um int >= 1, não {value!r}",
    },
    "webhooks.retention": {
        "en": "retention must be a timedelta >= 0, not {value!r}",
        "pt_BR": "retention deve ser um timedelta >= 0, não {value!r}",
    },
    "webhooks.clock": {
        "en": "clock must be a callable returning epoch seconds",
        "pt_BR": "clock deve ser um callable que devolve segundos desde a epoch",
    },
    "webhooks.sql_identifier": {
        "en": (
            "{what} must be a plain SQL identifier (letters, digits, _; at most 48), not {name!r}"
        ),
        "pt_BR": (
            "{what} deve ser um identificador SQL simples (letras, dígitos, _; no máximo 48), "
            "não {name!r}"
        ),
    },
    "webhooks.postgres_target": {
        "en": (
            "PostgresStore needs a connection string or a psycopg_pool.ConnectionPool, not {type}"
        ),
        "pt_BR": (
            "PostgresStore precisa de uma string de conexão ou de um "
            "psycopg_pool.ConnectionPool, não {type}"
        ),
    },
    "webhooks.redis_prefix": {
        "en": "prefix must be a non-empty string without braces, not {value!r}",
        "pt_BR": "prefix deve ser uma string não vazia, sem '{{' nem '}}', não {value!r}",
    },
    "webhooks.redis_target": {
        "en": "RedisStore needs a redis:// URL or a redis.Redis client, not {type}",
        "pt_BR": "RedisStore precisa de uma URL redis:// ou de um cliente redis.Redis, não {type}",
    },
    "webhooks.sqlite_memory": {
        "en": (
            "SQLiteStore needs a file path (each connection to ':memory:' is a separate "
            "database); use MemoryStore for an in-process inbox"
        ),
        "pt_BR": (
            "SQLiteStore precisa do caminho de um arquivo (cada conexão a ':memory:' é um banco "
            "de dados separado); use MemoryStore para uma caixa de entrada dentro do processo"
        ),
    },
    "webhooks.sqlite_synchronous": {
        "en": "synchronous must be 'FULL' or 'NORMAL', not {value!r}",
        "pt_BR": "synchronous deve ser 'FULL' ou 'NORMAL', não {value!r}",
    },
    "webhooks.max_body_bytes_type": {
        "en": "max_body_bytes must be an int, not {value!r}",
        "pt_BR": "max_body_bytes deve ser um int, não {value!r}",
    },
    "webhooks.max_body_bytes_range": {
        "en": "max_body_bytes must be >= 1, not {value!r}",
        "pt_BR": "max_body_bytes deve ser >= 1, não {value!r}",
    },
    "webhooks.verifier": {
        "en": "verifier must have a verify(body, headers) method",
        "pt_BR": "verifier deve ter um método verify(body, headers)",
    },
    "webhooks.handler_type": {
        "en": "handler must be callable, not {type}",
        "pt_BR": "handler deve ser um callable, não {type}",
    },
    "webhooks.async_handler": {
        "en": "handler is an async function: use AsyncWorker",
        "pt_BR": "handler é uma função async: use AsyncWorker",
    },
    "webhooks.secret_empty": {
        "en": "{what} must be a non-empty str or bytes",
        "pt_BR": "{what} deve ser um str ou bytes não vazio",
    },
    "webhooks.secret_type": {
        "en": "secret must be a str, bytes or a sequence of them, not {type}",
        "pt_BR": "secret deve ser um str, bytes ou uma sequência deles, não {type}",
    },
    "webhooks.no_secret": {
        "en": "at least one secret is needed",
        "pt_BR": "é preciso pelo menos um secret",
    },
    "webhooks.header_named": {
        "en": "{name} must be a non-empty header name",
        "pt_BR": "{name} deve ser um nome de cabeçalho não vazio",
    },
    "webhooks.algorithm": {
        "en": "hash algorithm {algorithm!r} is unknown or unusable",
        "pt_BR": "o algoritmo de hash {algorithm!r} é desconhecido ou inutilizável",
    },
    "webhooks.choice": {
        "en": "{name} must be one of {choices}, not {value!r}",
        "pt_BR": "{name} deve ser um destes: {choices}; não {value!r}",
    },
    "webhooks.crypto_missing": {
        "en": (
            "{what} needs the cryptography package, which is not installed: "
            'pip install "smartpos[crypto]"'
        ),
        "pt_BR": (
            "{what} precisa do pacote cryptography, que não está instalado: "
            'pip install "smartpos[crypto]"'
        ),
    },
    "webhooks.public_key": {
        "en": (
            "key #{index} is not a usable {kind} public key (PEM, DER, or their Base64; for "
            "ed25519 also the 32 raw bytes, their Base64 or hex, or whpk_...)"
        ),
        "pt_BR": (
            "a chave #{index} não é uma chave pública {kind} utilizável (PEM, DER, ou o Base64 "
            "deles; para ed25519 também os 32 bytes crus, o Base64 ou hex deles, ou whpk_...)"
        ),
    },
    "webhooks.private_key": {
        "en": (
            "key #{index} is not a usable {kind} private key (unencrypted PEM, DER, or their "
            "Base64; for ed25519 also the 32-byte seed, its Base64 or hex, or whsk_...)"
        ),
        "pt_BR": (
            "a chave #{index} não é uma chave privada {kind} utilizável (PEM sem senha, DER, ou "
            "o Base64 deles; para ed25519 também a semente de 32 bytes, o Base64 ou hex dela, "
            "ou whsk_...)"
        ),
    },
    "webhooks.public_key_cannot_sign": {
        "en": "a whpk_ key is a public key: signing needs the whsk_ private key or a whsec_ secret",
        "pt_BR": (
            "uma chave whpk_ é pública: para assinar, use a chave privada whsk_ ou um secret whsec_"
        ),
    },
    "webhooks.standard_secret": {
        "en": (
            'Standard Webhooks key #{index} must be "whsec_" followed by Base64 (or "whpk_" '
            "and a Base64 ed25519 public key of 32 bytes)"
        ),
        "pt_BR": (
            'a chave #{index} de Standard Webhooks deve ser "whsec_" seguido de Base64 (ou '
            '"whpk_" e uma chave pública ed25519 de 32 bytes em Base64)'
        ),
    },
    "webhooks.standard_private_key": {
        "en": (
            "a whsk_ key signs deliveries and belongs to the sender: give the receiver its "
            "public key (whpk_)"
        ),
        "pt_BR": (
            "uma chave whsk_ assina as entregas e pertence a quem envia: dê ao receptor a "
            "chave pública dela (whpk_)"
        ),
    },
    "webhooks.template_type": {
        "en": "template must be a non-empty str",
        "pt_BR": "template deve ser um str não vazio",
    },
    "webhooks.template_field": {
        "en": (
            "template field {{{field}}} is unknown: use {{body}}, {{timestamp}}, "
            "{{header:NAME}} or {{json:PATH}} (the last two may end in |lower); "
            "{{{{ and }}}} are literal braces"
        ),
        "pt_BR": (
            "o campo {{{field}}} do template é desconhecido: use {{body}}, {{timestamp}}, "
            "{{header:NOME}} ou {{json:CAMINHO}} (os dois últimos podem terminar em |lower); "
            "{{{{ e }}}} são chaves literais"
        ),
    },
    "webhooks.template_brace": {
        "en": (
            "template has an unmatched brace at position {position}; write {{{{ or }}}} for a "
            "literal one"
        ),
        "pt_BR": (
            "template tem uma chave sem par na posição {position}; escreva {{{{ ou }}}} para "
            "uma chave literal"
        ),
    },
    "webhooks.template_timestamp": {
        "en": (
            "the template signs {{timestamp}}, so timestamp_header, or timestamp_key with "
            "signature_key (a header of key=value pairs), must say where the timestamp comes "
            "from"
        ),
        "pt_BR": (
            "o template assina {{timestamp}}, então timestamp_header, ou timestamp_key com "
            "signature_key (um cabeçalho de pares chave=valor), deve dizer de onde vem o "
            "timestamp"
        ),
    },
    "webhooks.key_name": {
        "en": "{name} must be a non-empty str without ',', '=' or spaces, or None",
        "pt_BR": "{name} deve ser um str não vazio sem ',', '=' ou espaços, ou None",
    },
    "webhooks.separator": {
        "en": "separator must be a str (may be empty)",
        "pt_BR": "separator deve ser um str (pode ser vazio)",
    },
    "webhooks.scheme_unknown": {
        "en": "unknown signature scheme {scheme!r}: use one of {schemes}",
        "pt_BR": "esquema de assinatura {scheme!r} desconhecido: use um destes: {schemes}",
    },
    "webhooks.scheme_needs": {
        "en": "the {scheme} scheme needs the option {option}",
        "pt_BR": "o esquema {scheme} precisa da opção {option}",
    },
    "webhooks.scheme_option": {
        "en": "the {scheme} scheme takes no option {unknown}; it takes: {known}",
        "pt_BR": "o esquema {scheme} não aceita a opção {unknown}; ele aceita: {known}",
    },
    "webhooks.scheme_options": {
        "en": "the {scheme} scheme cannot be built: {problem}",
        "pt_BR": "o esquema {scheme} não pode ser montado: {problem}",
    },
    # --- integrations ------------------------------------------------------------------------
    "integrations.secret_and_verifier": {
        "en": "give a webhook secret or a verifier, not both",
        "pt_BR": "passe um secret de webhook ou um verifier, não os dois",
    },
    "integrations.bad_secret": {
        "en": "unusable webhook secret setting: {problem}",
        "pt_BR": "configuração inutilizável do secret de webhook: {problem}",
    },
    "integrations.bad_scheme": {
        "en": "unusable webhook signature scheme setting: {problem}",
        "pt_BR": "configuração inutilizável do esquema de assinatura de webhook: {problem}",
    },
    "integrations.scheme_options_alone": {
        "en": "webhook scheme options were given without a scheme: name the scheme too",
        "pt_BR": (
            "opções de esquema de webhook foram dadas sem um esquema: informe o esquema também"
        ),
    },
    "integrations.scheme_type": {
        "en": "the webhook signature scheme must be a str such as 'standard-webhooks'",
        "pt_BR": "o esquema de assinatura de webhook deve ser um str como 'standard-webhooks'",
    },
    "integrations.scheme_no_secret": {
        "en": (
            "the webhook scheme {scheme} needs its key material in the webhook secret setting "
            "(the secret, or the public key for ed25519 and rsa)"
        ),
        "pt_BR": (
            "o esquema de webhook {scheme} precisa do material de chave na configuração do "
            "secret de webhook (o secret, ou a chave pública para ed25519 e rsa)"
        ),
    },
    "integrations.scheme_secret_header": {
        "en": (
            "the secret header setting names the shared secret's header; for the {scheme} "
            "scheme give the header in the scheme options instead ({{'header': ...}})"
        ),
        "pt_BR": (
            "a configuração do cabeçalho do secret nomeia o cabeçalho do secret compartilhado; "
            "para o esquema {scheme}, informe o cabeçalho nas opções do esquema "
            "({{'header': ...}})"
        ),
    },
    "integrations.bad_receiver_options": {
        "en": "bad webhook receiver options: {problem}",
        "pt_BR": "opções inválidas do receptor de webhooks: {problem}",
    },
    "integrations.status_authorize": {
        "en": (
            "the status endpoints need authorize=: a callable authorize(request, key) -> bool "
            "that says whether this request may see this sale (key: the sale id) or operation "
            "(key: its referencia), e.g. whether the logged-in cashier belongs to its store"
        ),
        "pt_BR": (
            "os endpoints de estado precisam de authorize=: um callable "
            "authorize(request, chave) -> bool que diz se esta requisição pode ver esta venda "
            "(chave: o id da venda) ou operação (chave: a referencia), por exemplo se o caixa "
            "logado pertence à loja dela"
        ),
    },
    "integrations.status_option": {
        "en": (
            "bad status endpoint option {name}={value!r}: give a number of seconds "
            "from {low} to {high}"
        ),
        "pt_BR": (
            "opção inválida dos endpoints de estado {name}={value!r}: informe um número de "
            "segundos de {low} a {high}"
        ),
    },
    "integrations.handler": {
        "en": "handler must be callable",
        "pt_BR": "handler deve ser um callable",
    },
    "integrations.positive_seconds": {
        "en": "{name} must be a positive number of seconds",
        "pt_BR": "{name} deve ser um número positivo de segundos",
    },
    "integrations.flask_no_store": {
        "en": (
            "app.config['SMARTPOS_STORE'] is not set: the webhook inbox needs one, e.g. "
            "'sqlite:////var/lib/shop/smartpos-inbox.sqlite3'"
        ),
        "pt_BR": (
            "app.config['SMARTPOS_STORE'] não está definido: a caixa de entrada de webhooks "
            "precisa de um, por exemplo 'sqlite:////var/lib/shop/smartpos-inbox.sqlite3'"
        ),
    },
    "integrations.flask_unknown_keys": {
        "en": "unknown smartpos config keys {unknown}: the keys are {keys}",
        "pt_BR": "chaves de configuração do smartpos desconhecidas {unknown}: as chaves são {keys}",
    },
    "integrations.store_empty": {
        "en": (
            "the store setting is empty: give a path such as 'smartpos-inbox.sqlite3' or a URL "
            "such as 'sqlite:////var/lib/shop/inbox.sqlite3', 'redis://127.0.0.1:6379/0' or "
            "'postgresql://user@host/db'"
        ),
        "pt_BR": (
            "a configuração do store está vazia: passe um caminho como 'smartpos-inbox.sqlite3' "
            "ou uma URL como 'sqlite:////var/lib/shop/inbox.sqlite3', 'redis://127.0.0.1:6379/0' "
            "ou 'postgresql://user@host/db'"
        ),
    },
    "integrations.store_scheme": {
        "en": (
            "the store URL scheme {scheme!r} is not supported: use one of {schemes} or a file path"
        ),
        "pt_BR": (
            "o esquema {scheme!r} da URL do store não é suportado: use um destes, {schemes}, ou "
            "um caminho de arquivo"
        ),
    },
    "integrations.not_sqlite": {
        "en": "not an SQLite store setting",
        "pt_BR": "não é uma configuração de store SQLite",
    },
    "integrations.sqlite_url": {
        "en": (
            "an SQLite store URL is 'sqlite:///relative/inbox.sqlite3' or "
            "'sqlite:////absolute/inbox.sqlite3' (no host, query or fragment)"
        ),
        "pt_BR": (
            "uma URL de store SQLite é 'sqlite:///relative/inbox.sqlite3' ou "
            "'sqlite:////absolute/inbox.sqlite3' (sem host, query nem fragmento)"
        ),
    },
    "integrations.options_for_a_store": {
        "en": "store options apply to a URL or a path, not to a store",
        "pt_BR": "as opções de store valem para uma URL ou um caminho, não para um store",
    },
    "integrations.store_setting_type": {
        "en": "the store setting must be a URL, a path or a store, not {type}",
        "pt_BR": "a configuração do store deve ser uma URL, um caminho ou um store, não {type}",
    },
    "integrations.needs_redis": {
        "en": "a redis:// store needs the redis package: pip install 'smartpos[redis]'",
        "pt_BR": "um store redis:// precisa do pacote redis: pip install 'smartpos[redis]'",
    },
    "integrations.needs_psycopg": {
        "en": "a postgresql:// store needs psycopg: pip install 'smartpos[postgres]'",
        "pt_BR": "um store postgresql:// precisa do psycopg: pip install 'smartpos[postgres]'",
    },
    "integrations.bad_store_options": {
        "en": "bad store options for a {scheme} store: {problem}",
        "pt_BR": "opções inválidas para um store {scheme}: {problem}",
    },
    # --- cli: the command's --store and the sandbox operator ------------------------------
    "cli.store_memory": {
        "en": (
            "--store {store}: a memory store lives in one process only, so this command would "
            "only see an empty inbox"
        ),
        "pt_BR": (
            "--store {store}: um store em memória vive num só processo, então este comando só "
            "veria uma caixa de entrada vazia"
        ),
    },
    "cli.store_memory_hint": {
        "en": "give the file or the redis:// or postgresql:// URL your receiver writes to",
        "pt_BR": "passe o arquivo ou a URL redis:// ou postgresql:// em que o seu receptor grava",
    },
    "cli.store_setting": {
        "en": "bad --store: {problem}",
        "pt_BR": "--store inválido: {problem}",
    },
    "cli.store_setting_hint": {
        "en": (
            "for example --store inbox.sqlite3, --store redis://127.0.0.1:6379/0 or "
            "--store postgresql://user@host/db"
        ),
        "pt_BR": (
            "por exemplo --store inbox.sqlite3, --store redis://127.0.0.1:6379/0 ou "
            "--store postgresql://user@host/db"
        ),
    },
    "cli.store_open": {
        "en": "cannot open the store {store}: {problem}",
        "pt_BR": "não foi possível abrir o store {store}: {problem}",
    },
    "cli.store_migrate_hint": {
        "en": "create its table once: PostgresStore(url).migrate() (see stores.md)",
        "pt_BR": "crie a tabela uma vez: PostgresStore(url).migrate() (veja stores.md)",
    },
    "cli.operator_empty": {
        "en": "no card waits in the operator's queue",
        "pt_BR": "nenhum cartão aguarda na fila do operador",
    },
    "cli.operator_empty_hint": {
        "en": "a payment in manual mode queues one: {command}",
        "pt_BR": "um pagamento em modo manual põe um na fila: {command}",
    },
    "cli.operator_started": {
        "en": "started {referencia}: ",
        "pt_BR": "iniciado {referencia}: ",
    },
    "cli.operator_cancelled": {
        "en": "cancelled {referencia}: ",
        "pt_BR": "cancelado {referencia}: ",
    },
    "cli.operator_silence": {
        "en": "started {referencia}: the terminal answers nothing (scripted silence)",
        "pt_BR": "iniciado {referencia}: o terminal não responde (silêncio roteirizado)",
    },
    "cli.control_key": {
        "en": "the sandbox at {url} requires a control key, and none or another was sent",
        "pt_BR": "o sandbox em {url} exige uma chave de controle, e nenhuma ou outra foi enviada",
    },
    "cli.control_key_hint": {
        "en": "pass the key it was started with: --control-key KEY or {variable}",
        "pt_BR": "passe a chave com que ele foi iniciado: --control-key KEY ou {variable}",
    },
    # --- _outcome_calls: outcomes with a store -----------------------------------------------
    "outcomes.not_a_store": {
        "en": (
            "store must be a smartpos.webhooks store (MemoryStore, SQLiteStore, RedisStore, "
            "PostgresStore): the one your WebhookReceiver writes into, not {type}"
        ),
        "pt_BR": (
            "store deve ser um store de smartpos.webhooks (MemoryStore, SQLiteStore, RedisStore, "
            "PostgresStore): o mesmo em que o seu WebhookReceiver grava, não {type}"
        ),
    },
    "outcomes.needs_store": {
        "en": (
            "{what} needs a store: build the client with store=... (the webhooks store your "
            "WebhookReceiver writes events into, e.g. smartpos.webhooks.SQLiteStore(path)); "
            "nothing was sent"
        ),
        "pt_BR": (
            "{what} precisa de um store: crie o cliente com store=... (o store de webhooks em "
            "que o seu WebhookReceiver grava os eventos, por exemplo "
            "smartpos.webhooks.SQLiteStore(caminho)); nada foi enviado"
        ),
    },
    "request.method": {
        "en": "method must be one of {allowed}, not {value!r}",
        "pt_BR": "method deve ser um de {allowed}, não {value!r}",
    },
    "request.path": {
        "en": (
            "path must be a str that starts with a single '/', such as '/v1/new-endpoint', "
            "without a query or fragment (pass params= for the query)"
        ),
        "pt_BR": (
            "path deve ser um str que começa com uma só '/', como '/v1/novo-endpoint', sem "
            "query nem fragmento (passe params= para a query)"
        ),
    },
    "request.params": {
        "en": "params must be a mapping of query parameter names to values",
        "pt_BR": "params deve ser um mapeamento de nomes de parâmetros da query para valores",
    },
    "request.json": {
        "en": "json cannot be written as JSON ({cause})",
        "pt_BR": "json não pode ser escrito como JSON ({cause})",
    },
    "outcomes.timeout": {
        "en": "timeout must be a positive, finite number of seconds, not {value!r}",
        "pt_BR": "timeout deve ser um número de segundos positivo e finito, não {value!r}",
    },
    "outcomes.show_not_callable": {
        "en": "show must be callable, not {type}",
        "pt_BR": "show deve ser chamável (uma função), não {type}",
    },
    "outcomes.different_request": {
        "en": (
            "referencia {referencia} is already journaled for another request (a {kind}, "
            "{state}); nothing was sent. A referencia names one attempt: pass the same "
            "arguments to get that attempt's result, or use a new referencia "
            "(smartpos.new_referencia()) for a new attempt"
        ),
        "pt_BR": (
            "a referencia {referencia} já está no diário com outra requisição ({kind}, "
            "{state}); nada foi enviado. Uma referencia identifica uma tentativa: passe os "
            "mesmos argumentos para obter o resultado dessa tentativa, ou use uma nova "
            "referencia (smartpos.new_referencia()) para uma nova tentativa"
        ),
    },
    "outcomes.not_journaled": {
        "en": (
            "referencia {referencia} is not in the store's journal: nothing to reconcile (it was "
            "never sent by a client with this store, or it ended and was purged). Its events, "
            "if any, are in the inbox: client.wait(referencia, timeout=...) finds them"
        ),
        "pt_BR": (
            "a referencia {referencia} não está no diário do store: não há o que reconciliar "
            "(nunca foi enviada por um cliente com este store, ou terminou e foi expurgada). Os "
            "eventos dela, se houver, estão na caixa de entrada: client.wait(referencia, "
            "timeout=...) os encontra"
        ),
    },
    # --- integrations.otel ------------------------------------------------------------------
    "otel.store_name_taken": {
        "en": (
            "a store named {name!r} is already instrumented: pass instrument_store(store, "
            "name=...) a name of its own"
        ),
        "pt_BR": (
            "já existe um store instrumentado com o nome {name!r}: passe a "
            "instrument_store(store, name=...) um nome só dele"
        ),
    },
    "otel.max_count": {
        "en": "max_count must be an int >= 1, not {value!r}",
        "pt_BR": "max_count deve ser um int >= 1, não {value!r}",
    },
    "otel.not_a_store": {
        "en": "{type} is not a webhooks store (no list())",
        "pt_BR": "{type} não é um store de webhooks (não tem list())",
    },
    # --- fix-i18n: the pending outcome, options the integrations pass on, Django checks ---
    "error.outcome_pending": {
        "en": (
            "no final event for referencia {referencia} within {timeout} s (last error: "
            "{last}). The service accepted it, or may have: do not retry with a new referencia; "
            "wait again later with client.wait({referencia!r}, timeout=...)."
        ),
        "pt_BR": (
            "nenhum evento final para a referencia {referencia} em {timeout} s (último erro: "
            "{last}). O serviço a aceitou, ou pode tê-la aceitado: não cobre de novo com uma "
            "nova referencia; espere de novo mais tarde com client.wait({referencia!r}, "
            "timeout=...)."
        ),
    },
    "error.pending_timeout": {
        "en": "no final event within {timeout} s",
        "pt_BR": "nenhum evento final em {timeout} s",
    },
    "integrations.unknown_options": {
        "en": "unknown option(s) {unknown}; the options are: {known}",
        "pt_BR": "opção(ões) desconhecida(s) {unknown}; as opções são: {known}",
    },
    "outcomes.accepted_without_answer": {
        "en": (
            "the journal holds referencia {referencia} as {state} without the service's answer "
            "(an earlier send arrived; a resend was answered 409 REFERENCIA_DUPLICADA); nothing "
            "was sent"
        ),
        "pt_BR": (
            "o diário guarda a referencia {referencia} como {state} sem a resposta do serviço "
            "(um envio anterior chegou; um reenvio foi respondido com 409 REFERENCIA_DUPLICADA); "
            "nada foi enviado"
        ),
    },
    "outcomes.changed_concurrently": {
        "en": (
            "the journal entry of referencia {referencia} changed under concurrent creates of "
            "it; nothing more was sent"
        ),
        "pt_BR": (
            "a entrada do diário da referencia {referencia} mudou durante criações concorrentes "
            "dela; nada mais foi enviado"
        ),
    },
    "client.sync_in_event_loop": {
        "en": (
            "a smartpos.Client call blocks the running event loop (an async view, a task) "
            "until the service answers: use smartpos.AsyncClient there, or run the call in a "
            "thread (asyncio.to_thread, asgiref's sync_to_async)"
        ),
        "pt_BR": (
            "uma chamada de smartpos.Client bloqueia o event loop em execução (uma view "
            "assíncrona, uma task) até o serviço responder: use smartpos.AsyncClient nele, ou "
            "rode a chamada numa thread (asyncio.to_thread, sync_to_async do asgiref)"
        ),
    },
    "django.settings_not_a_dict": {
        "en": (
            "settings.SMARTPOS must be a dict, not {type}; see KEYS in "
            "smartpos.integrations.django.conf"
        ),
        "pt_BR": (
            "settings.SMARTPOS deve ser um dict, não {type}; veja KEYS em "
            "smartpos.integrations.django.conf"
        ),
    },
    "django.unknown_keys": {
        "en": "SMARTPOS has unknown keys {unknown}: the keys are {keys}",
        "pt_BR": "SMARTPOS tem chaves desconhecidas {unknown}: as chaves são {keys}",
    },
    "django.not_a_str": {
        "en": "SMARTPOS[{key!r}] must be a str",
        "pt_BR": "SMARTPOS[{key!r}] deve ser um str",
    },
    "django.options_not_a_dict": {
        "en": "SMARTPOS[{key!r}] must be a dict of keyword arguments",
        "pt_BR": "SMARTPOS[{key!r}] deve ser um dict de argumentos nomeados",
    },
    "django.secret_type": {
        "en": "SMARTPOS['WEBHOOK_SECRET'] must be a str, or a list of str while rotating secrets",
        "pt_BR": (
            "SMARTPOS['WEBHOOK_SECRET'] deve ser um str, ou uma lista de str durante a troca de "
            "secrets"
        ),
    },
    "django.store_setting": {
        "en": (
            "SMARTPOS['STORE'] is not set: the webhook inbox needs one, e.g. "
            "'sqlite:////var/lib/shop/smartpos-inbox.sqlite3' (one host), 'redis://...' or "
            "'postgresql://...' (several hosts)"
        ),
        "pt_BR": (
            "SMARTPOS['STORE'] não está definido: a caixa de entrada de webhooks precisa de um, "
            "por exemplo 'sqlite:////var/lib/shop/smartpos-inbox.sqlite3' (um host), "
            "'redis://...' ou 'postgresql://...' (vários hosts)"
        ),
    },
    "django.check_unknown_key": {
        "en": "SMARTPOS has an unknown key {key!r}",
        "pt_BR": "SMARTPOS tem uma chave desconhecida {key!r}",
    },
    "django.check_unknown_key_hint": {
        "en": "{suggestion}The keys are: {keys}.",
        "pt_BR": "{suggestion}As chaves são: {keys}.",
    },
    "django.check_did_you_mean": {
        "en": "did you mean {key!r}? ",
        "pt_BR": "você quis dizer {key!r}? ",
    },
    "django.check_no_store": {
        "en": "SMARTPOS['STORE'] is not set: the webhook views and smartpos_worker need an inbox",
        "pt_BR": (
            "SMARTPOS['STORE'] não está definido: as views de webhook e o smartpos_worker "
            "precisam de uma caixa de entrada"
        ),
    },
    "django.check_no_store_hint": {
        "en": (
            "e.g. 'sqlite:////var/lib/shop/smartpos-inbox.sqlite3' on one host, 'redis://...' "
            "or 'postgresql://...' for several."
        ),
        "pt_BR": (
            "por exemplo 'sqlite:////var/lib/shop/smartpos-inbox.sqlite3' em um host, "
            "'redis://...' ou 'postgresql://...' para vários."
        ),
    },
    "django.check_no_folder": {
        "en": "the folder of the SQLite inbox does not exist: {folder}",
        "pt_BR": "a pasta da caixa de entrada SQLite não existe: {folder}",
    },
    "django.check_no_folder_hint": {
        "en": "Create it, or point SMARTPOS['STORE'] at a folder that exists on a local disk.",
        "pt_BR": (
            "Crie a pasta, ou aponte SMARTPOS['STORE'] para uma pasta que exista num disco local."
        ),
    },
    "django.check_memory_store": {
        "en": (
            "SMARTPOS['STORE'] is memory://: events acknowledged to the service are lost at "
            "every restart and not shared between processes"
        ),
        "pt_BR": (
            "SMARTPOS['STORE'] é memory://: os eventos confirmados ao serviço se perdem a cada "
            "reinício e não são compartilhados entre processos"
        ),
    },
    "django.check_memory_store_hint": {
        "en": "Use it in tests only; an SQLite file, Redis or PostgreSQL in production.",
        "pt_BR": "Use só em testes; um arquivo SQLite, Redis ou PostgreSQL em produção.",
    },
    "django.check_handler_import": {
        "en": "{source} cannot be imported: {problem}",
        "pt_BR": "{source} não pode ser importado: {problem}",
    },
    "django.check_handler_import_hint": {
        "en": "Give the dotted path of a function: 'shop.payments.handle_event'.",
        "pt_BR": "Informe o caminho pontuado de uma função: 'shop.payments.handle_event'.",
    },
    "django.check_handler_not_callable": {
        "en": "{source} {path!r} is not callable",
        "pt_BR": "{source} {path!r} não é uma função (não é chamável)",
    },
    "django.check_verifier": {
        "en": "SMARTPOS cannot build the webhook verifier: {problem}",
        "pt_BR": "SMARTPOS não consegue montar o verificador de webhooks: {problem}",
    },
    "django.check_verifier_hint": {
        "en": (
            "WEBHOOK_SCHEME names the scheme, WEBHOOK_SECRET holds its key material (a list "
            "while rotating) and WEBHOOK_SCHEME_OPTIONS its options; WEBHOOK_VERIFIER replaces "
            "all three."
        ),
        "pt_BR": (
            "WEBHOOK_SCHEME nomeia o esquema, WEBHOOK_SECRET guarda o material de chave dele "
            "(uma lista durante a troca) e WEBHOOK_SCHEME_OPTIONS as opções; WEBHOOK_VERIFIER "
            "substitui os três."
        ),
    },
    "django.check_no_secret": {
        "en": (
            "SMARTPOS has no WEBHOOK_SECRET: the webhook view accepts events from anyone who "
            "finds its URL"
        ),
        "pt_BR": (
            "SMARTPOS não tem WEBHOOK_SECRET: a view de webhook aceita eventos de qualquer um "
            "que descubra a URL dela"
        ),
    },
    "django.check_no_secret_hint": {
        "en": (
            "Set SMARTPOS['WEBHOOK_SECRET'] and send it in the x-webhook-secret header (partner "
            "portal or reverse proxy), or set WEBHOOK_VERIFIER."
        ),
        "pt_BR": (
            "Defina SMARTPOS['WEBHOOK_SECRET'] e envie-o no cabeçalho x-webhook-secret (portal "
            "do parceiro ou proxy reverso), ou defina WEBHOOK_VERIFIER."
        ),
    },
    "django.check_no_client": {
        "en": (
            "no smartpos API key or base URL: get_client() and get_async_client() will raise "
            "ConfigurationError"
        ),
        "pt_BR": (
            "nenhuma chave de API ou base URL do smartpos: get_client() e get_async_client() "
            "vão lançar ConfigurationError"
        ),
    },
    "django.check_no_client_hint": {
        "en": (
            "Set SMARTPOS['API_KEY'] and SMARTPOS['BASE_URL'], or the environment variables "
            "SMARTPOS_API_KEY and SMARTPOS_BASE_URL."
        ),
        "pt_BR": (
            "Defina SMARTPOS['API_KEY'] e SMARTPOS['BASE_URL'], ou as variáveis de ambiente "
            "SMARTPOS_API_KEY e SMARTPOS_BASE_URL."
        ),
    },
    "django.check_no_redis_package": {
        "en": "SMARTPOS['STORE'] is a Redis URL but the redis package is missing",
        "pt_BR": "SMARTPOS['STORE'] é uma URL Redis, mas falta o pacote redis",
    },
    "django.check_redis_unreadable": {
        "en": "could not check the Redis inbox's settings: {type}",
        "pt_BR": "não foi possível conferir as configurações do Redis da caixa de entrada: {type}",
    },
    "django.check_redis_unreadable_hint": {
        "en": (
            "Check appendonly yes, appendfsync everysec (or always) and maxmemory-policy "
            "noeviction with your provider."
        ),
        "pt_BR": (
            "Confira com o seu provedor: appendonly yes, appendfsync everysec (ou always) e "
            "maxmemory-policy noeviction."
        ),
    },
    "django.check_redis_setting.appendonly": {
        "en": (
            "the Redis inbox's setting appendonly breaks its guarantees: events acknowledged to "
            "the service (2xx) are lost when Redis restarts"
        ),
        "pt_BR": (
            "a configuração appendonly do Redis quebra as garantias da caixa de entrada: "
            "eventos confirmados ao serviço (2xx) se perdem quando o Redis reinicia"
        ),
    },
    "django.check_redis_setting.appendfsync": {
        "en": (
            "the Redis inbox's setting appendfsync breaks its guarantees: the OS decides when "
            "the append-only file reaches the disk, so a crash of the host can lose many "
            "seconds of events"
        ),
        "pt_BR": (
            "a configuração appendfsync do Redis quebra as garantias da caixa de entrada: o "
            "sistema operacional decide quando o arquivo append-only chega ao disco, então uma "
            "queda do host pode perder muitos segundos de eventos"
        ),
    },
    "django.check_redis_setting.maxmemory-policy": {
        "en": (
            "the Redis inbox's setting maxmemory-policy breaks its guarantees: Redis may evict "
            "pending events and dedup records when memory runs out"
        ),
        "pt_BR": (
            "a configuração maxmemory-policy do Redis quebra as garantias da caixa de entrada: "
            "o Redis pode descartar eventos pendentes e registros de deduplicação quando a "
            "memória acaba"
        ),
    },
    "django.check_redis_setting_hint": {
        "en": "Set {name} to {values} in redis.conf.",
        "pt_BR": "Defina {name} como {values} no redis.conf.",
    },
    "django.store_alias": {
        "en": (
            "DjangoStore(using={alias!r}): no such database alias in settings.DATABASES "
            "(known: {aliases})"
        ),
        "pt_BR": (
            "DjangoStore(using={alias!r}): esse alias de banco não existe em "
            "settings.DATABASES (existentes: {aliases})"
        ),
    },
    "django.store_mysql_version": {
        "en": (
            "DjangoStore(using={alias!r}): {server} {version} has no SELECT ... FOR UPDATE SKIP "
            "LOCKED, which the store's claims need: use {server} {minimum} or newer"
        ),
        "pt_BR": (
            "DjangoStore(using={alias!r}): o {server} {version} não tem SELECT ... FOR UPDATE "
            "SKIP LOCKED, de que os claims do store precisam: use o {server} {minimum} ou mais "
            "novo"
        ),
    },
    "django.store_mysql_charset": {
        "en": (
            "DjangoStore(using={alias!r}): the connection's character set is {charset!r}, "
            "which cannot hold every id and referencia: set "
            "DATABASES[{alias!r}]['OPTIONS']['charset'] = 'utf8mb4'"
        ),
        "pt_BR": (
            "DjangoStore(using={alias!r}): o conjunto de caracteres da conexão é {charset!r}, "
            "que não comporta todo id e referencia: defina "
            "DATABASES[{alias!r}]['OPTIONS']['charset'] = 'utf8mb4'"
        ),
    },
    "django.store_id_too_long": {
        "en": (
            "DjangoStore(using={alias!r}): this {name} has {length} characters; on MySQL and "
            "MariaDB the store holds at most {limit} (nothing was written): use a shorter one"
        ),
        "pt_BR": (
            "DjangoStore(using={alias!r}): este {name} tem {length} caracteres; no MySQL e no "
            "MariaDB o store guarda no máximo {limit} (nada foi gravado): use um mais curto"
        ),
    },
    "django.store_put_vanished": {
        "en": (
            "DjangoStore(using={alias!r}): an event already stored was purged between the "
            "insert and the read of its hash, {attempts} times in a row; nothing was stored: "
            "put it again (a receiver answers 503, and the service delivers it again)"
        ),
        "pt_BR": (
            "DjangoStore(using={alias!r}): um evento já guardado foi expurgado entre a "
            "inserção e a leitura do seu hash, {attempts} vezes seguidas; nada foi gravado: "
            "grave-o de novo (um receiver responde 503, e o serviço o entrega de novo)"
        ),
    },
    "django.check_store_alias": {
        "en": "SMARTPOS['STORE'] is {store!r}, but DATABASES has no alias {alias!r}",
        "pt_BR": "SMARTPOS['STORE'] é {store!r}, mas DATABASES não tem o alias {alias!r}",
    },
    "django.check_store_alias_hint": {
        "en": "Use one of the aliases of DATABASES: {aliases}.",
        "pt_BR": "Use um dos aliases de DATABASES: {aliases}.",
    },
    "django.check_store_migrations": {
        "en": (
            "the smartpos tables of database {alias!r} are not migrated (not applied: "
            "{missing}): DjangoStore cannot store events there"
        ),
        "pt_BR": (
            "as tabelas do smartpos no banco {alias!r} não estão migradas (falta aplicar: "
            "{missing}): o DjangoStore não consegue guardar eventos nele"
        ),
    },
    "django.check_store_migrations_hint": {
        "en": "Run: python manage.py migrate smartpos --database {alias}",
        "pt_BR": "Rode: python manage.py migrate smartpos --database {alias}",
    },
    "webhooks.async_worker_transactional": {
        "en": (
            "AsyncWorker cannot run handlers in {store!r}'s transactions (Django has no "
            "asynchronous transactions): use Worker with a synchronous handler"
        ),
        "pt_BR": (
            "AsyncWorker não consegue rodar handlers nas transações de {store!r} (o Django "
            "não tem transações assíncronas): use Worker com um handler síncrono"
        ),
    },
    "webhooks.transactional_store": {
        "en": (
            "{option} needs a store that runs the handler and its ack in one database "
            "transaction: SQLiteStore, PostgresStore or DjangoStore, not {store!r}"
        ),
        "pt_BR": (
            "{option} precisa de um store que rode o handler e o ack numa só transação do "
            "banco: SQLiteStore, PostgresStore ou DjangoStore, não {store!r}"
        ),
    },
    "webhooks.transactional_async": {
        "en": (
            "AsyncWorker cannot run handlers in a database transaction ({option}): use Worker "
            "with a synchronous handler and an SQLiteStore, PostgresStore or DjangoStore"
        ),
        "pt_BR": (
            "AsyncWorker não consegue rodar handlers numa transação do banco ({option}): use "
            "Worker com um handler síncrono e um SQLiteStore, PostgresStore ou DjangoStore"
        ),
    },
    "webhooks.handler_or_on_sale": {
        "en": "Worker needs a handler, on_sale, or both",
        "pt_BR": "o Worker precisa de um handler, de on_sale ou dos dois",
    },
    "webhooks.on_sale_type": {
        "en": "on_sale must be callable, not {type}",
        "pt_BR": "on_sale deve ser um callable, não {type}",
    },
    "webhooks.transactional_type": {
        "en": "transactional must be a bool, not {type}",
        "pt_BR": "transactional deve ser um bool, não {type}",
    },
    "django.worker_no_handler": {
        "en": (
            "no handler: set SMARTPOS['HANDLER'] = 'yourapp.module.handle_event' (or "
            "SMARTPOS['ON_SALE'] = 'yourapp.module.on_sale') or pass "
            "--handler yourapp.module.handle_event"
        ),
        "pt_BR": (
            "nenhum handler: defina SMARTPOS['HANDLER'] = 'seuapp.modulo.handle_event' (ou "
            "SMARTPOS['ON_SALE'] = 'seuapp.modulo.on_sale') ou passe "
            "--handler seuapp.modulo.handle_event"
        ),
    },
    "django.worker_bad_options": {
        "en": "bad worker options: {problem}",
        "pt_BR": "opções inválidas do worker: {problem}",
    },
    # --- the admin pages (integrations/django/admin.py) ------------------------------------
    "django.admin.label.state": {
        "en": "state",
        "pt_BR": "estado",
    },
    "django.admin.label.attention": {
        "en": "needs attention",
        "pt_BR": "precisa de atenção",
    },
    "django.admin.label.attention_yes": {
        "en": "with pendencias",
        "pt_BR": "com pendências",
    },
    "django.admin.label.attention_no": {
        "en": "without pendencias",
        "pt_BR": "sem pendências",
    },
    "django.admin.label.total": {
        "en": "total",
        "pt_BR": "valor total",
    },
    "django.admin.label.approved": {
        "en": "approved",
        "pt_BR": "aprovado",
    },
    "django.admin.label.remaining": {
        "en": "remaining",
        "pt_BR": "falta pagar",
    },
    "django.admin.label.approvals": {
        "en": "approvals",
        "pt_BR": "aprovações",
    },
    "django.admin.label.pendencias": {
        "en": "pendencias",
        "pt_BR": "pendências",
    },
    "django.admin.label.created": {
        "en": "created",
        "pt_BR": "criada em",
    },
    "django.admin.label.updated": {
        "en": "updated",
        "pt_BR": "atualizada em",
    },
    "django.admin.label.attempts": {
        "en": "attempts",
        "pt_BR": "tentativas",
    },
    "django.admin.label.amount": {
        "en": "amount",
        "pt_BR": "valor",
    },
    "django.admin.label.event": {
        "en": "event",
        "pt_BR": "evento",
    },
    "django.admin.label.abandoned": {
        "en": "abandoned",
        "pt_BR": "abandonada",
    },
    "django.admin.label.reason": {
        "en": "reason",
        "pt_BR": "motivo",
    },
    "django.admin.label.since": {
        "en": "since",
        "pt_BR": "desde",
    },
    "django.admin.label.compensation": {
        "en": "compensation",
        "pt_BR": "compensação",
    },
    "django.admin.label.compensations": {
        "en": "compensations",
        "pt_BR": "compensações",
    },
    "django.admin.label.compensates": {
        "en": "refunds the attempt",
        "pt_BR": "estorna a tentativa",
    },
    "django.admin.label.motivo": {
        "en": "Reason (what the cashier says, at most 200 characters)",
        "pt_BR": "Motivo (nas palavras do caixa, até 200 caracteres)",
    },
    "django.admin.label.anomalies": {
        "en": "anomalies",
        "pt_BR": "anomalias",
    },
    "django.admin.label.answer": {
        "en": "saved answer (document masked)",
        "pt_BR": "resposta guardada (documento mascarado)",
    },
    "django.admin.label.request": {
        "en": "request sent (document masked)",
        "pt_BR": "requisição enviada (documento mascarado)",
    },
    "django.admin.label.last_error": {
        "en": "last error",
        "pt_BR": "último erro",
    },
    "django.admin.label.received": {
        "en": "received",
        "pt_BR": "recebido em",
    },
    "django.admin.label.available": {
        "en": "next claim",
        "pt_BR": "próxima tentativa",
    },
    "django.admin.label.lease_expires": {
        "en": "lease expires",
        "pt_BR": "lease expira em",
    },
    "django.admin.label.done": {
        "en": "done",
        "pt_BR": "concluído em",
    },
    "django.admin.label.envelope": {
        "en": "envelope (document masked)",
        "pt_BR": "envelope (documento mascarado)",
    },
    "django.admin.label.dead_letters": {
        "en": "dead letters (dead)",
        "pt_BR": "mortos (dead)",
    },
    "django.admin.not_the_store": {
        "en": (
            "the admin pages show database {alias!r}, but SMARTPOS['STORE'] is not "
            "'django://{alias}': no worker nor client writes there, so the actions are refused. "
            "Set SMARTPOS['STORE'] = 'django://{alias}'"
        ),
        "pt_BR": (
            "as páginas do admin mostram o banco {alias!r}, mas SMARTPOS['STORE'] não é "
            "'django://{alias}': nenhum worker nem cliente grava ali, então as ações são "
            "recusadas. Defina SMARTPOS['STORE'] = 'django://{alias}'"
        ),
    },
    "django.admin.no_client": {
        "en": (
            "the smartpos client cannot be built from SMARTPOS (API_KEY, BASE_URL, "
            "CLIENT_OPTIONS): {problem}"
        ),
        "pt_BR": (
            "o cliente smartpos não pode ser criado a partir de SMARTPOS (API_KEY, BASE_URL, "
            "CLIENT_OPTIONS): {problem}"
        ),
    },
    "django.admin.client_store": {
        "en": (
            "the smartpos client journals in another store than database {alias!r}: remove "
            "'store' from SMARTPOS['CLIENT_OPTIONS']"
        ),
        "pt_BR": (
            "o cliente smartpos registra as operações em outro store que não o banco {alias!r}: "
            "tire 'store' de SMARTPOS['CLIENT_OPTIONS']"
        ),
    },
    "django.admin.abandoned_by": {
        "en": "by {operador}: {motivo}",
        "pt_BR": "por {operador}: {motivo}",
    },
    "django.admin.action.abandon": {
        "en": "Abandon the open attempt (asks the reason)",
        "pt_BR": "Abandonar a tentativa aberta (pergunta o motivo)",
    },
    "django.admin.action.compensate": {
        "en": "Compensate: refund each late approval once",
        "pt_BR": "Compensar: estornar cada aprovação tardia uma vez",
    },
    "django.admin.action.reconcile": {
        "en": "Reconcile: resend byte for byte (same referencia, never a second charge)",
        "pt_BR": "Reconciliar: reenviar byte a byte (mesma referencia, nunca uma segunda cobrança)",
    },
    "django.admin.action.requeue": {
        "en": "Requeue: process again (dead or done events)",
        "pt_BR": "Reenfileirar: processar de novo (eventos dead ou done)",
    },
    "django.admin.abandon_title": {
        "en": "Abandon the open attempt",
        "pt_BR": "Abandonar a tentativa aberta",
    },
    "django.admin.abandon_intro": {
        "en": (
            "Nothing is sent to the service: the attempt is marked abandoned (you, the reason, "
            "now), and the sale is open for a new attempt. If the terminal approves it anyway, "
            "that approval is a late approval, which the compensate action refunds."
        ),
        "pt_BR": (
            "Nada é enviado ao serviço: a tentativa fica marcada como abandonada (você, o "
            "motivo, agora), e a venda fica aberta para uma nova tentativa. Se o terminal "
            "aprovar mesmo assim, essa aprovação é uma aprovação tardia, que a ação compensar "
            "estorna."
        ),
    },
    "django.admin.abandon_submit": {
        "en": "Abandon",
        "pt_BR": "Abandonar",
    },
    "django.admin.failed": {
        "en": "{sale}: {problem}",
        "pt_BR": "{sale} falhou: {problem}",
    },
    "django.admin.abandoned": {
        "en": "sale {sale}: attempt {referencias} abandoned; the sale is {state}",
        "pt_BR": "venda {sale}: tentativa {referencias} abandonada; a venda está {state}",
    },
    "django.admin.nothing_to_abandon": {
        "en": "sale {sale} has no open attempt (it is {state}): nothing was abandoned",
        "pt_BR": "a venda {sale} não tem tentativa aberta (está {state}): nada foi abandonado",
    },
    "django.admin.no_late_approval": {
        "en": "sale {sale} has no late approval: nothing was sent",
        "pt_BR": "a venda {sale} não tem aprovação tardia: nada foi enviado",
    },
    "django.admin.compensated": {
        "en": (
            "sale {sale}: compensation refunds {refunds}; a refund that is not accepted stays a "
            "pendencia (reconcile an unknown one)"
        ),
        "pt_BR": (
            "venda {sale}: estornos de compensação {refunds}; um estorno que não foi aceito "
            "continua pendência (reconcilie um desconhecido)"
        ),
    },
    "django.admin.still_unknown": {
        "en": (
            "{referencia}: still unknown; reconcile it again later, never charge it anew with "
            "another referencia"
        ),
        "pt_BR": (
            "{referencia}: ainda desconhecida; reconcilie de novo mais tarde, nunca cobre de "
            "novo com outra referencia"
        ),
    },
    "django.admin.reconciled": {
        "en": "{referencia}: {state}",
        "pt_BR": "{referencia} agora: {state}",
    },
    "django.admin.requeued": {
        "en": "{count} event(s) requeued: {ids}",
        "pt_BR": "{count} evento(s) reenfileirado(s): {ids}",
    },
    "django.admin.not_requeued": {
        "en": "not requeued (pending or claimed: the worker has them already): {ids}",
        "pt_BR": "não reenfileirados (pending ou claimed: o worker já cuida deles): {ids}",
    },
    # --- manage.py smartpos_copy ----------------------------------------------------------
    "django.copy_not_django": {
        "en": "--to must be a Django store, django://ALIAS (an alias of DATABASES), not {to!r}",
        "pt_BR": (
            "--to deve ser um store Django, django://ALIAS (um alias de DATABASES), não {to!r}"
        ),
    },
    "django.copy_same_store": {
        "en": "--from and --to are the same database ({alias!r}): nothing to copy",
        "pt_BR": "--from e --to são o mesmo banco ({alias!r}): nada a copiar",
    },
    "django.copy_not_a_store": {
        "en": "{source} is not a store smartpos_copy can read (it has no journal)",
        "pt_BR": "{source} não é um store que o smartpos_copy consiga ler (não tem journal)",
    },
    "django.copy_failed": {
        "en": (
            "copying from {source} failed: {problem}. What was copied before stays; run the "
            "command again, it copies only what is missing"
        ),
        "pt_BR": (
            "a cópia a partir de {source} falhou: {problem}. O que já foi copiado fica; rode o "
            "comando de novo, ele copia só o que falta"
        ),
    },
    "django.copy_differing": {
        "en": (
            "{count} event(s) were already in the destination with another body (the "
            "destination's kept, compare both): {ids}"
        ),
        "pt_BR": (
            "{count} evento(s) já estavam no destino com outro corpo (ficou o do destino, "
            "compare os dois): {ids}"
        ),
    },
    # --- fix-i18n: _arguments, valorCentavos given in reais ---------------------------------
    "argument.valor_centavos_in_reais": {
        "en": (
            "{campo} must be a positive integer number of cents (1590 for R$ 15,90), not "
            "{value!r}: convert an amount in reais with smartpos.to_centavos({value!r})"
        ),
        "pt_BR": (
            "{campo} deve ser um número inteiro positivo de centavos (1590 para R$ 15,90), não "
            "{value!r}: converta um valor em reais com smartpos.to_centavos({value!r})"
        ),
    },
    "argument.valor_centavos_float": {
        "en": (
            "{campo} must be a positive integer number of cents (1590 for R$ 15,90), never a "
            "float such as {value!r}: convert an amount in reais with smartpos.to_centavos, "
            "given a str ('19,90') or a Decimal, which are exact"
        ),
        "pt_BR": (
            "{campo} deve ser um número inteiro positivo de centavos (1590 para R$ 15,90), nunca "
            "um float como {value!r}: converta um valor em reais com smartpos.to_centavos, "
            "passando um str ('19,90') ou um Decimal, que são exatos"
        ),
    },
}
