"""Effects of a sale, once each: what ``Worker(on_sale=...)`` finds due (no I/O at all).

A worker with ``on_sale`` computes, inside the transaction that will ack an event of a sale,
the sale as it stands (``store.sale``) and the effects it owes the partner:

- ``paid``: the sale is paid (its counted approvals add up to its total); once per sale. A
  split bill is paid when its last needed approval is stored, whatever order the worker
  handles the approvals in;
- ``late_approval``: an approval of an abandoned attempt, money the sale did not take; once
  per attempt. The sale's rules refuse any charge above what remains before it is sent, so an
  approval beyond the total can only be that of an abandoned attempt;
- ``compensated``: the compensation refund of a late approval (``compensation_referencia``)
  was accepted by the service, and the event that ended it, if one came, is not a refusal;
  once per late approval. The service sends no refund events: ``client.compensate`` stores an
  event of its own once the refund is accepted (``COMPENSATION_ACCEPTED``), whose handling
  finds the effect due at once.

Each effect has a stable key (``effect_key``); the store records it in the same transaction
as the partner's writes and the ack, and an effect whose key is recorded is never due again.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final, Literal, TypeAlias, get_args

import attrs

from ._events import Event, PagamentoAprovado, PagamentoRecusado
from ._sales import Sale, compensation_referencia

__all__ = [
    "COMPENSATION_ACCEPTED",
    "EFFECT_KINDS",
    "MAX_EFFECT_KEY_CHARS",
    "EffectKind",
    "SaleEffect",
    "compensation_accepted",
    "due_effects",
    "effect_key",
    "is_internal",
]

#: The tipo of the event the SDK itself stores when the service accepted a compensation refund
#: (the service sends no refund events): a worker with ``on_sale`` then finds ``compensated``
#: due at once. Handlers see it as an event of an unknown tipo, which moves no money.
COMPENSATION_ACCEPTED: Final = "smartpos.compensacao.aceita"

EffectKind: TypeAlias = Literal["paid", "late_approval", "compensated"]
"""What happened to a sale: it was paid, an approval came late, a late approval was refunded."""

EFFECT_KINDS: Final[tuple[EffectKind, ...]] = get_args(EffectKind)


#: The longest effect key kept as it is: ``DjangoStore``'s key column holds 512 characters on
#: MySQL/MariaDB (``MYSQL_ID_CHARS``); every store records the same keys.
MAX_EFFECT_KEY_CHARS: Final = 512
# A longer key: its first characters, then this mark and the SHA-256 of the whole key.
_DIGEST_MARK: Final = ":sha256:"
_KEPT_CHARS: Final = MAX_EFFECT_KEY_CHARS - len(_DIGEST_MARK) - 64


def effect_key(sale_id: str, kind: EffectKind, referencia: str) -> str:
    """The stable key of one effect: ``sale:<id>:paid``, ``sale:<id>:<kind>:<referencia>``.

    A key longer than ``MAX_EFFECT_KEY_CHARS`` characters (a long sale id and a long
    referencia) is its first 440 characters, ``:sha256:`` and the hex SHA-256 of the whole key
    (UTF-8): 512 characters, which every store's key column holds, distinct for distinct
    effects. A key that fits is unchanged, so the keys recorded before stay the same.
    """
    key = f"sale:{sale_id}:paid" if kind == "paid" else f"sale:{sale_id}:{kind}:{referencia}"
    if len(key) <= MAX_EFFECT_KEY_CHARS:
        return key
    # surrogatepass: a JSON id may hold a lone surrogate, which strict UTF-8 refuses.
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return key[:_KEPT_CHARS] + _DIGEST_MARK + digest


@attrs.frozen(slots=True)
class SaleEffect:
    """One effect of a sale, handed once to ``Worker(on_sale=...)`` inside its transaction.

    Attributes:
        kind: ``"paid"`` (the sale is paid, once per sale), ``"late_approval"`` (an approval
            of an abandoned attempt, once per attempt) or ``"compensated"`` (the compensation
            refund of a late approval was accepted, once per late approval).
        key: The effect's stable key (``"sale:<sale_id>:paid"``,
            ``"sale:<sale_id>:late_approval:<referencia>"``,
            ``"sale:<sale_id>:compensated:<referencia>"``; one longer than 512 characters is
            its first 440, ``":sha256:"`` and the hex SHA-256 of the whole key): recorded by
            the store in the same transaction, and the idempotency key to give a call outside it (an
            e-mail, a fiscal service), which the transaction does not cover.
        sale: The sale as it stands inside the transaction.
        referencia: The attempt concerned: for ``paid``, the last attempt whose approval
            counts; for ``late_approval`` and ``compensated``, the abandoned attempt (its
            refund's referencia is ``compensation_referencia(referencia)``).
        event: The event being handled when the effect was found (an event of the sale).
        connection: The transaction's connection: ``sqlite3.Connection`` (``SQLiteStore``),
            ``psycopg.Connection`` (``PostgresStore``), Django's connection of the store's
            alias (``DjangoStore``). Write through it: those writes, the effect's key and the
            ack commit together or not at all.
    """

    kind: EffectKind
    key: str
    sale: Sale = attrs.field(repr=False)
    referencia: str
    event: Event = attrs.field(repr=False)
    connection: Any = attrs.field(repr=False, eq=False)

    @property
    def sale_id(self) -> str:
        """The sale's key."""
        return self.sale.sale_id


def due_effects(sale: Sale) -> list[tuple[EffectKind, str]]:
    """The effects a sale owes as it stands, as ``(kind, referencia)``, in a fixed order.

    ``paid`` first, then each late approval in attempt order followed by its compensation
    when it is settled. The caller skips those whose key is already recorded.
    """
    due: list[tuple[EffectKind, str]] = []
    counted = [
        op.referencia
        for op in sale.attempts
        if op.abandoned is None and isinstance(op.event, PagamentoAprovado)
    ]
    if sale.state == "paid" and counted:
        due.append(("paid", counted[-1]))
    refunds = {op.referencia: op for op in sale.compensations}
    for op in sale.attempts:
        if op.abandoned is None or not isinstance(op.event, PagamentoAprovado):
            continue
        due.append(("late_approval", op.referencia))
        refund = refunds.get(compensation_referencia(op.referencia))
        if (
            refund is not None
            and refund.state in ("accepted", "final")
            and not isinstance(refund.event, PagamentoRecusado)
        ):
            due.append(("compensated", op.referencia))
    return due


def compensation_accepted(
    referencia: str, sale_id: str, original: str, valor_centavos: int | None, now: float
) -> dict[str, Any]:
    """The envelope ``client.compensate`` stores once the service accepted a compensation.

    Its id is fixed by the refund's referencia, so storing it again is a duplicate; its
    ``dados.referencia`` is the refund's, which the journal keeps under the sale: the worker
    that handles it computes the sale and finds ``compensated`` due.
    """
    import datetime as _dt

    return {
        "id": f"{COMPENSATION_ACCEPTED}:{referencia}",
        "tipo": COMPENSATION_ACCEPTED,
        "criadoEm": _dt.datetime.fromtimestamp(now, tz=_dt.timezone.utc).isoformat(),
        "dados": {
            "referencia": referencia,
            "venda": sale_id,
            "referenciaOriginal": original,
            "valorCentavos": valor_centavos,
        },
    }


def is_internal(event: Event) -> bool:
    """Tell whether an event is the SDK's own (``COMPENSATION_ACCEPTED``), not the service's.

    Workers never hand it to a handler: it only lets ``on_sale`` find ``compensated`` due,
    and is acknowledged like any other. A forged one moves nothing: the effect is due only
    when the journal holds the compensation refund as accepted.
    """
    return event.tipo == COMPENSATION_ACCEPTED
