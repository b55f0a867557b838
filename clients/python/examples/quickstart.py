import asyncio
import os

from goswiss import AsyncClient, Client, errors

URL = os.environ.get("GOSWISS_URL", "http://127.0.0.1:9090/")


async def main() -> None:
    c = Client(URL)  # blocking, JSON-RPC over HTTP (protocol="xmlrpc" also works)
    t = c.tournament_create({"name": "Autumn Cup", "rounds": 2, "system": "mcmahon"})
    tid = t["id"]
    c.use_token(t["director_token"])  # writes need it when the daemon has auth on
    async with AsyncClient(URL, token=t["director_token"]) as live:
        events = await live.subscribe(tid)  # every change from now on, across reconnects
        for name, rank in [("Lee", "3d"), ("Kim", "1d"), ("Sato", "2k"), ("Ito", "5k")]:
            c.tournament_player_add(tid, {"name": name, "first_name": "A", "rank": rank})
        games = c.tournament_round_pair(tid, 1)["games"]
        for g in games:
            c.tournament_result_set(tid, 1, g["table"], "W+")
        try:
            c.tournament_round_pair(tid, 1)
        except errors.WrongRound as e:  # one class per error code
            print("refused:", e.code, e.message)
        for row in c.tournament_standings(tid)["rows"]:
            print(row["place"], row["name"], row["values"])
        seen = 0
        async for event in events:
            print("event", event.revision, event.kind, event.round, event.result or "")
            seen += 1
            if event.kind == "result_set" and event.table == games[-1]["table"]:
                break
        print("live events:", seen)


asyncio.run(main())
