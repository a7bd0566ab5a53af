from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_out
        from django.db.models.signals import post_save

        from games import notify

        user_logged_out.connect(notify.session_ended, dispatch_uid="games-close-sockets")
        post_save.connect(notify.account_saved, sender=get_user_model(),
                          dispatch_uid="games-check-sockets")
