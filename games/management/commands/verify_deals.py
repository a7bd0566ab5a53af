"""Checks finished games' deals against their seeds and secrets (docs/fair-deals.md): the
page `history:verify`'s check, for one game, several, or every finished game.

Prints one line per round; exits with status 1 when any round of any game fails. Games that
are not finished are named and skipped: their seed and secret are not revealed.
"""

from django.core.management.base import BaseCommand, CommandError

from games.models import Game
from games.presenters import fairness


class Command(BaseCommand):
    help = "Recomputes every deal of finished games from their seeds and compares them."

    def add_arguments(self, parser):
        parser.add_argument("game_ids", nargs="*", type=int, help="the games to check")
        parser.add_argument("--all", action="store_true", help="every finished game")

    def handle(self, *args, game_ids=(), all=False, **options):
        if bool(game_ids) == bool(all):
            raise CommandError("Name the games to check, or give --all (not both).")
        games = Game.objects.all()
        if game_ids:
            games = games.filter(pk__in=game_ids)
            missing = set(game_ids) - set(games.values_list("pk", flat=True))
            if missing:
                raise CommandError(f"no such game: {', '.join(map(str, sorted(missing)))}")
        else:
            games = games.filter(status=Game.Status.FINISHED)
        failed, checked = [], 0
        for game in games.order_by("pk").iterator(chunk_size=100):
            if not fairness.revealed(game):
                self.stdout.write(
                    f"game {game.pk}: {game.get_status_display().lower()}, "
                    "its seed and secret are not revealed; skipped"
                )
                continue
            checked += 1
            result = fairness.verify_game(game)
            for r in result.rounds:
                commit = "commitment ok" if r.commitment_ok else "COMMITMENT DIFFERS"
                if r.deal_ok:
                    deal = (
                        f"deal ok ({r.hands} hands, {r.draws} cards drawn, "
                        f"{r.reshuffles} reshuffles)"
                    )
                else:
                    deal = "DEAL NOT REACHED" if not r.reached else "DEAL DIFFERS"
                self.stdout.write(f"game {game.pk} round {r.round}: {commit}, {deal}")
                for problem in r.problems:
                    self.stdout.write(f"  {problem}")
            if result.stopped:
                self.stdout.write(f"  {result.stopped}")
            if not result.ok:
                failed.append(game.pk)
        self.stdout.write(f"{checked} games checked; {len(failed)} failed")
        if failed:
            raise CommandError(f"deals that do not match: game {', '.join(map(str, failed))}")
