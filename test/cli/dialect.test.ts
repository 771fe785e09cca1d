/**
 * The dialect at the command line: `validate` reports its problems like every other issue
 * (text and JSON) and says which keys differ from the defaults; `doohctl schema` describes
 * it; a saved plan remembers the dialect file's digest, so `apply --plan` refuses a plan
 * whose dialect file changed before it parses a byte of it, and sends nothing.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { DEFAULT_DIALECT } from "../../src/model/dialect.js";
import type { Plan } from "../../src/plan/types.js";
import { seedCampaign } from "../helpers/builders.js";
import { accountConfig, MALLS_RAISED, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

function directory(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-dialect-cli-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const CONNECTION = "version: 1\nconnection:\n  api_origin: https://dsp.example.com\n";

describe("doohctl validate and the dialect", () => {
  it("says which keys differ from the defaults, the dialect file counted among the files", async () => {
    const dir = directory({
      "doohctl.yaml": `${CONNECTION}  dialect: dialect.yaml\n`,
      "dialect.yaml":
        "dialect:\n  contract_number: po_number\n  progress: { spend: spent, member: progress }\n",
    });
    const io = bufferIO({ cwd: dir });
    expect(await run(["validate"], io), io.err()).toBe(0);
    expect(io.out()).toBe(
      "valid: 0 insertion orders, 0 campaigns, 0 creatives (2 files); dialect: contract_number, progress.spend differ from the defaults\n",
    );
  });

  it("says so when a dialect is written and every key is its default, and nothing when none is", async () => {
    const written = bufferIO({ cwd: directory({ "doohctl.yaml": `${CONNECTION}  dialect: {}\n` }) });
    expect(await run(["validate"], written)).toBe(0);
    expect(written.out()).toContain("(1 file); dialect: every key as the default\n");
    const none = bufferIO({ cwd: directory({ "doohctl.yaml": CONNECTION }) });
    expect(await run(["validate"], none)).toBe(0);
    expect(none.out()).toBe("valid: 0 insertion orders, 0 campaigns, 0 creatives (1 file)\n");
  });

  it("prints the dialect's issues in the JSON array, each at its file and line, with its code", async () => {
    const dir = directory({
      "config/doohctl.yaml": `${CONNECTION}  dialect:\n    targetings: { read_path: /targetings }\n`,
      "config/stray.yaml": "dialect:\n  contract_number: po\n",
    });
    const io = bufferIO({ cwd: dir });
    expect(await run(["validate", "config", "--format", "json"], io)).toBe(1);
    expect(JSON.parse(io.out())).toEqual([
      {
        file: "config/doohctl.yaml",
        line: 5,
        column: 30,
        path: "connection.dialect.targetings.read_path",
        message:
          "must hold `{id}` once, where the campaign id goes (for example `/campaigns/{id}/targetings`); this key is G5 (docs/assumptions.md): the path that reads one campaign's targetings",
        code: "DIALECT_INVALID",
      },
      {
        file: "config/stray.yaml",
        line: 1,
        column: 1,
        path: "dialect",
        message:
          "a top-level dialect is read only from the file connection.dialect names: name this file there (its path relative to the file holding the connection), or move these keys under connection.dialect",
        code: "DIALECT_NOT_NAMED",
      },
    ]);
    const text = bufferIO({ cwd: dir });
    expect(await run(["validate", "config"], text)).toBe(1);
    expect(text.err()).toContain(
      "config/doohctl.yaml:5:30: connection.dialect.targetings.read_path: must hold",
    );
    expect(text.err()).toContain("config/stray.yaml:1:1: dialect: a top-level dialect is read only from");
    expect(text.err()).toContain("invalid: 2 errors");
  });

  it("doohctl schema accepts a config with a dialect and a dialect file, strict, as an editor reads it", async () => {
    const io = bufferIO();
    expect(await run(["schema"], io)).toBe(0);
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv);
    const schema = JSON.parse(io.out()) as { $id: string };
    const config = ajv.compile(schema);
    const file = ajv.getSchema(`${schema.$id}#/$defs/dialect_file`)!;
    expect(config({ version: 1, connection: { dialect: "dialect.yaml" } })).toBe(true);
    expect(config({ version: 1, connection: { dialect: { progress: { member: "delivery" } } } })).toBe(true);
    expect(config({ version: 1, connection: { dialect: { progres: {} } } })).toBe(false);
    expect(config({ version: 1, connection: { dialect: 7 } })).toBe(false);
    expect(file({ dialect: { campaign_targetings: null }, "x-note": 1 })).toBe(true);
    expect(file({ version: 1, dialect: {} })).toBe(false);
  });
});

describe("apply --plan and the dialect file", () => {
  let emulator: RunningEmulator;
  let dir: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    ({ emulator, dir, env } = await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5001", "1001", "Malls")],
      prefix: "doohctl-dialect-plan-",
    }));
    // Today's decisions written out: the plan is the same whatever the client makes of them.
    const config = accountConfig(emulator.origin, MALLS_RAISED).replace(
      "connection:\n",
      "connection:\n  dialect: dialects/northwind.yaml\n",
    );
    writeFileSync(join(dir, "doohctl.yaml"), config);
    mkdirSync(join(dir, "dialects"));
    writeFileSync(join(dir, "dialects", "northwind.yaml"), "dialect:\n  contract_number: contract_number\n");
    const io = bufferIO({ env, cwd: dir });
    expect(await run(["plan", "-o", "plan.json", "--no-session-cache"], io), io.err()).toBe(0);
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("records the dialect file's digest in the plan", () => {
    const plan = JSON.parse(readFileSync(join(dir, "plan.json"), "utf8")) as Plan;
    expect(plan.config_files.map((f) => f.path)).toEqual(["doohctl.yaml", "dialects/northwind.yaml"]);
  });

  it.each([
    ["the files the plan names", []],
    ["the config named on the command line", ["doohctl.yaml"]],
  ])("refuses a plan whose dialect file changed since, reading %s, sending no write", async (_, paths) => {
    writeFileSync(
      join(dir, "dialects", "northwind.yaml"),
      "dialect:\n  contract_number: contract_number\n  create_campaigns_member: items\n",
    );
    const before = emulator.requestLog().length;
    const io = bufferIO({ env, cwd: dir });
    const code = await run(
      ["apply", "--plan", "plan.json", ...paths, "--auto-approve", "--no-session-cache"],
      io,
    );
    expect(code).toBe(1);
    expect(io.err()).toMatch(/made from other config files .*dialects\/northwind\.yaml differs/);
    expect(io.err()).not.toContain("items");
    // A refusal settles the recovery record (docs/apply.md), which may log in: never a write.
    const writes = emulator
      .requestLog()
      .slice(before)
      .filter((r) => r.method !== "GET" && r.path !== "/api/session");
    expect(writes).toEqual([]);
    expect(emulator.state().campaigns[0]?.budget_impressions).toBe(100_000);
  });

  it.each([
    ["the files the plan names", []],
    ["the config named on the command line", ["doohctl.yaml"]],
  ])("applies a plan whose dialect file is unchanged, reading %s", async (_, paths) => {
    const io = bufferIO({ env, cwd: dir });
    const code = await run(
      ["apply", "--plan", "plan.json", ...paths, "--auto-approve", "--no-session-cache"],
      io,
    );
    expect(code, io.err()).toBe(0);
    expect(emulator.state().campaigns[0]?.budget_impressions).toBe(150_000);
  });
});

describe("the dialect file is the one the client speaks", () => {
  it("plans and applies against a DSP that lists insertion orders elsewhere, only with the dialect named", async () => {
    const moved = { ...DEFAULT_DIALECT, insertion_orders_path: "/orders" };
    const { emulator, dir, env } = await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5001", "1001", "Malls")],
      emulator: { dialect: moved },
      prefix: "doohctl-dialect-client-",
    });
    try {
      const config = accountConfig(emulator.origin, MALLS_RAISED);
      writeFileSync(join(dir, "doohctl.yaml"), config);
      const without = bufferIO({ env, cwd: dir });
      expect(await run(["plan", "--no-session-cache"], without)).toBe(1);
      writeFileSync(
        join(dir, "doohctl.yaml"),
        config.replace("connection:\n", "connection:\n  dialect: dsp/dialect.yaml\n"),
      );
      mkdirSync(join(dir, "dsp"));
      writeFileSync(join(dir, "dsp", "dialect.yaml"), "dialect:\n  insertion_orders_path: /orders\n");
      const io = bufferIO({ env, cwd: dir });
      expect(await run(["apply", "--auto-approve", "--no-session-cache"], io), io.err()).toBe(0);
      expect(
        emulator.requestLog().some((r) => r.method === "GET" && r.path.startsWith("/api/dsp/v1/orders")),
      ).toBe(true);
      expect(emulator.state().campaigns[0]?.budget_impressions).toBe(150_000);
    } finally {
      await emulator.close();
    }
  });
});
