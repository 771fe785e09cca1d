/**
 * What plan and apply do with the recovery record of an apply that died (ARCHITECTURE.md#recovery-record
 * record), through `run()` against the emulator: the record is written as the dead apply
 * left it (its pid one of a process that has exited), and the campaign it paused is inactive.
 */

import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { PUBLISHERS, seedCampaign, VENUES_A } from "../helpers/builders.js";
import { accountConfig, startCliAccount } from "../helpers/cli-account.js";
import { deadPid } from "../helpers/dead-pid.js";
import { bufferIO } from "../helpers/io.js";
import { interceptingProxy, relay } from "../helpers/proxy.js";
import { suiteClock } from "../helpers/suite-clock.js";
import { USER } from "../helpers/users.js";
import { dspWrites } from "../helpers/world.js";
import { cli, deadApplyWorlds, holdApplyLock } from "./dead-apply.js";

const worlds = deadApplyWorlds();
const { afterDeadApply } = worlds;

describe("a dead apply's recovery record", () => {
  it("makes plan reactivate the campaign (DOOH202) though the config leaves active out, and apply empties the record", async () => {
    const w = await afterDeadApply(deadPid());
    const plan = await cli(["plan", "--detailed-exitcode"], w.env, w.dir);
    expect(plan.code, plan.err).toBe(2);
    expect(plan.out).toMatch(/DOOH202.*campaign 5001 "Malls"/);
    const apply = await cli(["apply", "--auto-approve"], w.env, w.dir);
    expect(apply.code, apply.err).toBe(0);
    expect(w.active("5001")).toBe(true);
    expect(w.store.read()).toEqual([]);
    expect((await cli(["plan", "--detailed-exitcode"], w.env, w.dir)).code).toBe(0);
  });

  it("a damaged record file is not skipped in silence: plan fails naming the file (DOOH206), status exits 2, and the file stays", async () => {
    const w = await afterDeadApply(deadPid());
    const [name] = readdirSync(w.account);
    const damaged = join(w.account, name!);
    writeFileSync(damaged, readFileSync(damaged, "utf8").slice(0, 40));
    const plan = await cli(["plan"], w.env, w.dir);
    expect(plan.code).toBe(1);
    expect(plan.err).toContain(`DOOH206`);
    expect(plan.err).toContain(`recovery record ${damaged} cannot be read (not JSON)`);
    expect(plan.err).toMatch(/may still be paused.*doohctl status --all.*remove the file/);
    const apply = await cli(["apply", "--auto-approve"], w.env, w.dir);
    expect(apply.code).toBe(1);
    expect(dspWrites(worlds.emulator())).toEqual([]);
    const status = await cli(["status", "--all"], w.env, w.dir);
    expect(status.code, status.err).toBe(2);
    expect(status.err).toContain(`recovery record ${damaged} cannot be read (not JSON)`);
    expect(readdirSync(w.account)).toEqual([name]);
  });

  it("keeps the good entries of a damaged file: plan reactivates them and still fails on the bad one", async () => {
    const w = await afterDeadApply(deadPid());
    const [name] = readdirSync(w.account);
    const path = join(w.account, name!);
    const file = JSON.parse(readFileSync(path, "utf8"));
    writeFileSync(path, JSON.stringify({ ...file, paused: [{ campaign_id: "5999" }, ...file.paused] }));
    const plan = await cli(["plan", "--format", "json"], w.env, w.dir);
    expect(plan.code).toBe(1);
    expect(plan.out).toContain('entry 1 of \\"paused\\": insertion_order_id is missing');
    // Once the bad entry is settled by hand, the good one is still there and obeyed.
    writeFileSync(path, JSON.stringify(file));
    const apply = await cli(["apply", "--auto-approve"], w.env, w.dir);
    expect(apply.code, apply.err).toBe(0);
    expect(w.active("5001")).toBe(true);
  });

  it("is left to a running owner (DOOH203), named with its lease, never as no changes", async () => {
    // The parent process stands for an apply still running on this machine.
    const w = await afterDeadApply(process.ppid);
    const plan = await cli(["plan", "--detailed-exitcode"], w.env, w.dir);
    expect(plan.code, plan.err).toBe(2);
    expect(plan.out).toMatch(
      new RegExp(
        `DOOH203.*campaign 5001 "Malls".*still running \\(host .*, pid ${process.ppid}; its lease expires at \\d{4}-`,
      ),
    );
    expect(plan.out).not.toMatch(/plan: no changes\n/);
    expect(w.active("5001")).toBe(false);
    expect(w.store.read().map((e) => e.campaign_id)).toEqual(["5001"]);
  });

  it("makes apply wait for the running owner's lease, with a countdown, then reactivate what it left", async () => {
    const w = await afterDeadApply(process.ppid);
    const io = bufferIO({ env: w.env, cwd: w.dir });
    const applying = run(["apply", "--auto-approve"], io);
    while (!io.err().includes("waiting for it to finish")) await new Promise((r) => setTimeout(r, 20));
    expect(io.err()).toMatch(/paused by running apply .*pid \d+\).*lease to lapse in (29|30) s/);
    expect(dspWrites(worlds.emulator())).toEqual([]);
    // The owner stops renewing: its lease is 31 s old.
    for (const name of readdirSync(w.account)) {
      const file = JSON.parse(readFileSync(join(w.account, name), "utf8"));
      const renewed_at = new Date(suiteClock.now() - 31_000).toISOString();
      writeFileSync(join(w.account, name), JSON.stringify({ ...file, lease: { ...file.lease, renewed_at } }));
    }
    expect(await applying, io.err()).toBe(0);
    expect(io.out()).toMatch(/DOOH202.*campaign 5001 "Malls"/);
    expect(io.out()).not.toContain("No changes.");
    expect(w.active("5001")).toBe(true);
  });

  it("gives way to a config that declares the campaign inactive", async () => {
    const w = await afterDeadApply(deadPid(), ["        active: false"]);
    const plan = await cli(["plan", "--detailed-exitcode"], w.env, w.dir);
    expect(plan.code, plan.out).toBe(0);
    expect(plan.out).not.toContain("DOOH202");
    // An apply settles it: the entry goes, so taking `active: false` out later reactivates nothing.
    const apply = await cli(["apply", "--auto-approve"], w.env, w.dir);
    expect(apply.code, apply.err).toBe(0);
    expect(w.store.read()).toEqual([]);
    const config = join(w.dir, "doohctl.yaml");
    writeFileSync(config, readFileSync(config, "utf8").replace("        active: false\n", ""));
    const later = await cli(["plan", "--detailed-exitcode"], w.env, w.dir);
    expect(later.code, later.out).toBe(0);
    expect(w.active("5001")).toBe(false);
  });

  it("is honoured by a plan and apply narrowed with --target to another insertion order", async () => {
    const w = await afterDeadApply(deadPid());
    const apply = await cli(["apply", "--auto-approve", "--target", "1002"], w.env, w.dir);
    expect(apply.code, apply.err).toBe(0);
    // Delivery first: the narrowed run reactivates it too, and only then is the entry gone.
    expect(apply.out).toMatch(/DOOH202.*campaign 5001 "Malls"/);
    expect(w.active("5001")).toBe(true);
    expect(w.store.read()).toEqual([]);
  });

  it("under --target elsewhere, reactivates the campaign and changes nothing else of it", async () => {
    // Malls has a pending budget edit outside the target: --target 1002 must not apply it.
    const w = await afterDeadApply(deadPid(), ["        budget_impressions: 150000"]);
    const plan = await cli(["plan", "--target", "1002"], w.env, w.dir);
    expect(plan.out).toMatch(/DOOH202.*campaign 5001 "Malls"/);
    expect(plan.out).not.toContain("150000");
    const apply = await cli(["apply", "--auto-approve", "--target", "1002"], w.env, w.dir);
    expect(apply.code, apply.err).toBe(0);
    const malls = w.emulatorCampaign("5001");
    expect(malls?.active).toBe(true);
    expect(malls?.budget_impressions).toBe(100_000);
  });

  it("under --target of a sibling campaign, reactivates the campaign and changes nothing else of it", async () => {
    // Malls and Stations share insertion order 1001; Malls has a pending budget edit.
    const w = await afterDeadApply(deadPid(), ["        budget_impressions: 150000"], "1001");
    const apply = await cli(["apply", "--auto-approve", "--target", "5002"], w.env, w.dir);
    expect(apply.code, apply.err).toBe(0);
    expect(apply.out).toMatch(/DOOH202.*campaign 5001 "Malls"/);
    const malls = w.emulatorCampaign("5001");
    expect(malls?.active).toBe(true);
    expect(malls?.budget_impressions).toBe(100_000);
  });
});

describe("a plan narrowed with --target and a recorded campaign outside it", () => {
  it("reads and fingerprints only the campaign itself, not its targetings", async () => {
    const w = await afterDeadApply(
      deadPid(),
      ['        targetings: [{ venue_targeting_option: { venue_targeting_ids: ["201"] } }]'],
      "1001",
    );
    const plan = await cli(["plan", "--target", "5002", "-o", "p.json"], w.env, w.dir);
    expect(plan.code, plan.err).toBe(0);
    const saved = JSON.parse(readFileSync(join(w.dir, "p.json"), "utf8"));
    const fingerprinted = saved.fingerprints.map((f: { kind: string; id: string }) => `${f.kind}:${f.id}`);
    expect(fingerprinted).toContain("campaign:5001");
    expect(fingerprinted).not.toContain("targetings:5001");
  });
});

describe("an apply that waits for the apply that paused a campaign", () => {
  it("reactivates the campaign once that apply dies meanwhile, and applies the rest", async () => {
    // The other apply: a live process holding the lock and recorded as pausing Malls.
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      const w = await afterDeadApply(other.pid!, ["        budget_impressions: 150000"]);
      holdApplyLock(w.env, worlds.emulator().origin, other.pid!);
      const io = bufferIO({ env: w.env, cwd: w.dir });
      const applying = run(["apply", "--auto-approve"], io);
      while (!io.err().includes("waiting for it to finish")) await new Promise((r) => setTimeout(r, 20));
      expect(dspWrites(worlds.emulator())).toEqual([]);
      other.kill("SIGKILL");
      await once(other, "exit");
      const code = await applying;
      expect(code, io.err()).toBe(0);
      expect(io.out()).toMatch(/DOOH202.*campaign 5001 "Malls"/);
      expect(w.active("5001")).toBe(true);
      expect(w.emulatorCampaign("5001")?.budget_impressions).toBe(150_000);
    } finally {
      other.kill("SIGKILL");
    }
  });
});

describe("a saved plan that predates a dead apply's recovery record", () => {
  it("is refused naming the record and what to do, not called altered, after reactivating the campaign", async () => {
    const w = await afterDeadApply(deadPid());
    // The plan is made before the record exists (as if the other apply died afterwards).
    renameSync(w.env.DOOHCTL_STATE_DIR, `${w.env.DOOHCTL_STATE_DIR}.off`);
    const plan = await cli(["plan", "--target", "1002", "-o", "p.json"], w.env, w.dir);
    expect(plan.code, plan.err).toBe(0);
    renameSync(`${w.env.DOOHCTL_STATE_DIR}.off`, w.env.DOOHCTL_STATE_DIR);
    const writes = () => dspWrites(worlds.emulator());
    const before = writes().length;
    const apply = await cli(["apply", "--plan", "p.json", "--auto-approve"], w.env, w.dir);
    expect(apply.code).toBe(1);
    expect(apply.err).toMatch(/campaign 5001 "Malls".*recovery record/);
    expect(apply.err).toMatch(/make a new plan/i);
    expect(apply.err).not.toMatch(/altered/);
    // Refused, but the record is settled first: Malls is active again, and nothing else was sent.
    expect(apply.err).toMatch(/Recovery record: reactivated 1 campaign[^\n]*\n {2}campaign 5001 "Malls"/);
    expect(w.active("5001")).toBe(true);
    expect(
      writes()
        .slice(before)
        .map((e) => e.body),
    ).toEqual([{ campaigns: [{ id: "5001", active: true }] }]);
    expect(w.store.read()).toEqual([]);
  });
});

describe("an apply of this process that stopped and could not reactivate a campaign", () => {
  it("is over: the next plan in the same process reactivates the campaign (DOOH202), not leaves it to a running apply", async () => {
    // A long-lived caller (or a test run) makes several runs in one process.
    const stations = [
      '  - id: "1001"',
      "    campaigns:",
      "      - name: Stations",
      "        targetings:",
      '          - venue_targeting_option: { venue_targeting_ids: ["101", "102"] }',
    ];
    const account = await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5002", "1001", "Stations", { active: true })],
      seed: { targetings: { "5002": [VENUES_A, PUBLISHERS] } },
      configOrders: stations,
      prefix: "doohctl-recovery-own-",
    });
    const emulator = worlds.closeAfter(account.emulator);
    // The pause lands; the targetings PUT and every later PATCH (the reactivation) are refused.
    let refusing = true;
    let patches = 0;
    const proxy = await interceptingProxy(emulator.origin, {
      onRequest: (request, response, forward) => {
        const write = request.method === "PUT" || (request.method === "PATCH" && ++patches > 1);
        if (refusing && write && request.url?.includes("/campaigns")) {
          request.resume();
          response.writeHead(422, { "content-type": "application/json" });
          response.end(JSON.stringify({ message: "Invalid Request", data: [] }));
          return;
        }
        void forward().then((answer) => relay(answer, response));
      },
    });
    try {
      writeFileSync(join(account.dir, "doohctl.yaml"), accountConfig(proxy.origin, stations));
      const env = { ...account.env, DOOHCTL_STATE_DIR: join(account.dir, "state") };
      const apply = await cli(["apply", "--auto-approve"], env, account.dir);
      expect(apply.code, apply.err).toBe(1);
      expect(apply.out + apply.err).toMatch(/LEFT PAUSED by this apply \(1\)/);
      expect(emulator.state().campaigns.find((c) => c.id === "5002")?.active).toBe(false);
      refusing = false;
      const plan = await cli(["plan"], env, account.dir);
      expect(plan.out + plan.err).not.toContain("DOOH203");
      expect(plan.out).toMatch(/DOOH202.*campaign 5002 "Stations"/);
    } finally {
      await proxy.close();
    }
  });
});
