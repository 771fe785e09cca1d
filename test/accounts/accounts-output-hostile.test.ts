/**
 * `doohctl accounts` output for directory names a pull request may choose (docs/safety.md,
 * Several accounts in one repository): a path the CI passes as an argument never reads as an
 * option, and the GitLab document stays YAML that any parser (GitLab's is YAML 1.1) reads
 * back to the same path: characters outside YAML's printable set are escaped.
 */
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { run } from "../../src/cli/program.js";
import { writeAccount } from "../helpers/accounts-repo.js";
import { bufferIO } from "../helpers/io.js";

async function cli(cwd: string, args: string[]) {
  const io = bufferIO({ cwd });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** YAML 1.1 and 1.2 c-printable: tab, line feed, carriage return, and the ranges below. */
const NOT_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

describe("doohctl accounts with hostile directory names", () => {
  it("a directory named like an option is listed as ./NAME, which the CLI reads as a path", async () => {
    const root = mkdtempSync(join(tmpdir(), "doohctl-accounts-hostile-"));
    writeAccount(root, "dash", [], { dir: "-oevil.json" });
    const listed = await cli(root, ["accounts", "--format", "json"]);
    expect(listed.code, listed.err).toBe(0);
    const [entry] = JSON.parse(listed.out).accounts;
    expect(entry.path).toBe("./-oevil.json");
    const validated = await cli(root, ["validate", entry.path]);
    expect(validated.code, validated.err).toBe(0);
    const gitlab = parse((await cli(root, ["accounts", "--format", "gitlab"])).out);
    expect(gitlab[".doohctl-accounts"].parallel.matrix[0].DOOHCTL_ACCOUNT_PATH).toBe("./-oevil.json");
  });

  it.each([
    ["DEL", "x\x7fy"],
    ["a C1 control", "x\x9by"],
    ["a line separator", "x\u2028y"],
    ["a byte order mark", "x\ufeffy"],
  ])(
    "%s in a directory name: the GitLab document escapes it and reads back the same path",
    async (_, name) => {
      const root = mkdtempSync(join(tmpdir(), "doohctl-accounts-hostile-"));
      writeAccount(root, "odd", [], { dir: name });
      const gitlab = await cli(root, ["accounts", "--format", "gitlab"]);
      expect(gitlab.code, gitlab.err).toBe(0);
      expect(gitlab.out).not.toMatch(NOT_PRINTABLE);
      expect(gitlab.out).not.toContain("\u2028");
      expect(parse(gitlab.out)[".doohctl-accounts"].parallel.matrix[0].DOOHCTL_ACCOUNT_PATH).toBe(name);
    },
  );

  it("one directory named through a link among PATHS is one account, not a duplicate", async () => {
    const root = mkdtempSync(join(tmpdir(), "doohctl-accounts-hostile-"));
    writeAccount(root, "north");
    symlinkSync("accounts", join(root, "accounts-link"));
    const listed = await cli(root, ["accounts", "accounts", "accounts-link", "--format", "json"]);
    expect(listed.code, listed.out + listed.err).toBe(0);
    expect(JSON.parse(listed.out).accounts.map((a: { path: string }) => a.path)).toEqual(["accounts/north"]);
  });
});
