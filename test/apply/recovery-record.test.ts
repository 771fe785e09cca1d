/**
 * The recovery record on disk (src/apply/recovery.ts, docs/safety.md Recovery record): written
 * before a pause is sent, one file per apply, keyed by the account (origin, environment,
 * G9 account_id), a running owner told by its lease, a stopped owner's entries dropped only
 * for the campaigns named, nothing secret in it, and nothing another account wrote obeyed.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { processStart } from "../../src/apply/lease.js";
import { StateDirError } from "../../src/apply/private-files.js";
import { accountKey, defaultStateDir, RecoveryRecordError, RecoveryStore } from "../../src/apply/recovery.js";
import { VirtualClock } from "../../src/model/clock.js";

const SCOPE = { origin: "https://dsp.example.com", environment: "production", account_id: "7" };
const STARTED = "2026-11-23T10:00:00.000Z";

function entry(id: string) {
  return { campaign_id: id, insertion_order_id: "1001", name: `Campaign ${id}`, paused_at: STARTED };
}

function stateDir(): string {
  return mkdtempSync(join(tmpdir(), "doohctl-recovery-"));
}

function accountDir(dir: string): string {
  return join(dir, "recovery", accountKey(SCOPE));
}

function filesOf(dir: string): string[] {
  try {
    return readdirSync(accountDir(dir)).sort();
  } catch {
    return [];
  }
}

/** A pid that surely ran and is surely gone: a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

/** Rewrites every record file of the account (an edit, a crash, a planted record). */
function rewrite(dir: string, edit: (file: Record<string, unknown>) => Record<string, unknown>): void {
  for (const name of readdirSync(accountDir(dir))) {
    const path = join(accountDir(dir), name);
    writeFileSync(path, JSON.stringify(edit(JSON.parse(readFileSync(path, "utf8")))));
  }
}

/** Gives every record file of the account this lease (fields over the written one). */
function leased(dir: string, lease: Record<string, unknown>): void {
  rewrite(dir, (file) => ({ ...file, lease: { ...(file.lease as object), ...lease } }));
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
      holder: { host: hostname(), pid: process.pid },
    });
    apply.end();
  });

  it("creates its directories 0700 and its files 0600, with no temp file left beside them", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001")]);
    apply.add([entry("5002")]);
    apply.end();
    expect(statSync(join(dir, "recovery")).mode & 0o777).toBe(0o700);
    expect(statSync(accountDir(dir)).mode & 0o777).toBe(0o700);
    expect(statSync(join(accountDir(dir), `${apply.applyId}.json`)).mode & 0o777).toBe(0o600);
    expect(filesOf(dir)).toEqual([`${apply.applyId}.json`]);
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
    first.end();
    second.end();
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
    apply.end();
  });

  it("belongs to the account, not to the API user: another user of the account reads it", () => {
    const dir = stateDir();
    new RecoveryStore(dir, SCOPE).begin(STARTED).add([entry("5001")]);
    // The scope names no user at all: any write user whose session answers account 7 sees it.
    expect(new RecoveryStore(dir, { ...SCOPE }).read().map((e) => e.campaign_id)).toEqual(["5001"]);
    expect(new RecoveryStore(dir, { ...SCOPE, account_id: "8" }).read()).toEqual([]);
    expect(new RecoveryStore(dir, { ...SCOPE, environment: "staging" }).read()).toEqual([]);
    expect(new RecoveryStore(dir, { ...SCOPE, origin: "https://other.example.com" }).read()).toEqual([]);
  });
});

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

describe("what the recovery record does not obey", () => {
  it("reports a forged file naming another origin, environment or account, and leaves it alone", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001")]);
    apply.end();
    const good = JSON.parse(readFileSync(join(accountDir(dir), `${apply.applyId}.json`), "utf8"));
    const forged = {
      "f-origin.json": { ...good, origin: "https://evil.example" },
      "f-env.json": { ...good, environment: "staging" },
      "f-account.json": { ...good, account_id: "8", paused: [entry("6001")] },
    };
    for (const [name, file] of Object.entries(forged))
      writeFileSync(join(accountDir(dir), name), JSON.stringify(file));
    const store = new RecoveryStore(dir, SCOPE);
    const { pauses, issues } = store.readAll();
    expect(pauses.map((e) => e.campaign_id)).toEqual(["5001"]);
    expect(issues.map((i) => [i.path.split("/").pop(), i.kind])).toEqual([
      ["f-account.json", "foreign"],
      ["f-env.json", "foreign"],
      ["f-origin.json", "foreign"],
    ]);
    expect(issues[0]?.reason).toMatch(/names account 8, not this run's .*never obeyed/);
    store.drop(["5001", "6001"]);
    expect(filesOf(dir)).toEqual(["f-account.json", "f-env.json", "f-origin.json"]);
  });

  it("keeps the good entries of a damaged file, reports each bad one, and drops neither", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001"), entry("5002"), entry("5003")]);
    apply.end();
    rewrite(dir, (file) => {
      const paused = file.paused as Record<string, unknown>[];
      return { ...file, paused: [paused[0], { insertion_order_id: "1001" }, paused[2], 42] };
    });
    const store = new RecoveryStore(dir, SCOPE);
    const { pauses, issues } = store.readAll();
    expect(pauses.map((e) => e.campaign_id)).toEqual(["5001", "5003"]);
    expect(issues.map((i) => i.reason)).toEqual([
      'entry 2 of "paused": campaign_id is missing',
      'entry 4 of "paused": not an object',
    ]);
    store.drop(["5001", "5003"]);
    const [name] = filesOf(dir);
    expect(JSON.parse(readFileSync(join(accountDir(dir), name!), "utf8")).paused).toEqual([
      { insertion_order_id: "1001" },
      42,
    ]);
  });

  it("reports every record file it cannot use, says why, and never reads, drops or deletes it", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001")]);
    apply.end();
    const account = accountDir(dir);
    const good = JSON.parse(readFileSync(join(account, `${apply.applyId}.json`), "utf8"));
    writeFileSync(join(account, "a-cut.json"), '{"format_version": 2, "paus');
    writeFileSync(join(account, "b-newer.json"), JSON.stringify({ ...good, format_version: 3 }));
    writeFileSync(join(account, "c-edited.json"), JSON.stringify({ ...good, paused: {} }));
    writeFileSync(join(account, "d-list.json"), "[]");
    symlinkSync("/proc/self/environ", join(account, "e-link.json"));
    const store = new RecoveryStore(dir, SCOPE);
    expect(store.readAll().issues).toEqual([
      { path: join(account, "a-cut.json"), kind: "unreadable", reason: "not JSON" },
      {
        path: join(account, "b-newer.json"),
        kind: "unreadable",
        reason: "format_version 3, this doohctl reads 2",
      },
      { path: join(account, "c-edited.json"), kind: "unreadable", reason: "paused is not a list" },
      { path: join(account, "d-list.json"), kind: "unreadable", reason: "not a recovery record" },
      { path: join(account, "e-link.json"), kind: "unreadable", reason: "a symbolic link, never followed" },
    ]);
    expect(store.read().map((e) => e.campaign_id)).toEqual(["5001"]);
    store.drop(["5001"]);
    expect(filesOf(dir)).toEqual([
      "a-cut.json",
      "b-newer.json",
      "c-edited.json",
      "d-list.json",
      "e-link.json",
    ]);
  });

  it("reports the files an earlier doohctl kept for this API user (format 1), never skips them", () => {
    const dir = stateDir();
    const legacyKey = createHash("sha256")
      .update(`${SCOPE.origin}\n${SCOPE.environment}\nops@example.com`)
      .digest("hex")
      .slice(0, 24);
    mkdirSync(join(dir, "recovery", legacyKey), { recursive: true, mode: 0o700 });
    const old = join(dir, "recovery", legacyKey, "20261123T100000000Z-42-abcdef.json");
    writeFileSync(old, JSON.stringify({ format_version: 1, user: "ops@example.com", paused: [] }));
    const store = new RecoveryStore(dir, SCOPE, { legacyUser: "ops@example.com" });
    expect(store.readAll().issues).toEqual([
      {
        path: old,
        kind: "unreadable",
        reason: "written by an earlier doohctl, whose record format 1 this one does not read",
      },
    ]);
    expect(new RecoveryStore(dir, SCOPE, { legacyUser: "other@example.com" }).readAll().issues).toEqual([]);
  });

  it("has nothing to report when no apply of the account ever paused anything", () => {
    expect(new RecoveryStore(stateDir(), SCOPE).readAll()).toEqual({ pauses: [], issues: [] });
  });
});

describe("the recovery record's files", () => {
  it("never writes through a link planted at its temporary file", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001")]);
    const victim = join(stateDir(), "unrelated.txt");
    writeFileSync(victim, "untouched\n");
    const temp = join(accountDir(dir), `${apply.applyId}.json.${process.pid}.tmp`);
    symlinkSync(victim, temp);
    apply.add([entry("5002")]);
    apply.end();
    expect(readFileSync(victim, "utf8")).toBe("untouched\n");
    expect(new RecoveryStore(dir, SCOPE).read().map((e) => e.campaign_id)).toEqual(["5001", "5002"]);
    expect(filesOf(dir)).toEqual([`${apply.applyId}.json`]);
  });

  it("refuses an account directory open to others, naming it and the chmod to run", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001")]);
    chmodSync(accountDir(dir), 0o755);
    const store = new RecoveryStore(dir, SCOPE);
    expect(() => store.readAll()).toThrow(StateDirError);
    expect(() => store.readAll()).toThrow(`run: chmod 700 ${accountDir(dir)}`);
    expect(() => apply.add([entry("5002")])).toThrow(`chmod 700 ${accountDir(dir)}`);
    apply.end();
  });

  it("refuses a link in place of its directory", () => {
    const dir = stateDir();
    const elsewhere = stateDir();
    mkdirSync(join(dir, "recovery"), { mode: 0o700 });
    symlinkSync(elsewhere, accountDir(dir));
    expect(() => new RecoveryStore(dir, SCOPE).readAll()).toThrow(/is a symbolic link/);
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    expect(() => apply.add([entry("5001")])).toThrow(/no campaign was paused: .* is a symbolic link/);
    expect(readdirSync(elsewhere)).toEqual([]);
    apply.end();
  });

  it("holds no secret: no password, cookie or token, and the directory name hides the account", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001")]);
    apply.end();
    const [name] = filesOf(dir);
    const text = readFileSync(join(accountDir(dir), name!), "utf8");
    expect(Object.keys(JSON.parse(text)).sort()).toEqual([
      "account_id",
      "apply_id",
      "environment",
      "format_version",
      "lease",
      "origin",
      "paused",
      "started_at",
    ]);
    expect(text).not.toMatch(/password|cookie|token|tr-production|session|@/i);
    expect(accountKey(SCOPE)).not.toContain("example");
  });

  it("refuses with a clear error when the state directory cannot be written, recording nothing", () => {
    // A regular file where the state directory should be: unwritable even for root.
    const dir = join(stateDir(), "not-a-directory");
    writeFileSync(dir, "");
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    expect(() => apply.add([entry("5001")])).toThrow(RecoveryRecordError);
    expect(() => apply.add([entry("5001")])).toThrow(
      /no campaign was paused: cannot use .* \(ENOTDIR\).*DOOHCTL_STATE_DIR/,
    );
    expect(apply.pending()).toEqual([]);
    apply.end();
  });

  it("lives in DOOHCTL_STATE_DIR, else XDG_STATE_HOME/doohctl, else ~/.local/state/doohctl", () => {
    expect(defaultStateDir({ DOOHCTL_STATE_DIR: "/s", XDG_STATE_HOME: "/x", HOME: "/h" })).toBe("/s");
    expect(defaultStateDir({ XDG_STATE_HOME: "/x", HOME: "/h" })).toBe(join("/x", "doohctl"));
    expect(defaultStateDir({ HOME: "/h" })).toBe(join("/h", ".local", "state", "doohctl"));
    // The XDG specification: a relative XDG_STATE_HOME is ignored.
    expect(defaultStateDir({ XDG_STATE_HOME: "x", HOME: "/h" })).toBe(
      join("/h", ".local", "state", "doohctl"),
    );
  });

  it("refuses a relative DOOHCTL_STATE_DIR, which would name another directory from each working directory", () => {
    expect(() => defaultStateDir({ DOOHCTL_STATE_DIR: ".doohctl-state", HOME: "/h" })).toThrow(
      'DOOHCTL_STATE_DIR=.doohctl-state is a relative path: runs from another working directory would not see this run\'s recovery record; set an absolute path, e.g. DOOHCTL_STATE_DIR="$PWD/.doohctl-state"',
    );
  });
});
