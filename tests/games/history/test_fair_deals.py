"""Deals anyone can verify (docs/fair-deals.md): each deal's commitment at the table, the seed
and secret kept back until the game is finished, and the check (page, export, command) that
recomputes every deal from them."""

import hashlib
import hmac
import json
import logging
import re

import pytest
from django.core import mail
from django.core.management import CommandError, call_command
from django.urls import NoReverseMatch, reverse

from games import push
from games.models import Game, GameEvent
from games.moderation import actions as moderation
from games.presenters import fairness
from tests.conftest import make_started_game, make_user, play_one, play_until
from tests.games.history.helpers import finish, rows
from tests.games.presenters.test_table_secrecy import Recorder

pytestmark = pytest.mark.django_db

# A game to 100 points from this seed lasts several rounds and reshuffles the draw pile.
MULTI_ROUND = {"seed": 20241, "target_score": 100}
# A seed too long to turn up in a page by chance, so that a scan for it means something.
LONG_SEED = 7_364_019_283_746_501


def verify_url(game, **params):
    return reverse("history:verify", args=[game.pk]), params


def get_verify(client, game, **params):
    url, params = verify_url(game, **params)
    return client.get(url, params)


def hand_row(game, round_number):
    """The event row holding that round's deal, and the index of seat 1's hand in it."""
    for row in rows(game):
        for event in row.events:
            if event["type"] == "deal" and event["round"] == round_number:
                hand = next(
                    j for j, e in enumerate(row.events) if e["type"] == "hand" and e["seat"] == 1
                )
                return row, hand
    raise AssertionError(f"no deal of round {round_number}")


def tamper(row, events):
    # Event rows refuse save(); a forged record is written past the model, as an attacker
    # with the database would.
    GameEvent.objects.filter(pk=row.pk).update(events=events)


@pytest.fixture
def multi(four):
    return finish(make_started_game(four, **MULTI_ROUND))


# --- the commitment ---------------------------------------------------------------------


def test_the_commitment_is_the_hmac_of_the_round_and_seed_keyed_by_the_secret():
    secret = "ab" * 32
    expected = hmac.new(secret.encode(), b"wct-deal:12:3:99", hashlib.sha256).hexdigest()
    assert fairness.commitment(12, 3, 99, secret) == expected
    # Every input changes it.
    others = {
        fairness.commitment(13, 3, 99, secret),
        fairness.commitment(12, 4, 99, secret),
        fairness.commitment(12, 3, 98, secret),
        fairness.commitment(12, 3, 99, "cd" * 32),
    }
    assert expected not in others and len(others) == 4


def test_the_table_shows_each_deals_commitment_as_it_is_dealt(client, four):
    game = make_started_game(four, **MULTI_ROUND)
    client.force_login(four[0])
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    first = fairness.commitment(game.pk, 1, game.seed, game.deal_secret)
    # Among the table's links, where a curious player looks; not in the status bar.
    links = page.split('aria-label="About this table"', 1)[1].split("</nav>", 1)[0]
    assert first in links and fairness.short(first) in links
    assert reverse("history:verify", args=[game.pk]) in links
    status = page.split('id="table-status"', 1)[1].split("</section>", 1)[0]
    assert first not in status
    assert page.count('id="deal-check-text"') == 1
    while game.round == 1 and game.status == Game.Status.ACTIVE:
        play_one(game)
        game.refresh_from_db()
    assert game.round == 2
    resync = client.get(
        reverse("games:play", args=[game.pk]), headers={"HX-Request": "true"}
    ).content.decode()
    second = fairness.commitment(game.pk, 2, game.seed, game.deal_secret)
    assert second in resync and first not in resync


# --- the check --------------------------------------------------------------------------


def test_a_finished_game_of_several_rounds_verifies_from_its_revealed_seed(multi):
    result = fairness.verify_game(multi)
    assert result.ok, [(r.round, r.problems) for r in result.rounds]
    stored = [e for r in rows(multi) for e in r.events]
    dealt = [e["round"] for e in stored if e["type"] == "deal"]
    assert len(dealt) >= 3 and [r.round for r in result.rounds] == dealt
    # Every dealt hand, every card drawn and every reshuffle was compared, not skipped.
    assert sum(r.hands for r in result.rounds) == sum(e["type"] == "hand" for e in stored)
    assert sum(r.draws for r in result.rounds) == sum(
        len(e["cards"]) for e in stored if e["type"] == "drew"
    )
    assert (
        sum(r.reshuffles for r in result.rounds)
        == sum(e["type"] == "reshuffle" for e in stored)
        >= 1
    )
    assert all(r.commitment_ok and r.deal_ok for r in result.rounds)


def test_a_changed_seed_fails_and_names_the_round(multi):
    result = fairness.verify_game(multi, seed=multi.seed + 1)
    assert not result.ok
    first = result.rounds[0]
    assert first.round == 1 and not first.deal_ok and not first.commitment_ok
    assert any("dealt hand differs" in p or "starting discard" in p for p in first.problems)
    # The re-dealt hands cannot make the recorded moves: the replay stops in round 1.
    assert "round 1" in result.stopped
    assert all(not r.reached for r in result.rounds[1:])
    assert result.failed_rounds == [r.round for r in result.rounds]


def test_a_changed_secret_fails_the_commitments_but_not_the_deals(multi):
    result = fairness.verify_game(multi, secret="0" * 64)
    assert not result.ok
    assert all(not r.commitment_ok and r.deal_ok for r in result.rounds)


def test_a_tampered_deal_or_draw_in_the_record_fails_its_round_only(multi):
    row, i = hand_row(multi, 2)
    events = json.loads(json.dumps(row.events))
    real = events[i]["cards"][0]
    forged = "WTD4" if real != "WTD4" else "R0"
    events[i]["cards"][0] = forged
    tamper(row, events)
    result = fairness.verify_game(multi)
    assert not result.ok and result.failed_rounds == [2] and not result.stopped
    (problem,) = result.rounds[1].problems
    assert f"Event #{row.seq}: seat 2's dealt hand differs" in problem
    assert result.rounds[1].commitment_ok  # the commitment is right; the record is not

    drew = next(r for r in rows(multi) if any(e["type"] == "drew" for e in r.events))
    events = json.loads(json.dumps(drew.events))
    j = next(k for k, e in enumerate(events) if e["type"] == "drew")
    events[j]["cards"] = ["WTD4" if events[j]["cards"][0] != "WTD4" else "R0"]
    tamper(drew, events)
    result = fairness.verify_game(multi)
    drawn_round = next(
        r
        for r in result.rounds
        if any(f"Event #{drew.seq}: the cards seat" in p for p in r.problems)
    )
    assert drawn_round.round in result.failed_rounds


# --- the page ---------------------------------------------------------------------------


def test_the_verify_page_shows_the_seed_secret_and_a_tick_for_every_round(client, multi, ed):
    client.force_login(ed)
    response = get_verify(client, multi)
    assert response.status_code == 200
    html = response.content.decode()
    assert str(multi.seed) in html and multi.deal_secret in html
    assert "Every deal matches." in html
    body = html.split('id="verify-rounds"', 1)[1].split("</table>", 1)[0]
    checks = re.findall(r'<tr id="round-(\d+)" class="(ok|bad)"', body)
    result = response.context["result"]
    assert checks == [(str(r.round), "ok") for r in result.rounds] and len(checks) >= 3
    # A tick always comes with its word.
    assert body.count("✓</span> matches") == 2 * len(checks) and "✗" not in body
    for _round, value in fairness.shown_commitments(multi, rows(multi)):
        assert value in html


def test_a_changed_seed_in_the_form_fails_visibly(client, multi, ed):
    client.force_login(ed)
    response = get_verify(client, multi, seed=multi.seed + 1, secret=multi.deal_secret)
    assert response.status_code == 200
    html = response.content.decode()
    verdict = html.split('id="verify-verdict"', 1)[1].split("</p>", 1)[0]
    assert "The check failed" in verdict and "round" in verdict and "1" in verdict
    assert '<tr id="round-1" class="bad"' in html and "✗</span> differs" in html
    assert "with the seed and secret you gave" in verdict
    problems = html.split('id="verify-problems"', 1)[1]
    assert "Round 1" in problems and "differs" in problems

    changed_secret = get_verify(client, multi, seed=multi.seed, secret="f" * 64)
    rounds = changed_secret.content.decode().split('id="verify-rounds"', 1)[1]
    assert rounds.count("✗</span> differs") == len(changed_secret.context["result"].rounds)


def test_a_malformed_seed_or_secret_is_refused_with_the_reason(client, multi, ed):
    client.force_login(ed)
    response = get_verify(client, multi, seed="12x", secret="nothex")
    assert response.status_code == 400
    html = response.content.decode()
    assert "Enter a whole number." in html and "64 hexadecimal characters" in html
    assert response.context["result"] is None


def test_a_running_game_shows_its_commitments_only(client, four):
    game = make_started_game(four)
    client.force_login(four[0])
    response = get_verify(client, game, seed=game.seed, secret=game.deal_secret)
    assert response.status_code == 200
    html = response.content.decode()
    assert fairness.commitment(game.pk, 1, game.seed, game.deal_secret) in html
    assert "revealed here, and the deals checked, once it is finished" in html
    assert 'id="verify-form"' not in html and "result" not in response.context


def test_the_verify_page_is_only_for_those_who_may_watch(client, four, ed):
    game = finish(make_started_game(four, private=True))
    client.force_login(ed)
    assert get_verify(client, game).status_code == 403
    client.logout()
    assert get_verify(client, game).status_code == 302


def test_the_replay_and_the_finished_table_link_to_the_check(client, multi):
    client.force_login(multi.seats.get(number=0).user)
    link = reverse("history:verify", args=[multi.pk])
    replay = client.get(reverse("history:replay", args=[multi.pk])).content.decode()
    assert f'href="{link}">Verify the deals</a>' in replay
    table = client.get(reverse("games:play", args=[multi.pk])).content.decode()
    result = table.split('id="table-result"', 1)[1].split("</section>", 1)[0]
    assert "Final ranking" in result and f'href="{link}">Verify the deals</a>' in result


# --- the export and the command ---------------------------------------------------------


def test_the_export_reveals_the_secret_and_each_rounds_commitment(client, multi):
    client.force_login(multi.seats.get(number=0).user)
    data = json.loads(client.get(reverse("history:export", args=[multi.pk])).content)
    assert data["seed"] == multi.seed and data["deal_secret"] == multi.deal_secret
    dealt = [e["round"] for r in data["events"] for e in r["events"] if e["type"] == "deal"]
    assert [c["round"] for c in data["commitments"]] == dealt
    # Anyone can recompute each from the export alone.
    for c in data["commitments"]:
        message = f"wct-deal:{data['game']}:{c['round']}:{data['seed']}".encode()
        assert (
            c["commitment"]
            == hmac.new(data["deal_secret"].encode(), message, hashlib.sha256).hexdigest()
        )


def test_the_command_passes_whole_games_and_fails_a_tampered_one(multi, four, capsys):
    call_command("verify_deals", multi.pk)
    out = capsys.readouterr().out
    assert f"game {multi.pk} round 1: commitment ok, deal ok" in out
    assert "1 games checked; 0 failed" in out

    running = make_started_game([make_user("x1")], bots=["easy"])
    call_command("verify_deals", "--all")
    out = capsys.readouterr().out
    assert "1 games checked; 0 failed" in out and f"game {running.pk}" not in out
    call_command("verify_deals", running.pk)
    assert "not revealed; skipped" in capsys.readouterr().out

    row, i = hand_row(multi, 1)
    events = json.loads(json.dumps(row.events))
    events[i]["cards"] = list(reversed(events[i]["cards"]))[1:] + ["WTD4"]
    tamper(row, events)
    with pytest.raises(CommandError, match=f"game {multi.pk}$"):
        call_command("verify_deals", "--all")
    assert f"game {multi.pk} round 1: commitment ok, DEAL DIFFERS" in capsys.readouterr().out
    with pytest.raises(CommandError):
        call_command("verify_deals")


# --- secrecy: scanned, not trusted ------------------------------------------------------


def _scan_urls(game, users):
    names = [
        ("games:play", True),
        ("history:replay", True),
        ("history:verify", True),
        ("history:export", True),
        ("games:chat", True),
        ("history:mine", False),
        ("games:mine", False),
        ("lobby:index", False),
        ("lobby:watch", False),
    ]
    urls = []
    for name, with_game in names:
        try:
            urls.append(reverse(name, args=[game.pk] if with_game else []))
        except NoReverseMatch:
            continue
    for user in users:
        urls.append(reverse("history:player", args=[user.username]))
        urls.append(reverse("history:profile", args=[user.username]))
    replay = reverse("history:replay", args=[game.pk])
    urls += [f"{replay}?step=1000000", f"{replay}?seat=0&step=1000000"]
    return urls


def _leaks(text, game):
    return [
        what
        for what, value in (("seed", str(game.seed)), ("secret", game.deal_secret))
        if value in text
    ]


def test_nothing_shows_the_seed_or_secret_before_the_game_is_finished(
    client,
    monkeypatch,
    django_capture_on_commit_callbacks,
    caplog,
    four,
    ed,
):
    caplog.set_level(logging.DEBUG)
    recorder = Recorder()
    monkeypatch.setattr(push, "get_channel_layer", lambda: recorder)
    game = make_started_game(four, seed=LONG_SEED, spectators=True, pace="turn")
    readers = four + [ed]
    scanned = 0
    leaks = []

    def scan_pages():
        nonlocal scanned
        for user in readers:
            client.force_login(user)
            for url in _scan_urls(game, four):
                for headers in ({}, {"HX-Request": "true"}):
                    response = client.get(url, headers=headers)
                    assert response.status_code < 500, url
                    body = response.content.decode(errors="replace")
                    leaks.extend((url, user.username, w) for w in _leaks(body, game))
                    scanned += 1

    scan_pages()
    for step in range(60):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        with django_capture_on_commit_callbacks(execute=True):
            play_one(game)
        if step % 20 == 19:
            scan_pages()
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    pushed = [json.dumps(message) for _, message in recorder.sent]
    assert len(pushed) > 100
    # The scan does see what the pushes carry: the deal's commitment, in every table push.
    commitment = fairness.commitment(game.pk, game.round, game.seed, game.deal_secret)
    assert any(commitment in p for p in pushed)
    leaks += [("push", i, w) for i, p in enumerate(pushed) for w in _leaks(p, game)]
    leaks += [
        ("email", m.subject, w)
        for m in mail.outbox
        for w in _leaks(m.subject + m.body + str(m.alternatives), game)
    ]
    leaks += [("log", r.name, w) for r in caplog.records for w in _leaks(r.getMessage(), game)]
    assert scanned > 100
    assert not leaks, leaks[:5]

    # Once finished, the export and the check reveal both.
    finish(game)
    client.force_login(ed)
    export = client.get(reverse("history:export", args=[game.pk])).content.decode()
    verify = get_verify(client, game).content.decode()
    assert _leaks(export, game) == ["seed", "secret"] == _leaks(verify, game)


def test_an_aborted_game_never_reveals_its_seed_or_secret(client, four):
    game = make_started_game(four, seed=LONG_SEED)
    play_until(game, 12)
    moderation.abort_table(
        game.pk, make_user("mod", is_staff=True, is_superuser=True), "test abort"
    )
    game.refresh_from_db()
    client.force_login(four[0])
    response = get_verify(client, game, seed=game.seed, secret=game.deal_secret)
    html = response.content.decode()
    assert response.status_code == 200 and "This game was aborted" in html
    assert fairness.commitment(game.pk, 1, game.seed, game.deal_secret) in html
    # The query string repeats what was typed; the page itself adds neither value.
    plain = get_verify(client, game).content.decode()
    assert _leaks(plain, game) == []
    assert client.get(reverse("history:export", args=[game.pk])).status_code == 404
    call_command("verify_deals", game.pk)


def test_the_admin_does_not_show_a_running_games_secret(client, four):
    game = make_started_game(four, seed=LONG_SEED)
    client.force_login(make_user("mod", is_staff=True, is_superuser=True))
    page = client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert game.deal_secret not in page
