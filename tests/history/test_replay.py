"""Replays rebuilt from the event rows: every step agrees with the engine, and no reader
sees a card they may not see. Exports of finished games."""

import json
import re

import pytest
from django.urls import reverse

from games import engine
from games.actions import moderation
from games.models import Game
from games.presenters import describe, replay
from tests.conftest import make_started_game, make_user, play_until
from tests.games.presenters.test_table_secrecy import cards_in, codes_in
from tests.history.helpers import make_finished_game, rows

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
    fragment = client.get(reverse("history:replay", args=[game.pk]), {"step": 3},
                          headers={"HX-Request": "true"}).content.decode()
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
        assert shown == [describe.describe(e, None, names, 4) for e in public][-replay.LOG_LINES:]


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
    moderation.abort_table(game.pk, make_user("mod", is_staff=True), "test abort")
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
        [describe.describe(event, None, names, 4) for event in r.events] for r in event_rows]
    assert all(line and not re.search(r"\byour?\b", line, re.I) for e in data["events"]
               for line in e["lines"])

    state = engine.Game.new(engine.Options(**{k: data["options"][k] for k in (
        "players", "stacking", "final_card_penalty", "target_score")}), data["seed"])
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
    staff = make_user("mod", is_staff=True)
    moderation.replace_with_bot(game.pk, 1, staff, "secret reason about Bo")
    from tests.history.helpers import finish

    finish(game)
    client.force_login(ana)
    body = client.get(reverse("history:export", args=[game.pk])).content.decode()
    assert "secret reason about Bo" not in body
    assert '"moderator"' in body
    replay_html = get(client, game, step=10**6, all=1).content.decode()
    assert "secret reason about Bo" not in replay_html
