// What the client needs of a WebSocket: the browser's (and Node 22's) WebSocket has it, as
// does the built-in NodeWebSocket and any implementation passed in ClientOptions.WebSocket.

export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((ev: any) => void) | null;
  onmessage: ((ev: { data: any }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: any) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** Makes a WebSocket to `url`, sending `headers` on the upgrade where it can. */
export type WebSocketFactory = (url: string, headers: Record<string, string>, maxMessageBytes: number) => WebSocketLike;
