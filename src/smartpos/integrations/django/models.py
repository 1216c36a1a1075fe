"""The tables of ``DjangoStore``: the inbox, the outcome journal and sales, as Django models.

``python manage.py migrate`` creates them. Their names start with ``smartpos_`` but never
match ``SQLiteStore``'s (``smartpos_inbox``, ``smartpos_operations``...), so both may live in
one SQLite file. Times are float epoch seconds and envelopes canonical JSON text, as in the
other SQL stores; the store writes them with its own statements (``_store.py``): these models
are the schema, and what an admin page or a partner's query reads. Ids and referencias
compare byte for byte on every database (``_fields.py``: on MySQL/MariaDB a binary ``NO PAD``
collation, and at most 512 characters).
"""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage
from django.db import models

from smartpos.integrations.django._fields import ExactCharField, ExactTextField

__all__ = ["Effect", "Event", "Operation", "Sale", "TerminalHold"]


class _Model(models.Model):
    """The models' base: their partial indexes are whole ones where conditions are unknown."""

    class Meta:
        abstract = True

    @classmethod
    def check(cls, **kwargs: Any) -> list[CheckMessage]:
        # models.W037 (MySQL/MariaDB "does not support indexes with conditions"): there the
        # indexes are created whole, a larger index on the same columns, which is all the
        # store's statements need; the warning would ask every `migrate` to be silenced.
        return [e for e in super().check(**kwargs) if e.id != "models.W037"]


class Event(_Model):
    """One webhook event of the inbox, with its lease and attempts."""

    seq: models.BigAutoField[int, int] = models.BigAutoField(primary_key=True)
    event_id: models.CharField[str, str] = ExactCharField(max_length=256, unique=True)
    tipo: models.CharField[str, str] = models.CharField(max_length=256)
    criado_em: models.FloatField[float | None, float | None] = models.FloatField(null=True)
    raw: models.TextField[str, str] = models.TextField()
    body_hash: models.CharField[str, str] = models.CharField(max_length=64)
    state: models.CharField[str, str] = models.CharField(max_length=8)
    attempts: models.IntegerField[int, int] = models.IntegerField(default=0)
    received_at: models.FloatField[float, float] = models.FloatField()
    # Not NULL exactly while the event is pending or claimed: when it may next be claimed.
    available_at: models.FloatField[float | None, float | None] = models.FloatField(null=True)
    owner: models.TextField[str | None, str | None] = models.TextField(null=True)
    token: models.CharField[str | None, str | None] = ExactCharField(max_length=32, null=True)
    lease_expires_at: models.FloatField[float | None, float | None] = models.FloatField(null=True)
    last_error: models.TextField[str | None, str | None] = models.TextField(null=True)
    done_at: models.FloatField[float | None, float | None] = models.FloatField(null=True)
    # The envelope's dados.referencia, written with the event: the journal finds it by index.
    referencia: models.TextField[str | None, str | None] = ExactTextField(null=True)

    class Meta:
        db_table = "smartpos_event"
        # The store's reads walk these in claim order and stop at their LIMIT (_store.py).
        # Where indexes have no conditions (MySQL/MariaDB) they are whole ones: the claim
        # index then serves list() of every state, the state index every other walk.
        indexes = [
            # The events that can be claimed (pending or claimed), in claim order.
            models.Index(
                fields=["criado_em", "seq"],
                name="smartpos_event_claim",
                condition=models.Q(available_at__isnull=False),
            ),
            # Done and dead events (those without an available_at), each state in claim order.
            models.Index(
                fields=["state", "criado_em", "seq"],
                name="smartpos_event_state",
                condition=models.Q(available_at__isnull=True),
            ),
            # Purge: the done events in the order they were done.
            models.Index(
                fields=["done_at"],
                name="smartpos_event_done",
                condition=models.Q(state="done"),
            ),
            models.Index(
                fields=["referencia", "seq"],
                name="smartpos_event_referencia",
                condition=models.Q(referencia__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} ({self.tipo}, {self.state})"


class Operation(_Model):
    """One journaled operation (a payment, refund, print job or QR code) and its outcome."""

    seq: models.BigAutoField[int, int] = models.BigAutoField(primary_key=True)
    referencia: models.TextField[str, str] = ExactTextField(unique=True)
    kind: models.CharField[str, str] = models.CharField(max_length=16)
    state: models.CharField[str, str] = models.CharField(max_length=16)
    method: models.CharField[str, str] = models.CharField(max_length=16)
    path: models.TextField[str, str] = models.TextField()
    body: models.BinaryField[bytes, bytes] = models.BinaryField()
    answer: models.TextField[str | None, str | None] = models.TextField(null=True)
    final_event: models.TextField[str | None, str | None] = models.TextField(null=True)
    created_at: models.FloatField[float, float] = models.FloatField()
    updated_at: models.FloatField[float, float] = models.FloatField()
    sale: models.TextField[str | None, str | None] = ExactTextField(null=True)
    pending_after: models.FloatField[float | None, float | None] = models.FloatField(null=True)
    abandoned: models.TextField[str | None, str | None] = models.TextField(null=True)
    # Events stored with this referencia (counted for attempts of a sale only).
    events: models.IntegerField[int, int] = models.IntegerField(default=0)

    class Meta:
        db_table = "smartpos_operation"
        indexes = [
            models.Index(
                fields=["seq"],
                name="smartpos_operation_waiting",
                condition=models.Q(state__in=["sending", "accepted", "unknown"]),
            ),
            models.Index(
                fields=["updated_at"],
                name="smartpos_operation_ended",
                condition=models.Q(state__in=["final", "rejected"]),
            ),
            models.Index(
                fields=["sale", "seq"],
                name="smartpos_operation_sale",
                condition=models.Q(sale__isnull=False),
            ),
            # The attempts that may need a human (see _store.CANDIDATE): the till's review
            # reads this index of few rows, not every sale.
            models.Index(
                fields=["sale"],
                name="smartpos_operation_attention",
                condition=models.Q(sale__isnull=False, kind="payment")
                & (
                    models.Q(state__in=["sending", "accepted", "unknown"])
                    | models.Q(events__gte=2)
                    | (
                        models.Q(events__gte=1)
                        & (models.Q(abandoned__isnull=False) | models.Q(state="rejected"))
                    )
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.referencia} ({self.state})"


class Sale(_Model):
    """A sale: its total, and a version each attempt increments (the compare-and-set)."""

    seq: models.BigAutoField[int, int] = models.BigAutoField(primary_key=True)
    sale_id: models.TextField[str, str] = ExactTextField(unique=True)
    total_centavos: models.BigIntegerField[int, int] = models.BigIntegerField()
    version: models.IntegerField[int, int] = models.IntegerField()
    created_at: models.FloatField[float, float] = models.FloatField()
    updated_at: models.FloatField[float, float] = models.FloatField()

    class Meta:
        db_table = "smartpos_sale"

    def __str__(self) -> str:
        return self.sale_id


class TerminalHold(_Model):
    """The attempt that last held a terminal (``imediato`` charges), and until when."""

    smartpos_id: models.TextField[str, str] = ExactTextField(primary_key=True)
    referencia: models.TextField[str, str] = ExactTextField()
    hold_until: models.FloatField[float, float] = models.FloatField()

    class Meta:
        db_table = "smartpos_terminalhold"

    def __str__(self) -> str:
        return self.smartpos_id


class Effect(_Model):
    """An effect of a sale a transactional worker applied once (``Worker(on_sale=...)``).

    Recorded in the transaction of the partner's writes and the ack: a key here means the
    ``on_sale`` callback of that effect committed.
    """

    effect_key: models.TextField[str, str] = ExactTextField(primary_key=True)
    sale: models.TextField[str, str] = ExactTextField()
    kind: models.CharField[str, str] = models.CharField(max_length=16)
    referencia: models.TextField[str, str] = ExactTextField()
    event_id: models.CharField[str, str] = ExactCharField(max_length=256)
    applied_at: models.FloatField[float, float] = models.FloatField()

    class Meta:
        db_table = "smartpos_effect"

    def __str__(self) -> str:
        return self.effect_key
