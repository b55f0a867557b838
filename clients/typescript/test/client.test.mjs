// The client against a live daemon: typed calls over both transports, pipelining, errors
// with code and data, and subscriptions (catch-up across a cut connection, deletion).

import test from "node:test";
import assert from "node:assert/strict";
import {
  Client,
  ConnectionLost,
  ErrorCode,
  GoswissError,
  ProtocolError,
  ServerError,
  TournamentError,
  TransportError,
} from "../dist/src/index.js";
import { Proxy, daemonUrl, players, until } from "./helpers.mjs";

const URL_ = daemonUrl();
const WS = URL_.replace(/^http/, "ws");

for (const [label, url] of [
  ["http", URL_],
  ["websocket", WS],
]) {
  test(`typed calls over ${label}`, async () => {
    const c = new Client(url);
    try {
      assert.equal(c.transport, label);
      assert.deepEqual(await c.systemEcho({ a: [1, "two", null] }), { a: [1, "two", null] });
      const t = await c.tournamentCreate({ name: `Typed ${label}`, rounds: 2, system: "mcmahon" });
      assert.ok(Number.isInteger(t.id) && typeof t.director_token === "string");
      c.useToken(t.director_token);
      await players(c, t.id, 4);
      const paired = await c.tournamentRoundPair(t.id, 1);
      assert.equal(paired.games.length, 2);
      for (const g of paired.games) await c.tournamentResultSet(t.id, 1, g.table, "B+");
      const st = await c.tournamentStandings(t.id);
      assert.equal(st.rows.length, 4);
      const got = await c.tournamentGet(t.id);
      assert.equal(got.settings.name, `Typed ${label}`);
      // call() reaches any method by name.
      assert.deepEqual(await c.call("system.echo", 7), 7);
    } finally {
      c.close();
    }
  });

  test(`errors carry code, message and data over ${label}`, async () => {
    const c = new Client(url);
    try {
      const t = await c.tournamentCreate({ name: `Errors ${label}`, rounds: 2 });
      c.useToken(t.director_token);
      await assert.rejects(c.tournamentGet(987654321), (e) => {
        assert.ok(e instanceof TournamentError && e instanceof GoswissError);
        assert.equal(e.code, ErrorCode.NoSuchTournament);
        assert.equal(e.codeName, "NoSuchTournament");
        assert.match(e.message, /987654321/);
        return true;
      });
      // 1002's data: the revision to read the state at and retry from.
      await assert.rejects(
        c.tournamentPlayerAdd(t.id, { name: "Late", first_name: "A", rank: "1k" }, { if_revision: 99 }),
        (e) => {
          assert.ok(e instanceof TournamentError);
          assert.equal(e.code, ErrorCode.StaleRevision);
          assert.deepEqual(e.data, { revision: 1, if_revision: 99 });
          return true;
        },
      );
      // -32602 with the bad value's path.
      await assert.rejects(c.call("tournament.create", { name: "X", rounds: "four" }), (e) => {
        assert.ok(e instanceof ProtocolError);
        assert.equal(e.code, ErrorCode.InvalidParams);
        assert.equal(e.data.path, "settings.rounds");
        return true;
      });
      await assert.rejects(c.call("no.such.method"), (e) => e instanceof ProtocolError && e.code === -32601);
    } finally {
      c.close();
    }
  });
}

test("every code rpc.discover declares has its name in ErrorCode and its family's class", async () => {
  const c = new Client(URL_);
  const doc = await c.call("rpc.discover");
  const declared = new Set(doc.methods.flatMap((m) => (m.errors ?? []).map((e) => e.code)));
  for (const code of [1001, 1101, 1204]) assert.ok(declared.has(code), `${code} declared`);
  const known = new Set(Object.values(ErrorCode));
  const missing = [...declared].filter((code) => !known.has(code)).sort((a, b) => a - b);
  assert.deepEqual(missing, [], "codes without a name in ErrorCode");
  // A simulation's refusal is of its family's class, not the bare base class.
  await assert.rejects(c.call("simulate.get", "no-such-id"), (e) => {
    assert.equal(e.code, ErrorCode.NoSuchSimulation);
    assert.notEqual(e.constructor, GoswissError);
    return true;
  });
});

test("a subscription over plain HTTP is refused with -32020", async () => {
  const c = new Client(URL_);
  await assert.rejects(c.call("tournament.subscribe", 1), (e) => {
    assert.ok(e instanceof ProtocolError);
    assert.equal(e.code, ErrorCode.NeedsWebSocket);
    return true;
  });
});

test("many calls in flight on one WebSocket are each answered to their caller", async () => {
  const c = new Client(WS);
  try {
    const values = Array.from({ length: 500 }, (_, k) => [k, `v${k}`]);
    const got = await Promise.all(values.map((v) => c.systemEcho(v)));
    assert.deepEqual(got, values);
    assert.equal(c.connects, 1);
    // Errors in the middle of the stream reject only their own call.
    const mixed = await Promise.allSettled([c.systemEcho(1), c.tournamentGet(987654321), c.systemEcho(3)]);
    assert.deepEqual(
      mixed.map((r) => r.status),
      ["fulfilled", "rejected", "fulfilled"],
    );
  } finally {
    c.close();
  }
});

test("a call whose connection is cut rejects with ConnectionLost and the next reconnects", async () => {
  const proxy = new Proxy(URL_);
  const url = await proxy.start();
  const c = new Client(url);
  try {
    assert.equal(await c.systemEcho(1), 1);
    // Cut in the same turn of the event loop as the sends: no answer can have come back.
    const inflight = Array.from({ length: 2000 }, (_, k) => c.systemEcho(k).then(() => "ok", (e) => e));
    proxy.cut();
    const outcomes = await Promise.all(inflight);
    const lost = outcomes.filter((o) => o !== "ok");
    assert.ok(lost.length > 0, "calls were in flight at the cut");
    for (const e of lost) assert.ok(e instanceof ConnectionLost, String(e));
    assert.equal(await c.systemEcho(2), 2);
    assert.equal(c.connects, 2);
  } finally {
    c.close();
    await proxy.close();
  }
});

test("no daemon: a TransportError", async () => {
  const c = new Client("http://127.0.0.1:9/", { timeoutMs: 20000 });
  await assert.rejects(c.systemEcho(1), (e) => e instanceof TransportError);
  const w = new Client("ws://127.0.0.1:9/", { timeoutMs: 20000 });
  await assert.rejects(w.systemEcho(1), (e) => e instanceof TransportError);
});

test("subscribe: every event once and in order across cut connections, ending after deleted", async () => {
  const http = new Client(URL_);
  const proxy = new Proxy(URL_);
  const url = await proxy.start();
  const live = new Client(url, { backoffMs: [10, 100] });
  try {
    const t = await http.tournamentCreate({ name: "Cut", rounds: 3, system: "mcmahon" });
    http.useToken(t.director_token);
    live.useToken(t.director_token);
    const sub = await live.subscribe(t.id).start();
    const seen = [];
    const reading = (async () => {
      for await (const e of sub) {
        seen.push(e);
        if (e.kind === "deleted") break;
      }
    })();
    // Changes live, and changes while the subscription's connection is cut and new ones are
    // refused: those can only be read back from the log after it reconnects.
    for (let k = 0; k < 12; k++) {
      if (k % 3 === 1) {
        proxy.refusing = true;
        proxy.cut();
      }
      await http.tournamentPlayerAdd(t.id, { name: `C${k}`, first_name: "T", rank: `${(k % 9) + 1}k` });
      if (k === 0) await until(() => seen.length === 1, "the first event, live");
      if (k % 3 === 2) {
        proxy.refusing = false;
        const cuts = (k + 1) / 3;
        await until(() => sub.reconnects === cuts, `resubscribed after cut ${cuts}`);
      }
    }
    const paired = await http.tournamentRoundPair(t.id, 1);
    proxy.refusing = true;
    proxy.cut();
    for (const g of paired.games) await http.tournamentResultSet(t.id, 1, g.table, "W+");
    proxy.refusing = false;
    await until(() => sub.reconnects === 5, "resubscribed after the last cut");
    const revision = (await http.tournamentEvents(t.id, 2 ** 52)).revision;
    await until(() => seen.length && seen[seen.length - 1].revision === revision, "every event");
    await http.tournamentDelete(t.id);
    await reading;
    const revs = seen.filter((e) => e.kind !== "deleted").map((e) => e.revision);
    assert.deepEqual(
      revs,
      Array.from({ length: revision - 1 }, (_, k) => k + 2),
    );
    assert.equal(seen[seen.length - 1].kind, "deleted");
    assert.equal(sub.reconnects, 5, "resubscribed after each of the 5 cuts");
    // Those written while refused came from the log, the others live.
    const caught = seen.filter((e) => e.caughtUp).map((e) => e.kind);
    assert.ok(caught.includes("result_set") && caught.includes("player_registered"), String(caught));
    assert.equal(seen[0].caughtUp, false, "the first arrived live");
    const results = seen.filter((e) => e.kind === "result_set");
    assert.equal(results.length, paired.games.length);
    for (const r of results) assert.equal(r.result, "W+");
  } finally {
    live.close();
    http.close();
    await proxy.close();
  }
});

test("subscribe from a revision reads the log first; deleted while away ends it", async () => {
  const http = new Client(URL_);
  const proxy = new Proxy(URL_);
  const url = await proxy.start();
  const live = new Client(url, { backoffMs: [10, 50] });
  try {
    const t = await http.tournamentCreate({ name: "Since", rounds: 2 });
    http.useToken(t.director_token);
    await players(http, t.id, 3);
    const sub = live.subscribe(t.id, 0);
    const first = [];
    for await (const e of sub) {
      first.push(e);
      if (e.revision === 4) break;
    }
    assert.deepEqual(
      first.map((e) => [e.revision, e.kind, e.caughtUp]),
      [
        [1, "created", true],
        [2, "player_registered", true],
        [3, "player_registered", true],
        [4, "player_registered", true],
      ],
    );
    // A new subscription, its connection cut, the tournament deleted meanwhile.
    const sub2 = await live.subscribe(t.id).start();
    const it = sub2[Symbol.asyncIterator]();
    await http.tournamentPlayerAdd(t.id, { name: "Q", first_name: "T", rank: "2k" });
    const e5 = await it.next();
    assert.equal(e5.value.revision, 5);
    proxy.cut();
    await http.tournamentDelete(t.id);
    const gone = await it.next();
    assert.equal(gone.value.kind, "deleted");
    assert.equal((await it.next()).done, true);
  } finally {
    live.close();
    http.close();
    await proxy.close();
  }
});

test("close() ends a subscription while a next() waits for an event", async () => {
  const c = new Client(WS);
  try {
    const t = await c.tournamentCreate({ name: "Close", rounds: 1 });
    const sub = await c.subscribe(t.id).start();
    const pending = sub.next();
    await sub.close();
    assert.equal((await pending).done, true);
    assert.equal((await sub.next()).done, true);
    // Unsubscribed: the connection carries on with calls.
    assert.equal(await c.systemEcho(5), 5);
  } finally {
    c.close();
  }
});

test("subscribing to no tournament rejects with 1001", async () => {
  const c = new Client(WS);
  try {
    await assert.rejects(c.subscribe(987654321).start(), (e) => e instanceof TournamentError && e.code === 1001);
  } finally {
    c.close();
  }
});

test("ServerError covers the daemon's own refusals", () => {
  assert.ok(new ServerError(-32012, "budget", { request_budget_ms: 1 }) instanceof GoswissError);
});
