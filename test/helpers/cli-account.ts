/**
 * The account CLI tests run `doohctl` against through `run()`: the emulator on port 0 with its
 * rate limits off, a config aimed at it, and the environment that logs a user in.
 */
import {
  type RunningEmulator,
  type SeedCampaign,
  type SeedUser,
  startEmulator,
} from "../../src/emulator/index.js";
import { ADVERTISER, seedIo } from "./builders.js";

/** One advertiser, insertion order 1001 and `campaigns` under it, for `users`. */
export function startAccount(users: SeedUser[], campaigns: SeedCampaign[]): Promise<RunningEmulator> {
  return startEmulator({
    port: 0,
    rateLimits: "off",
    seed: { users, advertisers: [ADVERTISER], insertion_orders: [seedIo("1001")], campaigns },
  });
}

/**
 * A config file aimed at `origin` with the client's windows raised, so no command waits for a
 * rate-limit slot; `insertionOrders` are the lines under `insertion_orders:`.
 */
export function accountConfig(origin: string, insertionOrders: readonly string[]): string {
  return [
    "version: 1",
    "connection:",
    `  api_origin: ${origin}`,
    "  rate_limits: { get: 1000/60s, write: 1000/60s, session: 100/60s }",
    "insertion_orders:",
    ...insertionOrders,
    "",
  ].join("\n");
}

/** Credentials from the environment, as users give them; HOME in the test's own directory keeps the session cache there. */
export function loginEnv(user: { email: string; password: string }, home: string): Record<string, string> {
  return { DOOHCTL_EMAIL: user.email, DOOHCTL_PASSWORD: user.password, HOME: home };
}
