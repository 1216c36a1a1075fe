"""The inbox's reads walk indexes in claim order and stop at their LIMIT (issue 27).

``smartpos_event_claim`` holds the events that can be claimed (pending or claimed),
``smartpos_event_state`` the done and dead ones, both in claim order (``criado_em``, then
``seq``): a claim or a ``list()`` reads the first rows of one index or a few, not every event
of its state sorted. They replace ``smartpos_event_available`` (claimable events by
``available_at``, sorted afterwards) and ``smartpos_event_dead`` (now part of the state
index). On MySQL/MariaDB, which have no partial indexes, both are whole ones (see
``models.py``). The indexes are built over the events a table holds, which blocks writes to
it meanwhile: run it at deploy.
"""

from __future__ import annotations

from django.db import migrations, models

__all__ = ["Migration"]


class Migration(migrations.Migration):
    """Add the claim-order indexes, then drop the ones they replace."""

    dependencies = [
        ("smartpos", "0002_effect"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="event",
            index=models.Index(
                condition=models.Q(("available_at__isnull", False)),
                fields=["criado_em", "seq"],
                name="smartpos_event_claim",
            ),
        ),
        migrations.AddIndex(
            model_name="event",
            index=models.Index(
                condition=models.Q(("available_at__isnull", True)),
                fields=["state", "criado_em", "seq"],
                name="smartpos_event_state",
            ),
        ),
        migrations.RemoveIndex(
            model_name="event",
            name="smartpos_event_available",
        ),
        migrations.RemoveIndex(
            model_name="event",
            name="smartpos_event_dead",
        ),
    ]
