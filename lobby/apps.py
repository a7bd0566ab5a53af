from django.apps import AppConfig


class LobbyConfig(AppConfig):
    name = "lobby"

    def ready(self):
        # The site socket (games.consumers) tells Find a game that a find page is still
        # there, or closed, through signals of the games app, which may not import the lobby.
        from games import signals
        from lobby import matchmaking

        signals.site_page_here.connect(matchmaking.on_page_here, dispatch_uid="find-page-here")
        signals.site_page_closed.connect(matchmaking.page_closed, dispatch_uid="find-page-closed")
        signals.find_page_asks.connect(matchmaking.found_url, dispatch_uid="find-page-asks")
