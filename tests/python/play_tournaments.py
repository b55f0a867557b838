#!/usr/bin/env python3
"""Plays whole tournaments against a goswiss (or rswiss) server with Python's stdlib
xmlrpc.client and checks every invariant of the rswiss interface as it goes.

Exit status 0 when every tournament passed; the last line is "N passed, M failed".
"""
import argparse
import math
import random
import sys
import time
import xmlrpc.client

CRITERIA = ["score", "buchholz_score", "neustadtl_score", "c_score", "opp_c_score", "wins"]


class Violation(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Violation(msg)


def ceil_log2(n):
    return 0 if n <= 1 else (n - 1).bit_length()


def play(proxy, players, additional, allow_repeat, seed, rng, pairing, allow_deadlock):
    n = len(players)
    args = [players, additional, allow_repeat]
    options = {}
    if seed is not None:
        options["seed"] = seed
    if pairing:
        options["pairing"] = pairing
    if options:
        args.append(options)
    tid = proxy.matchmaker.create_tournament(*args)
    check(isinstance(tid, int) and tid >= 1, f"tournament id {tid!r}")
    check(proxy.matchmaker.round(tid) == 0, "round 0 before the first checkout")
    expected_rounds = ceil_log2(n) + additional

    rounds = {}
    committed = []
    deadlocked = False
    first = True
    while True:
        try:
            pair = proxy.matchmaker.checkout_match(tid)
        except xmlrpc.client.Fault as f:
            if f.faultCode == 202:
                check(f.faultString == "This tournament reached the end!", f.faultString)
                break
            if f.faultCode in (204, 205) and allow_deadlock:
                deadlocked = True
                break
            raise
        check(isinstance(pair, list) and len(pair) == 2, f"pair {pair!r}")
        r = proxy.matchmaker.round(tid)
        batch = [pair]
        if first and n >= 4:
            # Several matches out at once: take the whole first round, then expect 201.
            first = False
            for _ in range(n // 2 - 1):
                batch.append(proxy.matchmaker.checkout_match(tid))
            out = proxy.matchmaker.checkedout_matches(tid)
            check(sorted(map(tuple, out)) == sorted(map(tuple, batch)), f"checked out {out} vs {batch}")
            try:
                proxy.matchmaker.checkout_match(tid)
                raise Violation("a checkout past the round's matches must fault")
            except xmlrpc.client.Fault as f:
                check(f.faultCode == 201, f"fault {f.faultCode}")
                check(f.faultString == f"Still {len(batch)} matches to be returned!", f.faultString)
            try:
                proxy.matchmaker.winner(tid)
                raise Violation("winner before the end must fault")
            except xmlrpc.client.Fault as f:
                check(f.faultCode == 401 and f.faultString == "The Tournament has not ended yet.", str(f))
        for p in batch:
            rounds.setdefault(r, []).append(tuple(p))
            res = rng.choices([-1, 0, 1], [20, 50, 30])[0]
            check(proxy.matchmaker.commit_match(tid, p, res) is True, "commit answers true")
            committed.append((p[0], p[1], res))
            try:
                proxy.matchmaker.commit_match(tid, p, res)
                raise Violation("a second commit of the same match must fault")
            except xmlrpc.client.Fault as f:
                check(f.faultCode == 303 and f.faultString == "This match has not been checked out!", str(f))

    # Pairing invariants.
    ids = set(players)
    byes = {p: 0 for p in players}
    pair_count = {}
    for r, pairs in rounds.items():
        seen = [x for pr in pairs for x in pr]
        check(len(seen) == len(set(seen)), f"round {r}: a player plays twice: {pairs}")
        check(set(seen) <= ids, f"round {r}: unknown players")
        check(len(pairs) == n // 2, f"round {r}: {len(pairs)} matches, expected {n // 2}")
        for p in ids - set(seen):
            byes[p] += 1
        for a, b in pairs:
            check(a != b, "a player against himself")
            key = (min(a, b), max(a, b))
            pair_count[key] = pair_count.get(key, 0) + 1
    check(sorted(rounds) == list(range(1, len(rounds) + 1)), f"rounds {sorted(rounds)}")
    if expected_rounds <= n:
        check(all(b <= 1 for b in byes.values()), f"more than one bye: {byes}")
    repeats = sum(1 for c in pair_count.values() if c == 2)
    check(all(c <= 2 for c in pair_count.values()), "a pair met three times")
    if not allow_repeat:
        check(repeats == 0, "repeated pairs without allow_repeat")
    check(proxy.matchmaker.repeated_matches(tid) == 2 * repeats, "repeated_matches counts 2 per repetition")

    if not deadlocked:
        check(proxy.matchmaker.round(tid) == expected_rounds, f"rounds {proxy.matchmaker.round(tid)} != {expected_rounds}")
        check(len(rounds) == expected_rounds, "every round was played")
        check(proxy.matchmaker.has_ended(tid) is True, "has_ended after 202")
        check(proxy.matchmaker.checkedout_matches(tid) == [], "nothing out at the end")
        try:
            proxy.matchmaker.checkout_match(tid)
            raise Violation("202 must repeat")
        except xmlrpc.client.Fault as f:
            check(f.faultCode == 202, str(f))
    else:
        check(proxy.matchmaker.has_ended(tid) is False, "a dead-locked tournament has not ended")

    # Standings against the committed results.
    score = {p: float(byes[p]) for p in players}
    wins = {p: 0 for p in players}
    games = {p: 0 for p in players}
    for a, b, res in committed:
        games[a] += 1
        games[b] += 1
        score[a] += {-1: 1.0, 0: 0.5, 1: 0.0}[res]
        score[b] += {-1: 0.0, 0: 0.5, 1: 1.0}[res]
        if res == -1:
            wins[a] += 1
        if res == 1:
            wins[b] += 1
    table = proxy.matchmaker.table_by_criteria(tid)
    check(sorted(row[0] for row in table) == sorted(players), "every player in the table once")
    for row in table:
        check(len(row) == 8, f"row shape {row}")
        pid, matches, sc, bu, ne, cs, ocs, w = row
        check(sc == score[pid], f"score of {pid}: {sc} != {score[pid]}")
        check(w == wins[pid], f"wins of {pid}: {w} != {wins[pid]}")
        check(matches == games[pid] + byes[pid], f"matches of {pid}")
        check(all(isinstance(x, float) for x in row[2:7]), f"scores are doubles: {row}")
        check(isinstance(pid, int) and isinstance(matches, int) and isinstance(w, int), f"ints: {row}")
    keys = [row[2:8] for row in table]
    check(keys == sorted(keys, reverse=True), "table_by_criteria sorted by the six criteria")
    by_score = proxy.matchmaker.table_by_score(tid)
    check([r[2] for r in by_score] == sorted((r[2] for r in by_score), reverse=True), "table_by_score sorted")
    check(sorted(map(tuple, by_score)) == sorted(map(tuple, table)), "same rows in both tables")

    if not deadlocked:
        try:
            pid, criterion = proxy.matchmaker.winner(tid)
            check(criterion in CRITERIA, criterion)
            check(pid == table[0][0], f"winner {pid} heads the table {table[0]}")
            k = CRITERIA.index(criterion)
            tied_before = [r for r in table if r[2:2 + k] == table[0][2:2 + k]]
            check(sum(1 for r in tied_before if r[2 + k] == table[0][2 + k]) == 1, "criterion isolates the winner")
        except xmlrpc.client.Fault as f:
            check(f.faultCode == 402, str(f))
            check(f.faultString == "We have a difficult tie to break. Try flipping a coin.", f.faultString)
            check(len(table) > 1 and table[0][2:8] == table[1][2:8], "402 only on a complete tie")
    return deadlocked, repeats, len(committed)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url", default="http://localhost:9090/")
    ap.add_argument("--sizes", default="1,2,7,16,33,64")
    ap.add_argument("--tournaments", type=int, default=1, help="tournaments per size and mode")
    ap.add_argument("--repeat", choices=["on", "off", "both"], default="both")
    ap.add_argument("--additional", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pairing", default=None)
    ap.add_argument("--allow-deadlock", action="store_true",
                    help="accept faults 204/205 (rswiss pairing dead-locks) as an outcome")
    ap.add_argument("--no-seed-option", action="store_true",
                    help="do not send the options struct (plain rswiss clients)")
    a = ap.parse_args()

    rng = random.Random(a.seed)
    proxy = xmlrpc.client.ServerProxy(a.url)
    modes = {"on": [True], "off": [False], "both": [True, False]}[a.repeat]
    passed = failed = deadlocks = repeats = matches = 0
    start = time.monotonic()
    for size in [int(s) for s in a.sizes.split(",")]:
        for allow_repeat in modes:
            for k in range(a.tournaments):
                seed = None if a.no_seed_option else a.seed * 1_000_003 + size * 1009 + k * 2 + allow_repeat
                players = list(range(100, 100 + size))
                try:
                    d, r, m = play(proxy, players, a.additional, allow_repeat, seed, rng, a.pairing, a.allow_deadlock)
                    passed += 1
                    deadlocks += d
                    repeats += r
                    matches += m
                except (Violation, xmlrpc.client.Fault) as e:
                    failed += 1
                    print(f"FAIL size={size} allow_repeat={allow_repeat} seed={seed}: {e}")
    wall = time.monotonic() - start
    print(f"tournaments={passed + failed} deadlocked={deadlocks} repeated_pairs={repeats} "
          f"matches={matches} wall={wall:.2f}s")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
