/**
 * A write is done when the DSP shows it (docs/apply.md, An inconsistent result): every answer
 * is compared with what was sent, as plan compares. Over HTTP against the emulator rehearsing
 * DSPs that depart from the contract (EmulatorOptions.departures, src/emulator/departures.ts):
 * one that drops a member it is sent, one that answers a create in another shape, and, behind a
 * proxy, one whose PATCH answers cannot be read.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { Departures } from "../../src/emulator/index.js";
import { PUBLISHERS, seedCampaign, VENUES_A } from "../helpers/builders.js";
import { accountConfig, type CliAccount, startCliAccount } from "../helpers/cli-account.js";
import { dialectOf } from "../helpers/dialects.js";
import { bufferIO } from "../helpers/io.js";
import { answeringProxy, type FakeDsp, send } from "../helpers/proxy.js";

let account: CliAccount | undefined;
let proxy: FakeDsp | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await account?.close();
  account = undefined;
});

async function exec(cli: CliAccount, args: string[]) {
  const io = bufferIO({ env: { ...cli.env, DOOHCTL_STATE_DIR: join(cli.dir, "state") }, cwd: cli.dir });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** North loses an option set (paused around the PUT, I1); South's budget rises to 150,000. */
const NORTH_NARROWED_SOUTH_RAISED = [
  '  - id: "1001"',
  "    campaigns:",
  "      - name: North",
  "        targetings: [{ venue_targeting_option: { venue_targeting_ids: ['101', '102'] } }]",
  "      - name: South",
  "        budget_impressions: 150000",
];

/** Two active campaigns with two option sets each, on an emulator that departs as `departures` says. */
function twoActive(departures: Departures, extra: Partial<Parameters<typeof startCliAccount>[0]> = {}) {
  return startCliAccount({
    campaigns: [
      seedCampaign("5001", "1001", "North", { active: true }),
      seedCampaign("5002", "1001", "South", { active: true }),
    ],
    seed: { targetings: { "5001": [VENUES_A, PUBLISHERS], "5002": [VENUES_A, PUBLISHERS] } },
    emulator: { departures },
    configOrders: NORTH_NARROWED_SOUTH_RAISED,
    ...extra,
  });
}

describe("a DSP that drops a member it is sent", () => {
  it("stops the apply naming the member, sent and answered; restores what it paused; the next plan shows it again", async () => {
    account = await twoActive({ dropOnWrite: ["budget_impressions"] });
    const applied = await exec(account, ["apply", "--auto-approve"]);

    expect(applied.code, applied.err).toBe(1);
    expect(applied.out).not.toContain("Apply complete");
    expect(applied.out).toContain("which the DSP accepted: PATCH /api/dsp/v1/campaigns");
    expect(applied.out).toContain("[APPLY_INCONSISTENT_RESULT]");
    // 150,000 sent, the DSP still shows the seeded 100,000.
    expect(applied.out).toContain(
      "campaigns[0].budget_impressions: campaign 5002: sent 150000, the DSP shows 100000 (G4: PATCH /campaigns sets every member it carries, in request order)",
    );
    expect(applied.out).toMatch(/from campaign\.1001\/South \(doohctl\.yaml:\d+\)/);
    expect(applied.out).toMatch(/Applied differently \(1\):\n {2}\d+\. PATCH \/api\/dsp\/v1\/campaigns/);
    expect(applied.out).toMatch(/Not sent \([1-9]\d*\):/);
    // North was paused in that same batch: reactivated before the report, nothing left dark.
    expect(applied.out).toContain("Delivery restored: 1 campaign");
    expect(applied.out).not.toContain("LEFT PAUSED");
    const state = account.emulator.state();
    expect(state.campaigns.map((c) => [c.id, c.active, c.budget_impressions])).toEqual([
      ["5001", true, 100_000],
      ["5002", true, 100_000],
    ]);

    // The difference did not stick: the next plan shows it again.
    const planned = await exec(account, ["plan", "--detailed-exitcode"]);
    expect(planned.code, planned.err).toBe(2);
    expect(planned.out).toMatch(/budget_impressions: 100,000 -> 150,000/);
  });

  it("says the same in the JSON result: applied differently, landed, each member with sent and answered", async () => {
    account = await twoActive({ dropOnWrite: ["budget_impressions"] });
    const applied = await exec(account, ["apply", "--auto-approve", "--format", "json"]);
    expect(applied.code, applied.err).toBe(1);
    const result = JSON.parse(applied.out) as {
      status: string;
      failure: { code: string; landed: boolean; inconsistent: unknown[]; request: { status: number } };
    };
    expect(result.status).toBe("failed");
    expect(result.failure).toMatchObject({
      code: "APPLY_INCONSISTENT_RESULT",
      landed: true,
      request: { status: 200 },
    });
    expect(result.failure.inconsistent).toEqual([
      {
        object: "campaign 5002",
        member: "budget_impressions",
        sent: 150_000,
        answered: 100_000,
        explain: "G4: PATCH /campaigns sets every member it carries, in request order",
      },
    ]);
  });
});

const HARBOUR = [
  '  - id: "1001"',
  "    campaigns:",
  "      - name: Harbour",
  "        active: true",
  '        start_time: "2026-12-01T00:00:00Z"',
  '        end_time: "2027-01-01T00:00:00Z"',
  "        budget_impressions: 20000",
  "        cpm: 10 USD",
  "        targetings: [{ venue_targeting_option: { venue_targeting_ids: ['101'] } }]",
];

describe("a DSP whose create answer is in another shape", () => {
  it.each<[string, Partial<Parameters<typeof startCliAccount>[0]>]>([
    ["ids only (no campaigns to read)", { emulator: { departures: { createAnswer: "ids" } } }],
    [
      "under campaigns while the body goes under the dialect's items",
      {
        emulator: {
          departures: { createAnswer: "campaigns" },
          dialect: dialectOf({ create_campaigns_member: "items" }),
        },
      },
    ],
  ])("%s: the new campaign's id is in the report, it ends active, and it exists once", async (_, options) => {
    account = await startCliAccount({ configOrders: HARBOUR, ...options });
    const dialect = account.emulator.dialect.create_campaigns_member;
    if (dialect !== "campaigns") {
      writeFileSync(
        join(account.dir, "doohctl.yaml"),
        accountConfig(account.emulator.origin, HARBOUR).replace(
          "connection:\n",
          `connection:\n  dialect: { create_campaigns_member: ${dialect} }\n`,
        ),
      );
    }
    const applied = await exec(account, ["apply", "--auto-approve"]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    const harbour = account.emulator.state().campaigns.filter((c) => c.name === "Harbour");
    expect(harbour).toHaveLength(1);
    expect(harbour[0]?.active).toBe(true);
    expect(applied.out).toContain("Apply complete.");
    expect(applied.out).toContain(`new campaign ids: ${harbour[0]!.id}`);
    const creates = account.emulator
      .requestLog()
      .filter((e) => e.method === "POST" && e.path.endsWith("/campaigns"));
    expect(creates).toHaveLength(1);

    const again = await exec(account, ["plan", "--detailed-exitcode"]);
    expect(again.code, again.out + again.err).toBe(0);
  });

  it("an answer it cannot read is said in the report with the ids it learnt by name", async () => {
    account = await startCliAccount({
      configOrders: HARBOUR,
      emulator: { departures: { createAnswer: "ids" } },
    });
    const applied = await exec(account, ["apply", "--auto-approve"]);
    expect(applied.code, applied.err).toBe(0);
    const id = account.emulator.state().campaigns.find((c) => c.name === "Harbour")!.id;
    expect(applied.out).toContain("1 answer could not be read; the result was learnt otherwise:");
    expect(applied.out).toMatch(
      new RegExp(
        `POST /api/dsp/v1/campaigns: .*its answer could not be read \\(not the contract's answer: at /campaigns: .*\\): new campaign ids learnt by name: ${id}`,
      ),
    );
  });
});

describe("a PATCH the DSP accepts with an answer that cannot be read", () => {
  /** Answers every PATCH /campaigns and PUT of targetings the emulator carried out with a body no reader expects. */
  async function unreadablePatches(cli: CliAccount): Promise<FakeDsp> {
    const fake = await answeringProxy(cli.emulator.origin, async (seen, response, upstream) => {
      const patch = seen.method === "PATCH" && seen.path.endsWith("/campaigns");
      if (!patch && !(seen.method === "PUT" && seen.path.endsWith("/targetings"))) return false;
      const answer = await upstream();
      if (answer.status !== 200) return false;
      send(response, { ...answer, body: JSON.stringify({ updated: true }) });
      return true;
    });
    writeFileSync(join(cli.dir, "doohctl.yaml"), accountConfig(fake.origin, NORTH_NARROWED_SOUTH_RAISED));
    return fake;
  }

  it("reads the objects back (campaigns, a targeting list) and goes on when they show it as sent", async () => {
    account = await twoActive({});
    proxy = await unreadablePatches(account);
    const applied = await exec(account, ["apply", "--auto-approve"]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(applied.out).toContain("Apply complete.");
    // The pause, the PUT and the reactivation: each read back.
    expect(applied.out).toContain("3 answers could not be read; the result was learnt otherwise:");
    expect(applied.out).toContain("its answer could not be read (not the contract's answer: at /campaigns");
    expect(applied.out).toMatch(
      /PUT \/api\/dsp\/v1\/campaigns\/5001\/targetings: .*its answer could not be read \(not the contract's answer: at \/targetings/,
    );
    expect(applied.out).toContain("the objects were read back");
    const state = account.emulator.state();
    expect(state.campaigns.map((c) => [c.id, c.active, c.budget_impressions])).toEqual([
      ["5001", true, 100_000],
      ["5002", true, 150_000],
    ]);
    expect(state.targetings["5001"]).toHaveLength(1);
  });

  it("is applied with its result unknown, never not applied, when reading the objects back fails too", async () => {
    account = await twoActive(
      {},
      {
        configOrders: [
          '  - id: "1001"',
          "    campaigns:",
          "      - name: South",
          "        budget_impressions: 150000",
        ],
      },
    );
    let patched = false;
    proxy = await answeringProxy(account.emulator.origin, async (seen, response, upstream) => {
      if (seen.method === "GET" && patched && seen.path.endsWith("/campaigns")) {
        send(response, {
          status: 503,
          headers: { "content-type": "application/json" },
          body: '{"message":"Service Unavailable"}',
        });
        return true;
      }
      if (seen.method !== "PATCH") return false;
      const answer = await upstream();
      patched = true;
      send(response, { ...answer, body: "<html>accepted</html>", headers: { "content-type": "text/html" } });
      return true;
    });
    writeFileSync(
      join(account.dir, "doohctl.yaml"),
      accountConfig(proxy.origin, [
        '  - id: "1001"',
        "    campaigns:",
        "      - name: South",
        "        budget_impressions: 150000",
      ]),
    );
    const applied = await exec(account, ["apply", "--auto-approve"]);
    expect(applied.code).toBe(1);
    expect(applied.out).not.toContain("Apply complete");
    expect(applied.out).toContain("[APPLY_RESULT_UNKNOWN]");
    expect(applied.out).toMatch(
      /Applied, result unknown \(1\):\n {2}1\. PATCH \/api\/dsp\/v1\/campaigns: .* -> 200/,
    );
    expect(applied.out).toContain("Not sent (0):");
    // It did land: the DSP holds the new budget.
    expect(account.emulator.state().campaigns.find((c) => c.id === "5002")?.budget_impressions).toBe(150_000);
  });

  it("stops as an inconsistent result when the objects read back show a member not taken", async () => {
    account = await twoActive({ dropOnWrite: ["budget_impressions"] });
    proxy = await unreadablePatches(account);
    const applied = await exec(account, ["apply", "--auto-approve"]);
    expect(applied.code).toBe(1);
    expect(applied.out).not.toContain("Apply complete");
    expect(applied.out).toContain("campaign 5002: sent 150000, the DSP shows 100000");
    expect(applied.out).toMatch(
      /Applied differently \(1\):\n.*its answer could not be read .*the objects were read back/,
    );
    expect(account.emulator.state().campaigns.every((c) => c.active)).toBe(true);
  });
});
