/**
 * The recovery record on disk (src/apply/recovery.ts, design.md Recovery record): written
 * before a pause is sent, one file per apply, a running owner's entries left alone, a dead
 * owner's dropped only for the campaigns named, and nothing secret in it.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { accountKey, defaultStateDir, RecoveryRecordError, RecoveryStore } from "../../src/apply/recovery.js";

const SCOPE = { origin: "https://dsp.example.com", environment: "production", user: "ops@example.com" };
const STARTED = "2026-11-23T10:00:00.000Z";

function entry(id: string) {
  return { campaign_id: id, insertion_order_id: "1001", name: `Campaign ${id}`, paused_at: STARTED };
}

function stateDir(): string {
  return mkdtempSync(join(tmpdir(), "doohctl-recovery-"));
}

function filesOf(dir: string): string[] {
  try {
    return readdirSync(join(dir, "recovery", accountKey(SCOPE))).sort();
  } catch {
    return [];
  }
}

/** A pid that surely ran and is surely gone: a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

/** Rewrites the owner of every record file of the account (a crashed apply of this host). */
function ownedBy(dir: string, pid: number, host?: string): void {
  const account = join(dir, "recovery", accountKey(SCOPE));
  for (const name of readdirSync(account)) {
    const file = JSON.parse(readFileSync(join(account, name), "utf8"));
    writeFileSync(join(account, name), JSON.stringify({ ...file, pid, ...(host ? { host } : {}) }));
  }
}

describe("the recovery record", () => {
  it("is on disk once add returns, and a new store reads the entries back", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001"), entry("5002")]);
    expect(filesOf(dir)).toEqual([`${apply.applyId}.json`]);
    const read = new RecoveryStore(dir, SCOPE).read();
    expect(read.map((e) => e.campaign_id)).toEqual(["5001", "5002"]);
    expect(read[0]).toMatchObject({
      apply_id: apply.applyId,
      apply_started_at: STARTED,
      owner_running: true,
    });
    // No temp file is left beside it.
    expect(filesOf(dir).every((n) => n.endsWith(".json"))).toBe(true);
  });

  it("keeps one file per apply, so two applies of one account never write the same file", () => {
    const dir = stateDir();
    const store = new RecoveryStore(dir, SCOPE);
    const first = store.begin(STARTED);
    const second = store.begin(STARTED);
    first.add([entry("5001")]);
    second.add([entry("5002")]);
    expect(first.applyId).not.toBe(second.applyId);
    expect(filesOf(dir)).toHaveLength(2);
    first.remove(["5001"]);
    expect(filesOf(dir)).toEqual([`${second.applyId}.json`]);
    expect(store.read().map((e) => e.campaign_id)).toEqual(["5002"]);
  });

  it("removes a reactivated campaign, and the file with its last one", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001"), entry("5002")]);
    apply.add([entry("5002")]); // already recorded: no second entry
    expect(new RecoveryStore(dir, SCOPE).read()).toHaveLength(2);
    apply.remove(["5001"]);
    expect(new RecoveryStore(dir, SCOPE).read().map((e) => e.campaign_id)).toEqual(["5002"]);
    apply.remove(["5002"]);
    expect(filesOf(dir)).toEqual([]);
  });

  it("tells a running owner from a dead one, and from one on another host", () => {
    const dir = stateDir();
    new RecoveryStore(dir, SCOPE).begin(STARTED).add([entry("5001")]);
    expect(new RecoveryStore(dir, SCOPE).read()[0]?.owner_running).toBe(true);
    ownedBy(dir, deadPid());
    expect(new RecoveryStore(dir, SCOPE).read()[0]?.owner_running).toBe(false);
    // A live pid on another host is not this host's process: that apply is not known to run.
    ownedBy(dir, process.ppid, "another-host.example");
    expect(new RecoveryStore(dir, SCOPE).read()[0]?.owner_running).toBe(false);
  });

  it("takes a record of an earlier process with this host name and this pid for a dead owner's", () => {
    // A CI job in a container: the same host name and often the same pid as the killed job.
    const dir = stateDir();
    new RecoveryStore(dir, SCOPE).begin(STARTED).add([entry("5001")]);
    const account = join(dir, "recovery", accountKey(SCOPE));
    for (const name of readdirSync(account)) {
      const file = JSON.parse(readFileSync(join(account, name), "utf8"));
      writeFileSync(
        join(account, name),
        JSON.stringify({ ...file, apply_id: "20261123T100000000Z-1-abcdef" }),
      );
    }
    expect(new RecoveryStore(dir, SCOPE).read()[0]?.owner_running).toBe(false);
  });

  it("drops only the named campaigns of dead owners, never a running apply's entries", () => {
    const dir = stateDir();
    const store = new RecoveryStore(dir, SCOPE);
    store.begin(STARTED).add([entry("5001"), entry("5002")]);
    ownedBy(dir, deadPid());
    // A running apply (the parent process stands for it) that paused 5003 and 5001.
    const running = store.begin(STARTED);
    running.add([entry("5003"), entry("5001")]);
    const runningPath = join(dir, "recovery", accountKey(SCOPE), `${running.applyId}.json`);
    const file = JSON.parse(readFileSync(runningPath, "utf8"));
    writeFileSync(runningPath, JSON.stringify({ ...file, pid: process.ppid }));

    store.drop(["5001", "5003"]);
    const left = store
      .read()
      .map((e) => `${e.campaign_id}:${e.owner_running}`)
      .sort();
    expect(left).toEqual(["5001:true", "5002:false", "5003:true"]);
    store.drop(["5002"]);
    expect(filesOf(dir)).toEqual([`${running.applyId}.json`]);
  });

  it("keeps other accounts' records apart", () => {
    const dir = stateDir();
    new RecoveryStore(dir, SCOPE).begin(STARTED).add([entry("5001")]);
    expect(new RecoveryStore(dir, { ...SCOPE, user: "other@example.com" }).read()).toEqual([]);
    expect(new RecoveryStore(dir, { ...SCOPE, environment: "staging" }).read()).toEqual([]);
    expect(new RecoveryStore(dir, { ...SCOPE, origin: "https://other.example.com" }).read()).toEqual([]);
  });

  it("skips an unreadable or foreign file rather than failing the plan", () => {
    const dir = stateDir();
    const account = join(dir, "recovery", accountKey(SCOPE));
    mkdirSync(account, { recursive: true });
    writeFileSync(join(account, "torn.json"), '{"format_version": 1, "paus');
    writeFileSync(join(account, "future.json"), JSON.stringify({ format_version: 99, paused: [] }));
    new RecoveryStore(dir, SCOPE).begin(STARTED).add([entry("5001")]);
    expect(new RecoveryStore(dir, SCOPE).read().map((e) => e.campaign_id)).toEqual(["5001"]);
  });

  it("holds no secret: no password, cookie or token, and the directory name hides the account", () => {
    const dir = stateDir();
    new RecoveryStore(dir, SCOPE).begin(STARTED).add([entry("5001")]);
    const [name] = filesOf(dir);
    const text = readFileSync(join(dir, "recovery", accountKey(SCOPE), name!), "utf8");
    expect(Object.keys(JSON.parse(text)).sort()).toEqual([
      "apply_id",
      "environment",
      "format_version",
      "host",
      "origin",
      "paused",
      "pid",
      "started_at",
      "user",
    ]);
    expect(text).not.toMatch(/password|cookie|token|tr-production|session/i);
    expect(accountKey(SCOPE)).not.toContain("example");
  });

  it("refuses with a clear error when the state directory cannot be written, recording nothing", () => {
    // A regular file where the state directory should be: unwritable even for root.
    const dir = join(stateDir(), "not-a-directory");
    writeFileSync(dir, "");
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    expect(() => apply.add([entry("5001")])).toThrow(RecoveryRecordError);
    expect(() => apply.add([entry("5001")])).toThrow(/ENOTDIR.*no campaign was paused.*DOOHCTL_STATE_DIR/);
    expect(apply.pending()).toEqual([]);
  });

  it("lives in DOOHCTL_STATE_DIR, else XDG_STATE_HOME/doohctl, else ~/.local/state/doohctl", () => {
    expect(defaultStateDir({ DOOHCTL_STATE_DIR: "/s", XDG_STATE_HOME: "/x", HOME: "/h" })).toBe("/s");
    expect(defaultStateDir({ XDG_STATE_HOME: "/x", HOME: "/h" })).toBe(join("/x", "doohctl"));
    expect(defaultStateDir({ HOME: "/h" })).toBe(join("/h", ".local", "state", "doohctl"));
  });

  it("reports every record file it cannot use, says why, and never reads, drops or deletes it", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001")]);
    const account = join(dir, "recovery", accountKey(SCOPE));
    const good = JSON.parse(readFileSync(join(account, `${apply.applyId}.json`), "utf8"));
    writeFileSync(join(account, "a-cut.json"), '{"format_version": 1, "paus');
    writeFileSync(join(account, "b-newer.json"), JSON.stringify({ ...good, format_version: 2 }));
    writeFileSync(
      join(account, "c-edited.json"),
      JSON.stringify({ ...good, paused: [{ insertion_order_id: "1001", paused_at: STARTED }] }),
    );
    writeFileSync(join(account, "d-list.json"), "[]");
    const store = new RecoveryStore(dir, SCOPE);
    expect(store.unreadable()).toEqual([
      { path: join(account, "a-cut.json"), reason: "not JSON" },
      { path: join(account, "b-newer.json"), reason: "format_version 2, this doohctl reads 1" },
      { path: join(account, "c-edited.json"), reason: "paused is not a list of recorded campaigns" },
      { path: join(account, "d-list.json"), reason: "format_version undefined, this doohctl reads 1" },
    ]);
    expect(store.read().map((e) => e.campaign_id)).toEqual(["5001"]);
    store.drop(["5001"]);
    apply.remove(["5001"]);
    expect(filesOf(dir)).toEqual(["a-cut.json", "b-newer.json", "c-edited.json", "d-list.json"]);
  });

  it("has nothing unreadable when no apply of the account ever paused anything", () => {
    expect(new RecoveryStore(stateDir(), SCOPE).unreadable()).toEqual([]);
  });
});
