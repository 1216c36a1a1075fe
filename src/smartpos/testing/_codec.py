"""The sandbox's records as the control API's JSON, and back: camelCase keys, bytes as Base64.

Written for the records of `_records` and `_delivery` only (flat attrs classes,
one nested record in [`LogEntry`][smartpos.testing.LogEntry]); the SDK's converter is not used, as
everywhere in the sandbox. A webhook target that is not a URL (a callable, a receiver object)
is written as its description.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, TypeVar, cast

import attrs

from ._delivery import DeliveryAttempt, describe_target
from ._records import LogEntry, RecordedRequest

__all__ = ["camel", "from_json", "to_json"]

_T = TypeVar("_T")

_BYTES = frozenset({"conteudo"})
_TUPLES = frozenset({"targets"})


def camel(name: str) -> str:
    """``documento_cliente`` -> ``documentoCliente``.

    Args:
        name: A snake_case attribute name.

    Returns:
        Its camelCase JSON key.
    """
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def to_json(value: Any) -> Any:
    """Return a record (or a list or mapping of them) as JSON-ready data.

    Args:
        value: A record, a list, a mapping, or a JSON scalar.

    Returns:
        Plain dicts, lists and scalars.
    """
    if isinstance(value, LogEntry):
        return {
            "seq": value.seq,
            "at": value.at,
            "kind": value.kind,
            value.kind: to_json(value.record),
        }
    if attrs.has(type(value)):
        data: dict[str, Any] = {}
        for field in attrs.fields(type(value)):
            item = getattr(value, field.name)
            if field.name in _BYTES and isinstance(item, bytes):
                item = base64.b64encode(item).decode("ascii")
            elif field.name == "webhook_target" and item is not None:
                item = describe_target(item)
            data[camel(field.name)] = to_json(item)
        return data
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return value


def from_json(cls: type[_T], data: Mapping[str, Any]) -> _T:
    """Build a record of ``cls`` from `to_json`'s output.

    Args:
        cls: The record class.
        data: Its JSON object.

    Returns:
        The record.

    Raises:
        KeyError: A required key is missing.
    """
    if cls is LogEntry:
        record_type: type[Any] = RecordedRequest if data["kind"] == "request" else DeliveryAttempt
        entry: Any = LogEntry(data["seq"], data["at"], from_json(record_type, data[data["kind"]]))
        return cast(_T, entry)
    kwargs: dict[str, Any] = {}
    for field in attrs.fields(cls):  # type: ignore[arg-type]
        key = camel(field.name)
        if key not in data:
            continue
        item = data[key]
        if field.name in _BYTES and isinstance(item, str):
            item = base64.b64decode(item)
        elif field.name in _TUPLES and isinstance(item, list):
            item = tuple(item)
        kwargs[field.name] = item
    return cls(**kwargs)
