/**
 * The proof tests' world: a seeded large account from bench/scenario.ts (plus a few new
 * campaigns, so creation and I2 are exercised too), the desired config loaded through the
 * real loader, and invariant checks run on the emulator's state after every write.
 */
import { parse, stringify } from "yaml";
import { generateScenario, type Scenario, type ScenarioOptions } from "../../bench/scenario.js";
import { loadConfig } from "../../src/config/load.js";
import type {
  EmulatorSeed,
  EmulatorStateView,
  RequestLogEntry,
  RunningEmulator,
} from "../../src/emulator/index.js";
import type { DesiredState } from "../../src/model/desired.js";
import { Targeting, type TargetingOptionSet } from "../../src/model/targeting.js";
import { Time } from "../../src/model/time.js";

export const LONG = process.env.DOOHCTL_LONG_TESTS === "1";

export interface ProofScenario {
  scenario: Scenario;
  seed: EmulatorSeed;
  /** The desired config: the scenario's, plus `newPerOrder` new campaigns in each insertion order. */
  configYaml: string;
  /** Desired targetings and creatives of the new campaigns, by name (for I2). */
  created: Map<string, { targetings: TargetingOptionSet[]; creatives: string[] }>;
  user: { email: string; password: string };
  /** Ids of the campaigns whose config leaves `active` undeclared (`undeclaredActive`). */
  undeclared: string[];
}

/**
 * A scenario and its config, with `newPerOrder` campaigns to create in every insertion order.
 * With `undeclaredActive`, every second campaign whose targetings change leaves `active` out of
 * the config, as people do: the live value is then the desired one, so a campaign an apply
 * paused and never reactivated would look settled to a plan without the recovery record.
 */
export function proofScenario(
  options: ScenarioOptions & { newPerOrder?: number; undeclaredActive?: boolean },
): ProofScenario {
  const scenario = generateScenario(options);
  const config = parse(scenario.configYaml) as {
    insertion_orders: { id: string; campaigns: Record<string, unknown>[] }[];
  };
  const undeclared: string[] = [];
  if (options.undeclaredActive) {
    const changed = (id: string) =>
      JSON.stringify(scenario.live.targetings[id]) !== JSON.stringify(scenario.desired.targetings[id]);
    const retargeted = config.insertion_orders
      .flatMap((io) => io.campaigns)
      .filter((c) => typeof c.id === "string" && changed(c.id));
    retargeted.forEach((campaign, n) => {
      if (n % 2 !== 0) return;
      delete campaign.active;
      undeclared.push(campaign.id as string);
    });
  }
  const created: ProofScenario["created"] = new Map();
  for (const io of config.insertion_orders) {
    const creatives = scenario.live.creatives
      .filter((c) => c.insertion_order_ids.includes(io.id) || c.campaign_ids.length === 0)
      .filter(
        (c) => scenario.live.insertion_orders.find((x) => x.id === io.id)?.advertiser_id === c.advertiser_id,
      )
      .map((c) => c.id)
      .slice(0, 1);
    for (let n = 0; n < (options.newPerOrder ?? 0); n++) {
      const name = `New ${n + 1} of ${io.id}`;
      const targetings: TargetingOptionSet[] = [
        { venue_targeting_option: { venue_targeting_ids: [`V-${io.id}-${n}`], exclude: false } },
      ];
      created.set(name, { targetings, creatives });
      io.campaigns.push({
        name,
        active: true,
        start_time: "2026-12-15T00:00:00Z",
        end_time: "2027-02-01T00:00:00Z",
        budget_impressions: 5_000,
        cpm: "9.5 USD",
        targetings,
        creatives,
      });
    }
  }
  const { users, ...rest } = scenario.live;
  return {
    scenario,
    seed: { users, ...rest } as EmulatorSeed,
    configYaml: stringify(config, { lineWidth: 0 }),
    created,
    user: { email: users[0]!.email, password: users[0]!.password },
    undeclared,
  };
}

/** Loads a YAML text through the real loader, as the file `doohctl.yaml`. */
export function loadText(text: string): Promise<DesiredState> {
  return loadConfig(["doohctl.yaml"], {
    cwd: "/proof",
    readFile: async () => new TextEncoder().encode(text),
    listDirectory: async () => undefined,
  });
}

/**
 * I1, I2 and I3 between two consecutive states of the emulator. Returns the violations (an
 * onWrite listener must not throw: the emulator would turn that into an uncaught error).
 */
export function invariantViolations(
  before: EmulatorStateView,
  after: EmulatorStateView,
  entry: RequestLogEntry,
  created: ProofScenario["created"],
): string[] {
  const problems: string[] = [];
  const where = `${entry.method} ${entry.path}`;
  const wasById = new Map(before.campaigns.map((c) => [c.id, c]));
  for (const campaign of after.campaigns) {
    const was = wasById.get(campaign.id);
    // I1 (G5): an active campaign keeps every option set it had.
    if (was?.active && campaign.active) {
      const now = Targeting.normalizeList(after.targetings[campaign.id] ?? []);
      for (const set of Targeting.normalizeList(before.targetings[campaign.id] ?? [])) {
        if (!now.some((n) => Targeting.key(n) === Targeting.key(set))) {
          problems.push(`I1: ${where} removed a targeting from active campaign ${campaign.id}`);
        }
      }
    }
    // I2: a new campaign is active only once its targetings and creatives are in place.
    const wanted = created.get(campaign.name);
    if (wanted && campaign.active) {
      const sets = Targeting.normalizeList(after.targetings[campaign.id] ?? []);
      if (!Targeting.listEquals(sets, Targeting.normalizeList(wanted.targetings))) {
        problems.push(`I2: ${where} left new campaign ${campaign.name} active without its targetings`);
      }
      for (const creative of wanted.creatives) {
        if (!after.creatives.find((c) => c.id === creative)?.campaign_ids.includes(campaign.id)) {
          problems.push(
            `I2: ${where} left new campaign ${campaign.name} active without creative ${creative}`,
          );
        }
      }
    }
  }
  // I3 (G8): budgets and flight windows hold in every intermediate state.
  for (const io of after.insertion_orders) {
    const campaigns = after.campaigns.filter((c) => c.insertion_order_id === io.id);
    const sum = campaigns.reduce((a, c) => a + c.budget_impressions, 0);
    if (io.budget_impressions !== null && sum > io.budget_impressions) {
      problems.push(
        `I3: ${where} put insertion order ${io.id} over budget (${sum} > ${io.budget_impressions})`,
      );
    }
    for (const c of campaigns) {
      if (Time.compare(c.start_time, c.end_time) >= 0) problems.push(`I3: ${where}: flight of ${c.id}`);
      if (Time.compare(io.start_time, c.start_time) > 0 || Time.compare(c.end_time, io.end_time) > 0) {
        problems.push(`I3: ${where}: campaign ${c.id} outside insertion order ${io.id}`);
      }
    }
  }
  return problems;
}

/** Campaign names that occur more than once in one insertion order: a campaign created twice. */
export function duplicateNames(state: EmulatorStateView): string[] {
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const c of state.campaigns) {
    const key = `${c.insertion_order_id}/${c.name}`;
    if (seen.has(key)) duplicates.push(key);
    seen.add(key);
  }
  return duplicates;
}

/**
 * Watches every write `emulator` answers for I1, I2 and I3 (`invariantViolations`, collected in
 * `violations`); `inactive()` names the campaigns that are not active now.
 */
export function watchDelivery(
  emulator: RunningEmulator,
  created: ProofScenario["created"] = new Map(),
): { violations: string[]; inactive: () => string[] } {
  const violations: string[] = [];
  let previous = emulator.state();
  emulator.onWrite((entry, state) => {
    violations.push(...invariantViolations(previous, state, entry, created));
    previous = state;
  });
  const inactive = () =>
    emulator
      .state()
      .campaigns.filter((c) => !c.active)
      .map((c) => c.name);
  return { violations, inactive };
}
