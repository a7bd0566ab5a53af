"""Bot accounts and API clients for the Bot API's tests.

Robo and Rita are bot accounts (each with a token); Ana is a person.
"""

import pytest
from django.test import Client

from accounts import bot_tokens
from games import tasks
from games.models import Game
from lobby import services as lobby
from tests.conftest import make_user


def make_bot(username):
    user = make_user(username, display_name=username.title())
    return bot_tokens.make_bot_account(user)


class Api:
    """A test client that speaks to the Bot API with one token."""

    def __init__(self, raw):
        self.raw = raw
        self.client = Client()
        self.sent = []  # every JSON body the API answered, for the secrecy scan

    def _headers(self):
        return {"Authorization": f"Bearer {self.raw}"} if self.raw else {}

    def _keep(self, response):
        if response.get("Content-Type", "").startswith("application/json"):
            self.sent.append(response.json())
        return response

    def get(self, path):
        return self._keep(self.client.get(f"/api/bot{path}", headers=self._headers()))

    def post(self, path, body=None):
        return self._keep(
            self.client.post(
                f"/api/bot{path}",
                body or {},
                content_type="application/json",
                headers=self._headers(),
            )
        )


@pytest.fixture
def robo(db):
    return make_bot("robo")


@pytest.fixture
def rita(db):
    return make_bot("rita")


@pytest.fixture
def robo_api(robo):
    return Api(bot_tokens.issue(robo, "laptop")[1])


@pytest.fixture
def rita_api(rita):
    return Api(bot_tokens.issue(rita, "server")[1])


def bot_table(bot, *, players=4, seed=20240, **options):
    """A started game the bot account hosts at seat 0, site bots ("easy") in the others."""
    game = lobby.create_table(bot, players=players, seed=seed, **options)
    for number in range(1, players):
        lobby.add_bot(game.pk, bot, number, "easy")
    lobby.start_table(game.pk, bot)
    game.refresh_from_db()
    return game


def run_site_bots(game):
    """Plays the site bots' pending decisions, as the worker would, until a seat of a
    program (or nobody) has to decide."""
    for _ in range(500):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return
        due = [s for s in game.waiting_on if s in game.bot_seats]
        if not due:
            return
        tasks.play_bot(game.pk, due[0], game.last_seq)
    raise AssertionError("the site bots never stopped")
