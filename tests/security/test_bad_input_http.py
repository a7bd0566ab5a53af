"""Property tests: garbage, oversized, out-of-turn and other-seat requests at every endpoint.

Every URL the site answers is listed in CASES (a new one fails
`test_every_endpoint_has_a_case` until it gets one). Each case draws requests that must be
refused: a form with a field no valid form has, a seat action by someone who may not, a
move out of turn or for another seat. Hypothesis varies everything else (who sends it,
the other fields, the path's numbers and words, the query string). Each answer must be a
4xx saying what was wrong in words (or a redirect to the log-in for an anonymous visitor),
never a server error, and nothing in the database may have changed.

The path's words and numbers are put in the URL as a client sends them (percent-encoded,
`Part`): words in any script, a NUL or another control character, bytes that are not
UTF-8, parts of thousands of characters. A path no route can hold must be a 400 (a 414 when
too long) in words at every URL, whoever asks (config.middleware; test_bad_paths.py has the
same rule case by case).
"""

import functools
import json
import re
import unicodedata
import urllib.parse

import pytest
from django.http import QueryDict
from django.urls import reverse
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games.actions import moves
from games.models import Seat
from games.views import table as table_views
from tests.security.world import (
    STAGES,
    build_world,
    fingerprint,
    giver,
    is_login_redirect,
    readable,
    routes,
)

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=False,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

# Text as a browser could send it and worse: NULs, control characters, other scripts, long,
# JSON nested thousands deep (a move is JSON: its parser must not overflow its stack).
junk = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=300),
    st.sampled_from(
        [
            "\x00",
            "'; DROP TABLE games_game; --",
            "<script>alert(1)</script>",
            "{}",
            "[]",
            "null",
            '{"type": "draw"}',
            "-1",
            "99999999999999999999999",
            "R3",
            "WTD4",
            "%00",
            "../../etc/passwd",
            "Y" * 5000,
            "[" * 5000 + "]" * 5000,
            '{"type": ' * 2000 + "1" + "}" * 2000,
        ]
    ),
)
words = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="/?#%"), min_size=1, max_size=40
).filter(lambda s: s.strip() not in ("", ".", ".."))
big_ints = st.one_of(st.integers(min_value=0, max_value=2**31), st.integers(min_value=2**31))


class Part(str):
    """A word or number of a path as it goes on the wire, percent-escapes and all: `url`
    puts it in as it is (reverse() would escape its "%" again, and the view would never
    see the NUL or the byte it stands for)."""


def quoted(text):
    return Part(urllib.parse.quote(text, safe=""))


# Escapes no route can hold: a NUL and other control characters (C0, DEL, C1), bytes that
# are not UTF-8 (a stray continuation byte, a lone lead byte, a cut-off sequence, an
# overlong "/", a surrogate, beyond U+10FFFF), and U+FFFD, what a server makes of those.
UNREADABLE_ESCAPES = [
    "%00",
    "%01",
    "%0A",
    "%1B",
    "%7F",
    "%C2%85",
    "%FF",
    "%80",
    "%C3%28",
    "%E2%82",
    "%C0%AF",
    "%ED%A0%80",
    "%F4%90%80%80",
    "%EF%BF%BD",
]
# Parts a route can never take for one of its own (never a number, never a real word).
unreadable_parts = st.one_of(
    st.builds(
        lambda before, bad, after: Part(before + bad + after),
        st.sampled_from(["", "1", "ana", "%C3%A9"]),
        st.sampled_from(UNREADABLE_ESCAPES),
        st.sampled_from(["", "2", "x"]),
    ),
    st.sampled_from(
        [Part("a" * 10_000), Part("9" * 10_000), Part("%E2%99%A0" * 3_000), Part("%00" * 2_000)]
    ),
)
# Any part: those, and words in any script as a browser escapes them.
path_parts = st.one_of(words.map(quoted), unreadable_parts)


def unroutable(target):
    """Whether no route can hold the path of `target`, by the site's rule: bytes that are not
    UTF-8, a control character or U+FFFD, over 1,000 characters."""
    path = urllib.parse.unquote_to_bytes(urllib.parse.urlsplit(target).path)
    try:
        text = path.decode()
    except UnicodeDecodeError:
        return True
    return len(text) > 1000 or any(c == "\ufffd" or unicodedata.category(c) == "Cc" for c in text)


def spoilt(draw, arg):
    """`arg`, or (one time in four) a path part no route can hold in its place. The spoilt
    part is the draw of 0, the value Hypothesis tries first, so every run holds one."""
    return draw(unreadable_parts) if draw(st.integers(0, 3)) == 0 else arg


def junk_fields(names):
    """A form body: some of the endpoint's own field names and some others, junk values."""
    keys = (
        st.one_of(st.sampled_from(names), st.text(min_size=1, max_size=20))
        if names
        else st.text(min_size=1, max_size=20)
    )
    return st.dictionaries(keys, st.one_of(junk, st.lists(junk, max_size=3)), max_size=8)


def query(
    names=("page", "seat", "step", "all", "status", "mode", "size", "result", "player", "next"),
):
    return junk_fields(list(names))


# --- what a case is ----------------------------------------------------------------------------
# A case is a function (world, draw) -> Request; draw is Hypothesis's `data.draw`.


class Request:
    def __init__(self, user, method, url, data=None, must_refuse=True, htmx=False):
        self.user, self.method, self.url, self.data = user, method, url, data or {}
        self.must_refuse, self.htmx = must_refuse, htmx


@functools.cache
def route_of(name):
    return next(route for found, route, _ in routes() if found == name)


def url(name, *args):
    if not any(isinstance(arg, Part) for arg in args):
        return reverse(name, args=args)
    parts = iter(args)

    def part(_):
        arg = next(parts)
        return arg if isinstance(arg, Part) else quoted(str(arg))

    return "/" + re.sub(r"<(?:\w+:)?\w+>", part, route_of(name))


def anyone(w, draw, also=()):
    return draw(st.sampled_from([None, w.ed, w.bo, w.ana, *also]))


def logged_in(w, draw):
    return draw(st.sampled_from([w.ed, w.bo, w.ana, w.cy]))


def page(name, args_of=lambda w, draw: ()):
    """A page read with GET and junk in the query string: it may answer 200, never 5xx."""

    def case(w, draw):
        return Request(
            anyone(w, draw), "get", url(name, *args_of(w, draw)), draw(query()), must_refuse=False
        )

    return case


def wrong_method(name, args_of=lambda w, draw: ()):
    """A post-only action asked with GET."""

    def case(w, draw):
        return Request(logged_in(w, draw), "get", url(name, *args_of(w, draw)), draw(query()))

    return case


def any_game_id(w, draw):
    return draw(
        st.one_of(
            st.sampled_from([w.game.pk, w.open_table.pk]), big_ints, path_parts, unreadable_parts
        )
    )


def any_word(w, draw):
    return draw(path_parts)


def signup(w, draw):
    data = draw(junk_fields(["username", "email", "display_name", "password1", "password2"]))
    data["password2"] = str(data.get("password1", "")) + "x"  # never a valid sign-up
    return Request(None, "post", url("accounts:signup"), data)


def login(w, draw):
    data = draw(junk_fields(["username", "password"]))
    data.setdefault("username", draw(st.sampled_from(["ana", "bo", "nobody", ""])))
    assume(data.get("password") != "wild-cards-correct-horse-9")
    return Request(None, "post", url("accounts:login"), data)


def profile(w, draw):
    data = draw(
        junk_fields(
            ["display_name", "email", "time_zone", "turn_email", "quiet_start", "quiet_end"]
        )
    )
    data["time_zone"] = "Mars/" + str(data.get("time_zone", ""))  # no such zone
    return Request(logged_in(w, draw), "post", url("accounts:profile"), data)


def password_change(w, draw):
    data = draw(junk_fields(["old_password", "new_password1", "new_password2"]))
    assume(data.get("old_password") != "wild-cards-correct-horse-9")
    return Request(logged_in(w, draw), "post", url("accounts:password_change"), data)


def password_reset(w, draw):
    data = draw(junk_fields(["email"]))
    data["email"] = str(data.get("email", "")).replace("@", "")  # never an address
    return Request(None, "post", url("accounts:password_reset"), data)


def password_reset_confirm(w, draw):
    target = url("accounts:password_reset_confirm", any_word(w, draw), any_word(w, draw))
    return Request(
        None,
        draw(st.sampled_from(["get", "post"])),
        target,
        draw(junk_fields(["new_password1", "new_password2"])),
    )


def confirm_email(w, draw):
    return Request(anyone(w, draw), "get", url("accounts:confirm_email", any_word(w, draw)))


def unsubscribe(w, draw):
    # A junk token, read or posted (the one-click POST needs no session): refused, and no
    # choice of anyone's changes.
    return Request(
        anyone(w, draw),
        draw(st.sampled_from(["get", "post"])),
        url("accounts:unsubscribe", any_word(w, draw)),
    )


def create_table(w, draw):
    data = draw(
        junk_fields(
            [
                "players",
                "pace",
                "move_seconds",
                "turn_hours",
                "missed_deadline",
                "stacking",
                "scoring",
                "target_score",
                "spectators",
                "private",
            ]
        )
    )
    data["players"] = "x" + str(data.get("players", ""))  # never 4, 6 or 8
    return Request(logged_in(w, draw), "post", url("lobby:create"), data)


def lobby_seat_action(name):
    """take / bot / remove with a seat number: at the running game, at a table that does not
    exist, at a seat the open table does not have, or by someone not allowed."""

    def case(w, draw):
        user = logged_in(w, draw)
        kind = draw(st.sampled_from(["started", "missing", "no-seat", "not-allowed"]))
        game_id, number = w.open_table.pk, draw(st.integers(min_value=0, max_value=3))
        if kind == "started":
            game_id = w.game.pk
        elif kind == "missing":
            game_id = draw(st.integers(min_value=w.game.pk + 1000))
        elif kind == "no-seat":
            number = draw(st.integers(min_value=4))
        else:
            if name == "lobby:take":  # a seat someone else holds
                number = draw(st.sampled_from([0, 1]))
                assume(not (user == w.bo and number == 1) and not (user == w.ana and number == 0))
            else:
                user = draw(st.sampled_from([w.bo, w.ed, w.cy]))  # not the host
        data = draw(junk_fields(["level"]))
        real_level = data.get("level") in Seat.BotLevel.values
        if name == "lobby:bot" and kind != "not-allowed" and real_level:
            data["level"] = "x" + data["level"]
        game_id, number = spoilt(draw, game_id), spoilt(draw, number)
        return Request(user, "post", url(name, game_id, number), data)

    return case


def leave(w, draw):
    kind = draw(st.sampled_from(["started", "not-seated", "missing"]))
    if kind == "started":
        return Request(
            draw(st.sampled_from(w.players)), "post", url("lobby:leave", spoilt(draw, w.game.pk))
        )
    if kind == "missing":
        return Request(
            logged_in(w, draw),
            "post",
            url("lobby:leave", draw(st.integers(min_value=w.game.pk + 1000))),
        )
    return Request(
        draw(st.sampled_from([w.cy, w.di, w.ed])),
        "post",
        url("lobby:leave", spoilt(draw, w.open_table.pk)),
        draw(junk_fields([])),
    )


def decline(w, draw):
    # No seat anywhere in the world is held for anyone (no Play again table): at the open
    # table, the running game or a table that does not exist, there is nothing to decline.
    game_id = draw(st.sampled_from([w.open_table.pk, w.game.pk, w.game.pk + 1000]))
    return Request(
        logged_in(w, draw),
        "post",
        url("lobby:decline", spoilt(draw, game_id)),
        draw(junk_fields([])),
    )


def start(w, draw):
    # Not the host, or the host of a table with empty seats, or a game already running.
    user = draw(st.sampled_from([w.ana, w.bo, w.ed]))
    game_id = spoilt(draw, draw(st.sampled_from([w.open_table.pk, w.game.pk])))
    return Request(user, "post", url("lobby:start", game_id), draw(junk_fields([])))


def own_move(state, game, draw):
    """(seat, a move that seat may make now) at `game`, or None when nobody may move."""
    seat = giver(state)
    if seat is not None:
        k = state.view(seat)["must_give"]
        return seat, {"type": "give", "cards": state.view(seat)["hand"][:k]}
    movers = [s for s in game.waiting_on if state.legal_actions(s)]
    if not movers:
        return None
    seat = draw(st.sampled_from(movers))
    return seat, dict(draw(st.sampled_from(state.legal_actions(seat))))


def act(w, draw):
    """A move that must be refused: junk, out of turn, for another seat, or by an outsider,
    at a game in any of its stages (tests/security/world.py)."""
    stage = w.stage
    game = w.games[stage]
    state = w.state(game)
    user = draw(st.sampled_from([*w.players, w.ed]))
    seat = w.seat_of(user, game)
    kind = draw(st.sampled_from(["junk", "other-seat", "json", "own-move-with-junk"]))
    own = own_move(state, game, draw) if kind == "own-move-with-junk" else None
    target = spoilt(draw, game.pk)
    if target == game.pk:  # a path no route holds is refused before the move is looked at
        w.attacked.add(kind if own is not None or kind != "own-move-with-junk" else "junk")
    if own is not None:
        # A seat with a decision, its own legal move, with keys no move has: the engine would
        # ignore them, and the event row would store them (a NUL there is a 500).
        seat, action = own
        user = w.players[seat]
        action.update(
            draw(
                st.dictionaries(
                    st.text(min_size=1, max_size=10).filter(lambda k: k not in moves.ACTION_KEYS),
                    junk,
                    min_size=1,
                    max_size=2,
                )
            )
        )
        data = {"action": json.dumps(action), "key": draw(st.text(min_size=1, max_size=40))}
    elif kind in ("junk", "own-move-with-junk"):  # the latter at a finished game
        data = draw(
            junk_fields(["play", "color", "cards", "give", "pick", "do", "action", "key", "seat"])
        )
        data.pop("concede", None)
    else:
        other = draw(st.sampled_from([s for s in range(4) if s != seat]))
        legal = state.legal_actions(other) or [{"type": "draw"}, {"type": "take_penalty"}]
        action = dict(draw(st.sampled_from(legal)))
        if kind == "json":
            extra = draw(st.dictionaries(st.text(max_size=10), junk, max_size=2))
            action.update({k: v for k, v in extra.items() if k != "type"})
        data = {"action": json.dumps(action), "seat": other, "key": draw(junk)}
    if seat is not None and own is None:
        parsed = moves.clean_action(
            table_views._form_action(
                QueryDict(urllib.parse.urlencode({k: v for k, v in data.items()}, doseq=True))
            )
        )
        # Never a move this seat may make: those would be accepted, rightly.
        assume(
            parsed is None
            or (
                parsed not in state.legal_actions(seat)
                and parsed.get("type") not in ("concede", "give")
            )
        )
    return Request(user, "post", url("games:act", target), data, htmx=draw(st.booleans()))


def report(w, draw):
    data = draw(junk_fields(["reported", "reason", "text", "next"]))
    data["reason"] = "x" + str(data.get("reason", ""))  # no such reason
    game_id = spoilt(draw, draw(st.sampled_from([w.game.pk, w.open_table.pk])))
    return Request(logged_in(w, draw), "post", url("history:report", game_id), data)


def game_args(w, draw):
    return (any_game_id(w, draw),)


# --- A finished game's review (docs/review.md): the world's games are not over, so asking
# for one, or sharing one, is always refused and writes nothing.


def review_request(w, draw):
    data = draw(junk_fields(["seat"]))
    return Request(
        logged_in(w, draw), "post", url("history:review_request", *game_args(w, draw)), data
    )


def review_share(w, draw):
    data = draw(junk_fields(["shared"]))
    data["shared"] = "x" + str(data.get("shared", ""))  # neither 0 nor 1
    return Request(
        logged_in(w, draw), "post", url("history:review_share", *game_args(w, draw)), data
    )


# --- Find a game (docs/matchmaking.md): nobody in the world is looking, so every search id
# and friend's link is someone else's or none.


def any_search_id(w, draw):
    return (draw(st.one_of(big_ints, path_parts, unreadable_parts)),)


def find(w, draw):
    """A find form that is never valid: its table size is none of the choices."""
    data = draw(junk_fields(["players", "pace", "move_seconds", "turn_hours", "rated", "bots"]))
    data["players"] = "x" + str(data.get("players", ""))
    return Request(logged_in(w, draw), "post", url("lobby:find"), data)


def find_cancel(w, draw):
    return Request(logged_in(w, draw), "post", url("lobby:find_cancel", *any_search_id(w, draw)))


def find_with(w, draw):
    return Request(logged_in(w, draw), "post", url("lobby:find_with", any_word(w, draw)))


def chat_send(w, draw):
    """A chat line that is never one: blank or over the limit, from anyone, at any table."""
    data = draw(junk_fields(["text", "key", "phrase"]))
    data["text"] = draw(st.sampled_from([" \t\n", "", "x" * 301 + str(data.get("text", ""))]))
    data["phrase"] = ""
    return Request(
        logged_in(w, draw),
        "post",
        url("games:chat_send", any_game_id(w, draw)),
        data,
        htmx=draw(st.booleans()),
    )


def chat_off(w, draw):
    data = draw(junk_fields(["off"]))
    data["off"] = "x" + str(data.get("off", ""))  # neither 0 nor 1
    return Request(logged_in(w, draw), "post", url("games:chat_off", any_game_id(w, draw)), data)


def chat_report(w, draw):
    # No line exists in the world: every message number is one there is not.
    message = draw(st.one_of(big_ints, path_parts))
    return Request(
        logged_in(w, draw),
        "post",
        url("games:chat_report", any_game_id(w, draw), message),
        draw(junk_fields([])),
    )


def again(w, draw):
    # An outsider, or anyone at a table not over (the open one): never a new table.
    user, game_id = draw(
        st.sampled_from([(w.ed, w.game.pk), (w.ana, w.open_table.pk), (w.ed, w.open_table.pk)])
    )
    return Request(user, "post", url("games:again", spoilt(draw, game_id)), draw(junk_fields([])))


def user_args(w, draw):
    return (draw(st.one_of(st.sampled_from(["ana", "ed", "mo"]), path_parts)),)


def verify(w, draw):
    """The deals' check with a junk seed and secret in its GET form: never a 5xx."""
    return Request(
        anyone(w, draw),
        "get",
        url("history:verify", *game_args(w, draw)),
        draw(query(("seed", "secret", "step"))),
        must_refuse=False,
    )


def become_bot(w, draw):
    """A wrong password (junk) never turns an account into a bot account."""
    data = draw(junk_fields(["password", "understood"]))
    data["password"] = "not-" + str(data.get("password", ""))
    return Request(logged_in(w, draw), "post", url("accounts:bot"), data)


def token_create(w, draw):
    """The people of the world are no bot accounts: no token for them, whatever the form."""
    return Request(
        logged_in(w, draw), "post", url("accounts:bot_token_create"), draw(junk_fields(["name"]))
    )


def token_revoke(w, draw):
    """Nobody in the world has a token: every id is someone else's or none."""
    return Request(
        logged_in(w, draw),
        "post",
        url("accounts:bot_token_revoke", spoilt(draw, draw(big_ints))),
        draw(query()),
    )


def push_subscribe(w, draw):
    """Junk is no browser's subscription (docs/notifications.md): refused, nothing kept."""
    return Request(
        logged_in(w, draw),
        "post",
        url("accounts:push_subscribe"),
        draw(junk_fields(["endpoint", "keys", "p256dh", "auth"])),
    )


def push_remove(w, draw):
    """Nobody in the world has a device: every id is someone else's or none."""
    return Request(
        logged_in(w, draw),
        "post",
        url("accounts:push_remove", spoilt(draw, draw(big_ints))),
        draw(query()),
    )


def bot_api(name, args_of=lambda w, draw: ()):
    """The Bot API with a session, or nothing, for a credential: refused (401) in words,
    with either method. tests/games/api/test_fuzz.py fuzzes it with a valid token."""

    def case(w, draw):
        method = draw(st.sampled_from(["get", "post"]))
        return Request(anyone(w, draw), method, url(name, *args_of(w, draw)), draw(query()))

    return case


def answer_invitation(name):
    """A person's Accept or Decline of an invitation none of the world's people has: a
    missing one, someone else's, or an id no route holds."""

    def case(w, draw):
        invitation_id = spoilt(draw, draw(st.integers(min_value=1, max_value=2**31 - 1)))
        return Request(logged_in(w, draw), "post", url(name, invitation_id), draw(junk_fields([])))

    return case


def bot_table_seat(w, draw):
    return (any_game_id(w, draw), draw(st.one_of(st.integers(min_value=0), path_parts)))


CASES = {
    "accounts:signup": signup,
    "accounts:login": login,
    "accounts:logout": wrong_method("accounts:logout"),
    "accounts:profile": profile,
    "accounts:bot": become_bot,
    "accounts:bot_token_create": token_create,
    "accounts:bot_token_revoke": token_revoke,
    "accounts:resend_confirmation": wrong_method("accounts:resend_confirmation"),
    "accounts:confirm_email": confirm_email,
    "accounts:unsubscribe": unsubscribe,
    "accounts:password_change": password_change,
    "accounts:password_change_done": page("accounts:password_change_done"),
    "accounts:password_reset": password_reset,
    "accounts:password_reset_done": page("accounts:password_reset_done"),
    "accounts:password_reset_confirm": password_reset_confirm,
    "accounts:password_reset_complete": page("accounts:password_reset_complete"),
    "games:play": page("games:play", game_args),
    "games:act": act,
    "games:again": again,
    "games:chat": page("games:chat", game_args),
    "games:chat_send": chat_send,
    "games:chat_off": chat_off,
    "games:chat_report": chat_report,
    "games:mine": page("games:mine"),
    "games:estimate": page("games:estimate"),
    "history:mine": page("history:mine"),
    "history:profile": page("history:profile", user_args),
    "history:leaderboard": page("history:leaderboard"),
    "history:player": page("history:player", user_args),
    "history:replay": page("history:replay", game_args),
    "history:export": page("history:export", game_args),
    "history:verify": verify,
    "history:review_request": review_request,
    "history:review_share": review_share,
    "history:review_status": page("history:review_status", game_args),
    "history:report": report,
    "lobby:index": page("lobby:index"),
    "lobby:watch": page("lobby:watch"),
    "lobby:quick": wrong_method("lobby:quick"),
    "favicon": page("favicon"),
    "rules": page("rules"),
    "api_docs": page("api_docs"),
    "lobby:create": create_table,
    "lobby:find": find,
    "lobby:find_wait": page("lobby:find_wait", any_search_id),
    "lobby:find_status": page("lobby:find_status", any_search_id),
    "lobby:find_cancel": find_cancel,
    "lobby:find_with": find_with,
    "lobby:table": page("lobby:table", game_args),
    "lobby:take": lobby_seat_action("lobby:take"),
    "lobby:leave": leave,
    "lobby:decline": decline,
    "lobby:bot": lobby_seat_action("lobby:bot"),
    "lobby:remove": lobby_seat_action("lobby:remove"),
    "lobby:invite_bot": lobby_seat_action("lobby:invite_bot"),
    "lobby:cancel_invitation": lobby_seat_action("lobby:cancel_invitation"),
    "lobby:start": start,
    "lobby:invite": page("lobby:invite", lambda w, draw: (any_word(w, draw),)),
    "bot_api:api-root": page("bot_api:api-root"),
    "bot_api:openapi-json": page("bot_api:openapi-json"),
    "bot_api:account": bot_api("bot_api:account"),
    "bot_api:invitations": bot_api("bot_api:invitations"),
    "bot_api:accept": bot_api("bot_api:accept", lambda w, draw: (any_game_id(w, draw),)),
    "bot_api:tables": bot_api("bot_api:tables"),
    "bot_api:join": bot_api("bot_api:join", lambda w, draw: (any_game_id(w, draw),)),
    "bot_api:seats": bot_api("bot_api:seats"),
    "bot_api:game": bot_api("bot_api:game", lambda w, draw: (any_game_id(w, draw),)),
    "bot_api:decide": bot_api("bot_api:decide", lambda w, draw: (any_game_id(w, draw),)),
    "bot_api:export": bot_api("bot_api:export", lambda w, draw: (any_game_id(w, draw),)),
    "bot_api:events": bot_api("bot_api:events"),
    # Tables made by bots (games/api/routes/tables.py).
    "bot_api:create": bot_api("bot_api:create"),
    "bot_api:table": bot_api("bot_api:table", lambda w, draw: (any_game_id(w, draw),)),
    "bot_api:close": bot_api("bot_api:close", lambda w, draw: (any_game_id(w, draw),)),
    "bot_api:invite": bot_api("bot_api:invite", lambda w, draw: (any_game_id(w, draw),)),
    "bot_api:site_bot": bot_api("bot_api:site_bot", lambda w, draw: (any_game_id(w, draw),)),
    "bot_api:vacate": bot_api("bot_api:vacate", bot_table_seat),
    "bot_api:start": bot_api("bot_api:start", lambda w, draw: (any_game_id(w, draw),)),
    "bot_api:decline": bot_api("bot_api:decline", lambda w, draw: (any_game_id(w, draw),)),
    "lobby:accept_invitation": answer_invitation("lobby:accept_invitation"),
    "lobby:decline_invitation": answer_invitation("lobby:decline_invitation"),
    "history:bot_leaderboard": page("history:bot_leaderboard"),
    # The pages for bot authors, the streams' AsyncAPI document, and the JSON 404 of any
    # other path under /api/bot/.
    "api_docs_reference": page("api_docs_reference"),
    "api_docs_stream": page("api_docs_stream"),
    "api_docs_model": page("api_docs_model"),
    "bot_api_asyncapi": page("bot_api_asyncapi"),
    "bot_api_not_found": page("bot_api_not_found"),
    # The installable web app (config/webapp.py): the same answer for anyone.
    "webmanifest": page("webmanifest"),
    "service_worker": page("service_worker"),
    "offline": page("offline"),
    # Web Push devices (accounts/push.py).
    "accounts:push_subscribe": push_subscribe,
    "accounts:push_remove": push_remove,
}


def test_every_endpoint_has_a_case():
    names = {name for name, _, _ in routes() if name and not name.startswith("admin:")}
    unnamed = [route for name, route, _ in routes() if not name and not route.startswith("admin/")]
    assert not unnamed, f"give these URLs a name and a case: {unnamed}"
    assert names - set(CASES) == set(), "new endpoints need a case in CASES"
    assert set(CASES) - names == set()


def send(world, request):
    client = world.client(request.user)
    headers = {"HX-Request": "true"} if request.htmx else {}
    if request.method == "get":
        return client.get(request.url, request.data, headers=headers)
    return client.post(request.url, request.data, headers=headers)


@pytest.fixture
def no_rate_limits(settings):
    # The limits are tested on their own (test_access_and_limits.py); here they would
    # answer 429 to everything after a few examples and hide the rest.
    settings.LOGIN_RATE_LIMIT = settings.LOGIN_RATE_IP_LIMIT = 10**6
    settings.SIGNUP_RATE_LIMIT = 10**6
    settings.PASSWORD_RESET_IP_LIMIT = settings.VERIFY_RATE_LIMIT = 10**6


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_requests_are_refused_in_words_and_change_nothing(name, no_rate_limits):
    attack_endpoint(build_world(), name)


@pytest.mark.parametrize("stage", [s for s in STAGES if s != "play"])
def test_bad_moves_are_refused_at_every_stage_of_a_game(stage, no_rate_limits):
    """The moves' endpoint again, at a game in each other stage (tests/security/world.py):
    while the seats choose their setup pass, while one must give cards, once it is over."""
    attack_endpoint(build_world(stage), "games:act")


def attack_endpoint(world, name):
    before = fingerprint()
    case = CASES[name]
    seen, paths = set(), set()

    @FUZZ
    @given(data=st.data())
    def attack(data):
        request = case(world, data.draw)
        response = send(world, request)
        status = response.status_code
        seen.add(status)
        assert status < 500, (request.url[:300], request.data, status)
        assert fingerprint() == before, (request.url[:300], request.data, status)
        if unroutable(request.url):  # whoever asks, whatever the route and the method
            assert status in (400, 414) and readable(response), (request.url[:300], status)
            paths.add("unroutable")
            return
        if not request.must_refuse:
            return
        if request.user is None and is_login_redirect(response):
            return  # log in first: said by the log-in page itself
        assert 400 <= status < 500, (request.url, request.data, status)
        if status != 405:  # a wrong method is a browser's business, not a person's
            assert readable(response), (request.url, request.data, status, response.content[:300])

    attack()
    assert seen, "no example ran"
    if "<" in route_of(name):  # its words or numbers were, among others, ones no route holds
        assert "unroutable" in paths, name
    if name == "games:act":  # every kind of bad move (a finished game has no move of its
        # own to spoil)
        expected = {"junk", "other-seat", "json", "own-move-with-junk"}
        if world.stage == "finished":
            expected.discard("own-move-with-junk")
        assert world.attacked == expected, expected - world.attacked


def test_an_oversized_body_is_refused_not_a_server_error(client, no_rate_limits):
    world = build_world()
    before = fingerprint()
    client.force_login(world.bo)
    huge = "x" * (3 * 1024 * 1024)  # beyond DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB)
    for target in (
        url("games:act", world.game.pk),
        url("lobby:create"),
        url("history:report", world.game.pk),
        url("accounts:profile"),
    ):
        response = client.post(target, {"action": huge, "text": huge})
        assert response.status_code == 400, target
    too_many = {f"f{i}": "1" for i in range(1200)}  # beyond DATA_UPLOAD_MAX_NUMBER_FIELDS
    assert client.post(url("games:act", world.game.pk), too_many).status_code == 400
    assert fingerprint() == before


@pytest.mark.parametrize(
    "nested",
    [
        "[" * 5000 + "]" * 5000,
        '{"type": ' * 2000 + '"draw"' + "}" * 2000,
        '{"type": "draw", "card": ' + "[" * 5000 + "]" * 5000 + "}",
    ],
)
def test_a_move_of_json_nested_thousands_deep_is_refused_in_words(nested, no_rate_limits):
    """Python's JSON parser gives up at about a thousand levels with a RecursionError, which
    is no ValueError: a parser that only expects the latter answers a server error."""
    world = build_world()
    before = fingerprint()
    client = world.client(world.players[world.game.turn])
    for headers in ({}, {"HX-Request": "true"}):
        response = client.post(
            url("games:act", world.game.pk), {"action": nested, "key": "k"}, headers=headers
        )
        assert response.status_code == 400 and readable(response), response.status_code
    assert fingerprint() == before


# --- the admin, for people who are not staff ----------------------------------------------------

ADMIN_VALUES = {"object_id": None, "game_id": None, "content_type_id": "1", "id": None}


def admin_urls(world):
    """Every admin URL with its numbers filled in (the running game's, Bo's account)."""
    found = []
    for _name, route, _ in routes():
        if not route.startswith("admin/"):
            continue
        if "(?P<app_label>" in route:
            found.append("/admin/games/")
            continue
        if "(?P<url>" in route:
            found.append("/admin/no-such-page/")
            continue
        ident = world.bo.pk if "/user/" in route else world.game.pk
        found.append("/" + _filled(route, ident))
    return found


def _filled(route, ident):
    """`route` with each parameter given its ADMIN_VALUES value, or else `ident`."""
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(ADMIN_VALUES.get(m.group(1)) or ident), route)


@pytest.mark.parametrize("who", ["anonymous", "player"])
def test_no_admin_page_or_post_answers_anyone_but_staff(who):
    world = build_world()
    user = None if who == "anonymous" else world.bo
    client = world.client(user)
    before = fingerprint()
    urls = admin_urls(world)
    assert len(urls) > 40
    login = reverse("admin:login")
    for target in urls:
        if target.startswith(login) or target.startswith(reverse("admin:logout")):
            continue
        for method in ("get", "post"):
            body = {
                "action": "abort_tables",
                "_selected_action": [world.game.pk],
                "apply": "1",
                "reason": "x",
                "what": "bot",
                "seat": "1",
                "level": "easy",
            }
            response = getattr(client, method)(target, body if method == "post" else None)
            assert response.status_code in (302, 404, 405), (target, method, response.status_code)
            if response.status_code == 302:
                assert response["Location"].startswith(login), target
            assert fingerprint() == before, (target, method)


@pytest.mark.parametrize("examples", [15])
def test_junk_at_the_moderators_forms_is_refused_and_changes_nothing(examples):
    world = build_world()
    client = world.client(world.mo)
    before = fingerprint()
    moderate = reverse("admin:games_game_moderate", args=[world.game.pk])
    changelist = reverse("admin:games_game_changelist")
    users = reverse("admin:accounts_user_changelist")

    @settings(FUZZ, max_examples=examples)  # each example reads five admin lists
    @given(data=st.data())
    def attack(data):
        body = data.draw(junk_fields(["what", "seat", "level", "reason"]))
        body["reason"] = ""  # a moderator action always needs a reason
        response = client.post(moderate, body)
        assert response.status_code < 500 and fingerprint() == before
        assert response.status_code == 200 and 'class="errorlist' in response.content.decode()
        for target in (
            changelist,
            users,
            reverse("admin:games_gameevent_changelist"),
            reverse("admin:lobby_report_changelist"),
            reverse("admin:accounts_accountaudit_changelist"),
        ):
            params = data.draw(
                junk_fields(
                    [
                        "q",
                        "o",
                        "p",
                        "status",
                        "players",
                        "actor",
                        "kind",
                        "game__id__exact",
                        "restriction",
                        "all",
                    ]
                )
            )
            response = client.get(target, params)
            assert response.status_code < 500, (target, params, response.status_code)
        for target, action in (
            (changelist, "abort_tables"),
            (users, "ban_accounts"),
            (users, "suspend_accounts"),
        ):
            selected = data.draw(
                st.lists(
                    st.one_of(st.sampled_from([str(world.game.pk), str(world.bo.pk)]), junk),
                    max_size=3,
                )
            )
            response = client.post(
                target,
                {
                    "action": action,
                    "_selected_action": selected,
                    "apply": "1",
                    "reason": "",
                    **data.draw(junk_fields(["until", "index"])),
                },
            )
            assert response.status_code < 500, (target, action, response.status_code)
            assert fingerprint() == before, (target, action)

    attack()
