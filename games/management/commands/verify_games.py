"""Checks that the stored games are whole: the restore check of a backup (docs/deploy.md).

For every game that has started (or the given ones): its events are numbered 1..last_seq
with no gap, and replaying every recorded action from the game's seed gives exactly the
stored snapshot. Exits with status 1 and names the games that fail.
"""

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from games import engine, store
from games.models import Game, GameEvent


class Command(BaseCommand):
    help = "Replays every started game's events and compares them with its stored snapshot."

    def add_arguments(self, parser):
        parser.add_argument("game_ids", nargs="*", type=int, help="only these games")

    def handle(self, *args, game_ids=(), **options):
        games = Game.objects.exclude(status=Game.Status.OPEN).select_related("snapshot")
        if game_ids:
            games = games.filter(pk__in=game_ids)
        checked, broken = 0, []
        for game_id in games.order_by("pk").values_list("pk", flat=True).iterator(chunk_size=500):
            checked += 1
            problem = self._checked(game_id)
            if problem:
                broken.append(game_id)
                self.stderr.write(f"game {game_id}: {problem}")
        events = GameEvent.objects.filter(game__in=games).count()
        self.stdout.write(f"{checked} games, {events} events checked; {len(broken)} broken")
        if broken:
            raise CommandError(f"broken games: {', '.join(map(str, broken))}")

    def _checked(self, game_id):
        """The game's problem, read in one snapshot: on a database the site is still writing
        to, a move committed between reading the game and reading its events would look like
        an event beyond its end."""
        # Inside a transaction already (a caller's), its snapshot is the one read.
        fresh = not connection.in_atomic_block
        with transaction.atomic():
            if connection.vendor == "postgresql" and fresh:
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            return self._problem(Game.objects.select_related("snapshot").get(pk=game_id))

    def _problem(self, game):
        seqs = list(
            GameEvent.objects.filter(game_id=game.pk).order_by("seq").values_list("seq", flat=True)
        )
        if seqs != list(range(1, game.last_seq + 1)):
            return f"events {seqs[:3]}...{seqs[-3:]} do not run 1..{game.last_seq}"
        snapshot = getattr(game, "snapshot", None)
        if snapshot is None:
            return "no snapshot"
        try:
            replayed = store.replay(game).to_dict()
        except engine.IllegalAction as exc:
            return f"a recorded action no longer applies when replayed: {exc}"
        if snapshot.seq == game.last_seq and replayed != snapshot.state:
            return "replaying the events does not give the stored snapshot"
        if snapshot.seq != game.last_seq and store.load_state(game).to_dict() != replayed:
            return "the snapshot and the later events disagree with the replay"
        return ""
