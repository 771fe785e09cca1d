/**
 * G14 (docs/assumptions.md#g14): the client reads answers through a tolerant view of the
 * contract. Members the contract does not name are ignored and never sent back; a member
 * doohctl does not decide with may be absent or null; a member it decides with that is absent,
 * null (where the contract forbids it) or mistyped stops plan and apply before any write. A
 * live targeting member doohctl does not know blocks any plan that would replace that list
 * (DOOH014). Over real HTTP: a proxy in front of the emulator rewrites its answers.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedCampaign, seedCreative } from "../helpers/builders.js";
import { accountConfig, loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { type Answer, answeringProxy, type Seen, send, type Upstream } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";

let emulator: RunningEmulator;
let dir: string;

const account = async () =>
  (
    await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5001", "1001", "Malls")],
      seed: { creatives: [{ ...seedCreative("9001"), pixel_url: "https://pixel.example.com/p?c=1" }] },
    })
  ).emulator;

beforeAll(async () => {
  emulator = await account();
  dir = mkdtempSync(join(tmpdir(), "doohctl-tolerant-"));
});
afterAll(() => emulator.close());

const MALLS = ['  - id: "1001"', "    contract_number: PO-42", "    campaigns:", "      - name: Malls"];

/** A config whose plan writes to every kind: a contract number, a budget, a targeting, a creative. */
const WRITES = [
  ...MALLS,
  "        budget_impressions: 150000",
  "        targetings:",
  '          - venue_type_targeting_option: { venue_type_ids: ["12"] }',
  '        creatives: ["9001"]',
  "creatives:",
  '  - id: "9001"',
  "    pixel_url: https://pixel.example.com/p?c=2",
];

type Json = Record<string, unknown>;

/** The emulator's GET answers, changed by `change`. */
function rewriteGets(change: (body: Json, path: string) => unknown): Answer {
  return async (seen: Seen, response, upstream) => {
    if (seen.method !== "GET") return false;
    const answer: Upstream = await upstream();
    if (answer.status !== 200) return false;
    send(response, { ...answer, body: JSON.stringify(change(JSON.parse(answer.body) as Json, seen.path)) });
    return true;
  };
}

/** Each object of a list answer (or the single object answered), changed in place. */
function eachObject(kind: string, change: (item: Json) => void): Answer {
  return rewriteGets((body, path) => {
    if (!path.includes(`/${kind}`) || path.endsWith("/targetings")) return body;
    const items = Array.isArray(body[kind]) ? (body[kind] as Json[]) : [body];
    for (const item of items) change(item);
    return body;
  });
}

interface Outcome {
  code: number;
  text: string;
  writes: string[];
}

async function runThrough(
  answer: Answer,
  lines: readonly string[],
  args: string[],
  target: RunningEmulator = emulator,
): Promise<Outcome> {
  const proxy = await answeringProxy(target.origin, answer);
  try {
    writeFileSync(join(dir, "doohctl.yaml"), accountConfig(proxy.origin, lines));
    const io = bufferIO({ env: { ...loginEnv(USER, dir), DOOHCTL_SESSION_CACHE: "off" }, cwd: dir });
    const code = await run(args, io);
    return {
      code,
      text: `${io.err()}\n${io.out()}`,
      writes: proxy.writes().map((w) => `${w.method} ${w.path}`),
    };
  } finally {
    await proxy.close();
  }
}

const planJson = ["plan", "--format", "json"];
const passThrough: Answer = async () => false;

/** The changes of a JSON plan, without what differs from run to run. */
function changesOf(outcome: Outcome): unknown {
  expect(outcome.code, outcome.text).toBe(0);
  const plan = JSON.parse(outcome.text.slice(outcome.text.indexOf("{"))) as {
    changes: unknown;
    requests: unknown;
  };
  return { changes: plan.changes, requests: plan.requests };
}

/** Adds a member the contract does not name to every object of every answer but option sets and pacing. */
function enrich(value: unknown, inOptionSets = false): unknown {
  if (Array.isArray(value)) return value.map((v) => enrich(v, inOptionSets));
  if (value === null || typeof value !== "object") return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json)) {
    out[k] = k === "pacing" ? v : enrich(v, k === "targetings");
  }
  if (!inOptionSets) out.updated_by = { id: "42", via: ["ui"] };
  return out;
}

describe("the tolerant reader: what doohctl does not decide with never stops it (G14)", () => {
  let baseline: unknown;
  beforeAll(async () => {
    baseline = changesOf(await runThrough(passThrough, WRITES, planJson));
  });

  it("plans the same when every object and list envelope carries members the contract does not name", async () => {
    expect(
      changesOf(
        await runThrough(
          rewriteGets((body) => enrich(body)),
          WRITES,
          planJson,
        ),
      ),
    ).toEqual(baseline);
  });

  it("never sends a member the contract does not name back in a write", async () => {
    const own = await account(); // apply changes the account: not the one the other tests plan against
    const outcome = await runThrough(
      rewriteGets((body) => enrich(body)),
      WRITES,
      ["apply", "--auto-approve", "--format", "json"],
      own,
    ).finally(() => own.close());
    expect(outcome.code, outcome.text).toBe(0);
    expect(outcome.writes.length).toBeGreaterThan(0);
    expect(outcome.text).not.toContain("updated_by");
    // The emulator refuses an unknown property in a write (G4): apply succeeding proves none went.
  });

  it("plans the same when every time carries six fraction digits (G14): equal instants are no change", async () => {
    const micro = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(micro);
      if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}T[\d:]+Z$/.test(value))
        return value.replace("Z", ".000000Z");
      if (value === null || typeof value !== "object") return value;
      return Object.fromEntries(
        Object.entries(value as Json).map(([k, v]) => [k, k === "pacing" ? v : micro(v)]),
      );
    };
    let seen = 0;
    const answer = rewriteGets((body) => {
      const out = micro(body);
      if (JSON.stringify(out).includes(".000000Z")) seen++;
      return out;
    });
    expect(changesOf(await runThrough(answer, WRITES, planJson))).toEqual(baseline);
    expect(seen).toBeGreaterThan(0);
  });

  it("keeps a config time's nanoseconds exactly in the write it plans", async () => {
    const lines = [...MALLS, "        end_time: 2027-02-01T00:00:00.123456789Z"];
    const outcome = await runThrough(passThrough, lines, planJson);
    expect(outcome.code, outcome.text).toBe(0);
    expect(outcome.text).toContain('"2027-02-01T00:00:00.123456789Z"');
  });

  const unsetMembers: Array<[string, string, string[]]> = [
    ["insertion order", "insertion_orders", ["name"]],
    [
      "creative",
      "creatives",
      ["name", "create_time", "thumbnail_url", "duration_ms", "type", "requires_audio", "asset"],
    ],
  ];
  for (const [label, kind, members] of unsetMembers) {
    it(`plans the same when a ${label}'s members doohctl does not decide with are null (${members.join(", ")})`, async () => {
      const answer = eachObject(kind, (item) => {
        for (const m of members) item[m] = null;
      });
      expect(changesOf(await runThrough(answer, WRITES, planJson))).toEqual(baseline);
    });
    it(`plans the same when a ${label}'s members doohctl does not decide with are absent`, async () => {
      const answer = eachObject(kind, (item) => {
        for (const m of members) delete item[m];
      });
      expect(changesOf(await runThrough(answer, WRITES, planJson))).toEqual(baseline);
    });
  }

  it("reads a creative's null audits as none", async () => {
    const answer = eachObject("creatives", (item) => {
      item.audits = null;
    });
    expect(changesOf(await runThrough(answer, WRITES, planJson))).toEqual(baseline);
  });

  it("reads a null pixel_url as unset: the config's pixel_url is set by a PATCH", async () => {
    const answer = eachObject("creatives", (item) => {
      item.pixel_url = null;
    });
    const outcome = await runThrough(answer, WRITES, planJson);
    const plan = JSON.parse(outcome.text.slice(outcome.text.indexOf("{"))) as { changes: Json[] };
    const pixel = plan.changes
      .flatMap((c) => (c.fields as Json[] | undefined) ?? [])
      .find((f) => f.field === "pixel_url");
    expect(pixel).toMatchObject({ before: "", after: "https://pixel.example.com/p?c=2" });
  });
});

describe("a member doohctl decides with that is absent, null or mistyped stops plan and apply before any write", () => {
  const cases: Array<[string, string, (item: Json) => void, string]> = [
    ["campaign active absent", "campaigns", (c) => delete c.active, "/campaigns/0/active"],
    ["campaign active null", "campaigns", (c) => (c.active = null), "/campaigns/0/active"],
    ["campaign active mistyped", "campaigns", (c) => (c.active = "true"), "/campaigns/0/active"],
    ["campaign name absent", "campaigns", (c) => delete c.name, "/campaigns/0/name"],
    ["campaign in_flight null", "campaigns", (c) => (c.in_flight = null), "/campaigns/0/in_flight"],
    ["campaign cpm null", "campaigns", (c) => (c.cpm = null), "/campaigns/0/cpm"],
    ["campaign pacing absent", "campaigns", (c) => delete c.pacing, "/campaigns/0/pacing"],
    ["campaign end_time mistyped", "campaigns", (c) => (c.end_time = 20270201), "/campaigns/0/end_time"],
    ["campaign id null", "campaigns", (c) => (c.id = null), "/campaigns/0/id"],
    [
      "campaign progress absent though asked for",
      "campaigns",
      (c) => delete c.progress,
      "campaign 5001/progress",
    ],
    ["campaign progress null", "campaigns", (c) => (c.progress = null), "/campaigns/0/progress"],
    [
      "insertion order start_time null",
      "insertion_orders",
      (io) => (io.start_time = null),
      "/insertion_orders/0/start_time",
    ],
    [
      "insertion order advertiser_id absent",
      "insertion_orders",
      (io) => delete io.advertiser_id,
      "/insertion_orders/0/advertiser_id",
    ],
    [
      "insertion order contract_number absent",
      "insertion_orders",
      (io) => delete io.contract_number,
      "/insertion_orders/0/contract_number",
    ],
    [
      "insertion order budget_money mistyped",
      "insertion_orders",
      (io) => (io.budget_money = "50000 USD"),
      "/insertion_orders/0/budget_money",
    ],
    ["creative campaign_ids null", "creatives", (c) => (c.campaign_ids = null), "/creatives/0/campaign_ids"],
    ["creative archived absent", "creatives", (c) => delete c.archived, "/creatives/0/archived"],
    [
      "creative advertiser_id mistyped",
      "creatives",
      (c) => (c.advertiser_id = 1),
      "/creatives/0/advertiser_id",
    ],
    ["creative pixel_url mistyped", "creatives", (c) => (c.pixel_url = 7), "/creatives/0/pixel_url"],
    [
      "creative processing_status null",
      "creatives",
      (c) => (c.processing_status = null),
      "/creatives/0/processing_status",
    ],
    ["creative audits mistyped", "creatives", (c) => (c.audits = "none"), "/creatives/0/audits"],
  ];
  for (const [label, kind, change, at] of cases) {
    it(label, async () => {
      for (const args of [planJson, ["apply", "--auto-approve", "--format", "json"]]) {
        const outcome = await runThrough(eachObject(kind, change), WRITES, args);
        expect(outcome.code, outcome.text).toBe(1);
        expect(outcome.text).toContain(`at ${at}`);
        expect(outcome.writes).toEqual([]);
      }
    });
  }

  it("a list's total_size null", async () => {
    const outcome = await runThrough(
      rewriteGets((body) => ("total_size" in body ? { ...body, total_size: null } : body)),
      WRITES,
      planJson,
    );
    expect(outcome.code).toBe(1);
    expect(outcome.text).toContain("at /total_size");
  });

  it("targetings null", async () => {
    const outcome = await runThrough(
      rewriteGets((body, path) => (path.endsWith("/targetings") ? { targetings: null } : body)),
      WRITES,
      planJson,
    );
    expect(outcome.code).toBe(1);
    expect(outcome.text).toContain("at /targetings");
  });
});

describe("a live targeting member doohctl does not know is never dropped (G14, DOOH014)", () => {
  const targetings = (sets: Json[]) =>
    rewriteGets((body, path) => (path.endsWith("/targetings") ? { targetings: sets } : body));

  it("stops a plan that would replace the list, naming the campaign and the member, and writes nothing", async () => {
    const answer = targetings([{ frequency_cap_option: { max_per_day: 3 } }]);
    for (const args of [planJson, ["apply", "--auto-approve", "--format", "json"]]) {
      const outcome = await runThrough(answer, WRITES, args);
      expect(outcome.code, outcome.text).toBe(1);
      expect(outcome.text).toContain("DOOH014");
      expect(outcome.text).toContain("campaign 5001");
      expect(outcome.text).toContain("frequency_cap_option");
      expect(outcome.text).toContain("Leave `targetings` undeclared for this campaign");
      expect(outcome.writes).toEqual([]);
    }
  });

  it("names a field doohctl does not know inside a known member", async () => {
    const answer = targetings([{ venue_type_targeting_option: { venue_type_ids: ["14"], radius_m: 500 } }]);
    const outcome = await runThrough(answer, WRITES, planJson);
    expect(outcome.code).toBe(1);
    expect(outcome.text).toContain("venue_type_targeting_option.radius_m");
  });

  it("compares on the known members only: a list equal on them is no change", async () => {
    const answer = targetings([{ venue_type_targeting_option: { venue_type_ids: ["12"], radius_m: 500 } }]);
    const outcome = await runThrough(answer, WRITES, planJson);
    expect(outcome.code, outcome.text).toBe(0);
    expect(outcome.text).not.toContain("DOOH014");
    expect(outcome.text).not.toContain("replace_targetings");
  });

  it("leaves a plan that does not declare the campaign's targetings unaffected", async () => {
    const answer = targetings([{ frequency_cap_option: { max_per_day: 3 } }]);
    const outcome = await runThrough(answer, [...MALLS, "        budget_impressions: 150000"], planJson);
    expect(outcome.code, outcome.text).toBe(0);
    expect(outcome.text).not.toContain("DOOH014");
  });

  it("makes a saved plan stale when an unknown member appears in a list it would replace", async () => {
    const known = { venue_type_targeting_option: { venue_type_ids: ["14"] } };
    let current = targetings([known]);
    // One proxy for both runs: the config names its origin, and a saved plan its config.
    const proxy = await answeringProxy(emulator.origin, (seen, response, upstream) =>
      current(seen, response, upstream),
    );
    try {
      writeFileSync(join(dir, "doohctl.yaml"), accountConfig(proxy.origin, WRITES));
      const cliRun = async (args: string[]) => {
        const io = bufferIO({ env: { ...loginEnv(USER, dir), DOOHCTL_SESSION_CACHE: "off" }, cwd: dir });
        return { code: await run(args, io), text: `${io.err()}\n${io.out()}` };
      };
      const planned = await cliRun(["plan", "-o", "saved.json"]);
      expect(planned.code, planned.text).toBe(0);
      current = targetings([{ venue_type_targeting_option: { venue_type_ids: ["14"], radius_m: 500 } }]);
      const applied = await cliRun(["apply", "--plan", "saved.json", "--auto-approve"]);
      expect(applied.code, applied.text).toBe(1);
      expect(applied.text).toContain("targetings of campaign 5001");
      expect(proxy.writes()).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
