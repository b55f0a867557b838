// The client: JSON-RPC 2.0 over fetch (http:// URLs) or over one WebSocket (ws:// URLs), with
// every method of rpc.discover as a typed method (from ./generated.ts), and `subscribe(tid)`,
// an async iterator of a tournament's changes that reconnects and catches up through
// tournament.events so that each event comes once, in order, across cut connections.
//
// Over the WebSocket any number of calls are in flight at once, matched to their replies by
// id. A call whose connection drops rejects with ConnectionLost (it may or may not have been
// done); the next call reconnects.

import { Methods } from "./generated.js";
import type { EventOut, EventsPage } from "./generated.js";
import { ConnectionLost, GoswissError, TransportError, errorFor } from "./errors.js";
import { NodeWebSocket } from "./nodews.js";
import type { WebSocketFactory, WebSocketLike } from "./transport.js";

export interface ClientOptions {
  /** Sent as `Authorization: Bearer TOKEN` (over fetch, and on the WebSocket upgrade where the
   * WebSocket implementation can send headers: not a browser's). */
  token?: string | null;
  /** "http" (fetch) or "websocket"; by default from the URL's scheme. */
  transport?: "http" | "websocket";
  /** Milliseconds a call (or a connection's opening) may take (60000). */
  timeoutMs?: number;
  /** Reconnection backoff for subscriptions, [first, most] milliseconds ([50, 5000]). */
  backoffMs?: [number, number];
  /** Reconnections a subscription tries in a row before giving up (unbounded). */
  maxReconnects?: number | null;
  /** Largest WebSocket message accepted (64 MiB; the built-in implementation enforces it). */
  maxMessageBytes?: number;
  /** A WebSocket implementation: a constructor like the browser's, or a factory. */
  WebSocket?: (new (url: string, protocols?: any) => WebSocketLike) | { factory: WebSocketFactory };
  /** The fetch to use (globalThis.fetch). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

/** The result code a live notification shows, from a stored outcome. */
const OUTCOMES: Record<string, string> = {
  unknown: "?",
  white_wins: "W+",
  black_wins: "B+",
  jigo: "jigo",
  both_win: "both_win",
  both_lose: "both_lose",
};

/** Event kinds after which standings may differ (as the server's `standings_changed`). */
export const STANDINGS_KINDS: ReadonlySet<string> = new Set([
  "settings_changed",
  "player_registered",
  "player_updated",
  "player_withdrawn",
  "participation_set",
  "player_removed",
  "round_paired",
  "game_added",
  "game_removed",
  "players_swapped",
  "round_unpaired",
  "result_set",
]);

/** A revision after every real one: reads the current revision without reading events. */
const NO_EVENTS = 2 ** 52;

/** One change of a tournament, live or read back from its log (`caughtUp`). */
export interface TournamentEvent {
  tournament_id: number;
  kind: string;
  /** The tournament's revision after it (null only on a `deleted` noticed while away). */
  revision: number | null;
  round: number | null;
  standings_changed: boolean;
  table: number | null;
  result: string | null;
  published: boolean | null;
  /** The whole stored event, for events read from the log. */
  event: Record<string, unknown> | null;
  /** Read back from tournament.events (after a reconnect, a lag, or since_revision). */
  caughtUp: boolean;
}

function int(v: unknown): number | null {
  return typeof v === "number" && Number.isInteger(v) ? v : null;
}

function fromNotification(n: Record<string, unknown>): TournamentEvent {
  return {
    tournament_id: int(n.tournament_id) ?? 0,
    kind: typeof n.kind === "string" ? n.kind : "",
    revision: int(n.revision),
    round: int(n.round),
    standings_changed: n.standings_changed === true,
    table: int(n.table),
    result: typeof n.result === "string" ? n.result : null,
    published: typeof n.published === "boolean" ? n.published : null,
    event: null,
    caughtUp: false,
  };
}

function fromLog(tid: number, e: EventOut): TournamentEvent {
  const p = e.event && typeof e.event === "object" ? (e.event as Record<string, unknown>) : {};
  let result: string | null = null;
  if (e.kind === "result_set" && typeof p.outcome === "string") {
    result = (OUTCOMES[p.outcome] ?? "?") + (p.forfeit === true ? "!" : "");
  }
  return {
    tournament_id: tid,
    kind: e.kind,
    revision: int(e.revision),
    round: int(e.round),
    standings_changed: STANDINGS_KINDS.has(e.kind),
    table: e.kind === "result_set" ? int(p.table) : null,
    result,
    published: typeof p.published === "boolean" ? p.published : null,
    event: Object.keys(p).length ? p : null,
    caughtUp: true,
  };
}

const LOST = Symbol("lost");
const STOP = Symbol("stop");
type Item = Record<string, unknown> | typeof LOST | typeof STOP;

/** An unbounded queue a subscription reads its notifications from. */
class Queue {
  private items: Item[] = [];
  private head = 0;
  private waiter: ((v: Item) => void) | null = null;

  put(v: Item): void {
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w(v);
    } else this.items.push(v);
  }

  get(): Promise<Item> {
    if (this.head < this.items.length) {
      const v = this.items[this.head++];
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve(v);
    }
    return new Promise((resolve) => (this.waiter = resolve));
  }
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  queue: Queue | null;
}

/** One WebSocket: calls in flight by id, subscription queues by subscription id. */
class Connection {
  private ids = 1;
  readonly pending = new Map<number, Pending>();
  readonly subs = new Map<unknown, Queue>();
  closed = false;

  constructor(readonly ws: WebSocketLike) {
    ws.onmessage = (ev) => this.dispatch(ev.data);
    ws.onclose = () => this.lost();
    ws.onerror = () => undefined;
  }

  private dispatch(data: unknown): void {
    if (typeof data !== "string") return;
    let m: unknown;
    try {
      m = JSON.parse(data);
    } catch {
      return;
    }
    if (!m || typeof m !== "object" || Array.isArray(m)) return;
    const msg = m as Record<string, unknown>;
    if (!("id" in msg)) {
      const params = msg.params as Record<string, unknown> | undefined;
      if (params && typeof params === "object") {
        const q = this.subs.get(params.subscription);
        const r = params.result;
        if (q && r && typeof r === "object") q.put(r as Record<string, unknown>);
      }
      return;
    }
    const id = msg.id;
    const entry = typeof id === "number" ? this.pending.get(id) : undefined;
    if (!entry) return;
    this.pending.delete(id as number);
    const err = msg.error as Record<string, unknown> | undefined;
    if (err && typeof err === "object") {
      entry.reject(errorFor(typeof err.code === "number" ? err.code : 0, String(err.message ?? ""), err.data));
      return;
    }
    // Registered before the caller resumes: notifications right behind the reply find it.
    if (entry.queue) this.subs.set(msg.result, entry.queue);
    entry.resolve(msg.result);
  }

  lost(): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.pending.values()) p.reject(new ConnectionLost("connection lost with the call in flight"));
    this.pending.clear();
    for (const q of this.subs.values()) q.put(LOST);
    this.subs.clear();
  }

  call(method: string, params: unknown[], timeoutMs: number, queue: Queue | null = null): Promise<unknown> {
    if (this.closed) return Promise.reject(new ConnectionLost(`${method}: connection closed`));
    const id = this.ids++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new TransportError(`${method}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = <T>(f: (v: T) => void) => (v: T) => {
        clearTimeout(timer);
        f(v);
      };
      this.pending.set(id, { resolve: done(resolve), reject: done(reject), queue });
      try {
        this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      } catch (e) {
        this.pending.delete(id);
        clearTimeout(timer);
        reject(new ConnectionLost(`${method}: ${String(e)}`));
      }
    });
  }
}

function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return !!(p && p.versions && p.versions.node);
}

/** A goswiss client; `new Client("http://127.0.0.1:9090/")` or `new Client("ws://…")`. */
export class Client extends Methods {
  readonly url: string;
  readonly wsUrl: string;
  token: string | null;
  readonly transport: "http" | "websocket";
  timeoutMs: number;
  backoffMs: [number, number];
  maxReconnects: number | null;
  /** WebSocket connections opened so far (1 + reconnects). */
  connects = 0;
  private readonly maxMessageBytes: number;
  private readonly makeSocket: WebSocketFactory;
  private readonly fetchImpl: ((input: string, init: RequestInit) => Promise<Response>) | null;
  private conn: Connection | null = null;
  private connecting: Promise<Connection> | null = null;
  private closedByUser = false;
  private httpIds = 1;

  constructor(url = "http://127.0.0.1:9090/", options: ClientOptions = {}) {
    super();
    const ws = /^wss?:/i.test(url);
    this.url = ws ? url.replace(/^ws/i, "http") : url;
    this.wsUrl = ws ? url : url.replace(/^http/i, "ws");
    this.transport = options.transport ?? (ws ? "websocket" : "http");
    this.token = options.token ?? null;
    this.timeoutMs = options.timeoutMs ?? 60000;
    this.backoffMs = options.backoffMs ?? [50, 5000];
    this.maxReconnects = options.maxReconnects ?? null;
    this.maxMessageBytes = options.maxMessageBytes ?? 64 << 20;
    const given = options.fetch ?? (typeof globalThis.fetch === "function" ? globalThis.fetch.bind(globalThis) : null);
    this.fetchImpl = given;
    this.makeSocket = socketFactory(options.WebSocket);
  }

  /** Sends `Authorization: Bearer token` from now on (a WebSocket is reopened with it). */
  useToken(token: string | null): void {
    this.token = token;
    const c = this.conn;
    this.conn = null;
    if (c) c.ws.close();
  }

  /** Closes the WebSocket; live subscriptions end. */
  close(): void {
    this.closedByUser = true;
    const c = this.conn;
    this.conn = null;
    if (c) {
      c.ws.close();
      c.lost();
    }
  }

  /** Calls any method with positional parameters; resolves to its result as sent. */
  call(method: string, ...params: unknown[]): Promise<unknown> {
    return this._call(method, params);
  }

  protected _call(method: string, params: unknown[]): Promise<unknown> {
    return this.transport === "websocket" ? this.callWs(method, params) : this.callHttp(method, params);
  }

  private async callWs(method: string, params: unknown[], queue: Queue | null = null): Promise<unknown> {
    const c = await this.connection();
    return c.call(method, params, this.timeoutMs, queue);
  }

  private async callHttp(method: string, params: unknown[]): Promise<unknown> {
    if (!this.fetchImpl) throw new TransportError("no fetch: pass ClientOptions.fetch");
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const body = JSON.stringify({ jsonrpc: "2.0", id: this.httpIds++, method, params });
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.timeoutMs);
    let text: string;
    let status: number;
    try {
      const res = await this.fetchImpl(this.url, { method: "POST", headers, body, signal: abort.signal });
      status = res.status;
      text = await res.text();
    } catch (e) {
      throw new TransportError(`${method}: ${this.url}: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      clearTimeout(timer);
    }
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      throw new TransportError(`${method}: HTTP ${status}, not JSON: ${text.slice(0, 200)}`);
    }
    if (!reply || typeof reply !== "object") throw new TransportError(`${method}: HTTP ${status}: ${text.slice(0, 200)}`);
    const r = reply as Record<string, unknown>;
    const err = (r.error ?? (typeof r.code === "number" ? r : undefined)) as Record<string, unknown> | undefined;
    if (err && typeof err === "object") {
      throw errorFor(typeof err.code === "number" ? err.code : 0, String(err.message ?? ""), err.data);
    }
    if (!("result" in r)) throw new TransportError(`${method}: HTTP ${status}, no result: ${text.slice(0, 200)}`);
    return r.result;
  }

  /** The open WebSocket connection, opening one if need be. */
  private connection(): Promise<Connection> {
    if (this.conn && !this.conn.closed) return Promise.resolve(this.conn);
    if (this.closedByUser) return Promise.reject(new TransportError(`${this.wsUrl}: the client is closed`));
    if (!this.connecting) {
      this.connecting = this.open().finally(() => (this.connecting = null));
    }
    return this.connecting;
  }

  private open(): Promise<Connection> {
    const headers: Record<string, string> = {};
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    return new Promise((resolve, reject) => {
      let ws: WebSocketLike;
      try {
        ws = this.makeSocket(this.wsUrl, headers, this.maxMessageBytes);
      } catch (e) {
        reject(new TransportError(`cannot connect to ${this.wsUrl}: ${String(e)}`));
        return;
      }
      const timer = setTimeout(() => {
        ws.close();
        reject(new TransportError(`cannot connect to ${this.wsUrl}: timed out`));
      }, this.timeoutMs);
      ws.onopen = () => {
        clearTimeout(timer);
        const c = new Connection(ws);
        this.conn = c;
        this.connects++;
        resolve(c);
      };
      ws.onclose = (ev) => {
        clearTimeout(timer);
        reject(new TransportError(`cannot connect to ${this.wsUrl}: ${ev.reason || "closed"} (${ev.code})`));
      };
      ws.onerror = () => undefined;
    });
  }

  /** Waits before a subscription's reconnection `attempt` (1, 2, …): exponential, jittered. */
  private async reconnectWait(attempt: number): Promise<void> {
    if (this.maxReconnects !== null && attempt > this.maxReconnects) {
      throw new TransportError(`${this.wsUrl}: gave up after ${this.maxReconnects} reconnects`);
    }
    const [low, high] = this.backoffMs;
    const delay = Math.min(high, low * 2 ** Math.min(attempt - 1, 30));
    await new Promise((r) => setTimeout(r, delay * (0.5 + Math.random() / 2)));
  }

  /**
   * Every change of the tournament after `sinceRevision` (default: its revision when the
   * subscription starts), each once, in revision order, across reconnects; ends after its
   * `deleted` event. `for await (const e of client.subscribe(tid))` starts it at the first
   * iteration; `await sub.start()` starts it at once (so changes made right after are sure
   * to be seen). Either rejects with TournamentError 1001 if there is no such tournament.
   */
  subscribe(tournamentId: number, sinceRevision: number | null = null): Subscription {
    return new Subscription(this, tournamentId, sinceRevision, {
      subscribe: (queue) => this.callWs("tournament.subscribe", [tournamentId], queue),
      unsubscribe: async (id) => {
        const c = this.conn;
        if (!c || c.closed) return;
        c.subs.delete(id);
        await c.call("tournament.unsubscribe", [id], this.timeoutMs);
      },
      connection: () => this.conn,
      wait: (attempt) => this.reconnectWait(attempt),
      closed: () => this.closedByUser,
    });
  }
}

interface SubscriptionHooks {
  subscribe(queue: Queue): Promise<unknown>;
  unsubscribe(id: unknown): Promise<void>;
  connection(): Connection | null;
  wait(attempt: number): Promise<void>;
  closed(): boolean;
}

/** A live subscription to one tournament: an async iterator of TournamentEvent. */
export class Subscription implements AsyncIterable<TournamentEvent> {
  /** The last revision yielded (before any: the one to start after). */
  last: number | null;
  /** Times it subscribed again after its connection was lost. */
  reconnects = 0;
  private queue = new Queue();
  private subId: unknown = null;
  private conn: Connection | null = null;
  private started = false;
  private live = false;
  private behind = false;
  private done = false;
  private readonly events: AsyncGenerator<TournamentEvent, void, undefined>;

  constructor(
    readonly client: Client,
    readonly tournamentId: number,
    since: number | null,
    private readonly hooks: SubscriptionHooks,
  ) {
    this.last = since;
    this.events = this.run();
  }

  /** Subscribes now (rather than at the first iteration). */
  async start(): Promise<this> {
    if (!this.started) {
      await this.open();
      this.started = true;
    }
    return this;
  }

  [Symbol.asyncIterator](): AsyncGenerator<TournamentEvent, void, undefined> {
    return this.events;
  }

  next(): Promise<IteratorResult<TournamentEvent, void>> {
    return this.events.next();
  }

  /** Ends the subscription (as leaving a `for await` loop by `break` does). */
  async close(): Promise<void> {
    this.done = true;
    // Wakes a pending next() (which then ends), so that return() is not queued behind it.
    this.queue.put(STOP);
    await this.events.return(undefined);
    await this.unsubscribe();
  }

  private async open(): Promise<void> {
    this.queue = new Queue();
    this.subId = await this.hooks.subscribe(this.queue);
    this.conn = this.hooks.connection();
    this.live = true;
    // Subscribed before reading the log, so nothing falls between the two. With no
    // revision to start after, the live notifications are all there is to read.
    this.behind = this.last !== null;
    if (this.last === null) {
      const page = await this.client.tournamentEvents(this.tournamentId, NO_EVENTS);
      this.last = int(page.revision) ?? 0;
    }
  }

  private async *run(): AsyncGenerator<TournamentEvent, void, undefined> {
    const tid = this.tournamentId;
    let attempt = 0;
    try {
      while (!this.done) {
        try {
          if (!this.started) {
            await this.open();
            this.started = true;
          } else if (!this.live) {
            await this.open();
            this.reconnects++;
          }
          attempt = 0;
          if (this.behind) {
            yield* this.catchUp(null);
            this.behind = false;
          }
          for (;;) {
            const item = await this.queue.get();
            if (item === STOP) return;
            if (item === LOST) throw new ConnectionLost("subscription's connection lost");
            const ev = fromNotification(item);
            if (ev.kind === "lagged") {
              yield* this.catchUp(null);
              continue;
            }
            if (ev.kind === "deleted") {
              this.done = true;
              yield ev;
              return;
            }
            const last = this.last ?? 0;
            if (ev.revision === null || ev.revision <= last) continue; // already read back
            // A gap (not expected on one connection): read what lies between.
            if (ev.revision > last + 1) yield* this.catchUp(ev.revision - 1);
            this.last = ev.revision;
            yield ev;
          }
        } catch (e) {
          if (e instanceof GoswissError && e.code === 1001) {
            if (!this.started) throw e;
            // Deleted while we were away: say so, as a live subscriber would have heard.
            this.done = true;
            yield { ...fromNotification({ tournament_id: tid, kind: "deleted" }), revision: null };
            return;
          }
          if (!(e instanceof TransportError)) throw e;
          this.live = false;
          if (this.hooks.closed()) return;
          attempt++;
          await this.hooks.wait(attempt);
        }
      }
    } finally {
      await this.unsubscribe();
    }
  }

  private async unsubscribe(): Promise<void> {
    const conn = this.conn;
    this.conn = null;
    if (!conn || conn.closed || this.subId === null || conn !== this.hooks.connection()) return;
    try {
      await this.hooks.unsubscribe(this.subId);
    } catch {
      // Gone with its connection, or already unsubscribed: nothing to undo.
    }
  }

  /** The stored events after `last` (up to `until`), page by page. */
  private async *catchUp(until: number | null): AsyncGenerator<TournamentEvent, void, undefined> {
    const tid = this.tournamentId;
    while (until === null || (this.last ?? 0) < until) {
      const page: EventsPage = await this.client.tournamentEvents(tid, this.last ?? 0);
      if (!Array.isArray(page.events)) throw new TransportError("tournament.events: no events list");
      let moved = false;
      for (const raw of page.events) {
        const e = fromLog(tid, raw);
        if (e.revision === null || e.revision <= (this.last ?? 0)) continue;
        if (until !== null && e.revision > until) return;
        this.last = e.revision;
        moved = true;
        yield e;
      }
      if (!page.more || !moved) return;
    }
  }
}

function socketFactory(given: ClientOptions["WebSocket"]): WebSocketFactory {
  if (given && "factory" in given) return given.factory;
  if (given) {
    const Ctor = given;
    return (url) => new Ctor(url);
  }
  const Global = (globalThis as { WebSocket?: new (url: string, protocols?: any) => WebSocketLike }).WebSocket;
  if (Global) {
    // Node's WebSocket (undici) takes headers in its second argument; a browser's cannot
    // send any (its session then carries no token: use the HTTP transport for writes).
    return (url, headers) =>
      isNode() && Object.keys(headers).length ? new Global(url, { headers }) : new Global(url);
  }
  return (url, headers, maxMessageBytes) => new NodeWebSocket(url, { headers, maxMessageBytes });
}
