#!/usr/bin/env node
// Calls per second of the TypeScript client: pipelined `system.echo` over one WebSocket.
//
//   tsc -p clients/typescript && node clients/typescript/bench/echo.mjs \
//       --url ws://127.0.0.1:9090/ [--calls 200000] [--depth 256] [--json]
//
// `--depth` calls are kept in flight at once (each of that many workers waits for its reply
// before sending the next). Prints calls/s over the wall clock and the process's CPU
// seconds, and checks every reply is its own request's value.

import { Client } from "../dist/src/index.js";

const args = { url: "ws://127.0.0.1:9090/", calls: 200000, depth: 256, json: false };
const argv = process.argv.slice(2);
for (let k = 0; k < argv.length; k++) {
  const a = argv[k];
  if (a === "--json") args.json = true;
  else if (a === "--url") args.url = argv[++k];
  else if (a === "--calls" || a === "--depth") args[a.slice(2)] = Number(argv[++k]);
  else throw new Error(`unknown argument ${a}`);
}
if (!(args.calls >= 1 && args.depth >= 1)) throw new Error("--calls and --depth must be at least 1");
const depth = Math.min(args.depth, args.calls);

const c = new Client(args.url, { transport: "websocket" });
if ((await c.systemEcho("warm-up")) !== "warm-up") throw new Error("warm-up");
const per = Math.floor(args.calls / depth);
const extra = args.calls % depth;
const worker = async (k) => {
  const n = per + (k < extra ? 1 : 0);
  for (let i = 0; i < n; i++) {
    const got = await c.systemEcho([k, i]); // the size of the Rust replay client's [17, 42]
    if (!Array.isArray(got) || got[0] !== k || got[1] !== i) throw new Error(`echo [${k}, ${i}] came back as ${JSON.stringify(got)}`);
  }
};
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await Promise.all(Array.from({ length: depth }, (_, k) => worker(k)));
const wall = (performance.now() - t0) / 1000;
const cpuUs = process.cpuUsage(cpu0);
const cpu = (cpuUs.user + cpuUs.system) / 1e6;
c.close();
const r = {
  calls: args.calls,
  depth,
  seconds: Math.round(wall * 1000) / 1000,
  calls_per_second: Math.round(args.calls / wall),
  client_cpu_seconds: Math.round(cpu * 1000) / 1000,
  calls_per_client_cpu_second: cpu > 0 ? Math.round(args.calls / cpu) : 0,
  websocket: typeof globalThis.WebSocket === "function" ? "globalThis.WebSocket" : "built-in",
};
if (args.json) console.log(JSON.stringify(r));
else
  console.log(
    `${r.calls} calls, depth ${r.depth} (${r.websocket}): ${r.seconds} s, ${r.calls_per_second} calls/s; ` +
      `client CPU ${r.client_cpu_seconds} s (${r.calls_per_client_cpu_second} calls per CPU second)`,
  );
