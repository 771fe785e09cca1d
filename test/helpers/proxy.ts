/**
 * A forwarding proxy on port 0 in front of the emulator, for tests that put a fault between
 * the client and the DSP. Each request goes to `onRequest`, which may answer it itself, hold
 * it, or send it on with `forward` and then relay, replace or drop the emulator's answer.
 * Requests and answers go through as bytes, piped with their headers untouched; the fake DSP
 * (`answeringProxy`, below) is the same proxy reading each exchange whole, logging it and
 * letting a test rewrite it. With `tls`, TLS terminates here: an HTTPS front for the
 * plain-HTTP emulator.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer, type ServerOptions } from "node:https";
import type { AddressInfo } from "node:net";

/**
 * Sends the request on to the target: its body piped as it arrives, or `body` when the proxy
 * has read it already. Resolves with the target's answer, not yet read.
 */
export type Forward = (body?: Buffer) => Promise<IncomingMessage>;

export type OnRequest = (request: IncomingMessage, response: ServerResponse, forward: Forward) => void;

export interface InterceptingProxyOptions {
  /** @default relays every request's answer unchanged */
  onRequest?: OnRequest;
  /** The HTTPS server's options (key, cert, protocol limits); plain HTTP without. */
  tls?: ServerOptions;
}

export interface InterceptingProxy {
  origin: string;
  close(): Promise<void>;
}

/** Writes the target's answer to the client as it arrives. */
export function relay(answer: IncomingMessage, response: ServerResponse): void {
  response.writeHead(answer.statusCode ?? 502, answer.headers);
  answer.pipe(response);
}

export function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
  });
}

const relayAll: OnRequest = (_request, response, forward) => {
  void forward().then((answer) => relay(answer, response));
};

/**
 * Relays every request but the first POST .../campaigns: the target carries that one out, and
 * once its answer is read, `fault` has the client's request and response in its place (to
 * answer 500, drop the socket...): the write happened, the client does not learn it.
 */
export function firstCampaignPostCarriedOutThen(
  fault: (request: IncomingMessage, response: ServerResponse) => void,
): OnRequest {
  let faulted = false;
  return (request, response, forward) => {
    void forward().then((answer) => {
      if (request.method === "POST" && request.url?.endsWith("/campaigns") && !faulted) {
        faulted = true;
        answer.resume();
        answer.on("end", () => fault(request, response));
        return;
      }
      relay(answer, response);
    });
  };
}

export async function interceptingProxy(
  target: string,
  options: InterceptingProxyOptions = {},
): Promise<InterceptingProxy> {
  const { hostname, port } = new URL(target);
  const onRequest = options.onRequest ?? relayAll;
  const listener: RequestListener = (request, response) => {
    const forward: Forward = (body) =>
      new Promise((resolve) => {
        const { method, url: path, headers } = request;
        const upstream = httpRequest({ host: hostname, port, method, path, headers }, resolve);
        if (body === undefined) request.pipe(upstream);
        else upstream.end(body);
      });
    onRequest(request, response, forward);
  };
  const server = options.tls ? createHttpsServer(options.tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const scheme = options.tls ? "https" : "http";
  return {
    origin: `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A request as the fake DSP saw it, read whole. */
export interface Seen {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
}

/** The emulator's answer, read whole (its length and framing headers left to `send`). */
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

export interface FakeDsp extends InterceptingProxy {
  /** Every request received, in order. */
  log: Seen[];
  /** The requests that were not reads or the login. */
  writes(): Seen[];
}

export function send(response: ServerResponse, reply: Upstream): void {
  response.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body) });
  response.end(reply.body);
}

export async function wholeAnswer(answer: IncomingMessage): Promise<Upstream> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined && name !== "content-length" && name !== "transfer-encoding")
      headers[name] = value;
  }
  return { status: answer.statusCode ?? 502, headers, body: (await readBody(answer)).toString("utf8") };
}

/**
 * A misbehaving DSP for client tests: `interceptingProxy` in front of the real emulator, each
 * request read whole, logged (so a test can assert that no write was sent) and given to
 * `answer`, which may write its own (wrong, echoing, huge, trickling) reply or let the
 * emulator's answer through, changed or not.
 */
export async function answeringProxy(target: string, answer: Answer): Promise<FakeDsp> {
  const log: Seen[] = [];
  const proxy = await interceptingProxy(target, {
    onRequest: (request, response, forward) => {
      void (async () => {
        const url = new URL(request.url ?? "/", "http://proxy");
        const body = await readBody(request);
        const seen: Seen = {
          method: request.method ?? "GET",
          path: url.pathname,
          query: url.searchParams,
          headers: request.headers,
          body: body.toString("utf8"),
        };
        log.push(seen);
        const upstream = async () => wholeAnswer(await forward(body));
        if (!(await answer(seen, response, upstream))) send(response, await upstream());
      })().catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ message: String(error) }));
      });
    },
  });
  return {
    ...proxy,
    log,
    writes: () => log.filter((s) => s.method !== "GET" && s.path !== "/api/session"),
  };
}
