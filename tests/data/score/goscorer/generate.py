#!/usr/bin/env python3
"""Runs goscorer (lightvector/goscorer, MIT) over the positions stored here and writes its
answers in goscorer's own snapshot format, one `== name` section per position.

    python3 generate.py /path/to/goscorer/python

The argument is the directory holding goscorer.py (the `python/` folder of a checkout of
https://github.com/lightvector/goscorer). Inputs: positions.txt (constructed positions) and
gnugo_positions.txt (final positions of GNU Go's scoring games, written by
`cargo test --release --test score_goscorer -- --ignored dump_gnugo_positions`).
Outputs: expected_positions.txt and expected_gnugo.txt. The Rust tests only read the
stored files; they never run this script.

Board notation (goscorer's test notation): x black, o white, b dead black, w dead white,
. empty.
"""

import os
import sys


def parse(path):
    cases = []
    name = None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line == "BOARD:":
                continue
            if line.startswith("== "):
                name = line[3:].strip()
                cases.append((name, []))
            else:
                cases[-1][1].append(line)
    return cases


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.path.insert(0, sys.argv[1])
    import goscorer as g

    here = os.path.dirname(os.path.abspath(__file__))
    for src, dst in [("positions.txt", "expected_positions.txt"), ("gnugo_positions.txt", "expected_gnugo.txt")]:
        out = ["# goscorer's answers for %s, written by generate.py; do not edit." % src]
        for name, rows in parse(os.path.join(here, src)):
            ysize, xsize = len(rows), len(rows[0])
            code = {".": (g.EMPTY, False), "x": (g.BLACK, False), "o": (g.WHITE, False),
                    "b": (g.BLACK, True), "w": (g.WHITE, True)}
            stones = [[code[c][0] for c in r] for r in rows]
            dead = [[code[c][1] for c in r] for r in rows]
            sc = g.territory_scoring(stones, dead)
            area = g.area_scoring(stones, dead)

            def block(title, f):
                out.append(title + ":")
                for y in range(ysize):
                    out.append("".join(f(y, x, rows[y][x]) for x in range(xsize)))

            out.append("== " + name)
            block("BOARD", lambda y, x, c: c)
            block("TERRITORY", lambda y, x, c: "z" if sc[y][x].is_territory_for == g.BLACK
                  else "a" if sc[y][x].is_territory_for == g.WHITE else c)

            def seki(y, x, c):
                s, stone = sc[y][x].belongs_to_seki_group, stones[y][x] != g.EMPTY
                if s == g.BLACK:
                    return "x" if stone else "z"
                if s == g.WHITE:
                    return "o" if stone else "a"
                return "."
            block("SEKI", seki)
            block("FALSE EYES", lambda y, x, c: "F" if sc[y][x].is_false_eye else c)
            block("UNSCORABLE FALSE EYES", lambda y, x, c: "F" if sc[y][x].is_unscorable_false_eye else c)
            block("DAME", lambda y, x, c: "1" if sc[y][x].is_dame else c)
            block("EYEVALUE", lambda y, x, c: c if sc[y][x].eye_value == 0 else str(sc[y][x].eye_value))
            block("AREA", lambda y, x, c: "z" if area[y][x] == g.BLACK else "a" if area[y][x] == g.WHITE else c)
        with open(os.path.join(here, dst), "w") as f:
            f.write("\n".join(out) + "\n")
        print("wrote", dst)


if __name__ == "__main__":
    sys.setrecursionlimit(100000)
    main()
