// A small RFC 6455 WebSocket client over node:http's upgrade, for Node 18/20 where there is
// no globalThis.WebSocket: text frames (masked, as a client must), fragmented messages,
// ping/pong, close; a message or frame over `maxMessageBytes` closes the connection (1009).
// It has the browser WebSocket's shape as far as the client uses it (on* handlers,
// readyState, send, close), so the client drives either the same way.

import type { WebSocketLike } from "./transport.js";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

export interface NodeWebSocketOptions {
  headers?: Record<string, string>;
  /** Largest message (and frame) accepted, in bytes. */
  maxMessageBytes?: number;
  /** Milliseconds the opening handshake may take. */
  openTimeoutMs?: number;
}

type Sock = import("node:http").Socket;

export class NodeWebSocket implements WebSocketLike {
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;

  private socket: Sock | null = null;
  private buf: Uint8Array = new Uint8Array(0);
  private parts: Uint8Array[] = [];
  private partsBytes = 0;
  private fragmented = false;
  private closeSent = false;
  private closed = false;
  private readonly max: number;

  constructor(url: string, options: NodeWebSocketOptions = {}) {
    this.max = options.maxMessageBytes ?? 64 << 20;
    void this.open(url, options).catch((e: unknown) => this.fail(1006, String(e)));
  }

  private async open(url: string, options: NodeWebSocketOptions): Promise<void> {
    const u = new URL(url);
    const secure = u.protocol === "wss:" || u.protocol === "https:";
    u.protocol = secure ? "https:" : "http:";
    const http = secure ? await import("node:https") : await import("node:http");
    const crypto = await import("node:crypto");
    const key = btoaBytes(crypto.randomFillSync(new Uint8Array(16)));
    const expected = crypto.createHash("sha1").update(key + GUID).digest("base64");
    this.mask = (b) => crypto.randomFillSync(b);
    const req = http.request(u.toString(), {
      method: "GET",
      headers: {
        ...(options.headers ?? {}),
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": key,
      },
    });
    req.setTimeout(options.openTimeoutMs ?? 30000, () => {
      req.destroy();
      this.fail(1006, "opening handshake timed out");
    });
    req.on("error", (e) => this.fail(1006, e.message));
    req.on("response", (res) => {
      res.resume();
      this.fail(1006, `server answered HTTP ${res.statusCode ?? "?"} instead of switching to WebSocket`);
    });
    req.on("upgrade", (res, socket, head) => {
      if (res.headers["sec-websocket-accept"] !== expected) {
        socket.destroy();
        this.fail(1006, "bad Sec-WebSocket-Accept in the handshake");
        return;
      }
      if (this.closed) {
        socket.destroy();
        return;
      }
      this.socket = socket;
      socket.setNoDelay(true);
      socket.on("data", (chunk) => this.receive(chunk));
      socket.on("error", () => this.fail(1006, "connection error"));
      socket.on("close", () => this.fail(1006, "connection closed"));
      this.readyState = 1;
      this.onopen?.({});
      if (head.length) this.receive(head);
    });
    req.end();
  }

  private mask: (b: Uint8Array) => Uint8Array = (b) => b;

  send(data: string): void {
    if (this.readyState !== 1 || !this.socket) throw new Error("WebSocket is not open");
    this.frame(1, encoder.encode(data));
  }

  close(code = 1000, reason = ""): void {
    if (this.closed) return;
    if (this.readyState === 1 && this.socket && !this.closeSent) {
      const r = encoder.encode(reason).subarray(0, 123);
      const body = new Uint8Array(2 + r.length);
      body[0] = code >> 8;
      body[1] = code & 255;
      body.set(r, 2);
      this.frame(8, body);
      this.closeSent = true;
      this.readyState = 2;
      // The server answers with its close and ends the TCP connection; if it does not, end it.
      const s = this.socket;
      setTimeout(() => s.destroy(), 2000);
    } else {
      this.socket?.destroy();
      this.fail(code, reason);
    }
  }

  private frame(opcode: number, payload: Uint8Array): void {
    const n = payload.length;
    const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
    const out = new Uint8Array(head + 4 + n);
    out[0] = 0x80 | opcode;
    if (n < 126) out[1] = 0x80 | n;
    else if (n < 65536) {
      out[1] = 0x80 | 126;
      out[2] = n >> 8;
      out[3] = n & 255;
    } else {
      out[1] = 0x80 | 127;
      new DataView(out.buffer).setBigUint64(2, BigInt(n));
    }
    const mask = this.mask(out.subarray(head, head + 4));
    for (let k = 0; k < n; k++) out[head + 4 + k] = payload[k] ^ mask[k & 3];
    this.socket?.write(out);
  }

  private receive(chunk: Uint8Array): void {
    if (this.buf.length) {
      const joined = new Uint8Array(this.buf.length + chunk.length);
      joined.set(this.buf);
      joined.set(chunk, this.buf.length);
      this.buf = joined;
    } else this.buf = chunk;
    let off = 0;
    const b = this.buf;
    while (!this.closed) {
      if (b.length - off < 2) break;
      const fin = (b[off] & 0x80) !== 0;
      const opcode = b[off] & 0x0f;
      if (b[off + 1] & 0x80) return this.protocolError(1002, "masked frame from the server");
      let len = b[off + 1] & 0x7f;
      let head = 2;
      if (len === 126) {
        if (b.length - off < 4) break;
        len = (b[off + 2] << 8) | b[off + 3];
        head = 4;
      } else if (len === 127) {
        if (b.length - off < 10) break;
        const big = new DataView(b.buffer, b.byteOffset + off + 2, 8).getBigUint64(0);
        if (big > BigInt(this.max)) return this.protocolError(1009, "frame too big");
        len = Number(big);
        head = 10;
      }
      if (len > this.max) return this.protocolError(1009, "frame too big");
      if (b.length - off < head + len) break;
      const payload = b.subarray(off + head, off + head + len);
      off += head + len;
      this.handle(fin, opcode, payload);
    }
    this.buf = off >= b.length ? new Uint8Array(0) : b.slice(off);
  }

  private handle(fin: boolean, opcode: number, payload: Uint8Array): void {
    switch (opcode) {
      case 0:
      case 1:
      case 2: {
        if (opcode !== 0 && this.fragmented) return this.protocolError(1002, "new message inside a fragmented one");
        if (opcode === 0 && !this.fragmented) return this.protocolError(1002, "continuation without a message");
        this.partsBytes += payload.length;
        if (this.partsBytes > this.max) return this.protocolError(1009, "message too big");
        this.parts.push(payload.slice());
        this.fragmented = !fin;
        if (!fin) return;
        const whole = this.parts.length === 1 ? this.parts[0] : concat(this.parts, this.partsBytes);
        this.parts = [];
        this.partsBytes = 0;
        let text: string;
        try {
          text = decoder.decode(whole);
        } catch {
          return this.protocolError(1007, "message is not UTF-8");
        }
        this.onmessage?.({ data: text });
        return;
      }
      case 8: {
        const code = payload.length >= 2 ? (payload[0] << 8) | payload[1] : 1005;
        let reason = "";
        try {
          reason = decoder.decode(payload.subarray(2));
        } catch {
          reason = "";
        }
        if (!this.closeSent && this.socket) {
          this.frame(8, payload.subarray(0, 2));
          this.closeSent = true;
        }
        this.socket?.end();
        this.fail(code, reason);
        return;
      }
      case 9:
        if (payload.length > 125) return this.protocolError(1002, "ping over 125 bytes");
        this.frame(10, payload);
        return;
      case 10:
        return;
      default:
        return this.protocolError(1002, `unknown opcode ${opcode}`);
    }
  }

  private protocolError(code: number, reason: string): void {
    if (this.socket && !this.closeSent) {
      this.close(code, reason);
      // end, not destroy: the close frame is still to be flushed.
      this.socket?.end();
    }
    this.fail(code, reason);
  }

  private fail(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.readyState = 3;
    if (code === 1006) this.onerror?.({ message: reason });
    this.onclose?.({ code, reason });
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

function btoaBytes(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s);
}
