/**
 * Property: whatever dialect a DSP speaks (docs/assumptions.md#dialect), a config whose
 * `connection.dialect` says the same converges: plan, apply, then plan again finds nothing to
 * do, the DSP refused no request, and its state is what the config declares. Dialects are
 * drawn key by key from values of their own kind; the emulator serves each, on the virtual
 * clock of emulatorWorld.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyPlan } from "../../src/apply/execute.js";
import { loadConfig } from "../../src/config/load.js";
import { type Dialect, parseDialect } from "../../src/model/dialect.js";
import { liveIo, seedCampaignWith, seedCreativeWith } from "../helpers/builders.js";
import { emulatorWorld } from "../helpers/world.js";

/** Each key's values: its default first, then others a DSP might use. */
const written = fc.record(
  {
    insertion_orders_path: fc.constantFrom("/insertion_orders", "/orders", "/v2/insertion-orders", "/io"),
    contract_number: fc.constantFrom("contract_number", "po_number", "contractRef"),
    progress: fc.record(
      {
        parameter: fc.constantFrom("include_progress=true", "with=progress", "expand=delivery"),
        member: fc.constantFrom("progress", "delivery", "stats"),
        impressions: fc.constantFrom("impressions_delivered", "impressions", "imps"),
        spend: fc.constantFrom("spend", "cost", "spent"),
      },
      { requiredKeys: [] },
    ),
    targetings: fc.record(
      {
        read_path: fc.constantFrom(
          "/campaigns/{id}/targetings",
          "/targetings/{id}",
          "/campaigns/{id}/option_sets",
        ),
        member: fc.constantFrom("targetings", "sets", "option_sets"),
      },
      { requiredKeys: [] },
    ),
    campaign_targetings: fc.constantFrom(null, "targetings", "targeting_sets"),
    create_campaigns_member: fc.constantFrom("campaigns", "items", "new_campaigns"),
  },
  { requiredKeys: [] },
);

const CONFIG = `version: 1
insertion_orders:
  - id: "1001"
    contract_number: PO-2
    campaigns:
      - name: Airports
        budget_impressions: 250000
        targetings:
          - venue_type_targeting_option: { venue_type_ids: ["12", "14"] }
      - name: Harbour
        active: true
        start_time: "2026-12-01T00:00:00Z"
        end_time: "2027-01-01T00:00:00Z"
        budget_impressions: 20000
        cpm: 10 USD
        targetings:
          - publisher_targeting_option: { publisher_ids: [p1] }
`;

async function desired(dialect: Dialect) {
  const state = await loadConfig(["doohctl.yaml"], {
    cwd: "/c",
    readFile: async () => new TextEncoder().encode(CONFIG),
    listDirectory: async () => undefined,
  });
  state.connection.dialect = dialect;
  return state;
}

describe("a config that speaks its DSP's dialect", () => {
  it("converges in one apply, with no request refused", async () => {
    await fc.assert(
      fc.asyncProperty(written, async (raw) => {
        const parsed = parseDialect(raw);
        fc.pre("dialect" in parsed); // colliding members are refused by validate, not served
        const dialect = (parsed as { dialect: Dialect }).dialect;
        const world = await emulatorWorld({
          seed: {
            insertion_orders: [liveIo({ budget_money: null })],
            campaigns: [
              seedCampaignWith({ id: "5001", active: true, name: "Airports", budget_impressions: 300_000 }),
            ],
            targetings: {
              "5001": [
                { venue_type_targeting_option: { venue_type_ids: ["12", "14"] } },
                { publisher_targeting_option: { publisher_ids: ["p9"], exclude: true } },
              ],
            },
            creatives: [
              seedCreativeWith({
                id: "9001",
                campaign_ids: ["5001"],
                insertion_order_ids: ["1001"],
                category_ids: [],
              }),
            ],
          },
          emulator: { dialect },
          client: { dialect },
        });
        try {
          const config = await desired(dialect);
          const plan = await world.plan(config);
          expect(plan.findings.filter((f) => f.severity === "error")).toEqual([]);
          const result = await applyPlan({ plan, client: world.client, clock: world.clock });
          expect(result.status).toBe("applied");
          const again = await world.plan(config);
          expect(again.changes).toEqual([]);
          expect(world.emulator.requestLog().filter((r) => r.status >= 400)).toEqual([]);
          const state = world.emulator.state();
          expect(state.insertion_orders[0]?.contract_number).toBe("PO-2");
          const airports = state.campaigns.find((c) => c.name === "Airports");
          expect(airports).toMatchObject({ active: true, budget_impressions: 250_000 });
          expect(state.targetings["5001"]).toEqual([
            { venue_type_targeting_option: { venue_type_ids: ["12", "14"], exclude: false } },
          ]);
          expect(state.campaigns.find((c) => c.name === "Harbour")).toMatchObject({ active: true });
        } finally {
          await world.close();
        }
      }),
      { numRuns: 25 },
    );
  });
});
