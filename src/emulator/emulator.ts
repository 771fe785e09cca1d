/**
 * One request's way through the emulator: the control path aside, latency and faults (/api), the
 * session (401, 403, G9), rate limits (429, G10), a missing route or staging's DSP (404, G13), the
 * handler. Refusals never touch the store; writes are persisted and reported to onWrite listeners.
 * The dialect (dialect.ts) is served at the edge: the routes see the canonical request and answer.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../model/clock.js";
import type { Dialect } from "../model/dialect.js";
import type { RateLimits, RequestClass } from "../model/limits.js";
import { Time } from "../model/time.js";
import {
  DSP_BASE_PATH,
  type Environment,
  MEDIA_OWNER_BASE_PATH,
  SESSION_PATH,
  sessionCookieName,
} from "../model/wire.js";
import { parseJsonBody, type RawBody, readRawBody } from "./body.js";
import type { Reply, RequestContext } from "./context.js";
import { createReply, type Departures, droppedBody, queryOf } from "./departures.js";
import { ServedDialect } from "./dialect.js";
import { HttpError, notFound } from "./errors.js";
import type { FaultInjector } from "./faults.js";
import { parseFlags } from "./listing.js";
import { RateLimiter } from "./rate-limiter.js";
import { type AnswerMode, answerReply } from "./richer.js";
import { Router } from "./router.js";
import { advertiserRoutes } from "./routes/advertisers.js";
import { campaignRoutes } from "./routes/campaigns.js";
import { creativeRoutes } from "./routes/creatives.js";
import { insertionOrderRoutes } from "./routes/insertion-orders.js";
import { mediaOwnerRoutes } from "./routes/media-owner.js";
import { sessionRoutes } from "./routes/session.js";
import { targetingRoutes } from "./routes/targetings.js";
import { readCookie, SessionTable } from "./sessions.js";
import type { EmulatorStateView, Store } from "./store.js";

export interface RequestLogEntry {
  /** ISO 8601 UTC, from the emulator's clock. */
  time: string;
  method: string;
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  /** The status answered; 0 when the connection was reset by an injected fault. */
  status: number;
  /** The session's user, when the request carried a valid session. */
  user?: string;
  /** The parsed JSON body of a write (never for /api/session: it holds a password). */
  body?: unknown;
  /** The injected fault, when one answered the request. */
  fault?: string;
}

/** A request as `handle` has received it, for `dispatch` to answer. */
interface ReceivedRequest {
  req: IncomingMessage;
  method: string;
  path: string;
  query: URLSearchParams;
  raw: RawBody;
  /** Its request log entry, which dispatch completes (the user, a write's body). */
  entry: RequestLogEntry;
}

export type WriteListener = (entry: RequestLogEntry, state: EmulatorStateView) => void;

/** The request log keeps the most recent entries only, so a long-running emulator stays small. */
const REQUEST_LOG_LIMIT = 10_000;

const ROUTER = new Router([
  ...sessionRoutes,
  ...advertiserRoutes,
  ...insertionOrderRoutes,
  ...campaignRoutes,
  ...targetingRoutes,
  ...creativeRoutes,
  ...mediaOwnerRoutes,
]);

export interface EmulatorCoreOptions {
  store: Store;
  clock: Clock;
  environment: Environment;
  rateLimits: RateLimits | "off";
  latencyMs: number;
  faults: FaultInjector;
  /** G14: what successful answers hold (richer.ts). */
  answers: AnswerMode;
  /** The dialect served (dialect.ts), already checked. */
  dialect: Dialect;
  /** A DSP that departs from the contract, to rehearse against (departures.ts). */
  departures: Departures;
  /** Called after each successful write, before the response: persistence. */
  persist?: (store: Store) => void;
}

export type ControlHandler = (req: IncomingMessage, res: ServerResponse, raw: RawBody, path: string) => void;

export class Emulator {
  store: Store;
  readonly clock: Clock;
  readonly faults: FaultInjector;
  readonly dialect: Dialect;
  private readonly limiter: RateLimiter;
  private readonly sessions = new SessionTable();
  private readonly served: ServedDialect;
  private log: RequestLogEntry[] = [];
  private readonly listeners = new Set<WriteListener>();
  private control: ControlHandler | undefined;

  constructor(private readonly options: EmulatorCoreOptions) {
    this.store = options.store;
    this.clock = options.clock;
    this.faults = options.faults;
    this.dialect = options.dialect;
    this.limiter = new RateLimiter(options.rateLimits);
    this.served = new ServedDialect(options.dialect);
  }

  /** Serves /__emulator/ from now on (control: true). */
  enableControl(handler: ControlHandler): void {
    this.control = handler;
  }

  requestLog(): RequestLogEntry[] {
    return structuredClone(this.log);
  }

  clearLog(): void {
    this.log = [];
  }

  state(): EmulatorStateView {
    return this.store.view(this.clock.now());
  }

  onWrite(listener: WriteListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Replaces the whole state (control path reset): sessions, windows and the log start over. */
  reset(store: Store): void {
    this.store = store;
    this.sessions.clear();
    this.limiter.clear();
    this.log = [];
    this.options.persist?.(store);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://emulator.invalid");
    } catch {
      // A target WHATWG URL cannot parse names no route: answered as the root path is (404).
      url = new URL("http://emulator.invalid/");
    }
    const path = url.pathname;
    const raw = await readRawBody(req);
    if (path === "/__emulator" || path.startsWith("/__emulator/")) {
      // Never logged, limited or faulted; absent unless the emulator was started with control.
      if (this.control) this.control(req, res, raw, path);
      else send(res, { status: 404, body: notFound().body() });
      return;
    }
    if (this.options.latencyMs > 0) await this.clock.sleep(this.options.latencyMs);
    const entry: RequestLogEntry = {
      time: Time.fromMillis(this.clock.now()),
      method,
      path,
      query: url.search.slice(1),
      status: 0,
    };
    const fault = path.startsWith("/api/") ? this.faults.draw() : undefined;
    if (fault !== undefined) {
      entry.fault = fault;
      this.record(entry);
      if (fault === "reset") {
        req.socket.destroy();
        return;
      }
      const status = Number(fault);
      entry.status = status;
      const headers: Record<string, string> = status === 429 ? { "retry-after": "1" } : {};
      send(res, { status, headers, body: new HttpError(status).body() });
      return;
    }
    let reply: Reply;
    try {
      const query = queryOf(this.options.departures, url.searchParams);
      const served = this.dispatch({ req, method, path, query, raw, entry });
      reply = answerReply(this.options.answers, served.reply);
      // The richer answer leaves the canonical targetings alone, and the dialect then moves them.
      reply = this.served.answer(method, served.pattern, reply, this.store);
      reply = createReply(this.options.departures, this.dialect, { method, pattern: served.pattern }, reply);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      reply = { status: error.status, headers: { ...error.headers }, body: error.body() };
    }
    entry.status = reply.status;
    this.record(entry);
    if (reply.wrote) {
      this.options.persist?.(this.store);
      this.notify(entry);
    }
    send(res, reply);
  }

  private record(entry: RequestLogEntry): void {
    this.log.push(entry);
    if (this.log.length > REQUEST_LOG_LIMIT) this.log.splice(0, this.log.length - REQUEST_LOG_LIMIT);
  }

  private notify(entry: RequestLogEntry): void {
    if (this.listeners.size === 0) return;
    const view = this.state();
    for (const listener of this.listeners) {
      try {
        listener(structuredClone(entry), view);
      } catch (error) {
        // An in-process invariant check failed: surface it to the test runner, not the client.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** The handler's reply, and the route pattern that answered. */
  private dispatch(request: ReceivedRequest): { reply: Reply; pattern: string } {
    const { req, method, path, query, raw, entry } = request;
    const now = this.clock.now();
    const found = this.route(method, path);
    const token = this.sessionToken(req.headers.cookie, path);
    const email = token === undefined ? undefined : this.sessions.lookup(token, now);
    const user = email === undefined ? undefined : this.store.userByEmail(email);
    if (!(found instanceof HttpError) && found.route.auth) {
      // G9: no cookie is 401; an unknown or expired token is 403.
      if (token === undefined) throw new HttpError(401);
      if (!user) throw new HttpError(403);
    }
    if (user) entry.user = user.email;
    // G10: every answer but a 429 counts, a 404 too; without a valid session only session creation
    // counts (per IP).
    const kind = rateClass(method, path);
    if (kind !== undefined && (kind === "session" || user !== undefined)) {
      const key = kind === "session" ? (req.socket.remoteAddress ?? "unknown") : (user?.email ?? "");
      const retryAfter = this.limiter.take(kind, key, now);
      if (retryAfter !== undefined)
        throw new HttpError(429, { headers: { "retry-after": String(retryAfter) } });
    }
    if (found instanceof HttpError) throw found;
    const { route, params } = found;
    this.store.settle(now);
    let parsed: { value: unknown } | undefined;
    const isWrite = method === "POST" || method === "PUT" || method === "PATCH";
    const ctx: RequestContext = {
      params,
      query,
      store: this.store,
      now,
      user,
      token,
      environment: this.options.environment,
      json: () => {
        if (!parsed) {
          const value = parseJsonBody(raw, req.headers["content-type"]);
          // Logged as it was sent; read as a DSP that drops members would (departures.ts).
          if (isWrite && path !== SESSION_PATH) entry.body = structuredClone(value);
          parsed = { value: droppedBody(this.options.departures, this.dialect, { method, path }, value) };
        }
        return parsed.value;
      },
      sessions: {
        create: (u) => this.sessions.create(u.email, now),
        end: (t) => this.sessions.end(t),
      },
    };
    // No write names a query parameter: one given is a 422, unless this DSP ignores it (G16).
    if (method !== "GET") parseFlags(query);
    const reply = this.served.handle(method, route.pattern, ctx, route.handle);
    return { reply, pattern: route.pattern };
  }

  /** The route, or the 404 to answer once the session and the rate limit are seen to. */
  private route(method: string, path: string): ReturnType<Router["match"]> | HttpError {
    // G13: the DSP interface exists in production only.
    const dsp = path === DSP_BASE_PATH || path.startsWith(`${DSP_BASE_PATH}/`);
    if (this.options.environment === "staging" && dsp) return notFound();
    const canonical = this.served.path(method, path);
    if (canonical === undefined) return notFound();
    try {
      return ROUTER.match(method, canonical);
    } catch (error) {
      if (error instanceof HttpError) return error;
      throw error;
    }
  }

  /**
   * The session token a request carries: the media-owner interface also takes the other environment's
   * cookie, its own first (spec, "Operations with staging and production cookie security").
   */
  private sessionToken(header: string | undefined, path: string): string | undefined {
    const own = sessionCookieName(this.options.environment);
    const token = readCookie(header, own);
    if (token !== undefined || !path.startsWith(`${MEDIA_OWNER_BASE_PATH}/`)) return token;
    const other = sessionCookieName(this.options.environment === "production" ? "staging" : "production");
    return readCookie(header, other);
  }
}

/** G10: sessions per IP, GET and writes per user; DELETE /api/session in no class (docs/emulator.md). */
function rateClass(method: string, path: string): RequestClass | undefined {
  if (path === SESSION_PATH && method === "POST") return "session";
  if (method === "GET") return "get";
  if (method === "POST" || method === "PUT" || method === "PATCH") return "write";
  return undefined;
}

export function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed) return;
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.status === 204 || (reply.body === undefined && reply.raw === undefined)) {
    res.writeHead(reply.status, headers).end();
    return;
  }
  const text = reply.raw ?? JSON.stringify(reply.body);
  headers["content-type"] = "application/json; charset=utf-8";
  headers["content-length"] = String(Buffer.byteLength(text));
  res.writeHead(reply.status, headers).end(text);
}
