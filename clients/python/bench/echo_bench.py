#!/usr/bin/env python3
"""Calls per second of the asyncio client: pipelined `system.echo` over one WebSocket.

    python3 clients/python/bench/echo_bench.py --url ws://127.0.0.1:9090/ [--calls 50000]
        [--depth 64] [--json]

`--depth` calls are kept in flight at once (each of that many tasks waits for its reply
before sending the next). Prints calls/s over the wall clock and the process's CPU seconds
(getrusage), and checks every reply is its own request's value.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import time

from goswiss import AsyncClient


async def bench(url: str, calls: int, depth: int) -> dict[str, float]:
    async with AsyncClient(url) as c:
        assert await c.system_echo("warm-up") == "warm-up"
        per, extra = divmod(calls, depth)

        async def worker(k: int) -> None:
            n = per + (1 if k < extra else 0)
            for i in range(n):
                v = [k, i]  # the size of the Rust replay client's [17, 42]
                got = await c.system_echo(v)
                if got != v:
                    raise AssertionError(f"echo {v!r} came back as {got!r}")

        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        await asyncio.gather(*(worker(k) for k in range(depth)))
        wall = time.perf_counter() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
        return {
            "calls": calls,
            "depth": depth,
            "seconds": round(wall, 3),
            "calls_per_second": round(calls / wall, 1),
            "client_cpu_seconds": round(cpu, 3),
            "calls_per_client_cpu_second": round(calls / cpu, 1) if cpu > 0 else 0.0,
        }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default="ws://127.0.0.1:9090/")
    ap.add_argument("--calls", type=int, default=50000)
    ap.add_argument("--depth", type=int, default=64)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.calls < 1 or args.depth < 1:
        ap.error("--calls and --depth must be at least 1")
    r = asyncio.run(bench(args.url, args.calls, min(args.depth, args.calls)))
    if args.json:
        print(json.dumps(r))
    else:
        print(
            f"{r['calls']} calls, depth {r['depth']}: {r['seconds']} s, "
            f"{r['calls_per_second']} calls/s; client CPU {r['client_cpu_seconds']} s "
            f"({r['calls_per_client_cpu_second']} calls per CPU second)"
        )


if __name__ == "__main__":
    main()
