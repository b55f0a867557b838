#!/usr/bin/env python3
"""Replays whole tournaments against a goswiss daemon (stdlib only), like rswiss's
xml-test.rb but bounded: each tournament is created, played to fault 202 by one or more
clients, and checked (nobody twice in a round, balanced byes, repeats only when allowed and as
the server counts them, the number of rounds, standings that agree with the committed
results). Prints a summary, or one JSON object with --json. Exit status 1 on any violation or
transport error; 2 on bad arguments.

    python3 clients/python/replay.py --url http://localhost:9090/ --players 16 --tournaments 100
"""

import argparse
import json
import math
import os
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from goswiss_client import Fault, TransportError, connect  # noqa: E402

MAX_RETRIES = 2000  # consecutive 201/203 answers one client accepts


def base_rounds(n):
    return 0 if n <= 1 else (n - 1).bit_length()


def mix(text):
    try:
        parts = [int(p) for p in text.split("/")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected P1/DRAW/P2 like 20/50/30")
    if len(parts) != 3 or sum(parts) != 100 or min(parts) < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: three percentages adding up to 100")
    return parts


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latencies = {}
        self.rpcs = 0
        self.retries = 0

    def add(self, method, seconds):
        with self.lock:
            self.latencies.setdefault(method, []).append(seconds)
            self.rpcs += 1


class Timed:
    """Wraps a Matchmaker so every call is timed under its method name."""

    def __init__(self, mm, stats):
        self.mm, self.stats = mm, stats

    def __getattr__(self, name):
        fn = getattr(self.mm, name)

        def timed(*a):
            start = time.perf_counter()
            try:
                return fn(*a)
            finally:
                self.stats.add("matchmaker." + name, time.perf_counter() - start)

        return timed


class Log:
    """What the clients of one tournament saw."""

    def __init__(self, players, rounds, allow_repeat):
        self.lock = threading.Lock()
        self.players = players
        self.rounds = rounds
        self.per_round = len(players) // 2
        self.allow_repeat = allow_repeat
        self.checkouts = []  # (round, p1, p2)
        self.commits = []  # (p1, p2, result)

    def expected(self):
        return self.rounds * self.per_round

    def checked_out(self, p1, p2):
        # A round's checkouts are answered only after every checkout of the previous round
        # was answered and committed, so arrival order gives the round.
        with self.lock:
            rnd = len(self.checkouts) // max(self.per_round, 1)
            self.checkouts.append((rnd, p1, p2))
            return len(self.checkouts)

    def committed(self, p1, p2, result):
        with self.lock:
            self.commits.append((p1, p2, result))

    def check_rounds(self, v):
        ids = set(self.players)
        by_round = {}
        for r, a, b in self.checkouts:
            by_round.setdefault(r, []).append((a, b))
        byes = {p: 0 for p in self.players}
        last = max(by_round) if by_round else None
        for r in sorted(by_round):
            seen = set()
            for a, b in by_round[r]:
                if a == b:
                    v.append(f"round {r}: player {a} paired with himself")
                for p in (a, b):
                    if p not in ids:
                        v.append(f"round {r}: unknown player {p}")
                    if p in seen:
                        v.append(f"round {r}: player {p} twice in the round")
                    seen.add(p)
            complete = len(by_round[r]) == self.per_round
            if not complete and r != last:
                v.append(f"round {r}: {len(by_round[r])} matches, expected {self.per_round}")
            if complete and len(self.players) % 2 == 1:
                for p in self.players:
                    if p not in seen:
                        byes[p] += 1
        if byes and max(byes.values()) - min(byes.values()) > 1:
            v.append(f"byes unbalanced: {min(byes.values())} to {max(byes.values())}")
        if len(by_round) > self.rounds:
            v.append(f"{len(by_round)} rounds played, expected {self.rounds}")
        pairs = {}
        for _, a, b in self.checkouts:
            key = (min(a, b), max(a, b))
            pairs[key] = pairs.get(key, 0) + 1
        if not self.allow_repeat:
            for (a, b), n in pairs.items():
                if n > 1:
                    v.append(f"{a} and {b} met {n} times without allow_repeat")
        return sum(n for n in pairs.values() if n > 1)

    def check_end(self, mm, tid, repeated_rows, v):
        if len(self.checkouts) != self.expected():
            v.append(f"{len(self.checkouts)} matches played, expected {self.expected()}")
        if sorted(self.commits_pairs()) != sorted((a, b) for _, a, b in self.checkouts):
            v.append("the committed matches differ from the checked-out ones")
        if mm.has_ended(tid) is not True:
            v.append("has_ended is not true after fault 202")
        if mm.round(tid) != self.rounds:
            v.append(f"round is not {self.rounds} at the end")
        repeated = mm.repeated_matches(tid)
        if repeated != repeated_rows:
            v.append(f"repeated_matches is {repeated}, the clients saw {repeated_rows}")
        table = mm.table_by_criteria(tid)
        expect = {p: [0, 0.0, 0] for p in self.players}
        for a, b, res in self.commits:
            sa, sb = {-1: (1.0, 0.0), 0: (0.5, 0.5), 1: (0.0, 1.0)}[res]
            for p, s in ((a, sa), (b, sb)):
                expect[p][0] += 1
                expect[p][1] += s
                expect[p][2] += 1 if s == 1.0 else 0
        if len(self.players) % 2 == 1:
            present = {}
            for r, a, b in self.checkouts:
                present.setdefault(r, set()).update((a, b))
            for seen in present.values():
                for p in self.players:
                    if p not in seen:
                        expect[p][0] += 1
                        expect[p][1] += 1.0
        if len(table) != len(self.players):
            v.append(f"table_by_criteria has {len(table)} rows for {len(self.players)} players")
        last = math.inf
        for row in table:
            if len(row) != 8 or row[0] not in expect:
                v.append(f"malformed standings row {row!r}")
                continue
            pid, matches, score, wins = row[0], row[1], row[2], row[7]
            if [matches, score, wins] != expect[pid]:
                v.append(f"player {pid}: table {[matches, score, wins]}, results give {expect[pid]}")
            if score > last:
                v.append(f"standings not sorted by score at player {pid}")
            last = score
        try:
            winner, criterion = mm.winner(tid)
            if table and winner != table[0][0]:
                v.append(f"winner {winner} ({criterion}) is not first in the table")
        except Fault as f:
            if f.code != 402:
                v.append(f"winner: fault {f.code}: {f.message}")
        return repeated

    def commits_pairs(self):
        return [(a, b) for a, b, _ in self.commits]


def play_client(mm, tid, log, rng, results, stats):
    """One client's checkout/commit loop. Returns None at fault 202, else the problem."""
    retries, backoff = 0, 0.001
    # Bounded: every iteration checks out a match (all of them, then 202) or retries.
    for _ in range((log.expected() + 1) * (MAX_RETRIES + 1)):
        try:
            p1, p2 = mm.checkout_match(tid)
        except Fault as f:
            if f.code == 202:
                return None
            if f.code in (201, 203):
                retries += 1
                with stats.lock:
                    stats.retries += 1
                if retries > MAX_RETRIES:
                    return (f.code, f"still fault {f.code} after {MAX_RETRIES} retries")
                time.sleep(backoff)
                backoff = min(backoff * 2, 0.032)
                continue
            return (f.code, f"fault {f.code}: {f.message}")
        retries, backoff = 0, 0.001
        if log.checked_out(p1, p2) > log.expected():
            return (None, f"more than {log.expected()} matches handed out")
        x = rng.randrange(100)
        result = -1 if x < results[0] else (0 if x < results[0] + results[1] else 1)
        try:
            ok = mm.commit_match(tid, [p1, p2], result)
        except Fault as f:
            return (f.code, f"commit_match fault {f.code}: {f.message}")
        if ok is not True:
            return (None, f"commit_match returned {ok!r}")
        log.committed(p1, p2, result)
    return (None, "client loop bound reached")


def play_tournament(args, index, clients, stats):
    """Returns a dict: finished, problem, code, transport, violations, matches, repeated."""
    out = {"finished": False, "problem": None, "code": None, "transport": False,
           "violations": [], "matches": 0, "repeated": 0}
    players = list(range(1, args.players + 1))
    options = {}
    if args.pairing:
        options["pairing"] = args.pairing
    if args.seed is not None:
        options["seed"] = (args.seed + index) % 2**31  # fits XML-RPC's <int>
    try:
        tid = clients[0].create_tournament(players, args.additional_rounds, args.allow_repeat,
                                           options)
    except Fault as f:
        out.update(problem=f"create_tournament: fault {f.code}: {f.message}", code=f.code)
        return out
    log = Log(players, base_rounds(args.players) + args.additional_rounds, args.allow_repeat)
    base = args.seed if args.seed is not None else random.randrange(2**32)
    rngs = [random.Random(base * 1000003 + index * 101 + k) for k in range(len(clients))]
    if len(clients) == 1:
        stops = [play_client(clients[0], tid, log, rngs[0], args.results, stats)]
    else:
        stops = [None] * len(clients)

        def run(k):
            try:
                stops[k] = play_client(clients[k], tid, log, rngs[k], args.results, stats)
            except TransportError as e:
                stops[k] = ("transport", str(e))

        threads = [threading.Thread(target=run, args=(k,)) for k in range(len(clients))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    out["matches"] = len(log.commits)
    repeated_rows = log.check_rounds(out["violations"])
    for s in stops:
        if s is not None and out["problem"] is None:
            code, msg = s
            out["problem"] = f"tournament {tid}: {msg}"
            if code == "transport":
                out["transport"] = True
            else:
                out["code"] = code
    if out["problem"] is None:
        out["repeated"] = log.check_end(clients[0], tid, repeated_rows, out["violations"])
        out["finished"] = True
    out["violations"] = [f"tournament {tid}: {v}" for v in out["violations"]]
    return out


def percentile(sorted_values, q):
    if not sorted_values:
        return 0.0
    i = min(max(math.ceil(q * len(sorted_values)), 1), len(sorted_values)) - 1
    return sorted_values[i] * 1000.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:9090/")
    ap.add_argument("--protocol", choices=["xmlrpc", "jsonrpc"], default="xmlrpc")
    ap.add_argument("--players", type=int, default=16)
    ap.add_argument("--tournaments", type=int, default=10)
    ap.add_argument("--concurrency", type=int, default=1, help="tournaments in flight")
    ap.add_argument("--clients-per-tournament", type=int, default=1)
    ap.add_argument("--allow-repeat", action="store_true")
    ap.add_argument("--additional-rounds", type=int, default=0)
    ap.add_argument("--pairing", choices=["optimal", "rswiss"],
                    help="server pairing mode (default: the server's)")
    ap.add_argument("--results", type=mix, default=[20, 50, 30], help="P1/DRAW/P2 percent")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args(argv)
    if args.players < 1 or args.tournaments < 0 or args.concurrency < 1 \
            or args.clients_per_tournament < 1 or args.additional_rounds < 0:
        ap.error("--players, --concurrency and --clients-per-tournament must be ≥ 1")

    stats = Stats()
    counter = iter(range(args.tournaments))
    counter_lock = threading.Lock()
    outcomes = []

    def worker():
        clients = [Timed(connect(args.url, args.protocol, args.timeout), stats)
                   for _ in range(args.clients_per_tournament)]
        while True:
            with counter_lock:
                index = next(counter, None)
            if index is None:
                break
            try:
                o = play_tournament(args, index, clients, stats)
            except TransportError as e:
                o = {"finished": False, "problem": str(e), "code": None, "transport": True,
                     "violations": [], "matches": 0, "repeated": 0}
            with counter_lock:
                outcomes.append(o)
                if not args.json and len(outcomes) % max(1, args.tournaments // 10) == 0:
                    print(f"progress: {len(outcomes)}/{args.tournaments} tournaments",
                          file=sys.stderr, flush=True)

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        for f in [pool.submit(worker) for _ in range(args.concurrency)]:
            f.result()
    wall = max(time.perf_counter() - start, 1e-9)

    problems = [o for o in outcomes if o["problem"]]
    faults = {}
    for o in problems:
        key = str(o["code"]) if o["code"] is not None else "other"
        faults[key] = faults.get(key, 0) + 1
    violations = [v for o in outcomes for v in o["violations"]]
    matches = sum(o["matches"] for o in outcomes)
    latency = {}
    for m, values in sorted(stats.latencies.items()):
        values.sort()
        latency[m] = {"count": len(values),
                      **{f"p{q}_ms": round(percentile(values, q / 100), 3) for q in (50, 95, 99)},
                      "max_ms": round(values[-1] * 1000, 3)}
    summary = {
        "url": args.url, "protocol": args.protocol, "players": args.players,
        "concurrency": args.concurrency, "clients_per_tournament": args.clients_per_tournament,
        "allow_repeat": args.allow_repeat, "additional_rounds": args.additional_rounds,
        "pairing": args.pairing, "results": "/".join(map(str, args.results)), "seed": args.seed,
        "tournaments": len(outcomes),
        "finished": sum(1 for o in outcomes if o["finished"]),
        "problems": len(problems),
        "problem_rate": len(problems) / len(outcomes) if outcomes else 0.0,
        "problem_faults": faults,
        "problem_examples": [o["problem"] for o in problems[:10]],
        "transport_errors": sum(1 for o in outcomes if o["transport"]),
        "repeated_matches": sum(o["repeated"] for o in outcomes if o["finished"]),
        "violations": len(violations),
        "violation_examples": violations[:20],
        "matches": matches, "rpcs": stats.rpcs, "retries": stats.retries,
        "wall_seconds": round(wall, 3),
        "rpc_per_second": round(stats.rpcs / wall, 3),
        "match_cycles_per_second": round(matches / wall, 3),
        "latency": latency,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        s = summary
        print(f"{s['tournaments']} tournaments of {s['players']} players over {s['protocol']}: "
              f"{s['finished']} finished, {s['problems']} problems")
        print(f">>>> Problem rate: {s['problems']}/{s['tournaments']} / "
              f"Repeated matches: {s['repeated_matches']}")
        for e in s["problem_examples"]:
            print(f"  {e}")
        print(f"invariant violations: {s['violations']}")
        for e in s["violation_examples"]:
            print(f"  {e}")
        print(f"{matches} matches, {stats.rpcs} RPCs in {wall:.3f} s: "
              f"{s['rpc_per_second']:.0f} RPC/s, {s['match_cycles_per_second']:.0f} match cycles/s")
        for m, l in latency.items():
            print(f"  {m:<32} {l['count']:>7} p50 {l['p50_ms']:.3f} p95 {l['p95_ms']:.3f} "
                  f"p99 {l['p99_ms']:.3f} ms")
    return 1 if violations or summary["transport_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
