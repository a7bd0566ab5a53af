from django.db import migrations, models
from django.db.models import Min
from django.utils import timezone

DUPLICATE_NOTE = "Closed as a duplicate: one open report per reporter, table and player."


def close_duplicates(apps, schema_editor):
    """Keeps the oldest open report of each reporter, table and player (or table itself)
    and resolves the others, so that the constraints below can be created."""
    Report = apps.get_model("lobby", "Report")
    open_reports = Report.objects.filter(resolved_at__isnull=True)
    groups = (open_reports.values("reporter", "game", "reported")
              .annotate(first=Min("pk"), n=models.Count("pk")).filter(n__gt=1))
    now = timezone.now()
    for group in groups:
        (open_reports.filter(reporter=group["reporter"], game=group["game"],
                             reported=group["reported"])
         .exclude(pk=group["first"])
         .update(resolved_at=now, note=DUPLICATE_NOTE))


class Migration(migrations.Migration):

    dependencies = [
        ("lobby", "0002_invitations"),
    ]

    operations = [
        migrations.RunPython(close_duplicates, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="report",
            constraint=models.UniqueConstraint(
                condition=models.Q(("reported__isnull", False), ("resolved_at__isnull", True)),
                fields=("reporter", "game", "reported"), name="report_one_open_per_player"),
        ),
        migrations.AddConstraint(
            model_name="report",
            constraint=models.UniqueConstraint(
                condition=models.Q(("reported__isnull", True), ("resolved_at__isnull", True)),
                fields=("reporter", "game"), name="report_one_open_per_table"),
        ),
    ]
