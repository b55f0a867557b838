// Shared by the tests: the live daemons' URLs (GOSWISS_URL, and GOSWISS_AUTH_URL with auth on,
// set by tests/it/clients/typescript_client.rs), and a TCP proxy that can cut connections.

import net from "node:net";

export function daemonUrl() {
  const u = process.env.GOSWISS_URL;
  if (!u) throw new Error("GOSWISS_URL is not set: run through `cargo test --test it clients::typescript_client`");
  return u;
}

/** The daemon with auth on and open_creation (GOSWISS_AUTH_URL, set by the same Rust test):
 * anyone creates and gets the director token; writes need it. */
export function authUrl() {
  const u = process.env.GOSWISS_AUTH_URL;
  if (!u) throw new Error("GOSWISS_AUTH_URL is not set: run through `cargo test --test it clients::typescript_client`");
  return u;
}

export async function players(c, tid, n, prefix = "P") {
  const ranks = ["5d", "3d", "1d", "1k", "3k", "5k", "8k", "12k"];
  const ids = [];
  for (let k = 0; k < n; k++) {
    const r = await c.tournamentPlayerAdd(tid, { name: `${prefix}${k}`, first_name: "T", rank: ranks[k % ranks.length] });
    ids.push(r.player_id);
  }
  return ids;
}

/** Forwards 127.0.0.1:<port> to the daemon; cut() drops every open connection, and while
 * `refusing` new ones are closed at once. */
export class Proxy {
  constructor(target) {
    const u = new URL(target);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.sockets = new Set();
    this.accepted = 0;
    /** While true, new connections are closed at once. */
    this.refusing = false;
  }

  start() {
    this.server = net.createServer((down) => {
      this.accepted++;
      if (this.refusing) {
        down.destroy();
        return;
      }
      const up = net.connect(this.port, this.host);
      this.sockets.add(down);
      this.sockets.add(up);
      down.pipe(up);
      up.pipe(down);
      const end = () => {
        down.destroy();
        up.destroy();
        this.sockets.delete(down);
        this.sockets.delete(up);
      };
      down.on("error", end).on("close", end);
      up.on("error", end).on("close", end);
    });
    return new Promise((resolve) =>
      this.server.listen(0, "127.0.0.1", () => resolve(`ws://127.0.0.1:${this.server.address().port}/`)),
    );
  }

  cut() {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  close() {
    this.cut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Waits until `f()` is true, polling, within a generous bound only a hang reaches. */
export async function until(f, what, limitMs = 60000) {
  const end = Date.now() + limitMs;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
