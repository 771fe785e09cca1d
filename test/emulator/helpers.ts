/**
 * A tiny HTTP helper for the emulator's tests: real HTTP against port 0, on the small account
 * `seedAccount` (test/helpers/builders.ts). These tests speak raw HTTP with a session cookie,
 * so they can send what the client never would.
 */

import type { EmulatorOptions, RunningEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import { campaignCreate, seedAccount } from "../helpers/builders.js";
import { USER } from "../helpers/users.js";
import { emulatorWorld } from "../helpers/world.js";

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read replies field by field
  body: any;
}

export interface Session {
  emulator: RunningEmulator;
  clock: VirtualClock;
  cookie: string;
  call(
    method: string,
    path: string,
    body?: unknown,
    options?: { headers?: Record<string, string>; raw?: string | Uint8Array },
  ): Promise<Reply>;
  get(path: string): Promise<Reply>;
  close(): Promise<void>;
}

export const DSP = "/api/dsp/v1";

export async function request(
  origin: string,
  method: string,
  path: string,
  options: {
    body?: unknown;
    raw?: string | Uint8Array;
    headers?: Record<string, string>;
    cookie?: string;
  } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie) headers.cookie = options.cookie;
  let body: string | Uint8Array | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await fetch(origin + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

export async function login(origin: string, credentials = USER): Promise<string> {
  const reply = await request(origin, "POST", "/api/session", {
    body: { email: credentials.email, password: credentials.password },
  });
  if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  const cookie = reply.headers.get("set-cookie") ?? "";
  return cookie.split(";")[0]!;
}

/** Starts an emulator (`emulatorWorld`: virtual clock, control on; limits off unless given) and logs in. */
export async function boot(options: Partial<EmulatorOptions> & { at?: string } = {}): Promise<Session> {
  const { at, seed, ...rest } = options;
  const clock = new VirtualClock(at ? { start: Date.parse(at) } : {});
  const world = await emulatorWorld({
    seed: seed ?? seedAccount(),
    clock,
    emulator: { rateLimits: "off", ...rest },
  });
  const { emulator } = world;
  const session: Session = {
    emulator,
    clock,
    cookie: await login(emulator.origin),
    call: (method, path, body, extra = {}) =>
      request(emulator.origin, method, path, {
        ...(body !== undefined ? { body } : {}),
        ...extra,
        cookie: session.cookie,
      }),
    get: (path) => request(emulator.origin, "GET", path, { cookie: session.cookie }),
    close: () => world.close(),
  };
  return session;
}

export function fields(reply: Reply): Record<string, string[]> {
  return Object.fromEntries(
    (reply.body?.data ?? []).map((d: { field: string; messages: string[] }) => [d.field, d.messages]),
  );
}

/** A campaign to create in insertion order 1001 (G3), as a POST /campaigns item. */
export const NEW_CAMPAIGN = campaignCreate({ name: "Harbour" });
