/**
 * Builders and a tiny HTTP helper for the emulator's tests: real HTTP against port 0. `boot()`
 * is not `emulatorWorld` (test/helpers/world.ts) on purpose: these tests speak raw HTTP with a
 * session cookie, so they can send what the client never would. `campaign` and `creative` are
 * seed objects of this small account, complete as the emulator stores them.
 */

import {
  type EmulatorOptions,
  type EmulatorSeed,
  type RunningEmulator,
  startEmulator,
} from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import { usd } from "../helpers/builders.js";
import { USER } from "../helpers/users.js";

// Re-exported for tests that import it from here; the users live in test/helpers/users.ts.
export { USER };

/** A small account: two advertisers, two insertion orders, three campaigns, two creatives. */
export function seed(overrides: Partial<EmulatorSeed> = {}): EmulatorSeed {
  return {
    users: [USER],
    advertisers: [
      { id: "1", name: "Northwind Beverages" },
      { id: "2", name: "Contoso Travel" },
    ],
    insertion_orders: [
      {
        id: "1001",
        advertiser_id: "1",
        name: "Winter push",
        contract_number: "PO-1",
        start_time: "2026-12-01T00:00:00Z",
        end_time: "2027-03-01T00:00:00Z",
        budget_impressions: 1_000_000,
        budget_money: usd("25000"),
      },
      {
        id: "1002",
        advertiser_id: "2",
        name: "Spring travel",
        contract_number: null,
        start_time: "2026-12-01T00:00:00Z",
        end_time: "2027-06-01T00:00:00Z",
        budget_impressions: null,
        budget_money: null,
      },
    ],
    campaigns: [
      campaign({ id: "5001", active: true, name: "Airports", budget_impressions: 300_000 }),
      campaign({ id: "5002", name: "Malls", budget_impressions: 200_000 }),
      campaign({ id: "5003", insertion_order_id: "1002", name: "Stations", budget_impressions: 50_000 }),
    ],
    targetings: {
      "5001": [{ venue_type_targeting_option: { venue_type_ids: ["12", "14"] } }],
    },
    creatives: [
      creative({ id: "9001", campaign_ids: ["5001"], insertion_order_ids: ["1001"] }),
      creative({ id: "9002", name: "Old spot", archived: true }),
      creative({ id: "9003", advertiser_id: "2", name: "Travel video", type: "VIDEO" }),
    ],
    creative_categories: [
      { id: "1", name: "Beverages" },
      { id: "2", name: "Travel" },
    ],
    networks: [
      { id: "1", name: "Metro Screens" },
      { id: "2", name: "Airport Media" },
    ],
    ...overrides,
  };
}

export function campaign(fields: Partial<NonNullable<EmulatorSeed["campaigns"]>[number]> & { id: string }) {
  return {
    insertion_order_id: "1001",
    name: `Campaign ${fields.id}`,
    active: false,
    start_time: "2026-12-01T00:00:00Z",
    end_time: "2027-01-01T00:00:00Z",
    budget_impressions: 10_000,
    cpm: usd("12.5"),
    pacing: { strategy: "even" },
    ...fields,
  };
}

export function creative(fields: Partial<NonNullable<EmulatorSeed["creatives"]>[number]> & { id: string }) {
  return {
    advertiser_id: "1",
    name: `Creative ${fields.id}`,
    create_time: "2026-10-01T00:00:00Z",
    campaign_ids: [],
    insertion_order_ids: [],
    category_ids: ["1"],
    thumbnail_url: `https://cdn.example.com/${fields.id}.png`,
    pixel_url: "",
    duration_ms: 10_000,
    archived: false,
    type: "IMAGE" as const,
    requires_audio: false,
    processing_status: "PROCESSED" as const,
    asset: {
      url: `https://cdn.example.com/${fields.id}.png`,
      width: 1920,
      height: 1080,
      format: "image/png",
      file_size_bytes: 1000,
    },
    audits: [],
    ...fields,
  };
}

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

/** Starts an emulator (virtual clock, control on, limits off unless given) and logs in. */
export async function boot(options: Partial<EmulatorOptions> & { at?: string } = {}): Promise<Session> {
  const { at, ...rest } = options;
  const clock = new VirtualClock(at ? { start: Date.parse(at) } : {});
  const emulator = await startEmulator({
    port: 0,
    control: true,
    clock,
    seed: seed(),
    rateLimits: "off",
    ...rest,
  });
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
    close: () => emulator.close(),
  };
  return session;
}

export function fields(reply: Reply): Record<string, string[]> {
  return Object.fromEntries(
    (reply.body?.data ?? []).map((d: { field: string; messages: string[] }) => [d.field, d.messages]),
  );
}
