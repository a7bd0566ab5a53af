"""The template context every page gets from the games app (config/settings.py TEMPLATES):
the header's count of games waiting on the user, the home page's panel, and how long a game
usually takes.

Both are lazy: a page that does not show them (a fragment, an email) reads nothing; a page
that does reads the count with one query (games.presenters.mine.waiting).
"""

from django.conf import settings
from django.utils.functional import SimpleLazyObject

from games.models import Game
from games.presenters import durations, mine


class Waiting:
    """The games waiting on one user: `count`, and `marks` ("id:seq id:seq") for the page,
    which compares them with what its socket says (static/js/site.js)."""

    def __init__(self, user_id):
        found = mine.waiting(user_id)
        self.count = len(found)
        self.marks = " ".join(f"{game_id}:{seq}" for game_id, seq, *_ in found)


def my_games(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {
        "waiting": SimpleLazyObject(lambda: Waiting(user.pk)),
        # A callable: the template calls it only where it is shown (the home page).
        "my_games_panel": lambda: mine.panel(user),
        # How often an open page tells its socket it is still there (accounts.activity).
        "site_heartbeat": settings.SEEN_HEARTBEAT_SECONDS,
        # How long a game usually takes: Play now's (a round at four, real time) and a
        # create form's first settings; callables, read only where they are shown.
        "play_now_length": SimpleLazyObject(
            lambda: durations.estimate(players=4, pace=Game.Pace.REALTIME, target_score=None)
        ),
        "quick_play_now_length": SimpleLazyObject(
            lambda: durations.estimate(
                players=4,
                pace=Game.Pace.REALTIME,
                target_score=None,
                bot_speed=Game.BotSpeed.QUICK,
            )
        ),
    }
