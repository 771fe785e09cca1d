/**
 * The plan over real HTTP against the emulator on port 0, seeded with the example account
 * and planned with the quick-start config.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDspClient } from "../../src/api/client.js";
import { Endpoints } from "../../src/api/endpoints.js";
import { readPlanFile } from "../../src/cli/plan-file.js";
import { run } from "../../src/cli/program.js";
import { loadConfig } from "../../src/config/load.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { Money } from "../../src/model/money.js";
import { createPlan } from "../../src/plan/planner.js";
import { readLiveState } from "../../src/plan/read.js";
import { parsePlan } from "../../src/plan/saved/file.js";
import { checkProposal } from "../../src/plan/saved/proposal.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { exampleSeed } from "../helpers/example-seed.js";
import { bufferIO } from "../helpers/io.js";
import { PLAN_OPTIONS } from "../helpers/plans.js";
import { DEMO_USER } from "../helpers/users.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CONFIG = join(ROOT, "examples", "quickstart", "doohctl.yaml");

const { seed, clock } = await exampleSeed();
let emulator: RunningEmulator;
let dir: string;

beforeAll(async () => {
  emulator = (await startCliAccount({ seed, emulator: { rateLimits: PUBLISHED_RATE_LIMITS, clock } }))
    .emulator;
  dir = mkdtempSync(join(tmpdir(), "doohctl-plan-"));
});
afterAll(async () => {
  await emulator.close();
});

function env(extra: Record<string, string> = {}) {
  return {
    DOOHCTL_API_ORIGIN: emulator.origin,
    DOOHCTL_EMAIL: DEMO_USER.email,
    DOOHCTL_PASSWORD: DEMO_USER.password,
    ...extra,
  };
}

function client() {
  return createDspClient({ apiOrigin: emulator.origin, environment: "production", credentials: DEMO_USER });
}

const gets = () => emulator.requestLog().filter((e) => e.method === "GET").length;

describe("plan against the emulator", () => {
  it("reads the quick-start's live state in the minimum of 7 GETs and plans its changes", async () => {
    const desired = await loadConfig([CONFIG], { cwd: ROOT });
    const c = client();
    const before = gets();
    const live = await readLiveState(c, desired);
    await c.close();
    // 1 insertion orders + 1 campaigns + 3 targetings + 1 creatives by campaign + 1 creative 9004 by id
    // + ceil(advertisers / 100) = 1 to name the orders' advertisers in the money table
    expect(live.readRequests).toBe(7 + 1);
    expect(gets() - before).toBe(7 + 1);
    const plan = createPlan(desired, live, PLAN_OPTIONS);
    expect(plan.findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(plan.findings.map((f) => f.code)).toContain("DOOH201");
    expect(plan.changes.map((c) => c.kind)).toContain("create_campaign");
    expect(plan.summary.read_requests).toBe(7 + 1);
  });

  it("exits 2 with --detailed-exitcode when there are changes and writes nothing", async () => {
    const dspWrites = () =>
      emulator.requestLog().filter((e) => e.method !== "GET" && e.path !== "/api/session").length;
    const writesBefore = dspWrites();
    const io = bufferIO({ clock, env: env(), cwd: ROOT });
    expect(await run(["plan", CONFIG, "--detailed-exitcode", "--no-session-cache"], io)).toBe(2);
    expect(io.out()).toContain("insertion order 1001");
    expect(io.err()).toContain("doohctl: reading campaigns");
    expect(dspWrites()).toBe(writesBefore);
  });

  it("exits 0 with --detailed-exitcode when live state already matches", async () => {
    const file = join(dir, "same.yaml");
    writeFileSync(file, 'version: 1\ninsertion_orders:\n  - id: "1002"\n    budget_impressions: 1000000\n');
    const io = bufferIO({ clock, env: env(), cwd: dir });
    expect(await run(["plan", file, "--detailed-exitcode", "--no-session-cache"], io)).toBe(0);
    expect(io.out()).toContain("doohctl plan: no changes");
  });

  it("saves the plan with -o as JSON that loads back through the schema", async () => {
    const out = join(dir, "plan.json");
    const io = bufferIO({ clock, env: env(), cwd: ROOT });
    expect(await run(["plan", CONFIG, "-o", out, "--format", "json", "--no-session-cache"], io)).toBe(0);
    const saved = readPlanFile(out);
    expect(parsePlan(io.out(), "stdout")).toEqual(saved);
    expect(readFileSync(out, "utf8")).not.toContain(DEMO_USER.password);
    expect(saved.connection).toEqual({
      api_origin: emulator.origin,
      environment: "production",
      rate_limits: expect.stringMatching(/^get=\d+\/\d+m?s,write=\d+\/\d+m?s,session=\d+\/\d+m?s$/),
      user: DEMO_USER.email,
    });
  });

  it("narrows reads and changes to a --target insertion order", async () => {
    const before = gets();
    const io = bufferIO({ clock, env: env(), cwd: ROOT });
    expect(
      await run(["plan", CONFIG, "--target", "1002", "--format", "json", "--no-session-cache"], io),
    ).toBe(0);
    const plan = parsePlan(io.out(), "stdout");
    // 1 insertion order + 1 campaigns + 1 targetings (5101) + 1 creatives by campaign, and
    // 1 for the inactive campaigns in flight of the other declared orders (state-free restoration),
    // + ceil(1 advertiser / 100) = 1 to name it in the money table
    expect(gets() - before).toBe(5 + 1);
    expect(plan.changes.every((c) => c.address.includes("1002"))).toBe(true);
    expect(plan.targets).toEqual(["1002"]);
  });

  it("says which field of which object moved since a saved plan was made", async () => {
    const desired = await loadConfig([CONFIG], { cwd: ROOT });
    const c = client();
    // As `apply --plan` checks a saved plan: made again from the same config, the live state now.
    const again = async () => createPlan(desired, await readLiveState(c, desired), PLAN_OPTIONS);
    const plan = await again();
    expect(checkProposal(plan, await again())).toEqual({ stale: [], altered: [] });
    await c.send(Endpoints.patchCampaigns([{ id: "5101", cpm: Money.parse("16 USD") }]));
    plan.fingerprints.push({ ...plan.fingerprints.find((f) => f.kind === "campaign")!, id: "9999" });
    const check = checkProposal(plan, await again());
    await c.close();
    expect(check).toEqual({
      stale: ["campaign 5101: cpm 15.00 USD -> 16.00 USD since the plan was made"],
      altered: ["the file fingerprints campaign 9999, which the plan does not read"],
    });
  });
});

describe("plan command errors", () => {
  it("names the missing credential variable and prints nothing on stdout", async () => {
    const io = bufferIO({
      clock,
      env: { DOOHCTL_API_ORIGIN: emulator.origin, DOOHCTL_EMAIL: DEMO_USER.email },
      cwd: ROOT,
    });
    expect(await run(["plan", CONFIG, "--no-session-cache"], io)).toBe(1);
    expect(io.out()).toBe("");
    expect(io.err()).toContain("DOOHCTL_PASSWORD is not set");
  });

  it("prints a plan with errors on stdout and its errors on stderr, exits 1 and saves nothing", async () => {
    const file = join(dir, "unknown.yaml");
    writeFileSync(file, 'version: 1\ninsertion_orders:\n  - id: "4242"\n    contract_number: X\n');
    const io = bufferIO({ clock, env: env(), cwd: dir });
    expect(await run(["plan", file, "--no-session-cache", "-o", "errors.json"], io)).toBe(1);
    expect(io.out()).toMatch(/^doohctl plan: /);
    expect(io.out()).toContain("DOOH001");
    expect(io.err()).toMatch(/^doohctl plan: error DOOH001: .*\(unknown\.yaml:4:\d+\)$/m);
    expect(io.err()).toContain(
      "the plan has errors: nothing can be applied, and it is not saved to errors.json",
    );
    expect(existsSync(join(dir, "errors.json"))).toBe(false);
    expect(io.err()).not.toContain(DEMO_USER.password);
  });

  it("on a terminal shows each plan error once: in the Findings, not again on stderr", async () => {
    const file = join(dir, "unknown.yaml");
    writeFileSync(file, 'version: 1\ninsertion_orders:\n  - id: "4242"\n    contract_number: X\n');
    const io = bufferIO({ clock, env: env(), cwd: dir, tty: true });
    expect(await run(["plan", file, "--no-session-cache"], io)).toBe(1);
    expect(io.out().match(/DOOH001/g)).toHaveLength(1);
    expect(io.err()).not.toContain("DOOH001");
    expect(io.err()).toContain("doohctl plan: the plan has errors: nothing can be applied\n");
  });

  it("with --format json prints plan errors as JSON errors, never a plan document", async () => {
    const file = join(dir, "unknown.yaml");
    writeFileSync(file, 'version: 1\ninsertion_orders:\n  - id: "4242"\n    contract_number: X\n');
    const io = bufferIO({ clock, env: env(), cwd: dir });
    expect(await run(["plan", file, "--format", "json", "--no-session-cache"], io)).toBe(1);
    const { errors } = JSON.parse(io.out()) as { errors: { code: string; location: { file: string } }[] };
    expect(errors.map((e) => e.code)).toEqual(["DOOH001"]);
    expect(errors[0]?.location.file).toBe("unknown.yaml");
    expect(io.out()).not.toContain("format_version");
    expect(io.out() + io.err()).not.toContain(DEMO_USER.password);
  });

  it("reports config errors at file:line without contacting the DSP", async () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(file, 'version: 1\ninsertion_orders:\n  - id: "1001"\n    budget_money: 12\n');
    const before = emulator.requestLog().length;
    const io = bufferIO({ clock, env: env(), cwd: dir });
    expect(await run(["plan", file], io)).toBe(1);
    expect(io.err()).toMatch(/bad\.yaml:4:\d+/);
    expect(emulator.requestLog().length).toBe(before);
  });
});
