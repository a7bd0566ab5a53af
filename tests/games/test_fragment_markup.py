"""The seat plates and the hand's buttons are built in Python (games.presenters.table.players_html,
hand_html) because the template's loops were most of a push's rendering (docs/load.md).
They must give exactly the markup those loops gave: the page's script, the load tool and
the browser tests read it. The loops are kept here, as they were in templates/games/table.html,
and compared with the Python markup for every seat at every step of played games.

Seeds are given, so that these tests leave conftest's seed sequence to the tests after them.
"""

import pytest
from django.template import Context, Template

from games import store
from games.models import Game
from games.presenters import table
from tests.conftest import make_started_game, play_one

pytestmark = pytest.mark.django_db

TEMPLATE_LOOPS = Template("""{% load l10n %}{% localize off %}{% for p in players %}
    <li class="plate team-{{ p.team }}{% if p.you %} you{% endif %}{% if p.to_play %} to-play{% endif %}{% if p.out %} is-out{% endif %}{% if p.departed %} is-departed{% endif %}"
        style="--x: {{ p.x }}%; --y: {{ p.y }}%" id="seat-{{ p.number }}"
        aria-label="{{ p.name }}{% if p.you %} (you){% endif %}, team {{ p.shape }}{% if p.partner %}, your partner{% endif %}, {{ p.cards }} card{{ p.cards|pluralize }}{% if p.out %}, out{% endif %}{% if p.departed %}, left the game{% endif %}{% if p.to_play %}, to play{% endif %}">
      <div class="band">{% with shape=p.shape %}<svg class="shape shape-{{ shape }}" aria-hidden="true"><use href="#shape-{{ shape }}"></use></svg>{% endwith %}<span class="team-name">Team {{ p.shape }}</span>
        {% if p.partner %}<svg class="rings" aria-hidden="true"><use href="#sym-rings"></use></svg><span class="visually-hidden">your partner</span>{% endif %}
        {% if p.dealer %}<span class="dealer" title="dealer">D</span>{% endif %}</div>
      <div class="who"><span class="name">{{ p.name }}</span>{% if p.you %} <span class="tag">you</span>{% endif %}</div>
      <div class="meta">
        <span class="count" title="cards in hand">{{ p.cards }}<span class="visually-hidden"> card{{ p.cards|pluralize }}</span></span>
        {% if p.departed %}<span class="state">left</span>
        {% elif p.out %}<span class="state">out</span>
        {% elif p.to_play %}<span class="state turn">to play</span>
        {% elif p.has_chosen %}<span class="state chosen">has chosen</span>
        {% elif p.choosing %}<span class="state">choosing…</span>
        {% elif p.waiting %}<span class="state">deciding…</span>{% endif %}
      </div>
    </li>
    {% endfor %}|{% for card in hand %}
      <li>{% if mode == "play" %}{% if card.wild and card.enabled %}<button type="button" class="card hand-card playable" id="{{ card.id }}" aria-label="{{ card.name }}" data-wild="{{ card.code }}" aria-expanded="false" aria-controls="colours-{{ card.code }}">{{ card.html }}</button>
        {% else %}<button type="submit" class="card hand-card{% if card.playable %} playable{% endif %}" id="{{ card.id }}" name="play" value="{{ card.code }}" aria-label="{{ card.name }}"{% if not card.enabled %} disabled{% endif %}>{{ card.html }}</button>{% endif %}
      {% elif mode == "pick" or mode == "give" %}<button type="button" class="card hand-card choosable" id="{{ card.id }}" aria-label="{{ card.name }}" aria-pressed="false" data-code="{{ card.code }}"{% if not card.enabled %} disabled{% endif %}>{{ card.html }}</button>
      {% else %}<button type="button" class="card hand-card" id="{{ card.id }}" aria-label="{{ card.name }}" disabled>{{ card.html }}</button>{% endif %}</li>
      {% empty %}<li class="empty">No cards.</li>
      {% endfor %}{% endlocalize %}""")


@pytest.mark.parametrize("seed", [3, 8])
def test_python_markup_is_exactly_what_the_template_loops_gave(four, ana, seed):
    ana.display_name = 'Ana <b>"&</b>'  # escaped the same way
    ana.save()
    game = make_started_game(four, seed=seed, stacking=True, target_score=500)
    seen = set()
    for _ in range(120):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        state = store.load_state(game)
        seats = store.table_seats(game.pk)
        for seat in [None, 0, 1, 2, 3]:
            context = table.table_context(game, seat, state=state, seats=seats)
            expected = TEMPLATE_LOOPS.render(Context(context))
            assert f"{context['players_html']}|{context['hand_html']}" == expected
            seen.add(context["mode"])
            seen.update("wild" for card in context["hand"] if card["wild"] and card["enabled"])
        play_one(game)
    assert {"play", "pick", None, "wild"} <= seen
