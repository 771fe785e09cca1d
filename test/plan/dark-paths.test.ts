/**
 * Every dark path counts: end_time moved to now, no creative left that
 * can serve, a budget at or below what is delivered stop a campaign in flight as surely as a
 * deactivation; no_deactivation_in_flight (DOOH905) denies each, and without a policy the
 * ones no other finding names are DOOH102. A budget cut that leaves less than
 * --min-budget-days at the current pace is DOOH304.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDspClient } from "../../src/api/client.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import type { CampaignFields, PolicyRule, PolicyRules } from "../../src/model/desired.js";
import type { AuditStatus } from "../../src/model/wire.js";
import { createPlan } from "../../src/plan/planner.js";
import { readLiveState } from "../../src/plan/read.js";
import type { LiveState } from "../../src/plan/types.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  liveCampaign,
  liveCreative,
  liveState,
  seedAccount,
  source,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { PLAN_OPTIONS, plan } from "../helpers/plans.js";
import { USER } from "../helpers/users.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

const deny: PolicyRule = { action: "deny", source: source(3, "policy.no_deactivation_in_flight") };
const progress = (impressions: number) => ({ impressions_delivered: impressions, spend: usd("0") });
const approved = (id: string, campaignIds: string[], status: AuditStatus = "APPROVED") =>
  liveCreative({
    id,
    campaign_ids: campaignIds,
    audits: [{ network_id: "1", status, message: "", last_reviewed: "2026-10-01T00:00:00Z" }],
  });

function desired(fields: CampaignFields, options: { creatives?: string[]; policy?: PolicyRules } = {}) {
  const state = desiredState([
    desiredIo("1001", {
      campaigns: [
        desiredCampaign("Airports", {
          fields,
          ...(options.creatives !== undefined ? { creatives: options.creatives } : {}),
        }),
      ],
    }),
  ]);
  return options.policy ? { ...state, policy: options.policy } : state;
}

const codes = (p: { findings: { code: string; severity: string }[] }) =>
  p.findings.map((f) => `${f.severity} ${f.code}`);

/** Airports: active, in flight, 100,000 impressions, 40,000 delivered, creative 9001 approved. */
function flying(overrides: Partial<LiveState> = {}): LiveState {
  return liveState({
    campaigns: [liveCampaign({ in_flight: true, progress: progress(40_000) })],
    creatives: [approved("9001", ["5001"])],
    ...overrides,
  });
}

describe("dark paths of a campaign in flight", () => {
  it("denies end_time at now under no_deactivation_in_flight, as it stops delivery (DOOH905)", () => {
    const p = plan(
      desired({ end_time: PLAN_OPTIONS.now }, { policy: { no_deactivation_in_flight: deny } }),
      flying(),
    );
    expect(codes(p)).toEqual(["error DOOH905", "warning DOOH302"]);
    expect(p.requests).toEqual([]);
    expect(p.findings[0]!.message).toBe(
      `stops delivery of campaign 5001 "Airports" in flight (2026-12-15T00:00:00Z to 2027-02-01T00:00:00Z): moves end_time to ${PLAN_OPTIONS.now}, at or before now: policy doohctl.yaml:3 (policy.no_deactivation_in_flight) denies it; change the config, or pass --allow DOOH905 to apply anyway`,
    );
  });

  it("warns (DOOH102) when creatives: [] leaves a live campaign in flight nothing to serve, and denies it under the policy", () => {
    const quiet = plan(desired({}, { creatives: [] }), flying());
    expect(codes(quiet)).toEqual(["warning DOOH102"]);
    expect(quiet.findings[0]!.message).toBe(
      'stops delivery of campaign 5001 "Airports", in flight now, without deactivating it: removes its last creative',
    );
    const denied = plan(
      desired({}, { creatives: [], policy: { no_deactivation_in_flight: deny } }),
      flying(),
    );
    expect(codes(denied)).toEqual(["error DOOH905", "warning DOOH102"]);
  });

  it("counts a swap to creatives that cannot serve, and not one to a creative that can", () => {
    const live = flying({
      creatives: [approved("9001", ["5001"]), approved("9002", [], "PENDING"), approved("9003", [])],
    });
    const pending = plan(desired({}, { creatives: ["9002"] }), live);
    expect(pending.findings.map((f) => f.message)).toContain(
      'stops delivery of campaign 5001 "Airports", in flight now, without deactivating it: leaves it no creative that can serve (9002 cannot)',
    );
    const swapped = plan(desired({}, { creatives: ["9003"] }), live);
    expect(codes(swapped).filter((c) => c.endsWith("DOOH102"))).toEqual([]);
  });

  it("counts a budget at what is delivered (DOOH102; below it is DOOH801) and denies both under the policy", () => {
    // 40,000 delivered: a budget of 40,000 leaves 0 to deliver
    const at = plan(desired({ budget_impressions: 40_000 }), flying());
    expect(codes(at)).toEqual(["warning DOOH102"]);
    expect(at.findings[0]!.message).toContain(
      "sets budget_impressions to 40,000, at or below the 40,000 it has delivered",
    );
    const policy = { no_deactivation_in_flight: deny };
    expect(codes(plan(desired({ budget_impressions: 40_000 }, { policy }), flying()))).toEqual([
      "error DOOH905",
      "warning DOOH102",
    ]);
    expect(codes(plan(desired({ budget_impressions: 39_999 }, { policy }), flying()))).toEqual([
      "error DOOH801",
      "error DOOH905",
    ]);
  });

  it("leaves alone a campaign that is inactive or not in flight", () => {
    const policy = { no_deactivation_in_flight: deny };
    const ahead = flying({ campaigns: [liveCampaign({ progress: progress(0) })] });
    expect(codes(plan(desired({ budget_impressions: 0 }, { policy }), ahead))).toEqual([]);
    const paused = flying({
      campaigns: [liveCampaign({ in_flight: true, active: false, progress: progress(40_000) })],
    });
    expect(codes(plan(desired({}, { creatives: [], policy }), paused))).toEqual([]);
  });
});

describe("a budget cut that leaves less than --min-budget-days at the current pace (DOOH304)", () => {
  // 600k -> 275k with 271,368 delivered. Flight Dec 1 to Jan 31, now Dec
  // 20: 19 days elapsed, pace 271,368 / 19 = 14,282.5 a day (14,283 shown); the 3,632 left last
  // 3,632 / 14,282.5 = 0.254 days (0.3 shown), and 42 days of flight remain: dark about
  // 42 - 0.254 = 41.7 days early.
  const live = liveState({
    campaigns: [
      liveCampaign({
        in_flight: true,
        start_time: "2026-12-01T00:00:00Z",
        end_time: "2027-01-31T00:00:00Z",
        budget_impressions: 600_000,
        progress: progress(271_368),
      }),
    ],
  });
  const now = "2026-12-20T00:00:00Z";

  it("warns, with the pace and how long the rest lasts", () => {
    const p = plan(desired({ budget_impressions: 275_000 }), live, { now });
    expect(codes(p)).toEqual(["warning DOOH304"]);
    expect(p.findings[0]!.message).toBe(
      'cuts budget_impressions of campaign 5001 "Airports", in flight, 600,000 -> 275,000: the 3,632 impressions left last about 0.3 days at its pace of 14,283 a day (271,368 delivered in 19.0 days), less than --min-budget-days 2; it would go dark about 41.7 days before its flight ends',
    );
  });

  it("judges the days left exactly against --min-budget-days", () => {
    // 305,289 leaves 33,921 impressions: they last 33,921 x 19 / 271,368 = 2.375 days exactly.
    // Not less than --min-budget-days 2.375: quiet; less than 2.3751: the warning.
    const cut = desired({ budget_impressions: 305_289 });
    expect(codes(plan(cut, live, { now, thresholds: { min_budget_days: 2.375 } }))).toEqual([]);
    const p = plan(cut, live, { now, thresholds: { min_budget_days: 2.3751 } });
    expect(codes(p)).toEqual(["warning DOOH304"]);
    expect(p.findings[0]!.message).toContain("the 33,921 impressions left last about 2.4 days");
  });

  it("stays quiet for a cut that leaves enough, and takes its threshold from the flag", () => {
    // 300,000: 28,632 left / 14,282.5 = 2.0047 days, just above 2
    expect(codes(plan(desired({ budget_impressions: 300_000 }), live, { now }))).toEqual([]);
    // 0.2 days: 0.254 is above it
    expect(
      codes(
        plan(desired({ budget_impressions: 275_000 }), live, { now, thresholds: { min_budget_days: 0.2 } }),
      ),
    ).toEqual([]);
  });
});

describe("dark paths against the emulator", () => {
  let world: EmulatorWorld | undefined;
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
    emulator = undefined;
  });

  it("reads the creatives of a campaign declaring creatives: [] and names the dark path (DOOH102)", async () => {
    const clock = new VirtualClock({ start: Date.parse("2026-12-10T00:00:00Z") });
    const approvedAudit = {
      network_id: "1",
      status: "APPROVED" as const,
      message: "",
      last_reviewed: "2026-11-20T00:00:00Z",
    };
    const base = seedAccount();
    world = await emulatorWorld({
      clock,
      emulator: { rateLimits: "off" },
      seed: {
        ...base,
        // 9001 serves on 5001 (Airports, active, in flight since Dec 1): approved by network 1.
        creatives: (base.creatives ?? []).map((c) =>
          c.id === "9001" ? { ...c, audits: [approvedAudit] } : c,
        ),
      },
    });
    emulator = world.emulator;
    const client = createDspClient({
      apiOrigin: emulator.origin,
      environment: "production",
      credentials: USER,
    });
    try {
      const d = desiredState([
        desiredIo("1001", { campaigns: [desiredCampaign("Airports", { id: "5001", creatives: [] })] }),
      ]);
      const live = await readLiveState(client, d);
      const p = createPlan(d, live, { ...PLAN_OPTIONS, now: new Date(clock.now()).toISOString() });
      expect(p.findings.map((f) => f.message)).toEqual([
        'stops delivery of campaign 5001 "Airports", in flight now, without deactivating it: removes its last creative',
      ]);
    } finally {
      await client.close();
    }
  });
});
