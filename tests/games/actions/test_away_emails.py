"""Turn-by-turn emails that respect people's time, through a real SMTP server (aiosmtpd)
and a frozen clock: none while the player is on the site, one when they are away and at
most one a game until they have been back, one email for several games, the daily
digest at its hour, quiet hours that hold an email but let an urgent reminder through
before they begin, and one-click unsubscribe links that turn one kind off."""

import email
import email.policy
import html
import re
import zoneinfo
from datetime import datetime, time, timedelta

import pytest
from django.test import Client
from django.urls import reverse

from accounts import activity
from games import tasks
from games.models import EmailOutbox, Game
from tests.conftest import make_started_game
from tests.games.clock_support import at, fresh, move_as_person, travel

SITE = "https://cards.example"
PARIS = zoneinfo.ZoneInfo("Europe/Paris")
SECOND = timedelta(seconds=1)

pytestmark = pytest.mark.django_db


@pytest.fixture
def inbox(settings, smtp_server):
    """What the real SMTP server received, as parsed messages (read when called)."""
    port, received = smtp_server
    settings.SITE_URL = SITE
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS = "127.0.0.1", port, False

    def messages(to=None):
        parsed = [
            email.message_from_bytes(e.content, policy=email.policy.default) for e in received
        ]
        return [m for m in parsed if to is None or m["To"] == to]

    return messages


def sweep(moment):
    """The beat's sweep at `moment`: time-outs, reminders, then every email due."""
    with travel(moment):
        tasks.sweep_clocks()


def start(users, moment=None, **options):
    moment = at(0) if moment is None else moment
    options.setdefault("pace", Game.Pace.TURN_BASED)
    options.setdefault("turn_hours", 24)
    with travel(moment):
        return make_started_game(users, **options)


def on_the_site(client, user, moment):
    """`user` has a page of the site open at `moment` (a request; an open page's
    heartbeat does the same through its socket)."""
    client.force_login(user)
    with travel(moment):
        assert client.get(reverse("lobby:index")).status_code == 200


def quiet_in_paris(user, start, end):
    user.time_zone, user.quiet_start, user.quiet_end = "Europe/Paris", time(start), time(end)
    user.save()


def text_of(message):
    return message.get_body(preferencelist=("plain",)).get_content()


def turn_emails(messages):
    return [m for m in messages if m["Subject"].startswith("Your turn")]


def test_no_email_while_the_page_is_open_and_exactly_one_once_the_player_has_left(inbox, four):
    ana = four[0]
    client = Client()
    on_the_site(client, ana, at(0))
    game = start(four)

    sweep(at(1))
    assert inbox("ana@example.com") == []
    assert len(inbox()) == 3  # the three others are away: one each
    on_the_site(client, ana, at(minutes=3))  # still there (the heartbeat)
    sweep(at(minutes=7))
    assert inbox("ana@example.com") == []

    # She closed the page at 3 min: away once EMAIL_AWAY_MINUTES (5) have passed.
    sweep(at(minutes=8) - SECOND)
    assert inbox("ana@example.com") == []
    for minutes in (8, 9, 60, 600):
        sweep(at(minutes=minutes))
    (message,) = inbox("ana@example.com")
    assert message["Subject"] == f"Your turn at table {game.pk} (Wild Cards Teams)"
    assert f"{SITE}/games/{game.pk}/" in text_of(message)
    row = EmailOutbox.objects.get(game=game, seat=0, kind="turn")
    assert (row.skipped, row.via, row.sent_at) == ("", "email", at(minutes=8))


def test_at_most_one_your_turn_email_a_game_until_the_player_has_been_back(inbox, four):
    ana = four[0]
    game = start(four, turn_hours=12)
    sweep(at(1))
    assert len(turn_emails(inbox("ana@example.com"))) == 1

    def next_decision_of_ana(moment):
        """Everyone else decides at once; Ana's own decisions time out (a bot plays them);
        until a new decision is hers."""
        seq = fresh(game).clocks["0"]["since"]
        for _hour in range(1, 200):
            with travel(moment):
                for seat in fresh(game).waiting_on:
                    if seat != 0:
                        move_as_person(game, seat)
            clock = fresh(game).clocks.get("0")
            if clock is not None and clock["since"] != seq:
                return clock["since"]
            sweep(moment := moment + (timedelta(hours=13)))
        raise AssertionError("Ana never had another decision")

    seq = next_decision_of_ana(at(hours=1))
    sweep(datetime.fromisoformat(fresh(game).clocks["0"]["started"]) + timedelta(minutes=30))
    assert len(turn_emails(inbox("ana@example.com"))) == 1  # told already, not back since
    assert (
        EmailOutbox.objects.get(game=game, seat=0, seq=seq, kind="turn").skipped == "told already"
    )

    # She comes back (and leaves again); her next decision is emailed once more.
    started = datetime.fromisoformat(fresh(game).clocks["0"]["started"])
    on_the_site(Client(), ana, started + timedelta(minutes=40))
    seq = next_decision_of_ana(started + timedelta(hours=1))
    sweep(datetime.fromisoformat(fresh(game).clocks["0"]["started"]) + timedelta(minutes=30))
    assert len(turn_emails(inbox("ana@example.com"))) == 2
    assert EmailOutbox.objects.get(game=game, seat=0, seq=seq, kind="turn").skipped == ""


def test_several_games_waiting_go_in_one_email(inbox, four):
    ana = four[0]
    on_the_site(Client(), ana, at(0))
    games = [start(four), start(four, moment=at(minutes=2)), start(four, moment=at(minutes=4))]
    sweep(at(minutes=1))
    sweep(at(minutes=5) - SECOND)
    assert inbox("ana@example.com") == []

    sweep(at(minutes=5))  # five minutes after she was last seen: away
    (message,) = inbox("ana@example.com")
    assert message["Subject"] == "Your turn in 3 games (Wild Cards Teams)"
    text = text_of(message)
    for game in games:
        assert f"Table {game.pk}: until " in text
        assert f"{SITE}/games/{game.pk}/" in text
    assert set(EmailOutbox.objects.filter(seat=0, kind="turn").values_list("via", "skipped")) == {
        ("digest", "")
    }
    for minutes in (7, 60):
        sweep(at(minutes=minutes))
    assert len(inbox("ana@example.com")) == 1


def test_the_daily_digest_goes_at_the_players_hour_in_their_zone(inbox, four):
    ana = four[0]
    ana.turn_email, ana.digest_hour, ana.time_zone = "digest", 18, "Europe/Paris"
    ana.save()
    games = [start(four, turn_hours=72), start(four, moment=at(hours=2), turn_hours=72)]
    sweep(at(hours=2, minutes=1))
    paris_six = datetime(2026, 3, 2, 18, 0, tzinfo=PARIS)  # 17:00 UTC
    sweep(paris_six - SECOND)
    assert turn_emails(inbox("ana@example.com")) == []
    # Bo, away and "as soon as I am away": both games in one email, at once.
    assert [m["Subject"] for m in inbox("bo@example.com")] == [
        "Your turn in 2 games (Wild Cards Teams)"
    ]

    sweep(paris_six)
    (message,) = inbox("ana@example.com")
    assert message["Subject"] == "Your turn in 2 games (Wild Cards Teams)"
    text = text_of(message)
    assert "This is your daily email" in text
    # Deadlines in her zone: the first game's is Thursday 09:00 UTC, 10:00 in Paris.
    assert f"Table {games[0].pk}: until Thu 5 Mar, 10:00" in text
    assert "(times in Europe/Paris)" in text


def test_quiet_hours_hold_a_your_turn_email_until_they_end(inbox, four):
    ana = four[0]
    quiet_in_paris(ana, 22, 7)
    evening = datetime(2026, 3, 2, 23, 0, tzinfo=PARIS)
    game = start(four, moment=evening, turn_hours=72)
    sweep(evening + SECOND)
    morning = datetime(2026, 3, 3, 7, 0, tzinfo=PARIS)
    sweep(morning - SECOND)
    assert inbox("ana@example.com") == []
    assert len(inbox()) == 3

    sweep(morning)
    (message,) = inbox("ana@example.com")
    assert message["Subject"] == f"Your turn at table {game.pk} (Wild Cards Teams)"


def test_a_reminder_whose_deadline_falls_in_quiet_hours_goes_before_they_begin(inbox, four):
    ana = four[0]
    quiet_in_paris(ana, 22, 9)
    # Dealt at 20:00 in Paris with 12 h: half time at 02:00 and the deadline at 08:00,
    # both inside her quiet hours (22:00 to 09:00). The reminder goes at 21:45.
    deal = datetime(2026, 3, 2, 20, 0, tzinfo=PARIS)
    game = start(four, moment=deal, turn_hours=12)
    sweep(deal + SECOND)
    assert len(turn_emails(inbox("ana@example.com"))) == 1  # before her quiet hours

    def reminders(to):
        return [m for m in inbox(to) if m["Subject"].startswith("Reminder")]

    before = datetime(2026, 3, 2, 21, 45, tzinfo=PARIS)
    sweep(before - SECOND)
    assert reminders("ana@example.com") == []
    sweep(before)
    (message,) = reminders("ana@example.com")
    assert "Mon 2 Mar" not in message["Subject"] and "Tue 3 Mar, 08:00" in message["Subject"]
    assert "after it, a bot plays that turn for you" in text_of(message)
    assert reminders("bo@example.com") == []  # the others: at half time, as always

    half_time = datetime(2026, 3, 3, 2, 0, tzinfo=PARIS)
    for moment in (half_time, half_time + timedelta(minutes=1)):
        sweep(moment)
    assert len(reminders("ana@example.com")) == 1  # the sweep's own row is the same row
    assert len(reminders("bo@example.com")) == 1
    assert EmailOutbox.objects.filter(game=game, seat=0, kind="reminder").count() == 1


def test_the_half_time_reminder_waits_while_the_player_is_here_and_not_past_the_deadline(
    inbox, four
):
    ana, bo = four[0], four[1]
    game = start(four, turn_hours=12)
    client_ana, client_bo = Client(), Client()
    # Both are on the site at half time; Bo leaves, Ana stays until her deadline.
    for minutes in range(0, 12 * 60, 2):
        if minutes <= 6 * 60 + 10:
            on_the_site(client_bo, bo, at(minutes=minutes))
        on_the_site(client_ana, ana, at(minutes=minutes))
        if minutes % 30 == 0:
            sweep(at(minutes=minutes, seconds=1))
    sweep(at(hours=12) - SECOND)

    def reminders(to):
        return [m for m in inbox(to) if m["Subject"].startswith("Reminder")]

    assert reminders("ana@example.com") == []
    assert len(reminders("bo@example.com")) == 1
    assert reminders("cy@example.com") and reminders("di@example.com")
    assert "still waiting" in text_of(reminders("bo@example.com")[0])
    sweep(at(hours=12, minutes=1))  # the deadline passed: the decision is no longer open
    assert reminders("ana@example.com") == []
    assert EmailOutbox.objects.get(game=game, seat=0, kind="reminder").skipped in (
        "player on the site",
        "already decided",
    )


def _unsubscribe_link(message):
    header = message["List-Unsubscribe"].strip()
    assert header.startswith("<") and header.endswith(">")
    link = header[1:-1]
    assert link in text_of(message)  # the same link in the body, for any mail program
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    return link


def test_an_unsubscribe_link_turns_that_kind_off_without_logging_in(inbox, four):
    ana = four[0]
    start(four, turn_hours=12)
    sweep(at(1))
    (message,) = inbox("ana@example.com")
    link = _unsubscribe_link(message)
    assert link.startswith(f"{SITE}/accounts/unsubscribe/")
    path = link.removeprefix(SITE)

    anonymous = Client(enforce_csrf_checks=True)
    page = anonymous.get(path)
    assert page.status_code == 200
    assert 'Stop "your turn" emails' in html.unescape(page.content.decode())
    ana.refresh_from_db()
    assert ana.turn_email == "immediate"  # a link checker that opens it changes nothing

    # The mail program's one-click POST (RFC 8058): no session, no CSRF token.
    done = anonymous.post(
        path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert done.status_code == 200
    ana.refresh_from_db()
    assert (ana.turn_email, ana.notify_reminder_email) == ("none", True)

    # A new game: no "your turn" email for her, but her reminder still comes.
    game = start(four, moment=at(hours=1), turn_hours=12)
    sweep(at(hours=1, seconds=1))
    sweep(at(hours=7, seconds=1))
    subjects = [m["Subject"] for m in inbox("ana@example.com")]
    assert len(subjects) == 3, subjects  # the first game's email and the two reminders
    assert EmailOutbox.objects.get(game=game, seat=0, kind="turn").skipped == "preference off"

    (reminder, *_) = [m for m in inbox("ana@example.com") if m["Subject"].startswith("Reminder")]
    anonymous.post(_unsubscribe_link(reminder).removeprefix(SITE))
    ana.refresh_from_db()
    assert ana.notify_reminder_email is False


def test_a_forged_or_cut_unsubscribe_link_changes_nothing(inbox, four):
    ana = four[0]
    start(four)
    sweep(at(1))
    link = _unsubscribe_link(inbox("ana@example.com")[0]).removeprefix(SITE)
    token = re.search(r"/unsubscribe/([^/]+)/", link).group(1)
    client = Client()
    for bad in (token[:-3] + "abc", token.split(":")[0], "x"):
        response = client.post(f"/accounts/unsubscribe/{bad}/")
        assert response.status_code == 400
        assert "This link does not work" in response.content.decode()
    ana.refresh_from_db()
    assert ana.turn_email == "immediate"


def test_the_profile_shows_the_email_choices_and_saves_them(client, four):
    ana = four[0]
    client.force_login(ana)
    page = client.get(reverse("accounts:profile")).content.decode()
    for words in (
        "As soon as I am away",
        "Once a day, all my games in one email",
        "Never",
        "Quiet hours",
        "send the daily email at",
        "Email me when it is my turn",
    ):
        assert words.lower() in page.lower()
    data = {
        "display_name": "",
        "email": ana.email,
        "time_zone": "Europe/Paris",
        "turn_email": "digest",
        "digest_hour": "7",
        "notify_reminder_email": "on",
        "quiet_start": "23:00",
        "quiet_end": "06:30",
    }
    assert client.post(reverse("accounts:profile"), data).status_code == 302
    ana.refresh_from_db()
    assert (ana.turn_email, ana.digest_hour, ana.quiet_start, ana.quiet_end) == (
        "digest",
        7,
        time(23),
        time(6, 30),
    )

    half = client.post(reverse("accounts:profile"), {**data, "quiet_end": ""})
    assert half.status_code == 400
    assert "Give both ends of your quiet hours, or neither." in half.content.decode()


def test_a_socket_or_a_request_marks_the_player_seen_at_most_once_a_minute(four, settings):
    ana = four[0]
    with travel(at(0)):
        assert activity.seen(ana.pk) is True
        assert activity.seen(ana.pk) is False
    with travel(at(59)):
        assert activity.seen(ana.pk) is False
    with travel(at(61)):
        assert activity.seen(ana.pk) is True
    ana.refresh_from_db()
    assert ana.last_seen_at == at(61)
    assert activity.is_present(ana, at(61 + 5 * 60 - 1))
    assert not activity.is_present(ana, at(61 + 5 * 60))


def _play_against_bots(ana, on_site, moves=150):
    """A turn-by-turn table of Ana against three bots, played `moves` decisions deep at a
    move every ten seconds, the beat's sweep after each; Ana on the site throughout if
    `on_site` (her requests: the page and her moves)."""
    client = Client()
    moment = at(0)
    if on_site:
        on_the_site(client, ana, moment)
    game = start([ana], moment=moment, turn_hours=12)
    for _ in range(moves):
        game = fresh(game)
        if game.status != Game.Status.ACTIVE:
            break
        moment += 10 * SECOND
        with travel(moment):
            if on_site:
                on_the_site(client, ana, moment)
            for seat in game.waiting_on:
                if seat == 0:
                    move_as_person(game, 0)
                else:
                    tasks.play_bot(game.pk, seat, game.last_seq)
                game = fresh(game)
        sweep(moment)
    return game, moment


def test_a_player_at_the_table_against_bots_gets_no_email_at_all(inbox, ana):
    game, moment = _play_against_bots(ana, on_site=True)
    turns = EmailOutbox.objects.filter(game=game, seat=0, kind="turn")
    assert turns.count() >= 10  # she had many decisions: each one was a candidate
    assert inbox() == []
    # She leaves with a decision open (if the game is still on): one email, five minutes on.
    if fresh(game).clocks.get("0"):
        sweep(moment + timedelta(minutes=6))
        assert len(inbox()) == 1


def test_a_player_away_from_a_table_against_bots_gets_one_email(inbox, ana):
    game, _ = _play_against_bots(ana, on_site=False)
    assert len(inbox("ana@example.com")) == 1
    assert (
        EmailOutbox.objects.filter(game=game, seat=0, kind="turn", skipped="told already").count()
        >= 10
    )
