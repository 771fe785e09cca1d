/**
 * Saved plans and Credentials: a plan file never chooses which config is read, nor
 * where the credentials go. `apply --plan` reads config files only inside the tree, named
 * relative to it, and checks every digest before it parses any; the config's api_origin
 * must be DOOHCTL_API_ORIGIN's, which CI must set.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import type { Plan } from "../../src/plan/types.js";
import { seedCampaign } from "../helpers/builders.js";
import { accountConfig, MALLS_RAISED, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";

let emulator: RunningEmulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  ({ emulator, dir, env } = await startCliAccount({
    users: [USER],
    campaigns: [seedCampaign("5001", "1001", "Malls")],
    configOrders: MALLS_RAISED,
    prefix: "doohctl-saved-boundary-",
  }));
});
afterEach(async () => {
  await emulator.close();
});

async function savePlan(): Promise<string> {
  const io = bufferIO({ env, cwd: dir });
  expect(await run(["plan", "-o", "plan.json", "--no-session-cache"], io), io.err()).toBe(0);
  return join(dir, "plan.json");
}

function edit(path: string, change: (plan: Plan) => void): void {
  const plan = JSON.parse(readFileSync(path, "utf8")) as Plan;
  change(plan);
  writeFileSync(path, JSON.stringify(plan, null, 2));
}

/** `apply --plan`, refused: exit 1, no request at all (no login either); its stderr. */
async function refused(args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  const before = emulator.requestLog().length;
  const io = bufferIO({ env: { ...env, ...extraEnv }, cwd: dir });
  expect(await run(["apply", ...args, "--auto-approve", "--no-session-cache"], io)).toBe(1);
  expect(emulator.requestLog().length).toBe(before);
  expect(io.out() + io.err()).not.toContain(USER.password);
  return io.err();
}

describe("apply --plan reads config files only inside the tree (findings 1 and 2)", () => {
  it("refuses a plan naming /proc/self/environ or a config elsewhere, before reading it or logging in anywhere", async () => {
    const other = (
      await startCliAccount({ users: [USER], campaigns: [seedCampaign("5001", "1001", "Malls")] })
    ).emulator;
    try {
      // The attacker's config names the attacker's listener; the plan, edited, names both.
      const elsewhere = mkdtempSync(join(tmpdir(), "doohctl-elsewhere-"));
      writeFileSync(join(elsewhere, "evil.yaml"), accountConfig(other.origin, MALLS_RAISED));
      const path = await savePlan();
      for (const named of ["/proc/self/environ", join(elsewhere, "evil.yaml"), "../evil.yaml"]) {
        edit(path, (plan) => {
          plan.connection.api_origin = other.origin;
          plan.config_files = [{ path: named, sha256: "0".repeat(64) }];
        });
        const text = await refused(["--plan", path]);
        expect(text).toContain(`names config files outside the tree ${dir} (${named})`);
        expect(text).toContain("Make a new plan");
        expect(other.requestLog()).toEqual([]);
      }
    } finally {
      await other.close();
    }
  });

  it("refuses a config file of the plan that is a link out of the tree, without reading it", async () => {
    const path = await savePlan();
    const elsewhere = mkdtempSync(join(tmpdir(), "doohctl-elsewhere-"));
    writeFileSync(join(elsewhere, "doohctl.yaml"), `DOOHCTL_PASSWORD=${USER.password}\n`);
    rmSync(join(dir, "doohctl.yaml"));
    symlinkSync(join(elsewhere, "doohctl.yaml"), join(dir, "doohctl.yaml"));
    const text = await refused(["--plan", path]);
    expect(text).toContain("doohctl.yaml: is a link to a file outside");
  });

  it("checks every digest before it parses any config: a changed file is never quoted", async () => {
    const path = await savePlan();
    // Not YAML, and it holds the password: parsed, its error would quote it.
    writeFileSync(join(dir, "doohctl.yaml"), `{{ ${USER.password} `);
    const text = await refused(["--plan", path]);
    expect(text).toMatch(/made from other config files .*doohctl\.yaml differs/);
    expect(text).not.toContain("YAML");
  });

  it("names config files relative to the tree, and applies from a subdirectory of the repository", async () => {
    const repo = dir;
    execFileSync("git", ["init", "-q", repo]);
    const path = await savePlan();
    const plan = JSON.parse(readFileSync(path, "utf8")) as Plan;
    expect(plan.config_files.map((f) => f.path)).toEqual(["doohctl.yaml"]);
    execFileSync("mkdir", [join(repo, "sub")]);
    const io = bufferIO({ env, cwd: join(repo, "sub") });
    expect(
      await run(["apply", "--plan", "../plan.json", "--auto-approve", "--no-session-cache"], io),
      io.err(),
    ).toBe(0);
    expect(io.out()).toContain("Apply complete.");
  });

  it("refuses an old plan that names a config file by its absolute path, asking for a new plan", async () => {
    const path = await savePlan();
    edit(path, (plan) => {
      plan.config_files = plan.config_files.map((f) => ({ ...f, path: join(dir, f.path) }));
    });
    const text = await refused(["--plan", path]);
    expect(text).toContain(`names config files outside the tree ${dir} (${join(dir, "doohctl.yaml")})`);
  });
});

describe("a plan file that is no regular file (finding 8)", () => {
  it.each([
    ["a FIFO", "fifo", "is a named pipe (FIFO), not a regular file"],
    ["/dev/zero", "/dev/zero", "is a device, not a regular file"],
    ["a directory", ".", "is a directory, not a regular file"],
  ])("is refused at once: %s", async (_what, name, message) => {
    if (name === "fifo") execFileSync("mkfifo", [join(dir, "fifo")]);
    const started = Date.now();
    const text = await refused(["--plan", name]);
    expect(text).toContain(message);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("is never quoted when it is not JSON", async () => {
    writeFileSync(join(dir, "plan.json"), `DOOHCTL_PASSWORD=${USER.password}`);
    const text = await refused(["--plan", "plan.json"]);
    expect(text).toContain("plan.json is not a plan file (not JSON");
  });
});

describe("credentials go where the environment says (finding 2)", () => {
  it("refuses a config api_origin other than DOOHCTL_API_ORIGIN, before any request to either", async () => {
    const other = (
      await startCliAccount({ users: [USER], campaigns: [seedCampaign("5001", "1001", "Malls")] })
    ).emulator;
    try {
      writeFileSync(join(dir, "doohctl.yaml"), accountConfig(other.origin, MALLS_RAISED));
      for (const command of [["plan"], ["apply", "--auto-approve"]]) {
        const io = bufferIO({ env: { ...env, DOOHCTL_API_ORIGIN: emulator.origin }, cwd: dir });
        expect(await run([...command, "--no-session-cache"], io)).toBe(1);
        expect(io.err()).toContain(
          `the config's connection.api_origin (${other.origin}) is not DOOHCTL_API_ORIGIN`,
        );
      }
      expect(other.requestLog()).toEqual([]);
      expect(emulator.requestLog()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("under CI=true needs DOOHCTL_API_ORIGIN, and plans with it", async () => {
    const io = bufferIO({ env: { ...env, CI: "true" }, cwd: dir });
    expect(await run(["plan", "--no-session-cache"], io)).toBe(1);
    expect(io.err()).toContain("CI=true and DOOHCTL_API_ORIGIN is not set");
    expect(emulator.requestLog()).toEqual([]);
    const withOrigin = bufferIO({
      env: { ...env, CI: "true", DOOHCTL_API_ORIGIN: emulator.origin },
      cwd: dir,
    });
    expect(await run(["plan", "--no-session-cache"], withOrigin), withOrigin.err()).toBe(0);
  });
});
