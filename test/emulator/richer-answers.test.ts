/**
 * G14: the emulator's `answers: "richer"` mode answers as a richer production DSP might
 * (extra members on every object and list envelope, six-digit time fractions, `null` unset
 * URLs), and every command doohctl has works against it as against the plain emulator:
 * validate, plan, apply, export, status and doctor.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOperation, readAnswer } from "../../src/api/contract.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { checkAnswer } from "../helpers/contract-check.js";
import { exampleSeed } from "../helpers/example-seed.js";
import { bufferIO } from "../helpers/io.js";
import { DEMO_USER } from "../helpers/users.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CONFIG = join(ROOT, "examples", "quickstart", "doohctl.yaml");
const DSP = "/api/dsp/v1";

let richer: RunningEmulator;
let plain: RunningEmulator;
let dir: string;

// The example world on its own day, one clock for both emulators and doohctl: two plans
// compared across them see the same delivery, whatever the day and the load.
const { seed, clock } = await exampleSeed({ still: true });
beforeAll(async () => {
  richer = (await startCliAccount({ seed, emulator: { answers: "richer", clock } })).emulator;
  plain = (await startCliAccount({ seed, emulator: { clock } })).emulator;
  dir = mkdtempSync(join(tmpdir(), "doohctl-richer-"));
});
afterAll(async () => {
  await richer.close();
  await plain.close();
});

function cli(emulator: RunningEmulator) {
  return bufferIO({
    clock: clock,
    env: {
      DOOHCTL_API_ORIGIN: emulator.origin,
      DOOHCTL_EMAIL: DEMO_USER.email,
      DOOHCTL_PASSWORD: DEMO_USER.password,
      DOOHCTL_SESSION_CACHE: "off",
      HOME: dir,
    },
    cwd: dir,
  });
}

async function fetchAs(emulator: RunningEmulator, path: string): Promise<unknown> {
  const login = await fetch(`${emulator.origin}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: DEMO_USER.email, password: DEMO_USER.password }),
  });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  return (await fetch(`${emulator.origin}${path}`, { headers: { cookie } })).json();
}

describe("the richer emulator's answers", () => {
  it("carry twice their members, six-digit times and null unset URLs; the contract as written refuses them, the client's view reads them", async () => {
    const path = `${DSP}/creatives`;
    const body = (await fetchAs(richer, `${path}?page_size=100`)) as Record<string, unknown>;
    const creatives = body.creatives as Record<string, unknown>[];
    const plainBody = (await fetchAs(plain, `${path}?page_size=100`)) as Record<string, unknown>;
    const plainFirst = (plainBody.creatives as Record<string, unknown>[])[0]!;
    expect(Object.keys(creatives[0]!).length).toBe(2 * Object.keys(plainFirst).length);
    expect(Object.keys(body)).toEqual(["creatives", "total_size", "x_creatives", "x_total_size"]);
    expect(creatives[0]!.create_time).toMatch(/\.\d{6}Z$/);
    expect(creatives.some((c) => c.pixel_url === null)).toBe(true);
    const op = findOperation("GET", path)!;
    expect(checkAnswer(op, body).length).toBeGreaterThan(0);
    expect(readAnswer(op, body).issues).toEqual([]);
  });

  it("leave the members of a targeting option set as the contract names them (G14)", async () => {
    const body = (await fetchAs(richer, `${DSP}/campaigns/5001/targetings`)) as {
      targetings: Record<string, unknown>[];
    };
    expect(Object.keys(body)).toEqual(["targetings", "x_targetings"]);
    for (const set of body.targetings) for (const key of Object.keys(set)) expect(key).toMatch(/_option$/);
  });
});

describe("every command against the richer emulator", () => {
  it("validate, plan, apply, export, status and doctor work as against the plain emulator", async () => {
    const validate = cli(richer);
    expect(await run(["validate", CONFIG], validate), validate.err()).toBe(0);

    const plans = [];
    for (const emulator of [plain, richer]) {
      const io = cli(emulator);
      expect(await run(["plan", CONFIG, "--format", "json"], io), io.err()).toBe(0);
      const plan = JSON.parse(io.out());
      plans.push({ changes: plan.changes, requests: plan.requests, findings: plan.findings });
    }
    expect(plans[1]).toEqual(plans[0]);

    const apply = cli(richer);
    expect(await run(["apply", CONFIG, "--auto-approve"], apply), apply.err()).toBe(0);
    const again = cli(richer);
    expect(await run(["plan", CONFIG, "--detailed-exitcode"], again), again.err()).toBe(0);
    expect(again.out()).toContain("no changes");

    const exported = cli(richer);
    expect(await run(["export", "--all"], exported), exported.err()).toBe(0);
    expect(exported.out()).not.toContain("x_");
    writeFileSync(join(dir, "exported.yaml"), exported.out());
    const roundTrip = cli(richer);
    expect(await run(["plan", "exported.yaml", "--detailed-exitcode"], roundTrip), roundTrip.err()).toBe(0);

    const status = cli(richer);
    // The demo world's two alerts (docs/demo.md): status read the richer progress as the plain one.
    expect(await run(["status", CONFIG], status), status.err()).toBe(2);
    expect(status.out()).toContain("! behind pace");
    expect(status.out()).toContain("! budget runs out at this pace");

    const doctor = cli(richer);
    const code = await run(["doctor", "--format", "json"], doctor);
    const report = JSON.parse(doctor.out()) as { checks: { id: string; status: string; detail: string }[] };
    expect(
      report.checks.filter((c) => c.status === "differs"),
      doctor.out(),
    ).toEqual([]);
    expect(code).toBe(0);
  });
});
