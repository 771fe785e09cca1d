/**
 * A dialect (docs/assumptions.md#dialect) where the DSP answers otherwise than the config says,
 * over HTTP: what doohctl decides with must be there, or the command stops; nothing a dialect
 * moves is read as "unset" or "none".
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { Money } from "../../src/model/money.js";
import type { CliAccount } from "../helpers/cli-account.js";
import { dialectAccount, dialectOf, END, START } from "../helpers/dialects.js";
import { bufferIO } from "../helpers/io.js";
import { type Answer, answeringProxy, type FakeDsp, send } from "../helpers/proxy.js";

function config(origin: string, written: Record<string, unknown>, campaign: readonly string[]): string {
  return [
    "version: 1",
    "connection:",
    `  api_origin: ${origin}`,
    "  rate_limits: { get: 1000/60s, write: 1000/60s, session: 100/60s }",
    `  dialect: ${JSON.stringify(written)}`,
    "insertion_orders:",
    '  - id: "1001"',
    "    campaigns:",
    "      - name: Airports",
    ...campaign.map((line) => `        ${line}`),
    "",
  ].join("\n");
}

async function exec(cli: CliAccount, args: string[]) {
  const io = bufferIO({ env: { ...cli.env, DOOHCTL_SESSION_CACHE: "off" }, cwd: cli.dir });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** The dialect account for `written`; closed when `body` ends. */
async function withAccount(written: unknown, body: (cli: CliAccount) => Promise<void>): Promise<void> {
  const cli = await dialectAccount(dialectOf(written), "doohctl-dialect-review-");
  try {
    await body(cli);
  } finally {
    await cli.close();
  }
}

/** The same behind a proxy that `answer` drives (aim the config at `proxy.origin`). */
async function behindProxy(
  written: unknown,
  answer: Answer,
  body: (cli: CliAccount, proxy: FakeDsp) => Promise<void>,
): Promise<void> {
  await withAccount(written, async (cli) => {
    const proxy = await answeringProxy(cli.emulator.origin, answer);
    try {
      await body(cli, proxy);
    } finally {
      await proxy.close();
    }
  });
}

/** Rewrites the emulator's 2xx JSON answers that `when` picks. */
function rewrite(
  when: (method: string, path: string) => boolean,
  change: (body: Record<string, unknown>) => unknown,
): Answer {
  return async (seen, response, upstream) => {
    if (!when(seen.method, seen.path)) return false;
    const answer = await upstream();
    if (answer.status < 200 || answer.status >= 300 || answer.body === "") return false;
    send(response, { ...answer, body: JSON.stringify(change(JSON.parse(answer.body))) });
    return true;
  };
}

describe("status under a progress member the DSP does not answer", () => {
  it("stops, naming the member, instead of reporting nothing delivered", async () => {
    // The DSP answers progress under `delivery`; the config keeps the default `progress`.
    await withAccount({ progress: { member: "delivery" } }, async (cli) => {
      writeFileSync(join(cli.dir, "doohctl.yaml"), config(cli.emulator.origin, {}, []));
      const status = await exec(cli, ["status"]);
      expect(status.code, status.out).toBe(1);
      expect(status.err).toContain("campaign 5001/progress");
      expect(status.err).toContain("include_progress=true");
      expect(status.out).toBe("");
    });
  });
});

describe("campaign_targetings (G5, G14)", () => {
  const written = { campaign_targetings: "targeting_sets" };
  /** Airports narrowed to one of its two option sets: a pause around the PUT (I1). */
  const narrowed = ["targetings:", "  - venue_type_targeting_option: { venue_type_ids: ['12', '14'] }"];
  const campaignsOf = (body: Record<string, unknown>): Record<string, unknown>[] =>
    Array.isArray(body.campaigns) ? (body.campaigns as Record<string, unknown>[]) : [body];

  it("an embedded option set holding a member doohctl does not know is never replaced (DOOH014)", async () => {
    await behindProxy(
      written,
      rewrite(
        (method, path) => method === "GET" && /\/campaigns(\/[^/]+)?$/.test(path),
        (body) => {
          for (const c of campaignsOf(body)) {
            const sets = c.targeting_sets as Record<string, unknown>[];
            if (sets.length > 0) sets[0] = { ...sets[0], frequency_cap_option: { per_day: 3 } };
          }
          return body;
        },
      ),
      async (cli, proxy) => {
        writeFileSync(join(cli.dir, "doohctl.yaml"), config(proxy.origin, written, narrowed));
        const applied = await exec(cli, ["apply", "--auto-approve"]);
        expect(applied.code, applied.out + applied.err).toBe(1);
        expect(applied.out + applied.err).toContain("DOOH014");
        expect(proxy.writes()).toEqual([]);
        expect(cli.emulator.state().targetings["5001"]).toHaveLength(2);
        expect(cli.emulator.state().campaigns[0]?.active).toBe(true);
      },
    );
  });

  it("export and pull leave such a list undeclared, never writing it without the member", async () => {
    await behindProxy(
      written,
      rewrite(
        (method, path) => method === "GET" && /\/campaigns(\/[^/]+)?$/.test(path),
        (body) => {
          for (const c of campaignsOf(body)) {
            const sets = c.targeting_sets as Record<string, unknown>[];
            sets[0] = { ...sets[0], frequency_cap_option: { per_day: 3 } };
          }
          return body;
        },
      ),
      async (cli, proxy) => {
        writeFileSync(
          join(cli.dir, "doohctl.yaml"),
          config(proxy.origin, written, ["budget_impressions: 100000"]),
        );
        const exported = await exec(cli, ["export", "--all", "--config", "doohctl.yaml"]);
        expect(exported.code, exported.err).toBe(0);
        expect(exported.out).toContain("name: Airports");
        expect(exported.out).not.toContain("venue_type_ids");
        expect(exported.err).toContain("frequency_cap_option");
        const pulled = await exec(cli, ["pull"]);
        expect(pulled.code, pulled.err).toBeLessThan(2);
        expect(readFileSync(join(cli.dir, "doohctl.yaml"), "utf8")).not.toContain("venue_type_ids");
        expect(proxy.writes()).toEqual([]);
      },
    );
  });

  it("a write's answer without the embedded list never leaves the campaign paused", async () => {
    await behindProxy(
      written,
      rewrite(
        (method, path) => method === "PATCH" && /\/campaigns(\/[^/]+)?$/.test(path),
        (body) => {
          for (const c of campaignsOf(body)) delete c.targeting_sets;
          return body;
        },
      ),
      async (cli, proxy) => {
        writeFileSync(join(cli.dir, "doohctl.yaml"), config(proxy.origin, written, narrowed));
        const applied = await exec(cli, ["apply", "--auto-approve"]);
        expect(applied.code, applied.out + applied.err).toBe(0);
        expect(applied.out).not.toContain("LEFT PAUSED");
        // Paused, narrowed, reactivated: the DSP holds the plan's end state.
        expect(proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([
          "PATCH /api/dsp/v1/campaigns",
          "PUT /api/dsp/v1/campaigns/5001/targetings",
          "PATCH /api/dsp/v1/campaigns",
        ]);
        const state = cli.emulator.state();
        expect(state.campaigns[0]?.active).toBe(true);
        expect(state.targetings["5001"]).toEqual([
          { venue_type_targeting_option: { venue_type_ids: ["12", "14"], exclude: false } },
        ]);
        const again = await exec(cli, ["plan", "--detailed-exitcode"]);
        expect(again.code, again.out + again.err).toBe(0);
      },
    );
  });
});

describe("DSP text in a refusal", () => {
  it("is printed with its control characters escaped, never acting on the terminal", async () => {
    const written = { campaign_targetings: "targeting_sets" };
    await behindProxy(
      written,
      rewrite(
        (method, path) => method === "GET" && path.endsWith("/campaigns"),
        (body) => {
          for (const c of body.campaigns as Record<string, unknown>[]) {
            c.id = "5001\u001b[2J\u001b[31m";
            delete c.targeting_sets;
          }
          return body;
        },
      ),
      async (cli, proxy) => {
        writeFileSync(
          join(cli.dir, "doohctl.yaml"),
          config(proxy.origin, written, ["budget_impressions: 150000"]),
        );
        const planned = await exec(cli, ["plan"]);
        expect(planned.code).toBe(1);
        expect(planned.err).toContain("targeting_sets");
        expect(planned.err).not.toContain("\u001b");
        expect(planned.err).toContain("5001\\u001b[2J");
      },
    );
  });
});

describe("a refusal under a dialect", () => {
  it("names the member the DSP sent and the dialect key, not the contract's name for it", async () => {
    // The config's dialect places the contract number under po_number; the DSP keeps the default.
    await withAccount({}, async (cli) => {
      const written = { contract_number: "po_number", progress: { spend: "cost" } };
      writeFileSync(join(cli.dir, "doohctl.yaml"), config(cli.emulator.origin, written, []));
      const planned = await exec(cli, ["plan"]);
      expect(planned.code, planned.err).toBe(1);
      expect(planned.err).toContain(
        "at /insertion_orders/0/po_number (connection.dialect: contract_number): a required member, missing",
      );

      // Progress's inner member: the DSP answers `spend`, the dialect says `cost`.
      writeFileSync(
        join(cli.dir, "doohctl.yaml"),
        config(cli.emulator.origin, { progress: { spend: "cost" } }, []),
      );
      const status = await exec(cli, ["status"]);
      expect(status.code, status.err).toBe(1);
      expect(status.err).toContain(
        "at /campaigns/0/progress/cost (connection.dialect: progress.spend): a required member, missing",
      );
    });
  });
});

describe("an id the DSP answers, in a dialect's path", () => {
  it("stays one segment under the DSP base path: `..` never climbs out of it", async () => {
    // Four segments reach no read of the specification's, so the path is a valid one.
    const written = { targetings: { read_path: "/{id}/targeting/sets" } };
    await behindProxy(
      written,
      rewrite(
        (method, path) => method === "GET" && path.endsWith("/campaigns"),
        (body) => {
          for (const c of body.campaigns as Record<string, unknown>[]) c.id = "..";
          return body;
        },
      ),
      async (cli, proxy) => {
        writeFileSync(
          join(cli.dir, "doohctl.yaml"),
          config(proxy.origin, written, [
            "targetings:",
            "  - venue_type_targeting_option: { venue_type_ids: ['12'] }",
          ]),
        );
        const planned = await exec(cli, ["plan"]);
        expect(planned.code).toBe(1);
        expect(planned.err).toContain('the id ".." cannot be a path segment');
        // As a server reads them: dot segments resolved (the proxy's URL parser does it too).
        const reads = proxy.log.filter((s) => s.method === "GET").map((s) => s.path);
        for (const path of reads) expect(path.startsWith("/api/dsp/v1/")).toBe(true);
        expect(proxy.writes()).toEqual([]);
      },
    );
  });
});

describe("apply --restore-only under every key at once", () => {
  it("reactivates the campaign an apply left paused, through the dialect's reads and members", async () => {
    const written = {
      insertion_orders_path: "/v2/orders",
      contract_number: "po_number",
      progress: { parameter: "with=delivery", member: "delivery", impressions: "impressions", spend: "cost" },
      targetings: { read_path: "/targeting_sets/{id}", member: "sets" },
      campaign_targetings: "targeting_sets",
      create_campaigns_member: "items",
    };
    // The pause goes through; the PUT and the reactivation are refused: the record keeps it.
    let writes = 0;
    let failing = true;
    const refuseAfterThePause: Answer = async (seen, response) => {
      if (seen.method === "GET" || seen.path === "/api/session") return false;
      writes++;
      if (!failing || writes === 1) return false;
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ message: "refused by the test" }));
      return true;
    };
    await behindProxy(written, refuseAfterThePause, async (cli, proxy) => {
      writeFileSync(
        join(cli.dir, "doohctl.yaml"),
        config(proxy.origin, written, [
          "targetings:",
          "  - venue_type_targeting_option: { venue_type_ids: ['12', '14'] }",
        ]),
      );
      const applied = await exec(cli, ["apply", "--auto-approve"]);
      expect(applied.code, applied.err).toBe(1);
      expect(applied.out).toContain("LEFT PAUSED");
      expect(cli.emulator.state().campaigns[0]?.active).toBe(false);

      failing = false;
      const restored = await exec(cli, ["apply", "--restore-only", "--auto-approve"]);
      expect(restored.code, restored.out + restored.err).toBe(0);
      const state = cli.emulator.state();
      expect(state.campaigns[0]?.active).toBe(true);
      // Only the reactivation: the targetings stay as they were.
      expect(state.targetings["5001"]).toHaveLength(2);
    });
  });
});

describe("create_campaigns_member (G3)", () => {
  it("a POST answered under campaigns, not the dialect's member: read there, created once, in one apply", async () => {
    const written = { create_campaigns_member: "items" };
    const lines = [
      "      - name: Harbour",
      `        start_time: "${START}"`,
      `        end_time: "${END}"`,
      "        budget_impressions: 20000",
      "        cpm: 10 USD",
    ];
    const underTheContractsName = rewrite(
      (method, path) => method === "POST" && path.endsWith("/campaigns"),
      ({ items, ...rest }) => ({ ...rest, campaigns: items }),
    );
    await behindProxy(written, underTheContractsName, async (cli, proxy) => {
      writeFileSync(
        join(cli.dir, "doohctl.yaml"),
        `${config(proxy.origin, written, [])}${lines.join("\n")}\n`,
      );
      const applied = await exec(cli, ["apply", "--auto-approve"]);
      expect(applied.code, applied.out + applied.err).toBe(0);
      const harbour = cli.emulator.state().campaigns.filter((c) => c.name === "Harbour");
      expect(harbour).toHaveLength(1);
      expect(applied.out).toContain(`new campaign ids: ${harbour[0]!.id}`);
      // Read where the DSP put it: nothing to learn by name.
      expect(applied.out).not.toContain("could not be read");
      const again = await exec(cli, ["apply", "--auto-approve"]);
      expect(again.code, again.err).toBe(0);
      expect(again.out).toContain("No changes");
      const posts = proxy.log.filter((s) => s.method === "POST" && s.path.endsWith("/campaigns"));
      expect(posts).toHaveLength(1);
    });
  });
});

describe("members a dialect exchanges", () => {
  it("reads progress whose two members swap names, as the DSP serves them", async () => {
    const written = { progress: { impressions: "spend", spend: "impressions_delivered" } };
    await withAccount(written, async (cli) => {
      writeFileSync(join(cli.dir, "doohctl.yaml"), config(cli.emulator.origin, written, []));
      const status = await exec(cli, ["status", "--format", "json"]);
      expect([0, 2], status.err).toContain(status.code);
      const report = JSON.parse(status.out) as {
        campaigns: { impressions: { delivered: number }; spend: { amount: string } }[];
      };
      const [airports] = report.campaigns;
      expect(airports!.impressions.delivered).toBeGreaterThan(0);
      // Spend = impressions x cpm / 1000 at 12 USD (seedCampaign): 0.012 USD an impression.
      expect(Money.toNanos(Money.parse(airports!.spend.amount))).toBe(
        BigInt(airports!.impressions.delivered) * 12_000_000n,
      );
    });
  });
});

describe("embedded targetings under the contract's name for progress", () => {
  it("reads both, each from the member the DSP sent it under", async () => {
    const written = { progress: { member: "delivery" }, campaign_targetings: "progress" };
    await withAccount(written, async (cli) => {
      const narrowed = ["targetings:", "  - venue_type_targeting_option: { venue_type_ids: ['12', '14'] }"];
      writeFileSync(join(cli.dir, "doohctl.yaml"), config(cli.emulator.origin, written, narrowed));
      const planned = await exec(cli, ["plan", "--detailed-exitcode"]);
      expect(planned.code, planned.err).toBe(2);
      // Only the publisher set goes: the live list was read whole.
      expect(planned.out).toContain("- not publishers p1");
      expect(planned.out).not.toContain("+ venue");
      const status = await exec(cli, ["status", "--format", "json"]);
      expect([0, 2], status.err).toContain(status.code);
      const report = JSON.parse(status.out) as { campaigns: { impressions: { delivered: number } }[] };
      expect(report.campaigns[0]!.impressions.delivered).toBeGreaterThan(0);
    });
  });
});
