/**
 * The emulator is strict to the contract document (ARCHITECTURE.md#emulator): every answer it gives to a
 * representative set of requests (lists, gets, writes, and the errors 400, 401, 403, 404,
 * 422, 429) validates against schemas/dsp-api.openapi.json, and every request doohctl sends
 * it during plan and apply is one the document names.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOperation } from "../../src/api/contract.js";
import type { HttpMethod } from "../../src/api/types.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { campaignCreate } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { checkAnswer, checkRequest, checkSchema } from "../helpers/contract-check.js";
import { bufferIO } from "../helpers/io.js";
import { usd } from "../helpers/money.js";
import { DEMO_USER } from "../helpers/users.js";

const SEED = JSON.parse(readFileSync(new URL("../../examples/emulator-seed.json", import.meta.url), "utf8"));
const DSP = "/api/dsp/v1";
const MO = "/api/media_owner/v1";

let emulator: RunningEmulator;
let cookie = "";

interface Exchange {
  method: HttpMethod;
  path: string;
  status: number;
  body: unknown;
}

async function call(
  method: HttpMethod,
  pathAndQuery: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${emulator.origin}${pathAndQuery}`, {
    method,
    headers: {
      cookie,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const exchange: Exchange = {
    method,
    path: pathAndQuery.split("?")[0] ?? "",
    status: response.status,
    body: text === "" ? undefined : JSON.parse(text),
  };
  return { exchange, response };
}

/** What does not match: the answer's schema for its status, or the error shape. */
function violations({ method, path, status, body }: Exchange): string[] {
  const op = findOperation(method, path);
  if (!op) return [`${method} ${path} is no operation of the contract`];
  if (status >= 200 && status < 300) {
    if (op.responseSchema === undefined) return body === undefined ? [] : ["a body where none is expected"];
    return checkAnswer(op, body).map((i) => `${i.at}: ${i.expected}`);
  }
  return checkSchema("Error", body).map((i) => `${i.at}: ${i.expected}`);
}

beforeAll(async () => {
  emulator = (await startCliAccount({ seed: SEED })).emulator;
  const { response } = await call("POST", "/api/session", {
    email: DEMO_USER.email,
    password: DEMO_USER.password,
  });
  cookie = (response.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
});
afterAll(() => emulator.close());

describe("the emulator's answers validate against the contract", () => {
  const cases: Array<[string, () => Promise<{ exchange: Exchange }>, number]> = [
    [
      "login",
      () => call("POST", "/api/session", { email: DEMO_USER.email, password: DEMO_USER.password }),
      200,
    ],
    [
      "login, wrong password (401)",
      () => call("POST", "/api/session", { email: DEMO_USER.email, password: "x" }),
      401,
    ],
    ["login, missing field (422)", () => call("POST", "/api/session", { email: DEMO_USER.email }), 422],
    ["login, bad JSON (400)", () => call("POST", "/api/session", "{"), 400],
    ["insertion orders", () => call("GET", `${DSP}/insertion_orders?page_size=100&order=name&asc=true`), 200],
    ["one insertion order", () => call("GET", `${DSP}/insertion_orders/1001`), 200],
    ["no such insertion order (404)", () => call("GET", `${DSP}/insertion_orders/999999`), 404],
    [
      "campaigns with progress",
      () => call("GET", `${DSP}/campaigns?filter=insertion_order_id:1001&include_progress=true`),
      200,
    ],
    ["one campaign with progress", () => call("GET", `${DSP}/campaigns/5001?include_progress=true`), 200],
    ["campaigns, page above 100 (422)", () => call("GET", `${DSP}/campaigns?page=101`), 422],
    ["campaigns, unnamed filter field (422)", () => call("GET", `${DSP}/campaigns?filter=colour:red`), 422],
    ["targetings", () => call("GET", `${DSP}/campaigns/5001/targetings`), 200],
    ["advertisers", () => call("GET", `${DSP}/advertisers?search=name:a`), 200],
    ["one advertiser", () => call("GET", `${DSP}/advertisers/1`), 200],
    ["creative categories", () => call("GET", `${DSP}/creative_categories?page_size=100`), 200],
    ["one creative category", () => call("GET", `${DSP}/creative_categories/1`), 200],
    ["creatives", () => call("GET", `${DSP}/creatives?filter=campaign_ids:5001&page_size=100`), 200],
    ["one creative", () => call("GET", `${DSP}/creatives/9001`), 200],
    [
      "insertion order patch",
      () =>
        call("PATCH", `${DSP}/insertion_orders`, {
          insertion_orders: [{ id: "1001", contract_number: "PO-1" }],
        }),
      200,
    ],
    [
      "one insertion order patch",
      () => call("PATCH", `${DSP}/insertion_orders/1001`, { contract_number: "PO-2" }),
      200,
    ],
    [
      "campaign creation",
      () =>
        call("POST", `${DSP}/campaigns`, {
          campaigns: [
            campaignCreate({
              name: "Contract check",
              end_time: "2026-12-15T00:00:00Z",
              budget_impressions: 0,
              cpm: usd("1"),
            }),
          ],
        }),
      200,
    ],
    [
      "campaign patch",
      () => call("PATCH", `${DSP}/campaigns`, { campaigns: [{ id: "5001", pacing: { strategy: "even" } }] }),
      200,
    ],
    ["one campaign patch", () => call("PATCH", `${DSP}/campaigns/5001`, { pacing: {} }), 200],
    [
      "campaign patch, unknown property (422)",
      () => call("PATCH", `${DSP}/campaigns`, { campaigns: [{ id: "5001", colour: "red" }] }),
      422,
    ],
    [
      "campaign patch, no such id (422)",
      () => call("PATCH", `${DSP}/campaigns`, { campaigns: [{ id: "999999", active: false }] }),
      422,
    ],
    [
      "campaign patch, no content type (400)",
      () => call("PATCH", `${DSP}/campaigns/5001`, "{}", { "content-type": "text/plain" }),
      400,
    ],
    [
      "targetings replacement",
      () => call("PUT", `${DSP}/campaigns/5003/targetings`, { targetings: [] }),
      200,
    ],
    [
      "creative patch",
      () =>
        call("PATCH", `${DSP}/creatives`, {
          creatives: [{ id: "9001", pixel_url: "https://p.example.com/x" }],
        }),
      200,
    ],
    ["one creative patch", () => call("PATCH", `${DSP}/creatives/9001`, { category_ids: ["1"] }), 200],
    ["advertiser creation", () => call("POST", `${DSP}/advertisers`, { name: "Contract Check Ltd" }), 200],
    [
      "advertiser creation, duplicate (422)",
      () => call("POST", `${DSP}/advertisers`, { name: "contract check ltd" }),
      422,
    ],
    [
      "creative creation",
      () =>
        call("POST", `${DSP}/creatives`, {
          creatives: [
            {
              name: "Contract check",
              advertiser_id: "1",
              type: "IMAGE",
              asset: {
                url: "https://cdn.example.com/c.png",
                width: 10,
                height: 10,
                format: "image/png",
                file_size_bytes: 1,
              },
            },
          ],
        }),
      200,
    ],
    [
      "a creative's campaign markets",
      () => call("GET", `${MO}/creatives/9001/campaigns?order=start_date`),
      200,
    ],
    [
      "audit of a creative",
      () => call("PATCH", `${MO}/creatives/9001`, { audit: { status: "APPROVED", message: "ok" } }),
      200,
    ],
    ["media-owner creative category", () => call("GET", `${MO}/creative_categories/1`), 200],
    ["networks", () => call("GET", `${MO}/networks?order=name`), 200],
    ["no session cookie (401)", () => call("GET", `${DSP}/campaigns`, undefined, { cookie: "" }), 401],
    [
      "unknown token (403)",
      () => call("GET", `${DSP}/campaigns`, undefined, { cookie: "tr-production=nope" }),
      403,
    ],
    ["logout without a cookie (401)", () => call("DELETE", "/api/session", undefined, { cookie: "" }), 401],
    ["logout", () => call("DELETE", "/api/session"), 204],
  ];

  it.each(cases)("%s", async (_what, request, status) => {
    const { exchange } = await request();
    expect(exchange.status, JSON.stringify(exchange.body)).toBe(status);
    expect(violations(exchange)).toEqual([]);
  });

  it("a rate-limited answer (429)", async () => {
    const limited = (
      await startCliAccount({
        seed: SEED,
        emulator: {
          rateLimits: {
            get: { limit: 1, windowMs: 60_000 },
            write: { limit: 1, windowMs: 60_000 },
            session: { limit: 10, windowMs: 60_000 },
          },
        },
      })
    ).emulator;
    try {
      const login = await fetch(`${limited.origin}/api/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: DEMO_USER.email, password: DEMO_USER.password }),
      });
      const session = (login.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
      let last: Response | undefined;
      for (let i = 0; i < 2; i++)
        last = await fetch(`${limited.origin}${DSP}/campaigns`, { headers: { cookie: session } });
      expect(last?.status).toBe(429);
      expect(Number(last?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      const exchange: Exchange = {
        method: "GET",
        path: `${DSP}/campaigns`,
        status: 429,
        body: await last?.json(),
      };
      expect(violations(exchange)).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});

describe("every request doohctl sends during plan and apply is one the contract names", () => {
  it("checks the emulator's request log of a plan and an apply that touch every kind of object", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-contract-"));
    writeFileSync(
      join(dir, "doohctl.yaml"),
      [
        "version: 1",
        "connection:",
        `  api_origin: ${emulator.origin}`,
        "  rate_limits: { get: 1000/60s, write: 1000/60s, session: 100/60s }",
        "insertion_orders:",
        '  - id: "1001"',
        "    contract_number: PO-77",
        "    campaigns:",
        '      - id: "5001"',
        "        name: Holiday airports",
        "        budget_impressions: 400000",
        "        targetings:",
        '          - venue_type_targeting_option: { venue_type_ids: ["12", "14"] }',
        "      - name: Contract check new",
        "        start_time: 2026-12-01T00:00:00Z",
        "        end_time: 2026-12-10T00:00:00Z",
        "        budget_impressions: 1000",
        "        cpm: 2 USD",
        "creatives:",
        '  - id: "9001"',
        '    category_ids: ["1", "2", "3"]',
        "",
      ].join("\n"),
    );
    const env = {
      DOOHCTL_EMAIL: DEMO_USER.email,
      DOOHCTL_PASSWORD: DEMO_USER.password,
      HOME: dir,
      DOOHCTL_SESSION_CACHE: "off",
    };
    const before = emulator.requestLog().length;
    for (const args of [["plan"], ["apply", "--auto-approve"]]) {
      const io = bufferIO({ env, cwd: dir });
      expect(await run(args, io), io.err()).toBe(0);
    }
    const sent = emulator.requestLog().slice(before);
    expect(sent.some((e) => e.method === "PATCH")).toBe(true);
    expect(sent.some((e) => e.path.startsWith(`${DSP}/creative_categories`))).toBe(true);
    for (const entry of sent) {
      const request = {
        method: entry.method as HttpMethod,
        path: entry.path,
        query: [...new URLSearchParams(entry.query)],
        // The log keeps no login body (it holds the password).
        ...(entry.body !== undefined ? { body: entry.body } : {}),
      };
      const issues = checkRequest(request).filter((i) => !(entry.path === "/api/session" && i.at === "/"));
      expect(issues, `${entry.method} ${entry.path}?${entry.query}`).toEqual([]);
    }
  });
});
