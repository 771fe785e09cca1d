/**
 * I4 at scale: a phase with more than 100 items is split into full batches of at most 100
 * (the API's limit), and no batch item is a no-op. The convergence property cannot show this
 * (its insertion orders hold at most 3 campaigns), so this case is built to need 2 batches in
 * phase 3 and 2 in phase 5. Expected counts come from the scenario, not from the plan.
 */
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { applyPlan } from "../../src/apply/execute.js";
import type { EmulatorStateView } from "../../src/emulator/index.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  seedCampaign,
  seedCreative,
  seedIo,
  VENUES_A,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { emulatorWorld } from "../helpers/world.js";

const CAMPAIGNS = 150;
const ASSOCIATED = 120;
const RETARGETED = 2;
const BATCH = 100;

const campaignId = (i: number) => String(5001 + i);
const creativeId = (i: number) => String(9001 + i);

function sorted(value: unknown): unknown {
  return Array.isArray(value) ? [...value].map(String).sort() : value;
}

/** Fields of `item` (its `id` aside) equal to the live object's: a no-op item has them all. */
function unchangedFields(item: Record<string, unknown>, live: object | undefined): string[] {
  return Object.entries(item).flatMap(([field, value]) =>
    field !== "id" && isDeepStrictEqual(sorted(value), sorted((live as Record<string, unknown>)?.[field]))
      ? [field]
      : [],
  );
}

function noOpItems(method: string, path: string, body: unknown, before: EmulatorStateView): string[] {
  if (method !== "PATCH") return [];
  const [list, items] = Object.entries((body ?? {}) as Record<string, Record<string, unknown>[]>)[0] ?? [];
  const live: Record<string, readonly { id: string }[]> = {
    campaigns: before.campaigns,
    creatives: before.creatives,
    insertion_orders: before.insertion_orders,
  };
  return (items ?? []).flatMap((item, index) => {
    const current = live[list ?? ""]?.find((o) => o.id === item.id);
    // An item the check cannot compare is reported, so the check is never vacuous.
    if (current === undefined) return [`${path} ${list}[${index}] (${item.id}) names no live object`];
    const same = unchangedFields(item, current);
    return same.length > 0
      ? [`${path} ${list}[${index}] (${item.id}) sends unchanged ${same.join(", ")}`]
      : [];
  });
}

describe("batching (I4)", () => {
  it("splits 150 campaign updates and 120 creative changes into batches of 100 with no no-op item", async () => {
    const world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001", { budget_impressions: 20_000_000 })],
        campaigns: Array.from({ length: CAMPAIGNS }, (_, i) => seedCampaign(campaignId(i), "1001", `C${i}`)),
        creatives: Array.from({ length: ASSOCIATED }, (_, i) => seedCreative(creativeId(i))),
      },
    });
    try {
      const desired = desiredState([
        desiredIo("1001", {
          campaigns: Array.from({ length: CAMPAIGNS }, (_, i) =>
            desiredCampaign(`C${i}`, {
              fields: { cpm: usd("13") },
              ...(i < ASSOCIATED ? { creatives: [creativeId(i)] } : {}),
              ...(i < RETARGETED ? { targetings: [VENUES_A] } : {}),
              line: "next",
            }),
          ),
          line: "next",
        }),
      ]);
      const plan = await world.plan(desired);
      expect(plan.findings.filter((f) => f.severity === "error")).toEqual([]);

      const expectedPerPhase = {
        3: Math.ceil(CAMPAIGNS / BATCH),
        4: RETARGETED,
        5: Math.ceil(ASSOCIATED / BATCH),
      };
      const perPhase = (phases: number[]) =>
        Object.fromEntries([3, 4, 5].map((p) => [p, phases.filter((x) => x === p).length]));
      expect(perPhase(plan.requests.map((r) => r.phase))).toEqual(expectedPerPhase);
      expect(plan.requests).toHaveLength(6);
      for (const request of plan.requests) expect(request.items).toBeLessThanOrEqual(BATCH);

      let previous = world.emulator.state();
      const noOps: string[] = [];
      const sent: { method: string; path: string; items: number }[] = [];
      const off = world.emulator.onWrite((entry, state) => {
        if (entry.status >= 200 && entry.status < 300) {
          noOps.push(...noOpItems(entry.method, entry.path, entry.body, previous));
          const list = Object.values((entry.body ?? {}) as Record<string, unknown>).find(Array.isArray);
          sent.push({ method: entry.method, path: entry.path, items: list?.length ?? 1 });
        }
        previous = state;
      });
      const writesBefore = world.writes().length;
      const result = await applyPlan({ plan, client: world.client, clock: world.clock });
      off();

      expect(result.status).toBe("applied");
      expect(world.writes().length - writesBefore).toBe(
        expectedPerPhase[3] + expectedPerPhase[4] + expectedPerPhase[5],
      );
      // Batch sizes, in any order (phase 3 sends its full batch last: it carries the pauses, I5).
      const sizes = (suffix: string) =>
        sent
          .filter((s) => s.path.endsWith(suffix))
          .map((s) => s.items)
          .sort((a, b) => a - b);
      expect(sizes("/campaigns")).toEqual([50, 100]);
      expect(sizes("/creatives")).toEqual([20, 100]);
      expect(sent.filter((s) => s.method === "PUT")).toHaveLength(RETARGETED);
      expect(noOps).toEqual([]);
      expect((await world.plan(desired)).changes).toEqual([]);
    } finally {
      await world.close();
    }
  });
});
