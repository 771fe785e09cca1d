import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedCampaign, seedIo } from "../helpers/builders.js";
import { MALLS_RAISED, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { usd } from "../helpers/money.js";
import { USER } from "../helpers/users.js";
import { colleagueClient } from "../helpers/world.js";

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe("apply --plan of a plan saved with --target", () => {
  it("writes only the targeted insertion order, and ignores edits outside it", async () => {
    const account = await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5001", "1001", "Malls"), seedCampaign("5002", "1002", "Stations")],
      seed: { insertion_orders: [seedIo("1001"), seedIo("1002")] },
      configOrders: [
        ...MALLS_RAISED,
        '  - id: "1002"',
        "    campaigns:",
        "      - name: Stations",
        "        budget_impressions: 160000",
      ],
      prefix: "doohctl-saved-target-",
    });
    emulator = account.emulator;
    const { dir } = account;
    const env = { ...account.env, DOOHCTL_STATE_DIR: join(dir, "state") };
    const saved = bufferIO({ env, cwd: dir });
    expect(await run(["plan", "-o", "plan.json", "--target", "1002"], saved), saved.err()).toBe(0);

    // Someone edits a campaign outside the targets after the plan was saved.
    const other = colleagueClient(emulator.origin, USER);
    await other.send(Endpoints.patchCampaigns([{ id: "5001", cpm: usd("15") }]));
    await other.close();

    const io = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--plan", "plan.json", "--auto-approve"], io), io.err()).toBe(0);
    const campaigns = new Map(emulator.state().campaigns.map((c) => [c.id, c]));
    expect(campaigns.get("5002")?.budget_impressions).toBe(160_000);
    expect(campaigns.get("5001")?.budget_impressions).toBe(100_000);
    // --target with --plan is refused: the plan keeps its own targets.
    const twice = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--plan", "plan.json", "--target", "1001", "--auto-approve"], twice)).toBe(1);
    expect(twice.err()).toContain("drop --target");
  });
});
