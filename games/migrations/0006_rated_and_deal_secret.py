
import secrets

import games.models
from django.db import migrations, models


def own_secrets(apps, schema_editor):
    """AddField gives every existing row the one default it drew: each game its own."""
    Game = apps.get_model("games", "Game")
    for pk in Game.objects.values_list("pk", flat=True):
        Game.objects.filter(pk=pk).update(deal_secret=secrets.token_hex(32))


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0005_outbox_not_before'),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='deal_secret',
            field=models.CharField(default=games.models.new_deal_secret, max_length=64),
        ),
        migrations.AddField(
            model_name='game',
            name='rated',
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(own_secrets, migrations.RunPython.noop),
    ]
