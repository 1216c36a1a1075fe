"""The tables of ``DjangoStore``: inbox, journal, sales, terminal holds (see ``models.py``)."""

from __future__ import annotations

from django.db import migrations, models

from smartpos.integrations.django._fields import ExactCharField, ExactTextField

__all__ = ["Migration"]


class Migration(migrations.Migration):
    """Create the four tables and their indexes."""

    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Sale",
            fields=[
                ("seq", models.BigAutoField(primary_key=True, serialize=False)),
                ("sale_id", ExactTextField(unique=True)),
                ("total_centavos", models.BigIntegerField()),
                ("version", models.IntegerField()),
                ("created_at", models.FloatField()),
                ("updated_at", models.FloatField()),
            ],
            options={
                "db_table": "smartpos_sale",
            },
        ),
        migrations.CreateModel(
            name="TerminalHold",
            fields=[
                ("smartpos_id", ExactTextField(primary_key=True, serialize=False)),
                ("referencia", ExactTextField()),
                ("hold_until", models.FloatField()),
            ],
            options={
                "db_table": "smartpos_terminalhold",
            },
        ),
        migrations.CreateModel(
            name="Event",
            fields=[
                ("seq", models.BigAutoField(primary_key=True, serialize=False)),
                ("event_id", ExactCharField(max_length=256, unique=True)),
                ("tipo", models.CharField(max_length=256)),
                ("criado_em", models.FloatField(null=True)),
                ("raw", models.TextField()),
                ("body_hash", models.CharField(max_length=64)),
                ("state", models.CharField(max_length=8)),
                ("attempts", models.IntegerField(default=0)),
                ("received_at", models.FloatField()),
                ("available_at", models.FloatField(null=True)),
                ("owner", models.TextField(null=True)),
                ("token", ExactCharField(max_length=32, null=True)),
                ("lease_expires_at", models.FloatField(null=True)),
                ("last_error", models.TextField(null=True)),
                ("done_at", models.FloatField(null=True)),
                ("referencia", ExactTextField(null=True)),
            ],
            options={
                "db_table": "smartpos_event",
                "indexes": [
                    models.Index(
                        condition=models.Q(("available_at__isnull", False)),
                        fields=["available_at"],
                        name="smartpos_event_available",
                    ),
                    models.Index(
                        condition=models.Q(("state", "done")),
                        fields=["done_at"],
                        name="smartpos_event_done",
                    ),
                    models.Index(
                        condition=models.Q(("state", "dead")),
                        fields=["criado_em", "seq"],
                        name="smartpos_event_dead",
                    ),
                    models.Index(
                        condition=models.Q(("referencia__isnull", False)),
                        fields=["referencia", "seq"],
                        name="smartpos_event_referencia",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="Operation",
            fields=[
                ("seq", models.BigAutoField(primary_key=True, serialize=False)),
                ("referencia", ExactTextField(unique=True)),
                ("kind", models.CharField(max_length=16)),
                ("state", models.CharField(max_length=16)),
                ("method", models.CharField(max_length=16)),
                ("path", models.TextField()),
                ("body", models.BinaryField()),
                ("answer", models.TextField(null=True)),
                ("final_event", models.TextField(null=True)),
                ("created_at", models.FloatField()),
                ("updated_at", models.FloatField()),
                ("sale", ExactTextField(null=True)),
                ("pending_after", models.FloatField(null=True)),
                ("abandoned", models.TextField(null=True)),
                ("events", models.IntegerField(default=0)),
            ],
            options={
                "db_table": "smartpos_operation",
                "indexes": [
                    models.Index(
                        condition=models.Q(("state__in", ["sending", "accepted", "unknown"])),
                        fields=["seq"],
                        name="smartpos_operation_waiting",
                    ),
                    models.Index(
                        condition=models.Q(("state__in", ["final", "rejected"])),
                        fields=["updated_at"],
                        name="smartpos_operation_ended",
                    ),
                    models.Index(
                        condition=models.Q(("sale__isnull", False)),
                        fields=["sale", "seq"],
                        name="smartpos_operation_sale",
                    ),
                    models.Index(
                        condition=models.Q(
                            ("kind", "payment"),
                            ("sale__isnull", False),
                            models.Q(
                                ("state__in", ["sending", "accepted", "unknown"]),
                                ("events__gte", 2),
                                models.Q(
                                    ("events__gte", 1),
                                    models.Q(
                                        ("abandoned__isnull", False),
                                        ("state", "rejected"),
                                        _connector="OR",
                                    ),
                                ),
                                _connector="OR",
                            ),
                        ),
                        fields=["sale"],
                        name="smartpos_operation_attention",
                    ),
                ],
            },
        ),
    ]
