/**
 * Secrets: every command runs with a known password, and with the session token the
 * emulator handed out. Whatever doohctl writes (stdout, stderr, journals, saved plans, error
 * reports, every file it leaves behind) holds neither; the session cache holds the token, as it
 * must, in a 0600 file, and nothing else does.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedCampaign } from "../helpers/builders.js";
import { accountConfig, loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { user } from "../helpers/users.js";

const PASSWORD = "Known-Pa55word-7c1e9a";
const WRONG_PASSWORD = "Wrong-Pa55word-0b3d5f";
const SECRET_USER = user({ password: PASSWORD });

let emulator: RunningEmulator;
let dir: string;
/** Everything doohctl printed, by command. */
const outputs: { command: string; text: string }[] = [];

function files(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(root, e.name)) : [join(root, e.name)],
  );
}

function config(extra: string[] = []): string {
  return accountConfig(emulator.origin, [
    '  - id: "1001"',
    "    contract_number: PO-42",
    "    campaigns:",
    "      - name: Malls",
    "        budget_impressions: 150000",
    ...extra,
  ]);
}

async function doohctl(args: string[], env: Record<string, string> = {}): Promise<number> {
  const io = bufferIO({
    env: { ...loginEnv(SECRET_USER, dir), ...env },
    cwd: dir,
  });
  const code = await run(args, io);
  outputs.push({ command: args.join(" "), text: `${io.out()}\n${io.err()}` });
  return code;
}

beforeAll(async () => {
  emulator = (
    await startCliAccount({ users: [SECRET_USER], campaigns: [seedCampaign("5001", "1001", "Malls")] })
  ).emulator;
  dir = mkdtempSync(join(tmpdir(), "doohctl-secrets-"));
  writeFileSync(join(dir, "doohctl.yaml"), config());
  writeFileSync(join(dir, "with-password.yaml"), config([`    password: ${PASSWORD}`]));
  writeFileSync(
    join(dir, "connection-password.yaml"),
    ["version: 1", "connection:", `  password: ${PASSWORD}`, "insertion_orders: []", ""].join("\n"),
  );

  // The commands of a working day, and the failing ones.
  expect(await doohctl(["validate"])).toBe(0);
  expect(await doohctl(["validate", "with-password.yaml"])).toBe(1);
  expect(await doohctl(["validate", "--format", "json", "connection-password.yaml"])).toBe(1);
  expect(await doohctl(["plan"])).toBe(0);
  expect(await doohctl(["plan", "-o", "plan.json", "--format", "json"])).toBe(0);
  expect(await doohctl(["plan", "--format", "markdown"])).toBe(0);
  expect(await doohctl(["plan", "--no-session-cache"], { DOOHCTL_PASSWORD: WRONG_PASSWORD })).toBe(1);
  expect(await doohctl(["schema"])).toBe(0);
  await doohctl(["export", "--insertion-order", "1001"]);

  // A failure in the middle of an apply: the DSP breaks (500 on every request) right after the
  // saved plan's first request (the contract number) went through.
  const plan = JSON.parse(readFileSync(join(dir, "plan.json"), "utf8"));
  expect(plan.requests).toHaveLength(2);
  const off = emulator.onWrite(() => {
    emulator.setFaults("500:1");
    off();
  });
  expect(
    await doohctl([
      "apply",
      "--plan",
      join(dir, "plan.json"),
      "--auto-approve",
      "--format",
      "json",
      "--log",
      join(dir, "failed.jsonl"),
    ]),
  ).toBe(1);
  emulator.setFaults("");
  expect(await doohctl(["apply", "--auto-approve", "--log", join(dir, "apply.jsonl")])).toBe(0);
  expect(await doohctl(["apply", "--auto-approve", "--format", "json"])).toBe(0);
});
afterAll(() => emulator.close());

function cacheFiles(): string[] {
  // The session files; the pacing log beside them holds no secret either (checked with every file below).
  return files(dir).filter((f) => f.includes(join(".cache", "doohctl", "session-")));
}

function token(): string {
  const [cache] = cacheFiles();
  const parsed = JSON.parse(readFileSync(cache!, "utf8")) as { token: string };
  return parsed.token;
}

describe("secrets", () => {
  it("ran every command for real: a 500 stopped an apply and the wrong password was refused", () => {
    const failed = outputs.find((o) => o.command.startsWith("apply --plan"))!.text;
    expect(failed).toContain('"status": "failed"');
    expect(failed).toContain('"http_status": 500');
    expect(outputs.find((o) => o.command.includes("plan --no-session-cache"))!.text).toMatch(
      /credential|password|Not Authorized/i,
    );
    expect(outputs.find((o) => o.command === "validate with-password.yaml")!.text).toMatch(/password/);
    expect(readFileSync(join(dir, "apply.jsonl"), "utf8")).toContain('"event":"end"');
  });

  it("keeps the session in one 0600 cache file, which holds the token and not the password", () => {
    const caches = cacheFiles();
    expect(caches).toHaveLength(1);
    expect(statSync(caches[0]!).mode & 0o777).toBe(0o600);
    const text = readFileSync(caches[0]!, "utf8");
    expect(token().length).toBeGreaterThan(15);
    expect(text).toContain(token());
    expect(text).not.toContain(PASSWORD);
  });

  it("never prints the password, the wrong password or the token, on stdout or stderr", () => {
    for (const { command, text } of outputs) {
      expect(text, command).not.toContain(PASSWORD);
      expect(text, command).not.toContain(WRONG_PASSWORD);
      expect(text, command).not.toContain(token());
    }
  });

  it("never writes them into journals, saved plans or any other file it leaves", () => {
    const written = files(dir).filter((f) => !cacheFiles().includes(f) && !f.endsWith(".yaml"));
    expect(written.map((f) => f.slice(dir.length + 1).replace(/[0-9a-f]{32}/, "KEY")).sort()).toEqual([
      ".cache/doohctl/pacing-KEY.log",
      "apply.jsonl",
      "failed.jsonl",
      "plan.json",
    ]);
    for (const file of written) {
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toContain(PASSWORD);
      expect(text, file).not.toContain(token());
    }
  });

  it("the emulator's own request log holds no password and no token either", () => {
    const log = JSON.stringify(emulator.requestLog());
    expect(log).toContain("/api/session");
    expect(log).not.toContain(PASSWORD);
    expect(log).not.toContain(WRONG_PASSWORD);
    expect(log).not.toContain(token());
  });
});
