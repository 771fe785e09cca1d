/** Dialects in tests (src/model/dialect.ts): a written one checked, and an account that speaks one. */
import type { EmulatorOptions } from "../../src/emulator/index.js";
import { type Dialect, parseDialect } from "../../src/model/dialect.js";
import { ADVERTISER, seedCampaign, seedCreative, seedIo } from "./builders.js";
import { type CliAccount, startCliAccount } from "./cli-account.js";
import { suiteClock } from "./suite-clock.js";
import { COLLEAGUE, USER } from "./users.js";

/** A dialect as a config writes it, checked: tests write only valid ones. */
export function dialectOf(written: unknown): Dialect {
  const parsed = parseDialect(written);
  if ("problems" in parsed) throw new Error(`not a dialect: ${JSON.stringify(parsed.problems)}`);
  return parsed.dialect;
}

const DAY = 86_400_000;
const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
/** Flights around the suite's day, so the active campaign is in flight and delivers (G2 progress). */
export const START = iso(suiteClock.now() - 10 * DAY);
export const END = iso(suiteClock.now() + 60 * DAY);
/** A new campaign Harbour, active, in flight, with one option set: lines under `campaigns:`. */
export const HARBOUR_LINES: readonly string[] = [
  "      - name: Harbour",
  "        active: true",
  `        start_time: "${START}"`,
  `        end_time: "${END}"`,
  "        budget_impressions: 20000",
  "        cpm: 10 USD",
  "        targetings:",
  "          - publisher_targeting_option: { publisher_ids: [p1] }",
];
export const VENUE_TYPES = { venue_type_targeting_option: { venue_type_ids: ["12", "14"] } };
export const PUBLISHERS = { publisher_targeting_option: { publisher_ids: ["p1"], exclude: true } };

/**
 * The emulator serving `dialect`: insertion order 1001 (contract PO-1) and campaign 5001
 * "Airports", active and in flight with two option sets and a creative (so it delivers); the
 * test user and a colleague who changes things out of band. `emulator` adds options (departures).
 */
export function dialectAccount(
  dialect: Dialect,
  prefix: string,
  emulator: Partial<EmulatorOptions> = {},
): Promise<CliAccount> {
  return startCliAccount({
    seed: {
      users: [USER, COLLEAGUE],
      advertisers: [ADVERTISER],
      insertion_orders: [seedIo("1001", { contract_number: "PO-1", start_time: START, end_time: END })],
      campaigns: [
        seedCampaign("5001", "1001", "Airports", { active: true, start_time: START, end_time: END }),
      ],
      targetings: { "5001": [VENUE_TYPES, PUBLISHERS] },
      // A campaign delivers only with a creative (docs/emulator.md).
      creatives: [seedCreative("9001", ["5001"], ["1001"])],
    },
    emulator: { dialect, ...emulator },
    prefix,
  });
}
