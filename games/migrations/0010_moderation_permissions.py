from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0009_bot_accounts"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="chatmessage",
            options={
                "ordering": ["id"],
                "permissions": [
                    ("moderate_chat", "Can hide chat messages and mute people in chat"),
                ],
            },
        ),
    ]
