"""A socket's re-read after a push, at most one running and one waiting: a burst of pushes
(bots moving one after another) costs a socket two reads, not one each. Used by the site
socket (games.consumers.SiteConsumer) and the Bot API's stream (games.bot_stream)."""

import asyncio
import logging

log = logging.getLogger(__name__)


class Coalesced:
    """Calls the coroutine function `run` when told to: at once if it is not running, else
    once more after the run in progress. A failing run is logged (`what` says of what) and
    leaves the socket open; the next push tries again."""

    def __init__(self, run, what):
        self.run, self.what = run, what
        self.task = None
        self.dirty = False  # told again while it ran: run once more after it

    def __call__(self):
        if self.task is not None and not self.task.done():
            self.dirty = True
            return
        self.task = asyncio.ensure_future(self._loop())

    def cancel(self):
        if self.task is not None:
            self.task.cancel()

    async def _loop(self):
        try:
            while True:
                self.dirty = False
                await self.run()
                if not self.dirty:
                    return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("could not read %s", self.what)
