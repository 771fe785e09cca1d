/**
 * Fuzzing the emulator, beyond test/emulator/fuzz.test.ts (random methods, paths,
 * queries and bodies): here the bodies start as valid writes against a realistic account and
 * are then mutated, so they reach the deep rules (G4 batches, G5, G6, G8) where a partial
 * write would hide; and raw malformed HTTP is thrown at the socket. Never a 500, never a
 * change on a refused request, never a change to an object the request did not name.
 */
import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { singleKindSet } from "../helpers/targeting-arbitrary.js";
import { LONG, proofScenario } from "./world.js";

const DSP = "/api/dsp/v1";
const s = proofScenario({ insertionOrders: 2, campaignsPerOrder: 4, seed: 7 });
let emulator: RunningEmulator;
let cookie = "";

beforeAll(async () => {
  emulator = (await startCliAccount({ seed: s.seed })).emulator;
  const login = await fetch(`${emulator.origin}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(s.user),
  });
  cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
  expect(cookie).toMatch(/^tr-production=/);
});
afterAll(() => emulator.close());

const campaignIds = s.seed.campaigns!.map((c) => c.id);
const ioIds = s.seed.insertion_orders!.map((io) => io.id);
const creativeIds = s.seed.creatives!.map((c) => c.id);

const id = (ids: string[]) => fc.oneof(fc.constantFrom(...ids), fc.constantFrom("0", "99999", "", "x"));
const time = fc.constantFrom(
  "2026-12-01T00:00:00Z",
  "2027-05-01T00:00:00Z",
  "2028-01-01T00:00:00Z",
  "2026-12-01",
);
const money = fc.record({
  currency_code: fc.constantFrom("USD", "EUR", "usd"),
  units: fc.constantFrom("0", "12", "-1", "1e3"),
  nanos: fc.constantFrom(0, 500_000_000, -5, 1e10),
});
const budget = fc.oneof(fc.integer({ min: 0, max: 400_000 }), fc.constantFrom(-1, 1.5, 10 ** 12));
// Possibly empty, possibly not numeric where the kind wants numbers (G5): refused, never kept.
const option = singleKindSet({
  ids: (kind) =>
    fc.array(fc.constantFrom(...(kind.ids.of === "numeric" ? ["10", "20", "x"] : ["1", "D1"])), {
      maxLength: 2,
    }),
});

/** A write as a client would send it, with any field possibly wrong. */
const write = fc.oneof(
  fc.record({
    method: fc.constant("PATCH"),
    path: fc.constant(`${DSP}/campaigns`),
    body: fc.record({
      campaigns: fc.array(
        fc.record(
          {
            id: id(campaignIds),
            active: fc.boolean(),
            budget_impressions: budget,
            cpm: money,
            end_time: time,
          },
          { requiredKeys: ["id"] },
        ),
        { maxLength: 4 },
      ),
    }),
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant(`${DSP}/campaigns`),
    body: fc.record({
      campaigns: fc.array(
        fc.record(
          {
            insertion_order_id: id(ioIds),
            name: fc.constantFrom("Fuzz A", "Fuzz B", "Campaign 1 of 1001"),
            start_time: time,
            end_time: time,
            budget_impressions: budget,
            cpm: money,
            active: fc.boolean(),
          },
          { requiredKeys: ["insertion_order_id", "name"] },
        ),
        { maxLength: 3 },
      ),
    }),
  }),
  fc.record({
    method: fc.constant("PUT"),
    path: id(campaignIds).map((c) => `${DSP}/campaigns/${c}/targetings`),
    body: fc.record({ targetings: fc.array(option, { maxLength: 3 }) }),
  }),
  fc.record({
    method: fc.constant("PATCH"),
    path: fc.constant(`${DSP}/creatives`),
    body: fc.record({
      creatives: fc.array(
        fc.record(
          {
            id: id(creativeIds),
            campaign_ids: fc.array(id(campaignIds), { maxLength: 3 }),
            category_ids: fc.array(fc.constantFrom("1", "2"), { maxLength: 2 }),
            pixel_url: fc.constantFrom("https://p.example.com/x", "not a url"),
          },
          { requiredKeys: ["id"] },
        ),
        { maxLength: 3 },
      ),
    }),
  }),
  fc.record({
    method: fc.constant("PATCH"),
    path: fc.constant(`${DSP}/insertion_orders`),
    body: fc.record({
      insertion_orders: fc.array(
        fc.record(
          {
            id: id(ioIds),
            budget_impressions: budget,
            end_time: time,
            contract_number: fc.constantFrom("PO-1", null, 5),
          },
          { requiredKeys: ["id"] },
        ),
        { maxLength: 3 },
      ),
    }),
  }),
);

/** One more twist on a valid-shaped body: an unknown or read-only key, a wrong type, a dropped key. */
const twist = fc.option(
  fc.record({
    key: fc.constantFrom("colour", "in_flight", "name", "id", "create_time", "insertion_order_id"),
    value: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)),
  }),
);

function twisted(body: Record<string, unknown[]>, t: { key: string; value: unknown } | null): unknown {
  if (!t) return body;
  const out = structuredClone(body);
  const list = Object.values(out)[0];
  const first = list?.[0] as Record<string, unknown> | undefined;
  if (first) {
    if (t.value === undefined) delete first[t.key];
    else first[t.key] = t.value;
  }
  return out;
}

describe("fuzzing the emulator with near-valid writes", () => {
  it("never answers 500, changes nothing when it refuses, and touches only the campaigns a PATCH names", {
    timeout: LONG ? 600_000 : 30_000,
  }, async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(write, twist, async (w, t) => {
        const before = emulator.state();
        const body = twisted(w.body as Record<string, unknown[]>, t);
        const reply = await fetch(`${emulator.origin}${w.path}`, {
          method: w.method,
          headers: { "content-type": "application/json", cookie },
          body: JSON.stringify(body),
        });
        const text = await reply.text();
        expect(reply.status, text).toBeLessThan(500);
        const answer = JSON.parse(text) as { message?: unknown };
        const after = emulator.state();
        if (reply.status >= 400) {
          expect(typeof answer.message).toBe("string");
          expect(after).toEqual(before);
          return;
        }
        accepted++;
        if (w.method === "PATCH" && w.path.endsWith("/campaigns")) {
          const named = new Set(((body as { campaigns: { id: string }[] }).campaigns ?? []).map((c) => c.id));
          for (const c of before.campaigns) {
            if (!named.has(c.id)) expect(after.campaigns.find((x) => x.id === c.id)).toEqual(c);
          }
        }
      }),
      { numRuns: LONG ? 3_000 : 250, seed: 20_261_122 },
    );
    // The property is worth something only if some writes got through the rules.
    expect(accepted).toBeGreaterThan(5);
  });
});

describe("raw malformed HTTP", () => {
  const garbage = fc.oneof(
    fc.constantFrom(
      "GARBAGE\r\n\r\n",
      "GET /api/dsp/v1/campaigns HTTP/9.9\r\n\r\n",
      "PATCH /api/dsp/v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Type: application/json\r\n\r\n{",
      "POST /api/session HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      `GET /${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      "GET /api/dsp/v1/campaigns?page=%ZZ HTTP/1.1\r\nHost: x\r\n\r\n",
    ),
    fc.string({ maxLength: 200 }),
  );

  it("never answers 500 and keeps serving", { timeout: LONG ? 600_000 : 30_000 }, async () => {
    const before = JSON.stringify(emulator.state());
    await fc.assert(
      fc.asyncProperty(garbage, async (raw) => {
        const answer = await new Promise<string>((resolve) => {
          const socket = connect(emulator.port, "127.0.0.1");
          let data = "";
          socket.on("data", (chunk) => {
            data += chunk.toString();
          });
          socket.on("error", () => resolve(data));
          socket.on("close", () => resolve(data));
          socket.write(raw, () => socket.end());
          socket.setTimeout(2_000, () => socket.destroy());
        });
        expect(answer).not.toMatch(/^HTTP\/1\.[01] 5\d\d/);
      }),
      { numRuns: LONG ? 1_000 : 60, seed: 20_261_123 },
    );
    expect(JSON.stringify(emulator.state())).toBe(before);
    const alive = await fetch(`${emulator.origin}${DSP}/campaigns`, { headers: { cookie } });
    expect(alive.status).toBe(200);
  });
});
