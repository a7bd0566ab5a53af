"""Replays rebuilt from the event rows: every step agrees with the engine, and no reader
sees a card they may not see. Exports of finished games."""

import json
import re

import pytest
from django.urls import reverse

from games import engine
from games.models import Game
from games.moderation import actions as moderation
from games.presenters import describe, replay
from tests.conftest import make_started_game, make_user, play_until
from tests.games.history.helpers import make_finished_game, rows
from tests.games.presenters.test_table_secrecy import cards_in, codes_in

pytestmark = pytest.mark.django_db


def replay_url(game, **params):
    return reverse("history:replay", args=[game.pk]), params


def get(client, game, **params):
    url, params = replay_url(game, **params)
    return client.get(url, params)


def test_every_step_equals_the_engine_after_that_many_actions_for_every_perspective(four):
    game = make_finished_game(four)
    event_rows = rows(game)
    names = replay.seat_names(game)
    live = engine.Game.new(game.engine_options(), game.seed)
    for step, row in enumerate(event_rows, start=1):
        if row.action is not None:
            assert live.act(row.seat, row.action) == row.events
        for seat in (None, 0, 1, 2, 3):
            frame = replay.frame(game, event_rows, step, replay.Perspective(seat=seat), names)
            assert frame["view"] == live.view(seat), (step, seat)
            expected_hands = [live.view(seat)["hand"] if s == seat else None for s in range(4)]
            assert [s["hand"] and [c for c in s["hand"]] for s in frame["seats"]] == [
                h and [engine.card_name(c) for c in h] for h in expected_hands
            ]
        everything = replay.frame(game, event_rows, step, replay.Perspective(all_hands=True), names)
        assert [s["hand"] for s in everything["seats"]] == [
            [engine.card_name(c) for c in live.view(s)["hand"]] for s in range(4)
        ]
    assert live.to_dict() == game.snapshot.state


def test_the_replay_page_at_a_step_shows_the_engine_view_of_that_step(client, four):
    game = make_finished_game(four)
    event_rows = rows(game)
    client.force_login(four[1])
    for step in (1, 2, len(event_rows) // 2, len(event_rows)):
        state = engine.Game.new(game.engine_options(), game.seed)
        for row in event_rows[:step]:
            if row.action is not None:
                state.act(row.seat, row.action)
        for params, seat in (({}, None), ({"seat": 1}, 1), ({"seat": 2}, 2)):
            response = get(client, game, step=step, **params)
            assert response.status_code == 200
            assert response.context["frame"]["view"] == state.view(seat)
            assert f"Step {step} of {len(event_rows)}" in response.content.decode()


def test_steps_out_of_range_are_clamped_and_htmx_gets_only_the_frame(client, four):
    game = make_finished_game(four)
    total = len(rows(game))
    client.force_login(four[0])
    assert get(client, game, step=0).context["frame"]["step"] == 1
    assert get(client, game, step=10**6).context["frame"]["step"] == total
    assert get(client, game, step="x").context["frame"]["step"] == 1
    fragment = client.get(
        reverse("history:replay", args=[game.pk]), {"step": 3}, headers={"HX-Request": "true"}
    ).content.decode()
    assert fragment.lstrip().startswith('<section id="replay"')


def test_a_participant_following_a_running_game_sees_only_their_own_hand(client, four):
    game = make_started_game(four)
    play_until(game, 40)
    event_rows = rows(game)
    client.force_login(four[0])
    for step in range(1, len(event_rows) + 1):
        response = get(client, game, step=step, seat=0)
        frame = response.context["frame"]
        assert [s["hand"] is not None for s in frame["seats"]] == [True, False, False, False]
        html = response.content.decode()
        assert html.count('class="replay-hand"') == 1
        visible = [e for row in event_rows[:step] for e in engine.events_for(row.events, 0)]
        assert len(frame["log"]) == min(len(visible), replay.LOG_LINES)


def test_while_a_game_runs_nobody_follows_another_seat_or_sees_all_hands(client, four, ed):
    game = make_started_game(four, spectators=True)
    play_until(game, 20)
    client.force_login(four[0])
    assert get(client, game, seat=1).status_code == 403
    assert get(client, game, all=1).status_code == 403
    client.force_login(ed)
    assert get(client, game, seat=0).status_code == 403
    assert get(client, game, all=1).status_code == 403
    public = get(client, game)
    assert public.status_code == 200
    assert public.context["perspective"] == replay.Perspective()


def test_outsiders_cannot_watch_a_running_table_without_spectators(client, four, ed):
    game = make_started_game(four, spectators=False)
    client.force_login(ed)
    assert get(client, game).status_code == 403
    staff = make_user("mod", is_staff=True)
    client.force_login(staff)
    response = get(client, game)
    assert response.status_code == 200
    # Staff get the public view of a running game, never a hand.
    assert all(s["hand"] is None for s in response.context["frame"]["seats"])
    assert get(client, game, all=1).status_code == 403


def test_the_public_replay_never_shows_a_hidden_card(client, four, ed):
    game = make_finished_game(four)
    event_rows = rows(game)
    names = replay.seat_names(game)
    client.force_login(ed)
    for step in range(1, len(event_rows) + 1, 3):
        response = get(client, game, step=step)
        html = response.content.decode()
        assert 'class="replay-hand"' not in html
        public = [e for row in event_rows[:step] for e in row.events if e.get("visible_to") is None]
        knowable = codes_in(public) | codes_in(response.context["frame"]["view"])
        assert cards_in(html) <= knowable, step
        # The log is the table's describer's, for a reader without a seat.
        shown = [line["text"] for line in response.context["frame"]["log"]]
        assert shown == [describe.describe(e, None, names, 4) for e in public][-replay.LOG_LINES :]


def test_a_player_reads_their_own_moves_as_you_in_every_perspective(client, four):
    game = make_finished_game(four)
    client.force_login(four[1])
    for params in ({}, {"seat": 1}, {"seat": 2}, {"all": 1}):
        log = get(client, game, step=10**6, **params).context["frame"]["log"]
        texts = [line["text"] for line in log]
        assert any(text.startswith("You ") for text in texts), params
        assert not any(text.startswith("Bo ") for text in texts), params


def test_once_the_game_is_over_all_hands_and_every_seat_are_shown(client, four, ed):
    game = make_finished_game(four)
    client.force_login(ed)
    everything = get(client, game, step=5, all=1)
    assert everything.status_code == 200
    assert all(s["hand"] is not None for s in everything.context["frame"]["seats"])
    assert 'class="replay-hand"' in everything.content.decode()
    assert get(client, game, step=5, seat=2).context["frame"]["view"]["seat"] == 2


def test_private_finished_tables_replay_only_for_their_players(client, four, ed):
    game = make_finished_game(four, private=True)
    client.force_login(ed)
    assert get(client, game).status_code == 403
    assert client.get(reverse("history:export", args=[game.pk])).status_code == 403
    client.force_login(four[2])
    assert get(client, game, all=1).status_code == 200


def test_an_aborted_game_replays_but_never_reveals_the_hands(client, four):
    game = make_started_game(four)
    play_until(game, 15)
    moderation.abort_table(
        game.pk, make_user("mod", is_staff=True, is_superuser=True), "test abort"
    )
    client.force_login(four[0])
    assert get(client, game, seat=0).status_code == 200
    assert get(client, game, seat=1).status_code == 403
    assert get(client, game, all=1).status_code == 403
    assert client.get(reverse("history:export", args=[game.pk])).status_code == 404
    last = get(client, game, step=10**6).context["frame"]
    assert last["row"]["kind"] == "moderator"
    assert "A moderator aborted the table" in last["log"][-1]["text"]


def test_replays_need_a_log_in(client, four):
    game = make_finished_game(four)
    assert get(client, game).status_code == 302


def test_the_export_holds_the_whole_log_and_replays_to_the_final_state(client, four, ed):
    game = make_finished_game(four)
    client.force_login(ed)
    response = client.get(reverse("history:export", args=[game.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    data = json.loads(response.content)
    event_rows = rows(game)
    assert [e["seq"] for e in data["events"]] == [r.seq for r in event_rows]
    assert [e["events"] for e in data["events"]] == [r.events for r in event_rows]
    # Each engine event with its move-log line, as a reader who did not play reads it.
    names = replay.seat_names(game)
    assert [e["lines"] for e in data["events"]] == [
        [describe.describe(event, None, names, 4) for event in r.events] for r in event_rows
    ]
    assert all(
        line and not re.search(r"\byour?\b", line, re.I)
        for e in data["events"]
        for line in e["lines"]
    )

    state = engine.Game.new(
        engine.Options(
            **{
                k: data["options"][k]
                for k in ("players", "stacking", "final_card_penalty", "target_score")
            }
        ),
        data["seed"],
    )
    for event in data["events"]:
        if event["action"] is not None:
            state.act(event["seat"], event["action"])
    assert state.to_dict() == Game.objects.get(pk=game.pk).snapshot.state
    assert data["result"]["game_over"] == state.view(None)["game_over"]
    assert [s["name"] for s in data["seats"]] == ["Ana", "Bo", "cy", "di"]


def test_a_running_game_has_no_export(client, four):
    game = make_started_game(four)
    client.force_login(four[0])
    assert client.get(reverse("history:export", args=[game.pk])).status_code == 404


def test_the_export_leaves_out_moderator_notes(client, ana, bo, cy, di):
    game = make_started_game([ana, bo, cy, di])
    play_until(game, 10)
    staff = make_user("mod", is_staff=True, is_superuser=True)
    moderation.replace_with_bot(game.pk, 1, staff, "secret reason about Bo")
    from tests.games.history.helpers import finish

    finish(game)
    client.force_login(ana)
    body = client.get(reverse("history:export", args=[game.pk])).content.decode()
    assert "secret reason about Bo" not in body
    assert '"moderator"' in body
    replay_html = get(client, game, step=10**6, all=1).content.decode()
    assert "secret reason about Bo" not in replay_html


def fragment(client, game, **params):
    url, params = replay_url(game, **params)
    return client.get(url, params, headers={"HX-Request": "true"})


def plate(html, seat):
    """The markup of seat `seat`'s plate."""
    match = re.search(rf'<li class="plate [^"]*" id="seat-{seat}".*?</li>', html, re.S)
    assert match, seat
    return match.group(0)


def test_a_steps_fragment_draws_the_table_as_it_stood_at_that_step(client, four):
    game = make_finished_game(four)
    event_rows = rows(game)
    client.force_login(four[0])
    # Steps in the middle of the game: someone is to play, the piles have moved.
    for step in (2, len(event_rows) // 3, len(event_rows) // 2):
        response = fragment(client, game, step=step)
        html = response.content.decode()
        assert html.lstrip().startswith('<section id="replay"')
        assert "HX-Request" in response["Vary"]
        assert 'id="replay-controls"' not in html  # the controls stay on the page
        view = replay.state_at(game, event_rows, step).view(None)
        assert f'data-step="{step}"' in html
        assert '<section id="replay-felt" class="felt players-4" data-me="0"' in html
        for seat in range(4):
            markup = plate(html, seat)
            assert f'{view["hand_sizes"][seat]}<span class="visually-hidden"> card' in markup
            assert (" to-play" in markup.split(">")[0]) == (view.get("turn") == seat), (step, seat)
        assert f'aria-label="Draw pile: {view["draw_pile_size"]} cards"' in html
        top = engine.card_name(view["discard"][-1])
        assert f'aria-label="Top of the discard pile: {top}"' in html
        assert f'aria-label="Colour in play: {replay.COLOR_NAMES[view["color"]]}"' in html
        way = "clockwise" if view["direction"] == 1 else "counter-clockwise"
        assert f'aria-label="Play goes {way}"' in html
        # The reader's own plate is theirs, their partner's their partner's, as on the table.
        assert " you" in plate(html, 0).split(">")[0]
        assert "your partner" in plate(html, 2)


def test_the_followed_hand_is_drawn_as_card_faces_at_the_bottom_of_the_felt(client, four):
    game = make_finished_game(four)
    event_rows = rows(game)
    client.force_login(four[0])
    # Half-way, or the last step before it at which seat 2 still holds cards (whatever the
    # deal: the seed depends on the tests that ran before).
    step, hand = next(
        (s, h)
        for s in range(len(event_rows) // 2, 0, -1)
        if (h := replay.state_at(game, event_rows, s).view(2)["hand"])
    )
    html = fragment(client, game, step=step, seat=2).content.decode()
    assert 'data-me="2"' in html and 'data-followed="2"' in html
    section = re.search(r'<div class="replay-hand" data-seat="2">.*?</ul>', html, re.S).group(0)
    faces = re.findall(
        r'<span class="card" role="img" aria-label="([^"]+)"><span class="face', section
    )
    assert faces == [engine.card_name(c) for c in hand]
    assert html.count('class="replay-hand"') == 1


def test_bots_are_named_by_their_seat_and_seats_are_numbered_from_one(client, ana, bo):
    game = make_finished_game([ana, bo], bots=["hard"])
    client.force_login(ana)
    html = get(client, game, step=10**6, seat=2).content.decode()
    assert "Bot 3 (Hard)" in html and "Bot 4 (Hard)" in html
    assert "Bot (Hard)" not in html
    assert ">Seat 3: Bot 3 (Hard)</option>" in html and ">Seat 1: Ana (you)</option>" in html
    assert "Showing: view of seat 3." in html
    assert "Seat 3: Bot 3 (Hard)" in re.search(
        r'<div class="replay-hand".*?</h2>', html, re.S
    ).group(0)
    assert '<span class="name">Bot 4 (Hard)</span>' in plate(html, 3)
    # The log's lines name the bots the same way.
    log = re.search(r'<ul class="log" id="replay-log">.*?</ul>', html, re.S).group(0)
    assert "Bot 3 (Hard)" in log or "Bot 4 (Hard)" in log


def test_the_step_controls_are_links_that_keep_the_perspective(client, four):
    game = make_finished_game(four)
    total = len(rows(game))
    client.force_login(four[0])
    html = get(client, game, step=3, seat=1).content.decode()
    path = reverse("history:replay", args=[game.pk])
    assert 'id="replay-first" class="button step-link" href="?step=1&amp;seat=1"' in html
    assert 'id="replay-prev" class="button step-link" href="?step=2&amp;seat=1"' in html
    assert 'id="replay-next" class="button step-link" href="?step=4&amp;seat=1"' in html
    assert f'id="replay-last" class="button step-link" href="?step={total}&amp;seat=1"' in html
    assert (
        f'id="replay-permalink" class="replay-permalink" href="http://testserver{path}?step=3&amp;seat=1"'
        in html
    )
    jump = re.search(r'<form class="replay-jump".*?</form>', html, re.S).group(0)
    assert '<input type="hidden" name="seat" value="1">' in jump
    assert f'name="step" min="1" max="{total}" value="3"' in jump
    first = get(client, game, step=1, all=1).content.decode()
    assert 'id="replay-first" class="button step-link" aria-disabled="true"' in first
    assert 'id="replay-prev" class="button step-link" aria-disabled="true"' in first
    assert 'href="?step=2&amp;all=1"' in first


def test_the_controls_draw_their_icons_instead_of_relying_on_a_fonts_glyphs(client, four):
    game = make_finished_game(four)
    client.force_login(four[0])
    html = get(client, game, step=3).content.decode()
    for name in ("first", "prev", "next", "last"):
        link = re.search(rf'<a id="replay-{name}".*?</a>', html, re.S).group(0)
        assert f'<use href="#icon-{name}">' in link
        assert f'<symbol id="icon-{name}"' in html
    controls = re.search(r'<nav class="replay-controls".*?</nav>', html, re.S).group(0)
    text = re.sub(r"<[^>]+>", "", controls)
    assert set(text) <= set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .×\n"
    ), set(text) - set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .×\n")


def test_a_player_following_their_seat_in_a_running_game_sees_no_card_they_did_not_know(
    client, four
):
    game = make_started_game(four)
    play_until(game, 60)
    event_rows = rows(game)
    client.force_login(four[1])
    for step in range(1, len(event_rows) + 1, 4):
        response = get(client, game, step=step, seat=1)
        html = response.content.decode()
        shown = [e for row in event_rows[:step] for e in engine.events_for(row.events, 1)]
        knowable = codes_in(shown) | codes_in(response.context["frame"]["view"])
        assert cards_in(html) <= knowable, step
        assert html.count('class="replay-hand"') == 1
        assert 'data-seat="1"' in re.search(r'<div class="replay-hand"[^>]*>', html).group(0)
