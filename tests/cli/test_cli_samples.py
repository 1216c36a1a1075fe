"""The sample events of ``smartpos trigger``: typed by the strict parser, deterministic by id."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smartpos import _messages
from smartpos.cli import _samples
from smartpos.cli._output import CommandError
from smartpos.cli._samples import new_event_id, sample
from smartpos.webhooks import (
    ImpressaoConcluida,
    ImpressaoFalhou,
    PagamentoAprovado,
    PagamentoRecusado,
    SmartposIdentificado,
    parse_event,
)

KINDS = {
    "smartpos.identificado": SmartposIdentificado,
    "pagamento.aprovado": PagamentoAprovado,
    "pagamento.recusado": PagamentoRecusado,
    "impressao.concluida": ImpressaoConcluida,
    "impressao.falhou": ImpressaoFalhou,
}
SPEC_FIELDS = {
    "smartpos.identificado": {
        "qrCodeId",
        "referencia",
        "documentoCliente",
        "smartposId",
        "numeroSerieTerminal",
        "adquirente",
    },
    "pagamento.aprovado": {
        "referencia",
        "documentoCliente",
        "status",
        "valorCentavos",
        "valorFormatado",
        "formaPagamento",
        "parcelas",
        "smartposId",
        "autorizacao",
        "resultadoSmartPOS",
    },
    "pagamento.recusado": {
        "referencia",
        "documentoCliente",
        "status",
        "valorCentavos",
        "valorFormatado",
        "formaPagamento",
        "parcelas",
        "smartposId",
        "resultadoSmartPOS",
    },
    "impressao.concluida": {
        "referencia",
        "documentoCliente",
        "status",
        "smartposId",
        "resultadoSmartPOS",
    },
    "impressao.falhou": {
        "referencia",
        "documentoCliente",
        "status",
        "smartposId",
        "resultadoSmartPOS",
    },
}


@pytest.mark.parametrize("tipo", list(KINDS))
def test_sample_parses_as_its_typed_event(tipo: str) -> None:
    """Each sample passes the SDK's strict parser and becomes the class of its tipo."""
    event = parse_event(sample(tipo, new_event_id()))
    assert type(event) is KINDS[tipo]
    assert event.criado_em.utcoffset() == dt.timedelta(hours=-3)


@pytest.mark.parametrize("tipo", list(KINDS))
def test_sample_has_every_dados_field_of_the_spec(tipo: str) -> None:
    """Each sample carries every ``dados`` field spec section 6 lists for its kind."""
    assert set(sample(tipo, new_event_id())["dados"]) == SPEC_FIELDS[tipo]


def test_approved_sample_can_be_refunded() -> None:
    """pagamento.aprovado carries the four authorization fields a refund needs."""
    event = parse_event(sample("pagamento.aprovado", new_event_id(), valor_centavos=12345))
    assert isinstance(event, PagamentoAprovado)
    autorizacao = event.dados.autorizacao
    assert autorizacao is not None
    assert all(
        [
            autorizacao.codigo,
            autorizacao.numero_transacao,
            autorizacao.dados_finalizacao,
            autorizacao.tipo_pagamento,
        ]
    )
    assert (event.dados.valor_centavos, event.dados.valor_formatado) == (12345, "123.45")


@given(st.sampled_from(list(KINDS)), st.floats(min_value=1e9, max_value=4e9))
def test_same_id_same_envelope(tipo: str, when: float) -> None:
    """The same id and options give byte-for-byte the same envelope (a true resend)."""
    event_id = new_event_id(when)
    assert sample(tipo, event_id) == sample(tipo, event_id)


def test_ids_are_uuid7_carrying_the_creation_time() -> None:
    """Ids are UUIDv7; criadoEm is the millisecond inside the id."""
    event_id = new_event_id(1_800_000_000.123)
    parsed = uuid.UUID(event_id)
    assert parsed.version == 7
    assert sample("impressao.concluida", event_id)["criadoEm"] == "2027-01-15T05:00:00.123-03:00"
    assert new_event_id() != new_event_id()


def test_options_change_the_fields() -> None:
    """--documento (masked) is sent normalized; --referencia and --smartpos-id are used."""
    dados = sample(
        "pagamento.recusado",
        "any-id",
        documento="529.982.247-25",
        referencia="r-1",
        smartpos_id="SP-9",
    )["dados"]
    assert (dados["documentoCliente"], dados["referencia"], dados["smartposId"]) == (
        "52998224725",
        "r-1",
        "SP-9",
    )


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "no sample of tipo 'x-teste.evento-futuro'"),
        ("pt_BR", "sem exemplo do tipo 'x-teste.evento-futuro'"),
    ],
)
def test_a_tipo_without_a_sample_is_a_command_error(
    monkeypatch: pytest.MonkeyPatch, language: str, said: str
) -> None:
    """A tipo the CLI cannot build is a clear error in the catalog (exit 2), never a print event.

    The old builder made a print event of any tipo it did not know as a payment or an
    identification: a new kind added to ``TIPOS`` would have been sent as ``impressao.*``.
    """
    monkeypatch.setenv("SMARTPOS_LANG", language)
    _messages.reset()
    try:
        with pytest.raises(CommandError) as caught:
            sample("x-teste.evento-futuro", "x")
    finally:
        monkeypatch.delenv("SMARTPOS_LANG")
        _messages.reset()
    assert (said, 2) == (caught.value.message.partition(":")[0], caught.value.code)
    assert caught.value.hint is not None
    assert "impressao.falhou" in caught.value.hint


def test_a_new_kind_in_tipos_without_its_sample_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tipo in ``TIPOS`` (so accepted by the parser) whose sample is missing is refused too."""
    monkeypatch.setattr(_samples, "TIPOS", (*_samples.TIPOS, "x-teste.evento-futuro"))
    with pytest.raises(CommandError, match=r"x-teste\.evento-futuro"):
        sample("x-teste.evento-futuro", "x")
