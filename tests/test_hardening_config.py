"""Issue 11: what is refused when a client is built, what its repr and messages show, and the
referencia rules (versions, first 10 characters, ``referencia_for``)."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import logging
import re
import uuid
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smartpos
import smartpos.testing
from client_cases import API_KEY, BASE_URL, CPF
from smartpos import _calls, _config, _referencia

CLIENTS = [
    pytest.param(smartpos.Client, id="sync"),
    pytest.param(smartpos.AsyncClient, id="async"),
]
KEY_CHARS = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=4)


def build(cls: type[Any], **options: Any) -> None:
    """Build a client (nothing is sent, nothing needs closing before the first request)."""
    cls(**{"api_key": API_KEY, "base_url": BASE_URL, **options})


# --- 7 and 14: refused when the client is built --------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    head=KEY_CHARS,
    bad=st.one_of(
        st.characters(max_codepoint=0x1F),
        st.just("\x7f"),
        st.characters(min_codepoint=0x80, exclude_categories=("Cs",)),
    ),
    tail=KEY_CHARS,
)
def test_a_key_that_cannot_be_a_header_value_is_refused(head: str, bad: str, tail: str) -> None:
    """Any key with a control or non-ASCII character is a ConfigurationError when the client
    is built, and the message does not hold the key."""
    key = "sk_live_" + head + bad + tail
    for cls in (smartpos.Client, smartpos.AsyncClient):
        with pytest.raises(smartpos.ConfigurationError) as info:
            build(cls, api_key=key)

        assert key not in str(info.value)


@pytest.mark.parametrize("cls", CLIENTS)
@pytest.mark.parametrize(
    "base_url",
    [
        "https://api.smartpos.test/base?x=1",
        "https://api.smartpos.test/base?",
        "https://api.smartpos.test/base#frag",
        "https://api.smartpos.test/?token=secret",
    ],
)
def test_a_base_url_with_a_query_or_a_fragment_is_refused(cls: type[Any], base_url: str) -> None:
    """Endpoint paths are appended to the base URL: a query or fragment would swallow them."""
    with pytest.raises(smartpos.ConfigurationError) as info:
        build(cls, base_url=base_url)

    assert "query" in str(info.value)
    assert "secret" not in str(info.value)


@settings(max_examples=60, deadline=None)
@given(key=KEY_CHARS.map("sk_live_".__add__))
def test_a_key_passed_as_base_url_is_never_in_the_message(key: str) -> None:
    """Swapped arguments (the key as base_url, a URL as api_key) never print the key."""
    for cls in (smartpos.Client, smartpos.AsyncClient):
        for options in (
            {"base_url": key},
            {"api_key": BASE_URL, "base_url": key},
            {"api_key": key, "base_url": key},
        ):
            with pytest.raises(smartpos.ConfigurationError) as info:
                build(cls, **options)
            assert key not in str(info.value)


@pytest.mark.parametrize("cls", CLIENTS)
def test_swapped_arguments_are_named_in_the_message(cls: type[Any]) -> None:
    """Client(key_as_url, url_as_key) says that the arguments look swapped."""
    with pytest.raises(smartpos.ConfigurationError) as info:
        cls(BASE_URL, API_KEY)

    assert "swapped" in str(info.value)
    assert API_KEY not in str(info.value)


@pytest.mark.parametrize(
    ("cls", "transport", "what"),
    [
        pytest.param(smartpos.AsyncClient, httpx.HTTPTransport, "a sync", id="sync-to-async"),
        pytest.param(smartpos.Client, httpx.AsyncHTTPTransport, "an async", id="async-to-sync"),
        pytest.param(smartpos.Client, object, "not an httpx", id="not-a-transport"),
        pytest.param(smartpos.AsyncClient, str, "not an httpx", id="a-str"),
    ],
)
def test_a_transport_of_the_wrong_flavour_is_refused(
    cls: type[Any], transport: type[Any], what: str
) -> None:
    """A sync transport given to AsyncClient (or the reverse) is a ConfigurationError."""
    with pytest.raises(smartpos.ConfigurationError) as info:
        build(cls, transport=transport())

    assert f"is {what} transport" in str(info.value)


@pytest.mark.parametrize("cls", CLIENTS)
def test_a_transport_serving_both_flavours_is_accepted(cls: type[Any]) -> None:
    """MockTransport and the Sandbox's transport serve both clients."""
    build(cls, transport=httpx.MockTransport(lambda request: httpx.Response(200)))
    build(cls, transport=smartpos.testing.Sandbox().transport())


@pytest.mark.parametrize("cls", CLIENTS)
def test_repr_hides_user_and_password_of_the_base_url(cls: type[Any]) -> None:
    """repr(client) and repr of its configuration hide the userinfo of the base URL."""
    client = cls(api_key=API_KEY, base_url="https://ana:s3cr3t-pw@api.smartpos.test/base")

    for text in (repr(client), repr(client._config)):
        assert "s3cr3t-pw" not in text
        assert "ana" not in text
        assert "https://***@api.smartpos.test/base" in text
        assert API_KEY not in text


def test_httpx_log_lines_hide_the_password_of_the_base_url(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """httpx (httpx2 too) logs each URL at INFO: the base URL's password is masked there too."""
    caplog.set_level(logging.INFO)
    with smartpos.Client(
        api_key=API_KEY,
        base_url="https://ana:s3cr3t-pw@api.smartpos.test",
        transport=httpx.MockTransport(lambda request: httpx.Response(200, json=[])),
    ) as client:
        client.terminals.list(documento_cliente=CPF)

    assert any(r.name in ("httpx", "httpx2") for r in caplog.records)
    assert "s3cr3t-pw" not in caplog.text


# --- 18: messages --------------------------------------------------------------------------

SENTENCES = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30
).filter(lambda t: ".." not in t and not t.startswith(".") and not t.endswith("."))


@settings(max_examples=200)
@given(
    mensagem=st.one_of(st.none(), SENTENCES, SENTENCES.map(lambda t: t + "."), st.just("...")),
    acao=st.one_of(st.none(), SENTENCES, SENTENCES.map(lambda t: t + ".")),
    campo=st.one_of(st.none(), st.sampled_from(["referencia", "smartposId"])),
    request_id=st.one_of(st.none(), st.just("req-1")),
)
def test_api_error_messages_never_have_a_double_period(
    mensagem: str | None, acao: str | None, campo: str | None, request_id: str | None
) -> None:
    """The service's sentences end in a period; what the SDK adds never doubles it."""
    error = smartpos.APIError(
        400, codigo="X", mensagem=mensagem, acao=acao, campo=campo, request_id=request_id
    )

    assert ".." not in str(error)


def test_the_inactive_store_message_reads_well() -> None:
    """The example of the issue: "inativa." then "What to do" gives one period."""
    error = smartpos.APIError(
        403, codigo="C", mensagem="Loja inativa.", acao="Ative a loja no portal."
    )

    assert "HTTP 403 C: Loja inativa. What to do: Ative a loja no portal." == str(error)


@pytest.mark.parametrize("parcelas", [0, -1, 2.0, "3", True])
def test_the_parcelas_error_does_not_mention_cents(parcelas: Any) -> None:
    """A bad parcelas is refused with a message about installments, not cents."""
    config = _config.Config.create(
        api_key=API_KEY,
        base_url=BASE_URL,
        timeout=None,
        max_retries=0,
        retry_backoff=0,
        strict_referencia=True,
    )
    with pytest.raises(smartpos.ValidationError) as info:
        _calls.payment_call(
            config,
            {
                "documento_cliente": CPF,
                "valor_centavos": 100,
                "smartpos_id": "SP-1",
                "referencia": None,
                "forma_pagamento": "credito",
                "parcelas": parcelas,
                "parcelamento": "administradora",
                "modo_execucao": "imediato",
                "comanda": None,
                "comprovante": None,
            },
        )

    assert ("VALOR_INVALIDO", "parcelas") == (info.value.codigo, info.value.campo)
    assert "cent" not in str(info.value)
    assert "installments" in str(info.value)


# --- 4: the UUID versions the strict check accepts -----------------------------------------


def with_version(value: uuid.UUID, version: str) -> str:
    """The canonical text of ``value`` with its version digit replaced."""
    text = str(value)
    return text[:14] + version + text[15:]


@given(
    value=st.uuids(),
    version=st.sampled_from("01236789abcdef"),
    suffix=st.one_of(st.just(""), st.just("-estorno")),
)
def test_versions_other_than_4_and_5_are_refused(
    value: uuid.UUID, version: str, suffix: str
) -> None:
    """Time-ordered (1, 6, 7), name-based MD5 (3), DCE (2), custom (8) and unassigned versions
    are refused by the strict check."""
    assert smartpos.is_valid_referencia(with_version(value, version) + suffix) is False


@given(value=st.uuids(), version=st.sampled_from("45"), variant=st.sampled_from("89abAB"))
def test_versions_4_and_5_of_the_rfc_variant_are_valid(
    value: uuid.UUID, version: str, variant: str
) -> None:
    """Any version 4 or 5 UUID of the RFC 4122 variant is valid."""
    text = with_version(value, version)
    text = text[:19] + variant + text[20:]

    assert smartpos.is_valid_referencia(text) is True


@pytest.mark.parametrize(
    "value",
    [
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        str(uuid.uuid1()),
        "01912d68-783e-7a03-8467-5661c1243ad4",
        str(uuid.uuid3(uuid.NAMESPACE_DNS, "smartpos")),
    ],
    ids=["nil", "max", "v1", "v7", "v3"],
)
def test_nil_max_and_time_ordered_uuids_are_refused(value: str) -> None:
    """The nil and max UUIDs, uuid1 and uuid7 values, and uuid3 are not valid referencias."""
    assert smartpos.is_valid_referencia(value) is False


def test_uuid7_values_made_together_share_their_first_10_characters() -> None:
    """Why version 7 is refused: values made within seconds start alike (48-bit ms clock)."""
    first, second = "01912d68-783e-7a03-8467-5661c1243ad4", "01912d68-7b2f-7c11-9a0e-0d5b7f3e2a10"

    assert _referencia.same_first_characters(first, second)
    assert not smartpos.is_valid_referencia(first)


# --- 5: referencia_for ---------------------------------------------------------------------


def test_referencia_for_is_stable_forever() -> None:
    """The namespace never changes: a known key keeps its referencia across releases."""
    assert uuid.UUID("116709e4-cd2c-5243-875f-7619aad98280") == _referencia.REFERENCIA_NAMESPACE
    assert _referencia.REFERENCIA_NAMESPACE == uuid.uuid5(
        uuid.NAMESPACE_URL, "https://pypi.org/project/smartpos/#referencia_for"
    )
    assert str(
        uuid.uuid5(_referencia.REFERENCIA_NAMESPACE, "estorno:evt_0001")
    ) == smartpos.referencia_for("estorno:evt_0001")


@given(key=st.text(min_size=1), other=st.text(min_size=1))
def test_referencia_for_is_a_deterministic_valid_uuid5(key: str, other: str) -> None:
    """Any non-empty key (lone surrogates too) gives a valid UUIDv5 referencia, the same one
    every time, and another key gives another referencia."""
    value = smartpos.referencia_for(key)

    assert smartpos.referencia_for(key) == value
    assert smartpos.is_valid_referencia(value)
    assert 5 == uuid.UUID(value).version
    if other != key:
        assert smartpos.referencia_for(other) != value


def test_referencia_for_takes_a_suffix() -> None:
    """referencia_for(key, suffix) is the key's UUID then -suffix."""
    value = smartpos.referencia_for("estorno:evt_1", "e1")

    assert smartpos.referencia_for("estorno:evt_1") + "-e1" == value
    assert smartpos.is_valid_referencia(value)


@pytest.mark.parametrize("key", ["", None, 42, b"estorno:evt_1"])
def test_referencia_for_refuses_what_is_not_a_non_empty_str(key: Any) -> None:
    """A key that is not a non-empty str is a ValidationError (a ValueError)."""
    with pytest.raises(smartpos.ValidationError) as info:
        smartpos.referencia_for(key)

    assert "referencia" == info.value.campo
    assert isinstance(info.value, ValueError)


def test_new_referencia_is_still_uuid4() -> None:
    """new_referencia keeps producing random (version 4) UUIDs."""
    assert {4} == {uuid.UUID(smartpos.new_referencia()).version for _ in range(50)}


def test_the_referencia_message_names_the_accepted_versions() -> None:
    """The refusal of a uuid7 referencia says which versions pass and what to use."""
    with pytest.raises(smartpos.ValidationError) as info:
        _calls.qrcode_call(
            _config.Config.create(
                api_key=API_KEY,
                base_url=BASE_URL,
                timeout=None,
                max_retries=0,
                retry_backoff=0,
                strict_referencia=True,
            ),
            {"documento_cliente": CPF, "referencia": "01912d68-783e-7a03-8467-5661c1243ad4"},
        )

    assert re.search(r"version 4 or 5", str(info.value))
    assert "referencia_for" in str(info.value)


@pytest.mark.parametrize(
    "options",
    [
        {"timeout": float("nan")},
        {"timeout": float("inf")},
        {"retry_backoff": float("nan")},
        {"retry_backoff": float("inf")},
        {"retry_backoff": -float("inf")},
    ],
    ids=["timeout-nan", "timeout-inf", "backoff-nan", "backoff-inf", "backoff-minus-inf"],
)
@pytest.mark.parametrize("client_class", [smartpos.Client, smartpos.AsyncClient])
def test_not_a_finite_number_of_seconds_is_a_configuration_error(
    client_class: type[smartpos.Client] | type[smartpos.AsyncClient], options: dict[str, float]
) -> None:
    """NaN and infinity are refused: a NaN backoff once became the 5 s maximum silently."""
    with pytest.raises(smartpos.ConfigurationError, match="finite"):
        client_class(api_key="k", base_url="http://svc.invalid", **options)  # type: ignore[arg-type]
