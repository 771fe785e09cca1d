import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boot, DSP, login, type Session } from "./helpers.js";

let s: Session;
beforeAll(async () => {
  s = await boot();
});
afterAll(() => s.close());

const paths = fc.oneof(
  fc.constantFrom(
    `${DSP}/campaigns`,
    `${DSP}/campaigns/5001`,
    `${DSP}/campaigns/5002/targetings`,
    `${DSP}/insertion_orders`,
    `${DSP}/insertion_orders/1001`,
    `${DSP}/creatives`,
    `${DSP}/creatives/9001`,
    `${DSP}/advertisers`,
    `${DSP}/creative_categories/1`,
    "/api/media_owner/v1/creatives/9001",
    "/api/media_owner/v1/networks",
    "/api/session",
  ),
  fc
    .array(fc.oneof(fc.constantFrom("api", "dsp", "v1", "campaigns", "5001", "%ff", "..", ""), fc.string()), {
      maxLength: 5,
    })
    .map((parts) => `/${parts.map(encodeURIComponent).join("/")}`),
);

const field = fc.constantFrom(
  "id",
  "active",
  "name",
  "cpm",
  "budget_impressions",
  "start_time",
  "targetings",
  "campaigns",
  "insertion_orders",
  "creatives",
  "campaign_ids",
  "audit",
  "pacing",
  "end_time",
);
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom("5001", "2026-12-01T00:00:00Z", "2026-12-01T00:00:00+02:00", -1, 1e300, null, true),
  fc.record({
    currency_code: fc.constantFrom("USD", "usd", ""),
    units: fc.constantFrom("1", "-1", "x"),
    nanos: fc.integer(),
  }),
);
const item = fc.dictionary(field, value, { maxKeys: 5 });
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc
    .record({
      k: fc.constantFrom("campaigns", "insertion_orders", "creatives", "targetings"),
      items: fc.array(item, { maxLength: 4 }),
    })
    .map(({ k, items }) => JSON.stringify({ [k]: items })),
  item.map((i) => JSON.stringify(i)),
  fc.string(),
);
const query = fc.array(
  fc.tuple(
    fc.constantFrom("page", "page_size", "filter", "search", "order", "asc", "include_progress", "x"),
    fc.oneof(fc.string(), fc.constantFrom("id:5001", "active:true", "name", "101", "-1", "true")),
  ),
  { maxLength: 4 },
);

describe("fuzzing the emulator", () => {
  it("never answers 500 and never changes state on a refused request", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"),
        paths,
        query,
        body,
        fc.constantFrom("application/json", "text/plain", "application/json; charset=latin1"),
        async (method, path, params, text, contentType) => {
          const before = JSON.stringify(s.emulator.state());
          const search = new URLSearchParams(params).toString();
          const withBody = method !== "GET" && method !== "DELETE" && method !== "OPTIONS";
          const reply = await s.call(method, `${path}${search ? `?${search}` : ""}`, undefined, {
            ...(withBody ? { raw: text } : {}),
            headers: { "content-type": contentType },
          });
          expect(reply.status).not.toBe(500);
          expect(reply.status).toBeLessThan(500);
          if (reply.status >= 400) expect(JSON.stringify(s.emulator.state())).toBe(before);
          if (reply.status >= 400) expect(typeof reply.body?.message).toBe("string");
          // A DELETE /api/session ends the session: start another so later runs reach the handlers.
          if (reply.status === 204) s.cookie = await login(s.emulator.origin);
        },
      ),
      { numRuns: 300, seed: 20261101 },
    );
  });
});
