/**
 * Output can never stop a restore (docs/safety.md, Output and pipelines). The built
 * `doohctl apply` runs in a pipeline, `doohctl apply ... 2>&1 | tee apply.log`, and the signal
 * goes to the whole process group as a terminal's Ctrl-C (or GitLab's cancel) sends it: the
 * reader dies with doohctl, whose next write fails with EPIPE. The apply must still stop,
 * reactivate every campaign it paused and exit 130 (143 for SIGTERM), whichever of its
 * streams lost its reader; a `--log` journal on a full disk changes nothing either. bash reports
 * each member's exit code (PIPESTATUS): the reader's proves it died of the signal.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { bufferIO } from "../helpers/io.js";
import { cliWords, ensureBuilt, spawnGroup } from "./binary.js";
import { CAMPAIGNS, type PausingAccount, pausingAccount } from "./paused-account.js";

beforeAll(() => ensureBuilt(), 180_000);

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function account(): Promise<PausingAccount> {
  const world = await pausingAccount(20);
  emulator = world.emulator;
  return world;
}

/** The pipelines, each ending by writing its members' exit codes (doohctl's first) to `codes`. */
const PIPELINES = {
  "both streams into one tee": (apply: string) => `${apply} 2>&1 | tee apply.log`,
  "stdout's reader": (apply: string) => `${apply} | tee out.log`,
  // stderr into the pipe, stdout to the test: the usual swap through fd 3.
  "stderr's reader": (apply: string) => `{ ${apply} 2>&1 1>&3 3>&- | tee err.log >&2; } 3>&1`,
} as const;

/**
 * Runs `pipeline` around `doohctl apply --auto-approve EXTRA` and sends `signal` to its whole
 * process group once the pause and the first targeting PUT landed (campaigns are dark).
 */
async function applyInGroup(
  world: PausingAccount,
  pipeline: (apply: string) => string,
  options: { signal: "SIGINT" | "SIGTERM"; extra?: string[] },
) {
  const apply = cliWords(["apply", "--auto-approve", ...(options.extra ?? [])]);
  const group = spawnGroup(`${pipeline(apply)}\necho "\${PIPESTATUS[*]}" > codes\n`, {
    cwd: world.dir,
    env: world.env,
  });
  let putsSeen = 0;
  let pausedAtSignal: string[] = [];
  world.emulator.onWrite((entry) => {
    if (entry.method !== "PUT" || ++putsSeen !== 1) return;
    pausedAtSignal = world.inactive();
    process.kill(-(group.process.pid as number), options.signal);
  });
  expect(await group.exited, group.stderr()).toBe(0);
  const [doohctl, reader] = readFileSync(join(world.dir, "codes"), "utf8").trim().split(" ").map(Number);
  return { doohctl, reader, pausedAtSignal, group };
}

/** Every campaign serves again and the record is settled: the next plan has nothing to reactivate. */
async function expectDeliveryRestored(world: PausingAccount, pausedAtSignal: string[]) {
  expect(pausedAtSignal.sort()).toEqual([...CAMPAIGNS].sort());
  expect(world.inactive()).toEqual([]);
  expect(world.violations).toEqual([]);
  const check = bufferIO({ env: world.env, cwd: world.dir });
  expect(await run(["plan"], check), check.err()).toBe(0);
  expect(check.out() + check.err()).not.toContain("DOOH202");
}

describe.each([
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const)("apply in a pipeline whose process group gets %s", (signal, code) => {
  it(`with both streams into one tee that dies too, reactivates what it paused and exits ${code}`, async () => {
    const world = await account();
    const ran = await applyInGroup(world, PIPELINES["both streams into one tee"], { signal });
    expect(ran.reader, "the reader died of the signal").toBe(code);
    expect(ran.doohctl, ran.group.stdout() + ran.group.stderr()).toBe(code);
    await expectDeliveryRestored(world, ran.pausedAtSignal);
  });
});

describe("apply in a pipeline whose process group gets SIGINT", () => {
  // One run for both: stdout's reader gone and, where the machine has /dev/full, the journal
  // on a full disk.
  const fullDisk = existsSync("/dev/full");
  it(`with stdout's reader gone${fullDisk ? " and a --log journal on a full disk" : ""}, restores delivery, exits 130, not 1, and says on stderr what was dropped`, async () => {
    const world = await account();
    const ran = await applyInGroup(world, PIPELINES["stdout's reader"], {
      signal: "SIGINT",
      extra: fullDisk ? ["--log", "/dev/full"] : [],
    });
    expect(ran.reader).toBe(130);
    expect(ran.doohctl, ran.group.stderr()).toBe(130);
    const stderr = ran.group.stderr();
    expect(stderr).toContain("SIGINT: no further change is sent; reactivating what this apply paused");
    expect(stderr).toContain("doohctl: stdout stopped taking output (EPIPE)");
    if (fullDisk) expect(stderr).toMatch(/the --log journal is incomplete: .*ENOSPC/);
    await expectDeliveryRestored(world, ran.pausedAtSignal);
  });

  it("with stderr's reader gone, restores delivery, exits 130 and still reports on stdout", async () => {
    const world = await account();
    const ran = await applyInGroup(world, PIPELINES["stderr's reader"], { signal: "SIGINT" });
    expect(ran.reader).toBe(130);
    expect(ran.doohctl, ran.group.stdout()).toBe(130);
    expect(ran.group.stdout()).toMatch(/^Apply interrupted after \d of \d+ requests\./m);
    await expectDeliveryRestored(world, ran.pausedAtSignal);
  });
});

it("with stdout closed before anything is written, applies every change and exits 0", async () => {
  const world = await account();
  // The reader is gone before doohctl starts: its very first write (the plan) fails.
  const script = [
    "exec 3> >(exec true)",
    "wait $!",
    `${cliWords(["apply", "--auto-approve"])} >&3`,
    'echo "$?" > codes',
  ].join("\n");
  const group = spawnGroup(script, { cwd: world.dir, env: world.env });
  expect(await group.exited, group.stderr()).toBe(0);
  expect(readFileSync(join(world.dir, "codes"), "utf8").trim(), group.stderr()).toBe("0");
  expect(group.stderr()).toContain("doohctl: stdout stopped taking output (EPIPE)");
  expect(world.inactive()).toEqual([]);
  expect(world.violations).toEqual([]);
  const check = bufferIO({ env: world.env, cwd: world.dir });
  expect(await run(["plan", "--detailed-exitcode"], check), check.out()).toBe(0);
});
