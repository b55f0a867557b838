// goswiss: a typed client for the goswiss daemon (JSON-RPC over fetch or one WebSocket),
// for Node (18+) and browsers. See README.md.

export * from "./generated.js";
export * from "./errors.js";
export { Client, Subscription, STANDINGS_KINDS } from "./client.js";
export type { ClientOptions, TournamentEvent } from "./client.js";
export { NodeWebSocket } from "./nodews.js";
export type { NodeWebSocketOptions } from "./nodews.js";
export type { WebSocketLike, WebSocketFactory } from "./transport.js";
