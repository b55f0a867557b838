import { Client, ErrorCode, TournamentError } from "goswiss";

const URL = process.env.GOSWISS_URL ?? "http://127.0.0.1:9090/";

const c = new Client(URL); // JSON-RPC over fetch; a ws:// URL puts every call on one WebSocket
const t = await c.tournamentCreate({ name: "Autumn Cup", rounds: 2, system: "mcmahon" });
c.useToken(t.director_token); // writes need it when the daemon has auth on
const live = new Client(URL.replace(/^http/, "ws"), { token: t.director_token });
const events = await live.subscribe(t.id).start(); // every change from now on, across reconnects
for (const [name, rank] of [["Lee", "3d"], ["Kim", "1d"], ["Sato", "2k"], ["Ito", "5k"]]) {
  await c.tournamentPlayerAdd(t.id, { name, first_name: "A", rank });
}
const { games } = await c.tournamentRoundPair(t.id, 1);
for (const g of games) await c.tournamentResultSet(t.id, 1, g.table, "W+");
try {
  await c.tournamentRoundPair(t.id, 1);
} catch (e) {
  if (!(e instanceof TournamentError) || e.code !== ErrorCode.WrongRound) throw e;
  console.log("refused:", e.code, e.message); // code, message and data of every error
}
for (const row of (await c.tournamentStandings(t.id)).rows) {
  console.log(row.place, row.name, JSON.stringify(row.values));
}
let seen = 0;
for await (const event of events) {
  console.log("event", event.revision, event.kind, event.round, event.result ?? "");
  seen += 1;
  if (event.kind === "result_set" && event.table === games[games.length - 1].table) break;
}
console.log("live events:", seen);
live.close();
