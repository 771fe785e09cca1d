/**
 * examples/policy against the example seed, through `run()` and the real emulator: the plan
 * shows exactly what the example's comment promises, and the deny rule it describes denies.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { loadSeedFile, type RunningEmulator, startEmulator } from "../../src/emulator/index.js";
import type { Plan } from "../../src/plan/types.js";
import { bufferIO } from "../helpers/io.js";

const ROOT = join(import.meta.dirname, "../..");
const EXAMPLE = join(ROOT, "examples/policy/doohctl.yaml");
const DEMO_USER = { email: "demo@doohctl.test", password: "demo-password" };

let emulator: RunningEmulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    rateLimits: "off",
    seed: await loadSeedFile(join(ROOT, "examples/emulator-seed.json")),
  });
  dir = mkdtempSync(join(tmpdir(), "doohctl-policy-example-"));
  copyFileSync(EXAMPLE, join(dir, "doohctl.yaml"));
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli() {
  return bufferIO({
    cwd: dir,
    env: {
      DOOHCTL_API_ORIGIN: emulator.origin,
      DOOHCTL_EMAIL: DEMO_USER.email,
      DOOHCTL_PASSWORD: DEMO_USER.password,
      DOOHCTL_SESSION_CACHE: "off",
      DOOHCTL_STATE_DIR: join(dir, "state"),
      HOME: dir,
    },
  });
}

describe("examples/policy against examples/emulator-seed.json", () => {
  it("warns DOOH902 for the budget increase and denies nothing", async () => {
    const io = cli();
    expect(await run(["plan", ".", "--format", "json", "--detailed-exitcode"], io), io.err()).toBe(2);
    const plan = JSON.parse(io.out()) as Plan;
    expect(plan.findings.filter((f) => f.severity === "error")).toEqual([]);
    const policy = plan.findings.filter((f) => f.code.startsWith("DOOH9"));
    expect(policy.map((f) => [f.code, f.severity, f.address])).toEqual([
      ["DOOH902", "warning", "campaign.1001/Holiday malls"],
    ]);
    expect(policy[0]?.message).toContain("300,000 -> 400,000 (+33%, above the largest increase of 25%)");
    expect(plan.requests.length).toBeGreaterThan(0);
  });

  it("denies the cpm the comment names (DOOH901), and sends nothing", async () => {
    const raised = readFileSync(EXAMPLE, "utf8").replace("cpm: 12.00 USD", "cpm: 30 USD");
    expect(raised).toContain("cpm: 30 USD");
    writeFileSync(join(dir, "doohctl.yaml"), raised);
    try {
      const io = cli();
      expect(await run(["apply", ".", "--auto-approve"], io)).toBe(1);
      expect(io.err()).toContain("DOOH901");
      expect(io.err()).toContain("nothing was sent");
      const airports = emulator.state().campaigns.find((c) => c.id === "5001");
      expect(airports?.cpm).toMatchObject({ currency_code: "USD", units: "12" });
    } finally {
      copyFileSync(EXAMPLE, join(dir, "doohctl.yaml"));
    }
  });
});
