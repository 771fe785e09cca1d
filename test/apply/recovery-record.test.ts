import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StateDirError } from "../../src/api/private-files.js";
import { accountKey, checkedStateDir, RecoveryRecordError, RecoveryStore } from "../../src/apply/recovery.js";
import { accountDir, entry, filesOf, rewrite, SCOPE, STARTED, stateDir } from "./record-files.js";

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
    // The state directory and its parent do not exist yet: doohctl creates them, 0700 too.
    const dir = join(stateDir(), "parent", "state");
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001")]);
    apply.add([entry("5002")]);
    apply.end();
    expect(statSync(join(dir, "..")).mode & 0o777).toBe(0o700);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
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
      writeFileSync(join(accountDir(dir), name), JSON.stringify(file), { mode: 0o600 });
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
    const mode = 0o600;
    writeFileSync(join(account, "a-cut.json"), '{"format_version": 2, "paus', { mode });
    writeFileSync(join(account, "b-newer.json"), JSON.stringify({ ...good, format_version: 3 }), { mode });
    writeFileSync(join(account, "c-edited.json"), JSON.stringify({ ...good, paused: {} }), { mode });
    writeFileSync(join(account, "d-list.json"), "[]", { mode });
    symlinkSync("/proc/self/environ", join(account, "e-link.json"));
    // A good record, but open to others: anyone could have written it.
    writeFileSync(join(account, "f-open.json"), JSON.stringify(good), { mode: 0o644 });
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
      {
        path: join(account, "f-open.json"),
        kind: "unreadable",
        reason: `mode 644: group or others could read or replace it; run: chmod 600 ${join(account, "f-open.json")}`,
      },
    ]);
    expect(store.read().map((e) => e.campaign_id)).toEqual(["5001"]);
    store.drop(["5001"]);
    expect(filesOf(dir)).toEqual([
      "a-cut.json",
      "b-newer.json",
      "c-edited.json",
      "d-list.json",
      "e-link.json",
      "f-open.json",
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
  it("never writes through a link planted where a temporary file could be", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001")]);
    const victim = join(stateDir(), "unrelated.txt");
    writeFileSync(victim, "untouched\n");
    // The name an earlier doohctl used; the one atomic write's names carry random bytes and
    // are created O_EXCL|O_NOFOLLOW (test/api/atomic-write.test.ts).
    const planted = `${apply.applyId}.json.${process.pid}.tmp`;
    symlinkSync(victim, join(accountDir(dir), planted));
    apply.add([entry("5002")]);
    apply.end();
    expect(readFileSync(victim, "utf8")).toBe("untouched\n");
    expect(new RecoveryStore(dir, SCOPE).read().map((e) => e.campaign_id)).toEqual(["5001", "5002"]);
    expect(filesOf(dir).sort()).toEqual([`${apply.applyId}.json`, planted].sort());
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

  it("checks the state directory itself before anything in it is read: open to others (0777) or a link is refused, naming it and the fix", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    apply.add([entry("5001")]);
    apply.end();
    chmodSync(dir, 0o777);
    const env = { DOOHCTL_STATE_DIR: dir };
    expect(() => checkedStateDir(env)).toThrow(StateDirError);
    expect(() => checkedStateDir(env)).toThrow(
      `${dir} has mode 777: group or others could read or plant the recovery record; run: chmod 700 ${dir}`,
    );
    chmodSync(dir, 0o700);
    expect(checkedStateDir(env)).toBe(dir);
    const link = join(stateDir(), "state");
    symlinkSync(dir, link);
    expect(() => checkedStateDir({ DOOHCTL_STATE_DIR: link })).toThrow(`${link} is a symbolic link`);
    // Missing, it is no refusal: the first record creates it (above).
    expect(checkedStateDir({ DOOHCTL_STATE_DIR: join(dir, "none") })).toBe(join(dir, "none"));
  });

  it("refuses to record a pause into a state directory opened to others after it was checked", () => {
    const dir = stateDir();
    const apply = new RecoveryStore(dir, SCOPE).begin(STARTED);
    chmodSync(dir, 0o777);
    expect(() => apply.add([entry("5001")])).toThrow(
      `no campaign was paused: ${dir} has mode 777: group or others could read or plant the recovery record; run: chmod 700 ${dir}`,
    );
    expect(apply.pending()).toEqual([]);
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
      /no campaign was paused: cannot use .* \(EEXIST\).*DOOHCTL_STATE_DIR/,
    );
    expect(apply.pending()).toEqual([]);
    apply.end();
  });

  it("lives in DOOHCTL_STATE_DIR, else XDG_STATE_HOME/doohctl, else ~/.local/state/doohctl", () => {
    expect(checkedStateDir({ DOOHCTL_STATE_DIR: "/s", XDG_STATE_HOME: "/x", HOME: "/h" })).toBe("/s");
    expect(checkedStateDir({ XDG_STATE_HOME: "/x", HOME: "/h" })).toBe(join("/x", "doohctl"));
    expect(checkedStateDir({ HOME: "/h" })).toBe(join("/h", ".local", "state", "doohctl"));
    // The XDG specification: a relative XDG_STATE_HOME is ignored.
    expect(checkedStateDir({ XDG_STATE_HOME: "x", HOME: "/h" })).toBe(
      join("/h", ".local", "state", "doohctl"),
    );
  });

  it("refuses a relative DOOHCTL_STATE_DIR, which would name another directory from each working directory", () => {
    expect(() => checkedStateDir({ DOOHCTL_STATE_DIR: ".doohctl-state", HOME: "/h" })).toThrow(
      'DOOHCTL_STATE_DIR=.doohctl-state is a relative path: runs from another working directory would not see this run\'s recovery record; set an absolute path, e.g. DOOHCTL_STATE_DIR="$PWD/.doohctl-state"',
    );
  });
});
