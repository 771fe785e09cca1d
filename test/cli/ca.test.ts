import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { bufferIO } from "../helpers/io.js";

const dir = mkdtempSync(join(tmpdir(), "doohctl-ca-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(
  join(dir, "doohctl.yaml"),
  'version: 1\ninsertion_orders:\n  - id: "1001"\n    budget_impressions: 1000\n',
);
writeFileSync(join(dir, "not-a-cert.pem"), "hello\n");

const env = {
  DOOHCTL_EMAIL: "ops@example.com",
  DOOHCTL_PASSWORD: "s3cret-never-shown",
  // Unroutable on purpose: the CA is checked before any connection is made.
  DOOHCTL_API_ORIGIN: "https://dsp.invalid",
  DOOHCTL_SESSION_CACHE: "off",
};

describe("--ca", () => {
  for (const command of ["plan", "apply"]) {
    it(`${command} refuses an unreadable CA file before any request, naming the file`, async () => {
      const io = bufferIO({ env, cwd: dir });
      const args = command === "apply" ? [command, "--auto-approve"] : [command];
      expect(await run([...args, "--ca", "missing.pem"], io)).toBe(1);
      expect(io.err()).toMatch(/--ca missing\.pem: cannot read it \(ENOENT\)/);
      expect(io.out()).toBe("");
      expect(io.err()).not.toContain("s3cret-never-shown");
    });
  }

  it("refuses a pipe or a device at once, instead of waiting on it", async () => {
    execFileSync("mkfifo", [join(dir, "ca.pem")]);
    for (const [path, kind] of [
      ["ca.pem", "a named pipe (FIFO)"],
      ["/dev/zero", "a device"],
    ]) {
      const io = bufferIO({ env, cwd: dir });
      expect(await run(["plan", "--ca", path!], io)).toBe(1);
      expect(io.err()).toContain(`--ca ${path}: cannot read it (is ${kind}, not a regular file`);
    }
  });

  it("refuses a file that is not a PEM certificate", async () => {
    const io = bufferIO({ env, cwd: dir });
    expect(await run(["plan", "--ca", "not-a-cert.pem"], io)).toBe(1);
    expect(io.err()).toMatch(/not a PEM certificate/);
  });
});
