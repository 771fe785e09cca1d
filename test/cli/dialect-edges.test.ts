/**
 * The dialect's edges (docs/connecting.md, Dialect), over HTTP: member names a DSP may use
 * (hyphens, dots) converge through every command; a progress member the DSP does not answer
 * names the keys that adapt it and the command that proposes them, for a DSP that refuses the
 * parameter and for one that ignores it (G16); `dialect:` with only comments is the defaults.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { Departures } from "../../src/emulator/index.js";
import type { CliAccount } from "../helpers/cli-account.js";
import { dialectAccount, dialectOf, HARBOUR_LINES } from "../helpers/dialects.js";
import { bufferIO } from "../helpers/io.js";

let account: CliAccount | undefined;
afterEach(async () => {
  await account?.close();
  account = undefined;
});

async function exec(cli: CliAccount, args: string[]) {
  const io = bufferIO({ env: { ...cli.env, DOOHCTL_SESSION_CACHE: "off" }, cwd: cli.dir });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

function config(origin: string, dialect: string, orders: readonly string[]): string {
  return [
    "version: 1",
    "connection:",
    `  api_origin: ${origin}`,
    "  rate_limits: { get: 1000/60s, write: 1000/60s, session: 100/60s }",
    dialect,
    "insertion_orders:",
    ...orders,
    "",
  ].join("\n");
}

const HYPHENATED = {
  contract_number: "po-number",
  progress: {
    parameter: "with-stats=1",
    member: "delivery-stats",
    impressions: "imps.total",
    spend: "spend-usd",
  },
  campaign_targetings: "targeting-sets",
  create_campaigns_member: "new-campaigns",
};

describe("member names with hyphens and dots", () => {
  it("converge: the contract number, progress, embedded targetings and a create, then no changes", async () => {
    account = await dialectAccount(dialectOf(HYPHENATED), "doohctl-dialect-edges-");
    const orders = [
      '  - id: "1001"',
      "    contract_number: PO-2",
      "    campaigns:",
      "      - name: Airports",
      "        budget_impressions: 120000",
      ...HARBOUR_LINES,
    ];
    writeFileSync(
      join(account.dir, "doohctl.yaml"),
      config(account.emulator.origin, `  dialect: ${JSON.stringify(HYPHENATED)}`, orders),
    );
    expect((await exec(account, ["validate"])).code).toBe(0);
    const applied = await exec(account, ["apply", "--auto-approve"]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(applied.out).toContain("Apply complete.");
    const state = account.emulator.state();
    expect(state.insertion_orders[0]?.contract_number).toBe("PO-2");
    const harbour = state.campaigns.filter((c) => c.name === "Harbour");
    expect(harbour.map((c) => c.active)).toEqual([true]);
    expect(state.targetings[harbour[0]!.id]).toHaveLength(1);

    const planned = await exec(account, ["plan", "--detailed-exitcode"]);
    expect(planned.code, planned.out + planned.err).toBe(0);
    const status = await exec(account, ["status", "--format", "json"]);
    expect([0, 2]).toContain(status.code);
    expect(JSON.parse(status.out).campaigns.length).toBeGreaterThan(0);
  });
});

describe("a progress member the DSP does not answer", () => {
  /** The DSP takes `stats=on`, a parameter doctor does not try; the config keeps the default. */
  const theirs = dialectOf({ progress: { parameter: "stats=on" } });
  const ORDERS = ['  - id: "1001"', "    campaigns:", "      - name: Airports"];

  it.each<[string, Departures, RegExp]>([
    [
      "refused",
      {},
      /include_progress is not a known parameter: the DSP refused the progress parameter include_progress=true/,
    ],
    [
      "ignored (G16)",
      { unknownParameters: "ignore" },
      /at campaign 5001\/progress: a required member with include_progress=true \(see docs\/assumptions.md#g2\), missing/,
    ],
  ])(
    "%s: plan and status stop naming the keys and doohctl doctor --suggest-dialect",
    async (_, departures, said) => {
      account = await dialectAccount(theirs, "doohctl-dialect-edges-", { departures });
      writeFileSync(join(account.dir, "doohctl.yaml"), config(account.emulator.origin, "", ORDERS));
      for (const command of ["plan", "status"]) {
        const ran = await exec(account, [command]);
        expect(ran.code, ran.out).toBe(1);
        expect(ran.err).toMatch(said);
        expect(ran.err).toContain("connection.dialect.progress.parameter");
        expect(ran.err).toContain("doohctl doctor --suggest-dialect");
      }
      expect(
        account.emulator.requestLog().filter((e) => e.method !== "GET" && e.path.startsWith("/api/dsp/")),
      ).toEqual([]);
    },
  );
});

describe("a dialect written with nothing but comments under it", () => {
  it("is the defaults, for the key and for a group: a pasted suggestion stays valid", async () => {
    account = await dialectAccount(dialectOf({}), "doohctl-dialect-edges-");
    const dialect = [
      "  dialect:",
      '    # insertion_orders_path: "/insertion_orders"  # holds (the default)',
      "    progress:",
      '      # parameter: "include_progress=true"  # holds (the default)',
      "    targetings:",
    ].join("\n");
    writeFileSync(
      join(account.dir, "doohctl.yaml"),
      config(account.emulator.origin, dialect, [
        '  - id: "1001"',
        "    campaigns:",
        "      - name: Airports",
      ]),
    );
    const validated = await exec(account, ["validate"]);
    expect(validated.code, validated.out + validated.err).toBe(0);
    expect(validated.out).toContain("dialect: every key as the default");
    const planned = await exec(account, ["plan", "--detailed-exitcode"]);
    expect(planned.code, planned.out + planned.err).toBe(0);
  });
});
