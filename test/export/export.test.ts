/**
 * `doohctl export` through `run()` against the real emulator: what it writes, where, and the
 * round trip that defines it: a plan on the exported file reports no changes, for the example
 * seed and for random live states.
 */
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { configSchemaUrl } from "../../src/cli/version.js";
import { loadConfig } from "../../src/config/load.js";
import type { EmulatorSeed, RunningEmulator } from "../../src/emulator/index.js";
import { campaignMembers } from "../helpers/builders.js";
import { loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { exampleSeed } from "../helpers/example-seed.js";
import { bufferIO } from "../helpers/io.js";
import { usd } from "../helpers/money.js";
import { DEMO_USER, USER } from "../helpers/users.js";
import { liveSeed } from "./arbitrary.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "doohctl-export-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(emulator: RunningEmulator, user: { email: string; password: string }) {
  return bufferIO({
    cwd: dir,
    env: {
      DOOHCTL_API_ORIGIN: emulator.origin,
      DOOHCTL_EMAIL: user.email,
      DOOHCTL_PASSWORD: user.password,
      DOOHCTL_SESSION_CACHE: "off",
      HOME: dir,
    },
  });
}

/** Exports with `args`, saves the text, and plans it: the exit code of `plan --detailed-exitcode`. */
async function roundTrip(emulator: RunningEmulator, user: typeof DEMO_USER, args: string[], file: string) {
  const exported = cli(emulator, user);
  expect(await run(["export", ...args], exported), exported.err()).toBe(0);
  writeFileSync(join(dir, file), exported.out());
  const plan = cli(emulator, user);
  const code = await run(["plan", file, "--detailed-exitcode"], plan);
  return { code, text: exported.out(), plan: plan.out() + plan.err(), warnings: exported.err() };
}

describe("doohctl export of the example seed", () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    const { seed, clock } = await exampleSeed();
    emulator = (await startCliAccount({ seed, emulator: { clock } })).emulator;
  });
  afterAll(() => emulator.close());
  afterEach(() => rmSync(join(dir, "out.yaml"), { force: true }));

  it("writes YAML in the config's format with the schema comment and a comment per order and campaign", async () => {
    const { code, text, plan } = await roundTrip(
      emulator,
      DEMO_USER,
      ["--insertion-order", "1001"],
      "io.yaml",
    );
    expect(code, plan).toBe(0);
    expect(text.split("\n")[0]).toBe(`# yaml-language-server: $schema=${configSchemaUrl()}`);
    expect(text).toContain(
      "# Holiday push: Northwind Beverages (advertiser 1), flight 2026-12-01 to 2027-02-01",
    );
    expect(text).toContain("# Northwind Beverages (advertiser 1), flight 2026-12-01 to 2026-12-15, inactive");
    expect(text).toMatch(/- name: Holiday airports\n\s+id: "5001"/);
    expect(text).toContain('creatives: ["9001", "9002"]');
    expect(text).toContain("cpm: 12.00 USD");
    expect(text).not.toContain('"1002"');
    const state = await loadConfig([join(dir, "io.yaml")], { cwd: dir });
    expect(state.insertionOrders.map((io) => io.campaigns.map((c) => c.id))).toEqual([
      ["5001", "5002", "5003"],
    ]);
  });

  it("exports every insertion order with --all, and the plan on it shows no changes", async () => {
    const { code, text, plan } = await roundTrip(emulator, DEMO_USER, ["--all"], "all.yaml");
    expect(code, plan).toBe(0);
    expect(plan).toMatch(/no changes/);
    expect(text).toContain('- id: "1001"');
    expect(text).toContain('- id: "1002"');
    expect(text).toContain("# Spring travel: Contoso Travel (advertiser 2)");
  });

  it("writes -o FILE, and never overwrites it without --force", async () => {
    const first = cli(emulator, DEMO_USER);
    expect(await run(["export", "--insertion-order", "1002", "-o", "out.yaml"], first), first.err()).toBe(0);
    expect(first.out()).toBe("");
    expect(first.err()).toContain("wrote out.yaml (1 insertion order, 1 campaign)");
    const written = readFileSync(join(dir, "out.yaml"), "utf8");
    expect(written).toContain('- id: "1002"');

    const requestsBefore = emulator.requestLog().length;
    const refused = cli(emulator, DEMO_USER);
    expect(await run(["export", "--all", "-o", "out.yaml"], refused)).toBe(1);
    expect(refused.err()).toBe(
      "doohctl export: out.yaml already exists: choose another -o FILE, or add --force to overwrite it\n",
    );
    expect(readFileSync(join(dir, "out.yaml"), "utf8")).toBe(written);
    expect(emulator.requestLog().length).toBe(requestsBefore); // refused before any request

    const forced = cli(emulator, DEMO_USER);
    expect(await run(["export", "--all", "-o", "out.yaml", "--force"], forced), forced.err()).toBe(0);
    expect(readFileSync(join(dir, "out.yaml"), "utf8")).toContain('- id: "1001"');
  });

  it("-o FILE --force replaces a link at FILE, never the file it points to", async () => {
    const target = join(mkdtempSync(join(tmpdir(), "doohctl-export-target-")), "kept.yaml");
    writeFileSync(target, "kept\n");
    symlinkSync(target, join(dir, "out.yaml"));
    const io = cli(emulator, DEMO_USER);
    expect(
      await run(["export", "--insertion-order", "1002", "-o", "out.yaml", "--force"], io),
      io.err(),
    ).toBe(0);
    expect(readFileSync(target, "utf8")).toBe("kept\n");
    expect(lstatSync(join(dir, "out.yaml")).isFile()).toBe(true);
    expect(readFileSync(join(dir, "out.yaml"), "utf8")).toContain('- id: "1002"');
  });

  it("-o into a directory that does not exist names the directory, before any request", async () => {
    const requestsBefore = emulator.requestLog().length;
    const io = cli(emulator, DEMO_USER);
    expect(await run(["export", "--all", "-o", "nodir/x.yaml"], io)).toBe(1);
    expect(io.err()).toBe(
      "doohctl export: -o nodir/x.yaml: the directory nodir does not exist: create it first (mkdir -p nodir) or choose another -o FILE\n",
    );
    expect(emulator.requestLog().length).toBe(requestsBefore);
    const json = cli(emulator, DEMO_USER);
    expect(await run(["export", "--all", "-o", "out.yaml/x.yaml", "--format", "json"], json)).toBe(1);
    expect(JSON.parse(json.out()).errors).toEqual([
      { code: "EXPORT_OUTPUT_DIR", message: expect.stringMatching(/does not exist/), location: null },
    ]);
  });

  it("names an insertion order that does not exist, and writes nothing", async () => {
    const io = cli(emulator, DEMO_USER);
    expect(
      await run(["export", "--insertion-order", "1001", "--insertion-order", "4040", "-o", "out.yaml"], io),
    ).toBe(1);
    expect(io.err()).toMatch(/insertion order 4040 not found/);
    expect(existsSync(join(dir, "out.yaml"))).toBe(false);
  });

  it("asks for exactly one of --insertion-order and --all", async () => {
    for (const args of [["export"], ["export", "--all", "--insertion-order", "1001"]]) {
      const io = cli(emulator, DEMO_USER);
      expect(await run(args, io)).toBe(1);
      expect(io.err()).toContain("--insertion-order ID (repeatable) or --all, not both");
    }
  });

  it("takes the connection from a config with -c when DOOHCTL_API_ORIGIN is not set", async () => {
    writeFileSync(
      join(dir, "connection.yaml"),
      `version: 1\nconnection:\n  api_origin: ${emulator.origin}\n`,
    );
    const env = loginEnv(DEMO_USER, dir);
    const io = bufferIO({ cwd: dir, env: { ...env, DOOHCTL_SESSION_CACHE: "off" } });
    expect(await run(["export", "--insertion-order", "1002", "-c", "connection.yaml"], io), io.err()).toBe(0);
    expect(io.out()).toContain("- name: Spring downtown");
  });

  it("never writes the password, and needs the credentials from the environment", async () => {
    const io = bufferIO({ cwd: dir, env: { DOOHCTL_API_ORIGIN: emulator.origin, HOME: dir } });
    expect(await run(["export", "--all"], io)).toBe(1);
    expect(io.err()).toMatch(/DOOHCTL_EMAIL and DOOHCTL_PASSWORD are not set/);
    const { text } = await roundTrip(emulator, DEMO_USER, ["--all"], "all.yaml");
    expect(text).not.toContain(DEMO_USER.password);
  });
});

describe("doohctl export of what the config cannot hold", () => {
  it("leaves out a second campaign of the same name and an unusable pixel URL, and says so", async () => {
    const seed: EmulatorSeed = {
      users: [USER],
      advertisers: [{ id: "1", name: "Acme" }],
      insertion_orders: [
        {
          id: "1001",
          advertiser_id: "1",
          name: "Order",
          start_time: "2027-01-01T00:00:00Z",
          end_time: "2027-02-01T00:00:00Z",
        },
      ],
      campaigns: ["5001", "5002"].map((id) =>
        campaignMembers({
          id,
          name: "Airports",
          start_time: "2027-01-01T00:00:00Z",
          end_time: "2027-01-15T00:00:00Z",
          budget_impressions: 1000,
          cpm: usd("5"),
        }),
      ),
      creatives: [
        {
          id: "9001",
          advertiser_id: "1",
          name: "Spot",
          create_time: "2026-10-01T00:00:00Z",
          campaign_ids: ["5001"],
          insertion_order_ids: ["1001"],
          pixel_url: "pixel.example.com",
        },
      ],
    };
    const emulator = (await startCliAccount({ seed })).emulator;
    try {
      const { code, text, warnings } = await roundTrip(emulator, USER, ["--all"], "dupes.yaml");
      expect(code).toBe(0);
      expect(warnings).toContain(
        'doohctl export: warning: campaign 5002 "Airports" of insertion order 1001 is not exported: another campaign there has the same name',
      );
      expect(warnings).toContain(
        'creative 9001: pixel_url "pixel.example.com" is not an absolute http or https URL',
      );
      expect(text).toContain('id: "5001"');
      expect(text).not.toContain('id: "5002"');
    } finally {
      await emulator.close();
    }
  });
});

describe("doohctl export round trip on random live states", () => {
  it("plans to no changes for every exported live state", async () => {
    await fc.assert(
      fc.asyncProperty(liveSeed, async (seed: EmulatorSeed) => {
        const emulator = (await startCliAccount({ seed })).emulator;
        try {
          const result = await roundTrip(emulator, USER, ["--all"], "random.yaml");
          expect(result.code, `${result.text}\n${result.plan}`).toBe(0);
        } finally {
          await emulator.close();
        }
      }),
      { numRuns: 25 },
    );
  });
});
