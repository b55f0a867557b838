"""The asyncio client: pipelined calls, subscriptions, and catching up across broken
connections (a test-only proxy cuts them while events are written)."""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from goswiss import AsyncClient, Client, TournamentEvent, errors
from goswiss.aio import Subscription

from conftest import Proxy, players

T = TypeVar("T")

# Only a hang reaches these bounds.
BOUND = 60.0


def run(coro: Awaitable[T]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(coro, BOUND)

    return asyncio.run(bounded())


async def until(what: str, done: Callable[[], bool]) -> None:
    for _ in range(int(BOUND / 0.01)):
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def ws(url: str) -> str:
    return "ws" + url[4:] if url.startswith("http") else url


def test_pipelined_calls_get_their_own_replies(url: str) -> None:
    async def main() -> None:
        async with AsyncClient(ws(url)) as c:
            values = [f"v{k}" for k in range(2000)]
            got = await asyncio.gather(*(c.system_echo(v) for v in values))
            assert got == values
            assert c.connects == 1

    run(main())


def test_errors_over_websocket(url: str) -> None:
    async def main() -> None:
        async with AsyncClient(ws(url)) as c:
            with pytest.raises(errors.NoSuchTournament) as e:
                await c.tournament_get(987654321)
            assert e.value.code == 1001
            with pytest.raises(errors.NoSuchTournament):
                await c.subscribe(987654321)
            with pytest.raises(errors.NoSuchTournament):
                async for _ in c.subscribe(987654321):
                    pass
            # The connection is still good after errors.
            assert await c.system_echo(5) == 5

    run(main())


def test_subscribe_sees_every_change_once_in_order(url: str) -> None:
    sync = Client(url)
    tid = sync.tournament_create({"name": "Live", "rounds": 2})["id"]

    async def main() -> None:
        async with AsyncClient(ws(url)) as c:
            sub = await c.subscribe(tid)
            assert sub.last == 1
            await asyncio.to_thread(players, sync, tid, 4)
            games = (await asyncio.to_thread(sync.tournament_round_pair, tid, 1))["games"]
            await asyncio.to_thread(sync.tournament_result_set, tid, 1, games[0]["table"], "W+!")
            got: list[TournamentEvent] = []
            async for e in sub:
                got.append(e)
                if e.kind == "result_set":
                    break
            assert [e.revision for e in got] == list(range(2, 8))
            assert [e.kind for e in got] == ["player_registered"] * 4 + [
                "round_paired",
                "result_set",
            ]
            assert got[-1].result == "W+!" and got[-1].table == games[0]["table"]
            assert got[-1].round == 1 and got[-1].standings_changed
            assert not any(e.caught_up for e in got)

            # From a past revision: read back from the log, same fields.
            back = await _take(c.subscribe(tid, since_revision=1), 6)
            assert [(e.revision, e.kind, e.round, e.table, e.result) for e in back] == [
                (e.revision, e.kind, e.round, e.table, e.result) for e in got
            ]
            assert all(e.caught_up and e.event is not None for e in back)

            # Deleting ends the subscription with a `deleted` event.
            sub2 = await c.subscribe(tid)
            await asyncio.to_thread(sync.tournament_delete, tid)
            tail = [e async for e in sub2]
            assert [e.kind for e in tail] == ["deleted"]

    run(main())
    sync.close()


async def _take(sub: Subscription, n: int) -> list[TournamentEvent]:
    out: list[TournamentEvent] = []
    async for e in sub:
        out.append(e)
        if len(out) == n:
            await sub.aclose()
            break
    return out


def test_subscribe_catches_up_across_cut_connections(url: str) -> None:
    """Events written while the connection is down arrive after the reconnect, read from
    tournament.events, with no gap and no repeat; live ones before and after too."""
    sync = Client(url)
    tid = sync.tournament_create({"name": "Catch-up", "rounds": 3})["id"]
    target = urllib.parse.urlsplit(url)

    async def main() -> None:
        proxy = Proxy(target.hostname or "127.0.0.1", target.port or 80)
        port = await proxy.start()
        got: list[TournamentEvent] = []
        async with AsyncClient(f"ws://127.0.0.1:{port}/", backoff=(0.01, 0.2)) as c:
            sub = await c.subscribe(tid)

            async def collect() -> None:
                async for e in sub:
                    got.append(e)
                    if e.kind == "deleted":
                        return

            task = asyncio.create_task(collect())
            await asyncio.to_thread(players, sync, tid, 3, "A")
            await until("3 live events", lambda: len(got) >= 3)
            for cycle in range(3):
                # Down: the connection is cut and reconnects are refused while events land.
                proxy.refusing = True
                proxy.cut()
                await asyncio.to_thread(players, sync, tid, 4, f"B{cycle}-")
                refused = proxy.accepted
                await until("a refused reconnect", lambda: proxy.accepted > refused)
                proxy.refusing = False
                want = 1 + 3 + 4 * (cycle + 1)
                await until(f"caught up to {want}", lambda: len(got) >= want - 1)
            await asyncio.to_thread(players, sync, tid, 2, "C")
            await asyncio.to_thread(sync.tournament_delete, tid)
            await task
            assert sub.reconnects >= 3 and c.connects >= 4
        await proxy.close()
        revisions = [e.revision for e in got[:-1]]
        assert revisions == list(range(2, 2 + 3 + 12 + 2)), revisions
        assert got[-1].kind == "deleted"
        assert sum(e.caught_up for e in got) >= 12 - 3  # most of the down-time events
        assert all(e.kind == "player_registered" for e in got[:-1])

    run(main())
    sync.close()


def test_a_call_in_flight_when_the_connection_drops_raises_connection_lost(url: str) -> None:
    target = urllib.parse.urlsplit(url)

    async def main() -> None:
        proxy = Proxy(target.hostname or "127.0.0.1", target.port or 80)
        port = await proxy.start()
        async with AsyncClient(f"ws://127.0.0.1:{port}/") as c:
            assert await c.system_echo(1) == 1
            proxy.blackhole = True
            call = asyncio.create_task(c.system_echo(2))
            await asyncio.sleep(0)
            await until("the call to be sent", lambda: bool(c._conn and c._conn.pending))
            proxy.cut()
            with pytest.raises(errors.ConnectionLost):
                await call
            proxy.blackhole = False
            assert await c.system_echo(3) == 3  # the next call reconnects
            assert c.connects == 2
        await proxy.close()

    run(main())


def test_closing_the_client_ends_its_subscriptions(url: str) -> None:
    sync = Client(url)
    tid = sync.tournament_create({"name": "Closing", "rounds": 1})["id"]

    async def main() -> None:
        c = AsyncClient(ws(url))
        sub = await c.subscribe(tid)
        got: list[TournamentEvent] = []

        async def collect() -> None:
            async for e in sub:
                got.append(e)

        task = asyncio.create_task(collect())
        await asyncio.to_thread(players, sync, tid, 1)
        await until("one event", lambda: len(got) == 1)
        await c.close()
        await task  # ends instead of reconnecting forever
        assert [e.revision for e in got] == [2]
        with pytest.raises(errors.TransportError):
            await c.system_echo(1)

    run(main())
    sync.close()
