"""The table's plumbing, apart from what it shows: the templates it renders with, the
markers a plate's reader's places are filled into, and the addresses it links to.

Everything here is a cache or a look-up, kept once per process: the table's pieces are
rendered for every move of every table (docs/load.md), so each saving here is paid back on
every push. Nothing here decides what a reader sees.
"""

import functools

from django.template import engines
from django.template.backends.utils import csrf_input_lazy
from django.urls import reverse
from django.utils.safestring import mark_safe


def _jinja():
    """The Jinja2 environment (settings.TEMPLATES, config/jinja2.py) the table's live parts
    are rendered with: they are rendered for every move of every table, and Jinja2 compiles a
    template to Python where Django's engine walks its nodes on every render (docs/table.md,
    "Templates")."""
    return engines["jinja2"].env


_loaded = {}  # template name -> (environment, template): see template


def template(name):
    """A template of the Jinja2 environment, looked up once per process unless the
    environment reloads changed files (DEBUG): Jinja2's get_template takes a lock and
    reorders its cache on every call, and the table's macros are called a dozen times a
    push (under load that lookup was a tenth of a push's samples: docs/load.md)."""
    env = _jinja()
    if env.auto_reload:
        return env.get_template(name)
    found = _loaded.get(name)
    if found is None or found[0] is not env:  # a new environment (settings changed in a test)
        found = _loaded[name] = (env, env.get_template(name))
    return found[1]


def parts():
    """templates/jinja2/games/table_parts.html's macros. The pieces call it through this
    module (`render.parts()`), so that a test counting the macros' calls sees them all."""
    return template("games/table_parts.html").module


def render_fragments(context, request=None):
    """The live fragments as one HTML string of out-of-band swaps (stable ids): the push, the
    resync and the page itself (games/table.html places it) render them here. A push has no
    request, so its forms carry no CSRF field: table.js sends moves on the socket, and a
    form it posts takes the field from the page."""
    fragments = template("games/fragments.html")
    return mark_safe(fragments.render(
        {**context, "csrf_input": csrf_input_lazy(request) if request is not None else ""}))


# --- a plate's reader's places ----------------------------------------------------------------
# A plate is rendered once per push (plates.render) with markers where its reader's role (their
# own seat, their partner's, neither) changes it; each reader's copy is the markers replaced.

PLATE_SLOTS = ("class", "label-name", "label-team", "band", "tag")


@functools.lru_cache(maxsize=8)
def slot_fills(role):
    """[(marker, what fills it)] for a reader of `role`: the same for every plate."""
    macros = parts()
    return [(f"<slot:{name}>", str(macros.plate_slot(name, role))) for name in PLATE_SLOTS]


def fill_slots(slotted, role):
    for marker, fill in slot_fills(role):
        slotted = slotted.replace(marker, fill)
    return mark_safe(slotted)


# --- addresses --------------------------------------------------------------------------------
# reverse() was a fifth of table_context's time: each address is worked out once per process,
# keyed by the script prefix too, which a request under a sub-path sets.


@functools.lru_cache(maxsize=4096)
def act_url(prefix, game_id):
    """The move form's address."""
    return reverse("games:act", args=[game_id])


@functools.lru_cache(maxsize=4096)
def verify_url(prefix, game_id):
    """The deal commitment's link, on every push."""
    return reverse("history:verify", args=[game_id])


@functools.lru_cache(maxsize=64)
def rules_url(prefix):
    return reverse("rules")
