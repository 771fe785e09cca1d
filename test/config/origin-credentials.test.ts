/**
 * A user name or password written in an API origin is refused, and never echoed: error
 * messages reach terminals, CI logs and bug reports.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { ConnectionError, resolveConnection } from "../../src/config/connection.js";
import { originProblem } from "../../src/config/origin-problem.js";
import { bufferIO } from "../helpers/io.js";

const SECRET = "s3cr3t-Hunter2";
const ADVICE =
  "api_origin must not contain credentials (user:password@): put the user in DOOHCTL_EMAIL and the password in DOOHCTL_PASSWORD";

function configDir(origin: string): string {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-origin-"));
  writeFileSync(
    join(dir, "doohctl.yaml"),
    `version: 1\nconnection:\n  api_origin: "${origin}"\ninsertion_orders:\n  - id: '1'\n    campaigns: [{ name: A }]\n`,
  );
  return dir;
}

describe("an api_origin with credentials", () => {
  it.each([
    `https://ops:${SECRET}@dsp.example.com`,
    `https://${SECRET}@dsp.example.com`,
    `https://ops:${SECRET}@dsp.example.com/api/dsp/v1`,
    `http://ops:${SECRET}@10.0.0.1`,
    `ftp://ops:${SECRET}@dsp.example.com`,
  ])("is refused without echoing them: %s", (origin) => {
    expect(originProblem(origin)).toBe(ADVICE);
  });

  it("is not quoted with its user part even when the text is no URL at all", () => {
    const problem = originProblem(`https://ops:${SECRET}@dsp example.com`) ?? "";
    expect(problem).toContain("is not a URL");
    expect(problem).not.toContain(SECRET);
  });

  it.each([
    `ops:${SECRET}@dsp.example.com`,
    `https://ops:${SECRET.slice(0, 4)}/${SECRET.slice(4)}@dsp.example.com`,
  ])("is not quoted when written without a scheme or with a slash in the password: %s", (origin) => {
    const problem = originProblem(origin) ?? "";
    expect(problem).toMatch(/^"(https:\/\/)?\*\*\*@dsp\.example\.com" is not/);
    expect(problem).not.toContain(SECRET.slice(4));
  });

  it("from DOOHCTL_API_ORIGIN is refused instead of being silently stripped to its origin", () => {
    const env = { DOOHCTL_API_ORIGIN: `https://ops:${SECRET}@dsp.example.com` };
    expect(() => resolveConnection({}, env)).toThrow(ConnectionError);
    expect(() => resolveConnection({}, env)).toThrow(`DOOHCTL_API_ORIGIN: ${ADVICE}`);
  });

  it("in the config fails validate at its line, and the secret appears nowhere in the output", async () => {
    const io = bufferIO({ cwd: configDir(`https://ops:${SECRET}@dsp.example.com`) });
    expect(await run(["validate"], io)).toBe(1);
    expect(io.err()).toBe(`doohctl.yaml:3:15: connection.api_origin: ${ADVICE}\ninvalid: 1 error\n`);
    expect(io.out() + io.err()).not.toContain(SECRET);
  });

  it("in the config fails validate --format json without the secret", async () => {
    const io = bufferIO({ cwd: configDir(`https://ops:${SECRET}@dsp.example.com`) });
    expect(await run(["validate", "--format", "json"], io)).toBe(1);
    expect(io.out()).toContain("must not contain credentials");
    expect(io.out() + io.err()).not.toContain(SECRET);
  });

  it("in the config fails plan before any request, without the secret", async () => {
    const io = bufferIO({
      cwd: configDir(`https://ops:${SECRET}@dsp.example.com`),
      env: { DOOHCTL_EMAIL: "ops@example.com", DOOHCTL_PASSWORD: "pw" },
    });
    expect(await run(["plan"], io)).toBe(1);
    expect(io.err()).toContain("must not contain credentials");
    expect(io.out() + io.err()).not.toContain(SECRET);
  });

  it("in DOOHCTL_API_ORIGIN fails plan without the secret", async () => {
    const io = bufferIO({
      cwd: configDir("https://dsp.example.com"),
      env: {
        DOOHCTL_API_ORIGIN: `https://ops:${SECRET}@dsp.example.com`,
        DOOHCTL_EMAIL: "ops@example.com",
        DOOHCTL_PASSWORD: "pw",
      },
    });
    expect(await run(["plan"], io)).toBe(1);
    expect(io.err()).toContain("must not contain credentials");
    expect(io.out() + io.err()).not.toContain(SECRET);
  });

  it.each([
    ["that is no valid URI", `https://ops:${SECRET}@pixel example.com/p`, "holds white space"],
    [
      "that is valid, since every screen would send it,",
      `https://ops:${SECRET}@pixel.example.com/p`,
      '"https://***@pixel.example.com/p" carries a user name or password',
    ],
  ])("in a creative's pixel_url %s is refused without echoing the user part", async (_, url, expected) => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-pixel-"));
    writeFileSync(
      join(dir, "doohctl.yaml"),
      `version: 1\ncreatives:\n  - id: '9'\n    pixel_url: "${url}"\n`,
    );
    const io = bufferIO({ cwd: dir });
    expect(await run(["validate"], io)).toBe(1);
    expect(io.err()).toContain(expected);
    expect(io.out() + io.err()).not.toContain(SECRET);
  });
});
