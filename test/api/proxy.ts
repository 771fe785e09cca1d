/**
 * A misbehaving DSP for client tests: a node:http server on port 0 in front of the real
 * emulator. Each request goes to `answer`, which may write its own (wrong, echoing, huge,
 * trickling) reply or let the emulator's answer through, changed or not. Every request is
 * logged, so a test can assert that no write was sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Seen {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface Upstream {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

/** Writes its own reply and returns true, or returns false to pass the emulator's through. */
export type Answer = (
  request: Seen,
  response: ServerResponse,
  upstream: () => Promise<Upstream>,
) => Promise<boolean>;

export interface FakeDsp {
  origin: string;
  /** Every request received, in order. */
  log: Seen[];
  writes(): Seen[];
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function forward(target: string, seen: Seen, raw: string): Promise<Upstream> {
  const headers: Record<string, string> = {};
  for (const name of ["cookie", "content-type", "accept"]) {
    const value = seen.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  const response = await fetch(`${target}${raw}`, {
    method: seen.method,
    headers,
    ...(seen.body !== "" ? { body: seen.body } : {}),
  });
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie" && name !== "content-length" && name !== "transfer-encoding") out[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  return { status: response.status, headers: out, body: await response.text() };
}

export function send(response: ServerResponse, reply: Upstream): void {
  response.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body) });
  response.end(reply.body);
}

export async function startProxy(target: string, answer: Answer): Promise<FakeDsp> {
  const log: Seen[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://proxy");
      const seen: Seen = {
        method: request.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body: await readBody(request),
      };
      log.push(seen);
      const upstream = () => forward(target, seen, request.url ?? "/");
      if (!(await answer(seen, response, upstream))) send(response, await upstream());
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ message: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    log,
    writes: () => log.filter((s) => s.method !== "GET" && s.path !== "/api/session"),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
