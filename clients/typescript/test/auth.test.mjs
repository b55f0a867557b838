// The director token against a daemon with auth on (open_creation: anyone creates and gets
// the new tournament's director token): a write without it, or with another tournament's,
// is refused with the typed error (ServerError, ErrorCode.Unauthorized); with it, it passes.

import test from "node:test";
import assert from "node:assert/strict";
import { Client, ErrorCode, GoswissError, ServerError } from "../dist/src/index.js";
import { authUrl } from "./helpers.mjs";

const HTTP = authUrl();
const WS = HTTP.replace(/^http/, "ws");
const PLAYER = { name: "Lee", first_name: "A", rank: "3d" };

function unauthorized(e) {
  assert.ok(e instanceof ServerError && e instanceof GoswissError, String(e));
  assert.equal(e.code, ErrorCode.Unauthorized);
  assert.equal(e.codeName, "Unauthorized");
  return true;
}

for (const [label, url] of [
  ["http", HTTP],
  ["websocket", WS],
]) {
  test(`a write needs the director token over ${label}`, async () => {
    const c = new Client(url);
    try {
      const t = await c.tournamentCreate({ name: `Auth ${label}`, rounds: 2 });
      const other = await c.tournamentCreate({ name: `Other ${label}`, rounds: 2 });
      assert.equal(typeof t.director_token, "string");
      await assert.rejects(c.tournamentPlayerAdd(t.id, PLAYER), unauthorized);
      c.useToken(other.director_token);
      await assert.rejects(c.tournamentPlayerAdd(t.id, PLAYER), unauthorized);
      // Reads stay open, and the refused writes changed nothing.
      assert.equal((await c.tournamentGet(t.id)).revision, 1);
      c.useToken(t.director_token);
      const added = await c.tournamentPlayerAdd(t.id, PLAYER);
      assert.equal(added.revision, 2);
      assert.deepEqual(
        (await c.tournamentPlayerList(t.id)).map((p) => p.name),
        ["Lee"],
      );
      c.useToken(null);
      await assert.rejects(c.tournamentDelete(t.id), unauthorized);
    } finally {
      c.close();
    }
  });
}

test("the token given to the constructor is sent", async () => {
  const anon = new Client(HTTP);
  const t = await anon.tournamentCreate({ name: "Auth options", rounds: 1 });
  const c = new Client(WS, { token: t.director_token });
  try {
    assert.equal((await c.tournamentPlayerAdd(t.id, PLAYER)).revision, 2);
  } finally {
    c.close();
    anon.close();
  }
});
