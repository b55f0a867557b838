"""The asyncio client: JSON-RPC 2.0 over one WebSocket, calls pipelined by id, live events.

    import asyncio
    from goswiss import AsyncClient

    async def main() -> None:
        async with AsyncClient("ws://127.0.0.1:9090/") as c:
            t = await c.tournament_create({"name": "Autumn Cup", "rounds": 4})
            async for event in c.subscribe(t["id"]):
                print(event.revision, event.kind, event.round)

    asyncio.run(main())

Any number of calls may be in flight on the one connection (`asyncio.gather` them); each
waits for the reply with its id. A call whose connection is lost raises `ConnectionLost`
(it may or may not have been done); the next call reconnects.

`subscribe(tournament_id, since_revision=None)` yields every change of the tournament once,
in revision order: it subscribes first, then reads `tournament.events` from the last revision
it has seen, and drops live notifications already read that way. When the connection drops,
or the server says its subscriber lagged, it reconnects with exponential backoff, subscribes
again and catches up the same way, so no event is missed or repeated. It ends after the
`deleted` event.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from ._generated import AsyncMethods
from .errors import ConnectionLost, Fault, NoSuchTournament, TransportError, fault_for

__all__ = ["AsyncClient", "STANDINGS_KINDS", "Subscription", "TournamentEvent"]

# Event kinds after which standings may differ (as the server's `standings_changed`).
STANDINGS_KINDS: Final = frozenset(
    {
        "settings_changed",
        "player_registered",
        "player_updated",
        "player_withdrawn",
        "participation_set",
        "player_removed",
        "round_paired",
        "game_added",
        "game_removed",
        "players_swapped",
        "round_unpaired",
        "result_set",
    }
)

# The stored outcome -> the result code a live notification shows.
_OUTCOMES: Final = {
    "unknown": "?",
    "white_wins": "W+",
    "black_wins": "B+",
    "jigo": "jigo",
    "both_win": "both_win",
    "both_lose": "both_lose",
}

# Revisions after the last one, for reading the current revision without reading events.
_NO_EVENTS: Final = 2**62


@dataclass(frozen=True)
class TournamentEvent:
    """One change of a tournament.

    `revision` is the tournament's revision after it (None only on a `deleted` from a
    server that does not number it). Events read back from the log (`caught_up` True: after
    a reconnect, a lag, or from `since_revision`) have the same fields as live ones and also
    the whole stored `event`.
    """

    tournament_id: int
    kind: str
    revision: int | None
    round: int | None = None
    standings_changed: bool = False
    table: int | None = None
    result: str | None = None
    published: bool | None = None
    event: dict[str, Any] | None = None
    caught_up: bool = False

    @staticmethod
    def from_notification(n: dict[str, Any]) -> TournamentEvent:
        return TournamentEvent(
            tournament_id=_int(n.get("tournament_id")) or 0,
            kind=str(n.get("kind", "")),
            revision=_int(n.get("revision")),
            round=_int(n.get("round")),
            standings_changed=bool(n.get("standings_changed", False)),
            table=_int(n.get("table")),
            result=n["result"] if isinstance(n.get("result"), str) else None,
            published=n["published"] if isinstance(n.get("published"), bool) else None,
        )

    @staticmethod
    def from_log(tid: int, e: Mapping[str, Any]) -> TournamentEvent:
        kind = str(e.get("kind", ""))
        payload = e.get("event")
        p: dict[str, Any] = payload if isinstance(payload, dict) else {}
        result = None
        if kind == "result_set" and isinstance(p.get("outcome"), str):
            result = _OUTCOMES.get(p["outcome"], "?") + ("!" if p.get("forfeit") else "")
        return TournamentEvent(
            tournament_id=tid,
            kind=kind,
            revision=_int(e.get("revision")),
            round=_int(e.get("round")),
            standings_changed=kind in STANDINGS_KINDS,
            table=_int(p.get("table")) if kind == "result_set" else None,
            result=result,
            published=p["published"] if isinstance(p.get("published"), bool) else None,
            event=p or None,
            caught_up=True,
        )


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


class _Lost:
    """Put in a subscription's queue when its connection ends."""


_LOST: Final = _Lost()


class _Connection:
    """One WebSocket: pending calls by id, subscription queues by subscription id."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.pending: dict[int, tuple[asyncio.Future[Any], asyncio.Queue[Any] | None]] = {}
        self.subs: dict[object, asyncio.Queue[Any]] = {}
        self.closed = False
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                self._dispatch(message)
        except ConnectionClosed:
            pass
        finally:
            self._lost()

    def _dispatch(self, message: str | bytes) -> None:
        try:
            m = json.loads(message)
        except ValueError:
            return
        if not isinstance(m, dict):
            return
        if "id" not in m:
            params = m.get("params")
            if isinstance(params, dict):
                q = self.subs.get(_key(params.get("subscription")))
                if q is not None:
                    q.put_nowait(params.get("result"))
            return
        rid = m.get("id")
        entry = self.pending.pop(rid, None) if isinstance(rid, int) else None
        if entry is None:
            return
        fut, queue = entry
        if fut.done():
            return
        err = m.get("error")
        if isinstance(err, dict):
            code = err.get("code")
            fut.set_exception(
                fault_for(
                    code if isinstance(code, int) else 0,
                    str(err.get("message", "")),
                    err.get("data"),
                )
            )
        elif queue is not None:
            # Registered before the caller resumes: notifications right behind the reply
            # find their queue.
            self.subs[_key(m.get("result"))] = queue
            fut.set_result(m.get("result"))
        else:
            fut.set_result(m.get("result"))

    def _lost(self) -> None:
        self.closed = True
        for fut, _ in self.pending.values():
            if not fut.done():
                fut.set_exception(ConnectionLost("connection lost with the call in flight"))
        self.pending.clear()
        for q in self.subs.values():
            q.put_nowait(_LOST)
        self.subs.clear()

    async def call(
        self, method: str, params: list[Any], queue: asyncio.Queue[Any] | None = None
    ) -> Any:
        if self.closed:
            raise ConnectionLost(f"{method}: connection closed")
        rid = next(self.ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[rid] = (fut, queue)
        text = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        try:
            await self.ws.send(text)
        except ConnectionClosed as e:
            self.pending.pop(rid, None)
            raise ConnectionLost(f"{method}: {e}") from None
        try:
            return await fut
        finally:
            self.pending.pop(rid, None)

    async def close(self) -> None:
        await self.ws.close()
        try:
            await self.reader
        except asyncio.CancelledError:
            pass


def _key(sub: object) -> object:
    # Subscription ids are strings or numbers; JSON gives the same Python value both ways.
    return sub


class AsyncClient(AsyncMethods):
    """An asyncio goswiss client over one WebSocket (`ws://host:port/` or `/jsonrpc`)."""

    def __init__(
        self,
        url: str = "ws://127.0.0.1:9090/",
        *,
        token: str | None = None,
        timeout: float = 60.0,
        backoff: tuple[float, float] = (0.05, 5.0),
        max_reconnects: int | None = None,
        max_message_bytes: int = 64 << 20,
    ) -> None:
        if url.startswith("http://") or url.startswith("https://"):
            url = "ws" + url[4:]
        self.url = url
        self.token = token
        self.timeout = timeout
        self.backoff = backoff
        self.max_reconnects = max_reconnects
        self.max_message_bytes = max_message_bytes
        self._conn: _Connection | None = None
        self._lock: asyncio.Lock | None = None
        self._closed = False
        # Connections opened so far (1 + reconnects).
        self.connects = 0

    async def __aenter__(self) -> AsyncClient:
        self._closed = False
        await self._connection()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def use_token(self, token: str | None) -> None:
        """Sends `Authorization: Bearer token` from the next connection on (the current one
        is closed; subscriptions reconnect and catch up)."""
        self.token = token
        conn, self._conn = self._conn, None
        if conn is not None:
            asyncio.get_running_loop().create_task(conn.close())

    async def close(self) -> None:
        """Closes the connection; live subscriptions end (their loops stop)."""
        self._closed = True
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()

    async def _connection(self) -> _Connection:
        if self._conn is not None and not self._conn.closed:
            return self._conn
        if self._closed:
            raise TransportError(f"{self.url}: the client is closed")
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._conn is not None and not self._conn.closed:
                return self._conn
            headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
            try:
                ws = await asyncio.wait_for(
                    connect(
                        self.url,
                        additional_headers=headers,
                        compression=None,
                        max_size=self.max_message_bytes,
                        open_timeout=self.timeout,
                        # Pings find a connection that died without a word.
                        ping_interval=20.0,
                        ping_timeout=20.0,
                    ),
                    self.timeout,
                )
            except (OSError, InvalidHandshake, InvalidURI, asyncio.TimeoutError) as e:
                raise TransportError(f"cannot connect to {self.url}: {e}") from None
            self._conn = _Connection(ws)
            self.connects += 1
            return self._conn

    async def call(self, method: str, *params: Any) -> Any:
        """Calls any method with positional parameters; returns its result as sent."""
        return await self._call(method, list(params))

    async def _call(self, method: str, params: list[Any]) -> Any:
        conn = await self._connection()
        # asyncio.timeout, not wait_for: no task per call (a third of a pipelined call's CPU).
        async with asyncio.timeout(self.timeout):
            return await conn.call(method, params)

    async def _reconnect_wait(self, attempt: int) -> None:
        if self.max_reconnects is not None and attempt > self.max_reconnects:
            raise TransportError(f"{self.url}: gave up after {self.max_reconnects} reconnects")
        low, high = self.backoff
        delay = min(high, low * (2 ** min(attempt - 1, 30)))
        await asyncio.sleep(delay * (0.5 + random.random() / 2))

    def subscribe(self, tournament_id: int, since_revision: int | None = None) -> Subscription:
        """Every change of the tournament after `since_revision` (default: the revision when
        the subscription starts), each once, in order, across reconnects; ends after its
        `deleted` event.

        `async for event in client.subscribe(tid)` starts it at the first iteration;
        `sub = await client.subscribe(tid)` starts it at once (so that changes made right
        after are sure to be seen). Either raises `NoSuchTournament` if the tournament is not
        there when first subscribing.
        """
        return Subscription(self, tournament_id, since_revision)


class Subscription:
    """A live subscription to one tournament: an async iterator of `TournamentEvent`."""

    def __init__(self, client: AsyncClient, tournament_id: int, since: int | None) -> None:
        self.client = client
        self.tournament_id = tournament_id
        # The last revision yielded (or, before any, the one to start after).
        self.last = since
        self.reconnects = 0
        self._conn: _Connection | None = None
        self._sub_id: object = None
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._live = False  # subscribed on the current connection
        self._behind = False  # the log may hold events after `last` not notified live
        self._started = False
        self._done = False
        self._events = self._run()

    def __await__(self) -> Generator[Any, None, Subscription]:
        return self._start().__await__()

    async def _start(self) -> Subscription:
        if not self._started:
            await self._open()
            self._started = True
        return self

    def __aiter__(self) -> AsyncIterator[TournamentEvent]:
        return self._events

    async def __anext__(self) -> TournamentEvent:
        return await self._events.__anext__()

    async def _open(self) -> None:
        """Subscribes on the client's connection (connecting if need be); learns the start
        revision when none was given."""
        c = self.client
        self._queue = asyncio.Queue()
        conn = await c._connection()
        self._sub_id = await asyncio.wait_for(
            conn.call("tournament.subscribe", [self.tournament_id], self._queue), c.timeout
        )
        self._conn = conn
        self._live = True
        # Subscribed before reading the log, so nothing falls between the two. With no
        # revision to start after, the live notifications are all there is to read.
        self._behind = self.last is not None
        if self.last is None:
            page = await c.tournament_events(self.tournament_id, _NO_EVENTS)
            self.last = _int(page.get("revision")) or 0

    async def _run(self) -> AsyncGenerator[TournamentEvent, None]:
        c = self.client
        tid = self.tournament_id
        attempt = 0
        try:
            while not self._done:
                try:
                    if not self._started:
                        await self._open()
                        self._started = True
                    elif not self._live:
                        await self._open()
                        self.reconnects += 1
                    attempt = 0
                    if self._behind:
                        async for e in self._catch_up():
                            yield e
                        self._behind = False
                    while True:
                        item = await self._queue.get()
                        if isinstance(item, _Lost):
                            raise ConnectionLost("subscription's connection lost")
                        if not isinstance(item, dict):
                            continue
                        ev = TournamentEvent.from_notification(item)
                        if ev.kind == "lagged":
                            async for e in self._catch_up():
                                yield e
                            continue
                        if ev.kind == "deleted":
                            self._done = True
                            yield ev
                            return
                        last = self.last or 0
                        if ev.revision is None or ev.revision <= last:
                            continue  # already read back from the log
                        if ev.revision > last + 1:
                            # A gap (not expected on one connection): read what lies between.
                            async for e in self._catch_up(ev.revision - 1):
                                yield e
                        self.last = ev.revision
                        yield ev
                except NoSuchTournament:
                    if not self._started:
                        raise
                    # Deleted while we were away: say so, as a live subscriber would have heard.
                    self._done = True
                    yield TournamentEvent(tournament_id=tid, kind="deleted", revision=None)
                    return
                except (ConnectionLost, TransportError, asyncio.TimeoutError):
                    self._live = False
                    if c._closed:
                        return
                    attempt += 1
                    await c._reconnect_wait(attempt)
        finally:
            await self._unsubscribe()

    async def _unsubscribe(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None or conn.closed or self._sub_id is None:
            return
        conn.subs.pop(_key(self._sub_id), None)
        try:
            await asyncio.wait_for(
                conn.call("tournament.unsubscribe", [self._sub_id]), self.client.timeout
            )
        except (Fault, TransportError, asyncio.TimeoutError):
            pass

    async def aclose(self) -> None:
        """Ends the subscription (also done when the `async for` loop is left by `break`
        and the iterator is collected)."""
        self._done = True
        await self._events.aclose()

    async def _catch_up(self, until: int | None = None) -> AsyncIterator[TournamentEvent]:
        """The stored events after `self.last` (up to `until`), page by page."""
        tid = self.tournament_id
        while until is None or (self.last or 0) < until:
            page = await self.client.tournament_events(tid, self.last or 0)
            events = page.get("events")
            if not isinstance(events, list):
                raise TransportError(f"tournament.events: no events list in {page!r:.200}")
            moved = False
            for raw in events:
                if not isinstance(raw, dict):
                    continue
                e = TournamentEvent.from_log(tid, raw)
                if e.revision is None or e.revision <= (self.last or 0):
                    continue
                if until is not None and e.revision > until:
                    return
                self.last = e.revision
                moved = True
                yield e
            if not page.get("more") or not moved:
                return
