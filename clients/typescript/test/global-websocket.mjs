// Run by websocket.test.mjs in a Node with globalThis.WebSocket: the client must use it
// (not the built-in one), for calls and a subscription (with the token on its upgrade).
import assert from "node:assert/strict";
import { Client, NodeWebSocket } from "../dist/src/index.js";
import { daemonUrl, players } from "./helpers.mjs";

const standIn = process.env.GOSWISS_STAND_IN_WEBSOCKET === "1";
if (standIn) {
  // A browser-shaped WebSocket (url, protocols-or-init) for a Node without one.
  globalThis.WebSocket = class extends NodeWebSocket {
    constructor(url, init) {
      super(url, { headers: init && init.headers });
    }
  };
}
assert.equal(typeof globalThis.WebSocket, "function");
const Native = globalThis.WebSocket;
let native = 0;
globalThis.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    native++;
    assert.ok(standIn || !(this instanceof NodeWebSocket));
  }
};
const http = new Client(daemonUrl());
const c = new Client(daemonUrl().replace(/^http/, "ws"));
const t = await http.tournamentCreate({ name: "Native", rounds: 1 });
http.useToken(t.director_token);
c.useToken(t.director_token);
assert.deepEqual(await Promise.all([c.systemEcho("a"), c.systemEcho("b")]), ["a", "b"]);
const sub = await c.subscribe(t.id).start();
await players(http, t.id, 3);
let n = 0;
for await (const e of sub) {
  assert.equal(e.revision, n + 2);
  if (++n === 3) break;
}
assert.equal(native, 1);
c.close();
console.log(`global WebSocket (${standIn ? "stand-in" : "native"}) ok: ${n} events`);
