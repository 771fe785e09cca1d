/**
 * `doohctl apply` end to end through `run()`: config on disk, the emulator on the system
 * clock with rate limits off (the config raises the client's windows so nothing waits).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import type { Plan } from "../../src/plan/types.js";
import { seedCampaign } from "../helpers/builders.js";
import { MALLS_RAISED, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO, interruptibleIO } from "../helpers/io.js";
import { usd } from "../helpers/money.js";
import { USER } from "../helpers/users.js";
import { colleagueClient, dspWrites } from "../helpers/world.js";

let emulator: RunningEmulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  ({ emulator, dir, env } = await startCliAccount({
    users: [USER],
    campaigns: [seedCampaign("5001", "1001", "Malls")],
    configOrders: MALLS_RAISED,
    prefix: "doohctl-apply-cli-",
  }));
});
afterEach(async () => {
  await emulator.close();
});

const writes = () => dspWrites(emulator);

describe("doohctl apply", () => {
  it("refuses at once without a terminal and without --auto-approve, sending nothing", async () => {
    const io = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--no-session-cache"], io)).toBe(1);
    expect(io.err()).toMatch(/no terminal to ask for approval.*--auto-approve/);
    expect(io.out()).toBe("");
    expect(emulator.requestLog()).toEqual([]);
  });

  it("shows the plan, asks, and sends nothing unless the answer is yes", async () => {
    const io = bufferIO({ env, cwd: dir, tty: true, answer: "y" });
    expect(await run(["apply", "--no-session-cache"], io)).toBe(1);
    expect(io.out()).toContain("Malls");
    expect(io.err()).toContain("Apply cancelled");
    expect(writes()).toEqual([]);
  });

  it("applies after yes and prints the result summary", async () => {
    const io = bufferIO({ env, cwd: dir, tty: true, answer: "yes" });
    expect(await run(["apply", "--no-session-cache"], io)).toBe(0);
    expect(io.out()).toContain("Apply complete.");
    expect(io.out()).toContain("1 campaign updated");
    expect(emulator.state().campaigns[0]?.budget_impressions).toBe(150_000);
  });

  it("counts every GET it sent in the summary: the plan's reads and the re-reads before writing", async () => {
    const io = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--auto-approve", "--no-session-cache"], io)).toBe(0);
    const gets = emulator.requestLog().filter((r) => r.method === "GET").length;
    expect(gets).toBeGreaterThan(2); // the plan's reads, then the re-read before the PATCH
    expect(io.out()).toContain(`1 write request, ${gets} read requests, 0 retries`);
  });

  it("with --auto-approve and --format json prints only the JSON result on stdout and journals every request", async () => {
    const log = join(dir, "apply.jsonl");
    const io = bufferIO({ env, cwd: dir });
    const code = await run(
      ["apply", "--auto-approve", "--format", "json", "--log", log, "--no-session-cache"],
      io,
    );
    expect(code).toBe(0);
    const result = JSON.parse(io.out());
    expect(result.format_version).toBe(1);
    expect(result.status).toBe("applied");
    expect(result.summary.applied_requests).toBe(1);
    expect(io.err()).toMatch(/\[1\/1\] phase 3 PATCH \/api\/dsp\/v1\/campaigns 1 item -> 200/);
    const lines = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.event)).toEqual(["start", "request", "end"]);
    expect(lines[1]).toMatchObject({
      phase: 3,
      seq: 1,
      method: "PATCH",
      item_ids: ["5001"],
      status: 200,
      attempts: 1,
    });
    const everything = `${io.out()}${io.err()}${readFileSync(log, "utf8")}`;
    expect(everything).not.toContain(USER.password);
  });

  it("on SIGINT finishes the request in flight, starts no other and prints the interrupted report", async () => {
    writeFileSync(
      join(dir, "doohctl.yaml"),
      readFileSync(join(dir, "doohctl.yaml"), "utf8").replace(
        '  - id: "1001"\n',
        '  - id: "1001"\n    contract_number: PO-9\n',
      ),
    );
    // The first request line: the user presses Ctrl-C now.
    const { io } = interruptibleIO({ env, cwd: dir, pressWhen: (text) => text.startsWith("[1/2]") });
    expect(await run(["apply", "--auto-approve", "--no-session-cache"], io)).toBe(130);
    expect(io.out()).toMatch(/^Apply interrupted after 1 of 2 requests\./m);
    expect(io.out()).toMatch(/Not sent \(1\):\n {2}2\. PATCH \/api\/dsp\/v1\/campaigns/);
    expect(writes()).toHaveLength(1);
    expect(emulator.state().insertion_orders[0]?.contract_number).toBe("PO-9");
  });

  it.runIf(existsSync("/dev/full"))(
    "applies and exits 0, warning that the --log journal is incomplete when it cannot be written",
    async () => {
      // Writes to /dev/full fail with ENOSPC: the journal breaks, the apply must not.
      const io = bufferIO({ env, cwd: dir });
      const args = ["apply", "--auto-approve", "--log", "/dev/full", "--no-session-cache"];
      // The exit code says what happened to the apply, never that a log line failed.
      expect(await run(args, io)).toBe(0);
      expect(io.out()).toContain("Apply complete.");
      expect(io.err()).toMatch(/the --log journal is incomplete: .*ENOSPC/);
      expect(emulator.state().campaigns[0]?.budget_impressions).toBe(150_000);
    },
  );

  it("says No changes. and exits 0 when live state is already as desired", async () => {
    await run(["apply", "--auto-approve", "--no-session-cache"], bufferIO({ env, cwd: dir }));
    const io = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--auto-approve", "--no-session-cache"], io)).toBe(0);
    expect(io.out()).toBe("No changes.\n");
  });
});

describe("doohctl apply --plan", () => {
  /** `doohctl plan -o plan.json` of the test's config, as a user saves it. */
  async function savePlan(): Promise<{ path: string; requests: number }> {
    const io = bufferIO({ env, cwd: dir });
    expect(await run(["plan", "-o", "plan.json", "--no-session-cache"], io), io.err()).toBe(0);
    const path = join(dir, "plan.json");
    return { path, requests: (JSON.parse(readFileSync(path, "utf8")) as Plan).requests.length };
  }

  function edit(path: string, change: (plan: Plan) => void): void {
    const plan = JSON.parse(readFileSync(path, "utf8")) as Plan;
    change(plan);
    writeFileSync(path, JSON.stringify(plan, null, 2));
  }

  async function refused(path: string): Promise<string> {
    const writesBefore = writes().length;
    const io = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--plan", path, "--auto-approve", "--no-session-cache"], io)).toBe(1);
    expect(writes().length).toBe(writesBefore);
    return io.err();
  }

  it("refuses a plan whose request body was edited, sending nothing", async () => {
    const { path } = await savePlan();
    edit(path, (plan) => {
      const body = plan.requests[0]!.body as { campaigns: Record<string, unknown>[] };
      body.campaigns[0]!.cpm = { currency_code: "USD", units: "999", nanos: 0 };
    });
    expect(await refused(path)).toMatch(
      /does not match the plan its config and the live state give[\s\S]*request 1/,
    );
  });

  it("refuses a plan with an added request (an activation the plan never made)", async () => {
    const { path } = await savePlan();
    edit(path, (plan) => {
      plan.requests.push({
        ...plan.requests[0]!,
        seq: 2,
        phase: 6,
        body: { campaigns: [{ id: "5001", active: true }] },
      });
    });
    expect(await refused(path)).toMatch(
      /request 2 \(PATCH \/api\/dsp\/v1\/campaigns\) is not part of the plan/,
    );
    expect(emulator.state().campaigns[0]?.active).toBe(false);
  });

  it("refuses a plan whose fingerprints were emptied", async () => {
    const { path } = await savePlan();
    edit(path, (plan) => {
      plan.fingerprints = [];
    });
    expect(await refused(path)).toMatch(/has no fingerprint of campaign 5001/);
  });

  it("refuses a plan made from a config that changed since", async () => {
    const { path } = await savePlan();
    writeFileSync(
      join(dir, "doohctl.yaml"),
      `${readFileSync(join(dir, "doohctl.yaml"), "utf8")}\n# edited\n`,
    );
    expect(await refused(path)).toMatch(/made from other config files .*doohctl\.yaml differs/);
  });

  it("run from another tree, says the config paths are the plan's tree's and how to name them", async () => {
    const { path } = await savePlan();
    const elsewhere = join(dir, "elsewhere");
    mkdirSync(elsewhere);
    const io = bufferIO({ env, cwd: elsewhere });
    expect(await run(["apply", "--plan", path, "--auto-approve", "--no-session-cache"], io)).toBe(1);
    expect(io.err()).toBe(
      `doohctl apply: ${path} was made from doohctl.yaml, which is not in ${elsewhere}: run apply in the ` +
        `tree the plan was made in (its git work tree, or its directory outside git), or name the files: doohctl apply --plan ${path} PATHS. Nothing was sent\n`,
    );
    expect(writes()).toEqual([]);
  });

  it("never sends the password to an origin read from the plan file, nor logs in anywhere for another DSP", async () => {
    const other = (
      await startCliAccount({ users: [USER], campaigns: [seedCampaign("5001", "1001", "Malls")] })
    ).emulator;
    try {
      const { path } = await savePlan();
      edit(path, (plan) => {
        plan.connection.api_origin = other.origin;
      });
      const text = await refused(path);
      expect(text).toMatch(/was made for .* not for .*no login was made/);
      // The environment names the other DSP: a plan made for the first is still refused.
      const { path: fresh } = await savePlan();
      const io = bufferIO({ env: { ...env, DOOHCTL_API_ORIGIN: other.origin }, cwd: dir });
      expect(await run(["apply", "--plan", fresh, "--auto-approve", "--no-session-cache"], io)).toBe(1);
      expect(io.err()).toMatch(/no login was made/);
      expect(other.requestLog()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("refuses a plan made as another API user before logging in", async () => {
    const { path } = await savePlan();
    edit(path, (plan) => {
      plan.connection.user = "someone-else@doohctl.test";
    });
    const logins = () => emulator.requestLog().filter((e) => e.path === "/api/session").length;
    const before = logins();
    expect(await refused(path)).toMatch(
      new RegExp(`as someone-else@doohctl\\.test, not for .* as ${USER.email.replaceAll(".", "\\.")}`),
    );
    expect(logins()).toBe(before);
  });

  it("applies a plan made by the read-only user DOOHCTL_PLAN_USER names, made again as the applier", async () => {
    const { path, requests } = await savePlan();
    edit(path, (plan) => {
      plan.connection.user = "reader@doohctl.test";
    });
    expect(await refused(path)).toMatch(/set DOOHCTL_PLAN_USER/);
    const io = bufferIO({ env: { ...env, DOOHCTL_PLAN_USER: "reader@doohctl.test" }, cwd: dir });
    expect(await run(["apply", "--plan", path, "--auto-approve", "--no-session-cache"], io), io.err()).toBe(
      0,
    );
    expect(writes()).toHaveLength(requests);
  });

  it("refuses a stale plan with the per-object explanation and sends no write", async () => {
    const { path } = await savePlan();
    const other = colleagueClient(emulator.origin, USER);
    await other.send(Endpoints.patchCampaigns([{ id: "5001", cpm: usd("13") }]));
    await other.close();
    const writesBefore = writes().length;
    const io = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--plan", path, "--auto-approve", "--no-session-cache"], io)).toBe(1);
    expect(io.err()).toMatch(/plan is stale, nothing was applied/);
    expect(io.err()).toMatch(/campaign 5001/);
    expect(writes().length).toBe(writesBefore);
  });

  it("executes exactly the requests of a fresh saved plan", async () => {
    const { path, requests } = await savePlan();
    const io = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--plan", path, "--auto-approve", "--no-session-cache"], io)).toBe(0);
    expect(writes()).toHaveLength(requests);
    expect(emulator.state().campaigns[0]?.budget_impressions).toBe(150_000);
  });

  it("reads --plan and writes --log relative to its working directory, not the process's", async () => {
    await savePlan();
    const io = bufferIO({ env, cwd: dir });
    const args = [
      "apply",
      "--plan",
      "plan.json",
      "--log",
      "journal.jsonl",
      "--auto-approve",
      "--no-session-cache",
    ];
    expect(await run(args, io)).toBe(0);
    expect(existsSync(join(dir, "journal.jsonl"))).toBe(true);
  });
});
