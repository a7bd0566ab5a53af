"""The table's plumbing, apart from what it shows: the templates it renders with, the
markers a plate's reader's places are filled into, and the addresses it links to.

Everything here is a cache or a look-up, kept once per process: the table's pieces are
rendered for every move of every table (docs/load.md), so each saving here is paid back on
every push. Nothing here decides what a reader sees.
"""

import functools
from collections.abc import Mapping
from typing import Any, Protocol, cast

from django.http import HttpRequest
from django.template import engines
from django.template.backends.jinja2 import Jinja2
from django.template.backends.utils import csrf_input
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from jinja2 import Environment, Template
from markupsafe import Markup

from games.engine.types import SeatView
from games.presenters.table import pieces


def _jinja() -> Environment:
    """The Jinja2 environment (settings.TEMPLATES, config/jinja2.py) the table's live parts
    are rendered with: they are rendered for every move of every table, and Jinja2 compiles a
    template to Python where Django's engine walks its nodes on every render (docs/table.md,
    "Templates")."""
    env: Environment = cast(Jinja2, engines["jinja2"]).env  # settings.TEMPLATES' "jinja2"
    return env


_loaded: dict[str, tuple[Environment, Template]] = {}  # name -> (environment, template)


def template(name: str) -> Template:
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


class TableParts(Protocol):
    """The macros of templates/jinja2/games/table_parts.html that the pieces call, as a
    TemplateModule holds them: attributes it gets when the template runs, which only this
    protocol names for mypy. Each gives autoescaped markup."""

    def plate_slot(self, name: str, role: str | None) -> Markup: ...
    def plate(self, p: Mapping[str, Any]) -> Markup: ...
    def scores(self, teams: list[dict[str, Any]], yours: int | None) -> Markup: ...
    def round_line(self, view: SeatView, target_score: int | None) -> Markup: ...
    def deal_check(
        self, seq: int, round: int, deal_commitment: str, verify_url: str, finished: bool
    ) -> Markup: ...
    def direction(self, view: SeatView) -> Markup: ...
    def piles(
        self,
        view: SeatView,
        top: Mapping[str, Any] | None,
        color_name: str | None,
        color_symbol: str | None,
    ) -> Markup: ...
    def discard_summary(self, count: int) -> Markup: ...
    def discard_cards(self, items: str) -> Markup: ...
    def colour_choice(self, wild: Mapping[str, Any], colors: list[dict[str, str]]) -> Markup: ...
    def hand_card(self, card: Mapping[str, Any], mode: str | None) -> Markup: ...
    def result(self, c: Mapping[str, Any]) -> Markup: ...


def parts() -> TableParts:
    """templates/jinja2/games/table_parts.html's macros. The pieces call it through this
    module (`render.parts()`), so that a test counting the macros' calls sees them all."""
    return cast(TableParts, template("games/table_parts.html").module)


def render_fragments(
    context: Mapping[str, Any],
    request: HttpRequest | None = None,
    *,
    page: bool = False,
    versioned: bool = True,
) -> SafeString:
    """The live fragments as one HTML string of out-of-band swaps (stable ids): the push, the
    resync and the page itself (games/table.html places it) render them here. A push has no
    request, so its forms carry no CSRF field: table.js sends moves on the socket, and a
    form it posts takes the field from the page. The `page` leaves out the deal's check,
    which the page itself places among its links. Without `versioned` the pieces carry no
    version: a whole push that no later push is cut down against (games.effects), which
    saves cutting it (about a third of a reader's rendering)."""
    if not versioned:
        return mark_safe(_render(context, request, page)[0])
    return render_pieces(context, request, page=page)[0]


def _render(context: Mapping[str, Any], request: HttpRequest | None, page: bool) -> tuple[str, str]:
    """(fragments.html rendered, the CSRF field its forms hold: none without a request)."""
    csrf = csrf_input(request) if request is not None else ""
    whole = template("games/fragments.html").render({**context, "page": page, "csrf_input": csrf})
    return whole, str(csrf)


def render_pieces(
    context: Mapping[str, Any], request: HttpRequest | None = None, *, page: bool = False
) -> tuple[SafeString, list[pieces.Piece]]:
    """render_fragments' string, and the pieces it is cut into, each with its version
    (pieces.py): what a push compares with the last one it sent."""
    whole, csrf = _render(context, request, page)
    public = context["public"]
    felt = [
        ("table-direction", str(public.direction)),
        *((f"seat-{n}", str(plate)) for n, plate in enumerate(public.plate_list(context["seat"]))),
        ("table-piles", str(public.piles)),
        ("discard-summary", str(public.discard_summary)),
        (pieces.APPENDED, str(public.discard_cards)),
    ]
    html, cut = pieces.cut(whole, context, felt, csrf)
    return mark_safe(html), cut


def discard_items(public: Any) -> str:
    """The discard pile's list's items as every reader's rendering holds them."""
    return pieces.items(str(public.discard_cards))


# --- a plate's reader's places ----------------------------------------------------------------
# A plate is rendered once per push (plates.render) with markers where its reader's role (their
# own seat, their partner's, neither) changes it; each reader's copy is the markers replaced.

PLATE_SLOTS = ("class", "label-name", "label-team", "band", "tag")


@functools.lru_cache(maxsize=8)
def slot_fills(role: str | None) -> list[tuple[str, str]]:
    """[(marker, what fills it)] for a reader of `role`: the same for every plate."""
    macros = parts()
    return [(f"<slot:{name}>", str(macros.plate_slot(name, role))) for name in PLATE_SLOTS]


def fill_slots(slotted: str, role: str | None) -> SafeString:
    for marker, fill in slot_fills(role):
        slotted = slotted.replace(marker, fill)
    return mark_safe(slotted)


# --- addresses --------------------------------------------------------------------------------
# reverse() was a fifth of table_context's time: each address is worked out once per process,
# keyed by the script prefix too, which a request under a sub-path sets.


@functools.lru_cache(maxsize=4096)
def act_url(prefix: str, game_id: int) -> str:
    """The move form's address."""
    return reverse("games:act", args=[game_id])


@functools.lru_cache(maxsize=4096)
def verify_url(prefix: str, game_id: int) -> str:
    """The deal check's link, on every push."""
    return reverse("history:verify", args=[game_id])


@functools.lru_cache(maxsize=64)
def rules_url(prefix: str) -> str:
    return reverse("rules")


@functools.lru_cache(maxsize=64)
def lobby_url(prefix: str) -> str:
    return reverse("lobby:index")
