"""TRANSITIONAL: the new request builders against the old ones, on random arguments.

Requests became attrs records written by ``_wire``; the builders before that wrote plain dicts
(``legacy_calls.py``, a verbatim copy). For any arguments, valid or not, both must raise the
same ValidationError (codigo, campo, message) or build the same call: same method, path,
reader, referencia, flags, and the same body *bytes* (key order included). Deleted with
``legacy_calls.py`` once the old builders are gone.
"""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import attrs
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import legacy_calls
import smartpos
from client_cases import API_KEY, BASE_URL, approved_event_json
from smartpos import _calls, _config
from smartpos.webhooks import parse_event

EXAMPLES = int(os.environ.get("DIFFERENTIAL_EXAMPLES", "300"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))

REF = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"
CPF = "12345678909"

# --- values: mostly good, each argument sometimes bad ----------------------------------------


def mostly(good: Any, bad: Any) -> Any:
    """``good`` nine times in ten, else ``bad``: most calls get past the validation."""
    # Hypothesis leans towards 0, the good side.
    return st.integers(0, 9).flatmap(lambda n: good if n < 9 else bad)


# A lone surrogate passes the validation of text fields but cannot be encoded: the body's
# encoder names its path.
text = st.text(
    alphabet=st.sampled_from(["a", "Z", "1", " ", "-", ".", "/", "ç", "é", "\n", "😀", "\ud800"]),
    max_size=12,
)
clean_text = st.text(alphabet=st.sampled_from(["a", "Z", "1", "-", "ç", "😀"]), min_size=1)
junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-5, max_value=5),
    st.just(b"bytes"),
    st.just(["x"]),
    st.just({"a": 1}),
    text,
)
documentos = mostly(
    st.sampled_from(
        [CPF, "123.456.789-09", "11.222.333/0001-81", "11222333000181", "12.abc.345/01de-35"]
    ),
    st.one_of(
        st.sampled_from(
            ["12ABC34501DE35", "111.111.111-11", "123.456.789-00", "", "   ", " 123.456.789-09 "]
        ),
        junk,
    ),
)
referencias = mostly(
    st.one_of(
        st.none(),
        st.just(REF),
        st.just(REF.upper()),
        st.builds(lambda s: f"{REF}-{s}", clean_text),
        st.uuids(version=4).map(str),
    ),
    st.one_of(
        st.builds(lambda s: f"{REF}-{s}", text),
        st.builds(lambda: str(uuid.uuid1())),
        st.sampled_from(["", "  ", "pedido-1", "x" + REF, REF[:35], REF.replace("-", "")]),
        junk,
    ),
)
amounts = mostly(st.integers(1, 10**13), st.one_of(st.integers(-2, 0), junk, st.just(1590.0)))
terminals = mostly(
    st.one_of(st.sampled_from(["SP-1", " SP-2 "]), clean_text),
    st.one_of(st.sampled_from(["", "  "]), junk, text),
)


def members(cls: Any, *, optional: bool = True) -> Any:
    values = [m.value for m in cls]
    good = st.one_of(st.sampled_from(list(cls)), st.sampled_from(values))
    return mostly(
        st.one_of(st.none(), good) if optional else good,
        st.one_of(st.sampled_from([v.upper() for v in values]), junk),
    )


items = st.builds(
    smartpos.ItemComanda,
    titulo=mostly(st.one_of(st.none(), text), st.integers(0, 2)),
    descricao=mostly(st.one_of(st.none(), text), st.just(["d"])),
)


def _bad_itens(card: smartpos.Comanda) -> smartpos.Comanda:
    object.__setattr__(card, "itens", ["not", "a", "tuple"])
    return card


comandas = st.one_of(
    st.none(),
    st.builds(
        smartpos.Comanda,
        identificacao=mostly(
            st.one_of(st.just("Mesa 7"), clean_text, text), st.sampled_from(["", "  ", 7])
        ),
        itens=st.lists(mostly(items, st.just("item")), max_size=3),
        endereco=mostly(st.one_of(st.none(), text), st.just(3)),
    ),
    st.just({"identificacao": "Mesa 7"}),
    st.builds(_bad_itens, st.builds(smartpos.Comanda, identificacao=st.just("Mesa"))),
)
flags = mostly(st.sampled_from([None, True, False]), st.sampled_from([1, "sim"]))
comprovantes = st.one_of(
    st.none(),
    st.builds(smartpos.Comprovante, flags, flags, flags, flags),
    st.just({"imprimir": {"cliente": True}}),
)
original_parts = mostly(
    st.one_of(st.just("AUT123"), clean_text, text), st.one_of(st.sampled_from(["", "  "]), junk)
)
originals = mostly(
    st.builds(
        smartpos.PagamentoOriginal, original_parts, original_parts, original_parts, original_parts
    ),
    st.one_of(st.none(), st.just({"codigoAutorizacao": "A"})),
)
contents = mostly(
    st.one_of(
        text.filter(bool),
        st.binary(min_size=1, max_size=8),
        st.builds(bytearray, st.binary(min_size=1, max_size=4)),
        st.builds(memoryview, st.binary(min_size=1, max_size=4)),
    ),
    st.one_of(st.sampled_from(["", b"", "\ud800"]), junk),
)
configs = st.builds(
    _config.Config.create,
    api_key=st.just(API_KEY),
    base_url=st.just(BASE_URL),
    timeout=st.none(),
    max_retries=st.just(2),
    retry_backoff=st.just(0.0),
    strict_referencia=st.booleans(),
)

# --- running both ----------------------------------------------------------------------------


@contextmanager
def same_referencias() -> Iterator[None]:
    """Both builders draw the same sequence of generated referencias."""
    rng = random.Random(20260701)

    def fake() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    with (
        mock.patch("smartpos._referencia.new_referencia", fake),
        mock.patch("smartpos._arguments.new_referencia", fake),
    ):
        yield


def outcome(builder: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    """What a builder did: the ValidationError it raised, or everything its call holds."""
    with same_referencias():
        try:
            call = builder(*args, **kwargs)
        except smartpos.ValidationError as exc:
            return ("refused", type(exc), exc.codigo, exc.campo, str(exc), exc.mensagem)
        except Exception as exc:  # compared: both must fail the same way
            return ("crashed", type(exc), str(exc))
    fields = attrs.asdict(call, recurse=False)
    fields["parse"] = call.parse.__name__
    return ("built", fields)


def assert_same(name: str, config: Any, *args: Any, **kwargs: Any) -> None:
    old = outcome(getattr(legacy_calls, name), config, *args, **kwargs)
    new = outcome(getattr(_calls, name), config, *args, **kwargs)
    if old[0] == "refused":
        utf8 = " (cannot encode)" if "cannot be encoded" in old[4] else ""
        event(f"refused {old[2]} {old[3]}{utf8}")
    else:
        event(old[0])
    assert old == new


@SETTINGS
@given(configs, documentos, referencias)
def test_qrcode_call(config: Any, documento: Any, referencia: Any) -> None:
    """qrcodes.create: same error or same call as before."""
    assert_same("qrcode_call", config, documento_cliente=documento, referencia=referencia)


@SETTINGS
@given(
    configs,
    documentos,
    amounts,
    terminals,
    referencias,
    members(smartpos.FormaPagamento),
    mostly(st.one_of(st.none(), st.integers(1, 13)), st.one_of(st.integers(-1, 0), junk)),
    members(smartpos.Parcelamento),
    members(smartpos.ModoExecucao, optional=False),
    comandas,
    comprovantes,
)
def test_payment_call(
    config: Any,
    documento: Any,
    valor: Any,
    terminal: Any,
    referencia: Any,
    forma: Any,
    parcelas: Any,
    parcelamento: Any,
    modo: Any,
    comanda: Any,
    comprovante: Any,
) -> None:
    """payments.create: same error or same call (same body bytes) as before."""
    assert_same(
        "payment_call",
        config,
        documento_cliente=documento,
        valor_centavos=valor,
        smartpos_id=terminal,
        referencia=referencia,
        forma_pagamento=forma,
        parcelas=parcelas,
        parcelamento=parcelamento,
        modo_execucao=modo,
        comanda=comanda,
        comprovante=comprovante,
    )


@SETTINGS
@given(
    configs,
    documentos,
    terminals,
    amounts,
    originals,
    st.one_of(referencias, st.just(REF[:10] + "0" + REF[11:])),
)
def test_refund_call(
    config: Any, documento: Any, terminal: Any, valor: Any, original: Any, referencia: Any
) -> None:
    """refunds.create: same error or same call as before."""
    assert_same(
        "refund_call",
        config,
        documento_cliente=documento,
        smartpos_id=terminal,
        valor_centavos=valor,
        pagamento_original=original,
        referencia=referencia,
    )


def _event(drop: list[str], autorizacao: Any, valor: Any, referencia: str) -> Any:
    dados: dict[str, Any] = dict.fromkeys(drop)
    if autorizacao is not None:
        dados["autorizacao"] = autorizacao
    dados["valorCentavos"] = valor
    dados["referencia"] = referencia
    return parse_event(approved_event_json(**dados))


events = st.one_of(
    st.builds(
        _event,
        st.lists(st.sampled_from(["smartposId", "valorCentavos", "autorizacao"]), max_size=2),
        st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {
                    "codigo": st.sampled_from(["AUT", "AUT", ""]),
                    "numeroTransacao": st.just("NSU"),
                    "dadosFinalizacao": st.just("FIN"),
                    "tipoPagamento": st.just("credito"),
                },
            ),
            st.fixed_dictionaries(
                {},
                optional={
                    "codigo": st.just("AUT"),
                    "numeroTransacao": st.just("NSU"),
                    "dadosFinalizacao": st.just("FIN"),
                    "tipoPagamento": st.just("credito"),
                },
            ),
        ),
        st.one_of(st.none(), st.integers(1, 5000)),
        st.sampled_from([REF, "pedido-1", str(uuid.uuid4())]),
    ),
    st.just("not an event"),
    st.builds(
        lambda: parse_event({**approved_event_json(), "tipo": "pagamento.recusado"}),
    ),
)


@SETTINGS
@given(
    configs,
    events,
    mostly(st.one_of(st.none(), st.integers(1, 6000)), st.one_of(st.integers(-1, 0), junk)),
    st.one_of(referencias, st.just(REF[:10] + "-estorno")),
)
def test_refund_for_call(config: Any, event: Any, valor: Any, referencia: Any) -> None:
    """refunds.create_for: same error or same call as before."""
    assert_same("refund_for_call", config, event, valor_centavos=valor, referencia=referencia)


@SETTINGS
@given(configs, documentos, terminals, contents, referencias)
def test_print_call(
    config: Any, documento: Any, terminal: Any, conteudo: Any, referencia: Any
) -> None:
    """print_jobs.create: same error or same call as before."""
    assert_same(
        "print_call",
        config,
        documento_cliente=documento,
        smartpos_id=terminal,
        conteudo=conteudo,
        referencia=referencia,
    )


@SETTINGS
@given(configs, documentos)
def test_terminals_call(config: Any, documento: Any) -> None:
    """terminals.list: same error or same call as before."""
    assert_same("terminals_call", config, documento_cliente=documento)
