"""The one vocabulary of outcomes and faults: words, JSON and objects say the same thing."""

from __future__ import annotations

from typing import Any

import pytest

from smartpos.testing import (
    Approve,
    BadGateway,
    ConnectionRefused,
    Contradict,
    Delay,
    DropConnection,
    Duplicate,
    Hold,
    InternalError,
    Latency,
    NoAnswer,
    OutOfOrder,
    PrintDone,
    PrintFail,
    RateLimited,
    ReadTimeout,
    Refuse,
)
from smartpos.testing._vocabulary import (
    WebhookFault,
    fault_from_json,
    fault_from_text,
    fault_to_json,
    normalize_word,
    outcome_from_json,
    outcome_from_text,
    outcome_to_json,
)


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        ("payment", "aprovar", Approve()),
        ("payment", " RECUSAR ", Refuse()),
        ("payment", "silêncio", NoAnswer()),
        ("payment", "atraso 2.5", Delay(2.5)),
        ("payment", "atraso 5 recusar", Delay(5, Refuse())),
        ("payment", "duplicar 3 aprovar", Duplicate(Approve(), 3)),
        ("payment", "fora_de_ordem", OutOfOrder()),
        ("payment", "Fora de Ordem recusar", OutOfOrder(Refuse())),
        ("payment", "contradição", Contradict()),
        ("payment", "contradicao recusar", Contradict(Refuse())),
        ("payment", "Segurar", Hold()),
        ("payment", "segurar aprovar", Hold(Approve())),
        ("payment", "segurar contradicao recusar", Hold(Contradict(Refuse()))),
        ("payment", "atraso 5 segurar duplicar", Delay(5, Hold(Duplicate()))),
        ("print", "segurar falhar", Hold(PrintFail())),
        ("print", "concluir", PrintDone()),
        ("print", "atraso 1 falhar", Delay(1, PrintFail())),
        ("print", ["duplicar", "falhar"], Duplicate(PrintFail())),
    ],
)
def test_words(kind: str, text: str | list[str], expected: Any) -> None:
    """Words read left to right, wrappers first; accents, case and spaces do not matter."""
    assert expected == outcome_from_text(kind, text)


@pytest.mark.parametrize(
    "outcome",
    [
        Approve(codigo="A1B2C3", numero_transacao="1", tipo_pagamento="PIX"),
        Refuse(status="cancelado", mensagem_operador="X", codigo_status="51", executado=False),
        NoAnswer(),
        Delay(3, Duplicate(Refuse(), 4)),
        OutOfOrder(Contradict(Approve())),
        Contradict(),
        Contradict(Refuse()),
        Hold(),
        Hold(Contradict(Refuse(mensagem_operador="SALDO INSUFICIENTE"))),
    ],
)
def test_json_round_trip(outcome: Any) -> None:
    """An outcome written as JSON reads back as the same object."""
    assert outcome == outcome_from_json("payment", outcome_to_json(outcome))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "no outcome"),
        (3, "a word or an object"),
        ({"mensagemOperador": "x"}, "needs 'outcome'"),
        ({"outcome": "recusar", "executado": "yes"}, "executado must be bool"),
        ({"outcome": "recusar", "nada": 1}, "unknown keys"),
        ({"outcome": "atraso"}, "outcome 'atraso'"),
        ({"outcome": "atraso", "seconds": 9999}, "0 to 3600"),
        ({"outcome": "duplicar", "times": 1}, "2 to 10"),
        ({"outcome": "duplicar", "times": 2.5}, "times must be int"),
        ({"outcome": "contradicao", "then": "silencio"}, "NoAnswer"),
        ({"outcome": "segurar", "then": "silencio"}, "Hold needs an outcome with an event"),
        ({"outcome": "segurar", "then": "atraso 5 silencio"}, "Hold needs an outcome"),
        ("contradicao duplicar silencio", "Contradict needs an outcome with an event"),
        ({"outcome": "segurar", "seconds": 5}, "unknown keys for outcome 'segurar'"),
        ("segurar concluir", "unknown payment outcome"),
        ("falhar", "unknown payment outcome"),
        ("duplicar 2 recusar aprovar", "nothing may follow"),
    ],
)
def test_what_is_not_an_outcome(value: object, message: str) -> None:
    """Everything else is a ValueError that says what is wrong."""
    with pytest.raises(ValueError, match=message):
        outcome_from_json("payment", value)


def test_the_json_of_a_hold_names_its_word() -> None:
    """Hold is written {"outcome": "segurar", "then": ...}, as the control API reads it."""
    assert {"outcome": "segurar"} == outcome_to_json(Hold())
    assert {"outcome": "segurar", "then": outcome_to_json(Approve())} == outcome_to_json(
        Hold(Approve())
    )


def test_a_kind_that_does_not_exist() -> None:
    """Outcomes are for payments and prints only."""
    with pytest.raises(ValueError, match="'payment' or a 'print'"):
        outcome_from_text("refund", "aprovar")


def test_wrappers_check_their_numbers() -> None:
    """Delay and Duplicate refuse numbers of the wrong type, as objects too."""
    with pytest.raises(TypeError):
        Delay(True)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Duplicate(times=2.0)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("endpoint", "value", "expected"),
    [
        ("payments", "500", InternalError()),
        ("payments", "500 after-accept", InternalError(after_accept=True)),
        ("any", "502", BadGateway()),
        ("print-jobs", "429 3", RateLimited(3)),
        ("payments", "latency 0.5", Latency(0.5)),
        ("payments", "drop", DropConnection()),
        ("payments", "drop after-accept", DropConnection()),
        ("payments", "drop before-accept", ConnectionRefused()),
        ("payments", "refuse", ConnectionRefused()),
        ("payments", "timeout 2", ReadTimeout(2.0)),
        ("payments", 500, InternalError()),
        ("payments", {"fault": 429, "retryAfter": 9}, RateLimited(9)),
        ("payments", {"fault": "drop", "afterAccept": False}, ConnectionRefused()),
        ("webhook", "503", WebhookFault(503)),
        ("webhooks", {"fault": "timeout"}, WebhookFault(None)),
    ],
)
def test_fault_words_and_json(endpoint: str, value: object, expected: object) -> None:
    """Fault words and JSON read to the fault objects; they write back to the same."""
    fault = fault_from_json(endpoint, value)
    assert expected == fault
    assert fault == fault_from_json(endpoint, fault_to_json(fault))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("endpoint", "value", "message"),
    [
        ("payments", "", "no fault"),
        ("payments", "boom", "unknown fault"),
        ("payments", "500 later", "unexpected"),
        ("payments", {"fault": "latency"}, "needs 'seconds'"),
        ("payments", {"fault": "429", "retryAfter": "3"}, "retryAfter must be int"),
        ("payments", {"fault": "502", "x": 1}, "unknown keys"),
        ("payments", {"retryAfter": 1}, "needs 'fault'"),
        ("payments", [1], "a word or an object"),
        ("webhook", "200", "not 2xx"),
        ("webhook", "503 later", "one word"),
        ("webhook", {"fault": "503", "x": 1}, "unknown keys"),
        ("nowhere", "500", "unknown endpoint"),
    ],
)
def test_what_is_not_a_fault(endpoint: str, value: object, message: str) -> None:
    """A fault the vocabulary does not know is a ValueError saying what is wrong."""
    with pytest.raises(ValueError, match=message):
        fault_from_json(endpoint, value)


def test_text_faults_are_the_json_ones() -> None:
    """fault_from_text is fault_from_json for strings."""
    assert fault_from_text("payments", "429 2") == fault_from_json("payments", "429 2")


def test_normalize_word() -> None:
    """The ASCII spelling: no accents, lower case, hyphens."""
    assert ["silencio", "fora-de-ordem", "contradicao"] == [
        normalize_word(w) for w in ("Silêncio", " fora de  ordem", "contradição")
    ]
