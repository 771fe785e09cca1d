/**
 * The recovery record read while another apply of the account runs (src/apply/recovery.ts):
 * that apply removes its file once its campaigns are active again, so a plan or status run
 * beside it can list a file that is gone when it comes to read it. A file gone is a record
 * with nothing left in it, not a record that cannot be read.
 */
import * as fs from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { accountKey, RecoveryStore } from "../../src/apply/recovery.js";

/** While set, the account directory lists one more file, removed before it is read. */
const race = vi.hoisted(() => ({ gone: undefined as string | undefined }));

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  return {
    ...real,
    // recovery.ts lists its directory by name only.
    readdirSync: (path: fs.PathLike) => {
      const names = real.readdirSync(path);
      return race.gone === undefined ? names : [...names, race.gone];
    },
  };
});

const SCOPE = { origin: "https://dsp.example.com", environment: "production", account_id: "7" };
const STARTED = "2026-11-23T10:00:00.000Z";

afterEach(() => {
  race.gone = undefined;
});

describe("the recovery record beside a running apply", () => {
  it("neither reports nor reads a record file removed between listing and reading", () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-recovery-race-"));
    new RecoveryStore(dir, SCOPE)
      .begin(STARTED)
      .add([{ campaign_id: "5001", insertion_order_id: "1001", name: "Campaign 5001", paused_at: STARTED }]);
    expect(fs.readdirSync(join(dir, "recovery", accountKey(SCOPE)))).toHaveLength(1);
    race.gone = "20261123T100000000Z-4242-abcdef.json";
    const store = new RecoveryStore(dir, SCOPE);
    expect(store.readAll().issues).toEqual([]);
    expect(store.read().map((e) => e.campaign_id)).toEqual(["5001"]);
  });
});
