"""The SDK's own messages: English by default, wholly Brazilian Portuguese on request.

The catalog (``smartpos._message_catalog``) is walked key by key; the source is scanned with
ast so that every ``ValidationError``/``ConfigurationError`` takes its message from it; and
bad calls of both clients (``flavour``) are made under ``lang="pt_BR"``, under
``SMARTPOS_LANG=pt_BR`` and with neither. "Half in each language" is caught by words: a
Portuguese message holds none of a few common English words, and the reverse.
"""

from __future__ import annotations

import ast
import asyncio
import decimal
import logging
import os
import pickle
import re
import string
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import smartpos
from client_cases import ACCEPTANCE_JSON, API_KEY, BASE_URL, CPF, INVALID, REF, SDK, Invalid
from smartpos import _calls, _config, _core, _messages, webhooks
from smartpos._message_catalog import CATALOG
from smartpos.integrations import _receive
from smartpos.webhooks import _open as _stores

PACKAGE = Path(smartpos.__file__).parent
PT = _messages.PORTUGUESE
EN = _messages.ENGLISH

#: Common English words a Portuguese message never holds (fields are identifiers, not words).
ENGLISH_WORDS = (
    "the", "must", "is", "not", "and", "with", "cannot", "needs", "has", "or", "of", "was"
)  # fmt: skip
#: Common Portuguese words an English message never holds.
PORTUGUESE_WORDS = (
    "não", "deve", "é", "ou", "um", "uma", "com", "para", "de", "que", "da", "foi"
)  # fmt: skip


def words_of(text: str, vocabulary: tuple[str, ...]) -> list[str]:
    """The words of ``vocabulary`` that ``text`` holds as whole words."""
    padded = f" {text} ".replace(",", " ").replace(";", " ").replace(":", " ")
    return [word for word in vocabulary if f" {word} " in padded]


def assert_portuguese(text: str) -> None:
    """``text`` reads as Portuguese: some Portuguese words, no English ones."""
    assert [] == words_of(text, ENGLISH_WORDS), text
    assert words_of(text, PORTUGUESE_WORDS), text


def assert_english(text: str) -> None:
    """``text`` reads as English: some English words, no Portuguese ones."""
    assert [] == words_of(text, PORTUGUESE_WORDS), text
    assert words_of(text, ENGLISH_WORDS), text


def fields_of(template: str) -> set[tuple[str, str | None]]:
    """The ``str.format`` fields of a template, with their conversion (``!r``)."""
    return {
        (name, conversion)
        for _, name, _, conversion in string.Formatter().parse(template)
        if name is not None
    }


def sample(template: str) -> str:
    """The template formatted with a neutral identifier in every field."""
    return template.format(**{name: "X1" for name, _ in fields_of(template)})


@pytest.fixture
def env_lang(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str | None], None]]:
    """Set (or unset, with None) ``SMARTPOS_LANG`` and make the SDK read it again."""

    def set_lang(value: str | None) -> None:
        if value is None:
            monkeypatch.delenv("SMARTPOS_LANG", raising=False)
        else:
            monkeypatch.setenv("SMARTPOS_LANG", value)
        _messages.reset()

    set_lang(None)
    yield set_lang
    # Before monkeypatch restores the environment: the next message reads it afresh.
    _messages.reset()


# --- the catalog ---------------------------------------------------------------------------

KEYS = sorted(CATALOG)


def test_the_catalog_is_not_empty() -> None:
    """The walks below cover the messages of every module in scope (not an empty dict)."""
    prefixes = {key.split(".")[0] for key in KEYS}
    assert {"argument", "call", "client", "config", "error", "money", "response"} <= prefixes
    assert len(KEYS) > 100


@pytest.mark.parametrize("key", KEYS)
def test_every_key_has_both_languages_with_the_same_fields(key: str) -> None:
    """Each key has an English and a Portuguese template taking exactly the same fields."""
    templates = CATALOG[key]
    assert set(_messages.LANGUAGES) == set(templates)
    assert fields_of(templates[EN]) == fields_of(templates[PT])
    assert templates[EN] != templates[PT]


@pytest.mark.parametrize("key", KEYS)
def test_every_template_formats_and_stays_in_its_language(key: str) -> None:
    """Formatted, the Portuguese template holds no English words and the English one no
    Portuguese word and no accent (a half-translated sentence fails here)."""
    english, portuguese = sample(CATALOG[key][EN]), sample(CATALOG[key][PT])
    assert [] == words_of(portuguese, ENGLISH_WORDS), portuguese
    assert [] == words_of(english, PORTUGUESE_WORDS), english
    assert english.isascii(), english


def test_message_formats_the_fields_in_the_language_asked() -> None:
    """message() picks the template of the language given and fills its fields."""
    assert "campo é obrigatório e não pode ser vazio" == _messages.message(
        "argument.required", lang=PT, campo="campo"
    )
    assert "campo is required and cannot be empty" == _messages.message(
        "argument.required", lang=EN, campo="campo"
    )


# --- every refusal goes through the catalog (read from the source) ----------------------


def _library_modules() -> list[Path]:
    return sorted(
        path
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] not in ("cli", "testing")
    )


def _is_message_call(node: ast.expr | None) -> bool:
    if isinstance(node, ast.IfExp):
        return _is_message_call(node.body) and _is_message_call(node.orelse)
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "message"
    )


def _bound_to_a_message(name: str, scope: ast.AST) -> bool:
    """``name`` is assigned a message() call in the enclosing function, and otherwise only
    a method's result on itself (``text = text.replace(key, "[redacted]")``)."""
    values = [
        node.value
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    ]

    def from_itself(value: ast.expr) -> bool:
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and isinstance(value.func.value, ast.Name)
            and value.func.value.id == name
        )

    return any(_is_message_call(v) for v in values) and all(
        _is_message_call(v) or from_itself(v) for v in values
    )


#: The SDK's exceptions whose text is an argument: where that argument is (position, keyword).
TEXT_ARGUMENT = {
    "ValidationError": (1, "mensagem"),
    "ConfigurationError": (0, "message"),
    "ClientClosedError": (0, "message"),
    "TransportError": (0, "message"),
    "TimeoutError": (0, "message"),
    "ResponseError": (0, "message"),
}


def _error_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        name: str | None = func.id
    elif isinstance(func, ast.Attribute) and getattr(func.value, "id", None) == "smartpos":
        name = func.attr
    else:  # httpx.TransportError(...) is not the SDK's
        name = None
    return name if name in TEXT_ARGUMENT else None


def _refusals_not_from_the_catalog(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    scopes = [
        node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _error_name(node) is None:
            continue
        position, keyword = TEXT_ARGUMENT[_error_name(node) or ""]
        text = node.args[position] if len(node.args) > position else None
        text = text or next((k.value for k in node.keywords if k.arg == keyword), None)
        if _is_message_call(text):
            continue
        if isinstance(text, ast.Name):
            scope = next(
                (s for s in reversed(scopes) if s.lineno <= node.lineno <= (s.end_lineno or 0)),
                tree,
            )
            if _bound_to_a_message(text.id, scope):
                continue
        bad.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    return bad


def test_every_validation_and_configuration_error_takes_its_message_from_the_catalog() -> None:
    """Outside the CLI and the sandbox, ValidationError(...), ConfigurationError(...) and the
    transport and response errors get their text from message(...): no f-string can bring an
    English sentence back."""
    modules = _library_modules()
    assert len(modules) > 40
    bad = [where for path in modules for where in _refusals_not_from_the_catalog(path)]
    assert [] == bad


#: SmartPOSError subclasses whose text is not for the person at the keyboard, so English like
#: the log lines: an event's or a delivery's refusal reason is the body of the 400/401 the
#: service gets (and a log line), and a store's failure is about the operator's database.
ENGLISH_BY_DESIGN = frozenset(
    {"InvalidEventError", "VerificationError", "StoreError", "StoreFullError",
     "MigrationRequiredError"}
)  # fmt: skip
#: Two words in a row: a sentence, which only the catalog may hold (``HTTP {status}`` or
#: ``{codigo}: {mensagem}`` are framing, not words).
SENTENCE = re.compile(r"[A-Za-z]{2,}[^\w{}]+[A-Za-z]{2,}")


def _smartpos_error_classes(trees: list[ast.Module]) -> set[str]:
    """The names of SmartPOSError and its subclasses, read from the class statements."""
    bases = {
        node.name: {getattr(b, "id", getattr(b, "attr", None)) for b in node.bases}
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    found = {"SmartPOSError"}
    while True:
        more = {name for name, parents in bases.items() if parents & found} - found
        if not more:
            return found
        found |= more


def _literal_text(node: ast.expr) -> str:
    """The literal words of a str constant or an f-string (its fields left out)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "{}".join(_literal_text(v) for v in node.values)
    if isinstance(node, ast.BinOp):
        return _literal_text(node.left) + "{}" + _literal_text(node.right)
    return ""


def _english_raises(path: Path, tree: ast.Module, classes: set[str]) -> list[str]:
    """Calls of an SDK exception (or of its ``__init__``) given a sentence as a literal."""
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "__init__":
            owner = func.value
            if isinstance(owner, ast.Call) and getattr(owner.func, "id", None) == "super":
                name = "super"
            else:
                name = getattr(owner, "id", None)
        elif isinstance(func, ast.Attribute) and getattr(func.value, "id", None) == "builtins":
            continue
        else:
            name = getattr(func, "id", getattr(func, "attr", None))
        if name != "super" and (name not in classes or name in ENGLISH_BY_DESIGN):
            continue
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if any(SENTENCE.search(_literal_text(a)) for a in arguments):
            bad.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    return bad


def test_no_sdk_exception_is_raised_with_an_english_sentence() -> None:
    """Every SmartPOSError subclass (found in the source, so a new one is covered too) and
    every ``super().__init__``/``SmartPOSError.__init__`` of the library gets its sentences
    from message(...): an f-string such as ``f"no final event within {timeout} s"`` fails
    here. Only the protocol and store errors of ENGLISH_BY_DESIGN are exempt."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in _library_modules()}
    classes = _smartpos_error_classes(list(trees.values()))
    assert {"OutcomePendingError", "ConfigurationError", "StoreError"} <= classes
    bad = [where for path, tree in trees.items() for where in _english_raises(path, tree, classes)]
    assert [] == bad


def test_the_sentence_scan_catches_an_english_raise() -> None:
    """The scan above is not vacuous: the old OutcomePendingError and a literal
    ConfigurationError are caught; a message() call and framing are not."""
    source = """
class OutcomePendingError(OutcomeUnknownError):
    def __init__(self, referencia, timeout):
        SmartPOSError.__init__(self, f"no final event for referencia {referencia} in {timeout}")
raise ConfigurationError("bad option")
raise ConfigurationError(message("config.lang", value=1))
raise APIError(f"HTTP {status}: {text}")
"""
    tree = ast.parse(source)
    classes = _smartpos_error_classes([tree, *map(ast.parse, [
        "class SmartPOSError(Exception): ...\n"
        "class OutcomeUnknownError(SmartPOSError): ...\n"
        "class ConfigurationError(SmartPOSError): ...\n"
        "class APIError(SmartPOSError): ..."])])  # fmt: skip
    where = [int(w.rsplit(":", 1)[1]) for w in _english_raises(PACKAGE / "x.py", tree, classes)]
    assert [4, 5] == sorted(where)


def _message_keys_in_source() -> tuple[list[str], set[str]]:
    """The literal keys of message(...) calls, and every string constant of the library."""
    keys, constants = [], set()
    for path in _library_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                constants.add(node.value)
            if _is_message_call(node) and isinstance(node, ast.Call) and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    keys.append(first.value)
    return keys, constants


def test_every_key_the_source_asks_for_is_in_the_catalog() -> None:
    """A message("key") whose key the catalog lacks would fail only when the error happens."""
    keys, _ = _message_keys_in_source()
    assert len(keys) > 80
    assert [] == [key for key in keys if key not in CATALOG]


def test_every_catalog_key_is_used() -> None:
    """No dead entry: each key appears in the source (whole, or before a suffix the source
    adds: ``_swapped``, ``_or_none``)."""
    _, constants = _message_keys_in_source()
    unused = [
        key
        for key in KEYS
        if key not in constants
        and key.removesuffix("_swapped") not in constants
        and key.removesuffix("_or_none") not in constants
    ]
    assert [] == unused


# --- the setting -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("pt_BR", PT),
        ("pt-BR", PT),
        ("pt", PT),
        ("PT_br", PT),
        (" pt-br ", PT),
        ("pt_BR.UTF-8", PT),
        ("en", EN),
        ("en_US", EN),
        ("en-GB.UTF-8", EN),
        ("pt_PT", None),
        ("es", None),
        ("", None),
        (None, None),
        (1, None),
    ],
)
def test_language_of(value: object, expected: str | None) -> None:
    """The spellings of Portuguese and English are read; anything else names no language."""
    assert expected == _messages.language_of(value)


@given(
    spelling=st.sampled_from(["pt_BR", "pt-BR", "pt"]).flatmap(
        lambda word: st.tuples(*(st.sampled_from([c.lower(), c.upper()]) for c in word))
    ),
    encoding=st.sampled_from(["", ".UTF-8", ".utf8", "@euro"]),
)
def test_every_casing_of_pt_br_in_the_environment_is_portuguese(
    spelling: tuple[str, ...], encoding: str
) -> None:
    """SMARTPOS_LANG in any case, with or without an encoding, turns Portuguese on."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SMARTPOS_LANG", "".join(spelling) + encoding)
        _messages.reset()
        try:
            assert PT == _messages.env_language()
        finally:
            _messages.reset()


@given(value=st.text().filter(lambda v: not v.strip().lower().startswith("pt")))
def test_anything_else_in_the_environment_is_english(value: str) -> None:
    """A value that is not pt_BR, pt-BR or pt (a typo, another language) leaves English."""
    with pytest.MonkeyPatch.context() as patch:
        try:
            patch.setenv("SMARTPOS_LANG", value)
        except ValueError:  # a NUL cannot be in the environment
            return
        _messages.reset()
        try:
            assert EN == _messages.env_language()
        finally:
            _messages.reset()


def test_the_environment_is_read_once(env_lang: Callable[[str | None], None]) -> None:
    """SMARTPOS_LANG is cached; reset() reads it again."""
    env_lang("pt_BR")
    assert PT == _messages.current_language()
    os.environ["SMARTPOS_LANG"] = "en"  # restored by monkeypatch
    assert PT == _messages.current_language()
    _messages.reset()
    assert EN == _messages.current_language()


# --- bad calls of both clients ---------------------------------------------------------------

REPRESENTATIVE = INVALID[::6]


async def _refusal(sdk: SDK, case: Invalid) -> smartpos.ValidationError:
    with pytest.raises(smartpos.ValidationError) as info:
        await sdk.call(case.resource, case.method, **case.kwargs)
    return info.value


@pytest.mark.asyncio
@pytest.mark.parametrize("case", INVALID)
async def test_bad_calls_are_refused_in_portuguese_with_lang_pt_br(
    make_sdk: Callable[..., SDK], env_lang: Callable[[str | None], None], case: Invalid
) -> None:
    """Under lang="pt_BR" every local refusal is wholly Portuguese, with the same codigo and
    campo as in English; under lang="en" it is wholly English."""
    portuguese = await _refusal(make_sdk(lang="pt_BR"), case)
    english = await _refusal(make_sdk(lang="en"), case)
    assert (english.codigo, english.campo) == (portuguese.codigo, portuguese.campo)
    assert english.mensagem != portuguese.mensagem
    assert_portuguese(portuguese.mensagem)
    assert_english(english.mensagem)
    assert str(portuguese) == f"{case.codigo} (campo {case.campo}): {portuguese.mensagem}"


@pytest.mark.asyncio
@pytest.mark.parametrize("case", REPRESENTATIVE)
async def test_bad_calls_are_refused_in_portuguese_under_smartpos_lang(
    make_sdk: Callable[..., SDK], env_lang: Callable[[str | None], None], case: Invalid
) -> None:
    """SMARTPOS_LANG=pt_BR gives a client without lang= the Portuguese message."""
    expected = (await _refusal(make_sdk(lang="pt_BR"), case)).mensagem
    env_lang("pt_BR")
    assert expected == (await _refusal(make_sdk(), case)).mensagem


@pytest.mark.asyncio
@pytest.mark.parametrize("case", REPRESENTATIVE)
async def test_bad_calls_are_refused_in_english_by_default(
    make_sdk: Callable[..., SDK], env_lang: Callable[[str | None], None], case: Invalid
) -> None:
    """Without lang= and SMARTPOS_LANG, messages are English; lang="en" beats the variable."""
    default = (await _refusal(make_sdk(), case)).mensagem
    assert_english(default)
    env_lang("pt_BR")
    assert default == (await _refusal(make_sdk(lang="en"), case)).mensagem


def _answer(status: int, body: Any = None, **headers: str) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        if isinstance(body, bytes):
            return httpx.Response(status, content=body, headers=headers)
        return httpx.Response(status, json=body, headers=headers)

    return httpx.MockTransport(answer)


async def _raised(sdk: SDK, resource: str, method: str, **kwargs: Any) -> Exception:
    with pytest.raises(smartpos.SmartPOSError) as info:
        await sdk.call(resource, method, **kwargs)
    return info.value


PAYMENT = {"documento_cliente": CPF, "valor_centavos": 1590, "smartpos_id": "SP-1"}


@pytest.mark.asyncio
async def test_an_api_error_is_framed_in_portuguese_around_the_services_words(
    make_sdk: Callable[..., SDK], env_lang: Callable[[str | None], None]
) -> None:
    """The service's mensagem and acao stay as they came; the SDK's framing is Portuguese."""
    erro = {
        "erro": {
            "codigo": "VALOR_INVALIDO",
            "mensagem": "Valor inválido.",
            "acao": "Envie um valor positivo.",
            "campo": "valorCentavos",
        }
    }
    transport = _answer(400, erro, **{"x-request-id": "req-1"})
    error = await _raised(
        make_sdk(lang="pt_BR", transport=transport), "payments", "create", **PAYMENT
    )
    assert isinstance(error, smartpos.ValorInvalidoError)
    assert (
        "HTTP 400 VALOR_INVALIDO: Valor inválido (campo valorCentavos). O que fazer: Envie um "
        "valor positivo. [id da requisição req-1]"
    ) == str(error)
    english = await _raised(make_sdk(transport=transport), "payments", "create", **PAYMENT)
    assert (
        "HTTP 400 VALOR_INVALIDO: Valor inválido (campo valorCentavos). What to do: Envie um "
        "valor positivo. [request id req-1]"
    ) == str(english)


@pytest.mark.asyncio
async def test_an_api_error_without_a_body_says_so_in_portuguese(
    make_sdk: Callable[..., SDK], env_lang: Callable[[str | None], None]
) -> None:
    """An HTML 502 page and a bare 429 get the SDK's own sentence, in Portuguese."""
    sdk = make_sdk(lang="pt_BR", max_retries=0, transport=_answer(502, b"<html>bad gateway</html>"))
    error = await _raised(sdk, "qrcodes", "create", documento_cliente=CPF)
    assert "HTTP 502: o serviço falhou; tente de novo mais tarde" == str(error)
    sdk = make_sdk(lang="pt_BR", max_retries=0, transport=_answer(429, b""))
    error = await _raised(sdk, "terminals", "list", documento_cliente=CPF)
    assert "HTTP 429: requisições demais; diminua o ritmo e tente de novo mais tarde" == str(error)


@pytest.mark.asyncio
async def test_an_unknown_outcome_is_wholly_portuguese(
    make_sdk: Callable[..., SDK], env_lang: Callable[[str | None], None]
) -> None:
    """OutcomeUnknownError and the error inside it (last_error) speak the client's language."""
    erro = {"erro": {"codigo": "ERRO_INTERNO", "mensagem": "Erro interno."}}
    sdk = make_sdk(lang="pt_BR", max_retries=0, transport=_answer(500, erro))
    error = await _raised(sdk, "payments", "create", referencia=REF, **PAYMENT)
    assert isinstance(error, smartpos.OutcomeUnknownError)
    assert (
        f"o resultado da referencia {REF} é desconhecido após 1 tentativa(s) (último erro: "
        "ErroInternoError: HTTP 500 ERRO_INTERNO: Erro interno). O serviço pode tê-la aceitado: "
        "não tente de novo com uma nova referencia; espere o evento de webhook com esta "
        "referencia."
    ) == str(error)


@pytest.mark.asyncio
async def test_a_network_failure_and_a_closed_client_speak_portuguese(
    make_sdk: Callable[..., SDK], env_lang: Callable[[str | None], None]
) -> None:
    """TransportError and ClientClosedError: the SDK's words Portuguese, httpx's kept."""

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("recusada", request=request)

    sdk = make_sdk(lang="pt_BR", max_retries=1, transport=httpx.MockTransport(refuse))
    error = await _raised(sdk, "qrcodes", "create", documento_cliente=CPF)
    assert isinstance(error, smartpos.TransportError)
    assert "POST /qrcode falhou após 2 tentativa(s): ConnectError: recusada" == str(error)
    await sdk.close()
    error = await _raised(sdk, "terminals", "list", documento_cliente=CPF)
    assert isinstance(error, smartpos.ClientClosedError)
    assert_portuguese(str(error))
    assert str(error).startswith("GET /v1/customers/123.***.***-09/smartpos não foi enviado")


@pytest.mark.asyncio
async def test_an_unreadable_answer_speaks_portuguese(
    make_sdk: Callable[..., SDK], env_lang: Callable[[str | None], None]
) -> None:
    """ResponseError (a 2xx body that is not JSON, or about another referencia)."""
    sdk = make_sdk(lang="pt_BR", transport=_answer(201, b"oops", **{"content-type": "text/html"}))
    error = await _raised(sdk, "qrcodes", "create", documento_cliente=CPF)
    assert isinstance(error, smartpos.ResponseError)
    assert "POST /qrcode respondeu 201 com um corpo que não é JSON (text/html, 4 bytes)" == str(
        error
    )
    other = {**ACCEPTANCE_JSON, "referencia": "outra"}
    sdk = make_sdk(lang="pt_BR", transport=_answer(202, other))
    error = await _raised(sdk, "payments", "create", referencia=REF, **PAYMENT)
    assert isinstance(error, smartpos.OutcomeUnknownError)
    assert isinstance(error.last_error, smartpos.ResponseError)
    assert_portuguese(str(error.last_error))
    assert "para a referencia 'outra', não para a referencia enviada" in str(error.last_error)


@pytest.mark.asyncio
async def test_a_clients_language_stays_with_its_calls(
    make_sdk: Callable[..., SDK], env_lang: Callable[[str | None], None]
) -> None:
    """After a Portuguese client's refusal, a default client still refuses in English: the
    language of one client's call never leaks into the caller's context."""
    case = INVALID[0].values[0]
    await _refusal(make_sdk(lang="pt_BR"), case)
    assert_english((await _refusal(make_sdk(), case)).mensagem)
    with pytest.raises(smartpos.ValidationError) as info:
        smartpos.new_referencia(suffix="a b")
    assert_english(str(info.value))


@pytest.mark.asyncio
async def test_concurrent_async_clients_each_speak_their_language(
    env_lang: Callable[[str | None], None],
) -> None:
    """Two AsyncClients refusing at once in one event loop: each message in its client's."""
    erro = {"erro": {"codigo": "ERRO_INTERNO", "mensagem": "Erro interno."}}
    clients = [
        smartpos.AsyncClient(
            api_key=API_KEY,
            base_url=BASE_URL,
            lang=lang,
            max_retries=3,
            retry_backoff=0.001,
            transport=_answer(500, erro),
        )
        for lang in ("pt_BR", "en", "pt_BR", "en")
    ]

    async def fail(client: smartpos.AsyncClient) -> str:
        try:
            await client.payments.create(**PAYMENT)
        except smartpos.OutcomeUnknownError as exc:
            return str(exc)
        raise AssertionError("no error")

    try:
        texts = await asyncio.gather(*(fail(client) for client in clients))
    finally:
        for client in clients:
            await client.close()
    assert_portuguese(texts[0])
    assert_english(texts[1])
    assert_portuguese(texts[2])
    assert_english(texts[3])


# --- building a client -----------------------------------------------------------------------


def test_a_clients_construction_errors_speak_its_language(
    client_class: type[smartpos.Client] | type[smartpos.AsyncClient],
    no_env: None,
    env_lang: Callable[[str | None], None],
) -> None:
    """Missing key, a bad option, an http_client or a transport of the other flavour."""
    expected = "httpx.AsyncClient" if client_class is smartpos.AsyncClient else "httpx.Client"
    cases: list[tuple[dict[str, Any], str]] = [
        ({"api_key": None}, "falta a chave de API"),
        ({"api_key": "https://host/api"}, "a chave de API parece uma URL; api_key e base_url"),
        ({"base_url": "host"}, "base_url deve ser uma URL http(s) absoluta"),
        ({"timeout": -1}, "timeout deve ser um número positivo de segundos"),
        (
            {"http_client": object()},
            f"http_client deve ser um {expected}/{expected.replace('httpx.', 'httpx2.')}, "
            "não object",
        ),
        ({"transport": object()}, "object não é um transport do httpx"),
    ]
    for options, expected_text in cases:
        arguments = {"api_key": API_KEY, "base_url": BASE_URL, "lang": "pt_BR", **options}
        with pytest.raises(smartpos.ConfigurationError) as info:
            client_class(**arguments)
        assert expected_text in str(info.value)
        assert_portuguese(str(info.value))
        assert API_KEY not in str(info.value)


@pytest.mark.parametrize("lang", ["es", "pt_PT", "", 1])
def test_an_unknown_lang_is_refused(
    client_class: type[smartpos.Client] | type[smartpos.AsyncClient],
    env_lang: Callable[[str | None], None],
    lang: object,
) -> None:
    """lang= is "en", "pt_BR" (or a spelling of them) or None; a typo must not pass silently."""
    with pytest.raises(smartpos.ConfigurationError) as info:
        client_class(api_key=API_KEY, base_url=BASE_URL, lang=lang)  # type: ignore[arg-type]
    assert "lang must be 'en', 'pt_BR' or None" in str(info.value)
    assert repr(lang) in str(info.value)


@pytest.mark.parametrize("lang", ["pt-BR", "PT", "pt_br", "en_US"])
def test_spellings_of_lang_are_accepted(
    client_class: type[smartpos.Client] | type[smartpos.AsyncClient], lang: str
) -> None:
    """The spellings SMARTPOS_LANG accepts are accepted by lang= too, and normalized."""
    client = client_class(api_key=API_KEY, base_url=BASE_URL, lang=lang)
    assert _messages.language_of(lang) == client._config.lang


# --- outside the clients ---------------------------------------------------------------------


@given(value=st.floats())
def test_to_centavos_refuses_a_float_in_portuguese(value: float) -> None:
    """Under SMARTPOS_LANG=pt_BR the helpers without a client speak Portuguese too."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SMARTPOS_LANG", "pt_BR")
        _messages.reset()
        try:
            with pytest.raises(smartpos.ValidationError) as info:
                smartpos.to_centavos(value)  # type: ignore[arg-type]
        finally:
            _messages.reset()
    assert info.value.mensagem.startswith(f"{value!r} é um float")
    assert_portuguese(info.value.mensagem)


def test_referencia_helpers_speak_portuguese(env_lang: Callable[[str | None], None]) -> None:
    """new_referencia and referencia_for follow SMARTPOS_LANG."""
    env_lang("pt_BR")
    for call in (
        lambda: smartpos.new_referencia(suffix="a b"),
        lambda: smartpos.referencia_for(""),
        lambda: smartpos.referencia_for(7),  # type: ignore[arg-type]
    ):
        with pytest.raises(smartpos.ValidationError) as info:
            call()
        assert_portuguese(info.value.mensagem)


def test_a_webhooks_constructor_speaks_portuguese(env_lang: Callable[[str | None], None]) -> None:
    """The stores, receiver and worker check their options in SMARTPOS_LANG's language."""
    from smartpos import webhooks

    env_lang("pt_BR")
    with pytest.raises(smartpos.ConfigurationError) as info:
        webhooks.MemoryStore(max_events=0)
    assert "max_events deve ser um int >= 1, não 0" == str(info.value)
    with pytest.raises(smartpos.ConfigurationError) as info:
        webhooks.Worker(webhooks.MemoryStore(), handler=lambda event: None, lease=-1)
    assert "lease deve ser um número finito > 0 de segundos, não -1" == str(info.value)


def test_an_interruption_note_is_portuguese_and_the_log_line_english(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The note added to Ctrl-C follows the client's language; the log line stays English."""
    config = _config.Config.create(
        api_key=API_KEY,
        base_url=BASE_URL,
        timeout=None,
        max_retries=0,
        retry_backoff=0,
        strict_referencia=True,
        lang="pt_BR",
    )
    call = _calls.payment_call(
        config,
        dict(
            referencia=REF,
            forma_pagamento=None,
            parcelas=None,
            parcelamento=None,
            modo_execucao="imediato",
            comanda=None,
            comprovante=None,
            **PAYMENT,
        ),
    )
    attempts = _core.Attempts(config, call)
    attempts.sending()
    interrupt = KeyboardInterrupt()
    with caplog.at_level(logging.WARNING, logger="smartpos"):
        attempts.interrupted(interrupt)
    note = interrupt.__notes__[-1]
    assert note.startswith("smartpos: POST /v1/payments foi interrompido")
    assert_portuguese(note)
    lines = [record.getMessage() for record in caplog.records]
    assert [
        f"smartpos: outcome unknown for POST /v1/payments referencia={REF}: interrupted by "
        "KeyboardInterrupt after 1 attempt(s)"
    ] == lines


def test_an_exception_keeps_its_language_through_pickle(
    env_lang: Callable[[str | None], None],
) -> None:
    """Rebuilt in a process of another language, an error keeps the words it was raised in."""
    env_lang("pt_BR")
    unknown = smartpos.OutcomeUnknownError(REF, ValueError("x"), attempts=2)
    refused = smartpos.BadRequestError(400, acao="Corrija.", request_id="r-1")
    env_lang("en")
    for error in (unknown, refused):
        copy = pickle.loads(pickle.dumps(error))
        assert str(error) == str(copy)
        assert_portuguese(str(copy))


# --- cost ----------------------------------------------------------------------------------


def test_the_catalog_loads_only_when_an_error_is_raised() -> None:
    """`import smartpos` loads no message code, a successful payment leaves the catalog
    unloaded, and an error loads it."""
    code = f"""
import sys
import httpx
import smartpos
assert "smartpos._message_catalog" not in sys.modules, "import"
assert "smartpos._messages" not in sys.modules, "import"
answer = httpx.MockTransport(lambda request: httpx.Response(202, json={ACCEPTANCE_JSON!r}))
with smartpos.Client(api_key="k", base_url="https://h.test", transport=answer) as client:
    client.payments.create(
        documento_cliente="{CPF}", valor_centavos=1590, smartpos_id="SP-1", referencia="{REF}"
    )
    assert "smartpos._message_catalog" not in sys.modules, "success"
    try:
        client.payments.create(documento_cliente="{CPF}", valor_centavos=0, smartpos_id="SP-1")
    except smartpos.ValidationError:
        pass
print("smartpos._message_catalog" in sys.modules)
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMARTPOS_")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert ("True\n", "") == (done.stdout, done.stderr)


# --- the command line ----------------------------------------------------------------------


def test_the_command_line_still_works_in_portuguese(
    env_lang: Callable[[str | None], None],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`smartpos pay` under SMARTPOS_LANG=pt_BR: same exit status, the SDK's words Portuguese,
    and the command's options still named (cli_words reads identifiers, not English)."""
    from smartpos.cli import main

    monkeypatch.setenv("SMARTPOS_API_KEY", API_KEY)
    monkeypatch.setenv("SMARTPOS_BASE_URL", "http://127.0.0.1:9")
    argv = ["pay", CPF, "100", "--forma", "pix", "--parcelas", "3", "--smartpos-id", "SP-1"]
    english_status = main(argv)
    english = capsys.readouterr().err
    env_lang("pt_BR")
    status = main(argv)
    portuguese = capsys.readouterr().err
    assert english_status == status != 0
    assert "pix does not take installments: send --parcelas 1 or omit it" in english
    assert "pix não aceita parcelas: envie --parcelas 1 ou omita o argumento" in portuguese


# --- the pending outcome and the options the integrations pass on -----------------------------


def test_a_pending_outcome_is_wholly_portuguese(env_lang: Callable[[str | None], None]) -> None:
    """OutcomePendingError, the cashier's "do not charge again", follows SMARTPOS_LANG, with
    the wait's own TimeoutError inside it, and keeps its words through pickle."""
    env_lang("pt_BR")
    error = smartpos.OutcomePendingError(REF, timeout=2.5)
    assert (
        f"nenhum evento final para a referencia {REF} em 2.5 s (último erro: TimeoutError: "
        "nenhum evento final em 2.5 s). O serviço a aceitou, ou pode tê-la aceitado: não cobre "
        f"de novo com uma nova referencia; espere de novo mais tarde com client.wait({REF!r}, "
        "timeout=...)."
    ) == str(error)
    env_lang("en")
    assert str(error) == str(pickle.loads(pickle.dumps(error)))
    english = smartpos.OutcomePendingError(REF, timeout=2.5)
    assert str(english).startswith(f"no final event for referencia {REF} within 2.5 s")
    assert_english(str(english))


@pytest.mark.parametrize(
    ("build", "start"),
    [
        (
            lambda: _receive.build_receiver(webhooks.MemoryStore(), options={"max_bodybytes": 1}),
            "opções inválidas do receptor de webhooks: opção(ões) desconhecida(s) max_bodybytes;",
        ),
        (
            lambda: _stores.open_store("memory://", {"max_event": 3}),
            "opções inválidas para um store memory: opção(ões) desconhecida(s) max_event;",
        ),
    ],
    ids=["receiver", "store"],
)
def test_an_unknown_option_of_an_integration_is_named_in_portuguese(
    env_lang: Callable[[str | None], None], build: Callable[[], object], start: str
) -> None:
    """A misspelt RECEIVER_OPTIONS / STORE_OPTIONS key: Python's English TypeError is not
    spliced into the Portuguese sentence; the option is named, with the ones that exist."""
    env_lang("pt_BR")
    with pytest.raises(smartpos.ConfigurationError) as info:
        build()
    assert str(info.value).startswith(start)
    assert "unexpected keyword" not in str(info.value)
    assert_portuguese(str(info.value))


# --- valorCentavos given in reais --------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("value", [19.9, "19,90", "19.90", decimal.Decimal("19.90")], ids=repr)
async def test_an_amount_in_reais_points_at_to_centavos(
    make_sdk: Callable[..., SDK], env_lang: Callable[[str | None], None], value: object
) -> None:
    """valor_centavos=19.9 or "19,90" is an amount in reais: the refusal, in either language,
    names smartpos.to_centavos, the converter that gets the cents exactly."""
    kwargs = {**PAYMENT, "valor_centavos": value}
    english = await _raised(make_sdk(), "payments", "create", **kwargs)
    portuguese = await _raised(make_sdk(lang="pt_BR"), "payments", "create", **kwargs)
    for error in (english, portuguese):
        assert isinstance(error, smartpos.ValidationError)
        assert ("VALOR_INVALIDO", "valorCentavos") == (error.codigo, error.campo)
        assert "smartpos.to_centavos" in error.mensagem
    assert_english(english.mensagem)
    assert_portuguese(portuguese.mensagem)
    if isinstance(value, str):
        assert f"smartpos.to_centavos({value!r})" in english.mensagem
        assert smartpos.to_centavos(value) == 1990  # what the message proposes works
