/**
 * A recovery record written under another configured account name of the same DSP account
 * (docs/safety.md, Keeping two accounts apart): an account renamed (`connection.account`
 * changed), a single-account config that adopted `connection.account`, or the reverse, while
 * an apply's pauses were in flight. The record is never obeyed under the new name, but it is
 * reported (DOOH205), never skipped in silence: its campaigns may still be paused.
 */
import { describe, expect, it } from "vitest";
import { RecoveryStore } from "../../src/apply/recovery.js";
import { entry, SCOPE, STARTED, stateDir } from "./record-files.js";

/** A stopped apply's record of `account` (undefined: the single account), as a crash leaves it. */
function crashedRecord(dir: string, account: string | undefined, campaign = "5001"): void {
  const scope = account === undefined ? SCOPE : { ...SCOPE, account };
  const apply = new RecoveryStore(dir, scope).begin(STARTED);
  apply.add([entry(campaign)]);
  apply.end();
}

describe("a record of the same DSP account under another configured account", () => {
  it("is reported, not obeyed, after the account was renamed", () => {
    const dir = stateDir();
    crashedRecord(dir, "northwind");
    const read = new RecoveryStore(dir, { ...SCOPE, account: "northwind-eu" }).readAll();
    expect(read.pauses).toEqual([]);
    expect(read.issues).toHaveLength(1);
    expect(read.issues[0]).toMatchObject({ kind: "foreign" });
    expect(read.issues[0]?.reason).toContain("configured account northwind");
    expect(read.issues[0]?.reason).toMatch(/may still be paused/);
  });

  it("is reported after a single-account config adopted connection.account, and the reverse", () => {
    const single = stateDir();
    crashedRecord(single, undefined);
    const adopted = new RecoveryStore(single, { ...SCOPE, account: "northwind" }).readAll();
    expect(adopted.pauses).toEqual([]);
    expect(adopted.issues.map((i) => i.reason).join("\n")).toContain("the single account");

    const named = stateDir();
    crashedRecord(named, "northwind");
    const dropped = new RecoveryStore(named, SCOPE).readAll();
    expect(dropped.pauses).toEqual([]);
    expect(dropped.issues.map((i) => i.reason).join("\n")).toContain("configured account northwind");
  });

  it("is not reported for another origin, environment or DSP account", () => {
    const dir = stateDir();
    for (const other of [
      { origin: "https://other.example.com" },
      { environment: "staging" },
      { account_id: "8" },
    ]) {
      const apply = new RecoveryStore(dir, { ...SCOPE, ...other, account: "northwind" }).begin(STARTED);
      apply.add([entry("5001")]);
      apply.end();
    }
    expect(new RecoveryStore(dir, { ...SCOPE, account: "northwind-eu" }).readAll().issues).toEqual([]);
  });

  it("leaves this account's own record as it was: read, obeyed, no issue", () => {
    const dir = stateDir();
    crashedRecord(dir, "northwind", "5002");
    const read = new RecoveryStore(dir, { ...SCOPE, account: "northwind" }).readAll();
    expect(read.pauses.map((p) => p.campaign_id)).toEqual(["5002"]);
    expect(read.issues).toEqual([]);
  });
});
