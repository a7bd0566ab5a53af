

from django.db import migrations, models


def keep_the_choice(apps, schema_editor):
    """A player who had turned the "your turn" email off keeps it off."""
    User = apps.get_model("accounts", "User")
    User.objects.filter(notify_turn_email=False).update(turn_email="none")


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0004_last_seen'),
    ]

    operations = [
        migrations.AddField(
            model_name='user',
            name='digest_hour',
            field=models.PositiveSmallIntegerField(choices=[(0, '00:00'), (1, '01:00'), (2, '02:00'), (3, '03:00'), (4, '04:00'), (5, '05:00'), (6, '06:00'), (7, '07:00'), (8, '08:00'), (9, '09:00'), (10, '10:00'), (11, '11:00'), (12, '12:00'), (13, '13:00'), (14, '14:00'), (15, '15:00'), (16, '16:00'), (17, '17:00'), (18, '18:00'), (19, '19:00'), (20, '20:00'), (21, '21:00'), (22, '22:00'), (23, '23:00')], default=8, help_text='In your time zone.', verbose_name='send the daily email at'),
        ),
        migrations.AddField(
            model_name='user',
            name='quiet_end',
            field=models.TimeField(blank=True, null=True, verbose_name='quiet hours until'),
        ),
        migrations.AddField(
            model_name='user',
            name='quiet_start',
            field=models.TimeField(blank=True, null=True, verbose_name='quiet hours from'),
        ),
        migrations.AddField(
            model_name='user',
            name='turn_email',
            field=models.CharField(choices=[('immediate', 'As soon as I am away'), ('digest', 'Once a day, all my games in one email'), ('none', 'Never')], default='immediate', help_text='Only ever when you are away from the site, and at most once a game until you have been back.', max_length=10, verbose_name='email me when it is my turn (turn-by-turn games)'),
        ),
        migrations.RunPython(keep_the_choice, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name='user',
            name='notify_turn_email',
        ),
    ]
