from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0008_chat"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="bot_accounts",
            field=models.BooleanField(default=False),
        ),
    ]
