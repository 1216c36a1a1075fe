"""The catalog of the SDK's own messages: one template per language for each stable key.

Imported by ``_messages.message`` on the first message, never by ``import smartpos``. Each
entry holds the English (``en``) and Brazilian Portuguese (``pt_BR``) template of one whole
message, with the same ``str.format`` fields; the tests walk the catalog to keep it so.
Fields are identifiers and values (``campo`` names, codes, referencias, type names), never
words of a language: a message is never half in each language. Keys are grouped by the
module that raises them.
"""

from __future__ import annotations

from typing import Final

from ._message_catalog_cli import CLI
from ._message_catalog_conformance import CONFORMANCE
from ._message_catalog_others import OTHERS

__all__ = ["CATALOG"]

# Shared endings, spelled once per language.
_HINT_EN: Final = "pass a str such as '19,90' or 'R$ 1.234,56', a Decimal, or an int of whole reais"
_HINT_PT: Final = (
    "passe um str como '19,90' ou 'R$ 1.234,56', um Decimal, ou um int de reais inteiros"
)
_SWAPPED_EN: Final = (
    "; are api_key and base_url swapped? Client(api_key=..., base_url=...) takes the key first"
)
_SWAPPED_PT: Final = (
    "; api_key e base_url não estão trocados? Client(api_key=..., base_url=...) recebe a "
    "chave primeiro"
)
_BASE_URL_INVALID_EN: Final = (
    "base_url is not a valid URL; pass the service's address, such as https://host/api"
)
_BASE_URL_INVALID_PT: Final = (
    "base_url não é uma URL válida; passe o endereço do serviço, como https://host/api"
)
_BASE_URL_ABSOLUTE_EN: Final = "base_url must be an absolute http(s) URL such as https://host/api"
_BASE_URL_ABSOLUTE_PT: Final = "base_url deve ser uma URL http(s) absoluta, como https://host/api"
_REFERENCIA_FOR_EN: Final = (
    "referencia_for needs a non-empty str key (e.g. f'estorno:{{evento.id}}')"
)
_REFERENCIA_FOR_PT: Final = (
    "referencia_for precisa de uma key str não vazia (por exemplo f'estorno:{{evento.id}}')"
)
_TRANSPORT_EN: Final = "transport= of {client} must be an {wanted}; {type}"
_TRANSPORT_PT: Final = "transport= de {client} deve ser um {wanted}; {type}"

CATALOG: Final[dict[str, dict[str, str]]] = {
    # --- _arguments: the caller's arguments ------------------------------------------------
    "argument.too_long": {
        "en": "{campo} has {length} characters; at most {max} are accepted",
        "pt_BR": "{campo} tem {length} caracteres; são aceitos no máximo {max}",
    },
    "argument.unknown_keyword": {
        "en": "unexpected keyword argument {name!r}: {params} has {names}",
        "pt_BR": "argumento nomeado inesperado {name!r}: {params} tem {names}",
    },
    "argument.unknown_keyword_close": {
        "en": "unexpected keyword argument {name!r}: did you mean {close!r}?",
        "pt_BR": "argumento nomeado inesperado {name!r}: você quis dizer {close!r}?",
    },
    "argument.missing_keyword": {
        "en": "missing required keyword argument {name!r} (see {params})",
        "pt_BR": "falta o argumento nomeado obrigatório {name!r} (veja {params})",
    },
    "argument.sale": {
        "en": (
            "sale must be a non-empty str of at most {max} printable characters: your key of "
            "the sale"
        ),
        "pt_BR": (
            "sale deve ser um str não vazio de no máximo {max} caracteres imprimíveis: a sua "
            "chave da venda"
        ),
    },
    "argument.motivo": {
        "en": "{campo} must be a non-empty str of at most {max} characters",
        "pt_BR": "{campo} deve ser um str não vazio de no máximo {max} caracteres",
    },
    "argument.required": {
        "en": "{campo} is required and cannot be empty",
        "pt_BR": "{campo} é obrigatório e não pode ser vazio",
    },
    "argument.not_a_string": {
        "en": "{campo} must be a string, not {type}",
        "pt_BR": "{campo} deve ser uma string, não {type}",
    },
    "argument.documento": {
        "en": (
            "{campo} {documento} is not a valid CPF (11 digits) or CNPJ (14 characters, numeric "
            "or alphanumeric): check the digits"
        ),
        "pt_BR": (
            "{campo} {documento} não é um CPF (11 dígitos) nem um CNPJ (14 caracteres, numérico "
            "ou alfanumérico) válido: confira os dígitos"
        ),
    },
    "argument.referencia": {
        "en": (
            "{campo} {referencia!r} must start with a UUID version 4 or 5 at its first character "
            "(optionally followed by -suffix), because some acquirers read only its first 10 "
            "characters, which time-ordered UUIDs (versions 1, 6, 7) and the nil UUID repeat: "
            "use smartpos.new_referencia() or smartpos.referencia_for(key), or build the client "
            "with strict_referencia=False for a legacy system"
        ),
        "pt_BR": (
            "{campo} {referencia!r} deve começar com um UUID versão 4 ou 5 já no primeiro "
            "caractere (opcionalmente seguido de -sufixo), porque alguns adquirentes leem só os "
            "10 primeiros caracteres, que se repetem nos UUIDs ordenados por tempo (versões 1, "
            "6, 7) e no UUID nulo: use smartpos.new_referencia() ou "
            "smartpos.referencia_for(key), ou crie o cliente com strict_referencia=False para "
            "um sistema legado"
        ),
    },
    "argument.valor_centavos": {
        "en": (
            "{campo} must be a positive integer number of cents (1590 for R$ 15,90; never a "
            "float); got {value!r}"
        ),
        "pt_BR": (
            "{campo} deve ser um número inteiro positivo de centavos (1590 para R$ 15,90; nunca "
            "um float); recebido {value!r}"
        ),
    },
    "argument.parcelas": {
        "en": (
            "{campo} must be a positive integer number of installments (never a float); got "
            "{value!r}"
        ),
        "pt_BR": (
            "{campo} deve ser um número inteiro positivo de parcelas (nunca um float); recebido "
            "{value!r}"
        ),
    },
    "argument.positive_int": {
        "en": "{campo} must be a positive integer; got {value!r}",
        "pt_BR": "{campo} deve ser um número inteiro positivo; recebido {value!r}",
    },
    "argument.one_of": {
        "en": "{campo} must be one of {allowed}; got {value!r}",
        "pt_BR": "{campo} deve ser um destes valores: {allowed}; recebido {value!r}",
    },
    "argument.instance": {
        "en": "{campo} must be a smartpos.{cls}, not {type}",
        "pt_BR": "{campo} deve ser um smartpos.{cls}, não {type}",
    },
    "argument.itens": {
        "en": "{campo} must be a sequence of smartpos.ItemComanda, not {type}",
        "pt_BR": "{campo} deve ser uma sequência de smartpos.ItemComanda, não {type}",
    },
    "argument.item": {
        "en": "{campo} must be a smartpos.ItemComanda(titulo=..., descricao=...), not {type}",
        "pt_BR": "{campo} deve ser um smartpos.ItemComanda(titulo=..., descricao=...), não {type}",
    },
    "argument.comprovante": {
        "en": "Comprovante.{name} must be True, False or None, not {type} {value!r}",
        "pt_BR": "Comprovante.{name} deve ser True, False ou None, não {type} {value!r}",
    },
    "argument.no_installments": {
        "en": "{forma} does not take installments: send parcelas=1 or omit it",
        "pt_BR": "{forma} não aceita parcelas: envie parcelas=1 ou omita o argumento",
    },
    "argument.needs_parcelamento": {
        "en": "credito with parcelas > 1 needs parcelamento (estabelecimento or administradora)",
        "pt_BR": "credito com parcelas > 1 exige parcelamento (estabelecimento ou administradora)",
    },
    "argument.smartpos_id_blank": {
        "en": (
            "{campo} is blank: pass the terminal's id, or omit smartpos_id to publish the card "
            "to the customer's terminals"
        ),
        "pt_BR": (
            "{campo} está em branco: passe o id do terminal, ou omita smartpos_id para publicar "
            "a comanda nos terminais do cliente"
        ),
    },
    "argument.imediato_needs_smartpos_id": {
        "en": (
            "{modo} imediato needs smartpos_id (the terminal that charges); use "
            "modo_execucao='manual' with a comanda to queue the charge for an operator instead"
        ),
        "pt_BR": (
            "{modo} imediato exige smartpos_id (o terminal que cobra); para deixar a cobrança "
            "na fila de um operador, use modo_execucao='manual' com uma comanda"
        ),
    },
    "argument.manual_needs_identificacao": {
        "en": "{modo} manual needs a comanda with identificacao (name, table, ticket)",
        "pt_BR": "{modo} manual exige uma comanda com identificacao (nome, mesa, ficha)",
    },
    "argument.manual_needs_comanda": {
        "en": (
            "{modo} manual needs comanda=smartpos.Comanda(identificacao=...) for the operator's "
            "queue"
        ),
        "pt_BR": (
            "{modo} manual exige comanda=smartpos.Comanda(identificacao=...) para a fila do "
            "operador"
        ),
    },
    "argument.refund_referencia": {
        "en": (
            "a refund's {campo} must not share its first 10 characters with the payment's (some "
            "acquirers read only those, and would take the refund for the payment): use "
            "smartpos.new_referencia() or smartpos.referencia_for(key)"
        ),
        "pt_BR": (
            "a {campo} de um estorno não pode ter os mesmos 10 primeiros caracteres que a do "
            "pagamento (alguns adquirentes leem só esses, e tomariam o estorno pelo pagamento): "
            "use smartpos.new_referencia() ou smartpos.referencia_for(key)"
        ),
    },
    "argument.not_an_approved_event": {
        "en": (
            "refunds.create_for needs the PagamentoAprovado event of the payment (tipo "
            "pagamento.aprovado); got {type}"
        ),
        "pt_BR": (
            "refunds.create_for precisa do evento PagamentoAprovado do pagamento (tipo "
            "pagamento.aprovado); recebido {type}"
        ),
    },
    "argument.event_without_autorizacao": {
        "en": (
            "the event {evento} has no {path}: it cannot be refunded through create_for; use "
            "refunds.create with the authorization data"
        ),
        "pt_BR": (
            "o evento {evento} não tem {path}: ele não pode ser estornado por create_for; use "
            "refunds.create com os dados da autorização"
        ),
    },
    "argument.event_without_smartpos_id": {
        "en": (
            "the event {evento} has no {path}: use refunds.create with the terminal that "
            "executed the payment"
        ),
        "pt_BR": (
            "o evento {evento} não tem {path}: use refunds.create com o terminal que executou o "
            "pagamento"
        ),
    },
    "argument.event_without_valor": {
        "en": "the event {evento} has no {path}: pass valor_centavos",
        "pt_BR": "o evento {evento} não tem {path}: passe valor_centavos",
    },
    "argument.more_than_approved": {
        "en": (
            "{campo} {valor} is more than the approved amount of the payment ({approved} cents): "
            "a refund cannot return more than was charged"
        ),
        "pt_BR": (
            "{campo} {valor} é maior que o valor aprovado do pagamento ({approved} centavos): um "
            "estorno não pode devolver mais do que foi cobrado"
        ),
    },
    "argument.conteudo_unencodable": {
        "en": (
            "conteudo holds a character UTF-8 cannot encode at position {position} (a lone "
            "surrogate such as '\\ud800'): fix the text, or pass the bytes to print"
        ),
        "pt_BR": (
            "conteudo tem um caractere que o UTF-8 não codifica na posição {position} (um "
            "surrogate isolado como '\\ud800'): corrija o texto, ou passe os bytes a imprimir"
        ),
    },
    "argument.conteudo_type": {
        "en": "conteudo must be bytes or str, not {type}",
        "pt_BR": "conteudo deve ser bytes ou str, não {type}",
    },
    # --- _calls: the request body ------------------------------------------------------------
    "call.unencodable": {
        "en": (
            "{campo} holds text that cannot be encoded as UTF-8 (a lone surrogate such as "
            "'\\ud800', often from bytes decoded with errors='surrogateescape'): fix the text"
        ),
        "pt_BR": (
            "{campo} tem um texto que não pode ser codificado em UTF-8 (um surrogate isolado "
            "como '\\ud800', muitas vezes vindo de bytes decodificados com "
            "errors='surrogateescape'): corrija o texto"
        ),
    },
    # --- _referencia -------------------------------------------------------------------------
    "referencia.suffix": {
        "en": (
            "referencia suffix must be non-empty and use only letters, digits, '_', '.', ':' or "
            "'-'; got {suffix!r}"
        ),
        "pt_BR": (
            "o sufixo da referencia não pode ser vazio e só pode ter letras, dígitos, '_', '.', "
            "':' ou '-'; recebido {suffix!r}"
        ),
    },
    "referencia.key_type": {
        "en": _REFERENCIA_FOR_EN + "; got {type}",
        "pt_BR": _REFERENCIA_FOR_PT + "; recebido {type}",
    },
    "referencia.key_empty": {
        "en": _REFERENCIA_FOR_EN + "; got an empty string",
        "pt_BR": _REFERENCIA_FOR_PT + "; recebida uma string vazia",
    },
    # --- _money ------------------------------------------------------------------------------
    "money.negative": {
        "en": (
            "{shown} is negative; an amount to charge or refund is positive (pass "
            "allow_negative=True for a balance or a difference)"
        ),
        "pt_BR": (
            "{shown} é negativo; um valor a cobrar ou estornar é positivo (passe "
            "allow_negative=True para um saldo ou uma diferença)"
        ),
    },
    "money.too_many_places": {
        "en": (
            "{shown} has more than 2 decimal places; centavos are whole: round it first the way "
            "your business rules say (e.g. value.quantize(Decimal('0.01'), ROUND_HALF_EVEN))"
        ),
        "pt_BR": (
            "{shown} tem mais de 2 casas decimais; centavos são inteiros: arredonde antes, como "
            "mandam as regras do seu negócio (por exemplo value.quantize(Decimal('0.01'), "
            "ROUND_HALF_EVEN))"
        ),
    },
    "money.not_finite": {
        "en": "{shown} is not a finite amount; " + _HINT_EN,
        "pt_BR": "{shown} não é um valor finito; " + _HINT_PT,
    },
    "money.too_large": {
        "en": "{shown} is too large to be an amount in reais",
        "pt_BR": "{shown} é grande demais para ser um valor em reais",
    },
    "money.ambiguous": {
        "en": (
            "{shown} is ambiguous: write '1.234,00' (or '1234') for a thousand reais and more; a "
            "decimal amount has at most 2 decimal places ('1,23' or '1.23')"
        ),
        "pt_BR": (
            "{shown} é ambíguo: escreva '1.234,00' (ou '1234') para mil reais ou mais; um valor "
            "decimal tem no máximo 2 casas decimais ('1,23' ou '1.23')"
        ),
    },
    "money.not_an_amount": {
        "en": "{shown} is not an amount in reais; " + _HINT_EN,
        "pt_BR": "{shown} não é um valor em reais; " + _HINT_PT,
    },
    "money.empty": {
        "en": "{shown} holds no amount; " + _HINT_EN,
        "pt_BR": "{shown} não contém nenhum valor; " + _HINT_PT,
    },
    "money.float": {
        "en": (
            "{shown} is a float, which cannot hold most amounts exactly (19.90 is "
            "19.899999...); " + _HINT_EN + ", e.g. Decimal(str(value)) if a float is all you have"
        ),
        "pt_BR": (
            "{shown} é um float, que não representa a maioria dos valores com exatidão (19.90 "
            "vira 19.899999...); "
            + _HINT_PT
            + ", por exemplo Decimal(str(value)) se um float é tudo o que você tem"
        ),
    },
    "money.bool": {
        "en": "{shown} is a bool, not an amount; " + _HINT_EN,
        "pt_BR": "{shown} é um bool, não um valor; " + _HINT_PT,
    },
    "money.type": {
        "en": "{type} is not an amount; " + _HINT_EN,
        "pt_BR": "{type} não é um valor; " + _HINT_PT,
    },
    "money.not_int": {
        "en": (
            "valor_centavos must be an int of centavos, not {type}; convert an amount in reais "
            "with smartpos.to_centavos() first"
        ),
        "pt_BR": (
            "valor_centavos deve ser um int de centavos, não {type}; converta antes um valor em "
            "reais com smartpos.to_centavos()"
        ),
    },
    # --- _config and the clients' constructors --------------------------------------------
    "config.no_api_key": {
        "en": (
            "no API key: pass api_key=... or set the SMARTPOS_API_KEY environment variable (the "
            "integration key generated in the partner portal)"
        ),
        "pt_BR": (
            "falta a chave de API: passe api_key=... ou defina a variável de ambiente "
            "SMARTPOS_API_KEY (a chave de integração gerada no portal do parceiro)"
        ),
    },
    "config.key_whitespace": {
        "en": "the API key has surrounding whitespace or a line break; copy it again",
        "pt_BR": "a chave de API tem espaços em volta ou uma quebra de linha; copie-a de novo",
    },
    "config.key_not_a_header": {
        "en": (
            "the API key cannot be sent as an HTTP header value: it has a line break, another "
            "control character or a non-ASCII character; copy it again from the partner portal"
        ),
        "pt_BR": (
            "a chave de API não pode ser enviada como valor de um cabeçalho HTTP: ela tem uma "
            "quebra de linha, outro caractere de controle ou um caractere não ASCII; copie-a de "
            "novo do portal do parceiro"
        ),
    },
    "config.key_is_a_url": {
        "en": "the API key looks like a URL" + _SWAPPED_EN,
        "pt_BR": "a chave de API parece uma URL" + _SWAPPED_PT,
    },
    "config.base_url_is_the_key": {
        "en": "base_url is the API key" + _SWAPPED_EN,
        "pt_BR": "base_url é a chave de API" + _SWAPPED_PT,
    },
    "config.base_url_invalid": {"en": _BASE_URL_INVALID_EN, "pt_BR": _BASE_URL_INVALID_PT},
    "config.base_url_invalid_swapped": {
        "en": _BASE_URL_INVALID_EN + _SWAPPED_EN,
        "pt_BR": _BASE_URL_INVALID_PT + _SWAPPED_PT,
    },
    "config.base_url_not_absolute": {"en": _BASE_URL_ABSOLUTE_EN, "pt_BR": _BASE_URL_ABSOLUTE_PT},
    "config.base_url_not_absolute_swapped": {
        "en": _BASE_URL_ABSOLUTE_EN + _SWAPPED_EN,
        "pt_BR": _BASE_URL_ABSOLUTE_PT + _SWAPPED_PT,
    },
    "config.base_url_query": {
        "en": (
            "base_url must not have a query string or a fragment ('?' or '#'): pass only scheme, "
            "host and path, such as https://host/api"
        ),
        "pt_BR": (
            "base_url não pode ter query string nem fragmento ('?' ou '#'): passe só esquema, "
            "host e caminho, como https://host/api"
        ),
    },
    "config.no_base_url": {
        "en": "no base URL: pass base_url=... or set the SMARTPOS_BASE_URL environment variable",
        "pt_BR": (
            "falta a URL base: passe base_url=... ou defina a variável de ambiente "
            "SMARTPOS_BASE_URL"
        ),
    },
    "config.timeout": {
        "en": "timeout must be a positive number of seconds, finite, or an httpx.Timeout",
        "pt_BR": "timeout deve ser um número positivo de segundos, finito, ou um httpx.Timeout",
    },
    "config.headers": {
        "en": "headers must be a mapping of header names (str tokens) to str values",
        "pt_BR": (
            "headers deve ser um mapeamento de nomes de cabeçalho (tokens str) para valores str"
        ),
    },
    "config.header_reserved": {
        "en": (
            "header {name} cannot be set through headers=: the SDK sets the credentials and "
            "the body's framing itself (pass a different api_key for another key)"
        ),
        "pt_BR": (
            "o cabeçalho {name} não pode ser definido em headers=: o SDK define as credenciais e "
            "o enquadramento do corpo por conta própria (passe outro api_key para outra chave)"
        ),
    },
    "config.header_value": {
        "en": "the value of header {name} must be a str of printable ASCII, with no line break",
        "pt_BR": (
            "o valor do cabeçalho {name} deve ser um str de ASCII imprimível, sem quebra de linha"
        ),
    },
    "config.max_retries": {
        "en": "max_retries must be an integer >= 0 (0 disables retries)",
        "pt_BR": "max_retries deve ser um inteiro >= 0 (0 desliga as novas tentativas)",
    },
    "config.seconds": {
        "en": "{name} must be a finite number of seconds >= 0",
        "pt_BR": "{name} deve ser um número finito de segundos >= 0",
    },
    "config.retry_backoff": {
        "en": "retry_backoff must be a finite number of seconds >= 0",
        "pt_BR": "retry_backoff deve ser um número finito de segundos >= 0",
    },
    "config.lang": {
        "en": (
            "lang must be 'en', 'pt_BR' or None (the SMARTPOS_LANG environment variable), not "
            "{value!r}"
        ),
        "pt_BR": (
            "lang deve ser 'en', 'pt_BR' ou None (a variável de ambiente SMARTPOS_LANG), não "
            "{value!r}"
        ),
    },
    "client.http_client_and_transport": {
        "en": "pass http_client or transport, not both",
        "pt_BR": "passe http_client ou transport, não os dois",
    },
    "client.http_client_type": {
        "en": "http_client must be an {expected}, not {type}",
        "pt_BR": "http_client deve ser um {expected}, não {type}",
    },
    "client.transport_sync": {
        "en": _TRANSPORT_EN + " is a sync transport",
        "pt_BR": _TRANSPORT_PT + " é um transport síncrono",
    },
    "client.transport_async": {
        "en": _TRANSPORT_EN + " is an async transport",
        "pt_BR": _TRANSPORT_PT + " é um transport assíncrono",
    },
    "client.not_a_transport": {
        "en": _TRANSPORT_EN + " is not an httpx transport",
        "pt_BR": _TRANSPORT_PT + " não é um transport do httpx",
    },
    # --- _core: sending ----------------------------------------------------------------------
    "call.closed": {
        "en": (
            "{where} was not sent: the client is closed (or the http_client it uses is); build "
            "a new client"
        ),
        "pt_BR": (
            "{where} não foi enviado: o cliente está fechado (ou o http_client que ele usa "
            "está); crie um novo cliente"
        ),
    },
    "call.interrupted": {
        "en": (
            "smartpos: {where} was interrupted after it may have reached the service: the "
            "outcome of referencia {referencia} is unknown. Do not retry with a new referencia; "
            "wait for the webhook event carrying this referencia."
        ),
        "pt_BR": (
            "smartpos: {where} foi interrompido depois de talvez ter chegado ao serviço: o "
            "resultado da referencia {referencia} é desconhecido. Não tente de novo com uma nova "
            "referencia; espere o evento de webhook com esta referencia."
        ),
    },
    "call.failed": {
        "en": "{where} failed after {attempts} attempt(s): {cause}",
        "pt_BR": "{where} falhou após {attempts} tentativa(s): {cause}",
    },
    # --- _responses and _core: answers ------------------------------------------------------
    "response.unreadable_exception": {
        "en": "{where} answered {status} with a body the SDK cannot read ({type})",
        "pt_BR": "{where} respondeu {status} com um corpo que o SDK não consegue ler ({type})",
    },
    "response.not_json": {
        "en": (
            "{where} answered {status} with a body that is not JSON ({content_type}, {size} bytes)"
        ),
        "pt_BR": (
            "{where} respondeu {status} com um corpo que não é JSON ({content_type}, {size} bytes)"
        ),
    },
    "response.not_json_no_type": {
        "en": "{where} answered {status} with a body that is not JSON (no content-type, {size} "
        "bytes)",
        "pt_BR": "{where} respondeu {status} com um corpo que não é JSON (sem content-type, "
        "{size} bytes)",
    },
    "response.unreadable": {
        "en": "{where} answered {status} with a body the SDK cannot read: {problem}",
        "pt_BR": "{where} respondeu {status} com um corpo que o SDK não consegue ler: {problem}",
    },
    "response.other_referencia": {
        "en": (
            "{where} answered {status} for referencia {echoed!r}, not for the referencia sent, "
            "{sent}"
        ),
        "pt_BR": (
            "{where} respondeu {status} para a referencia {echoed!r}, não para a referencia "
            "enviada, {sent}"
        ),
    },
    "response.refund_not_an_object": {
        "en": "POST /v1/refunds answered {status} with JSON that is not an object",
        "pt_BR": "POST /v1/refunds respondeu {status} com um JSON que não é um objeto",
    },
    "response.no_terminals": {
        "en": "GET {path} answered {status} with a body that holds no list of terminals",
        "pt_BR": "GET {path} respondeu {status} com um corpo sem nenhuma lista de terminais",
    },
    # --- _errors -----------------------------------------------------------------------------
    "error.outcome_unknown": {
        "en": (
            "the outcome of referencia {referencia} is unknown after {attempts} attempt(s) (last "
            "error: {last}). The service may have accepted it: do not retry with a new "
            "referencia; wait for the webhook event carrying this referencia."
        ),
        "pt_BR": (
            "o resultado da referencia {referencia} é desconhecido após {attempts} tentativa(s) "
            "(último erro: {last}). O serviço pode tê-la aceitado: não tente de novo com uma "
            "nova referencia; espere o evento de webhook com esta referencia."
        ),
    },
    "sale.above_remaining": {
        "en": (
            "valor_centavos {valor} is above what remains of the sale ({remaining} centavos); "
            "charge at most what remains; nothing was sent"
        ),
        "pt_BR": (
            "valor_centavos {valor} é maior que o restante da venda ({remaining} centavos); "
            "cobre no máximo o restante; nada foi enviado"
        ),
    },
    "sale.other_total": {
        "en": (
            "total_centavos {wanted} differs from the total of sale {sale!r} ({total}), fixed "
            "by its first attempt: leave total_centavos out or pass {total}; nothing was sent"
        ),
        "pt_BR": (
            "total_centavos {wanted} difere do total da venda {sale!r} ({total}), fixado pela "
            "primeira tentativa: omita total_centavos ou passe {total}; nada foi enviado"
        ),
    },
    "sale.attempt_refused": {
        "en": (
            "referencia {referencia} is an attempt of sale {sale!r} the service surely did not "
            "accept: it is never sent again (the sale may have been charged since); charge the "
            "sale under a new referencia (smartpos.new_referencia()), where its rules apply; "
            "nothing was sent"
        ),
        "pt_BR": (
            "a referencia {referencia} é uma tentativa da venda {sale!r} que o serviço "
            "certamente não aceitou: ela nunca é enviada de novo (a venda pode ter sido cobrada "
            "desde então); cobre a venda com uma nova referencia (smartpos.new_referencia()), "
            "onde as regras dela se aplicam; nada foi enviado"
        ),
    },
    "sale.attempt_abandoned": {
        "en": (
            "referencia {referencia} is an attempt of sale {sale!r} that was abandoned before "
            "its outcome was known: it is never sent again (on the terminal it would be a new "
            "charge); its late approval, if any, is a pending item that client.compensate "
            "refunds; charge the sale under a new referencia; nothing was sent"
        ),
        "pt_BR": (
            "a referencia {referencia} é uma tentativa da venda {sale!r} abandonada antes de "
            "seu desfecho ser conhecido: ela nunca é enviada de novo (no terminal seria uma nova "
            "cobrança); uma aprovação atrasada dela é uma pendência que client.compensate "
            "estorna; cobre a venda com uma nova referencia; nada foi enviado"
        ),
    },
    "sale.unknown": {
        "en": "the store knows no sale {sale!r}: check the sale key",
        "pt_BR": "o store não conhece a venda {sale!r}: confira a chave da venda",
    },
    "sale.total_without_sale": {
        "en": "total_centavos needs sale=: it is the total of a sale paid by several attempts",
        "pt_BR": (
            "total_centavos precisa de sale=: é o total de uma venda paga por várias tentativas"
        ),
    },
    "sale.needs_store": {
        "en": (
            "sale= needs a client with a store (Client(store=...)): the sale's attempts are "
            "journaled there; nothing was sent"
        ),
        "pt_BR": (
            "sale= precisa de um cliente com store (Client(store=...)): as tentativas da venda "
            "são registradas nele; nada foi enviado"
        ),
    },
    "error.attempt_abandoned": {
        "en": (
            "the attempt was abandoned while it was awaited (sale {sale!r}): its event is not "
            "counted toward the sale; a late approval is refunded by client.compensate"
        ),
        "pt_BR": (
            "a tentativa foi abandonada enquanto era esperada (venda {sale!r}): o evento dela "
            "não conta para a venda; uma aprovação atrasada é estornada por client.compensate"
        ),
    },
    "error.sale_in_progress": {
        "en": (
            "sale {sale!r} has an open attempt, referencia {referencia}: wait for its outcome "
            "(client.wait) or abandon it (client.abandon) before charging again; nothing was sent"
        ),
        "pt_BR": (
            "a venda {sale!r} tem uma tentativa em aberto, referencia {referencia}: espere o "
            "desfecho dela (client.wait) ou abandone-a (client.abandon) antes de cobrar de novo; "
            "nada foi enviado"
        ),
    },
    "error.sale_paid": {
        "en": "sale {sale!r} is paid ({approved} centavos approved): nothing was sent",
        "pt_BR": "a venda {sale!r} está paga ({approved} centavos aprovados): nada foi enviado",
    },
    "error.terminal_busy": {
        "en": (
            "terminal {smartpos_id} is busy with the attempt of referencia {referencia}: wait "
            "for its outcome or abandon it; nothing was sent"
        ),
        "pt_BR": (
            "o terminal {smartpos_id} está ocupado com a tentativa da referencia {referencia}: "
            "espere o desfecho dela ou abandone-a; nada foi enviado"
        ),
    },
    "error.operation_rejected": {
        "en": (
            "the service did not accept the request of referencia {referencia} (the journal "
            "holds it as rejected): no event will come and nothing was charged. Fix the request "
            "and send it again under a new referencia"
        ),
        "pt_BR": (
            "o serviço não aceitou a requisição da referencia {referencia} (o diário a registra "
            "como rejeitada): nenhum evento virá e nada foi cobrado. Corrija a requisição e "
            "envie de novo com uma nova referencia"
        ),
    },
    # An APIError's framing around the service's own words (mensagem, acao), which stay as
    # they came: "HTTP 400 CODIGO: mensagem (campo x). What to do: acao [request id r]".
    "error.what_to_do": {"en": ". What to do: {acao}", "pt_BR": ". O que fazer: {acao}"},
    "error.request_id": {
        "en": " [request id {request_id}]",
        "pt_BR": " [id da requisição {request_id}]",
    },
    "error.service_failed": {
        "en": "the service failed; try again later",
        "pt_BR": "o serviço falhou; tente de novo mais tarde",
    },
    "error.too_many_requests": {
        "en": "too many requests; slow down and try again later",
        "pt_BR": "requisições demais; diminua o ritmo e tente de novo mais tarde",
    },
    "error.refused": {
        "en": "the service refused the request",
        "pt_BR": "o serviço recusou a requisição",
    },
}

# The messages of the webhooks, the integrations and the outcomes, kept in their own module.
CATALOG.update(OTHERS)
CATALOG.update(CLI)
CATALOG.update(CONFORMANCE)
