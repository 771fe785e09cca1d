/**
 * `doohctl apply --restore-only` (docs/apply.md, Restoring only): the settling step alone.
 * It reactivates what a dead apply left paused unless the config declares it inactive, leaves
 * a running apply's campaigns alone, and sends nothing else; the DSP's state is checked each time.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RecoveryStore } from "../../src/apply/recovery.js";
import { deadPid } from "../helpers/dead-pid.js";
import { interceptingProxy, relay } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";
import { dspWrites } from "../helpers/world.js";
import { cli, deadApplyWorlds } from "./dead-apply.js";

const SCOPE = { environment: "production", account_id: USER.account_id };
const STARTED = "2026-11-23T10:00:01.000Z";

const worlds = deadApplyWorlds();
const { afterDeadApply } = worlds;

/** Every write sent: only PATCHes of `active: true`, never anything else. */
function onlyReactivations(): unknown[] {
  return dspWrites(worlds.emulator()).map((w) => ({ method: w.method, path: w.path, body: w.body }));
}

describe("apply --restore-only", () => {
  it("reactivates a campaign a dead apply paused though the config leaves active out, and empties the record", async () => {
    const w = await afterDeadApply(deadPid(), ["        budget_impressions: 150000"]);
    const restored = await cli(["apply", "--restore-only"], w.env, w.dir);
    expect(restored.code, restored.err).toBe(0);
    expect(restored.out).toMatch(
      /reactivated 1 campaign .*\n {2}campaign 5001 "Malls" \(insertion order 1001\)/,
    );
    expect(w.active("5001")).toBe(true);
    // Nothing else: the pending budget edit is not applied.
    expect(w.emulatorCampaign("5001")?.budget_impressions).toBe(100_000);
    expect(onlyReactivations()).toEqual([
      { method: "PATCH", path: "/api/dsp/v1/campaigns", body: { campaigns: [{ id: "5001", active: true }] } },
    ]);
    expect(w.store.read()).toEqual([]);
    const again = await cli(["apply", "--restore-only", "--format", "json"], w.env, w.dir);
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ format_version: 1, status: "restored", reactivated: [] });
  });

  it("prints the campaigns it reactivated as JSON", async () => {
    const w = await afterDeadApply(deadPid());
    const restored = await cli(
      ["apply", "--restore-only", "--format", "json", "--auto-approve"],
      w.env,
      w.dir,
    );
    expect(restored.code, restored.err).toBe(0);
    expect(JSON.parse(restored.out)).toMatchObject({
      status: "restored",
      reactivated: [{ campaign_id: "5001", insertion_order_id: "1001", name: "Malls" }],
      declared_inactive: [],
      held: [],
      not_restored: [],
    });
    expect(w.active("5001")).toBe(true);
  });

  it("leaves a campaign the config declares inactive inactive, and settles its entry", async () => {
    const w = await afterDeadApply(deadPid(), ["        active: false"]);
    const restored = await cli(["apply", "--restore-only"], w.env, w.dir);
    expect(restored.code, restored.err).toBe(0);
    expect(restored.out).toMatch(/left inactive, as the config declares.*\n {2}campaign 5001 "Malls"/);
    expect(w.active("5001")).toBe(false);
    expect(dspWrites(worlds.emulator())).toEqual([]);
    expect(w.store.read()).toEqual([]);
  });

  it("does not touch a campaign whose apply is still running", async () => {
    // The parent process stands for the apply still running on this machine.
    const w = await afterDeadApply(process.ppid);
    const restored = await cli(["apply", "--restore-only"], w.env, w.dir);
    expect(restored.code, restored.err).toBe(0);
    expect(restored.out).toMatch(
      new RegExp(`left to the apply still running .*\\n {2}campaign 5001 "Malls" .* pid ${process.ppid}\\)`),
    );
    expect(w.active("5001")).toBe(false);
    expect(dspWrites(worlds.emulator())).toEqual([]);
    expect(w.store.read().map((e) => e.campaign_id)).toEqual(["5001"]);
  });

  it("exits 1 naming the campaign when its reactivation is refused, and the record keeps it", async () => {
    const w = await afterDeadApply(deadPid());
    const proxy = await interceptingProxy(worlds.emulator().origin, {
      onRequest: (request, response, forward) => {
        if (request.method === "PATCH") {
          request.resume();
          response.writeHead(422, { "content-type": "application/json" });
          response.end(JSON.stringify({ message: "Invalid Request", data: [] }));
          return;
        }
        void forward().then((answer) => relay(answer, response));
      },
    });
    try {
      // The same account reached through the proxy: its record is keyed by the proxy's origin.
      const config = join(w.dir, "doohctl.yaml");
      writeFileSync(config, readFileSync(config, "utf8").replace(worlds.emulator().origin, proxy.origin));
      const store = new RecoveryStore(w.env.DOOHCTL_STATE_DIR, { ...SCOPE, origin: proxy.origin });
      const dead = store.begin("2026-11-23T10:00:00.000Z");
      dead.add([{ campaign_id: "5001", insertion_order_id: "1001", name: "Malls", paused_at: STARTED }]);
      dead.end();
      const restored = await cli(["apply", "--restore-only"], w.env, w.dir);
      expect(restored.code).toBe(1);
      expect(restored.out).toMatch(/NOT RESTORED \(1 campaign\): .*422.*\n {2}campaign 5001 "Malls"/);
      expect(w.active("5001")).toBe(false);
      expect(store.read().map((e) => e.campaign_id)).toEqual(["5001"]);
    } finally {
      await proxy.close();
    }
  });

  it("refuses --plan, --target and --changed-since, before anything is read", async () => {
    const w = await afterDeadApply(deadPid());
    for (const extra of [
      ["--plan", "p.json"],
      ["--target", "1001"],
      ["--changed-since", "HEAD"],
    ]) {
      const refused = await cli(["apply", "--restore-only", ...extra], w.env, w.dir);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain("--restore-only reactivates what the recovery record holds paused");
    }
    expect(worlds.emulator().requestLog()).toEqual([]);
    expect(w.active("5001")).toBe(false);
  });
});

describe("apply --restore-only, with a record entry of an insertion order the config does not declare", () => {
  it("names it with the DSP's text made printable: no escape sequence reaches the terminal", async () => {
    const w = await afterDeadApply(deadPid());
    const [name] = readdirSync(w.account);
    const path = join(w.account, name!);
    const file = JSON.parse(readFileSync(path, "utf8"));
    file.paused[0] = {
      ...file.paused[0],
      insertion_order_id: "1003",
      name: "Malls\u001b[2J\rdoohctl: all campaigns active",
    };
    writeFileSync(path, JSON.stringify(file), { mode: 0o600 });
    const restored = await cli(["apply", "--restore-only"], w.env, w.dir);
    expect(restored.err).toContain("DOOH205");
    expect(restored.err).toContain("Malls\\u001b[2J\\rdoohctl: all campaigns active");
    expect(restored.err).not.toContain("\u001b");
    expect(restored.err).not.toContain("\r");
    expect(onlyReactivations()).toEqual([]);
  });

  it("does not say all is restored: names it as not checked and exits 1, leaving it to its own config", async () => {
    const w = await afterDeadApply(deadPid());
    const [name] = readdirSync(w.account);
    const path = join(w.account, name!);
    const file = JSON.parse(readFileSync(path, "utf8"));
    file.paused[0] = { ...file.paused[0], insertion_order_id: "1003" };
    writeFileSync(path, JSON.stringify(file), { mode: 0o600 });
    const text = await cli(["apply", "--restore-only"], w.env, w.dir);
    expect(text.code).toBe(1);
    expect(text.out).toMatch(
      /NOT CHECKED, of insertion orders this config does not declare \(1 campaign; they may still be paused\):\n {2}campaign 5001 "Malls" \(insertion order 1003\)/,
    );
    expect(text.out).not.toContain("no campaign recorded as paused");
    const json = await cli(["apply", "--restore-only", "--format", "json"], w.env, w.dir);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.out);
    expect(doc.status).toBe("incomplete");
    expect(doc.undeclared.map((e: { campaign_id: string }) => e.campaign_id)).toEqual(["5001"]);
    // Not touched, and kept for the config that declares it.
    expect(onlyReactivations()).toEqual([]);
    expect(w.active("5001")).toBe(false);
    expect(readdirSync(w.account)).toEqual([name]);
  });
});
