/**
 * An apply whose recovery record cannot be kept (docs/safety.md, Recovery record) pauses
 * nothing, and says why and what to do, before anything is sent.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { PUBLISHERS, seedCampaign, VENUES_A } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";
import { dspWrites } from "../helpers/world.js";

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function cli(args: string[], env: Record<string, string>, dir: string) {
  const io = bufferIO({ env, cwd: dir });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe("an apply that cannot write its recovery record", () => {
  it("refuses to pause: no campaign is paused unrecorded, and the error says what to do", async () => {
    const account = await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5002", "1001", "Stations", { active: true })],
      seed: { targetings: { "5002": [VENUES_A, PUBLISHERS] } },
      configOrders: [
        '  - id: "1001"',
        "    campaigns:",
        "      - name: Stations",
        '        targetings: [{ venue_targeting_option: { venue_targeting_ids: ["101", "102"] } }]',
      ],
      prefix: "doohctl-recovery-ro-",
    });
    emulator = account.emulator;
    const { dir } = account;
    // The record cannot be kept: a file where its directory goes (found before anything is read).
    const state = join(dir, "state");
    mkdirSync(state, { mode: 0o700 });
    writeFileSync(join(state, "recovery"), "");
    const env = { ...account.env, DOOHCTL_STATE_DIR: state };
    const apply = await cli(["apply", "--auto-approve"], env, dir);
    expect(apply.code).toBe(1);
    expect(apply.err).toContain(`${join(state, "recovery")} is not a directory`);
    expect(apply.err).toMatch(/remove it/);
    expect(emulator.state().campaigns[0]?.active).toBe(true);
    expect(dspWrites(emulator)).toEqual([]);
  });

  it("says clearly when the state directory itself cannot be used, before sending anything", async () => {
    const account = await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5002", "1001", "Stations")],
      configOrders: [
        '  - id: "1001"',
        "    campaigns:",
        "      - name: Stations",
        "        budget_impressions: 150000",
      ],
      prefix: "doohctl-recovery-ro-",
    });
    emulator = account.emulator;
    const { dir } = account;
    const state = join(dir, "state-file");
    writeFileSync(state, "");
    const apply = await cli(["apply", "--auto-approve"], { ...account.env, DOOHCTL_STATE_DIR: state }, dir);
    expect(apply.code).toBe(1);
    expect(apply.err).toContain(state);
    expect(apply.err).toMatch(/DOOHCTL_STATE_DIR/);
    expect(dspWrites(emulator)).toEqual([]);
  });
});
