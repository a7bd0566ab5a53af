"""The Jinja2 environment of settings.TEMPLATES' second engine, which renders the table's
live parts (templates/jinja2/; docs/table.md, "Templates"). Everything else stays with
Django's engine.

It behaves as Django's templates do where the table's markup relies on it: autoescaping on
(Django's safe strings, such as a card's face, pass through unescaped: they have
`__html__`), a missing value renders as nothing rather than failing (Django's backend would
choose DebugUndefined in DEBUG, which prints the missing name into the page), and the one
Django filter the table uses, `pluralize`.
"""

from jinja2 import ChainableUndefined, Environment


def pluralize(value, suffix="s"):
    """Django's `pluralize` with one suffix: "" for one (a number, or a list of one), else
    `suffix`."""
    try:
        return "" if float(value) == 1 else suffix
    except (TypeError, ValueError):
        try:
            return "" if len(value) == 1 else suffix
        except TypeError:
            return ""


def environment(**options):
    options["undefined"] = ChainableUndefined
    env = Environment(**options)
    env.filters["pluralize"] = pluralize
    return env
