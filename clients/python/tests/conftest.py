"""Fixtures: the live daemon's URL (GOSWISS_URL, set by tests/it/clients/python_client.rs) and a
test-only TCP proxy that can cut and refuse connections, to break WebSocket sessions."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import pytest

from goswiss import Client


@pytest.fixture(scope="session")
def url() -> str:
    u = os.environ.get("GOSWISS_URL")
    if not u:
        pytest.skip("GOSWISS_URL is not set: run through `cargo test --test it clients::python_client`")
    return u


@pytest.fixture
def client(url: str) -> Iterator[Client]:
    with Client(url) as c:
        yield c


def players(c: Client, tid: int, n: int, prefix: str = "P") -> list[int]:
    ranks = ["5d", "3d", "1d", "1k", "3k", "5k", "8k", "12k"]
    return [
        c.tournament_player_add(
            tid, {"name": f"{prefix}{k}", "first_name": "T", "rank": ranks[k % len(ranks)]}
        )["player_id"]
        for k in range(n)
    ]


class Proxy:
    """Forwards 127.0.0.1:<port> to the daemon. `cut()` drops every open connection;
    while `refusing` new ones are closed at once; while `blackhole` nothing is forwarded
    to the daemon (a call stays in flight until the cut)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.refusing = False
        self.blackhole = False
        self.accepted = 0
        self.writers: list[asyncio.StreamWriter] = []
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def _serve(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        self.accepted += 1
        if self.refusing:
            w.close()
            return
        try:
            ur, uw = await asyncio.open_connection(self.host, self.port)
        except OSError:
            w.close()
            return
        self.writers += [w, uw]

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, up: bool) -> None:
            try:
                while data := await src.read(65536):
                    if up and self.blackhole:
                        continue
                    dst.write(data)
                    await dst.drain()
            except (OSError, asyncio.IncompleteReadError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pump(r, uw, True), pump(ur, w, False))

    def cut(self) -> None:
        for w in self.writers:
            w.transport.abort()
        self.writers.clear()

    async def close(self) -> None:
        self.cut()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
