from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_ban_permission"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="allow_bot_invitations",
            field=models.BooleanField(
                default=False,
                help_text="A bot account hosting a table may invite you to a seat; the "
                "invitation waits in your lobby until you accept or decline it.",
                verbose_name="bot accounts may invite me to tables",
            ),
        ),
    ]
