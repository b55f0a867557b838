#!/usr/bin/env python3
"""Writes synthetic OpenGotha tournament files (ours, fictional players) that exercise byes,
absences, jigo, both-win, both-lose, forfeits (some with unknown colour), unknown results,
handicap games, McMahon corrections, McMahon / Swiss / SwissCat placement, and teams and clubs
groups with the importer's quirks (renamed and renumbered teams, seats without a round, seats
of unknown players, repeated groups and clubs), OpenGotha's short game format, and names
ISO-8859-15 cannot hold with EGD PINs and unusual rank texts, for the oracle.
Deterministic: a fixed seed per file.  usage: gen.py OUTDIR"""
import random, sys, os

RESULTS = ["RESULT_WHITEWINS"] * 8 + ["RESULT_BLACKWINS"] * 8 + [
    "RESULT_EQUAL", "RESULT_BOTHWIN", "RESULT_BOTHLOSE", "RESULT_UNKNOWN",
    "RESULT_WHITEWINS_BYDEF", "RESULT_BLACKWINS_BYDEF", "RESULT_EQUAL_BYDEF",
    "RESULT_BOTHWIN_BYDEF", "RESULT_BOTHLOSE_BYDEF"]

def rank_str(r):
    return f"{r + 1}D" if r >= 0 else f"{-r}K"

def gen(path, seed, n, rounds, system, crits, nbw_abs="0", mms_abs="1", round_down="true",
        virtual="false", hd=True, categories=None, teams=None, groups=None, short=False,
        people=None):
    rng = random.Random(seed)
    players = []
    for i in range(n):
        rank = rng.randint(-25, 6)
        part = ["1"] * 20
        if rng.random() < 0.25:
            part[rng.randrange(rounds)] = "0"
        corr = rng.choice([0] * 8 + [1, -1]) if system == "MM" else 0
        players.append(dict(name=f"Player{i:02d}", first=rng.choice(["Ann", "Bo", "Cy", "Di", "Ed"]),
                            rank=rank, part=part, corr=corr, rating=2050 + 100 * rank + rng.randint(0, 99),
                            country=rng.choice(["FR", "NL", "DE", ""]), club=rng.choice(["Par", "Ams", "Ber", ""]),
                            pin="", rank_text=None))
    # people: (name, first name, club, EGD PIN, rank text or None) for the first players.
    for p, (name, first, club, pin, rank_text) in zip(players, people or []):
        p.update(name=name, first=first, club=club, pin=pin, rank_text=rank_text)
    games, byes = [], []
    for r in range(rounds):
        present = [i for i in range(n) if players[i]["part"][r] == "1"]
        rng.shuffle(present)
        if len(present) % 2 == 1:
            byes.append((r, present.pop()))
        # leave one pair unpaired sometimes (NOT_ASSIGNED players)
        if len(present) >= 6 and rng.random() < 0.3:
            present = present[:-2]
        present.sort(key=lambda i: -players[i]["rank"] + rng.random() * 6)
        for t in range(0, len(present), 2):
            a, b = present[t], present[t + 1]
            w, bl = (a, b) if players[a]["rank"] >= players[b]["rank"] else (b, a)
            h = 0
            if hd:
                h = max(0, min(9, players[w]["rank"] - players[bl]["rank"] - 1)) if rng.random() < 0.7 else 0
            res = rng.choice(RESULTS)
            known = "false" if res.endswith("_BYDEF") and rng.random() < 0.5 else "true"
            games.append((r, t // 2 + 1, w, bl, h, res, known))
    key = lambda p: (p["name"] + p["first"]).replace(" ", "").upper()
    out = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
           '<Tournament dataVersion="201" fullVersionNumber="3.51.02" runningMode="SAL" saveDT="20260101120000">',
           "<Players>"]
    for p in players:
        rk = p["rank_text"] or rank_str(p["rank"])
        out.append(f'<Player agaExpirationDate="" agaId="" club="{p["club"]}" country="{p["country"]}" egfPin="{p["pin"]}" '
                   f'ffgLicence="" ffgLicenceStatus="" firstName="{p["first"]}" grade="{rk}" '
                   f'name="{p["name"]}" participating="{"".join(p["part"])}" rank="{rk}" '
                   f'rating="{p["rating"]}" ratingOrigin="INI" registeringStatus="FIN" smmsCorrection="{p["corr"]}"/>')
    out.append("</Players>\n<Games>")
    for (r, t, w, b, h, res, known) in games:
        out.append(f'<Game blackPlayer="{key(players[b])}" handicap="{h}" knownColor="{known}" result="{res}" '
                   f'roundNumber="{r + 1}" tableNumber="{t}" whitePlayer="{key(players[w])}"/>')
    out.append("</Games>\n<ByePlayers>")
    for (r, i) in byes:
        out.append(f'<ByePlayer player="{key(players[i])}" roundNumber="{r + 1}"/>')
    out.append("</ByePlayers>")
    if teams:
        # (teamNumber, teamName, [(roundNumber or None, boardNumber, player index)])
        out.append("<Teams>")
        for (number, name, seats) in teams:
            out.append(f'<Team teamName="{name}" teamNumber="{number}">')
            for (r, b, i) in seats:
                rn = "" if r is None else f' roundNumber="{r}"'
                who = i if isinstance(i, str) else key(players[i])
                out.append(f'<Board boardNumber="{b}" player="{who}"{rn}/>')
            out.append("</Team>")
        out.append("</Teams>")
    out.append("<TournamentParameterSet>")
    ncat = 1 + len(categories or [])
    out.append(f'<GeneralParameterSet bInternet="false" basicTime="60" beginDate="2026-03-14" canByoYomiTime="300" '
               f'complementaryTimeSystem="STDBYOYOMI" director="" endDate="2026-03-15" fischerTime="10" '
               f'genCountNotPlayedGamesAsHalfPoint="{virtual}" genMMBar="3D" genMMFloor="20K" '
               f'genMMS2ValueAbsent="{mms_abs}" genMMS2ValueBye="2" genMMZero="30K" genNBW2ValueAbsent="{nbw_abs}" '
               f'genNBW2ValueBye="2" genRoundDownNBWMMS="{round_down}" komi="7.5" location="Nowhere" '
               f'name="Synthetic {seed}" nbMovesCanTime="15" numberOfCategories="{ncat}" numberOfRounds="{rounds}" '
               f'shortName="synth{seed}" size="19" stdByoYomiTime="30">')
    if categories:
        out.append("<Categories>")
        for k, lim in enumerate(categories):
            out.append(f'<Category lowerLimit="{rank_str(lim)}" number="{k + 1}"/>')
        out.append("</Categories>")
    out.append("</GeneralParameterSet>")
    out.append('<HandicapParameterSet hdBasedOnMMS="true" hdCeiling="9" hdCorrection="1" hdNoHdRankThreshold="1D"/>')
    out.append("<PlacementParameterSet>\n<PlacementCriteria>")
    crits = crits + ["NULL"] * (6 - len(crits))
    for k, c in enumerate(crits):
        out.append(f'<PlacementCriterion name="{c}" number="{k + 1}"/>')
    out.append("</PlacementCriteria>\n</PlacementParameterSet>\n<PairingParameterSet/>")
    if short:
        out.append('<DPParameterSet gameFormat="short"/>')
    out.append("</TournamentParameterSet>")
    if groups:
        out.append("<ClubsGroups>")
        for (name, clubs) in groups:
            out.append(f'<ClubsGroup name="{name}">')
            for c in clubs:
                out.append(f'<Club name="{c}"/>')
            out.append("</ClubsGroup>")
        out.append("</ClubsGroups>")
    out.append("</Tournament>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
gen(f"{d}/synth_mm.xml", 1, 23, 6, "MM", ["MMS", "SOSM", "SOSOSM", "SODOSM"])
gen(f"{d}/synth_mm_virtual.xml", 2, 18, 5, "MM", ["MMS", "SOSMM1", "SOSMM2", "CUSSM"], mms_abs="1",
    round_down="false", virtual="true")
gen(f"{d}/synth_swiss.xml", 3, 21, 7, "SW", ["NBW", "SOSW", "SOSWM1", "SOSOSW", "SODOSW"], nbw_abs="1",
    hd=False)
gen(f"{d}/synth_swisscat.xml", 4, 16, 5, "SW", ["CAT", "NBW", "EXT", "EXR"], nbw_abs="1", categories=[-5])
gen(f"{d}/synth_small.xml", 5, 7, 3, "MM", ["MMS", "SOSM", "SOSOSM"])
# Teams: a duplicate name (renamed Lions_2), a number already taken and one below 1 (both
# renumbered), seats without a round number (all 20 rounds), a seat of an unknown player
# (skipped), a board filled twice in one round (the later seat wins). Groups: a repeated group
# (dropped), a club named twice, an empty group.
gen(f"{d}/synth_teams.xml", 6, 14, 3, "MM", ["MMS", "SOSM", "SOSOSM"],
    teams=[(1, "Lions", [(r, b, b - 1) for r in (1, 2, 3) for b in (1, 2, 3)]),
           (2, "Tigers", [(None, 1, 3), (None, 2, 4), (2, 3, 5), (2, 3, 6)]),
           (2, "Bears", [(1, 1, 7), (3, 1, 8)]),
           (0, "Lions", [(1, 1, 9), (1, 2, 10)]),
           (7, "Owls", [(1, 1, 11), (1, 2, 12), (2, 1, 13), (3, 1, "NOBODYATALL")])],
    groups=[("Paris area", ["Par", "Ver"]), ("North", ["Ams", "Ber", "Ams"]),
            ("Paris area", ["Lyo"]), ("Empty", [])])
# OpenGotha's short game format (gameFormat="short"): cells without type, colour or handicap,
# and its nobydef table then keeps the results by default (no `!` to find).
gen(f"{d}/synth_short.xml", 7, 15, 5, "MM", ["MMS", "SOSM", "SOSOSM"], short=True)
# Names ISO-8859-15 cannot hold (Latin letters it lacks, CJK), a long name, EGD PINs (one not
# of 8 digits), and rank texts OpenGotha reads its own way (99K = 30K, 12 = 12K, 3p = 7D).
gen(f"{d}/synth_names.xml", 8, 14, 4, "MM", ["MMS", "SOSM", "SOSOSM"], people=[
    ("Szőke", "Bálint", "Győr", "12345678", None),
    ("Wałęsa", "Łukasz", "Łódź", "23456789", "99K"),
    ("Dvořák", "Jiří", "Brno", "", "12"),
    ("Yılmaz", "Ayşe", "İzm", "1234", None),
    ("Būga", "Rūta", "Vln", "", "3p"),
    ("李", "明", "北京", "34567890", None),
    ("Nguyễn", "Văn Đức", "", "", None),
    ("O’Brien", "Seán", "Dub", "", None),
    ("Müller-Lüdenscheidt", "Hans Peter", "Ber", "45678901", None),
    ("Œuvray", "Zoé", "Par", "", None),
    ("Smith", "John", "Lon", "56789012", None),
])
