"""A later migration (what an upgrade of smartpos brings): an index."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("smartpos", "0001_initial")]

    operations = [
        migrations.AddIndex(
            model_name="sale",
            index=models.Index(fields=["updated_at"], name="smartpos_sale_updated_test"),
        )
    ]
