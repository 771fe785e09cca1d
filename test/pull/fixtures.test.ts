/**
 * `doohctl pull` through `run()` against the real emulator (port 0): hand-written files with
 * comments, anchors, merge keys, flow maps, quoted and plain scalars, in two files. The
 * emulator's seed is the drifted live state; after pull a plan shows no change, the diff
 * touches only the drifted values, and a second pull writes nothing.
 */
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import type { Campaign } from "../../src/model/wire.js";
import { campaignMembers } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";

const money = (units: string, nanos = 0) => ({ currency_code: "USD", units, nanos });
const campaign = (id: string, name: string, extra: Partial<Campaign>) =>
  campaignMembers({
    id,
    name,
    active: true,
    start_time: "2027-01-01T00:00:00Z",
    end_time: "2027-02-01T00:00:00Z",
    budget_impressions: 150000,
    pacing: { strategy: "even" },
    ...extra,
  });

/** The live state: what the files below say, drifted where the comments on the right say. */
const SEED = {
  users: [USER],
  advertisers: [{ id: "1", name: "Northwind" }],
  creative_categories: [{ id: "1", name: "Beverages" }],
  insertion_orders: [
    {
      id: "1001",
      advertiser_id: "1",
      name: "Holiday",
      contract_number: null,
      start_time: "2026-12-31T23:00:00Z", // drift: an hour earlier
      end_time: "2027-03-01T00:00:00Z",
      budget_impressions: null,
      budget_money: money("30000"), // drift: 25000
    },
    {
      id: "1002",
      advertiser_id: "1",
      name: "Spring",
      contract_number: "PO-2", // drift: PO-1
      start_time: "2027-01-01T00:00:00Z",
      end_time: "2027-03-01T00:00:00Z",
      budget_impressions: null,
      budget_money: null,
    },
  ],
  campaigns: [
    campaign("5001", "Airports", { cpm: money("13", 250000000) }), // drift: cpm 12.00, budget 100000
    campaign("5002", "Malls", { pacing: { strategy: "asap" } }), // drift: budget 100000, pacing even
    campaign("5003", "Stations", { active: false, budget_impressions: 100000 }), // undeclared
    {
      ...campaign("5101", "Downtown", { active: false, budget_impressions: 500 }),
      insertion_order_id: "1002",
    },
  ],
  targetings: { "5101": [{ venue_type_targeting_option: { venue_type_ids: ["12", "14"] } }] },
  creatives: ["9001", "9002"].map((id) => ({
    id,
    advertiser_id: "1",
    name: `Creative ${id}`,
    create_time: "2026-10-01T09:00:00Z",
    campaign_ids: ["5002"], // drift: 9002 added
    insertion_order_ids: ["1001"],
    category_ids: ["1"],
    type: "VIDEO" as const,
    duration_ms: 15000,
    processing_status: "PROCESSED" as const,
    asset: {
      url: `https://cdn.example.com/${id}.mp4`,
      width: 1920,
      height: 1080,
      format: "video/mp4",
      file_size_bytes: 1000,
    },
  })),
};

const A = `# Holiday push: two campaigns share a price and a budget.
version: 1

x-defaults:
  shared: &shared
    cpm: 12.00 USD # the rate card price
    budget_impressions: 100000

insertion_orders:
  - id: "1001"
    start_time: 2027-01-01T01:00:00+01:00 # Paris midnight
    end_time: 2027-03-01T00:00:00Z
    budget_money: {currency_code: USD, units: "25000", nanos: 0}

    campaigns:
      - name: Airports
        id: "5001"
        <<: *shared
        active: true
        start_time: 2027-01-01T00:00:00Z
        end_time: 2027-02-01T00:00:00Z

      - name: Malls
        id: '5002'
        <<: *shared
        start_time: 2027-01-01T00:00:00Z
        end_time: 2027-02-01T00:00:00Z
        pacing: { strategy: even } # flow map
        creatives: ["9001"]
`;

const B = `version: 1
insertion_orders:
  - id: "1002"
    contract_number: PO-1 # plain
    campaigns:
      - name: Downtown
        id: "5101"
        active: true
        budget_impressions: 500
        targetings:
          - venue_type_targeting_option:
              venue_type_ids: ["12"]
        # the end
`;

const A_PULLED = A.replace("    budget_impressions: 100000", "    budget_impressions: 150000")
  .replace("2027-01-01T01:00:00+01:00 # Paris", "2027-01-01T00:00:00+01:00 # Paris")
  .replace('units: "25000"', 'units: "30000"')
  .replace(
    '        id: "5001"\n        <<: *shared\n',
    '        id: "5001"\n        <<: *shared\n        cpm: 13.25 USD\n',
  )
  .replace("{ strategy: even } # flow", "{ strategy: asap } # flow")
  .replace('creatives: ["9001"]', 'creatives: ["9001", "9002"]');

const B_PULLED = B.replace("PO-1 # plain", "PO-2 # plain")
  .replace("        active: true\n", "        active: false\n")
  .replace('venue_type_ids: ["12"]', 'venue_type_ids: ["12", "14"]');

let dir: string;
let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = (await startCliAccount({ seed: SEED })).emulator;
});
afterAll(async () => {
  await emulator.close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function cli() {
  return bufferIO({
    cwd: dir,
    env: {
      DOOHCTL_API_ORIGIN: emulator.origin,
      DOOHCTL_EMAIL: USER.email,
      DOOHCTL_PASSWORD: USER.password,
      DOOHCTL_SESSION_CACHE: "off",
      DOOHCTL_STATE_DIR: join(dir, ".state"),
      HOME: dir,
    },
  });
}

function files(a = A, b = B) {
  dir = mkdtempSync(join(tmpdir(), "doohctl-pull-"));
  writeFileSync(join(dir, "a.yaml"), a);
  writeFileSync(join(dir, "b.yaml"), b);
}

async function pull(...args: string[]) {
  const io = cli();
  const code = await run(["pull", "a.yaml", "b.yaml", ...args], io);
  return { code, out: io.out(), err: io.err() };
}

describe("doohctl pull of hand-written files", () => {
  it("rewrites only the drifted values, keeping comments, quoting, anchors and offsets", async () => {
    files();
    const result = await pull();
    expect(result.err).not.toMatch(/error/);
    expect(result.code, result.out + result.err).toBe(0);
    expect(readFileSync(join(dir, "a.yaml"), "utf8")).toBe(A_PULLED);
    expect(readFileSync(join(dir, "b.yaml"), "utf8")).toBe(B_PULLED);
    // The shared budget moved for both readers; the price only for Airports, at its own place.
    expect(result.out).toMatch(/Airports cpm .*own value/);
    expect(result.out).toContain("--- a/a.yaml");
    expect(result.out).toContain("-    contract_number: PO-1 # plain\n+    contract_number: PO-2 # plain");

    const plan = cli();
    expect(await run(["plan", "a.yaml", "b.yaml", "--detailed-exitcode"], plan), plan.out()).toBe(0);
    const again = await pull();
    expect(again.code).toBe(0);
    expect(again.out).toContain("nothing to write");
  });

  it("--check writes nothing and exits 2; --format json carries the same facts", async () => {
    files();
    const check = await pull("--check", "--format", "json");
    expect(check.code).toBe(2);
    expect(readFileSync(join(dir, "a.yaml"), "utf8")).toBe(A);
    const json = JSON.parse(check.out) as { files: { file: string; written: boolean }[]; pulled: unknown[] };
    expect(json.files.map((f) => [f.file, f.written])).toEqual([
      ["a.yaml", false],
      ["b.yaml", false],
    ]);
    expect(json.pulled.length).toBe(10);
  });

  it("keeps CRLF line endings", async () => {
    files(A.replace(/\n/g, "\r\n"), B.replace(/\n/g, "\r\n"));
    expect((await pull()).code).toBe(0);
    expect(readFileSync(join(dir, "b.yaml"), "utf8")).toBe(B_PULLED.replace(/\n/g, "\r\n"));
  });

  it("refuses to write through a link, and writes the other file", async () => {
    files();
    rmSync(join(dir, "b.yaml"));
    writeFileSync(join(dir, "real-b.yaml"), B);
    symlinkSync(join(dir, "real-b.yaml"), join(dir, "b.yaml"));
    const result = await pull();
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/not pulled: b\.yaml .*b\.yaml is a symbolic link/);
    expect(readFileSync(join(dir, "real-b.yaml"), "utf8")).toBe(B);
    expect(readFileSync(join(dir, "a.yaml"), "utf8")).toBe(A_PULLED);
  });

  it("refuses a read-only file (0444), keeping it and its mode; the summary says so and the exit is 1", async () => {
    files();
    chmodSync(join(dir, "b.yaml"), 0o444);
    const result = await pull();
    expect(result.code).toBe(1);
    expect(result.out).toContain(
      "not pulled: b.yaml (b.yaml): b.yaml is read-only (mode 0444): nothing written to it; make it writable (chmod u+w b.yaml) and run pull again, or edit it by hand",
    );
    expect(result.out).toMatch(/\npull: \d+ values written to 1 file; 1 item not pulled \(above\)\n$/);
    expect(readFileSync(join(dir, "b.yaml"), "utf8")).toBe(B);
    expect(statSync(join(dir, "b.yaml")).mode & 0o777).toBe(0o444);
    expect(readFileSync(join(dir, "a.yaml"), "utf8")).toBe(A_PULLED);
  });

  it("keeps a file's mode (0640 stays 0640)", async () => {
    files();
    chmodSync(join(dir, "a.yaml"), 0o640);
    const result = await pull();
    expect(result.code, result.out + result.err).toBe(0);
    expect(readFileSync(join(dir, "a.yaml"), "utf8")).toBe(A_PULLED);
    expect(statSync(join(dir, "a.yaml")).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).sort()).toEqual(["a.yaml", "b.yaml"]);
  });

  it("never says the files match when it refused them all: it says nothing was written and why (exit 1)", async () => {
    files();
    for (const name of ["a.yaml", "b.yaml"]) {
      renameSync(join(dir, name), join(dir, `real-${name}`));
      symlinkSync(join(dir, `real-${name}`), join(dir, name));
    }
    const result = await pull();
    expect(result.code).toBe(1);
    expect(result.out).not.toContain("match");
    expect(result.out).toMatch(/\npull: nothing written; \d+ items not pulled \(above\)\n$/);
    expect(readFileSync(join(dir, "real-a.yaml"), "utf8")).toBe(A);
  });

  it("--new appends the undeclared campaign whose flight has not ended, id pinned", async () => {
    files();
    const result = await pull("--new");
    expect(result.code, result.out + result.err).toBe(0);
    const a = readFileSync(join(dir, "a.yaml"), "utf8");
    expect(a).toContain('      - name: Stations\n        id: "5003"\n        active: false\n');
    const plan = cli();
    expect(await run(["plan", "a.yaml", "b.yaml", "--detailed-exitcode"], plan), plan.out()).toBe(0);
  });
});
