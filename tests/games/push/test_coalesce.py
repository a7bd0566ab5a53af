"""A socket's re-read after pushes: one running and at most one more, whatever the burst."""

import asyncio

from games.push.coalesce import Coalesced


def test_a_burst_of_pushes_costs_two_reads_and_a_failure_does_not_stop_the_next():
    async def scenario():
        runs = []
        gate = asyncio.Event()

        async def read():
            runs.append(len(runs))
            if len(runs) == 1:
                await gate.wait()  # the first read is slow: five pushes arrive meanwhile
            if len(runs) == 3:
                raise RuntimeError("the database went away")

        refresh = Coalesced(read, "a test's games")
        refresh()
        await asyncio.sleep(0)
        for _ in range(5):
            refresh()
        gate.set()
        await refresh.task
        assert runs == [0, 1]  # the slow read, then one more for the whole burst
        refresh()
        await refresh.task  # the failing read is logged, not raised
        refresh()
        await refresh.task
        assert runs == [0, 1, 2, 3]

    asyncio.run(scenario())
