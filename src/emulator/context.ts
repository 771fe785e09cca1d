/**
 * What a route handler gets and gives back. Handlers are synchronous: they validate everything
 * first and change the store only once the whole request will succeed (G4); refusals are thrown
 * HttpErrors.
 */
import type { Environment } from "../model/wire.js";
import { notFound } from "./errors.js";
import type { Store, UserRecord } from "./store.js";

export interface RequestContext {
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  store: Store;
  /** The emulator clock's time when the request is handled. */
  now: number;
  /** The session's user; set on every route that needs a session. */
  user: UserRecord | undefined;
  /** The session token, for DELETE /api/session. */
  token: string | undefined;
  environment: Environment;
  /** The parsed JSON body; throws 400 (syntax, encoding, content type, size). */
  json(): unknown;
  /** Session operations (POST and DELETE /api/session), served by the server's session table. */
  sessions: SessionPort;
}

export interface SessionPort {
  create(user: UserRecord): { token: string; expiresAt: number };
  end(token: string): void;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** The body already serialized (hot list paths); sent instead of `body`. */
  raw?: string;
  headers?: Record<string, string>;
  /** True when the request changed the state: it is persisted and reported to onWrite listeners. */
  wrote?: boolean;
}

export type Handler = (ctx: RequestContext) => Reply;

export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path with `:name` parameters, e.g. `/api/dsp/v1/campaigns/:id/targetings`. */
  pattern: string;
  /** False only for session creation: every other operation needs the session cookie. */
  auth: boolean;
  handle: Handler;
}

export function ok(body: unknown): Reply {
  return { status: 200, body };
}

export function wrote(body: unknown): Reply {
  return { status: 200, body, wrote: true };
}

/** The object the path's `:id` names, as `find` finds it; 404 when there is none. */
export function pathObject<T>(ctx: RequestContext, find: (id: string) => T | undefined): T {
  const found = find(ctx.params.id ?? "");
  if (found === undefined) throw notFound();
  return found;
}

/** A route that needs the session cookie: every operation but session creation. */
export function route(method: Route["method"], pattern: string, handle: Handler): Route {
  return { method, pattern, auth: true, handle };
}

/** A DSP collection's routes (spec): list, create where it has one, batch PATCH, get and PATCH one. */
export function collectionRoutes(
  base: string,
  handlers: { list: Handler; create?: Handler; patchBatch: Handler; get: Handler; patchOne: Handler },
): Route[] {
  return [
    route("GET", base, handlers.list),
    ...(handlers.create ? [route("POST", base, handlers.create)] : []),
    route("PATCH", base, handlers.patchBatch),
    route("GET", `${base}/:id`, handlers.get),
    route("PATCH", `${base}/:id`, handlers.patchOne),
  ];
}
