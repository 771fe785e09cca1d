/**
 * G14, as a property: whatever members the contract does not name a DSP adds to its answers,
 * and whichever members doohctl does not decide with it answers `null` or leaves out, every
 * plan is the one the plain answers give. A proxy in front of the emulator rewrites each
 * answer with fast-check's draws; the quick-start config and the example seed make plans
 * that touch every kind (fields, targetings, creatives, a new campaign, a pause).
 */
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNDECIDED_MEMBERS } from "../../src/api/members.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { exampleSeed } from "../helpers/example-seed.js";
import { bufferIO } from "../helpers/io.js";
import { type Answer, answeringProxy, send } from "../helpers/proxy.js";
import { DEMO_USER } from "../helpers/users.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CONFIG = join(ROOT, "examples", "quickstart", "doohctl.yaml");

// The example world on its own day, so the quick start plans as written on any day.
const { seed, clock } = await exampleSeed({ still: true });
let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = (await startCliAccount({ seed, emulator: { clock } })).emulator;
});
afterAll(() => emulator.close());

type Json = Record<string, unknown>;

/** Undecided members by the list key they sit under (or the object they are). */
const UNDECIDED_BY_KEY: Record<string, readonly string[]> = {
  insertion_orders: UNDECIDED_MEMBERS.InsertionOrder ?? [],
  creatives: UNDECIDED_MEMBERS.Creative ?? [],
  audits: UNDECIDED_MEMBERS.CreativeAuditEntry ?? [],
  asset: UNDECIDED_MEMBERS.CreativeAsset ?? [],
  advertisers: UNDECIDED_MEMBERS.Advertiser ?? [],
  creative_categories: UNDECIDED_MEMBERS.CreativeCategory ?? [],
};

interface Draw {
  /** Names and values of the unknown members added to each object. */
  extras: Array<[string, unknown]>;
  /** For each undecided member: left as is, null, or absent. */
  unset: "null" | "absent" | "keep";
  seed: number;
}

const extraValue = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
);
const draw: fc.Arbitrary<Draw> = fc.record({
  extras: fc.array(fc.tuple(fc.stringMatching(/^x_[a-z_]{1,10}$/), extraValue), {
    minLength: 1,
    maxLength: 3,
  }),
  unset: fc.constantFrom("null", "absent", "keep"),
  seed: fc.integer({ min: 0, max: 1000 }),
});

/** The answer as a richer DSP would give it under `d`: option sets and pacing left alone. */
function rewrite(value: unknown, d: Draw, key = "", depth = 0): unknown {
  if (Array.isArray(value))
    return value.map((v, i) => rewrite(v, { ...d, seed: d.seed + i }, key, depth + 1));
  if (value === null || typeof value !== "object") return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json)) {
    out[k] = k === "pacing" || k === "targetings" ? v : rewrite(v, d, k, depth + 1);
  }
  for (const m of UNDECIDED_BY_KEY[key] ?? []) {
    if (!(m in out)) continue;
    if (d.unset === "null") out[m] = null;
    else if (d.unset === "absent") delete out[m];
  }
  for (const [name, v] of d.extras) if (!(name in out)) out[name] = v;
  return out;
}

async function planThrough(answer: Answer): Promise<unknown> {
  const proxy = await answeringProxy(emulator.origin, answer);
  try {
    const io = bufferIO({
      clock: clock,
      env: {
        DOOHCTL_API_ORIGIN: proxy.origin,
        DOOHCTL_EMAIL: DEMO_USER.email,
        DOOHCTL_PASSWORD: DEMO_USER.password,
        DOOHCTL_SESSION_CACHE: "off",
      },
      cwd: ROOT,
    });
    expect(await run(["plan", CONFIG, "--format", "json"], io), io.err()).toBe(0);
    const plan = JSON.parse(io.out()) as Json;
    return {
      changes: plan.changes,
      requests: plan.requests,
      findings: plan.findings,
      fingerprints: plan.fingerprints,
    };
  } finally {
    await proxy.close();
  }
}

describe("plans through answers richer than the contract (G14)", () => {
  it("are the plans of the plain answers, whatever unknown members and unset undecided members are drawn", async () => {
    const plain = await planThrough(async () => false);
    await fc.assert(
      fc.asyncProperty(draw, async (d) => {
        const answer: Answer = async (seen, response, upstream) => {
          if (seen.method !== "GET" && seen.path !== "/api/session") return false;
          const up = await upstream();
          if (up.status !== 200) return false;
          send(response, { ...up, body: JSON.stringify(rewrite(JSON.parse(up.body), d)) });
          return true;
        };
        expect(await planThrough(answer)).toEqual(plain);
      }),
      { numRuns: 15 },
    );
  });
});
