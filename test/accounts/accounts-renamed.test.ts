/**
 * An account renamed while an apply's pauses were in flight (docs/safety.md, Keeping two
 * accounts apart): the old name's recovery record is reported by plan and status of the new
 * name (DOOH205), never skipped in silence and never obeyed, through `run()` against the
 * emulator with the defaults users write (no DOOHCTL_STATE_DIR, `active` left out).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecoveryStore } from "../../src/apply/recovery.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { accountEnv, writeAccount } from "../helpers/accounts-repo.js";
import { seedCampaign } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";

let emulator: RunningEmulator;
let root: string;
let env: Record<string, string>;

beforeAll(async () => {
  // Malls was paused by an apply of account "north" that died before reactivating it.
  emulator = (
    await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5001", "1001", "Malls", { active: false })],
    })
  ).emulator;
  root = mkdtempSync(join(tmpdir(), "doohctl-accounts-renamed-"));
  env = { HOME: root, XDG_RUNTIME_DIR: join(root, "run") };
  const stateDir = join(root, ".local", "state", "doohctl");
  const scope = { origin: emulator.origin, environment: "production", account_id: USER.account_id };
  const apply = new RecoveryStore(stateDir, { ...scope, account: "north" }).begin("2026-11-23T10:00:00.000Z");
  apply.add([
    { campaign_id: "5001", insertion_order_id: "1001", name: "Malls", paused_at: "2026-11-23T10:00:00.000Z" },
  ]);
  apply.end();
  // Then connection.account was renamed north -> north-eu; the directory and variables stay.
  writeAccount(root, "north-eu", ['  - id: "1001"', "    campaigns:", "      - name: Malls"], {
    dir: join("accounts", "north"),
  });
  Object.assign(env, accountEnv("north-eu", emulator.origin, USER));
});

afterAll(async () => {
  await emulator.close();
});

describe("an account renamed with its recovery record in flight", () => {
  it("plan of the new name reports the old name's record, and does not obey it", async () => {
    const io = bufferIO({ env, cwd: root });
    expect(await run(["plan", "accounts/north"], io), io.err()).toBe(0);
    const out = io.out() + io.err();
    expect(out).toContain("DOOH205");
    expect(out).toContain("configured account north ");
    expect(out).toMatch(/may still be paused/);
    expect(out).not.toContain("DOOH202");
    expect(emulator.state().campaigns.find((c) => c.id === "5001")?.active).toBe(false);
  });

  it("status of the new name reports it too", async () => {
    const io = bufferIO({ env, cwd: root });
    await run(["status", "accounts/north"], io);
    expect(io.err()).toContain("DOOH205");
    expect(io.err()).toContain("configured account north ");
  });
});
