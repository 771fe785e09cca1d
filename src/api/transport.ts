/** HTTP to one DSP origin: an undici keep-alive Pool, TLS per spec (Authentication 7), G13's origin rule. */

import { rootCertificates, type TLSSocket } from "node:tls";
import { buildConnector, Pool, errors as undiciErrors } from "undici";
import { originVerdict, withoutUserinfo } from "../model/url.js";
import { KEEP_ALIVE_MS } from "./defaults.js";
import { NetworkError, ResponseTooLargeError, TimeoutError, TransportPolicyError } from "./errors.js";
import type { TlsSeen } from "./login-seen.js";
import type { HttpMethod } from "./types.js";

/**
 * Spec, Authentication 7. One `ciphers` string: Node hands the `TLS_` names to OpenSSL's TLS 1.3
 * list and the rest to TLS 1.2's, so no other suite of either version is offered.
 */
export const TLS_CIPHER_SUITES = [
  "TLS_AES_128_GCM_SHA256",
  "TLS_AES_256_GCM_SHA384",
  "TLS_CHACHA20_POLY1305_SHA256",
  "ECDHE-RSA-AES128-GCM-SHA256",
  "ECDHE-RSA-AES128-SHA256",
  "ECDHE-RSA-AES256-GCM-SHA384",
  "ECDHE-RSA-AES256-SHA384",
] as const;

/** An API origin checked against G13, normalized (`https://host[:port]`); else a TransportPolicyError. */
export function checkOrigin(apiOrigin: string): string {
  const verdict = originVerdict(apiOrigin);
  if (verdict.ok) return verdict.origin;
  switch (verdict.problem) {
    case "no-scheme":
      throw new TransportPolicyError(
        `api_origin "${withoutUserinfo(apiOrigin)}" has no scheme: write "${verdict.meant}"`,
      );
    case "not-a-url":
      // Text no URL reader takes may still hold a password (`https://u:s3/cret@host`).
      throw new TransportPolicyError(
        `api_origin "${withoutUserinfo(apiOrigin)}" is not a URL: write the scheme and host, like https://dsp.example.com`,
      );
    case "credentials":
      // Never echo the URL: it holds a credential.
      throw new TransportPolicyError(
        "api_origin must not carry a user or password: credentials come from DOOHCTL_EMAIL and DOOHCTL_PASSWORD",
      );
    case "has-path":
      throw new TransportPolicyError(
        `api_origin "${apiOrigin}" must be the scheme and host only, like ${verdict.origin} (the client adds /api/dsp/v1)`,
      );
    case "plain-http":
      throw new TransportPolicyError(
        `refusing plain http:// to ${verdict.host}: the DSP is HTTPS only (G13); http:// is allowed only for ` +
          `a loopback emulator (localhost, 127.0.0.0/8, [::1]). Use https://${verdict.host}`,
      );
    case "not-http":
      throw new TransportPolicyError(
        `api_origin "${withoutUserinfo(apiOrigin)}" must start with https:// (G13)`,
      );
  }
}

export interface TransportOptions {
  /** Already checked by `checkOrigin`. */
  origin: string;
  connectTimeoutMs: number;
  /** From the send to the answer's last byte: undici's timeouts measure only silence, not a trickle. */
  requestTimeoutMs: number;
  /** Keep-alive connections to the origin. */
  connections: number;
  /** Past it, reading stops with a ResponseTooLargeError; none means no cap. */
  maxResponseBytes?: number | undefined;
  ca?: string | undefined;
  /** Scrubs secrets out of the text of a failure (undici may quote what the server sent). */
  scrub?: ((text: string) => string) | undefined;
}

/** The undici Pool options (tests assert the TLS settings). */
export function poolOptions(options: TransportOptions): Pool.Options {
  return {
    connections: options.connections,
    pipelining: 1,
    keepAliveTimeout: KEEP_ALIVE_MS,
    headersTimeout: options.requestTimeoutMs,
    bodyTimeout: options.requestTimeoutMs,
    connect: {
      timeout: options.connectTimeoutMs,
      minVersion: "TLSv1.2",
      maxVersion: "TLSv1.3",
      ciphers: TLS_CIPHER_SUITES.join(":"),
      rejectUnauthorized: true,
      // An extra CA is trusted in addition to Node's bundled roots, not instead of them.
      ...(options.ca !== undefined ? { ca: [...rootCertificates, options.ca] } : {}),
    },
  };
}

export interface HttpRequest {
  method: HttpMethod;
  path: string;
  query?: ReadonlyArray<readonly [string, string]> | undefined;
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function pathWithQuery(path: string, query?: ReadonlyArray<readonly [string, string]>): string {
  if (!query || query.length === 0) return path;
  return `${path}?${new URLSearchParams(query.map(([k, v]): [string, string] => [k, v])).toString()}`;
}

const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

export class Transport {
  readonly origin: string;
  private readonly pool: Pool;
  private tlsSeen: TlsSeen | undefined;
  private readonly requestTimeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly scrub: (text: string) => string;

  constructor(options: TransportOptions) {
    this.origin = options.origin;
    this.scrub = options.scrub ?? ((text) => text);
    this.requestTimeoutMs = options.requestTimeoutMs;
    this.maxResponseBytes = options.maxResponseBytes ?? Number.POSITIVE_INFINITY;
    const pooled = poolOptions(options);
    const connect = buildConnector(pooled.connect as buildConnector.BuildOptions);
    this.pool = new Pool(options.origin, {
      ...pooled,
      // The same connector undici would build, noting the TLS each connection negotiated.
      connect: (connectOptions, callback) =>
        connect(connectOptions, (error, socket) => {
          const tls = socket as TLSSocket | null;
          if (!error && tls && typeof tls.getProtocol === "function") {
            this.tlsSeen = {
              protocol: tls.getProtocol() ?? "unknown",
              cipher: tls.getCipher()?.name ?? "unknown",
            };
          }
          (callback as (e: Error | null, s: typeof socket) => void)(error, socket);
        }),
    });
  }

  /** The TLS of the latest connection made; undefined over plain HTTP or before any. */
  tls(): TlsSeen | undefined {
    return this.tlsSeen;
  }

  async request(request: HttpRequest): Promise<HttpResponse> {
    // The pool has a connection for every request the client lets fly (client.ts), so the
    // deadline measures the exchange, not a wait in a queue.
    const deadline = AbortSignal.timeout(this.requestTimeoutMs);
    let answering = false;
    try {
      const response = await this.pool.request({
        method: request.method,
        path: pathWithQuery(request.path, request.query),
        headers: request.headers,
        body: request.body ?? null,
        signal: request.signal ? AbortSignal.any([request.signal, deadline]) : deadline,
      });
      answering = true;
      const text = await this.readText(response.body, response.headers["content-length"], request);
      return { status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      if (error instanceof ResponseTooLargeError) throw error;
      if (request.signal?.aborted) throw request.signal.reason;
      const code = (error as { code?: unknown } | null)?.code;
      if (answering && deadline.aborted) {
        const detail = `the answer was still arriving after ${this.requestTimeoutMs} ms (DOOHCTL_REQUEST_TIMEOUT)`;
        throw new TimeoutError(request.method, request.path, detail, { cause: error, trickling: true });
      }
      // Nothing came back: the deadline, or undici's header timeout (the same length), ran out.
      if (!answering && (deadline.aborted || code === "UND_ERR_HEADERS_TIMEOUT")) {
        const detail = `no answer within ${this.requestTimeoutMs} ms`;
        throw new TimeoutError(request.method, request.path, detail, {
          cause: error,
          noAnswer: { afterMs: this.requestTimeoutMs },
        });
      }
      throw classify(error, request, this.scrub);
    }
  }

  /** The body, counted as it streams: past the cap (or a Content-Length over it), the socket is dropped. */
  private async readText(
    body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown },
    contentLength: string | string[] | undefined,
    request: HttpRequest,
  ): Promise<string> {
    const tooLarge = () => new ResponseTooLargeError(request.method, request.path, this.maxResponseBytes);
    if (typeof contentLength === "string" && Number(contentLength) > this.maxResponseBytes) {
      body.destroy();
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > this.maxResponseBytes) {
        body.destroy();
        throw tooLarge();
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString("utf8");
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

function classify(error: unknown, request: HttpRequest, scrub: (text: string) => string): Error {
  const code = (error as { code?: unknown }).code;
  const detail = scrub(error instanceof Error ? error.message : String(error));
  if (typeof code === "string" && TIMEOUT_CODES.has(code)) {
    return new TimeoutError(request.method, request.path, detail, { cause: error });
  }
  if (error instanceof undiciErrors.UndiciError || error instanceof Error) {
    const label = typeof code === "string" ? `${code}: ${detail}` : detail;
    return new NetworkError(request.method, request.path, label, { cause: error });
  }
  return new NetworkError(request.method, request.path, detail);
}
