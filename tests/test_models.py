"""Request objects, enums and result records."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import datetime as dt

import attrs
import pytest

import smartpos
from smartpos import (
    Acceptance,
    Comanda,
    FormaPagamento,
    HTTPInfo,
    ItemComanda,
    ModoExecucao,
    PagamentoOriginal,
    Parcelamento,
    QRCode,
    Refund,
    Target,
    Terminal,
    _models,
)

UTC = dt.timezone.utc


@pytest.mark.parametrize(
    ("enum", "values"),
    [
        (FormaPagamento, ["credito", "debito", "pix", "voucher"]),
        (Parcelamento, ["estabelecimento", "administradora"]),
        (ModoExecucao, ["imediato", "manual"]),
    ],
)
def test_enum_members_are_their_wire_strings(enum: type[FormaPagamento], values: list[str]) -> None:
    """Enum members are exactly the spec's values, compare equal to them and print as them."""
    assert values == [m.value for m in enum]
    assert values == list(enum)
    assert values == [str(m) for m in enum]
    assert values == [f"{m}" for m in enum]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (FormaPagamento.PIX, FormaPagamento.PIX),
        ("pix", FormaPagamento.PIX),
        ("PIX", None),
        ("dinheiro", None),
        (1, None),
        (None, None),
        (Parcelamento.ADMINISTRADORA, None),
    ],
)
def test_enum_parse(value: object, expected: FormaPagamento | None) -> None:
    """parse accepts a member or its exact wire string and nothing else."""
    assert expected is FormaPagamento.parse(value, "formaPagamento")


def test_comanda_items_become_a_tuple() -> None:
    """Comanda keeps its items as an immutable tuple, whatever sequence was given."""
    items = [ItemComanda(titulo="a")]

    comanda = Comanda("Mesa 1", itens=items)
    items.append(ItemComanda(titulo="b"))

    assert (ItemComanda(titulo="a"),) == comanda.itens
    assert () == Comanda("x").itens
    assert () == Comanda("x", itens=None).itens  # type: ignore[arg-type]


def test_request_objects_are_frozen() -> None:
    """Request objects cannot be changed after creation."""
    comanda = Comanda("Mesa 1")

    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        comanda.identificacao = "Mesa 2"  # type: ignore[misc]


def test_pagamento_original_repr_hides_dados_finalizacao() -> None:
    """repr(PagamentoOriginal) leaves out the technical finalization data."""
    original = PagamentoOriginal("AUT", "NSU", "FIN-secret-data", "credito")

    assert (
        "PagamentoOriginal(codigo_autorizacao='AUT', numero_transacao='NSU', "
        "tipo_pagamento='credito')" == repr(original)
    )
    assert "FIN-secret-data" == original.dados_finalizacao


def test_http_info() -> None:
    """HTTPInfo holds status, headers, request id, elapsed and attempts; its repr skips headers."""
    info = HTTPInfo(202, {"x-request-id": "r", "set-cookie": "s"}, "r", 0.25, 2)

    assert (202, "r", 0.25, 2) == (info.status_code, info.request_id, info.elapsed, info.attempts)
    assert "HTTPInfo(status_code=202, request_id='r', attempts=2)" == repr(info)
    assert (None, None, 1) == (
        HTTPInfo(200, {}).request_id,
        HTTPInfo(200, {}).elapsed,
        HTTPInfo(200, {}).attempts,
    )


def test_results_compare_without_raw_and_http() -> None:
    """Two results with the same fields are equal whatever their raw JSON and HTTP metadata."""
    a = Acceptance("r", "processando", "ok", [Target("S", "enviado")], raw={"a": 1})
    b = Acceptance(
        "r", "processando", "ok", [Target("S", "enviado")], raw={"b": 2}, http=HTTPInfo(202, {})
    )

    assert a == b
    assert "raw" not in repr(a)
    assert "http" not in repr(b)


def test_result_defaults() -> None:
    """Optional result fields default to None or empty, with an empty raw."""
    assert (None, None, {}, None) == (
        Refund("r").status,
        Refund("r").mensagem,
        Refund("r").raw,
        Refund("r").http,
    )
    assert ([], None, {}) == (
        Acceptance("r", "s", "m").targets,
        Acceptance("r", "s", "m").smartpos_id,
        Acceptance("r", "s", "m").raw,
    )
    assert (None, {}) == (Terminal(None).smartpos_id, Terminal(None).raw)


EXPIRES = dt.datetime(2026, 8, 1, 15, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("now", "expired"),
    [
        (EXPIRES - dt.timedelta(microseconds=1), False),
        (EXPIRES, True),
        (EXPIRES + dt.timedelta(days=1), True),
        (dt.datetime(2026, 8, 1, 12, 29, tzinfo=dt.timezone(dt.timedelta(hours=-3))), False),
        (dt.datetime(2026, 8, 1, 12, 30, tzinfo=dt.timezone(dt.timedelta(hours=-3))), True),
        (dt.datetime(2026, 8, 1, 15, 29), False),  # naive: read as UTC
        (dt.datetime(2026, 8, 1, 15, 30), True),
    ],
)
def test_qrcode_is_expired(now: dt.datetime, expired: bool) -> None:
    """is_expired(now) compares with expires_at in any timezone; a naive now is UTC."""
    qr = QRCode("q", "r", EXPIRES)

    assert expired is qr.is_expired(now=now)


def test_qrcode_is_expired_defaults_to_the_current_time() -> None:
    """is_expired() without now uses the current time."""
    now = dt.datetime.now(UTC)

    assert (False, True) == (
        QRCode("q", "r", now + dt.timedelta(hours=1)).is_expired(),
        QRCode("q", "r", now - dt.timedelta(hours=1)).is_expired(),
    )


def test_models_are_exported_from_the_package() -> None:
    """Every class and enum of smartpos._models is exported by smartpos, as the same object."""
    names = _models.__all__

    assert [] == [name for name in names if name not in smartpos.__all__]
    assert {name: getattr(_models, name) for name in names} == {
        name: getattr(smartpos, name, None) for name in names
    }
