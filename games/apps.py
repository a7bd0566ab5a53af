from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"

    def ready(self):
        from django.contrib.auth.signals import user_logged_out

        from games import notify

        user_logged_out.connect(notify.session_ended, dispatch_uid="games-close-sockets")
