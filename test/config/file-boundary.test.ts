/**
 * Files: the machine is the trust boundary. A config directory's entries must be
 * regular files inside the tree; a FIFO, a device or a kernel file is refused at once, by
 * name; no message quotes more than the token at fault, nor anything like a credential.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { FileRefused, findTree, readRegularFileSync } from "../../src/config/file-guard.js";
import { cutQuotes, guardIssue, NOT_SHOWN, withoutCredentials } from "../../src/config/guard-text.js";
import type { ConfigError, ConfigIssue } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";
import { bufferIO } from "../helpers/io.js";
import { spawnCli } from "../proof/binary.js";

const SECRET = "Hunter2-s3cret-Pa55";
const CONFIG = "version: 1\ninsertion_orders: [{ id: '1' }]\n";

function tree(prefix = "doohctl-boundary-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(dir, "campaigns"));
  writeFileSync(join(dir, "campaigns", "a.yaml"), CONFIG);
  return dir;
}

async function issuesOf(paths: string[], cwd: string): Promise<readonly ConfigIssue[]> {
  return loadConfig(paths, { cwd }).then(
    () => [],
    (error: ConfigError) => error.issues,
  );
}

describe("a link beside the config to /proc/self/environ (finding 1)", () => {
  // /proc/self/environ is the environment the process started with: only a spawned doohctl
  // holds DOOHCTL_PASSWORD there.
  it.each([
    ["validate", "campaigns/", "--format", "json"],
    ["plan", "campaigns/", "--format", "json"],
  ])("is refused by name, and %s never prints the password", async (...args) => {
    const dir = tree();
    symlinkSync("/proc/self/environ", join(dir, "campaigns", "zz-notes.yaml"));
    const child = spawnCli(args, {
      cwd: dir,
      env: { DOOHCTL_EMAIL: "ops@example.com", DOOHCTL_PASSWORD: SECRET, HOME: dir },
    });
    expect(await child.exited).toBe(1);
    const output = child.stdout() + child.stderr();
    expect(output).not.toContain(SECRET);
    expect(output).not.toContain("DOOHCTL_EMAIL");
    expect(output).toContain("campaigns/zz-notes.yaml");
    expect(output).toContain("FILE_OUTSIDE_TREE");
  });

  it("named on the command line, is refused as a kernel file, without reading it", async () => {
    const dir = tree();
    const child = spawnCli(["validate", "/proc/self/environ"], {
      cwd: dir,
      env: { DOOHCTL_PASSWORD: SECRET, HOME: dir },
    });
    expect(await child.exited).toBe(1);
    expect(child.stderr()).toContain("/proc/self/environ: resolves to /proc/");
    expect(child.stderr()).toContain("a kernel file, not a regular file: nothing was read from it");
    expect(child.stdout() + child.stderr()).not.toContain(SECRET);
  });
});

describe("what a config message quotes", () => {
  it("never the password of this run, even from a file inside the tree that holds it", async () => {
    const dir = tree();
    writeFileSync(join(dir, "campaigns", "b.yaml"), `${SECRET}\n`);
    writeFileSync(join(dir, "campaigns", "c.yaml"), `version: 1\ncreatives: [{ id: "${SECRET}x y" }]\n`);
    const io = bufferIO({ cwd: dir, env: { DOOHCTL_PASSWORD: SECRET } });
    expect(await run(["validate", "campaigns", "--format", "json"], io)).toBe(1);
    expect(io.out()).toContain("campaigns/b.yaml");
    expect(io.out()).toContain("[redacted]");
    expect(io.out() + io.err()).not.toContain(SECRET);
  });

  it("never the password pasted as a key: the issue's path is guarded like its message", async () => {
    const dir = tree();
    writeFileSync(join(dir, "campaigns", "b.yaml"), `version: 1\nconnection:\n  ${SECRET}: 1\n`);
    for (const format of ["json", "text"]) {
      const io = bufferIO({ cwd: dir, env: { DOOHCTL_PASSWORD: SECRET } });
      expect(await run(["validate", "campaigns", "--format", format], io)).toBe(1);
      expect(io.out() + io.err()).toContain("connection.[redacted]");
      expect(io.out() + io.err()).not.toContain(SECRET);
    }
  });

  it("no part of the password where a long token is cut: the password goes first", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 8, maxLength: 40 }).filter((p) => p.trim().length >= 8 && !/["\\§¤]/.test(p)),
        fc.nat({ max: 120 }),
        async (password, offset) => {
          const dir = tree("doohctl-cut-");
          const before = "§".repeat(offset);
          writeFileSync(
            join(dir, "campaigns", "b.yaml"),
            JSON.stringify(`${before}${password}${"¤".repeat(200)}`),
          );
          const io = bufferIO({ cwd: dir, env: { DOOHCTL_PASSWORD: password } });
          expect(await run(["validate", "campaigns", "--format", "json"], io)).toBe(1);
          const shown = (JSON.parse(io.out()) as ConfigIssue[]).map((i) => i.message).join("\n");
          // Neither the password nor any 8 characters of it.
          for (let i = 0; i + 8 <= password.length; i++)
            expect(shown).not.toContain(password.slice(i, i + 8));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("nothing that looks like a credential: NAME=value of a secret, keys, tokens, user:password@", () => {
    for (const text of [
      `found the string "DOOHCTL_PASSWORD=${SECRET}\u0000HOME=/root"`,
      `found "api_key: ${SECRET}"`,
      `found "-----BEGIN RSA PRIVATE KEY-----\nMIIE${SECRET}"`,
      `found "Bearer ${SECRET}"`,
      `found "ghp_${"a1B2".repeat(8)}"`,
      `found "${"a1B2c3D4".repeat(4)}"`,
      `found "https://ops:${SECRET}@dsp.example.com"`,
    ]) {
      const guarded = withoutCredentials(text);
      expect(guarded, text).toContain(NOT_SHOWN);
      expect(guarded, text).not.toContain(SECRET);
      expect(guarded, text).not.toContain("a1B2a1B2");
    }
    // Ordinary messages are left as they are.
    for (const text of [
      'unknown key "colour"',
      '"12,50 USD" is not money: write "12.50 USD"',
      'expected a map (key: value), found the string "hello"',
      'missing required key "version"',
      '"https://***@dsp.example.com" is not a valid uri',
      'campaign "Q4HolidayCampaignMalls2026Edition" is declared twice',
      'campaign "Q4-2026-Holiday-Campaign-Malls-Airports" is declared twice',
      `"${"ab12".repeat(16)}" is not money`,
    ]) {
      expect(withoutCredentials(text)).toBe(text);
    }
  });

  it("a long token only up to its start, saying how long it was", () => {
    const long = "x".repeat(5_000);
    expect(cutQuotes(`found the string "${long}"`)).toBe(
      `found the string "${"x".repeat(48)}…" (5000 characters)`,
    );
    const issue = guardIssue({
      file: "a.yaml",
      line: 1,
      column: 1,
      path: "",
      message: `found the string "${long} and more"`,
      hint: `write "${long}"`,
      code: "WRONG_TYPE",
    });
    expect(issue.message.length).toBeLessThan(120);
    expect(issue.hint!.length).toBeLessThan(120);
  });

  it("is guarded in every ConfigError, whatever stage wrote the issue", async () => {
    const dir = tree();
    writeFileSync(join(dir, "campaigns", "b.yaml"), `SESSION_TOKEN=${SECRET} and ${"y".repeat(400)}\n`);
    const issues = await issuesOf(["campaigns"], dir);
    const b = issues.find((i) => i.file === "campaigns/b.yaml");
    expect(b?.message).toMatch(
      /^expected a map \(key: value\), found the string "SESSION_TOKEN=\[credential not shown\]/,
    );
    expect(b?.message).toMatch(/\(\d+ characters\)$/);
    expect(JSON.stringify(issues)).not.toContain(SECRET);
  });
});

describe("the files a config directory holds", () => {
  it("refuses a link to a file outside the tree, by name, and reads links inside it", async () => {
    const dir = tree();
    const outside = mkdtempSync(join(tmpdir(), "doohctl-outside-"));
    writeFileSync(join(outside, "other.yaml"), "version: 1\ninsertion_orders: [{ id: '2' }]\n");
    writeFileSync(join(dir, "shared.yaml"), "version: 1\ninsertion_orders: [{ id: '3' }]\n");
    symlinkSync(join(outside, "other.yaml"), join(dir, "campaigns", "b.yaml"));
    symlinkSync("../shared.yaml", join(dir, "campaigns", "c.yaml"));
    const issues = await issuesOf(["campaigns"], dir);
    expect(issues.map((i) => [i.file, i.code])).toEqual([["campaigns/b.yaml", "FILE_OUTSIDE_TREE"]]);
    expect(issues[0]!.message).toContain("nothing was read from it");
    // Named on the command line, a file outside the tree is the user's choice.
    const state = await loadConfig([join(outside, "other.yaml"), "campaigns/a.yaml", "campaigns/c.yaml"], {
      cwd: dir,
    });
    expect(state.insertionOrders.map((io) => io.id)).toEqual(["2", "1", "3"]);
  });

  it("takes the git work tree holding the working directory as the tree", async () => {
    const repo = mkdtempSync(join(tmpdir(), "doohctl-repo-"));
    execFileSync("git", ["init", "-q", repo]);
    mkdirSync(join(repo, "team", "campaigns"), { recursive: true });
    writeFileSync(join(repo, "shared.yaml"), CONFIG);
    symlinkSync("../../shared.yaml", join(repo, "team", "campaigns", "a.yaml"));
    expect(await findTree(join(repo, "team"))).toBe(repo);
    const state = await loadConfig(["campaigns"], { cwd: join(repo, "team") });
    // A saved plan names the file relative to the tree (its target: the file read).
    expect(state.files.map((f) => f.path)).toEqual(["shared.yaml"]);
    expect(await findTree(tmpdir())).not.toBe(repo);
  });

  it("refuses a FIFO, a device or a socket named on the command line at once, without waiting", async () => {
    const dir = tree();
    execFileSync("mkfifo", [join(dir, "fifo.yaml")]);
    const server = createServer().listen(join(dir, "socket.yaml"));
    await new Promise((done) => server.once("listening", done));
    const started = Date.now();
    const issues = await issuesOf(["fifo.yaml", "/dev/zero", "socket.yaml", "campaigns"], dir);
    server.close();
    expect(issues.map((i) => [i.file, i.code, i.message.split(",")[0]])).toEqual([
      ["fifo.yaml", "FILE_NOT_REGULAR", "is a named pipe (FIFO)"],
      ["/dev/zero", "FILE_NOT_REGULAR", "is a device"],
      ["socket.yaml", "FILE_NOT_REGULAR", "is a socket"],
    ]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("the size cap", () => {
  it("refuses a file over the limit before reading it, naming its size, the limit and what to do", async () => {
    const dir = tree();
    const path = join(dir, "big.yaml");
    writeFileSync(path, "x".repeat(3 * 1024 * 1024 + 5));
    const limit = (bytes: number) => ({ bytes, of: "one config file", advice: "split it" });
    let refusal: unknown;
    try {
      readRegularFileSync(path, limit(3 * 1024 * 1024));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(FileRefused);
    expect((refusal as FileRefused).code).toBe("FILE_TOO_LARGE");
    expect(() => readRegularFileSync(path, limit(1024))).toThrow(
      "is 3145733 bytes, over the 1 KiB doohctl reads from one config file: split it",
    );
    expect(readRegularFileSync(path, limit(4 * 1024 * 1024)).length).toBe(3 * 1024 * 1024 + 5);
  });
});
