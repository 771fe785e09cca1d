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
import { interceptingProxy, type OnRequest } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";
import { watchDelivery } from "./world.js";

export const CAMPAIGNS = ["Malls", "Stations", "Airports"];

export interface PausingAccount {
  emulator: RunningEmulator;
  /** What the config names as the DSP: the emulator, or the proxy in front of it. */
  origin: string;
  /** The test's directory: `doohctl.yaml`, HOME and the apply lock's directory. */
  dir: string;
  env: Record<string, string>;
  /** Invariant breaches seen after any write, as text; empty when none. */
  violations: string[];
  /** The names of the campaigns inactive now. */
  inactive(): string[];
  /** Closes the proxy, if any, and the emulator. */
  close(): Promise<void>;
}

/**
 * The account, its requests each slowed by `latencyMs` so a signal lands while the apply is at
 * work; with `onRequest`, the DSP is reached through an intercepting proxy (test/helpers/proxy.ts).
 */
export async function pausingAccount(
  latencyMs: number,
  options: { onRequest?: OnRequest } = {},
): Promise<PausingAccount> {
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
  const proxy = options.onRequest
    ? await interceptingProxy(running.origin, { onRequest: options.onRequest })
    : undefined;
  const origin = proxy?.origin ?? running.origin;
  const dir = mkdtempSync(join(tmpdir(), "doohctl-signals-"));
  writeFileSync(
    join(dir, "doohctl.yaml"),
    accountConfig(origin, [
      '  - id: "1001"',
      "    campaigns:",
      ...CAMPAIGNS.flatMap((name) => [
        `      - name: ${name}`,
        '        targetings: [{ venue_targeting_option: { venue_targeting_ids: ["101", "102"] } }]',
      ]),
    ]),
  );
  const { violations, inactive } = watchDelivery(running);
  const close = async () => {
    await proxy?.close();
    await running.close();
  };
  return { emulator: running, origin, dir, env: loginEnv(USER, dir), violations, inactive, close };
}

/** Whether a write's body pauses a campaign. */
export const isPause = (body: unknown) =>
  ((body as { campaigns?: { active?: boolean }[] } | undefined)?.campaigns ?? []).some(
    (c) => c.active === false,
  );
