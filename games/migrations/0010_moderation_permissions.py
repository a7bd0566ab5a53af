from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0009_bot_accounts"),
    ]

    operations = []
