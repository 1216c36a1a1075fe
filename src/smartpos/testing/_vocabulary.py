"""The one vocabulary of outcomes and faults, shared by Python, the control API, the CLI and pytest.

Outcomes are named by the word a person says at the counter, in Portuguese, ASCII-safe (the
accented and spaced forms are accepted too: ``silêncio``, ``fora de ordem``, ``contradição``):

============  ========================  ===================================================
word          Python                    the event
============  ========================  ===================================================
aprovar       ``Approve()``             ``pagamento.aprovado``
recusar       ``Refuse()``              ``pagamento.recusado``
concluir      ``PrintDone()``           ``impressao.concluida``
falhar        ``PrintFail()``           ``impressao.falhou``
silencio      ``NoAnswer()``            none, ever
atraso N      ``Delay(N, then)``        delivered N seconds late
duplicar      ``Duplicate(then)``       delivered twice, same ``id``
fora-de-ordem ``OutOfOrder(then)``      delivered after the next event
contradicao   ``Contradict(then)``      followed by an event saying the opposite
segurar       ``Hold(then)``            held until ``Sandbox.release(referencia)``
============  ========================  ===================================================

Three written forms, one meaning:

- text, for the command line and pytest markers: words left to right, wrappers first, e.g.
  ``"recusar"``, ``"atraso 5"``, ``"atraso 5 duplicar recusar"``;
- JSON, for the control API: ``"recusar"`` or ``{"outcome": "recusar", "mensagemOperador":
  "SALDO INSUFICIENTE"}``, wrappers with ``then`` (``{"outcome": "atraso", "seconds": 5, "then":
  "recusar"}``); option keys are the event fields they set;
- the Python objects.

Faults are named after what the client sees: ``500`` (``InternalError``; ``afterAccept``),
``502``, ``429`` (``retryAfter``), ``latency`` (``seconds``), ``drop`` (the answer is lost after
acceptance; ``drop before-accept``, or ``afterAccept: false``, is ``refuse``), ``refuse`` (the
connection is closed before the request is read), ``timeout`` (``hold``); on the ``webhook``
endpoint, any non-2xx status or ``timeout``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any, get_args

import attrs

from ._faults import (
    BadGateway,
    ConnectionRefused,
    DropConnection,
    Endpoint,
    Fault,
    InternalError,
    Latency,
    RateLimited,
    ReadTimeout,
)
from ._outcomes import (
    Approve,
    Contradict,
    Delay,
    Duplicate,
    Hold,
    NoAnswer,
    Outcome,
    OutOfOrder,
    PrintDone,
    PrintFail,
    Refuse,
    check_outcome,
)

__all__ = [
    "BASES",
    "ENDPOINTS",
    "FAULTS",
    "KINDS",
    "WRAPPERS",
    "WebhookFault",
    "endpoint_name",
    "fault_from_json",
    "fault_from_text",
    "fault_to_json",
    "normalize_word",
    "outcome_from_json",
    "outcome_from_text",
    "outcome_to_json",
]

KINDS = ("payment", "print")
"""What an outcome applies to."""

BASES: dict[str, dict[str, type[Outcome]]] = {
    "payment": {"aprovar": Approve, "recusar": Refuse, "silencio": NoAnswer},
    "print": {"concluir": PrintDone, "falhar": PrintFail, "silencio": NoAnswer},
}
"""The outcome words of each kind."""

WRAPPERS: dict[str, type[Outcome]] = {
    "atraso": Delay,
    "duplicar": Duplicate,
    "fora-de-ordem": OutOfOrder,
    "contradicao": Contradict,
    "segurar": Hold,
}
"""The wrapper words, for both kinds."""

FAULTS: dict[str, type[Fault]] = {
    "500": InternalError,
    "502": BadGateway,
    "429": RateLimited,
    "latency": Latency,
    "drop": DropConnection,
    "refuse": ConnectionRefused,
    "timeout": ReadTimeout,
}
"""The fault words of the service's endpoints."""

ENDPOINTS = (*get_args(Endpoint), "webhook")
"""Where a fault applies; ``"webhook"`` is the delivery of events."""

# Option keys of each outcome and fault in JSON (the event field they set, for outcomes):
# key -> (attribute, JSON type: "text", "bool", "int" or "number").
_Options = dict[str, tuple[str, str]]
_TEXT_FIELDS: _Options = {
    "mensagemOperador": ("mensagem_operador", "text"),
    "codigoStatus": ("codigo_status", "text"),
}
_REFUSAL: _Options = {
    "status": ("status", "text"),
    **_TEXT_FIELDS,
    "executado": ("executado", "bool"),
}
_FIELDS: dict[type[Any], _Options] = {
    Approve: {
        "codigo": ("codigo", "text"),
        "numeroTransacao": ("numero_transacao", "text"),
        "dadosFinalizacao": ("dados_finalizacao", "text"),
        "tipoPagamento": ("tipo_pagamento", "text"),
        **_TEXT_FIELDS,
    },
    Refuse: _REFUSAL,
    PrintDone: _TEXT_FIELDS,
    PrintFail: _REFUSAL,
    NoAnswer: {},
    Delay: {"seconds": ("seconds", "number")},
    Duplicate: {"times": ("times", "int")},
    OutOfOrder: {},
    Contradict: {},
    Hold: {},
}
_FAULT_FIELDS: dict[type[Any], _Options] = {
    InternalError: {"afterAccept": ("after_accept", "bool")},
    BadGateway: {},
    RateLimited: {"retryAfter": ("retry_after", "int")},
    Latency: {"seconds": ("seconds", "number")},
    DropConnection: {},
    ConnectionRefused: {},
    ReadTimeout: {"hold": ("hold", "number")},
}
_THEN_ONLY = (OutOfOrder, Contradict, Hold)
"""The wrappers whose only option is ``then``."""
_NUMBER = re.compile(r"\d+(\.\d+)?")
_WHEN = {"after-accept": True, "before-accept": False}


@attrs.frozen
class WebhookFault:
    """A planned failure of webhook deliveries (``Sandbox.fail_webhook`` / ``slow_webhook``).

    Attributes:
        status_code: The status the target "answered", or ``None`` for a timeout.
    """

    status_code: int | None


def normalize_word(word: str) -> str:
    """Return the ASCII-safe spelling of a vocabulary word: no accents, lower case, hyphens.

    Args:
        word: ``"Silêncio"``, ``"fora de ordem"``, ``"fora_de_ordem"``, ``"contradição"``...

    Returns:
        ``"silencio"``, ``"fora-de-ordem"``, ``"contradicao"``...
    """
    decomposed = unicodedata.normalize("NFKD", word.strip().lower())
    ascii_word = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"[\s_]+", "-", ascii_word)


def _choices(kind: str) -> str:
    return ", ".join([*BASES[kind], "atraso SECONDS", *list(WRAPPERS)[1:]])


def _word(kind: str, word: str) -> type[Outcome]:
    if kind not in BASES:
        raise ValueError(f"an outcome is for a 'payment' or a 'print', not {kind!r}")
    name = normalize_word(word)
    found = BASES[kind].get(name) or WRAPPERS.get(name)
    if found is None:
        raise ValueError(f"unknown {kind} outcome {word!r}; one of: {_choices(kind)}")
    return found


def outcome_from_text(kind: str, text: str | list[str]) -> Outcome:
    """Read an outcome written as words: ``"recusar"``, ``"atraso 5 duplicar recusar"``.

    Args:
        kind: ``"payment"`` or ``"print"``.
        text: The words, in one string or already split.

    Returns:
        The outcome.

    Raises:
        ValueError: An unknown word, a missing number, or words after a final outcome.
    """
    joined = " ".join(text) if isinstance(text, list) else text
    # "fora de ordem" is one word with spaces: join it before splitting.
    joined = re.sub(r"fora[\s_-]+de[\s_-]+ordem", "fora-de-ordem", joined, flags=re.IGNORECASE)
    words = joined.split()
    if not words:
        raise ValueError(f"no outcome given; one of: {_choices(kind)}")
    return _from_words(kind, words, joined)


def _from_words(kind: str, words: list[str], text: str) -> Outcome:
    cls = _word(kind, words[0])
    rest = words[1:]
    if cls is Delay:
        if not rest or not _NUMBER.fullmatch(rest[0]):
            raise ValueError(f"atraso needs the seconds after it, e.g. 'atraso 5' (in {text!r})")
        seconds = float(rest[0])
        then = _from_words(kind, rest[1:], text) if rest[1:] else None
        return Delay(int(seconds) if seconds.is_integer() else seconds, then)
    if cls is Duplicate:
        times = 2
        if rest and rest[0].isdigit():
            times, rest = int(rest[0]), rest[1:]
        return Duplicate(_from_words(kind, rest, text) if rest else None, times)
    if cls in _THEN_ONLY:
        then = _from_words(kind, rest, text) if rest else None
        wrapped: Outcome = cls(then)
        check_outcome(kind, wrapped)
        return wrapped
    if rest:
        raise ValueError(f"nothing may follow {words[0]!r} in {text!r}")
    base: Outcome = cls()  # type: ignore[call-arg]
    return base


def outcome_from_json(kind: str, value: object) -> Outcome:
    """Read an outcome in the control API's JSON form (a word, or an object with ``outcome``).

    Args:
        kind: ``"payment"`` or ``"print"``.
        value: ``"recusar"``, ``"atraso 5"``, or ``{"outcome": "recusar", ...}``.

    Returns:
        The outcome.

    Raises:
        ValueError: Not an outcome of that kind, an unknown key, a value of the wrong type.
    """
    if isinstance(value, str):
        return outcome_from_text(kind, value)
    if not isinstance(value, Mapping):
        raise ValueError(f"an outcome is a word or an object with 'outcome', not {value!r}")
    data = dict(value)
    word = data.pop("outcome", None)
    if not isinstance(word, str):
        raise ValueError(f"an outcome object needs 'outcome' (a word), got {value!r}")
    cls = _word(kind, word)
    kwargs = _options(_FIELDS[cls], data, f"outcome {word!r}")
    if cls in WRAPPERS.values():
        then = data.pop("then", None)
        if then is not None:
            kwargs["then"] = outcome_from_json(kind, then)
    if data:
        raise ValueError(f"unknown keys for outcome {word!r}: {', '.join(sorted(data))}")
    try:
        outcome: Outcome = cls(**kwargs)
    except TypeError as exc:  # Delay without seconds
        raise ValueError(f"outcome {word!r}: {exc}") from None
    check_outcome(kind, outcome)
    return outcome


def _is(value: object, json_type: str) -> bool:
    if json_type == "text":
        return isinstance(value, str)
    if json_type == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    return isinstance(value, int) if json_type == "int" else isinstance(value, (int, float))


def _options(options: _Options, data: dict[str, Any], what: str) -> dict[str, Any]:
    """Move the known option keys out of ``data`` into keyword arguments, checking types."""
    kwargs: dict[str, Any] = {}
    for key, (attribute, json_type) in options.items():
        if key in data:
            value = data.pop(key)
            if not _is(value, json_type):
                raise ValueError(f"{what}: {key} must be {json_type}, not {value!r}")
            kwargs[attribute] = value
    return kwargs


def outcome_to_json(outcome: Outcome) -> dict[str, Any]:
    """Write an outcome in the control API's JSON form (every option, wrappers nested).

    Args:
        outcome: The outcome.

    Returns:
        ``{"outcome": word, ...options}``.
    """
    data: dict[str, Any] = {"outcome": type(outcome).NAME}
    for key, (attribute, _) in _FIELDS[type(outcome)].items():
        value = getattr(outcome, attribute)
        if value is not None:
            data[key] = value
    then = getattr(outcome, "then", None)
    if then is not None:
        data["then"] = outcome_to_json(then)
    return data


def endpoint_name(name: str) -> str:
    """Return the canonical endpoint name (``print-jobs`` -> ``print_jobs``, ``any`` -> ``*``).

    Args:
        name: An endpoint as typed.

    Returns:
        One of `ENDPOINTS`.

    Raises:
        ValueError: Not an endpoint.
    """
    canonical = {"any": "*", "print-jobs": "print_jobs", "webhooks": "webhook"}.get(
        name.strip().lower(), name.strip().lower()
    )
    if canonical not in ENDPOINTS:
        raise ValueError(f"unknown endpoint {name!r}; one of: {', '.join(ENDPOINTS)}")
    return canonical


def _webhook_fault(word: str) -> WebhookFault:
    if word == "timeout":
        return WebhookFault(None)
    if word.isdigit() and 100 <= int(word) <= 599 and not 200 <= int(word) < 300:
        return WebhookFault(int(word))
    raise ValueError(
        f"a webhook fault is a status that is not 2xx (e.g. 500, 503) or 'timeout', not {word!r}"
    )


def fault_from_json(endpoint: str, value: object) -> Fault | WebhookFault:
    """Read a fault in the control API's JSON form.

    Args:
        endpoint: Where it applies (see `ENDPOINTS`).
        value: ``"500"``, ``"latency 2"``, or ``{"fault": "429", "retryAfter": 3}``.

    Returns:
        The fault, or a `WebhookFault` for the ``webhook`` endpoint.

    Raises:
        ValueError: An unknown fault or key, a value of the wrong type.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str):
        return fault_from_text(endpoint, value)
    if not isinstance(value, Mapping):
        raise ValueError(f"a fault is a word or an object with 'fault', not {value!r}")
    data = dict(value)
    word = data.pop("fault", None)
    if isinstance(word, int) and not isinstance(word, bool):
        word = str(word)
    if not isinstance(word, str):
        raise ValueError(f"a fault object needs 'fault' (a word), got {value!r}")
    if endpoint_name(endpoint) == "webhook":
        if data:
            raise ValueError(f"unknown keys for a webhook fault: {', '.join(sorted(data))}")
        return _webhook_fault(word)
    if word.lower() == "drop" and data.pop("afterAccept", True) is False:
        word = "refuse"  # a drop before acceptance: nothing was read, nothing happened
    cls = FAULTS.get(word.lower())
    if cls is None:
        raise ValueError(f"unknown fault {word!r}; one of: {', '.join(FAULTS)}")
    kwargs = _options(_FAULT_FIELDS[cls], data, f"fault {word!r}")
    if data:
        raise ValueError(f"unknown keys for fault {word!r}: {', '.join(sorted(data))}")
    if cls is Latency and "seconds" not in kwargs:
        raise ValueError("latency needs 'seconds'")
    fault: Fault = cls(**kwargs)
    return fault


def fault_from_text(endpoint: str, text: str) -> Fault | WebhookFault:
    """Read a fault written as words: ``"500"``, ``"500 after-accept"``, ``"latency 2"``...

    The number after ``latency``, ``429`` and ``timeout`` is its seconds (``seconds``,
    ``retryAfter``, ``hold``).

    Args:
        endpoint: Where it applies.
        text: The words.

    Returns:
        The fault, or a `WebhookFault`.

    Raises:
        ValueError: An unknown fault, or a missing or extra word.
    """
    words = text.lower().split()
    if not words:
        raise ValueError(f"no fault given; one of: {', '.join(FAULTS)}")
    if endpoint_name(endpoint) == "webhook":
        if len(words) != 1:
            raise ValueError(f"a webhook fault is one word, not {text!r}")
        return _webhook_fault(words[0])
    word, rest = words[0], words[1:]
    data: dict[str, Any] = {"fault": word}
    number_key = {"latency": "seconds", "429": "retryAfter", "timeout": "hold"}.get(word)
    if rest and number_key and _NUMBER.fullmatch(rest[0]):
        number = float(rest.pop(0))
        data[number_key] = int(number) if number_key == "retryAfter" else number
    if rest and word in ("500", "drop") and normalize_word(rest[0]) in _WHEN:
        data["afterAccept"] = _WHEN[normalize_word(rest.pop(0))]
    if rest:
        raise ValueError(f"unexpected {' '.join(rest)!r} in fault {text!r}")
    return fault_from_json(endpoint, data)


def fault_to_json(fault: Fault | WebhookFault) -> dict[str, Any]:
    """Write a fault in the control API's JSON form.

    Args:
        fault: The fault.

    Returns:
        ``{"fault": word, ...options}``.
    """
    if isinstance(fault, WebhookFault):
        return {"fault": "timeout" if fault.status_code is None else str(fault.status_code)}
    word = next(name for name, cls in FAULTS.items() if isinstance(fault, cls))
    data: dict[str, Any] = {"fault": word}
    for key, (attribute, _) in _FAULT_FIELDS[type(fault)].items():
        data[key] = getattr(fault, attribute)
    return data
