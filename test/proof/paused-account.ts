/**
 * The account the signal proofs stop an apply in: three active campaigns each losing their
 * publisher exclusion, so the plan pauses them, puts their targetings one by one and
 * reactivates them (G5, I1). The config leaves `active` out, as people do, so only the
 * recovery record knows the campaigns were active. Every write is checked against the
 * invariants (world.ts).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { ADVERTISER, PUBLISHERS, seedCampaign, seedIo, VENUES_A } from "../helpers/builders.js";
import { accountConfig, loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { USER } from "../helpers/users.js";
import { watchDelivery } from "./world.js";

export const CAMPAIGNS = ["Malls", "Stations", "Airports"];

export interface PausingAccount {
  emulator: RunningEmulator;
  /** The test's directory: `doohctl.yaml`, HOME and the apply lock's directory. */
  dir: string;
  env: Record<string, string>;
  /** Invariant breaches seen after any write, as text; empty when none. */
  violations: string[];
  /** The names of the campaigns inactive now. */
  inactive(): string[];
}

/** The account, its requests each slowed by `latencyMs` so a signal lands while the apply is at work. */
export async function pausingAccount(latencyMs: number): Promise<PausingAccount> {
  const running = (
    await startCliAccount({
      seed: {
        users: [USER],
        advertisers: [ADVERTISER],
        insertion_orders: [seedIo("1001")],
        campaigns: CAMPAIGNS.map((name, i) => seedCampaign(String(5001 + i), "1001", name, { active: true })),
        targetings: Object.fromEntries(CAMPAIGNS.map((_, i) => [String(5001 + i), [VENUES_A, PUBLISHERS]])),
      },
      emulator: { latencyMs },
    })
  ).emulator;
  const dir = mkdtempSync(join(tmpdir(), "doohctl-signals-"));
  writeFileSync(
    join(dir, "doohctl.yaml"),
    accountConfig(running.origin, [
      '  - id: "1001"',
      "    campaigns:",
      ...CAMPAIGNS.flatMap((name) => [
        `      - name: ${name}`,
        '        targetings: [{ venue_targeting_option: { venue_targeting_ids: ["101", "102"] } }]',
      ]),
    ]),
  );
  const { violations, inactive } = watchDelivery(running);
  return { emulator: running, dir, env: loginEnv(USER, dir), violations, inactive };
}

/** Whether a write's body pauses a campaign. */
export const isPause = (body: unknown) =>
  ((body as { campaigns?: { active?: boolean }[] } | undefined)?.campaigns ?? []).some(
    (c) => c.active === false,
  );
