"""Generates window-mode cases and runs Algorithm::Pair::Best 1.036 on each (one process per
case: the module keeps global state)."""
import json, os, random, subprocess, sys
rng = random.Random(20261122)
cases = []
for k in range(240):
    n = rng.choice([4, 6, 8, 10, 12, 14, 16, 20, 24, 30, 40])
    window = rng.randint(1, 6)
    ratings = [round(rng.uniform(-30, 7) * 4) / 4 for _ in range(n)]
    if k % 5:  # mostly strongest first, as gopair adds them; sometimes the caller's own order
        ratings.sort(reverse=True)
    players = [{"id": f"p{i:02d}", "rating": r, "wins": 0, "club": rng.choice(["", "", "Tokyo", "Paris", "paris", "Oslo"]), "opponents": []} for i, r in enumerate(ratings)]
    rounds = rng.randint(0, 3)
    for _ in range(rounds):  # previous rounds among near neighbours in rating order
        idx = sorted(range(n), key=lambda i: -players[i]["rating"])
        for j in range(0, n - 1, 2):
            a, b = idx[j], idx[j + 1]
            if rng.random() < 0.2 and j + 2 < n:
                b = idx[j + 2]; idx[j + 1], idx[j + 2] = idx[j + 2], idx[j + 1]
            players[a]["opponents"].append(players[b]["id"]); players[b]["opponents"].append(players[a]["id"])
            winner = a if rng.random() < 0.6 else b
            players[winner]["wins"] += 1
    weights = rng.choice([
        {"rating": 1, "played": 16, "wins": 1.5, "club": 2},   # gopair's handicap-mode terms
        {"rating": 1, "played": 16, "wins": 0, "club": 0},     # scenario A
        {"rating": 0.25, "played": 16, "wins": 3, "club": 2},
    ])
    case = {"players": players, "window": window, "weights": weights}
    out = subprocess.run(["perl", "-I" + sys.argv[1], os.path.join(os.path.dirname(__file__), "driver.pl")], input=json.dumps(case), capture_output=True, text=True, check=True)
    case["pairbest_pairs"] = json.loads(out.stdout)
    cases.append(case)
json.dump({"generator": "see README.md", "cases": cases}, sys.stdout, indent=None, separators=(",", ":"))
