from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_out
        from django.db.models.signals import post_save

        # The actions send tasks by name (games.effects.task_on_commit): a web process
        # must have them registered, as a worker has.
        from games import effects, tasks  # noqa: F401

        user_logged_out.connect(effects.session_ended, dispatch_uid="games-close-sockets")
        post_save.connect(
            effects.account_saved, sender=get_user_model(), dispatch_uid="games-check-sockets"
        )

        # The accounts import nothing of the games app: they say what changed.
        from accounts.signals import email_choices_changed
        from games.actions import outbox

        email_choices_changed.connect(
            outbox.email_choices_changed, dispatch_uid="games-replan-emails"
        )
