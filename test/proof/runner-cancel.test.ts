/**
 * A GitHub runner cancelling the built `doohctl apply`: SIGINT, 7.5 s
 * later SIGTERM, 2.5 s later SIGKILL, sent while campaigns are paused for a targeting change.
 * Without a terminal no signal aborts the restore of delivery (docs/apply.md, Interrupting):
 * when the write window holds the reactivation past the SIGKILL, the recovery record keeps the
 * paused campaigns, and the next plan reactivates them (DOOH202) and the next apply does. A
 * reactivation held only past the SIGTERM (acknowledged and ignored, every campaign active
 * again, exit 130): test/ci/run-step-cancel.test.ts, the same sequence to the same process
 * through docs/ci.md's recipe.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { ADVERTISER, PUBLISHERS, seedCampaign, seedIo, VENUES_A } from "../helpers/builders.js";
import { loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { cancelLikeGitHub } from "../helpers/runner-cancel.js";
import { USER } from "../helpers/users.js";
import { ensureBuilt, spawnCli } from "./binary.js";
import { watchDelivery } from "./world.js";

beforeAll(() => ensureBuilt(), 180_000);

const CAMPAIGNS = ["Malls", "Stations", "Airports"];

/** `active` left out, as people do: only the recovery record knows the campaigns were active. */
function config(origin: string, writeWindow: string): string {
  return [
    "version: 1",
    "connection:",
    `  api_origin: ${origin}`,
    `  rate_limits: { get: 1000/60s, write: ${writeWindow}, session: 100/60s }`,
    "insertion_orders:",
    '  - id: "1001"',
    "    campaigns:",
    ...CAMPAIGNS.flatMap((name) => [
      `      - name: ${name}`,
      '        targetings: [{ venue_targeting_option: { venue_targeting_ids: ["101", "102"] } }]',
    ]),
    "",
  ].join("\n");
}

/** Three active campaigns each losing their publisher exclusion: the plan pauses them. */
async function account(options: { writeWindow: string }) {
  const emulator = (
    await startCliAccount({
      systemTime: true,
      seed: {
        users: [USER],
        advertisers: [ADVERTISER],
        insertion_orders: [seedIo("1001")],
        campaigns: CAMPAIGNS.map((name, i) => seedCampaign(String(5001 + i), "1001", name, { active: true })),
        targetings: Object.fromEntries(CAMPAIGNS.map((_, i) => [String(5001 + i), [VENUES_A, PUBLISHERS]])),
      },
    })
  ).emulator;
  const dir = mkdtempSync(join(tmpdir(), "doohctl-runner-cancel-"));
  writeFileSync(join(dir, "doohctl.yaml"), config(emulator.origin, options.writeWindow));
  const { violations, inactive } = watchDelivery(emulator);
  return { emulator, dir, env: loginEnv(USER, dir), violations, inactive, close: () => emulator.close() };
}

/** Starts the apply and cancels it like the runner once its first targeting PUT landed. */
async function applyCancelledAtFirstPut(world: Awaited<ReturnType<typeof account>>) {
  const child = spawnCli(["apply", "--auto-approve"], { cwd: world.dir, env: world.env });
  const cancelled = new Promise<Awaited<ReturnType<typeof cancelLikeGitHub>>>((resolve) => {
    let started = false;
    world.emulator.onWrite((entry) => {
      if (entry.method !== "PUT" || started) return;
      started = true;
      void cancelLikeGitHub(child.process, child.exited).then(resolve);
    });
  });
  const code = await child.exited;
  return { code, child, cancel: await cancelled };
}

describe("apply cancelled the way a GitHub runner cancels a step", () => {
  it("held past the SIGKILL by the write window, the record makes the next plan and apply reactivate", async () => {
    // Two writes a 30 s window: the pause and the first PUT fill it, the reactivation waits.
    const world = await account({ writeWindow: "2/30s" });
    try {
      const { code, child, cancel } = await applyCancelledAtFirstPut(world);
      expect(cancel.sent, child.stderr()).toEqual(["SIGINT", "SIGTERM", "SIGKILL"]);
      expect(code).toBe("SIGKILL");
      expect(child.stderr()).toMatch(/SIGTERM ignored: reactivating the campaigns this apply paused first/);
      expect(world.inactive().sort()).toEqual([...CAMPAIGNS].sort());

      // The next run (the window raised back, as the next job's fresh process has it).
      const path = join(world.dir, "doohctl.yaml");
      writeFileSync(path, readFileSync(path, "utf8").replace("write: 2/30s", "write: 1000/60s"));
      const plan = bufferIO({ env: world.env, cwd: world.dir });
      expect(await run(["plan"], plan), plan.err()).toBe(0);
      expect(plan.out()).toContain("DOOH202");
      const io = bufferIO({ env: world.env, cwd: world.dir });
      expect(await run(["apply", "--auto-approve"], io), io.err()).toBe(0);
      expect(world.inactive()).toEqual([]);
      expect(world.violations).toEqual([]);
    } finally {
      await world.close();
    }
  }, 40_000);
});
