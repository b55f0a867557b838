#!/usr/bin/env python3
"""A whole McMahon event run from Python (stdlib only) against a goswiss daemon.

    python3 clients/python/mcmahon_event.py --url http://localhost:9090/ [--protocol jsonrpc] \
        [--h9 autumn.h9] [--seed 7]

Creates a 4-round McMahon tournament, registers 12 players, pairs and plays every round (a late
entry before round 2, an absence in round 3, a result with an SGF record, a corrected result),
prints the standings with their tie-breakers and the crosstable, and writes the EGF results
table (.h9). The README section "Running a McMahon event from Python" walks through it; the test
tests/it/clients/python_tournament.rs runs it over both protocols and checks what it prints and writes.
"""

import argparse
import sys

from goswiss_client import Fault, tournaments

# Name, first name, rank, club, country. Ranks as text; OpenGotha's integers work too.
PLAYERS = [
    ("Lee", "Ann", "4d", "Seou", "KR"),
    ("Dupont", "Marie", "3d", "Pari", "FR"),
    ("Müller", "Hans", "2d", "Berl", "DE"),
    ("Novak", "Petr", "1d", "Prah", "CZ"),
    ("Rossi", "Luca", "1k", "Mila", "IT"),
    ("Martin", "Léa", "2k", "Lyon", "FR"),
    ("Schmidt", "Eva", "3k", "Berl", "DE"),
    ("Kowalski", "Jan", "4k", "Wars", "PL"),
    ("Bernard", "Paul", "5k", "Pari", "FR"),
    ("Horvat", "Ivan", "7k", "Zagr", "HR"),
    ("Smith", "John", "9k", "Lond", "GB"),
    ("Jansen", "Pieter", "12k", "Amst", "NL"),
]
LATE = ("Tanaka", "Yuki", "1k", "Toky", "JP")  # registers after round 1 is paired
ABSENT = ("Rossi", 3)  # Luca Rossi cannot come to round 3


def strength(rank):
    """'4d' -> 3, '1k' -> -1: OpenGotha's order, to decide who wins in this simulation."""
    n = int(rank[:-1])
    return n - 1 if rank.endswith("d") else -n


def record(black, white, komi, winner):
    """A short SGF record of a game lost by resignation (moves are illustrative)."""
    return (
        f"(;GM[1]FF[4]SZ[19]KM[{komi}]PB[{black}]PW[{white}]RE[{winner}+R]"
        ";B[pd];W[dp];B[pq];W[dd];B[qk])"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default="http://localhost:9090/")
    ap.add_argument("--protocol", choices=["xmlrpc", "jsonrpc"], default="xmlrpc")
    ap.add_argument("--h9", default="autumn.h9", help="where to write the EGF results table")
    ap.add_argument("--seed", type=int, default=7, help="the tournament's random seed")
    args = ap.parse_args()

    t = tournaments(args.url, args.protocol)

    # 1. Create the event. Settings not given keep OpenGotha's McMahon defaults. McMahon bar
    #    and floor are OpenGotha rank integers (0 = 1d, 2 = 3d, -20 = 20k). Placement: MMS,
    #    then SOS and SOSOS of McMahon scores.
    created = t.create(
        {
            "name": "Autumn McMahon",
            "short_name": "autumn",
            "location": "Lyon",
            "begin_date": "2026-11-28",
            "end_date": "2026-11-29",
            "rounds": 4,
            "system": "mcmahon",
            "komi2": 13,  # komi in half points: 6.5
            "mcmahon": {"bar": 2, "floor": -20},
            "placement": ["MMS", "SOSM", "SOSOSM"],
            "time": {"basic_minutes": 60, "text": "60 min + 5x30 s byo-yomi"},
        },
        {"seed": args.seed},
    )
    tid = created["id"]
    # With auth on, every write needs the director token: keep it, send it from now on.
    t.use_token(created["director_token"])
    print(f"tournament {tid} created over {args.protocol}")

    # 2. Register the players.
    ids, names = {}, {}
    for name, first, rank, club, country in PLAYERS:
        r = t.add_player(
            tid,
            {"name": name, "first_name": first, "rank": rank, "club": club, "country": country},
        )
        ids[name] = r["player_id"]
        names[r["player_id"]] = (name, first, rank)
    # 3. An absence: the player skips round 3 (scored with the tournament's absence value).
    t.set_participation(tid, ids[ABSENT[0]], [ABSENT[1]])

    corrected = None
    for rnd in range(1, 5):
        if rnd == 2:
            # 4. A late entry: registered once round 1 is paired, the player skips round 1.
            name, first, rank, club, country = LATE
            r = t.add_player(
                tid,
                {"name": name, "first_name": first, "rank": rank, "club": club, "country": country},
            )
            ids[name] = r["player_id"]
            names[r["player_id"]] = (name, first, rank)
            me = next(p for p in t.players(tid) if p["id"] == r["player_id"])
            print(f"late entry: {first} {name}, skips rounds {me['skip']}")

        # 5. Pair the round (OpenGotha's weight), then publish it.
        paired = t.pair(tid, rnd)
        t.publish(tid, rnd)
        byes = ", ".join(" ".join(names[b][:2]) for b in paired["byes"]) or "none"
        print(f"round {rnd}: {len(paired['games'])} games, bye: {byes}")

        # 6. Enter the results. Here the stronger player wins (White on equal ranks), except
        #    that every fifth board is an upset.
        for g in paired["games"]:
            w, b, table = g["white"], g["black"], g["table"]
            white_wins = strength(names[w][2]) >= strength(names[b][2])
            if (rnd + table) % 5 == 0:
                white_wins = not white_wins
            result = "W+" if white_wins else "B+"
            options = {}
            if rnd == 1 and table == 1:
                # A result with its game record: checked against the game (players, komi,
                # handicap, a legal replay, RE); findings come back as warnings.
                komi = 6.5 if g["handicap"] == 0 else 0.5
                options["sgf"] = record(
                    " ".join(names[b][:2]), " ".join(names[w][:2]), komi, result[0]
                )
            r = t.set_result(tid, rnd, table, result, options)
            hc = f" H{g['handicap']}" if g["handicap"] else ""
            print(
                f"  table {table}: {' '.join(names[w][:2])} (W) - {' '.join(names[b][:2])} (B)"
                f"{hc}: {r['result']}" + (f" warnings {r['warnings']}" if r["warnings"] else "")
            )
        if rnd == 2:
            # 7. A correction: the result slip of table 1 was wrong; Black won.
            g = paired["games"][0]
            was = t.round(tid, 2)["games"][0]["result"]
            fixed = "B+" if was.startswith("W") else "W+"
            t.set_result(tid, 2, g["table"], fixed)
            corrected = (2, g["table"], was, fixed)
            print(f"  corrected round 2 table {g['table']}: {was} -> {fixed}")

    # The record can be read back.
    sgf = t.game_sgf(tid, 1, 1)
    print(f"record of round 1 table 1: {len(sgf['sgf'])} bytes, warnings {sgf['warnings']}")

    # 8. Standings after the last round, with the tie-breakers.
    st = t.standings(tid)
    crit = st["criteria"]
    print(f"standings after round {st['after_round']}:")
    print(" pl  name              rk   " + "".join(f"{c:>8}" for c in crit))
    for row in st["rows"]:
        place = f"{row['place']}{'=' if row['shared'] else ' '}"
        who = f"{row['name']} {row['first_name']}"
        values = "".join(f"{row['values'][c]:>8g}" for c in crit)
        print(f"{place:>4} {who:<17} {row['rank_text']:>4} {values}")

    # 9. The crosstable: one EGF-style cell per round (opponent's line, result, colour,
    #    handicap; 0+ / 0= / 0- for a round without a game).
    ct = t.crosstable(tid)
    print("crosstable:")
    for row in ct["rows"]:
        who = f"{row['name']} {row['first_name']}"
        cells = " ".join(f"{c['text']:>7}" for c in row["cells"])
        print(f"{row['position']:>3} {who:<17} {cells}")

    # 10. The EGF results table, exactly as OpenGotha exports it: `text` holds one character
    #     per byte of the file in `encoding` (ISO-8859-15).
    h9 = t.export(tid, "h9")
    with open(args.h9, "w", encoding=h9["encoding"], newline="") as f:
        f.write(h9["text"])
    print(f"wrote {args.h9} ({h9['file_name']}, {h9['encoding']}, {len(h9['text'])} bytes)")

    # Errors are faults with the documented codes: pairing round 5 of a 4-round event.
    try:
        t.pair(tid, 5)
    except Fault as f:
        print(f"round 5 refused as expected: fault {f.code}")
    if corrected:
        print(f"correction kept: {t.round(tid, 2)['games'][0]['result'] == corrected[3]}")
    t.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
