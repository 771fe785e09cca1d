/**
 * Whatever refuses, the record is settled first (docs/apply.md, Restoring only): an apply that
 * refuses (a policy denial, a stale saved plan after a killed apply, a plan that no longer
 * holds after waiting for another apply) reactivates what a stopped apply left paused, says so
 * apart from the refusal, and still exits 1. The DSP's state is checked at the end.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import { run } from "../../src/cli/program.js";
import { Targeting } from "../../src/model/targeting.js";
import { VENUES_A } from "../helpers/builders.js";
import { deadPid } from "../helpers/dead-pid.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";
import { colleagueClient, dspWrites } from "../helpers/world.js";
import { cli, deadApplyWorlds, holdApplyLock } from "./dead-apply.js";

const worlds = deadApplyWorlds();
const { afterDeadApply } = worlds;

const bodies = (from: number) =>
  dspWrites(worlds.emulator())
    .slice(from)
    .map((e) => e.body);
const REACTIVATION = { campaigns: [{ id: "5001", active: true }] };

describe("an apply that refuses", () => {
  it("denied by a policy, first reactivates the campaign a dead apply left paused, then fails", async () => {
    const w = await afterDeadApply(deadPid(), ["        cpm: 30 USD"]);
    appendFileSync(join(w.dir, "doohctl.yaml"), 'policy:\n  max_cpm: { limits: ["25 USD"], action: deny }\n');
    const apply = await cli(["apply", "--auto-approve"], w.env, w.dir);
    expect(apply.code).toBe(1);
    expect(apply.err).toContain("DOOH901");
    expect(apply.err).toMatch(/Recovery record: reactivated 1 campaign[^\n]*\n {2}campaign 5001 "Malls"/);
    expect(apply.err).toContain("the plan has errors: nothing of the plan was sent");
    expect(w.active("5001")).toBe(true);
    expect(w.emulatorCampaign("5001")?.cpm).toMatchObject({ units: "12" });
    expect(bodies(0)).toEqual([REACTIVATION]);
    expect(w.store.read()).toEqual([]);
  });

  it("refusing a stale saved plan after its apply was killed mid-pause, leaves every campaign active", async () => {
    const w = await afterDeadApply(deadPid(), [
      '        targetings: [{ venue_targeting_option: { venue_targeting_ids: ["201"] } }]',
    ]);
    // The plan was made while Malls was active, before the apply that paused it was killed.
    renameSync(w.env.DOOHCTL_STATE_DIR, `${w.env.DOOHCTL_STATE_DIR}.off`);
    const colleague = colleagueClient(worlds.emulator().origin, USER);
    try {
      await colleague.send(Endpoints.patchCampaigns([{ id: "5001", active: true }]));
      const plan = await cli(["plan", "-o", "p.json"], w.env, w.dir);
      expect(plan.code, plan.err).toBe(0);
      expect(plan.out).toContain("DOOH207");
      // The killed apply's pause, and its record.
      await colleague.send(Endpoints.patchCampaigns([{ id: "5001", active: false }]));
    } finally {
      await colleague.close();
    }
    renameSync(`${w.env.DOOHCTL_STATE_DIR}.off`, w.env.DOOHCTL_STATE_DIR);
    const before = dspWrites(worlds.emulator()).length;
    const apply = await cli(["apply", "--plan", "p.json", "--auto-approve"], w.env, w.dir);
    expect(apply.code).toBe(1);
    expect(apply.err).toMatch(/Recovery record: reactivated 1 campaign[^\n]*\n {2}campaign 5001 "Malls"/);
    // The refusal comes after the settling, and says nothing the settling made untrue.
    expect(apply.err).toContain(
      'left campaign 5001 "Malls" paused (the recovery record), which p.json does not reactivate, so nothing of it was applied. The Recovery record lines on stderr say whether they are active again; make a new plan',
    );
    expect(apply.err).not.toContain("it reactivates them");
    expect(w.active("5001")).toBe(true);
    expect(w.active("5002")).toBe(true);
    expect(bodies(before)).toEqual([REACTIVATION]);
    const kept = Targeting.normalizeList(worlds.emulator().state().targetings["5001"] ?? []);
    expect(Targeting.listEquals(kept, Targeting.normalizeList([VENUES_A]))).toBe(true);
  });

  it("after waiting for the apply lock, judges its plan again and, stale, settles the record before refusing", async () => {
    const w = await afterDeadApply(deadPid(), ["        budget_impressions: 150000"]);
    // The plan is made before the other apply's pause and record exist.
    renameSync(w.env.DOOHCTL_STATE_DIR, `${w.env.DOOHCTL_STATE_DIR}.off`);
    const colleague = colleagueClient(worlds.emulator().origin, USER);
    await colleague.send(Endpoints.patchCampaigns([{ id: "5001", active: true }]));
    // The other apply: a live process holding the account's apply lock.
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      holdApplyLock(w.env, worlds.emulator().origin, other.pid!);
      const io = bufferIO({ env: w.env, cwd: w.dir });
      const applying = run(["apply", "--auto-approve"], io);
      while (!io.err().includes("waiting for another apply")) await new Promise((r) => setTimeout(r, 20));
      expect(dspWrites(worlds.emulator())).toHaveLength(1);
      // Meanwhile the other apply pauses Malls, edits it, and dies, leaving its record.
      await colleague.send(
        Endpoints.patchCampaigns([{ id: "5001", active: false, budget_impressions: 120_000 }]),
      );
      renameSync(`${w.env.DOOHCTL_STATE_DIR}.off`, w.env.DOOHCTL_STATE_DIR);
      other.kill("SIGKILL");
      await once(other, "exit");
      const before = dspWrites(worlds.emulator()).length;
      expect(await applying).toBe(1);
      expect(io.err()).toMatch(/plan is stale: another apply of this account ran while this one waited/);
      expect(io.err()).toMatch(/Recovery record: reactivated 1 campaign[^\n]*\n {2}campaign 5001 "Malls"/);
      expect(w.active("5001")).toBe(true);
      // Nothing of the stale plan: the budget is the other apply's.
      expect(w.emulatorCampaign("5001")?.budget_impressions).toBe(120_000);
      expect(bodies(before)).toEqual([REACTIVATION]);
    } finally {
      other.kill("SIGKILL");
      await colleague.close();
    }
  });
});

describe("an apply that refuses before it can settle the record", () => {
  const HINT =
    /Recovery record: not settled: 1 campaign an apply that stopped left paused may still be paused; [^\n]*run doohctl apply --restore-only/;

  it("with a config that does not load, says a stopped apply's campaign may still be paused and how to restore it", async () => {
    const w = await afterDeadApply(deadPid(), ["        budget_impressions: lots"]);
    const before = dspWrites(worlds.emulator()).length;
    const apply = await cli(["apply", "--auto-approve"], w.env, w.dir);
    expect(apply.code).toBe(1);
    expect(apply.err).toContain("budget_impressions");
    expect(apply.err).toMatch(HINT);
    // Nothing sent: the config cannot say what it declares inactive; the record stays.
    expect(dspWrites(worlds.emulator()).length).toBe(before);
    expect(w.active("5001")).toBe(false);
    expect(w.store.read().map((e) => e.campaign_id)).toEqual(["5001"]);
  });

  it("refusing a file that is no saved plan, or a missing --auto-approve, says the same", async () => {
    const w = await afterDeadApply(deadPid());
    writeFileSync(join(w.dir, "junk.json"), '{"x": 1}\n');
    const saved = await cli(["apply", "--plan", "junk.json", "--auto-approve"], w.env, w.dir);
    expect(saved.code).toBe(1);
    expect(saved.err).toContain("not a doohctl plan file");
    expect(saved.err).toMatch(HINT);
    const unasked = await cli(["apply"], w.env, w.dir);
    expect(unasked.code).toBe(1);
    expect(unasked.err).toContain("--auto-approve");
    expect(unasked.err).toMatch(HINT);
    expect(w.active("5001")).toBe(false);
  });

  it("says nothing of campaigns a running apply holds paused", async () => {
    const w = await afterDeadApply(process.ppid, ["        budget_impressions: lots"]);
    const apply = await cli(["apply", "--auto-approve"], w.env, w.dir);
    expect(apply.code).toBe(1);
    expect(apply.err).not.toContain("Recovery record");
  });
});
