/**
 * The account CLI tests run `doohctl` against through `run()`: the emulator on port 0 with its
 * rate limits off, a config aimed at it, and the environment that logs a user in. It is not
 * `emulatorWorld` (world.ts) because the CLI makes its own client, on the real clock; tests of
 * the emulator itself or of a client on the system clock start it here too. These two are the
 * only places the emulator starts (`noRestrictedImports` on test/ in biome.json).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type EmulatorOptions,
  type EmulatorSeed,
  type RunningEmulator,
  type SeedCampaign,
  type SeedUser,
  startEmulator,
} from "../../src/emulator/index.js";
import { systemClock } from "../../src/model/clock.js";
import { ADVERTISER, seedIo } from "./builders.js";
import { SUITE_NOW, suiteClock } from "./suite-clock.js";
import { USER } from "./users.js";

/** The lines under `insertion_orders:` that raise Malls (seeded at 100,000) to 150,000 impressions. */
export const MALLS_RAISED: readonly string[] = [
  '  - id: "1001"',
  "    campaigns:",
  "      - name: Malls",
  "        budget_impressions: 150000",
];

/** The one-advertiser account: insertion order 1001 and `campaigns` under it, for `users`; `seed` adds or replaces parts. */
function accountSeed(
  users: SeedUser[],
  campaigns: SeedCampaign[],
  seed: Partial<EmulatorSeed>,
): EmulatorSeed {
  return { users, advertisers: [ADVERTISER], insertion_orders: [seedIo("1001")], campaigns, ...seed };
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

/**
 * Credentials from the environment, as users give them; HOME in the test's own directory keeps
 * the session cache there, and XDG_RUNTIME_DIR the apply lock (src/apply/lock.ts).
 */
export function loginEnv(user: { email: string; password: string }, home: string): Record<string, string> {
  return {
    DOOHCTL_EMAIL: user.email,
    DOOHCTL_PASSWORD: user.password,
    HOME: home,
    XDG_RUNTIME_DIR: join(home, "run"),
  };
}

export interface CliAccount {
  emulator: RunningEmulator;
  /** The test's own directory: `doohctl.yaml` and HOME (so the session cache) are there. */
  dir: string;
  /** The environment that logs the first user in. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface CliAccountOptions {
  /** The one-advertiser account's users, the first logging in. @default [USER] (test/helpers/users.ts) */
  users?: SeedUser[];
  /** The one-advertiser account's campaigns, under insertion order 1001. @default [] */
  campaigns?: SeedCampaign[];
  /**
   * Added to the one-advertiser account or, when neither `users` nor `campaigns` is given, the
   * whole seed, as it is (its first user logs in).
   */
  seed?: Partial<EmulatorSeed>;
  /**
   * For a test whose doohctl is a real child process, which reads the system clock: the
   * emulator on `systemClock` too, and the seed, written for the suite's day, placed at today
   * (its `today`, docs/emulator.md), so the two agree on any day.
   */
  systemTime?: boolean;
  /** Added to the emulator's options (port 0, rate limits off, the seed, `suiteClock`). */
  emulator?: Partial<EmulatorOptions>;
  /** The lines under `insertion_orders:` of `doohctl.yaml`. @default [] */
  configOrders?: readonly string[];
  extraConfig?: string;
  /** @default "doohctl-account-" */
  prefix?: string;
}

/**
 * The emulator on the system clock with its rate limits off, and a fresh directory (named from
 * `prefix`) holding `doohctl.yaml` aimed at it, with `configOrders` under `insertion_orders:`
 * and `extraConfig` after them. Tests of the CLI, of a client on real time and of the emulator
 * itself start it here; tests on virtual time start it with `emulatorWorld` (world.ts).
 */
export async function startCliAccount(options: CliAccountOptions = {}): Promise<CliAccount> {
  const whole = options.users === undefined && options.campaigns === undefined && options.seed !== undefined;
  const written = whole
    ? (options.seed as EmulatorSeed)
    : accountSeed(options.users ?? [USER], options.campaigns ?? [], options.seed ?? {});
  const seed = options.systemTime ? { today: SUITE_NOW.slice(0, 10), ...written } : written;
  const emulator = await startEmulator({
    port: 0,
    rateLimits: "off",
    seed,
    clock: options.systemTime ? systemClock : suiteClock,
    ...options.emulator,
  });
  const dir = mkdtempSync(join(tmpdir(), options.prefix ?? "doohctl-account-"));
  const config = accountConfig(emulator.origin, options.configOrders ?? []) + (options.extraConfig ?? "");
  writeFileSync(join(dir, "doohctl.yaml"), config);
  const user = seed.users?.[0];
  return {
    emulator,
    dir,
    env: user ? loginEnv(user, dir) : { HOME: dir, XDG_RUNTIME_DIR: join(dir, "run") },
    close: () => emulator.close(),
  };
}
