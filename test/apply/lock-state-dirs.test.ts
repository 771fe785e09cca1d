/**
 * Two applies of one account by one OS user on one machine, each with its own state
 * directory (docs/safety.md, Two applies at once): the apply lock lives in a per-user place
 * that does not move with DOOHCTL_STATE_DIR, so they are serialized and the second's checks
 * see what the first created. Before, the lock sat in the state directory and two pairs in
 * eighteen created one campaign twice.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedCampaign } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe("two applies with two state directories", () => {
  it("are serialized: the new campaign is created once", async () => {
    const account = await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5001", "1001", "Malls")],
      configOrders: [
        '  - id: "1001"',
        "    campaigns:",
        "      - name: Malls",
        "      - name: Stations",
        "        start_time: 2026-12-01T00:00:00Z",
        "        end_time: 2027-02-01T00:00:00Z",
        "        budget_impressions: 50000",
        "        cpm: 10.00 USD",
        "        pacing: { strategy: even }",
        "        active: false",
      ],
      prefix: "doohctl-lock-dirs-",
    });
    emulator = account.emulator;
    const apply = (state: string) => {
      const io = bufferIO({
        env: { ...account.env, DOOHCTL_STATE_DIR: join(account.dir, state) },
        cwd: account.dir,
      });
      return run(["apply", "--auto-approve", "--no-session-cache"], io).then((code) => ({
        code,
        err: io.err(),
      }));
    };
    const results = await Promise.all([apply("state-a"), apply("state-b")]);
    const stations = emulator.state().campaigns.filter((c) => c.name === "Stations");
    expect(stations, results.map((r) => r.err).join("\n---\n")).toHaveLength(1);
    // The first created it; the second either waited and found it there, or stopped before writing.
    expect(results.some((r) => r.code === 0)).toBe(true);
    expect(results.some((r) => r.err.includes("waiting for another apply"))).toBe(true);
  });
});
