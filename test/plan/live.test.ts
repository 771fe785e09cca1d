/**
 * Reads and staleness over real HTTP against the emulator (example seed, port 0): creatives of
 * campaigns the plan activates (DOOH501), creative categories a creative would gain (DOOH010)
 * and insertion orders whose campaign set moved since the plan was made.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDspClient } from "../../src/api/client.js";
import { Endpoints } from "../../src/api/endpoints.js";
import type { DspClient } from "../../src/api/types.js";
import { loadConfig } from "../../src/config/load.js";
import { loadSeedFile, type RunningEmulator } from "../../src/emulator/index.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { createPlan } from "../../src/plan/planner.js";
import { readLiveState } from "../../src/plan/read.js";
import { fingerprintOf } from "../../src/plan/saved/fingerprint.js";
import { checkProposal } from "../../src/plan/saved/proposal.js";
import type { JsonValue } from "../../src/plan/types.js";
import { campaignCreate } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { PLAN_OPTIONS } from "../helpers/plans.js";
import { DEMO_USER } from "../helpers/users.js";

const ROOT = join(import.meta.dirname, "..", "..");

let emulator: RunningEmulator;
let client: DspClient;
let dir: string;

beforeAll(async () => {
  emulator = (
    await startCliAccount({
      seed: await loadSeedFile(join(ROOT, "examples", "emulator-seed.json")),
      emulator: { rateLimits: PUBLISHED_RATE_LIMITS },
    })
  ).emulator;
  client = createDspClient({ apiOrigin: emulator.origin, environment: "production", credentials: DEMO_USER });
  dir = mkdtempSync(join(tmpdir(), "doohctl-live-"));
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

const gets = () => emulator.requestLog().filter((e) => e.method === "GET").length;

async function planOf(name: string, yaml: string) {
  const file = join(dir, name);
  writeFileSync(file, `version: 1\n${yaml}`);
  const desired = await loadConfig([file], { cwd: dir });
  const before = gets();
  const live = await readLiveState(client, desired);
  return { plan: createPlan(desired, live, PLAN_OPTIONS), live, reads: gets() - before };
}

describe("reading what the plan's checks need", () => {
  it("reads the creatives of a campaign the plan activates and warns about one that will not serve (DOOH501)", async () => {
    // 9201 was DENIED by network 2 but APPROVED by network 1: it can serve (one rule with
    // status, src/model/creative-serving.ts). 9202's processing FAILED: it cannot. Associate
    // both with the inactive campaign 5203 first.
    const [creative] = await client.getCreatives(["9201"]);
    await client.send(
      Endpoints.patchCreatives([
        { id: "9201", campaign_ids: [...creative!.campaign_ids, "5203"] },
        { id: "9202", campaign_ids: ["5203"] },
      ]),
    );
    const { plan, reads } = await planOf(
      "activate.yaml",
      'insertion_orders:\n  - id: "1003"\n    campaigns:\n      - name: City transit\n        active: true\n',
    );
    // 1 insertion order + 1 campaigns + 1 creatives of campaign 5203 + ceil(1 advertiser / 100) = 1
    expect(reads).toBe(3 + 1);
    expect(plan.findings.filter((f) => f.code === "DOOH501").map((f) => f.message)).toEqual([
      'creative 9202 cannot serve: its processing FAILED, and is associated with campaign 5203 "City transit" of insertion order 1003, which this plan activates: it will not serve there',
    ]);
  });

  it("reads only the creative categories a creative would gain, and refuses an unknown one (DOOH010)", async () => {
    const unknown = await planOf(
      "categories.yaml",
      'insertion_orders:\n  - id: "1001"\ncreatives:\n  - id: "9001"\n    category_ids: ["1", "3", "4", "99"]\n',
    );
    // 1 insertion order + 1 campaigns + 1 creative 9001 + 1 page of the unfiltered category
    // list, which holds both 4 and 99 if they exist (the list names no filter field: G12),
    // + ceil(1 advertiser / 100) = 1 to name it in the money table
    expect(unknown.reads).toBe(4 + 1);
    expect(unknown.live.creativeCategories).toEqual([{ id: "4", name: "Sports & Outdoors" }]);
    expect(unknown.plan.findings).toEqual([
      expect.objectContaining({
        code: "DOOH010",
        severity: "error",
        address: "creative.9001",
        message: expect.stringContaining("creative 9001: category 99 in category_ids does not exist"),
        source: { file: "categories.yaml", line: 6, column: 19, path: "creatives[0].category_ids" },
      }),
    ]);
    expect(unknown.plan.requests).toEqual([]);

    const same = await planOf(
      "same-categories.yaml",
      'insertion_orders:\n  - id: "1001"\ncreatives:\n  - id: "9001"\n    category_ids: ["3", "1"]\n',
    );
    expect(same.reads).toBe(3 + 1); // the same, without the category list
    expect(same.plan.findings).toEqual([]);
  });
});

describe("staleness of an insertion order's campaign set", () => {
  it("says a campaign was added since the plan was made", async () => {
    const config = [
      "insertion_orders:",
      '  - id: "1002"',
      "    unmanaged_campaigns: deactivate",
      "    campaigns:",
      "      - name: Spring downtown",
      "      - name: Spring extra",
      "        start_time: 2027-03-05T00:00:00Z",
      "        end_time: 2027-04-01T00:00:00Z",
      "        budget_impressions: 10000",
      "        cpm: 10 USD",
      "",
    ].join("\n");
    const { plan } = await planOf("create.yaml", config);
    expect(plan.changes.map((c) => c.kind)).toEqual(["create_campaign"]);
    // As `apply --plan` checks a saved plan: made again from the same config, the live state now.
    expect(checkProposal(plan, (await planOf("create.yaml", config)).plan)).toEqual({
      stale: [],
      altered: [],
    });

    // Someone creates the campaign the plan is about to create: applying would duplicate it.
    const {
      campaigns: [created],
    } = await client.send(
      Endpoints.createCampaigns([
        campaignCreate({
          insertion_order_id: "1002",
          name: "Spring extra",
          start_time: "2027-03-05T00:00:00Z",
          end_time: "2027-04-01T00:00:00Z",
          budget_impressions: 10_000,
        }),
      ]),
    );
    expect(checkProposal(plan, (await planOf("create.yaml", config)).plan).stale).toEqual([
      `insertion order 1002: campaign ${created!.id} "Spring extra" was added since the plan was made`,
    ]);
  });

  it("refuses a plan whose insertion order fingerprints predate their campaign set: plan again", async () => {
    const config = 'insertion_orders:\n  - id: "1001"\n    contract_number: PO-9\n';
    const { plan } = await planOf("old.yaml", config);
    plan.fingerprints = plan.fingerprints.map((fp) => {
      if (fp.kind !== "insertion_order") return fp;
      const { campaigns: _, ...snapshot } = fp.snapshot as Record<string, JsonValue>;
      return fingerprintOf(fp.kind, fp.id, snapshot);
    });
    // Nothing moved, and no field is named, but the fingerprint is not today's: `apply --plan`
    // does not apply what it cannot compare.
    expect(checkProposal(plan, (await planOf("old.yaml", config)).plan)).toEqual({
      stale: ["insertion order 1001 changed since the plan was made"],
      altered: [],
    });
  });
});
