"""What the site socket tells the apps above the games app, which it may not import
(docs/architecture.md, "Between the apps"): the lobby's Find a game connects these in
lobby.apps (docs/matchmaking.md).

Each is sent from a thread (database_sync_to_async), with keyword arguments `user_id`
and `search` (the id the find page named), and for `site_page_here` also `hidden` (the page
is in the background).
"""

from django.dispatch import Signal

# A find page's heartbeat: "I am still here, holding this search".
site_page_here = Signal()
# The socket of a page that held a search closed (the page closed, reloaded or went away).
site_page_closed = Signal()
# "Was this search found?": asked by the socket of a find page after each event of the
# user's games (the deal of a found table is one) and with each heartbeat. A receiver answers
# the table's URL, or None.
find_page_asks = Signal()
