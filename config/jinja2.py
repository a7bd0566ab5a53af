"""The Jinja2 environment of settings.TEMPLATES' second engine, which renders the table's
live parts (templates/jinja2/; docs/table.md, "Templates"). Everything else stays with
Django's engine.

It behaves as Django's templates do where the table's markup relies on it: autoescaping on
(Django's safe strings, such as a card's face, pass through unescaped: they have
`__html__`), a missing value renders as nothing rather than failing (Django's backend would
choose DebugUndefined in DEBUG, which prints the missing name into the page), and the one
Django filter the table uses, `pluralize`, and `a.b` on a dict reading the key first.
"""

import re

from jinja2 import ChainableUndefined, Environment
from jinja2.ext import Extension


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


class TableEnvironment(Environment):
    """Jinja2's environment with Django's order of look-up for `a.b` on a dict: the key
    first. The presenters hand the templates plain dicts (a plate, a card, a team), and
    Jinja2's own order tries the attribute first: on a dict that raises and catches an
    AttributeError for every `p.name`, a few hundred times a push (docs/load.md)."""

    def getattr(self, obj, attribute):
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


class OneSpace(Extension):
    """Each run of whitespace that holds a line break, in the templates' source, as one
    space: what a browser shows of it, since none of these templates holds a <pre>, a
    <textarea> or text styled to keep its breaks. The indentation that keeps the templates
    readable was about a tenth of every push's bytes; done once, when a template is
    compiled, it costs a push nothing."""

    _RUN = re.compile(r"[ \t]*\n\s*")

    def preprocess(self, source, name, filename=None):
        return self._RUN.sub(" ", source)


def environment(**options):
    options["undefined"] = ChainableUndefined
    options["extensions"] = [*options.get("extensions", ()), OneSpace]
    env = TableEnvironment(**options)
    env.filters["pluralize"] = pluralize
    return env
