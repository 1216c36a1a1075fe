"""The shop's orders."""

from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Order",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("numero", models.CharField(max_length=64, unique=True)),
                ("total_centavos", models.PositiveIntegerField()),
                ("paid", models.BooleanField(default=False)),
                ("paid_at", models.DateTimeField(blank=True, null=True)),
                ("late_approvals", models.PositiveIntegerField(default=0)),
                ("compensations", models.PositiveIntegerField(default=0)),
            ],
        ),
    ]
