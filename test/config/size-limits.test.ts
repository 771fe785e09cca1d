/**
 * Every size limit the docs state (docs/safety.md, Size caps), each one a 2 GB runner holds:
 * a file just over it is refused before it is parsed, naming the file, its size and the limit.
 * The files are written sparse where only their size matters: refused by size, never read.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_PLAN_FILE_BYTES, readPlanFile } from "../../src/cli/plan-file.js";
import { CONFIG_FILE_LIMIT, CONFIG_TOTAL_LIMIT, DIALECT_FILE_LIMIT } from "../../src/config/file-guard.js";
import { ConfigError, type ConfigIssue } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";

const MiB = 1024 * 1024;
const CONFIG = "version: 1\ninsertion_orders: [{ id: '1001' }]\n";

function dir(): string {
  const path = mkdtempSync(join(tmpdir(), "doohctl-limits-"));
  execFileSync("git", ["init", "-q", path]);
  return path;
}

/** A file of exactly `bytes`: `text`, then zero bytes (sparse: it is refused unread). */
function sized(path: string, bytes: number, text = CONFIG): void {
  writeFileSync(path, text);
  truncateSync(path, bytes);
}

async function issuesOf(cwd: string, paths: string[]): Promise<ConfigIssue[]> {
  const error = await loadConfig(paths, { cwd }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return [...(error as ConfigError).issues];
}

describe("the size limits", () => {
  it("are the documented ones", () => {
    expect([
      CONFIG_FILE_LIMIT.bytes,
      CONFIG_TOTAL_LIMIT.bytes,
      DIALECT_FILE_LIMIT.bytes,
      MAX_PLAN_FILE_BYTES,
    ]).toEqual([8 * MiB, 32 * MiB, 64 * 1024, 64 * MiB]);
  });

  it("refuse a config file one byte over 8 MiB, by its size, before it is parsed", async () => {
    const cwd = dir();
    sized(join(cwd, "big.yaml"), CONFIG_FILE_LIMIT.bytes + 1);
    const issues = await issuesOf(cwd, ["big.yaml"]);
    expect(issues.map((i) => [i.file, i.code, i.message])).toEqual([
      [
        "big.yaml",
        "FILE_TOO_LARGE",
        "is 8388609 bytes, over the 8 MiB doohctl reads from one config file: split it into several files in one directory",
      ],
    ]);
  });

  it("refuse config files that add up to one byte over 32 MiB, at the file that passes it", async () => {
    const cwd = dir();
    for (const name of ["a", "b", "c", "d"]) {
      writeFileSync(
        join(cwd, `${name}.yaml`),
        `# ${name}\n`.padEnd(CONFIG_FILE_LIMIT.bytes - 1, "#").concat("\n"),
      );
    }
    writeFileSync(join(cwd, "e.yaml"), "\n");
    const issues = await issuesOf(cwd, ["."]);
    expect(issues.map((i) => [i.file, i.code])).toEqual([["e.yaml", "FILE_TOO_LARGE"]]);
    expect(issues[0]!.message).toBe(
      "with this file the config files read add up to 33554433 bytes, over the 32 MiB doohctl reads from the config files of one run: plan the insertion orders in parts, naming fewer files or directories in each run",
    );
  });

  it("refuse a dialect file one byte over 64 KiB, at connection.dialect", async () => {
    const cwd = dir();
    writeFileSync(
      join(cwd, "doohctl.yaml"),
      `${CONFIG}connection:\n  api_origin: https://dsp.example.com\n  dialect: dialect.yaml\n`,
    );
    sized(join(cwd, "dialect.yaml"), DIALECT_FILE_LIMIT.bytes + 1, "dialect: {}\n");
    const issues = await issuesOf(cwd, []);
    expect(issues.map((i) => `${i.file}:${i.line} ${i.path} ${i.code}`)).toEqual([
      "doohctl.yaml:5 connection.dialect FILE_TOO_LARGE",
    ]);
    expect(issues[0]!.message).toBe(
      "names dialect.yaml, which is 65537 bytes, over the 64 KiB doohctl reads from a dialect file: a dialect file holds `dialect:` and `x-` keys only",
    );
  });

  it("refuse a plan file one byte over 64 MiB, before reading it", () => {
    const path = join(dir(), "plan.json");
    sized(path, MAX_PLAN_FILE_BYTES + 1, "{}");
    expect(() => readPlanFile(path, "plan.json")).toThrow(
      expect.objectContaining({
        code: "PLAN_FILE_TOO_LARGE",
        message:
          "plan.json is 67108865 bytes, over the 64 MiB doohctl reads from a plan file: give the path of a plan file written by doohctl plan -o",
      }),
    );
  });
});
