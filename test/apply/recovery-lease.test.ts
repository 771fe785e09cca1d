/**
 * The lease of the apply that wrote a recovery record (src/apply/lease.ts, docs/safety.md
 * Recovery record): renewed every 5 s, stale 30 s later, stale at once on this host when its
 * process (pid and start time) is gone, and never proven by a pid alone.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { processStart } from "../../src/apply/lease.js";
import { RecoveryStore } from "../../src/apply/recovery.js";
import { VirtualClock } from "../../src/model/clock.js";
import { deadPid } from "../helpers/dead-pid.js";
import { accountDir, entry, filesOf, leased, rewrite, SCOPE, STARTED, stateDir } from "./record-files.js";

describe("the lease of the apply that wrote a record", () => {
  it("holds while renewed, and is stale 30 s after its last renewal", async () => {
    const dir = stateDir();
    const clock = new VirtualClock({ start: Date.now() });
    const apply = new RecoveryStore(dir, SCOPE, { clock }).begin(STARTED);
    apply.add([entry("5001")]);
    const before = JSON.parse(readFileSync(join(accountDir(dir), `${apply.applyId}.json`), "utf8"));
    for (let i = 0; i < 8; i++) {
      clock.advance(5_000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const after = JSON.parse(readFileSync(join(accountDir(dir), `${apply.applyId}.json`), "utf8"));
    expect(Date.parse(after.lease.renewed_at) - Date.parse(before.lease.renewed_at)).toBe(40_000);
    apply.end();
    // Another host's lease, seen by a reader with its own clock: fresh, then stale.
    leased(dir, { host: "another-host.example", renewed_at: new Date(clock.now()).toISOString() });
    const reader = new RecoveryStore(dir, SCOPE, { clock });
    expect(reader.read()[0]).toMatchObject({
      owner_running: true,
      holder: {
        host: "another-host.example",
        lease_expires_at: new Date(clock.now() + 30_000).toISOString(),
      },
    });
    clock.advance(29_999);
    expect(reader.read()[0]?.owner_running).toBe(true);
    clock.advance(1);
    expect(reader.read()[0]?.owner_running).toBe(false);
  });

  it("is stale at once on this host when its process is gone", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001")]);
    apply.end();
    leased(dir, { pid: deadPid(), renewed_at: new Date().toISOString() });
    expect(new RecoveryStore(dir, SCOPE).read()[0]?.owner_running).toBe(false);
  });

  it.runIf(processStart(process.pid) !== undefined)(
    "is stale when its pid now belongs to an unrelated live process (another start time)",
    () => {
      const dir = stateDir();
      new RecoveryStore(dir, SCOPE).begin(STARTED).add([entry("5001")]);
      // The test runner's parent is alive, but it is not the apply that took the lease.
      leased(dir, { pid: process.ppid, pid_start: "1", renewed_at: new Date().toISOString() });
      expect(new RecoveryStore(dir, SCOPE).read()[0]?.owner_running).toBe(false);
      // With its real start time, the same lease is that process's, and fresh.
      leased(dir, { pid_start: processStart(process.ppid) });
      expect(new RecoveryStore(dir, SCOPE).read()[0]?.owner_running).toBe(true);
    },
  );

  it("proves nothing by a live pid once the lease is stale", () => {
    const dir = stateDir();
    new RecoveryStore(dir, SCOPE).begin(STARTED).add([entry("5001")]);
    leased(dir, {
      pid: process.ppid,
      pid_start: processStart(process.ppid) ?? undefined,
      renewed_at: new Date(Date.now() - 31_000).toISOString(),
    });
    expect(new RecoveryStore(dir, SCOPE).read()[0]?.owner_running).toBe(false);
  });

  it("takes a record of an earlier process with this host name and this pid for a stopped owner's", () => {
    // A CI job in a container: the same host name and often the same pid as the killed job.
    const dir = stateDir();
    new RecoveryStore(dir, SCOPE).begin(STARTED).add([entry("5001")]);
    rewrite(dir, (file) => ({ ...file, apply_id: "20261123T100000000Z-1-abcdef" }));
    expect(new RecoveryStore(dir, SCOPE).read()[0]?.owner_running).toBe(false);
  });

  it("is not a lease when renewed further in the future than a lease lasts", () => {
    const dir = stateDir();
    new RecoveryStore(dir, SCOPE).begin(STARTED).add([entry("5001")]);
    leased(dir, { host: "another-host.example", renewed_at: "2099-01-01T00:00:00.000Z" });
    expect(new RecoveryStore(dir, SCOPE).read()[0]?.owner_running).toBe(false);
  });

  it("drops only the named campaigns of stopped owners, never a running apply's entries", () => {
    const dir = stateDir();
    const store = new RecoveryStore(dir, SCOPE);
    const stopped = store.begin(STARTED);
    stopped.add([entry("5001"), entry("5002")]);
    stopped.end();
    leased(dir, { pid: deadPid() });
    // A running apply on another machine that paused 5003 and 5001.
    const running = store.begin(STARTED);
    running.add([entry("5003"), entry("5001")]);
    running.end();
    const runningPath = join(accountDir(dir), `${running.applyId}.json`);
    const file = JSON.parse(readFileSync(runningPath, "utf8"));
    writeFileSync(runningPath, JSON.stringify({ ...file, lease: { ...file.lease, host: "ci-7.example" } }));

    store.drop(["5001", "5003"]);
    const left = store
      .read()
      .map((e) => `${e.campaign_id}:${e.owner_running}`)
      .sort();
    expect(left).toEqual(["5001:true", "5002:false", "5003:true"]);
    store.drop(["5002"]);
    expect(filesOf(dir)).toEqual([`${running.applyId}.json`]);
  });
});
