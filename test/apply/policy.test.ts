/**
 * Guardrail policies end to end, against the emulator: a denied plan exits 1 and writes
 * nothing; --allow CODE applies it, says so, and a plan saved with --allow applies with
 * apply --plan (which refuses a new --allow).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedCampaign } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function account(
  policy = 'policy:\n  max_cpm: { limits: ["25 USD"], action: deny }\n',
): Promise<{ dir: string; env: Record<string, string> }> {
  const started = await startCliAccount({
    users: [USER],
    campaigns: [seedCampaign("5001", "1001", "Malls")],
    configOrders: ['  - id: "1001"', "    campaigns:", "      - name: Malls", "        cpm: 30 USD"],
    extraConfig: policy,
    prefix: "doohctl-policy-",
  });
  emulator = started.emulator;
  return { dir: started.dir, env: { ...started.env, DOOHCTL_STATE_DIR: join(started.dir, "state") } };
}

const cpmOf = () => emulator!.state().campaigns.find((c) => c.id === "5001")?.cpm;

describe("guardrail policies against the emulator", () => {
  it("a denied plan exits 1 and applies nothing; --allow applies it and says so", async () => {
    const { dir, env } = await account();
    const plan = bufferIO({ env, cwd: dir });
    expect(await run(["plan"], plan)).toBe(1);
    expect(plan.err()).toContain("DOOH901");
    expect(plan.err()).toContain(
      'sets the cpm of campaign 5001 "Malls" to 30.00 USD, above the highest cpm 25.00 USD: policy doohctl.yaml:11 (policy.max_cpm) denies it; change the config, or pass --allow DOOH901 to apply anyway',
    );

    const denied = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--auto-approve"], denied)).toBe(1);
    expect(denied.err()).toContain("nothing was sent");
    expect(cpmOf()).toMatchObject({ currency_code: "USD", units: "12" });

    const unknown = bufferIO({ env, cwd: dir });
    expect(await run(["plan", "--allow", "DOOH401"], unknown)).not.toBe(0);
    expect(unknown.err()).toContain("DOOH401 is not a code --allow accepts: write one of DOOH901");

    const allowed = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--auto-approve", "--allow", "dooh901"], allowed), allowed.err()).toBe(0);
    expect(allowed.out()).toContain("policy denials allowed by --allow: DOOH901");
    expect(allowed.out()).toContain("allowed by --allow DOOH901");
    expect(cpmOf()).toMatchObject({ currency_code: "USD", units: "30" });
  });

  it("a plan saved with --allow records it, and apply --plan applies it (and refuses --allow)", async () => {
    const { dir, env } = await account();
    const saved = bufferIO({ env, cwd: dir });
    expect(await run(["plan", "--allow", "DOOH901", "-o", "plan.json"], saved), saved.err()).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "plan.json"), "utf8")).allowed).toEqual(["DOOH901"]);
    const md = bufferIO({ env, cwd: dir });
    expect(await run(["plan", "--allow", "DOOH901", "--format", "markdown"], md), md.err()).toBe(0);
    expect(md.out()).toContain("Policy denials allowed by --allow: `DOOH901`");

    const again = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--plan", "plan.json", "--allow", "DOOH901", "--auto-approve"], again)).toBe(
      1,
    );
    expect(again.err()).toContain("drop --allow");
    expect(cpmOf()).toMatchObject({ units: "12" });

    const io = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--plan", "plan.json", "--auto-approve"], io), io.err()).toBe(0);
    expect(cpmOf()).toMatchObject({ currency_code: "USD", units: "30" });
  });

  it("a plan saved with threshold flags records them, and apply --plan reviews with the same limits", async () => {
    // cpm 12 -> 30 USD is +150%: denied by cpm_increase_percent at the default 20, not at 200.
    const { dir, env } = await account("policy:\n  cpm_increase_percent: {}\n");
    const denied = bufferIO({ env, cwd: dir });
    expect(await run(["plan"], denied)).toBe(1);
    expect(denied.err()).toContain("DOOH903");

    const saved = bufferIO({ env, cwd: dir });
    expect(
      await run(["plan", "--cpm-increase-threshold", "200", "-o", "plan.json"], saved),
      saved.err(),
    ).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "plan.json"), "utf8")).thresholds).toEqual({
      cpm_increase_percent: 200,
    });

    const again = bufferIO({ env, cwd: dir });
    expect(
      await run(["apply", "--plan", "plan.json", "--cpm-increase-threshold", "300", "--auto-approve"], again),
    ).toBe(1);
    expect(again.err()).toContain(
      "drop --budget-increase-threshold, --cpm-increase-threshold and --min-budget-days",
    );
    expect(cpmOf()).toMatchObject({ units: "12" });

    const io = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--plan", "plan.json", "--auto-approve"], io), io.err()).toBe(0);
    expect(cpmOf()).toMatchObject({ currency_code: "USD", units: "30" });
  });
});
