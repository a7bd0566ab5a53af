"""The client package's models (clients/python/wildcards_bot/models.py) are what its
generator makes of the schema the site serves today: a route or field changed without
generating them again fails here."""

from pathlib import Path

from django.conf import settings
from django.test import Client
from wildcards_bot import generate

MODELS = Path(settings.BASE_DIR) / "clients/python/wildcards_bot/models.py"


def test_the_checked_in_models_are_generated_from_todays_schema():
    schema = Client().get("/api/bot/openapi.json").json()
    made = generate.render(schema, generate.ruff())
    assert made == MODELS.read_text(), (
        "clients/python/wildcards_bot/models.py is out of date: run "
        "`.venv/bin/python -m wildcards_bot.generate --site` from the repository's root"
    )


def test_every_component_of_the_schema_is_a_model():
    schema = Client().get("/api/bot/openapi.json").json()
    from wildcards_bot import models

    assert set(schema["components"]["schemas"]) <= set(models.__all__)
    # A TypedDict's keys are the schema's properties, the required ones required.
    account = schema["components"]["schemas"]["Account"]
    assert set(models.Account.__annotations__) == set(account["properties"])
    assert models.Account.__required_keys__ == frozenset(account["required"])
