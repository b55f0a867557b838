// The built-in RFC 6455 client (NodeWebSocket) against a scripted server: masking of what
// it sends, fragmented messages, ping/pong, close, the bounded frame size; and the client
// on the platform's own WebSocket where Node has one (--experimental-websocket on Node 20).

import test from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import crypto from "node:crypto";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { NodeWebSocket, Client } from "../dist/src/index.js";
import { daemonUrl } from "./helpers.mjs";

function frame(opcode, payload, fin = true) {
  const body = Buffer.from(payload);
  const n = body.length;
  const head = n < 126 ? Buffer.from([(fin ? 0x80 : 0) | opcode, n]) : Buffer.from([(fin ? 0x80 : 0) | opcode, 126, n >> 8, n & 255]);
  return Buffer.concat([head, body]);
}

/** Reads the client's frames: every one must be masked (RFC 6455 5.3). */
function parseClientFrames(buf) {
  const out = [];
  let off = 0;
  while (buf.length - off >= 2) {
    const opcode = buf[off] & 15;
    const masked = (buf[off + 1] & 0x80) !== 0;
    let len = buf[off + 1] & 127;
    let head = 2;
    if (len === 126) {
      len = buf.readUInt16BE(off + 2);
      head = 4;
    }
    if (buf.length - off < head + 4 + len) break;
    const mask = buf.subarray(off + head, off + head + 4);
    const data = Buffer.alloc(len);
    for (let k = 0; k < len; k++) data[k] = buf[off + head + 4 + k] ^ mask[k & 3];
    out.push({ opcode, masked, data });
    off += head + 4 + len;
  }
  return { frames: out, rest: buf.subarray(off) };
}

/** A server that completes the handshake and hands the socket to `script`. */
async function scripted(script) {
  const server = http.createServer((req, res) => res.writeHead(400).end());
  server.on("upgrade", (req, socket) => {
    const accept = crypto
      .createHash("sha1")
      .update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
      .digest("base64");
    socket.write(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${accept}\r\nX-Auth: ${req.headers.authorization ?? ""}\r\n\r\n`,
    );
    let buf = Buffer.alloc(0);
    const frames = [];
    const waiters = [];
    socket.on("data", (d) => {
      buf = Buffer.concat([buf, d]);
      const r = parseClientFrames(buf);
      buf = r.rest;
      frames.push(...r.frames);
      for (const w of waiters.splice(0)) w();
    });
    socket.on("error", () => undefined);
    const next = async () => {
      while (!frames.length) await new Promise((r) => waiters.push(r));
      return frames.shift();
    };
    script(socket, next, req);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `ws://127.0.0.1:${server.address().port}/` };
}

function opened(ws) {
  const messages = [];
  const state = { messages, closed: null, waiters: [] };
  const wake = () => state.waiters.splice(0).forEach((w) => w());
  ws.onmessage = (e) => {
    messages.push(e.data);
    wake();
  };
  state.wait = async (f) => {
    const end = Date.now() + 30000;
    while (!f()) {
      if (Date.now() > end) throw new Error("timed out");
      await new Promise((r) => {
        state.waiters.push(r);
        setTimeout(r, 100);
      });
    }
  };
  let open = false;
  return new Promise((resolve, reject) => {
    ws.onopen = () => {
      open = true;
      resolve(state);
    };
    // Messages and the close may follow the opening at once: recorded from the start.
    ws.onclose = (e) => {
      state.closed = e;
      wake();
      if (!open) reject(new Error(`closed ${e.code} ${e.reason}`));
    };
  });
}

test("built-in WebSocket: masked text frames out, fragmented messages and pings in, close", async () => {
  let serverSide;
  const { server, url } = await scripted(async (socket, next, req) => {
    serverSide = { req };
    const first = await next();
    serverSide.first = first;
    // Fragmented: text + continuation + continuation, with a ping between fragments.
    socket.write(Buffer.concat([frame(1, "héllo ", false), frame(9, "p1"), frame(0, "wor", false), frame(0, "ld")]));
    serverSide.pong = await next();
    // A 200-byte message (16-bit length) split across writes.
    const big = frame(1, "x".repeat(200));
    socket.write(big.subarray(0, 3));
    setTimeout(() => socket.write(big.subarray(3)), 20);
    serverSide.close = await next();
    socket.write(frame(8, Buffer.from([0x03, 0xe8])));
    socket.end();
  });
  try {
    const ws = new NodeWebSocket(url, { headers: { Authorization: "Bearer T0K" } });
    const s = await opened(ws);
    ws.send("ünï");
    await s.wait(() => s.messages.length === 2);
    assert.deepEqual(s.messages, ["héllo world", "x".repeat(200)]);
    ws.close(1000, "bye");
    await s.wait(() => s.closed !== null);
    assert.equal(s.closed.code, 1000);
    assert.equal(serverSide.req.headers.authorization, "Bearer T0K");
    assert.ok(serverSide.first.masked && serverSide.pong.masked && serverSide.close.masked);
    assert.equal(serverSide.first.opcode, 1);
    assert.equal(serverSide.first.data.toString(), "ünï");
    assert.equal(serverSide.pong.opcode, 10);
    assert.equal(serverSide.pong.data.toString(), "p1");
    assert.equal(serverSide.close.opcode, 8);
    assert.equal(serverSide.close.data.readUInt16BE(0), 1000);
  } finally {
    server.close();
  }
});

test("built-in WebSocket: a frame or message over maxMessageBytes closes with 1009", async () => {
  for (const split of [false, true]) {
    let closeFrame;
    const { server, url } = await scripted(async (socket, next) => {
      if (split) socket.write(Buffer.concat([frame(1, "a".repeat(60), false), frame(0, "b".repeat(60))]));
      else socket.write(frame(1, "z".repeat(300)));
      closeFrame = await next();
    });
    try {
      const ws = new NodeWebSocket(url, { maxMessageBytes: 100 });
      const s = await opened(ws);
      await s.wait(() => s.closed !== null);
      assert.equal(s.closed.code, 1009);
      assert.deepEqual(s.messages, []);
      await s.wait(() => closeFrame !== undefined);
      assert.equal(closeFrame.opcode, 8);
      assert.equal(closeFrame.data.readUInt16BE(0), 1009);
    } finally {
      server.close();
    }
  }
});

test("built-in WebSocket: a refused upgrade or a bad accept key fails the connection", async () => {
  const plain = http.createServer((req, res) => res.writeHead(403).end("no"));
  await new Promise((r) => plain.listen(0, "127.0.0.1", r));
  try {
    const ws = new NodeWebSocket(`ws://127.0.0.1:${plain.address().port}/`);
    await assert.rejects(opened(ws), /HTTP 403/);
  } finally {
    plain.close();
  }
  const liar = http.createServer();
  liar.on("upgrade", (req, socket) => {
    socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: AAAA\r\n\r\n");
  });
  await new Promise((r) => liar.listen(0, "127.0.0.1", r));
  try {
    const ws = new NodeWebSocket(`ws://127.0.0.1:${liar.address().port}/`);
    await assert.rejects(opened(ws), /Sec-WebSocket-Accept/);
  } finally {
    liar.close();
  }
});

test("the client on a WebSocket implementation passed in the options", async () => {
  let made = 0;
  const c = new Client(daemonUrl().replace(/^http/, "ws"), {
    WebSocket: {
      factory: (url, headers, max) => {
        made++;
        return new NodeWebSocket(url, { headers, maxMessageBytes: max });
      },
    },
  });
  try {
    assert.deepEqual(await Promise.all([c.systemEcho(1), c.systemEcho(2)]), [1, 2]);
    assert.equal(made, 1);
  } finally {
    c.close();
  }
});

test("the client on the platform's WebSocket (globalThis.WebSocket)", () => {
  // Node 22 has one; Node 20 with --experimental-websocket. Node 18 (Debian 12's) has none:
  // there a browser-shaped stand-in is put in globalThis.WebSocket, to show the client takes
  // whatever is there.
  const flags = typeof globalThis.WebSocket === "function" ? [] : ["--experimental-websocket"];
  const probe = spawnSync(process.execPath, [...flags, "-e", "process.exit(typeof WebSocket === 'function' ? 0 : 3)"]);
  const native = probe.status === 0;
  const script = fileURLToPath(new URL("./global-websocket.mjs", import.meta.url));
  const run = spawnSync(process.execPath, [...(native ? flags : []), script], {
    env: { ...process.env, GOSWISS_STAND_IN_WEBSOCKET: native ? "" : "1" },
    encoding: "utf8",
    timeout: 120000,
  });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, native ? /global WebSocket \(native\) ok: 3 events/ : /global WebSocket \(stand-in\) ok: 3 events/);
});
