/**
 * The recovery record belongs to the account (docs/safety.md, Recovery record), through
 * `run()` against the emulator: another API user of the account finishes a killed apply's
 * work, a record another account or a campaign outside the config names is reported and
 * never obeyed, a relative DOOHCTL_STATE_DIR is refused, and campaigns the config declares
 * `active: true` are restored by every plan, with or without a record.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { processStart } from "../../src/apply/lease.js";
import { accountKey, RecoveryStore } from "../../src/apply/recovery.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedCampaign, seedIo } from "../helpers/builders.js";
import { loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { deadPid } from "../helpers/dead-pid.js";
import { bufferIO } from "../helpers/io.js";
import { COLLEAGUE, USER } from "../helpers/users.js";
import { dspWrites } from "../helpers/world.js";

/** A second write user of USER's account (spec, Authentication 1: a user belongs to one account). */

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function cli(args: string[], env: Record<string, string>, dir: string) {
  const io = bufferIO({ env, cwd: dir });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** In flight now (the CLI runs on the real clock). */
const IN_FLIGHT = { start_time: "2026-01-01T00:00:00Z", end_time: "2030-01-01T00:00:00Z" };

/**
 * Malls (1001) and Stations (1002), both inactive, in flight; `config` is what the config
 * says of insertion order 1001's Malls, and 1002 is declared too.
 */
async function account(malls: string[] = []) {
  const started = await startCliAccount({
    users: [USER, COLLEAGUE],
    campaigns: [
      seedCampaign("5001", "1001", "Malls", { active: false, ...IN_FLIGHT }),
      seedCampaign("5002", "1002", "Stations", { active: false, ...IN_FLIGHT }),
      seedCampaign("5003", "1003", "Undeclared", { active: false, ...IN_FLIGHT }),
    ],
    seed: { insertion_orders: ["1001", "1002", "1003"].map((id) => seedIo(id, IN_FLIGHT)) },
    configOrders: [
      '  - id: "1001"',
      "    campaigns:",
      "      - name: Malls",
      ...malls,
      '  - id: "1002"',
      "    campaigns:",
      "      - name: Stations",
    ],
    prefix: "doohctl-recovery-account-",
  });
  emulator = started.emulator;
  const state = join(started.dir, "state");
  const env = { ...started.env, DOOHCTL_STATE_DIR: state };
  const scope = { origin: started.emulator.origin, environment: "production", account_id: USER.account_id };
  const active = (id: string) => started.emulator.state().campaigns.find((c) => c.id === id)?.active;
  return { dir: started.dir, env, state, scope, active };
}

/** What a killed apply leaves: a record of `paused`, its lease held by a process that is gone. */
function killedApplyRecord(
  state: string,
  scope: { origin: string; environment: string; account_id: string },
  paused: { campaign_id: string; insertion_order_id: string; name: string }[],
): string {
  const apply = new RecoveryStore(state, scope).begin("2026-11-23T10:00:00.000Z");
  apply.add(paused.map((p) => ({ ...p, paused_at: "2026-11-23T10:00:01.000Z" })));
  apply.end();
  const dir = join(state, "recovery", accountKey(scope));
  const path = join(dir, `${apply.applyId}.json`);
  const file = JSON.parse(readFileSync(path, "utf8"));
  const lease = { host: hostname(), pid: deadPid(), renewed_at: new Date().toISOString() };
  writeFileSync(path, JSON.stringify({ ...file, lease }));
  return path;
}

describe("the recovery record of a killed apply", () => {
  it("is finished by another API user of the same account with the same state directory", async () => {
    const w = await account();
    // Written by USER's apply, which was killed while Malls was paused.
    killedApplyRecord(w.state, w.scope, [{ campaign_id: "5001", insertion_order_id: "1001", name: "Malls" }]);
    const colleague = { ...w.env, ...loginEnv(COLLEAGUE, w.dir), DOOHCTL_STATE_DIR: w.state };
    const plan = await cli(["plan", "--detailed-exitcode"], colleague, w.dir);
    expect(plan.code, plan.err).toBe(2);
    expect(plan.out).toMatch(/DOOH202.*campaign 5001 "Malls"/);
    const apply = await cli(["apply", "--auto-approve"], colleague, w.dir);
    expect(apply.code, apply.err).toBe(0);
    expect(w.active("5001")).toBe(true);
    expect(new RecoveryStore(w.state, w.scope).read()).toEqual([]);
  });

  it("never obeys a file naming another origin, environment or account: reported (DOOH205), left on disk", async () => {
    const w = await account();
    const path = killedApplyRecord(w.state, w.scope, [
      { campaign_id: "5001", insertion_order_id: "1001", name: "Malls" },
    ]);
    const file = JSON.parse(readFileSync(path, "utf8"));
    for (const [field, value] of [
      ["origin", "https://evil.example"],
      ["environment", "staging"],
      ["account_id", "2"],
    ] as const) {
      writeFileSync(path, JSON.stringify({ ...file, [field]: value }));
      const apply = await cli(["apply", "--auto-approve"], w.env, w.dir);
      expect(apply.code, apply.err).toBe(0);
      expect(apply.err).toContain(`DOOH205: recovery record ${path}: it names`);
      expect(apply.err).toContain("never obeyed");
      expect(w.active("5001")).toBe(false);
      expect(dspWrites(emulator!)).toEqual([]);
    }
    expect(readdirSync(join(w.state, "recovery", accountKey(w.scope)))).toHaveLength(1);
  });

  it("never obeys an entry for a campaign outside the declared insertion orders", async () => {
    const w = await account();
    const path = killedApplyRecord(w.state, w.scope, [
      // Not declared at all, and declared but forged under a declared order.
      { campaign_id: "5003", insertion_order_id: "1003", name: "Undeclared" },
      { campaign_id: "5003", insertion_order_id: "1001", name: "Undeclared" },
    ]);
    const plan = await cli(["plan", "--detailed-exitcode"], w.env, w.dir);
    expect(plan.code, plan.err).toBe(0);
    expect(plan.out).toMatch(
      /DOOH205.*campaign 5003 "Undeclared" is not of an insertion order this config declares/,
    );
    expect(plan.out).toMatch(
      /DOOH205.*campaign 5003 "Undeclared" is under insertion order 1003, not 1001, and not of an insertion order/,
    );
    const apply = await cli(["apply", "--auto-approve"], w.env, w.dir);
    expect(apply.code, apply.err).toBe(0);
    expect(w.active("5003")).toBe(false);
    expect(dspWrites(emulator!)).toEqual([]);
    expect(JSON.parse(readFileSync(path, "utf8")).paused).toHaveLength(2);
  });
});

describe("a killed apply's record whose pid now belongs to an unrelated live process", () => {
  it.each([
    ["a stale lease", { pid_start: "real", renewed_at: -31_000 }],
    ["a fresh lease but another start time", { pid_start: "1", renewed_at: 0 }],
  ])("with %s is taken for stopped: apply reactivates the campaign", async (_, lease) => {
    if (lease.pid_start === "1" && processStart(process.ppid) === undefined) return; // no /proc here
    const w = await account();
    const path = killedApplyRecord(w.state, w.scope, [
      { campaign_id: "5001", insertion_order_id: "1001", name: "Malls" },
    ]);
    const file = JSON.parse(readFileSync(path, "utf8"));
    const start = lease.pid_start === "real" ? processStart(process.ppid) : lease.pid_start;
    writeFileSync(
      path,
      JSON.stringify({
        ...file,
        lease: {
          host: hostname(),
          // The test runner's parent: alive, and not the apply that took the lease.
          pid: process.ppid,
          ...(typeof start === "string" ? { pid_start: start } : {}),
          renewed_at: new Date(Date.now() + lease.renewed_at).toISOString(),
        },
      }),
    );
    const plan = await cli(["plan", "--detailed-exitcode"], w.env, w.dir);
    expect(plan.code, plan.err).toBe(2);
    expect(plan.out).not.toContain("DOOH203");
    expect(plan.out).toMatch(/DOOH202.*campaign 5001 "Malls"/);
    const apply = await cli(["apply", "--auto-approve"], w.env, w.dir);
    expect(apply.code, apply.err).toBe(0);
    expect(w.active("5001")).toBe(true);
  });
});

describe("DOOHCTL_STATE_DIR", () => {
  it("is refused when relative, naming it and what to set, before anything is sent", async () => {
    const w = await account(["        budget_impressions: 150000"]);
    for (const command of [["plan"], ["apply", "--auto-approve"], ["status"]]) {
      const out = await cli(command, { ...w.env, DOOHCTL_STATE_DIR: ".doohctl-state" }, w.dir);
      expect(out.code).toBe(1);
      expect(out.err).toContain("DOOHCTL_STATE_DIR=.doohctl-state is a relative path");
      expect(out.err).toContain('DOOHCTL_STATE_DIR="$PWD/.doohctl-state"');
    }
    expect(dspWrites(emulator!)).toEqual([]);
  });
});

describe("state-free restoration", () => {
  it("reactivates a campaign declared active: true that is inactive and in flight, with no record, whatever --target says", async () => {
    const w = await account(["        active: true"]);
    const scoped = await cli(["plan", "--target", "1002", "--format", "json"], w.env, w.dir);
    expect(scoped.code, scoped.err).toBe(0);
    const plan = JSON.parse(scoped.out);
    expect(plan.changes).toEqual([
      expect.objectContaining({
        kind: "update_campaign",
        address: "campaign.1001/Malls",
        fields: [{ field: "active", before: false, after: true }],
      }),
    ]);
    expect(plan.findings.map((f: { code: string }) => f.code)).toEqual(["DOOH208"]);
    // One read for it: the inactive campaigns in flight of the other declared orders.
    const reads = emulator!
      .requestLog()
      .filter((e) => e.method === "GET" && e.path.endsWith("/campaigns") && e.query.includes("in_flight"));
    expect(reads).toHaveLength(1);
    const query = decodeURIComponent(reads[0]!.query);
    expect(query).toMatch(/filter=active:false/);
    expect(query).toMatch(/filter=in_flight:true/);
    expect(query).toMatch(/filter=insertion_order_id:1001/);
    const apply = await cli(["apply", "--auto-approve", "--target", "1002"], w.env, w.dir);
    expect(apply.code, apply.err).toBe(0);
    expect(w.active("5001")).toBe(true);
    expect(w.active("5002")).toBe(false);
  });

  it("leaves alone, under --target elsewhere, a campaign whose config leaves active out", async () => {
    const w = await account();
    const scoped = await cli(["plan", "--target", "1002", "--detailed-exitcode"], w.env, w.dir);
    expect(scoped.code, scoped.err).toBe(0);
    expect(w.active("5001")).toBe(false);
  });
});
