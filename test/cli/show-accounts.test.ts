/**
 * One review for a change across accounts. Each account is its own emulator
 * (its own user and rate windows); `plan -o` saves a plan per account, as the fan-out
 * workflow's matrix jobs do, and `show plan-*.json --format markdown` combines them into one
 * pull-request comment (docs/plan.md, "Several accounts in one comment").
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountLabel } from "../../src/cli/plan-accounts.js";
import { run } from "../../src/cli/program.js";
import { Money } from "../../src/model/money.js";
import type { Plan } from "../../src/plan/types.js";
import { type AccountSummary, renderAccountsMarkdown } from "../../src/render/markdown-accounts.js";
import { seedCampaign, seedIo } from "../helpers/builders.js";
import { type CliAccount, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { DEMO_USER } from "../helpers/users.js";

const GLOBEX = { id: "2", name: "Globex" };

/**
 * Three accounts. Flights start 2026-12-01, so nothing is delivered yet and each campaign's
 * maximum spend is budget_impressions x cpm / 1000 (docs/plan.md, "Money").
 */
const ACCOUNTS = {
  // Malls 100,000 -> 150,000 impressions at 12 USD: +50,000 x 12 / 1000 = +600.00 USD (Acme).
  eu: {
    campaigns: [seedCampaign("5001", "1001", "Malls")],
    orders: ['  - id: "1001"', "    campaigns:", "      - name: Malls", "        budget_impressions: 150000"],
  },
  // Acme: Malls +50,000 x 12 / 1000 = +600.00 USD; Airports 200,000 -> 180,000 at 8.50 USD:
  // -20,000 x 8.5 / 1000 = -170.00 USD; together +430.00 USD.
  // Globex: Stations 50,000 -> 70,000 at 10 EUR: +20,000 x 10 / 1000 = +200.00 EUR.
  us: {
    campaigns: [
      seedCampaign("5001", "1001", "Malls"),
      seedCampaign("5002", "1001", "Airports", { budget_impressions: 200_000, cpm: Money.parse("8.5 USD") }),
      seedCampaign("6001", "2001", "Stations", { budget_impressions: 50_000, cpm: Money.parse("10 EUR") }),
    ],
    seed: {
      insertion_orders: [
        seedIo("1001"),
        seedIo("2001", { advertiser_id: GLOBEX.id, budget_money: Money.parse("20000 EUR") }),
      ],
    },
    orders: [
      '  - id: "1001"',
      "    campaigns:",
      "      - name: Malls",
      "        budget_impressions: 150000",
      "      - name: Airports",
      "        budget_impressions: 180000",
      '  - id: "2001"',
      "    campaigns:",
      "      - name: Stations",
      "        budget_impressions: 70000",
    ],
  },
  // Malls 100,000 -> 90,000 at 12 USD: -10,000 x 12 / 1000 = -120.00 USD (Acme).
  apac: {
    campaigns: [seedCampaign("5001", "1001", "Malls")],
    orders: ['  - id: "1001"', "    campaigns:", "      - name: Malls", "        budget_impressions: 90000"],
  },
} as const;

type AccountName = keyof typeof ACCOUNTS;

const started: CliAccount[] = [];
/** The directory the saved plans are collected in, as the workflow's last job downloads them. */
let plans: string;

async function savePlan(name: AccountName): Promise<void> {
  const spec = ACCOUNTS[name];
  const account = await startCliAccount({
    // Each account's own emulator: the same user name in each is a different user.
    users: [{ ...DEMO_USER, account_id: "1" }],
    campaigns: [...spec.campaigns],
    seed: {
      advertisers: [
        { id: "1", name: "Acme" },
        { id: GLOBEX.id, name: GLOBEX.name },
      ],
      ...("seed" in spec ? { insertion_orders: [...spec.seed.insertion_orders] } : {}),
    },
    configOrders: spec.orders,
    prefix: `doohctl-show-${name}-`,
  });
  started.push(account);
  const io = bufferIO({ env: account.env, cwd: account.dir });
  expect(await run(["plan", "-o", "plan.json", "--no-session-cache"], io), io.err()).toBe(0);
  copyFileSync(join(account.dir, "plan.json"), join(plans, `plan-${name}.json`));
}

beforeAll(async () => {
  plans = mkdtempSync(join(tmpdir(), "doohctl-show-accounts-"));
  for (const name of Object.keys(ACCOUNTS) as AccountName[]) await savePlan(name);
});
afterAll(async () => {
  await Promise.all(started.map((a) => a.close()));
});

/** `doohctl show` in the plans' directory, offline: no credentials, no origin. */
async function show(...args: string[]) {
  const io = bufferIO({ env: {}, cwd: plans });
  const code = await run(["show", ...args], io);
  return { code, out: io.out(), err: io.err() };
}

function summaryRows(markdown: string): string[] {
  return markdown.split("\n").filter((line) => /^\| (`|\*\*all)/.test(line));
}

describe("doohctl show PLAN_FILE... --format markdown (several accounts)", () => {
  it("summarizes two accounts, a row each, the money change per advertiser and currency by hand", async () => {
    const { code, out, err } = await show("plan-eu.json", "plan-us.json", "--format", "markdown");
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out.startsWith("## doohctl plan: 2 accounts, 4 changes\n")).toBe(true);
    expect(summaryRows(out)).toEqual([
      // Each plan read its insertion orders' advertisers and names them.
      "| `eu` | 1 | 1 | about 0s at 1000/60s | Acme: +600.00 USD |",
      // The three campaign updates of two insertion orders go in one PATCH.
      "| `us` | 3 | 1 | about 0s at 1000/60s | Acme: +430.00 USD<br>Globex: +200.00 EUR |",
      // USD: +600.00 + 430.00 = +1,030.00; EUR: +200.00.
      "| **all** | 4 | 2 | about 0s (each account in its own job) | +200.00 EUR<br>+1,030.00 USD |",
    ]);
  });

  it("summarizes three accounts in account order, then each account's plan as its own comment shows it", async () => {
    const { code, out } = await show(
      "plan-us.json",
      "plan-eu.json",
      "plan-apac.json",
      "--format",
      "markdown",
    );
    expect(code).toBe(0);
    expect(summaryRows(out).map((row) => row.split(" | ")[0])).toEqual([
      "| `apac`",
      "| `eu`",
      "| `us`",
      "| **all**",
    ]);
    // USD: +600.00 + 430.00 - 120.00 = +910.00; EUR: +200.00.
    expect(summaryRows(out).at(-1)).toBe(
      "| **all** | 5 | 3 | about 0s (each account in its own job) | +200.00 EUR<br>+910.00 USD |",
    );
    for (const name of ["apac", "eu", "us"]) {
      const single = await show(`plan-${name}.json`, "--format", "markdown");
      expect(out).toContain(`## Account \`${name}\` (\`plan-${name}.json\`)\n\n${single.out}`);
    }
    expect(out.indexOf("## Account `apac`")).toBeLessThan(out.indexOf("## Account `eu`"));
    expect(out.indexOf("## Account `eu`")).toBeLessThan(out.indexOf("## Account `us`"));
    expect(out).not.toContain(DEMO_USER.password);
  });

  it("keeps one plan file exactly as before", async () => {
    const markdown = await show("plan-eu.json", "--format", "markdown");
    expect(markdown.out.startsWith("### doohctl plan: 1 campaign update\n")).toBe(true);
    expect(markdown.out).not.toContain("## Account");
    const text = await show("plan-eu.json");
    expect(text.out).not.toContain("== account");
    const json = await show("plan-eu.json", "--format", "json");
    expect(json.out).toBe(readFileSync(join(plans, "plan-eu.json"), "utf8"));
    const attached = await show("plan-eu.json", "--format", "markdown", "--overflow", "one.md");
    expect(attached.out).toBe(markdown.out);
    expect(readFileSync(join(plans, "one.md"), "utf8")).toBe(markdown.out);
  });

  it("fits the comment within --max-chars and names the accounts whose plans are only in --overflow", async () => {
    const files = ["plan-apac.json", "plan-eu.json", "plan-us.json"];
    const full = await show(...files, "--format", "markdown");
    const us = (await show("plan-us.json", "--format", "markdown")).out;
    const eu = (await show("plan-eu.json", "--format", "markdown")).out;
    // Room for the summary and the two smaller plans, not for us's (the longest).
    expect(us.length).toBeGreaterThan(eu.length);
    const max = full.out.length - 1;
    const { code, out } = await show(
      ...files,
      "--format",
      "markdown",
      "--max-chars",
      String(max),
      "--overflow",
      "comment.md",
    );
    expect(code).toBe(0);
    expect(out.length).toBeLessThanOrEqual(max);
    expect(out).toContain(
      "> **Too long for one comment: the plans of `us` are not shown here;** they are in the complete comment, `comment.md`, attached to the run.",
    );
    expect(out).toContain("## Account `apac`");
    expect(out).toContain(`## Account \`eu\` (\`plan-eu.json\`)\n\n${eu}`);
    expect(out).not.toContain("## Account `us`");
    expect(summaryRows(out)).toEqual(summaryRows(full.out));
    expect(readFileSync(join(plans, "comment.md"), "utf8")).toBe(full.out);
  });

  it("says how to get the plans left out when no --overflow file is given", async () => {
    const { out } = await show("plan-eu.json", "plan-us.json", "--format", "markdown", "--max-chars", "1000");
    expect(out.length).toBeLessThanOrEqual(1000);
    expect(out).toContain(
      "> **Too long for one comment: the plans of `eu`, `us` are not shown here;** run `doohctl show` with `--overflow FILE` to write the complete comment to FILE.",
    );
    expect(summaryRows(out)).toHaveLength(3);
  });

  it("writes the complete comment to --overflow even when all of it fits", async () => {
    const { out } = await show(
      "plan-eu.json",
      "plan-us.json",
      "--format",
      "markdown",
      "--overflow",
      "all.md",
    );
    expect(out).not.toContain("Too long");
    expect(readFileSync(join(plans, "all.md"), "utf8")).toBe(out);
  });

  it("refuses --max-chars below 1,000 or not a number, and --max-chars or --overflow without markdown", async () => {
    for (const bad of ["999", "lots", "1e5", "-5"]) {
      const { code, err } = await show(
        "plan-eu.json",
        "plan-us.json",
        "--format",
        "markdown",
        "--max-chars",
        bad,
      );
      expect(code).toBe(1);
      expect(err).toContain("write a whole number of characters, at least 1,000");
    }
    const { code, err } = await show("plan-eu.json", "plan-us.json", "--overflow", "x.md");
    expect(code).toBe(1);
    expect(err).toBe(
      "doohctl show: --max-chars and --overflow shape a pull-request comment: use them with --format markdown, not --format text\n",
    );
    expect(existsSync(join(plans, "x.md"))).toBe(false);
  });
});

describe("several plan files: what is refused", () => {
  it("fails the whole command on a tampered plan file, naming it, and writes nothing", async () => {
    const plan = JSON.parse(readFileSync(join(plans, "plan-us.json"), "utf8")) as {
      requests: { method: string }[];
    };
    (plan.requests[0] as { method: string }).method = "DELETE";
    writeFileSync(join(plans, "plan-tampered.json"), JSON.stringify(plan));
    const { code, out, err } = await show(
      "plan-eu.json",
      "plan-tampered.json",
      "--format",
      "markdown",
      "--overflow",
      "never.md",
    );
    expect(code).toBe(1);
    expect(out).toBe("");
    expect(err).toMatch(/^doohctl show: plan-tampered\.json is not a valid plan: \/requests\/0\/method /);
    expect(existsSync(join(plans, "never.md"))).toBe(false);
  });

  it("refuses two plans of the same account, naming both files", async () => {
    const other = mkdtempSync(join(tmpdir(), "doohctl-show-twice-"));
    copyFileSync(join(plans, "plan-eu.json"), join(other, "plan-eu.json"));
    const { code, out, err } = await show(
      "plan-eu.json",
      join(other, "plan-eu.json"),
      "--format",
      "markdown",
    );
    expect(code).toBe(1);
    expect(out).toBe("");
    expect(err).toBe(
      `doohctl show: plan-eu.json and ${join(other, "plan-eu.json")} are both plans of account eu: give one plan per account (the newest), or rename a file if its account is another\n`,
    );
  });

  it("prints the refusal as JSON with --format json", async () => {
    const { code, out } = await show("plan-eu.json", "plan-eu.json", "--format", "json");
    expect(code).toBe(1);
    expect(JSON.parse(out)).toEqual({
      errors: [
        { code: "PLAN_ACCOUNT_TWICE", message: expect.stringContaining("account eu"), location: null },
      ],
    });
  });
});

describe("several plan files as text and JSON", () => {
  it("prints JSON as {plans: [{account, file, plan}]}, each plan the saved document", async () => {
    const { code, out } = await show("plan-us.json", "plan-eu.json", "--format", "json");
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as { plans: { account: string; file: string; plan: unknown }[] };
    expect(parsed.plans.map((p) => [p.account, p.file])).toEqual([
      ["eu", "plan-eu.json"],
      ["us", "plan-us.json"],
    ]);
    expect(parsed.plans[1]?.plan).toEqual(JSON.parse(readFileSync(join(plans, "plan-us.json"), "utf8")));
  });

  it("prints text as each plan under a line naming its account and file", async () => {
    const { code, out } = await show("plan-us.json", "plan-eu.json");
    expect(code).toBe(0);
    const eu = (await show("plan-eu.json")).out;
    const us = (await show("plan-us.json")).out;
    expect(out).toBe(`== account eu (plan-eu.json) ==\n\n${eu}\n== account us (plan-us.json) ==\n\n${us}`);
  });
});

describe("the account a plan file is labelled with", () => {
  const plan = () => JSON.parse(readFileSync(join(plans, "plan-eu.json"), "utf8")) as Plan;

  it("is the plan's account when the plan names one (a config declaring connection.account)", () => {
    expect(accountLabel({ ...plan(), account: "northwind-eu" } as Plan, "plans/plan-x.json")).toBe(
      "northwind-eu",
    );
  });

  it("is else the file's name without plan- and .json", () => {
    expect(accountLabel(plan(), "plans/plan-northwind-eu.json")).toBe("northwind-eu");
    expect(accountLabel(plan(), "northwind-eu.json")).toBe("northwind-eu");
    expect(accountLabel(plan(), "plan-.json")).toBe("plan-.json");
  });
});

describe("a summary longer than the comment", () => {
  it("is cut at a line, with a note pointing at the --overflow file", () => {
    const section = (i: number): AccountSummary => ({
      account: `account-${String(i).padStart(2, "0")}`,
      file: `plan-account-${i}.json`,
      changes: 1,
      errors: 0,
      writeRequests: 1,
      estimatedApplyMs: 0,
      writeWindow: "10/60s",
      money: [{ advertiser: "Acme", change: Money.parse("1 USD") }],
    });
    const accounts = Array.from({ length: 40 }, (_, i) => section(i));
    let complete = "";
    const { comment, left } = renderAccountsMarkdown(accounts, {
      maxChars: 1_000,
      markdownOf: (i) => `### doohctl plan: account ${i}\n`,
      overflow: "all.md",
      write: (text) => {
        complete += text;
      },
    });
    expect(comment.length).toBeLessThanOrEqual(1_000);
    expect(
      comment.endsWith(
        "\n> **Too long for one comment: the summary is cut here and no plan is shown;** the complete comment is `all.md`, attached to the run.\n",
      ),
    ).toBe(true);
    expect(comment).toContain("| `account-00` |");
    expect(left).toHaveLength(40);
    // 40 x +1.00 USD.
    expect(complete).toContain("| **all** | 40 | 40 | about 0s (each account in its own job) | +40.00 USD |");
    expect(complete).toContain(
      "## Account `account-39` (`plan-account-39.json`)\n\n### doohctl plan: account 39\n",
    );
  });
});

describe("the summary's cells", () => {
  const summary = (account: string, money: AccountSummary["money"]): AccountSummary => ({
    account,
    file: `plan-${account}.json`,
    changes: 2,
    errors: account === "b" ? 1 : 0,
    writeRequests: 3,
    estimatedApplyMs: account === "b" ? 125_000 : 5_000,
    writeWindow: "10/60s",
    money,
  });

  it("keeps a table row whole whatever the account is called, and says which totals lack an account's spend", () => {
    const { comment } = renderAccountsMarkdown(
      [
        summary("a|b", [{ advertiser: "Acme | Co", change: Money.parse("-0.125 USD") }]),
        summary("b", [{ advertiser: "Acme", change: Money.parse("0 USD") }]),
        summary("c", undefined),
      ],
      { maxChars: 65_536, markdownOf: () => "plan\n" },
    );
    const rows = summaryRows(comment);
    // -0.125 USD rounds half to even to -0.12 USD (src/model/money.ts formatAmount).
    expect(rows).toEqual([
      "| `a\\|b` | 2 | 3 | about 5s at 10/60s | Acme \\| Co: -0.12 USD |",
      "| `b` | 2 (**1 error: cannot be applied**) | 3 | about 2m05s at 10/60s | none |",
      "| `c` | 2 | 3 | about 5s at 10/60s | not in this plan file |",
      "| **all** | 6 | 9 | about 2m05s (each account in its own job) | -0.12 USD<br>without `c` (no spend in the plan file) |",
    ]);
  });
});
