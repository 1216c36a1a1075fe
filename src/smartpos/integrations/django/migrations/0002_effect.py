"""The effects of sales a transactional worker applied once (``models.Effect``)."""

from __future__ import annotations

from django.db import migrations, models

from smartpos.integrations.django._fields import ExactCharField, ExactTextField

__all__ = ["Migration"]


class Migration(migrations.Migration):
    """Create the table of applied effects (``Worker(on_sale=...)``)."""

    dependencies = [
        ("smartpos", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="Effect",
            fields=[
                ("effect_key", ExactTextField(primary_key=True, serialize=False)),
                ("sale", ExactTextField()),
                ("kind", models.CharField(max_length=16)),
                ("referencia", ExactTextField()),
                ("event_id", ExactCharField(max_length=256)),
                ("applied_at", models.FloatField()),
            ],
            options={
                "db_table": "smartpos_effect",
            },
        ),
    ]
