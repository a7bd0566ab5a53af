"""`manage.py verify_games`, the restore check of a backup (docs/deploy.md): it passes on
whole games and names a game whose stored events no longer replay to its snapshot."""

import threading

import pytest
from django.core.management import CommandError, call_command

from games.models import GameEvent
from tests.conftest import make_started_game, make_user, play_one, play_until

pytestmark = pytest.mark.django_db


def test_the_restore_check_passes_whole_games_and_names_a_broken_one(capsys):
    whole = make_started_game([make_user("ana"), make_user("bo")], bots=["easy"])
    play_until(whole, 30)
    broken = make_started_game([make_user("cy"), make_user("di")], bots=["easy"])
    play_until(broken, 30)

    call_command("verify_games")
    assert "2 games" in capsys.readouterr().out

    # A lost event (a backup cut in the middle of the table): a gap in the numbers.
    GameEvent.objects.filter(game=broken, seq=12).delete()
    with pytest.raises(CommandError, match=f"broken games: {broken.pk}$"):
        call_command("verify_games")
    assert f"game {broken.pk}: events" in capsys.readouterr().err
    call_command("verify_games", whole.pk)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_check_of_a_live_database_reads_each_game_in_one_snapshot(
    capsys, monkeypatch, require_postgres
):
    """Run while the site plays on, a move committed between reading a game and reading its
    events is not taken for an event beyond the game's end."""
    from django.db import connection

    from games.management.commands import verify_games

    game = make_started_game([make_user("ana"), make_user("bo")], bots=["easy"])
    play_until(game, 10)
    problem = verify_games.Command._problem

    def a_move_lands_meanwhile(self, read):
        def elsewhere():  # another connection, as a Daphne or a worker would hold
            try:
                play_one(game)
            finally:
                connection.close()

        mover = threading.Thread(target=elsewhere)
        mover.start()
        mover.join()
        return problem(self, read)

    monkeypatch.setattr(verify_games.Command, "_problem", a_move_lands_meanwhile)
    call_command("verify_games", game.pk)
    assert "1 games" in capsys.readouterr().out
    assert GameEvent.objects.filter(game=game).count() == 11  # the move did land
