"""The request rules of the service: every 400 check, written from the spec as raw dicts.

Each ``check_*`` function takes the decoded JSON body and either returns the typed request or
raises `Reject` with the spec's ``codigo``. Checks run in a fixed order, first failure
wins: required fields, then types and formats, then value rules, then mode rules. Checks that
need the world (customer, ownership, webhook, terminal, duplicates) are the sandbox's.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from typing import Any

import attrs

__all__ = [
    "FORMAS_PAGAMENTO",
    "MAX_CONTEUDO_BYTES",
    "MAX_ITENS",
    "MAX_PARCELAS",
    "MAX_REFERENCIA",
    "MAX_TEXTO",
    "MAX_VALOR_CENTAVOS",
    "MODOS_EXECUCAO",
    "PARCELAMENTOS",
    "PaymentRequest",
    "PrintRequest",
    "QRCodeRequest",
    "RefundRequest",
    "Reject",
    "check_payment",
    "check_print",
    "check_qrcode",
    "check_refund",
    "decode_json",
    "is_referencia",
]

MAX_VALOR_CENTAVOS = 100_000_000
"""Largest accepted ``valorCentavos`` (R$ 1.000.000,00); the spec has a limit but not its value."""
MAX_PARCELAS = 24
"""Largest accepted ``parcelas``; the spec has a limit but not its value."""
MAX_REFERENCIA = 100
"""Longest accepted ``referencia`` in characters."""
MAX_TEXTO = 255
"""Longest accepted free text (``smartposId``, ``comanda.*``, ``pagamentoOriginal.*``)."""
MAX_ITENS = 100
"""Most ``comanda.itens`` accepted."""
MAX_CONTEUDO_BYTES = 512 * 1024
"""Largest decoded print content in bytes."""

FORMAS_PAGAMENTO = frozenset({"credito", "debito", "pix", "voucher"})
PARCELAMENTOS = frozenset({"estabelecimento", "administradora"})
MODOS_EXECUCAO = frozenset({"imediato", "manual"})

_REFERENCIA = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"(?:-[0-9A-Za-z_.:-]+)?"
)

_MESSAGES: dict[str, tuple[int, str, str]] = {
    "CAMPO_OBRIGATORIO": (
        400,
        "Campo obrigatório ausente ou vazio.",
        "Envie o campo indicado em erro.campo.",
    ),
    "CAMPO_INVALIDO": (
        400,
        "Campo com tipo, tamanho ou formato inválido.",
        "Corrija o campo indicado em erro.campo.",
    ),
    "DOCUMENTO_CLIENTE_INVALIDO": (
        400,
        "documentoCliente não é um CPF/CNPJ válido ou o cliente não foi encontrado.",
        "Envie o CPF ou CNPJ de um cliente cadastrado, de preferência só com dígitos.",
    ),
    "VALOR_INVALIDO": (
        400,
        "valorCentavos ou parcelas não é um inteiro positivo dentro do limite aceito.",
        "Envie um inteiro positivo dentro do limite aceito.",
    ),
    "FORMA_PAGAMENTO_INVALIDA": (
        400,
        "formaPagamento, parcelas e parcelamento não formam uma combinação aceita.",
        "Revise formaPagamento, parcelas e parcelamento.",
    ),
    "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO": (
        400,
        "smartposId é obrigatório no modo imediato.",
        "Envie o smartposId do terminal ou use modoExecucao manual.",
    ),
    "COMANDA_OBRIGATORIA_MODO_MANUAL": (
        400,
        "comanda é obrigatória no modo manual.",
        "Envie comanda.identificacao.",
    ),
    "WEBHOOK_NAO_CONFIGURADO": (
        400,
        "O parceiro não tem URL de webhook configurada.",
        "Configure a URL de webhook no portal do parceiro.",
    ),
    "API_KEY_NAO_INFORMADA": (
        401,
        "Header x-api-key não informado.",
        "Envie o header x-api-key com a chave de integração.",
    ),
    "API_KEY_INVALIDA": (
        401,
        "Chave de integração inexistente, rotacionada ou inativa.",
        "Use a chave ativa gerada no portal do parceiro.",
    ),
    "CLIENTE_NAO_AUTORIZADO": (
        403,
        "A chave não autoriza operações para este cliente.",
        "Use a chave do parceiro ao qual o cliente pertence.",
    ),
    "SMARTPOS_NAO_ENCONTRADO": (
        404,
        "smartposId não pertence ao cliente ou não está vinculado.",
        "Vincule o terminal pelo QR code ou consulte os terminais do cliente.",
    ),
    "REFERENCIA_DUPLICADA": (
        409,
        "referencia já usada em uma tentativa anterior.",
        "Para conciliar, reutilize o resultado salvo; para nova tentativa, gere nova referencia.",
    ),
    "ERRO_INTERNO": (
        500,
        "Falha inesperada.",
        "Aguarde o evento da operação antes de tentar de novo com a mesma referencia.",
    ),
    # Not in the spec: the sandbox's own codes where the spec shows none (docs/en/testing.md).
    "PAGAMENTO_ORIGINAL_NAO_ENCONTRADO": (
        404,
        "Nenhum pagamento aprovado corresponde a pagamentoOriginal neste cliente e terminal.",
        "Copie pagamentoOriginal de dados.autorizacao do evento pagamento.aprovado.",
    ),
    "RECURSO_NAO_ENCONTRADO": (404, "Caminho não encontrado.", "Confira o método e o caminho."),
    "METODO_NAO_PERMITIDO": (405, "Método não permitido.", "Use o método indicado em Allow."),
    "CONTENT_TYPE_INVALIDO": (
        415,
        "Content-Type deve ser application/json.",
        "Envie o header Content-Type: application/json.",
    ),
    "PAYLOAD_MUITO_GRANDE": (413, "Corpo da requisição grande demais.", "Reduza o corpo."),
    "TEMPO_REQUISICAO_ESGOTADO": (
        408,
        "A requisição não chegou inteira a tempo.",
        "Envie o cabeçalho e o corpo da requisição sem pausas.",
    ),
    "CABECALHOS_MUITO_GRANDES": (
        431,
        "Cabeçalhos da requisição grandes demais.",
        "Envie no máximo 100 cabeçalhos e 16 KiB de linha de requisição e cabeçalhos.",
    ),
    "LIMITE_REQUISICOES": (
        429,
        "Limite de requisições excedido.",
        "Aguarde o tempo indicado em Retry-After.",
    ),
}


class Reject(Exception):
    """An error answer of the service: HTTP status and the ``erro`` body.

    Args:
        codigo: The ``erro.codigo``; its status, mensagem and acao come from the table above.
        campo: The ``erro.campo``, the offending field as a path (``comanda.identificacao``).
        mensagem: Overrides the default ``erro.mensagem``.
        headers: Extra response headers (``Allow``, ``Retry-After``).
    """

    def __init__(
        self,
        codigo: str,
        campo: str | None = None,
        *,
        mensagem: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        status, default_mensagem, acao = _MESSAGES[codigo]
        self.status = status
        self.codigo = codigo
        self.campo = campo
        self.mensagem = mensagem or default_mensagem
        self.acao = acao
        self.headers = dict(headers or {})
        super().__init__(f"{status} {codigo}" + (f" ({campo})" if campo else ""))

    def body(self) -> dict[str, Any]:
        """Return the ``{"erro": {...}}`` JSON body.

        Returns:
            The error body, with ``campo`` only when there is one.
        """
        erro: dict[str, Any] = {"codigo": self.codigo, "mensagem": self.mensagem, "acao": self.acao}
        if self.campo is not None:
            erro["campo"] = self.campo
        return {"erro": erro}


def is_referencia(value: str) -> bool:
    """Tell whether ``value`` follows spec 2.6: a UUID from char 0, optionally ``-suffix``.

    Args:
        value: The referencia.

    Returns:
        ``True`` when it is UUID-first and not longer than `MAX_REFERENCIA`.
    """
    return len(value) <= MAX_REFERENCIA and _REFERENCIA.fullmatch(value) is not None


def decode_json(content: bytes) -> dict[str, Any]:
    """Decode a request body that must be a JSON object.

    Args:
        content: The raw body.

    Returns:
        The object.

    Raises:
        Reject: ``CAMPO_INVALIDO`` for malformed JSON or JSON that is not an object.
    """
    try:
        data = _DECODER.decode(content.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Reject("CAMPO_INVALIDO", "$", mensagem="O corpo não é JSON válido.") from None
    if not isinstance(data, dict):
        raise Reject("CAMPO_INVALIDO", "$", mensagem="O corpo deve ser um objeto JSON.")
    problem = _first_problem(data)
    if problem is not None:
        campo, what = problem
        raise Reject("CAMPO_INVALIDO", campo, mensagem=f"{campo}: {what}.")
    return data


class _NotJSON:
    """What ``NaN``, ``Infinity`` and ``-Infinity`` decode to: found and refused by path."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


_DECODER = json.JSONDecoder(parse_constant=_NotJSON)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _first_problem(data: dict[str, Any]) -> tuple[str, str] | None:
    """The path (``comanda.itens[0].titulo``) and kind of the first value JSON does not allow.

    ``NaN``/``Infinity`` are not JSON (RFC 8259) and a lone surrogate is not text; Python's
    decoder accepts both. Walked without recursion: a deep body cannot overflow the stack.
    """
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _NotJSON):
            return path or "$", f"{value.name} não é JSON"
        if isinstance(value, str) and _has_surrogate(value):
            return path or "$", "texto com surrogate isolado (não é Unicode válido)"
        if isinstance(value, dict):
            for key, item in reversed(list(value.items())):
                if _has_surrogate(key):
                    return path or "$", "chave com surrogate isolado (não é Unicode válido)"
                stack.append((f"{path}.{key}" if path else key, item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item) for i, item in reversed(list(enumerate(value))))
    return None


def _absent(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _required(obj: Mapping[str, Any], key: str, campo: str) -> None:
    if _absent(obj.get(key)):
        raise Reject("CAMPO_OBRIGATORIO", campo, mensagem=f"Campo obrigatório: {campo}.")


def _text(obj: Mapping[str, Any], key: str, campo: str, limit: int = MAX_TEXTO) -> str | None:
    """Return an optional string field; ``None`` when absent or empty."""
    value = obj.get(key)
    if _absent(value):
        return None
    if not isinstance(value, str):
        raise Reject("CAMPO_INVALIDO", campo, mensagem=f"{campo} deve ser texto.")
    if len(value) > limit:
        raise Reject("CAMPO_INVALIDO", campo, mensagem=f"{campo} excede {limit} caracteres.")
    return value


def _referencia(obj: Mapping[str, Any]) -> str:
    value = _text(obj, "referencia", "referencia", MAX_REFERENCIA)
    if value is None or not is_referencia(value):
        raise Reject(
            "CAMPO_INVALIDO",
            "referencia",
            mensagem="referencia deve começar por um UUID (formato <uuid> ou <uuid>-<sufixo>).",
        )
    return value


def _positive_int(obj: Mapping[str, Any], key: str, limit: int) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    # bool is an int in Python but not in JSON; 5.0 and "5" are not integers either.
    if type(value) is not int or not 0 < value <= limit:
        raise Reject(
            "VALOR_INVALIDO",
            key,
            mensagem=f"{key} deve ser um inteiro positivo até {limit}.",
        )
    return value


def _object(obj: Mapping[str, Any], key: str, campo: str) -> Mapping[str, Any] | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise Reject("CAMPO_INVALIDO", campo, mensagem=f"{campo} deve ser um objeto.")
    return value


def _boolean(obj: Mapping[str, Any], key: str, campo: str) -> None:
    value = obj.get(key)
    if value is not None and not isinstance(value, bool):
        raise Reject("CAMPO_INVALIDO", campo, mensagem=f"{campo} deve ser booleano.")


@attrs.frozen
class QRCodeRequest:
    """A checked ``POST /qrcode`` body."""

    documento_cliente: str
    referencia: str | None


@attrs.frozen
class PaymentRequest:
    """A checked ``POST /v1/payments`` body; ``body`` is the JSON as received."""

    referencia: str
    documento_cliente: str
    valor_centavos: int
    modo_execucao: str
    smartpos_id: str | None
    forma_pagamento: str | None
    parcelas: int | None
    parcelamento: str | None
    identificacao: str | None
    body: Mapping[str, Any]


@attrs.frozen
class RefundRequest:
    """A checked ``POST /v1/refunds`` body."""

    referencia: str
    documento_cliente: str
    smartpos_id: str
    valor_centavos: int
    codigo_autorizacao: str
    numero_transacao: str
    dados_finalizacao: str
    tipo_pagamento: str


@attrs.frozen
class PrintRequest:
    """A checked ``POST /v1/print-jobs`` body."""

    referencia: str
    documento_cliente: str
    smartpos_id: str
    conteudo: bytes


def check_qrcode(body: Mapping[str, Any]) -> QRCodeRequest:
    """Check a ``POST /qrcode`` body.

    Args:
        body: The decoded JSON object.

    Returns:
        The typed request (``referencia`` may be ``None``; the sandbox then makes one).

    Raises:
        Reject: ``CAMPO_OBRIGATORIO`` without ``documentoCliente``; ``CAMPO_INVALIDO`` for a
            field that is not text.
    """
    _required(body, "documentoCliente", "documentoCliente")
    documento = _text(body, "documentoCliente", "documentoCliente")
    assert documento is not None
    # The spec only says the referencia is echoed back: any text is accepted here.
    referencia = _text(body, "referencia", "referencia", MAX_REFERENCIA)
    return QRCodeRequest(documento, referencia)


def _comanda(body: Mapping[str, Any], manual: bool) -> str | None:
    comanda = _object(body, "comanda", "comanda")
    if comanda is None:
        if manual:
            raise Reject("COMANDA_OBRIGATORIA_MODO_MANUAL", "comanda")
        return None
    identificacao = _text(comanda, "identificacao", "comanda.identificacao")
    if identificacao is None:
        # Spec 2.2: identificacao is required whenever comanda is sent, in either mode.
        if manual:
            raise Reject("COMANDA_OBRIGATORIA_MODO_MANUAL", "comanda.identificacao")
        raise Reject(
            "CAMPO_OBRIGATORIO",
            "comanda.identificacao",
            mensagem="comanda.identificacao é obrigatório quando comanda é enviada.",
        )
    _text(comanda, "endereco", "comanda.endereco")
    itens = comanda.get("itens")
    if itens is not None:
        if not isinstance(itens, list) or len(itens) > MAX_ITENS:
            raise Reject("CAMPO_INVALIDO", "comanda.itens", mensagem="comanda.itens inválido.")
        for index, item in enumerate(itens):
            campo = f"comanda.itens[{index}]"
            if not isinstance(item, dict):
                raise Reject("CAMPO_INVALIDO", campo, mensagem=f"{campo} deve ser um objeto.")
            _text(item, "titulo", f"{campo}.titulo")
            _text(item, "descricao", f"{campo}.descricao")
    return identificacao


def _comprovante(body: Mapping[str, Any]) -> None:
    comprovante = _object(body, "comprovante", "comprovante")
    if comprovante is None:
        return
    for group in ("imprimir", "visualizar"):
        part = _object(comprovante, group, f"comprovante.{group}")
        if part is not None:
            for who in ("cliente", "loja"):
                _boolean(part, who, f"comprovante.{group}.{who}")


def check_payment(body: Mapping[str, Any]) -> PaymentRequest:
    """Check a ``POST /v1/payments`` body (spec 2.1, 2.2, 2.3, 2.6 and section 7).

    Args:
        body: The decoded JSON object.

    Returns:
        The typed request.

    Raises:
        Reject: The first rule broken, in this order: ``CAMPO_OBRIGATORIO`` (referencia,
            documentoCliente, valorCentavos, modoExecucao); ``CAMPO_INVALIDO`` (types,
            referencia format, modoExecucao value); ``VALOR_INVALIDO`` (valorCentavos,
            parcelas); ``FORMA_PAGAMENTO_INVALIDA``; ``SMARTPOS_OBRIGATORIO_MODO_IMEDIATO``;
            ``COMANDA_OBRIGATORIA_MODO_MANUAL``; inside comanda/comprovante ``CAMPO_INVALIDO``,
            or ``CAMPO_OBRIGATORIO`` for a comanda without identificacao in imediato mode.
    """
    for key in ("referencia", "documentoCliente", "valorCentavos", "modoExecucao"):
        _required(body, key, key)
    referencia = _referencia(body)
    documento = _text(body, "documentoCliente", "documentoCliente")
    assert documento is not None
    valor = _positive_int(body, "valorCentavos", MAX_VALOR_CENTAVOS)
    assert valor is not None
    modo = _text(body, "modoExecucao", "modoExecucao")
    if modo not in MODOS_EXECUCAO:
        raise Reject(
            "CAMPO_INVALIDO", "modoExecucao", mensagem="modoExecucao deve ser imediato ou manual."
        )
    smartpos_id = _text(body, "smartposId", "smartposId")
    parcelas = _positive_int(body, "parcelas", MAX_PARCELAS)
    forma = _text(body, "formaPagamento", "formaPagamento")
    parcelamento = _text(body, "parcelamento", "parcelamento")
    if forma is not None and forma not in FORMAS_PAGAMENTO:
        raise Reject("FORMA_PAGAMENTO_INVALIDA", "formaPagamento")
    if parcelamento is not None and parcelamento not in PARCELAMENTOS:
        raise Reject("FORMA_PAGAMENTO_INVALIDA", "parcelamento")
    if parcelas is not None and parcelas > 1:
        if forma == "credito" and parcelamento is None:
            raise Reject(
                "FORMA_PAGAMENTO_INVALIDA",
                "parcelamento",
                mensagem="parcelamento é obrigatório para credito com mais de uma parcela.",
            )
        if forma in ("debito", "pix", "voucher"):
            raise Reject(
                "FORMA_PAGAMENTO_INVALIDA",
                "parcelas",
                mensagem=f"{forma} não aceita mais de uma parcela.",
            )
    if modo == "imediato" and smartpos_id is None:
        raise Reject("SMARTPOS_OBRIGATORIO_MODO_IMEDIATO", "smartposId")
    identificacao = _comanda(body, manual=modo == "manual")
    _comprovante(body)
    return PaymentRequest(
        referencia=referencia,
        documento_cliente=documento,
        valor_centavos=valor,
        modo_execucao=modo,
        smartpos_id=smartpos_id,
        forma_pagamento=forma,
        parcelas=parcelas,
        parcelamento=parcelamento,
        identificacao=identificacao,
        body=body,
    )


def check_refund(body: Mapping[str, Any]) -> RefundRequest:
    """Check a ``POST /v1/refunds`` body (spec 2.4; its errors are the sandbox's choice).

    Args:
        body: The decoded JSON object.

    Returns:
        The typed request.

    Raises:
        Reject: ``CAMPO_OBRIGATORIO`` (with ``campo``) for a missing field, ``CAMPO_INVALIDO``
            for a wrong type or format, ``VALOR_INVALIDO`` for ``valorCentavos``.
    """
    for key in ("referencia", "documentoCliente", "smartposId", "valorCentavos"):
        _required(body, key, key)
    original = body.get("pagamentoOriginal")
    if original is None:
        raise Reject("CAMPO_OBRIGATORIO", "pagamentoOriginal")
    if not isinstance(original, dict):
        raise Reject("CAMPO_INVALIDO", "pagamentoOriginal", mensagem="Deve ser um objeto.")
    keys = ("codigoAutorizacao", "numeroTransacao", "dadosFinalizacao", "tipoPagamento")
    for key in keys:
        _required(original, key, f"pagamentoOriginal.{key}")
    referencia = _referencia(body)
    documento = _text(body, "documentoCliente", "documentoCliente")
    smartpos_id = _text(body, "smartposId", "smartposId")
    valor = _positive_int(body, "valorCentavos", MAX_VALOR_CENTAVOS)
    values = [_text(original, key, f"pagamentoOriginal.{key}") for key in keys]
    assert documento is not None
    assert smartpos_id is not None
    assert valor is not None
    codigo, numero, dados, tipo = (v or "" for v in values)
    return RefundRequest(referencia, documento, smartpos_id, valor, codigo, numero, dados, tipo)


def check_print(body: Mapping[str, Any]) -> PrintRequest:
    """Check a ``POST /v1/print-jobs`` body (spec 2.5 and section 7).

    Args:
        body: The decoded JSON object.

    Returns:
        The typed request with the decoded content.

    Raises:
        Reject: ``CAMPO_OBRIGATORIO`` (referencia, documentoCliente, smartposId, conteudo.tipo,
            conteudo.base64); ``CAMPO_INVALIDO`` for a type, a referencia format, a
            ``conteudo.tipo`` other than ``base64``, content that is not Base64 or too large.
    """
    for key in ("referencia", "documentoCliente", "smartposId"):
        _required(body, key, key)
    conteudo = _object(body, "conteudo", "conteudo")
    if conteudo is None:
        raise Reject("CAMPO_OBRIGATORIO", "conteudo.tipo", mensagem="Campo obrigatório: conteudo.")
    _required(conteudo, "tipo", "conteudo.tipo")
    _required(conteudo, "base64", "conteudo.base64")
    referencia = _referencia(body)
    documento = _text(body, "documentoCliente", "documentoCliente")
    smartpos_id = _text(body, "smartposId", "smartposId")
    assert documento is not None
    assert smartpos_id is not None
    if _text(conteudo, "tipo", "conteudo.tipo") != "base64":
        raise Reject("CAMPO_INVALIDO", "conteudo.tipo", mensagem="conteudo.tipo deve ser base64.")
    encoded = conteudo["base64"]
    if not isinstance(encoded, str):
        raise Reject("CAMPO_INVALIDO", "conteudo.base64", mensagem="Deve ser texto Base64.")
    too_large = Reject("CAMPO_INVALIDO", "conteudo.base64", mensagem="Conteúdo grande demais.")
    if len(encoded) > (MAX_CONTEUDO_BYTES + 2) // 3 * 4:
        raise too_large
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise Reject(
            "CAMPO_INVALIDO", "conteudo.base64", mensagem="conteudo.base64 não é Base64 válido."
        ) from None
    if len(data) > MAX_CONTEUDO_BYTES:
        raise too_large
    return PrintRequest(referencia, documento, smartpos_id, data)
