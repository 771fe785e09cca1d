/**
 * `doohctl doctor` against a DSP that speaks another dialect (src/model/dialect.ts): each
 * check that differs names the dialect key that adapts it; a config whose `connection.dialect`
 * matches makes them hold; `--suggest-dialect` establishes what GETs can, says what it cannot
 * with what to ask, stays within --max-reads and sends GETs only (and its one login).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { progressProblems } from "../../src/cli/doctor/checks.js";
import type { CheckResult as Check } from "../../src/cli/doctor/probe.js";
import { run } from "../../src/cli/program.js";
import type { AnswerMode, Departures } from "../../src/emulator/index.js";
import { DEFAULT_DIALECT, DIALECT_KEYS, parseDialect } from "../../src/model/dialect.js";
import { seedAccount } from "../helpers/builders.js";
import { type CliAccount, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { answeringProxy, send } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";

let account: CliAccount | undefined;
afterEach(async () => {
  await account?.close();
  account = undefined;
});

interface Finding {
  key: string;
  status: string;
  value: string | null;
  detail: string;
  ask?: string;
}

const PROGRESS = { parameter: "with_progress=true", member: "delivery", impressions: "shown", spend: "cost" };
/** Everything a GET can see moved: the list path, the contract number, progress, targetings. */
const DIFFERENT = {
  insertion_orders_path: "/orders",
  contract_number: "contract_ref",
  progress: PROGRESS,
  campaign_targetings: "targeting_sets",
};

/** The emulator serving `dialect` (written as a config's), on the system clock; its origin. */
async function start(
  dialect: Record<string, unknown>,
  answers?: AnswerMode,
  departures?: Departures,
): Promise<string> {
  account = await startCliAccount({
    seed: { ...seedAccount(), dialect },
    emulator: { ...(answers ? { answers } : {}), ...(departures ? { departures } : {}) },
  });
  return account.emulator.origin;
}

/** A config aimed at `origin`, with `dialect` under `connection:` (YAML lines), in the test's directory. */
function config(origin: string, dialect: string[]): string {
  const file = join(account!.dir, "dialect.yaml");
  const lines = ["version: 1", "connection:", `  api_origin: ${origin}`, ...dialect.map((l) => `  ${l}`)];
  writeFileSync(file, `${[...lines, "insertion_orders: []", ""].join("\n")}`);
  return file;
}

async function doctor(origin: string, args: string[] = []) {
  const io = bufferIO({
    env: {
      DOOHCTL_API_ORIGIN: origin,
      DOOHCTL_EMAIL: USER.email,
      DOOHCTL_PASSWORD: USER.password,
      DOOHCTL_SESSION_CACHE: "off",
    },
    cwd: account!.dir,
  });
  const code = await run(["doctor", ...args], io);
  return { code, out: io.out(), err: io.err() };
}

async function checks(origin: string, args: string[] = []) {
  const { code, out, err } = await doctor(origin, ["--format", "json", ...args]);
  expect(err).toBe("");
  const report = JSON.parse(out);
  return { code, report, byId: new Map<string, Check>(report.checks.map((c: Check) => [c.id, c])) };
}

async function suggestion(origin: string, args: string[] = []) {
  const { code, out, err } = await doctor(origin, ["--suggest-dialect", "--format", "json", ...args]);
  expect(err).toBe("");
  const report = JSON.parse(out);
  return { code, report, key: (k: string) => (report.keys as Finding[]).find((f) => f.key === k)! };
}

/** Only GETs went out, and the one login per run: doctor never writes, whatever it was asked. */
function expectReadOnly(runs = 1) {
  const log = account!.emulator.requestLog();
  expect(
    log.filter((r) => r.method !== "GET" && !(r.method === "POST" && r.path === "/api/session")),
  ).toEqual([]);
  expect(log.filter((r) => r.path === "/api/session")).toHaveLength(runs);
}

const gets = () => account!.emulator.requestLog().filter((r) => r.method === "GET");

const ask = (key: string) => DIALECT_KEYS.find((k) => k.key === key)!.ask;

describe("doohctl doctor against a DSP of another dialect", () => {
  it("names the dialect key that adapts each check that differs", async () => {
    const origin = await start({ insertion_orders_path: "/orders", progress: PROGRESS });
    // The config moves the targetings read where this DSP has nothing.
    const file = config(origin, [
      "dialect:",
      "  targetings:",
      '    read_path: "/campaigns/{id}/targeting_sets"',
    ]);
    const { code, byId } = await checks(origin, ["--config", file]);
    expect(code).toBe(1);
    expect(byId.get("insertion-order-list")).toMatchObject({
      status: "differs",
      detail: expect.stringMatching(/answered 404/),
      change: "connection.dialect.insertion_orders_path (G1)",
    });
    // This DSP refuses G2's parameter as an unknown one (G16).
    expect(byId.get("campaign-progress")).toMatchObject({
      status: "differs",
      detail:
        "include_progress=true answered 422 Invalid Request: the DSP refuses the parameter, so it does not know it (G16)",
      change: "connection.dialect.progress.parameter (G2)",
    });
    expect(byId.get("targetings")).toMatchObject({
      status: "differs",
      detail: expect.stringMatching(/answered 404/),
      change: "connection.dialect.targetings.read_path (G5) or connection.dialect.campaign_targetings (G5)",
    });
    // Paging has no dialect key: the source file stays what to change.
    expect(byId.get("page-bound")!.status).toBe("holds");
    expectReadOnly();
  });

  it("names the parameter and the member when a DSP that ignores the parameter adds nothing", () => {
    // A DSP that ignores an unknown parameter answers the campaign as it is: nothing to tell
    // whether the parameter or the member differs, so both are named.
    const campaign = { id: "5001", name: "Airports", active: true };
    expect(progressProblems(campaign, DEFAULT_DIALECT)).toEqual({
      problems: [
        'include_progress=true added no "progress" member (saw members {id, name, active}): the DSP ignores the parameter, so it does not know it (G16), or holds progress under another member',
      ],
      keys: ["progress.parameter", "progress.member"],
    });
  });

  it("says a DSP that ignores unknown parameters (G16) ignores it, and both kinds name the parameter first", async () => {
    const origin = await start({ progress: PROGRESS }, undefined, { unknownParameters: "ignore" });
    const { code, byId } = await checks(origin);
    expect(code).toBe(1);
    expect(byId.get("campaign-progress")).toMatchObject({
      status: "differs",
      detail: expect.stringMatching(
        /^include_progress=true added no "progress" member \(saw members \{.*\}\): the DSP ignores the parameter/,
      ),
      change: "connection.dialect.progress.parameter (G2) or connection.dialect.progress.member (G2)",
    });
    // Asked for the dialect, it finds the parameter among its candidates all the same.
    const { key } = await suggestion(origin);
    expect(key("progress.parameter")).toMatchObject({ status: "established", value: PROGRESS.parameter });
    expectReadOnly(2);
  });

  it("names the contract number and the progress members where the config misplaces them", async () => {
    const origin = await start({ contract_number: "contract_ref", progress: PROGRESS });
    // The parameter and member right, the members inside wrong; G1's contract number.
    const file = config(origin, [
      "dialect:",
      "  progress: { parameter: with_progress=true, member: delivery, impressions: impressions_delivered, spend: spend }",
    ]);
    const { code, byId } = await checks(origin, ["--config", file]);
    expect(code).toBe(1);
    expect(byId.get("insertion-order-list")).toMatchObject({
      status: "differs",
      detail: expect.stringMatching(/contract_number: a required member, missing/),
      change: "connection.dialect.contract_number (G1)",
    });
    expect(byId.get("insertion-order-members")).toMatchObject({
      status: "differs",
      change: "connection.dialect.contract_number (G1)",
    });
    expect(byId.get("campaign-progress")).toMatchObject({
      status: "differs",
      detail: expect.stringMatching(
        /^delivery\.impressions_delivered \(saw undefined: a required member, missing; members \{shown, cost\}\)/,
      ),
      change: "connection.dialect.progress.impressions (G2) or connection.dialect.progress.spend (G2)",
    });
    // The member elsewhere: the one object the contract does not name is named.
    const member = config(origin, ["dialect:", "  progress: { parameter: with_progress=true }"]);
    const again = await checks(origin, ["--config", member]);
    expect(again.byId.get("campaign-progress")).toMatchObject({
      status: "differs",
      detail: 'no "progress" member with with_progress=true; progress-shaped: delivery',
      change: "connection.dialect.progress.member (G2)",
    });
  });

  it("names campaign_targetings when campaigns do not embed the list the config says they do", async () => {
    const origin = await start({});
    const file = config(origin, ["dialect:", "  campaign_targetings: targeting_sets"]);
    const { code, byId } = await checks(origin, ["--config", file]);
    expect(code).toBe(1);
    expect(byId.get("campaign-list")).toMatchObject({
      status: "differs",
      detail: expect.stringMatching(/targeting_sets/),
      change: "connection.dialect.campaign_targetings (G5)",
    });
    // Asked for the dialect, it finds no campaign embedding option sets: the default holds,
    // and the block does not keep the config's wrong member.
    const { report, key } = await suggestion(origin, ["--config", file]);
    expect(key("campaign_targetings")).toMatchObject({
      status: "holds",
      value: null,
      detail: "none of 3 campaign answers holds option sets",
    });
    expect(report.dialect).toEqual({});
    expectReadOnly(2);
  });

  it("with the dialect the DSP speaks in the config, every check holds", async () => {
    const origin = await start(DIFFERENT);
    const file = config(origin, [
      "dialect:",
      "  insertion_orders_path: /orders",
      "  contract_number: contract_ref",
      "  progress: { parameter: with_progress=true, member: delivery, impressions: shown, spend: cost }",
      "  campaign_targetings: targeting_sets",
    ]);
    const { code, report, byId } = await checks(origin, ["--config", file]);
    expect(report.checks.filter((c: Check) => c.status === "differs")).toEqual([]);
    expect(code).toBe(0);
    expect(byId.get("insertion-order-get")!.detail).toBe("GET /orders/1001 answers it");
    expect(byId.get("campaign-progress")!.detail).toBe(
      "GET /campaigns/{id}?with_progress=true adds delivery {shown, cost}",
    );
    expect(byId.get("targetings")!.detail).toMatch(/^GET \/campaigns\/5001 embeds \{targeting_sets: /);
    // The moved reads are judged as the contract's own (G14): the members the DSP sent.
    expect(byId.get("insertion-order-members")).toMatchObject({ status: "holds" });
    expect(gets().some((r) => r.path === "/api/dsp/v1/orders/1001")).toBe(true);
    expect(gets().some((r) => r.query === "with_progress=true")).toBe(true);
    expectReadOnly();
  });
});

describe("doohctl doctor --suggest-dialect", () => {
  it("establishes progress, the embedded targetings and the contract number, and says what it cannot", async () => {
    const origin = await start(DIFFERENT);
    const { code, report, key } = await suggestion(origin);
    expect(code).toBe(0);
    expect(report.dialect).toEqual({
      // G1's path and /insertion-orders answer 404; the last likely one tried finds the list.
      insertion_orders_path: "/orders",
      contract_number: "contract_ref",
      progress: { parameter: "with_progress=true", member: "delivery", impressions: "shown", spend: "cost" },
      campaign_targetings: "targeting_sets",
    });
    expect(key("create_campaigns_member")).toMatchObject({
      status: "not established",
      ask: ask("create_campaigns_member"),
    });
    expect(key("targetings.read_path").status).toBe("unused");
    // What it printed is a dialect the config accepts.
    expect(parseDialect(report.dialect)).toHaveProperty("dialect");
    expect(report.reads).toBeLessThanOrEqual(30);
    expectReadOnly();
  });

  it("prints YAML to paste under connection:, the keys it could not establish as comments with what to ask", async () => {
    const origin = await start({ ...DIFFERENT, insertion_orders_path: "/buys" });
    const { code, out } = await doctor(origin, ["--suggest-dialect"]);
    expect(code).toBe(0);
    const pasted = parseYaml(out) as { dialect: unknown };
    expect(pasted.dialect).toEqual({
      progress: { parameter: "with_progress=true", member: "delivery", impressions: "shown", spend: "cost" },
      // Written with its keys commented under it: null, which a dialect reads as the defaults.
      targetings: null,
      campaign_targetings: "targeting_sets",
    });
    expect(parseDialect(pasted.dialect)).toHaveProperty("dialect");
    expect(out).toMatch(
      /^# doohctl doctor --suggest-dialect: http:\/\/127\.0\.0\.1:\d+ \(production\), \d+ of 30 reads\n/,
    );
    // Nothing tried finds the list: G1's path and the two likely others, each a 404.
    expect(out).toContain(
      `  # insertion_orders_path: "/insertion_orders"  # could not establish (/insertion_orders, /insertion-orders, /orders answered 404). Ask the DSP's support: ${ask("insertion_orders_path")}\n`,
    );
    expect(out).toContain(
      `  # contract_number: "contract_number"  # could not establish (no insertion order list to look at). Ask the DSP's support: ${ask("contract_number")}\n`,
    );
    expect(out).toContain(
      `  # create_campaigns_member: "campaigns"  # could not establish (a GET cannot show it: only a POST /campaigns would). Ask the DSP's support: ${ask("create_campaigns_member")}`,
    );
    expect(out).not.toContain(USER.password);
    expect(out).not.toContain("PO-1");
    expectReadOnly();
  });

  it("cannot establish the contract number when two members could be it, nor progress when no spelling adds it", async () => {
    // A richer DSP (G14) sends string members the contract does not name beside contract_ref.
    const origin = await start(
      { contract_number: "contract_ref", progress: { ...PROGRESS, parameter: "progress=yes" } },
      "richer",
    );
    const { report, key } = await suggestion(origin);
    expect(key("contract_number")).toMatchObject({
      status: "not established",
      detail: "several members could be it: contract_ref, x_id, x_start_time",
      ask: ask("contract_number"),
    });
    for (const k of ["progress.parameter", "progress.member", "progress.impressions", "progress.spend"]) {
      expect(key(k)).toMatchObject({
        status: "not established",
        // G16: this DSP refuses a parameter it does not know.
        detail:
          "no parameter tried added a member holding an integer and a Money (refused: include_progress=true, with_progress=true, include=progress, expand=progress, fields=progress)",
        ask: ask(k),
      });
    }
    expect(report.dialect).toEqual({});
    expectReadOnly();
  });

  it("spends no more than --max-reads, and says which keys the budget left out", async () => {
    const origin = await start(DIFFERENT);
    const { report, key } = await suggestion(origin, ["--max-reads", "5"]);
    expect(report.reads).toBe(5);
    expect(gets()).toHaveLength(5);
    expect(key("progress.parameter")).toMatchObject({
      status: "not established",
      detail: expect.stringMatching(/read budget exhausted \(5 of 5 reads spent; raise --max-reads\)/),
    });
    expectReadOnly();
  });
});

describe("doohctl doctor --suggest-dialect and ids from the DSP", () => {
  it("never sends a path an id of `..` would move: the keys it needed are not established, and say why", async () => {
    const origin = await start({ campaign_targetings: "targeting_sets" });
    // The DSP answers its first campaign with the id `..`: GET /campaigns/.. would read the
    // DSP base path itself, and a read path `/{id}/...` would leave it.
    const proxy = await answeringProxy(origin, async (request, response, upstream) => {
      if (request.method !== "GET" || request.path !== "/api/dsp/v1/campaigns") return false;
      const answer = await upstream();
      send(response, { ...answer, body: answer.body.replace('"id":"5001"', '"id":".."') });
      return true;
    });
    try {
      const { key } = await suggestion(proxy.origin);
      expect(
        proxy.log.filter((r) => r.path.split("/").some((part) => part === ".." || part === ".")),
      ).toEqual([]);
      expect(key("progress.member").status).toBe("not established");
      expect(key("progress.member").detail).toContain("cannot be a path segment");
    } finally {
      await proxy.close();
    }
  });
});
