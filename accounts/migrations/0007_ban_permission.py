from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0006_bot_accounts"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="user",
            options={
                "permissions": [("ban_user", "Can ban, suspend and lift accounts")],
                "verbose_name": "user",
                "verbose_name_plural": "users",
            },
        ),
    ]
