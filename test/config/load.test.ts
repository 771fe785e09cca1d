import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ConfigError, type ConfigIssue } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";

const EXAMPLES = fileURLToPath(new URL("../../examples/", import.meta.url));

/** Loads in-memory files through the injected reader: `{ "doohctl.yaml": "..." }`. */
function memoryFiles(files: Record<string, string | Uint8Array>) {
  return {
    cwd: "/cfg",
    readFile: async (path: string) => {
      const name = path.replace(/^\/cfg\//, "");
      const content = files[name];
      if (content === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
      return typeof content === "string" ? new TextEncoder().encode(content) : content;
    },
    listDirectory: async (path: string) => {
      if (path !== "/cfg/conf.d") return undefined;
      return Object.keys(files)
        .filter((name) => name.startsWith("conf.d/"))
        .map((name) => name.slice("conf.d/".length));
    },
  };
}

async function issuesOf(files: Record<string, string>, paths: string[] = []): Promise<ConfigIssue[]> {
  try {
    await loadConfig(paths, memoryFiles(files));
  } catch (error) {
    if (error instanceof ConfigError) return [...error.issues];
    throw error;
  }
  throw new Error("expected the config to be invalid");
}

describe("loadConfig", () => {
  it("reads doohctl.yaml by default and normalizes money, times, ids and targetings", async () => {
    const state = await loadConfig(
      [],
      memoryFiles({
        "doohctl.yaml": `version: 1
insertion_orders:
  - id: 1001
    start_time: 2026-12-01T01:00:00+01:00
    end_time: 2027-02-01T00:00:00.000Z
    budget_money: 25000.50 USD
    campaigns:
      - name: Airports
        id: 5001
        cpm: { currency_code: USD, units: 12, nanos: 500000000 }
        targetings:
          - publisher_targeting_option: { publisher_ids: [77, "12", "77"] }
            venue_type_targeting_option: { venue_type_ids: ["14", "12"], exclude: false }
        creatives: ["9002", 9001]
`,
      }),
    );
    const io = state.insertionOrders[0]!;
    expect(io.id).toBe("1001");
    expect(io.fields).toEqual({
      start_time: "2026-12-01T00:00:00Z",
      end_time: "2027-02-01T00:00:00Z",
      budget_money: { currency_code: "USD", units: "25000", nanos: 500000000 },
    });
    const campaign = io.campaigns[0]!;
    expect(campaign.id).toBe("5001");
    expect(campaign.fields.cpm).toEqual({ currency_code: "USD", units: "12", nanos: 500000000 });
    expect(campaign.targetings).toEqual([
      {
        venue_type_targeting_option: { venue_type_ids: ["12", "14"], exclude: false },
        publisher_targeting_option: { publisher_ids: ["12", "77"], exclude: false },
      },
    ]);
    expect(campaign.creatives).toEqual(["9001", "9002"]);
    expect(state.files.map((f) => f.path)).toEqual(["doohctl.yaml"]);
    expect(state.files[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("remembers where each object and field was written", async () => {
    const state = await loadConfig(
      ["c.yaml"],
      memoryFiles({
        "c.yaml":
          "version: 1\ninsertion_orders:\n  - id: '1'\n    campaigns:\n      - name: A\n        cpm: 1 USD\n",
      }),
    );
    const campaign = state.insertionOrders[0]!.campaigns[0]!;
    expect(campaign.source).toEqual({
      file: "c.yaml",
      line: 5,
      column: 9,
      path: "insertion_orders[0].campaigns[0]",
    });
    expect(campaign.fieldSources.cpm).toEqual({
      file: "c.yaml",
      line: 6,
      column: 14,
      path: "insertion_orders[0].campaigns[0].cpm",
    });
  });

  it("leaves undeclared fields undefined, so they are neither compared nor changed", async () => {
    const state = await loadConfig(
      [],
      memoryFiles({
        "doohctl.yaml": "version: 1\ninsertion_orders:\n  - id: '1'\n    campaigns:\n      - name: A\n",
      }),
    );
    const campaign = state.insertionOrders[0]!.campaigns[0]!;
    expect(campaign.fields).toEqual({});
    expect(campaign.targetings).toBeUndefined();
    expect(campaign.creatives).toBeUndefined();
    expect(state.insertionOrders[0]!.unmanagedCampaigns).toBe("ignore");
  });

  it("keeps an explicit empty targeting list, which manages targeting as none", async () => {
    const state = await loadConfig(
      [],
      memoryFiles({
        "doohctl.yaml":
          "version: 1\ninsertion_orders:\n  - id: '1'\n    campaigns:\n      - name: A\n        targetings: []\n",
      }),
    );
    expect(state.insertionOrders[0]!.campaigns[0]!.targetings).toEqual([]);
  });

  it("reuses targeting blocks and flights through anchors, aliases and << merge keys", async () => {
    const state = await loadConfig([`${EXAMPLES}multi-file`], { cwd: EXAMPLES });
    const io = state.insertionOrders.find((o) => o.id === "1001")!;
    const [airports, malls] = io.campaigns;
    expect(airports!.fields.start_time).toBe("2026-12-01T00:00:00Z");
    expect(malls!.fields.end_time).toBe("2027-01-01T00:00:00Z");
    expect(airports!.targetings).toEqual([
      {
        venue_type_targeting_option: { venue_type_ids: ["12", "14"], exclude: false },
        publisher_targeting_option: { publisher_ids: ["77"], exclude: true },
      },
    ]);
    // A merged value points at the anchor, where it was written: the `x-flight` block's line.
    const lines = readFileSync(`${EXAMPLES}multi-file/io-1001.yaml`, "utf8").split("\n");
    const anchor = lines.findIndex((line) => line.startsWith("x-flight: &december"));
    expect(lines[anchor + 1]).toMatch(/^ {2}start_time: /);
    expect(airports!.fieldSources.start_time?.line).toBe(anchor + 2);
  });

  it("loads the multi-file example: connection, two insertion orders, creatives, in name order", async () => {
    const state = await loadConfig(["multi-file"], { cwd: EXAMPLES });
    // Named relative to the tree, the git work tree holding the working directory.
    expect(state.files.map((f) => f.path)).toEqual([
      "examples/multi-file/connection.yaml",
      "examples/multi-file/creatives.yaml",
      "examples/multi-file/io-1001.yaml",
      "examples/multi-file/io-1002.yaml",
    ]);
    expect(state.insertionOrders.map((io) => io.id)).toEqual(["1001", "1002"]);
    expect(state.creatives.map((c) => c.id)).toEqual(["9001", "9002", "9003"]);
    expect(state.connection.apiOrigin).toBe("http://127.0.0.1:8787");
    expect(state.connection.rateLimits?.write).toEqual({ limit: 10, windowMs: 60_000 });
    expect(state.insertionOrders[1]!.unmanagedCampaigns).toBe("deactivate");
  });

  it("reads a directory's .yaml and .yml files in name order and ignores other files", async () => {
    const state = await loadConfig(
      ["conf.d"],
      memoryFiles({
        "conf.d/b.yml": "version: 1\ninsertion_orders: [{ id: '2' }]\n",
        "conf.d/a.yaml": "version: 1\ninsertion_orders: [{ id: '1' }]\n",
        "conf.d/notes.txt": "not yaml",
      }),
    );
    expect(state.insertionOrders.map((io) => io.id)).toEqual(["1", "2"]);
  });

  it("reads a file named twice once, under the first name", async () => {
    const state = await loadConfig(
      ["conf.d", "conf.d/a.yaml", "./conf.d/a.yaml"],
      memoryFiles({ "conf.d/a.yaml": "version: 1\ninsertion_orders: [{ id: '1' }]\n" }),
    );
    expect(state.insertionOrders.map((io) => io.id)).toEqual(["1"]);
    expect(state.files.map((f) => f.path)).toEqual(["conf.d/a.yaml"]);
  });

  it("reads a linked file once, not as a second declaration of everything in it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-links-"));
    writeFileSync(join(dir, "a.yaml"), "version: 1\ninsertion_orders: [{ id: '1' }]\n");
    symlinkSync("a.yaml", join(dir, "b.yaml"));
    const state = await loadConfig([dir], { cwd: dir });
    expect(state.insertionOrders.map((io) => io.id)).toEqual(["1"]);
    expect(state.files.map((f) => f.path)).toEqual(["a.yaml"]);
  });

  it("skips hidden files and subdirectories that editors and systems leave in a config directory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-hidden-"));
    writeFileSync(join(dir, "a.yaml"), "version: 1\ninsertion_orders: [{ id: '1' }]\n");
    writeFileSync(join(dir, ".a.yaml"), "version: 1\ninsertion_orders: [{ id: '1' }]\n");
    writeFileSync(join(dir, "._a.yaml"), new Uint8Array([0xb0, 0x00]));
    symlinkSync("nowhere", join(dir, ".#a.yaml"));
    mkdirSync(join(dir, "old"));
    writeFileSync(join(dir, "old", "a.yaml"), "version: 1\ninsertion_orders: [{ id: '2' }]\n");
    const state = await loadConfig([dir], { cwd: dir });
    expect(state.files.map((f) => f.path)).toEqual(["a.yaml"]);
  });

  it("reports a directory with no YAML where it was named among the paths", async () => {
    const issues = await issuesOf(
      { "a.yaml": "version: 1\ninsertion_orders:\n  - id: '1'\n    colour: red\n" },
      ["a.yaml", "./conf.d/"],
    );
    expect(issues.map((i) => `${i.file} ${i.code}`)).toEqual(["a.yaml UNKNOWN_KEY", "conf.d NO_YAML_FILES"]);
  });

  it("reports every error of a run together, in file order", async () => {
    const issues = await issuesOf(
      {
        "a.yaml": "version: 1\ninsertion_orders:\n  - id: '1'\n    budget_money: 5\n    colour: red\n",
        "b.yaml": "version: 1\ncreatives:\n  - id: '9'\n    pixel_url: 7\n",
      },
      ["b.yaml", "a.yaml"],
    );
    expect(issues.map((i) => `${i.file}:${i.line} ${i.code}`)).toEqual([
      "b.yaml:4 WRONG_TYPE",
      "a.yaml:4 MONEY_INVALID",
      "a.yaml:5 UNKNOWN_KEY",
    ]);
  });

  it("reports a missing file with what to do", async () => {
    const issues = await issuesOf({}, ["nope.yaml"]);
    expect(issues).toEqual([
      expect.objectContaining({
        file: "nope.yaml",
        code: "FILE_NOT_FOUND",
        message: expect.stringMatching(/no such file/),
      }),
    ]);
  });

  it("reports a file or directory it may not read, with what to do, and reads the rest", async () => {
    const denied = () => Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
    const files = memoryFiles({ "a.yaml": "version: 1\ninsertion_orders: [{ id: '1', colour: red }]\n" });
    const fs = {
      ...files,
      readFile: async (path: string) =>
        path.endsWith("secret.yaml") ? Promise.reject(denied()) : files.readFile(path),
      listDirectory: async (path: string) => (path.endsWith("locked") ? Promise.reject(denied()) : undefined),
    };
    const issues = await loadConfig(["locked", "secret.yaml", "a.yaml"], fs).then(
      () => [],
      (error: ConfigError) => error.issues,
    );
    expect(issues.map((i) => [i.file, i.code, i.message])).toEqual([
      [
        "locked",
        "FILE_UNREADABLE",
        "permission denied: let this user list the directory (chmod u+rx), or name its files",
      ],
      [
        "secret.yaml",
        "FILE_UNREADABLE",
        "permission denied: let this user read the file (chmod u+r), or leave it out",
      ],
      ["a.yaml", "UNKNOWN_KEY", 'unknown key "colour"'],
    ]);
  });

  it("refuses an empty path instead of reading the working directory", async () => {
    const issues = await issuesOf({ "conf.d/a.yaml": "version: 1\n" }, [""]);
    expect(issues.map((i) => [i.file, i.code, i.message])).toEqual([
      ['""', "FILE_NOT_FOUND", "an empty path names no file: name a config file or directory"],
    ]);
  });

  it("reads files and links to files in a directory, and refuses at once, by name, a pipe, a directory or a device", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-kinds-"));
    writeFileSync(join(dir, "a.yaml"), "version: 1\ninsertion_orders: [{ id: '1' }]\n");
    symlinkSync("a.yaml", join(dir, "linked.yaml"));
    mkdirSync(join(dir, "archive"));
    writeFileSync(join(dir, "archive", "old.yaml"), "version: 1\ninsertion_orders: [{ id: '2' }]\n");
    symlinkSync("archive", join(dir, "archive.yaml"));
    mkdirSync(join(dir, "old.yaml"));
    execFileSync("mkfifo", [join(dir, "fifo.yaml")]);
    const issues = await loadConfig([dir], { cwd: dir }).then(
      () => [],
      (error: ConfigError) => error.issues,
    );
    expect(issues.map((i) => [i.file, i.code, i.message.split(",")[0]])).toEqual([
      ["archive.yaml", "FILE_NOT_REGULAR", "is a directory"],
      ["fifo.yaml", "FILE_NOT_REGULAR", "is a named pipe (FIFO)"],
      ["old.yaml", "FILE_NOT_REGULAR", "is a directory"],
    ]);
  });

  it("reports an error inside a reused anchor once, where the anchor is written", async () => {
    const issues = await issuesOf({
      "doohctl.yaml": `version: 1
x-shared: &bad { venue_targeting_option: { venue_targeting_ids: [] } }
insertion_orders:
  - id: '1'
    campaigns:
      - { name: A, targetings: [*bad] }
      - { name: B, targetings: [*bad] }
`,
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ line: 2, code: "EMPTY_LIST" });
  });

  it("shows an integer too large for a double with all its digits where a message quotes it", async () => {
    const issues = await issuesOf({
      "doohctl.yaml": "version: 99999999999999999999\nconnection:\n  environment: 1152921504606846977\n",
    });
    expect(issues.map((i) => `${i.line}:${i.column} ${i.code} ${i.message}`)).toEqual([
      "1:10 INVALID_VALUE must be 1, found 99999999999999999999: this doohctl reads configuration version 1",
      "3:16 INVALID_VALUE 1152921504606846977 is not one of: production, staging",
    ]);
  });

  it("never echoes a password's value", async () => {
    const issues = await issuesOf({
      "doohctl.yaml":
        "version: 1\nconnection:\n  api_origin: https://dsp.example.com\n  password: s3cr3t-value\n",
    });
    expect(issues.map((i) => i.code)).toEqual(["PASSWORD_IN_CONFIG"]);
    expect(JSON.stringify(issues)).not.toContain("s3cr3t-value");
  });

  it("accepts a UTF-8 byte order mark", async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("version: 1\n")]);
    const state = await loadConfig([], memoryFiles({ "doohctl.yaml": bytes }));
    expect(state.insertionOrders).toEqual([]);
  });

  it("refuses a campaign name declared twice within one insertion order, but not in two", async () => {
    const twoOrders = `version: 1\ninsertion_orders:\n  - id: '1'\n    campaigns: [{ name: A }]\n  - id: '2'\n    campaigns: [{ name: A }]\n`;
    await expect(loadConfig([], memoryFiles({ "doohctl.yaml": twoOrders }))).resolves.toBeDefined();
    const issues = await issuesOf({
      "doohctl.yaml":
        "version: 1\ninsertion_orders:\n  - id: '1'\n    campaigns: [{ name: A }, { name: A }]\n",
    });
    expect(issues).toEqual([
      expect.objectContaining({
        code: "DUPLICATE_DECLARATION",
        path: "insertion_orders[0].campaigns[1].name",
        column: 38,
      }),
    ]);
  });
});
