// The few parts of Node's modules the built-in WebSocket uses, declared here so that the
// package compiles with TypeScript alone (no @types/node); none appears in the public API.

declare module "node:http" {
  export interface IncomingMessage {
    statusCode?: number;
    headers: Record<string, string | string[] | undefined>;
    resume(): void;
  }
  export interface Socket {
    write(data: Uint8Array): boolean;
    end(): void;
    destroy(): void;
    setNoDelay(noDelay: boolean): void;
    on(event: "data", listener: (chunk: Uint8Array) => void): Socket;
    on(event: "close" | "end", listener: () => void): Socket;
    on(event: "error", listener: (err: Error) => void): Socket;
  }
  export interface ClientRequest {
    on(event: "upgrade", listener: (res: IncomingMessage, socket: Socket, head: Uint8Array) => void): ClientRequest;
    on(event: "response", listener: (res: IncomingMessage) => void): ClientRequest;
    on(event: "error", listener: (err: Error) => void): ClientRequest;
    setTimeout(ms: number, listener: () => void): ClientRequest;
    end(): void;
    destroy(): void;
  }
  export function request(url: string, options: { method?: string; headers?: Record<string, string> }): ClientRequest;
}

declare module "node:https" {
  export { request } from "node:http";
}

declare module "node:crypto" {
  export function createHash(algorithm: string): {
    update(data: string): { digest(encoding: "base64"): string };
  };
  export function randomFillSync<T extends Uint8Array>(buffer: T): T;
}
