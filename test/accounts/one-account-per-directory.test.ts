/**
 * One directory holds one account (docs/config.md, One account per directory). A second
 * account's `connection` file copied, or linked, into `accounts/north/` sorts first by name:
 * a run that took the first connection planned north's campaigns with south's credentials
 * against south's origin. Every command that reads a config refuses the directory, as
 * `doohctl accounts` does, before any request, naming both files; so does a directory where
 * an account's connection sits beside one that names no account.
 */
import { copyFileSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { accountEnv, writeAccount } from "../helpers/accounts-repo.js";
import { seedCampaign, seedIo } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";

const userOf = (name: string) => ({
  ...USER,
  email: `${name}@doohctl.test`,
  password: `${USER.password}-${name}`,
});

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  const account = await startCliAccount({
    users: [userOf("north"), userOf("south")],
    campaigns: [seedCampaign("5001", "1001", "N1", { active: true })],
    seed: { insertion_orders: [seedIo("1001")] },
  });
  emulator = account.emulator;
  env = {
    HOME: account.dir,
    XDG_RUNTIME_DIR: join(account.dir, "run"),
    ...accountEnv("north", emulator.origin, userOf("north")),
    ...accountEnv("south", emulator.origin, userOf("south")),
  };
});

afterAll(async () => {
  await emulator.close();
});

/** north and south, each in its own directory; north's campaigns have `active` omitted. */
function repo(): string {
  const root = mkdtempSync(join(tmpdir(), "doohctl-one-account-"));
  writeAccount(root, "north", [
    '  - id: "1001"',
    "    campaigns:",
    "      - name: N1",
    "        budget_impressions: 5",
  ]);
  writeAccount(root, "south");
  return root;
}

async function cli(root: string, args: string[]) {
  const io = bufferIO({ cwd: root, env });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

const COMMANDS: [string, string[]][] = [
  ["validate", ["validate", "accounts/north"]],
  ["plan", ["plan", "accounts/north"]],
  ["apply", ["apply", "--auto-approve", "accounts/north"]],
  ["pull", ["pull", "accounts/north"]],
  ["status", ["status", "accounts/north"]],
  ["export", ["export", "--all", "-c", "accounts/north/doohctl.yaml"]],
  ["validate of one file", ["validate", "accounts/north/doohctl.yaml"]],
];

/** Sorts before doohctl.yaml: the connection a first-file-wins run took. */
const COPIED = "connection.yaml";

describe("a second account's connection in an account's directory", () => {
  it.each(COMMANDS)("copied: %s refuses it before any request, naming both files", async (_, args) => {
    const root = repo();
    copyFileSync(join(root, "accounts/south/doohctl.yaml"), join(root, "accounts/north", COPIED));
    const before = emulator.requestLog().length;
    const result = await cli(root, args);
    expect(result.code).toBe(1);
    const errors = result.err + result.out;
    expect(errors).toContain("accounts/north declares a second connection");
    expect(errors).toContain(`accounts/north/${COPIED} (account south)`);
    expect(errors).toContain("accounts/north/doohctl.yaml (account north)");
    expect(errors).toContain("move the other");
    expect(emulator.requestLog().length).toBe(before);
    expect(emulator.state().campaigns.find((c) => c.id === "5001")?.budget_impressions).not.toBe(5);
  });

  it("linked: plan refuses it too, and doohctl accounts reports the same issue", async () => {
    const root = repo();
    symlinkSync(join(root, "accounts/south/doohctl.yaml"), join(root, "accounts/north", COPIED));
    const before = emulator.requestLog().length;
    const planned = await cli(root, ["plan", "accounts/north"]);
    const listed = await cli(root, ["accounts"]);
    expect(planned.code).toBe(1);
    expect(listed.code).toBe(1);
    const line = `accounts/north/doohctl.yaml: connection: accounts/north declares a second connection, in accounts/north/doohctl.yaml (account north), besides accounts/north/${COPIED} (account south)`;
    expect(planned.err).toContain(line);
    expect(listed.err).toContain(line);
    expect(emulator.requestLog().length).toBe(before);
  });

  it("one account, refused as JSON with the code accounts gives", async () => {
    const root = repo();
    copyFileSync(join(root, "accounts/south/doohctl.yaml"), join(root, "accounts/north", COPIED));
    const validated = await cli(root, ["validate", "--format", "json", "accounts/north"]);
    expect(validated.code).toBe(1);
    expect(validated.out).toContain('"CONNECTION_DECLARED_TWICE"');
  });
});

describe("an account's connection beside one that names no account", () => {
  it.each(COMMANDS)("%s refuses the directory, even naming only the account's file", async (_, args) => {
    const root = repo();
    writeFileSync(
      join(root, "accounts/north/zz-local.yaml"),
      `version: 1\nconnection:\n  api_origin: ${emulator.origin}\n`,
    );
    const before = emulator.requestLog().length;
    const result = await cli(root, args);
    expect(result.code).toBe(1);
    expect(result.err + result.out).toContain(
      "accounts/north declares a second connection, in accounts/north/zz-local.yaml (no account), besides accounts/north/doohctl.yaml (account north)",
    );
    expect(emulator.requestLog().length).toBe(before);
    const listed = await cli(root, ["accounts"]);
    expect(listed.code).toBe(1);
    expect(listed.err).toContain("accounts/north/zz-local.yaml (no account)");
  });
});

describe("a single-account tree with two connection blocks and no account", () => {
  it.each(["validate", "plan", "status"])("%s refuses the tree, at each block's line", async (command) => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-two-connections-"));
    writeFileSync(join(dir, "a.yaml"), `version: 1\nconnection:\n  api_origin: ${emulator.origin}\n`);
    writeFileSync(join(dir, "b.yaml"), "version: 1\nconnection:\n  api_origin: https://dsp.example.com\n");
    const before = emulator.requestLog().length;
    const io = bufferIO({
      cwd: dir,
      env: { ...env, DOOHCTL_EMAIL: USER.email, DOOHCTL_PASSWORD: USER.password },
    });
    const code = await run([command, "."], io);
    expect(code).toBe(1);
    expect(io.err()).toContain("b.yaml:3:3: connection: connection is declared twice: also at a.yaml:3:3");
    expect(emulator.requestLog().length).toBe(before);
  });
});
