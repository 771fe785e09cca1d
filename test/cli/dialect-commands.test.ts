/**
 * doohctl follows a dialect (docs/assumptions.md#dialect) through every command that talks to
 * the DSP: against the emulator serving each key alone, then all together, `plan`, `apply`,
 * `plan` again (converged), `export`, `status` and `pull` run with `connection.dialect`
 * saying the same, and the DSP's state and request log show each request went where the
 * dialect puts it, none refused. Doctor's side: test/doctor.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { Money } from "../../src/model/money.js";
import type { Plan } from "../../src/plan/types.js";
import { login, request } from "../emulator/helpers.js";
import { dialectAccount, dialectOf, HARBOUR_LINES } from "../helpers/dialects.js";
import { bufferIO } from "../helpers/io.js";
import { COLLEAGUE } from "../helpers/users.js";

/** Each key with a value of its own; `undefined` keys stay at their default. */
const ALONE: Record<string, Record<string, unknown>> = {
  insertion_orders_path: { insertion_orders_path: "/v2/orders" },
  contract_number: { contract_number: "po_number" },
  "progress.parameter": { progress: { parameter: "with=delivery" } },
  "progress.member": { progress: { member: "delivery" } },
  "progress.impressions": { progress: { impressions: "impressions" } },
  "progress.spend": { progress: { spend: "cost" } },
  "targetings.read_path": { targetings: { read_path: "/targeting_sets/{id}" } },
  "targetings.member": { targetings: { member: "sets" } },
  campaign_targetings: { campaign_targetings: "targeting_sets" },
  create_campaigns_member: { create_campaigns_member: "items" },
};
const ALL = Object.values(ALONE).reduce<Record<string, Record<string, unknown>>>((all, written) => {
  for (const [key, value] of Object.entries(written)) {
    all[key] = typeof value === "object" ? { ...all[key], ...(value as object) } : (value as never);
  }
  return all;
}, {});

/**
 * The config: the contract number changed, Airports (active, in flight) raised and narrowed
 * to one of its two option sets (a pause around the PUT, I1), Harbour new and active.
 */
function config(origin: string, written: Record<string, unknown>, contract = "PO-2"): string {
  return [
    "version: 1",
    "connection:",
    `  api_origin: ${origin}`,
    "  rate_limits: { get: 1000/60s, write: 1000/60s, session: 100/60s }",
    `  dialect: ${JSON.stringify(written)}`,
    "insertion_orders:",
    '  - id: "1001"',
    `    contract_number: ${contract}`,
    "    campaigns:",
    "      - name: Airports",
    "        budget_impressions: 150000",
    "        targetings:",
    "          - venue_type_targeting_option: { venue_type_ids: ['12', '14'] }",
    ...HARBOUR_LINES,
    "",
  ].join("\n");
}

/** Requests the emulator refused, or answered with an error. */
const refused = (emulator: RunningEmulator) => emulator.requestLog().filter((r) => r.status >= 400);

describe.each([
  ...Object.entries(ALONE).map(([key, written]) => [key, written] as const),
  ["every key at once", ALL] as const,
])("a DSP whose dialect moves %s", (_, written) => {
  it("plan, apply, plan, export, status and pull follow it, and the DSP refuses nothing", async () => {
    const dialect = dialectOf(written);
    const cli = await dialectAccount(dialect, "doohctl-dialect-commands-");
    const { emulator, dir, env } = cli;
    const exec = async (args: string[]) => {
      const io = bufferIO({ env, cwd: dir });
      const code = await run([...args, "--no-session-cache"], io);
      return { code, out: io.out(), err: io.err() };
    };
    try {
      writeFileSync(join(dir, "doohctl.yaml"), config(emulator.origin, written));

      // The plan shows each write as it is sent: the dialect's members in the bodies.
      const planned = await exec(["plan", "--format", "json"]);
      expect(planned.code, planned.err).toBe(0);
      const plan = JSON.parse(planned.out) as Plan;
      const post = plan.requests.find((r) => r.method === "POST")!;
      expect(post.path).toBe("/api/dsp/v1/campaigns");
      expect(Object.keys(post.body as object)).toEqual([dialect.create_campaigns_member]);
      const patch = plan.requests.find((r) => r.path === "/api/dsp/v1/insertion_orders")!;
      expect(patch.body).toEqual({ insertion_orders: [{ id: "1001", [dialect.contract_number]: "PO-2" }] });

      // Every key alone applies with no saved plan, as most runs do; all at once through a
      // saved plan, whose requests carry the dialect's members as planned.
      if (written === ALL) {
        const saved = await exec(["plan", "-o", "plan.json"]);
        expect(saved.code, saved.err).toBe(0);
      }
      const applied = await exec([
        "apply",
        ...(written === ALL ? ["--plan", "plan.json"] : []),
        "--auto-approve",
      ]);
      expect(applied.code, applied.err).toBe(0);
      const again = await exec(["plan", "--detailed-exitcode"]);
      expect(again.code, again.out + again.err).toBe(0);
      expect(again.out).toContain("no changes");

      const state = emulator.state();
      expect(state.insertion_orders[0]?.contract_number).toBe("PO-2");
      const byName = new Map(state.campaigns.map((c) => [c.name, c]));
      expect(byName.get("Airports")).toMatchObject({ active: true, budget_impressions: 150_000 });
      expect(byName.get("Harbour")).toMatchObject({ active: true, budget_impressions: 20_000 });
      // The emulator keeps option sets normalized: `exclude` false when absent (G5).
      expect(state.targetings["5001"]).toEqual([
        { venue_type_targeting_option: { venue_type_ids: ["12", "14"], exclude: false } },
      ]);
      expect(state.targetings[byName.get("Harbour")!.id]).toEqual([
        { publisher_targeting_option: { publisher_ids: ["p1"], exclude: false } },
      ]);

      // Every read went where the dialect puts it, and a DSP that embeds targetings is never
      // asked for them apart (G5).
      const gets = emulator
        .requestLog()
        .filter((r) => r.method === "GET" && r.path.startsWith("/api/dsp/v1"));
      const ioPath = `/api/dsp/v1${dialect.insertion_orders_path}`;
      expect(gets.some((r) => r.path === ioPath)).toBe(true);
      const targetingReads = gets.filter((r) =>
        new RegExp(`^/api/dsp/v1${dialect.targetings.read_path.replace("{id}", "[^/]+")}$`).test(r.path),
      );
      if (dialect.campaign_targetings === null) expect(targetingReads.length).toBeGreaterThan(0);
      else expect(targetingReads).toEqual([]);

      const exported = await exec(["export", "--all", "--config", "doohctl.yaml"]);
      expect(exported.code, exported.err).toBe(0);
      expect(exported.out).toContain("contract_number: PO-2");
      expect(exported.out).toContain("name: Harbour");

      // Progress by the dialect's parameter and members: Airports is active and in flight. The
      // exit code is 2 when a campaign alerts (Harbour, new, has delivered nothing yet).
      const status = await exec(["status", "--format", "json"]);
      expect([0, 2], status.err).toContain(status.code);
      const report = JSON.parse(status.out) as {
        campaigns: { name: string; impressions: { delivered: number }; spend: { amount: string } }[];
      };
      const airports = report.campaigns.find((c) => c.name === "Airports")!;
      const delivered = airports.impressions.delivered;
      expect(delivered).toBeGreaterThan(0);
      // Spend = impressions x cpm / 1000 at 12 USD (seedCampaign): 0.012 USD, 12,000,000 nanos each.
      const spent = Money.parse(airports.spend.amount);
      expect(spent.currency_code).toBe("USD");
      expect(Money.toNanos(spent)).toBe(BigInt(delivered) * 12_000_000n);

      // A colleague changes the contract number out of band, speaking the dialect's member; pull
      // reads it back through the dialect's insertion order path.
      const cookie = await login(emulator.origin, COLLEAGUE);
      const outOfBand = await request(emulator.origin, "PATCH", "/api/dsp/v1/insertion_orders/1001", {
        cookie,
        body: { [dialect.contract_number]: "PO-3" },
      });
      expect(outOfBand.status).toBe(200);
      const pulled = await exec(["pull"]);
      expect(pulled.code, pulled.err).toBe(0);
      expect(readFileSync(join(dir, "doohctl.yaml"), "utf8")).toContain("contract_number: PO-3");

      expect(refused(emulator)).toEqual([]);
    } finally {
      await cli.close();
    }
  });
});

it("the last dialect holds every key's value of those alone", () => {
  const all = dialectOf(ALL) as unknown as Record<string, unknown>;
  for (const written of Object.values(ALONE)) {
    for (const [key, value] of Object.entries(written)) {
      if (typeof value === "object") expect(all[key]).toMatchObject(value as object);
      else expect(all[key]).toBe(value);
    }
  }
});
