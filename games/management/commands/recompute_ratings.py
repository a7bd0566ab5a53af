"""Rebuilds every rating from the stored games (docs/ratings.md).

Every finished rated game, in finish order, is judged by the same rule as when it ended
(games.actions.ratings.unrated_reason: no bot, a minimum of play before a team left, the
repeat limit among the same people) and, if it counts, goes through the same update
(rate_game); the stored Rating and RatingChange rows and the games' notes of why they moved
no rating are compared with the result and, unless --check, replaced by it. Says whether
anything differed; with --check a difference exits with status 1.
"""

from django.core.management.base import BaseCommand, CommandError

from games.actions import ratings


class Command(BaseCommand):
    help = "Recomputes every rating from the stored rated games and reports any difference."

    def add_arguments(self, parser):
        parser.add_argument(
            "--check",
            action="store_true",
            help="only compare: write nothing, exit 1 if anything differs",
        )

    def handle(self, *args, check=False, **options):
        found = ratings.rebuild(write=not check)
        for line in found[:50]:
            self.stderr.write(line)
        if len(found) > 50:
            self.stderr.write(f"... and {len(found) - 50} more")
        if not found:
            self.stdout.write("Recomputed every rating: the same numbers as stored.")
        elif check:
            raise CommandError(f"{len(found)} stored numbers differ from the recomputed ones.")
        else:
            self.stdout.write(
                f"{len(found)} stored numbers differed; replaced by the recomputed ones."
            )
