"""What the security tests attack: a small world of tables and people, the fingerprint of
everything a request could change in it, and the URL conf walked so that a new endpoint
cannot be left out.

The world: Ana hosts an open table T where Bo sits (seats 2 and 3 free); Ana, Bo, Cy and
Di play a running game G, past its setup pass so that one seat has the turn; Ed sits
nowhere; Mo is staff.

`build_world(stage)` adds a game of the same four people at another moment, for the attacks
at a game's moves (`World.games[stage]`, and `World.stage` says which to aim at; "play" is G):
- "setup": just dealt, every seat still to choose its card for the setup pass (several
  seats decide at once, nobody has the turn);
- "give": one seat must give its partner cards (a tag-in or half pass: a decision with no
  legal_actions, only `must_give`);
- "finished": over, after a concession (no move is legal any more).
"""

import json
from dataclasses import dataclass, field

from django.test import Client
from django.urls import URLResolver, get_resolver

from accounts.models import AccountAudit, User
from games import store
from games.actions import decisions
from games.models import (
    ChatMessage,
    ChatModeration,
    ChatMute,
    ChatSetting,
    EmailOutbox,
    Game,
    GameEvent,
    GameSnapshot,
    Seat,
)
from games.moderation.models import Report
from lobby import services as lobby
from tests.conftest import PASSWORD, make_started_game, make_user, play_one

READABLE_MARKS = ('role="alert"', 'class="errorlist', 'class="error', '<li class="error"')


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
    games: dict = field(default_factory=dict)
    stage: str = "play"  # the game (key of `games`) the attacks at moves aim at
    attacked: set = field(default_factory=set)  # what the attacks have tried so far
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

    def state(self, game=None):
        game = game or self.game
        return store.load_state(Game.objects.select_related("snapshot").get(pk=game.pk))

    def seat_of(self, user, game=None):
        game = game or self.game
        return game.seats.filter(user=user).values_list("number", flat=True).first()


# Seed 341 (engine defaults, plain moves as play_one makes them) reaches a seat that must give
# its partner cards at its 22nd move; the search is bounded all the same.
GIVE_SEED = 341
STAGES = ("setup", "play", "give", "finished")


def giver(state):
    """The seat that must give cards now, or None."""
    return next((s for s in range(state.n) if state.view(s).get("must_give")), None)


def build_world(stage="play"):
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
    world = World(ana, bo, cy, di, ed, mo, table, game, games={"play": game}, stage=stage)
    if stage == "setup":
        world.games["setup"] = setup = make_started_game(world.players)
        assert setup.turn is None and len(setup.waiting_on) == 4
    if stage == "give":
        give = make_started_game(world.players, seed=GIVE_SEED)
        for _ in range(200):
            if giver(world.state(give)) is not None:
                break
            play_one(give)
        give.refresh_from_db()
        assert give.status == Game.Status.ACTIVE and giver(world.state(give)) is not None
        world.games["give"] = give
    if stage == "finished":
        over = make_started_game(world.players)
        decisions.apply_decision(over.pk, 1, {"type": "concede"}, GameEvent.Actor.PERSON, user=bo)
        over.refresh_from_db()
        assert over.status == Game.Status.FINISHED
        world.games["finished"] = over
    return world


def fingerprint():
    """Everything in the database a request could change (but sessions and the cache)."""
    return {
        "games": list(
            Game.objects.order_by("pk").values_list(
                "pk",
                "status",
                "last_seq",
                "host_id",
                "turn",
                "waiting_on",
                "private",
                "spectators",
                "bot_seats",
                "stand_ins",
                "deadline_at",
            )
        ),
        "events": list(
            GameEvent.objects.order_by("game_id", "seq").values_list(
                "game_id", "seq", "kind", "seat", "actor", "user_id", "action", "events"
            )
        ),
        "snapshots": list(GameSnapshot.objects.order_by("game_id").values_list("game_id", "seq")),
        "seats": list(
            Seat.objects.order_by("game_id", "number").values_list(
                "game_id", "number", "user_id", "bot_level"
            )
        ),
        "users": list(
            User.objects.order_by("pk").values_list(
                "pk",
                "username",
                "email",
                "display_name",
                "time_zone",
                "password",
                "email_confirmed",
                "banned_at",
                "suspended_until",
                "is_staff",
                "is_active",
                "turn_email",
                "digest_hour",
                "notify_reminder_email",
                "quiet_start",
                "quiet_end",
            )
        ),
        "reports": list(Report.objects.order_by("pk").values_list("pk", "resolved_at")),
        "audits": AccountAudit.objects.count(),
        "outbox": EmailOutbox.objects.count(),
        "chat": list(ChatMessage.objects.order_by("pk").values_list("pk", "text", "hidden_at")),
        "chat_moderation": (
            ChatModeration.objects.count(),
            ChatMute.objects.count(),
            list(ChatSetting.objects.order_by("pk").values_list("user_id", "muted")),
        ),
    }


def readable(response):
    """The answer says in words what was wrong (a form error, an alert, a flash message;
    from the Bot API, JSON with a "detail")."""
    body = response.content.decode(errors="replace")
    if response.get("Content-Type", "").startswith("application/json"):
        try:
            return bool(json.loads(body).get("detail"))
        except (ValueError, AttributeError):
            return False
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


__all__ = [
    "PASSWORD",
    "STAGES",
    "World",
    "build_world",
    "fingerprint",
    "giver",
    "readable",
    "routes",
]
