"""What the security tests attack: a small world of tables and people, the fingerprint of
everything a request could change in it, and the URL conf walked so that a new endpoint
cannot be left out.

The world: Ana hosts an open table T where Bo sits (seats 2 and 3 free); Ana, Bo, Cy and
Di play a running game G, past its setup pass so that one seat has the turn; Ed sits
nowhere; Mo is staff.
"""

from dataclasses import dataclass, field

from django.test import Client
from django.urls import URLResolver, get_resolver

from accounts.models import AccountAudit, User
from games import services
from games.models import EmailOutbox, Game, GameEvent, GameSnapshot, Seat
from lobby import services as lobby
from lobby.models import Report
from tests.conftest import PASSWORD, make_started_game, make_user, play_one

READABLE_MARKS = ('role="alert"', 'class="errorlist', 'class="error', "<li class=\"error\"")


@dataclass
class World:
    ana: User
    bo: User
    cy: User
    di: User
    ed: User
    mo: User
    open_table: Game
    game: Game
    clients: dict = field(default_factory=dict)

    @property
    def players(self):
        return [self.ana, self.bo, self.cy, self.di]

    def client(self, user):
        """A logged-in client per user (None: anonymous), made once."""
        key = user.username if user else None
        if key not in self.clients:
            client = Client()
            if user is not None:
                client.force_login(user)
            self.clients[key] = client
        return self.clients[key]

    def state(self):
        return services.load_state(Game.objects.select_related("snapshot").get(pk=self.game.pk))

    def seat_of(self, user):
        return self.game.seats.filter(user=user).values_list("number", flat=True).first()


def build_world():
    ana, bo, cy, di = (make_user(n, display_name=n.title()) for n in ("ana", "bo", "cy", "di"))
    ed = make_user("ed")
    mo = make_user("mo", is_staff=True, is_superuser=True)
    game = make_started_game([ana, bo, cy, di])
    # Past the simultaneous setup pass: from here one seat has the turn, the others do not.
    while True:
        game.refresh_from_db()
        if game.turn is not None or game.status != Game.Status.ACTIVE:
            break
        play_one(game)
    assert game.status == Game.Status.ACTIVE and game.turn is not None
    table = lobby.create_table(ana, players=4)
    lobby.take_seat(table.pk, bo, 1)
    return World(ana, bo, cy, di, ed, mo, table, game)


def fingerprint():
    """Everything in the database a request could change (but sessions and the cache)."""
    return {
        "games": list(Game.objects.order_by("pk").values_list(
            "pk", "status", "last_seq", "host_id", "turn", "waiting_on", "private", "spectators",
            "bot_seats", "stand_ins", "deadline_at")),
        "events": list(GameEvent.objects.order_by("game_id", "seq").values_list(
            "game_id", "seq", "kind", "seat", "actor", "user_id", "action", "events")),
        "snapshots": list(GameSnapshot.objects.order_by("game_id").values_list("game_id", "seq")),
        "seats": list(Seat.objects.order_by("game_id", "number").values_list(
            "game_id", "number", "user_id", "bot_level")),
        "users": list(User.objects.order_by("pk").values_list(
            "pk", "username", "email", "display_name", "time_zone", "password", "email_confirmed",
            "banned_at", "suspended_until", "is_staff", "is_active", "notify_turn_email",
            "notify_reminder_email")),
        "reports": list(Report.objects.order_by("pk").values_list("pk", "resolved_at")),
        "audits": AccountAudit.objects.count(),
        "outbox": EmailOutbox.objects.count(),
    }


def readable(response):
    """The answer says in words what was wrong (a form error, an alert, a flash message)."""
    body = response.content.decode(errors="replace")
    return any(mark in body for mark in READABLE_MARKS)


def is_login_redirect(response, login="/accounts/login/"):
    return response.status_code == 302 and response["Location"].startswith(login)


def routes(patterns=None, prefix="", namespace=""):
    """(name, route, pattern) of every URL the site answers, nested includes walked."""
    if patterns is None:
        patterns = get_resolver().url_patterns
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from routes(pattern.url_patterns, prefix + str(pattern.pattern), inner)
        else:
            name = f"{namespace}{pattern.name}" if pattern.name else None
            yield name, prefix + str(pattern.pattern), pattern


__all__ = ["PASSWORD", "World", "build_world", "fingerprint", "readable", "routes"]
