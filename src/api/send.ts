/**
 * What the client's layers hand one another: `withSession -> retrying -> paced -> transport`
 * (client.ts), each a `Layer` from the next `Send` to its own, as undici composes interceptors.
 */
import type { RequestClass } from "../model/limits.js";
import type { Tries } from "../model/silence.js";
import { SESSION_PATH } from "../model/wire.js";
import { NetworkError, TimeoutError } from "./errors.js";
import type { HttpResponse } from "./transport.js";
import type { ApiRequest, BeforeSend } from "./types.js";

/** One request on its way down the layers, with what each of them needs to know of it. */
export interface Exchange {
  request: ApiRequest;
  /** The rate window that paces it. */
  cls: RequestClass;
  /** May be sent again after a network error, timeout or 5xx. */
  idempotent: boolean;
  /** Items the request carries, for events. */
  items: number;
  /** `accept`, `content-type`, and the session cookie once `withSession` adds it. */
  headers: Record<string, string>;
  /** The JSON body, serialized once. */
  body: string | undefined;
  signal?: AbortSignal | undefined;
  /** 1 for the first attempt; `retrying` counts on. */
  attempt: number;
  /** The retry wait just before this attempt, for its event. */
  waitedMs: number;
  /** Attempt k of n as `retry.maxAttempts` counts them (a 429 is not one); `retrying` sets it. */
  tries: Tries;
  /** The BeforeSend `paced` runs once the slot is granted, shared by every attempt of the request. */
  beforeSend?: { run: BeforeSend; mayHaveLanded: boolean } | undefined;
}

/** A BeforeSend refused the request: it was not sent. client.ts hands `reason` to the caller. */
export class NotSent extends Error {
  override readonly name = "NotSent";
  constructor(readonly reason: unknown) {
    super("not sent: its check before sending refused it");
  }
}

/** Resolves to the answer, whatever its status. */
export type Send = (exchange: Exchange) => Promise<HttpResponse>;

export type Layer = (next: Send) => Send;

/** How one attempt ended: an answer, or the network error or timeout that came instead. */
export type Attempt =
  | { response: HttpResponse; failure?: never }
  | { response?: never; failure: NetworkError | TimeoutError };

/** Runs one attempt; any error but a network error or timeout propagates. */
export async function attempt(send: Send, exchange: Exchange): Promise<Attempt> {
  try {
    return { response: await send(exchange) };
  } catch (error) {
    if (!(error instanceof NetworkError || error instanceof TimeoutError)) throw error;
    return { failure: error };
  }
}

export function requestClass(request: ApiRequest): RequestClass {
  if (request.method === "POST" && request.path === SESSION_PATH) return "session";
  return request.method === "GET" ? "get" : "write";
}

/** A batch body `{campaigns: [...]}` carries its array's length; any other write one item. */
export function itemsOf(request: ApiRequest): number {
  if (request.method === "GET") return 0;
  const body = request.body;
  if (body && typeof body === "object" && !Array.isArray(body)) {
    const values = Object.values(body);
    if (values.length === 1 && Array.isArray(values[0])) return values[0].length;
  }
  return 1;
}

/** The exchange of a request's first attempt. */
export function exchangeOf(
  request: ApiRequest,
  {
    idempotent,
    items,
    signal,
    beforeSend,
  }: {
    idempotent: boolean;
    items: number;
    signal?: AbortSignal | undefined;
    beforeSend?: BeforeSend | undefined;
  },
): Exchange {
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  return {
    request,
    cls: requestClass(request),
    idempotent,
    items,
    headers,
    body,
    signal,
    attempt: 1,
    waitedMs: 0,
    tries: { attempt: 1, of: 1 },
    ...(beforeSend ? { beforeSend: { run: beforeSend, mayHaveLanded: false } } : {}),
  };
}
