/**
 * A command's connection, resolved once (ARCHITECTURE.md, Connecting): the places and limits
 * come from the config and the environment in one value, which holds no secret.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { StateDirError } from "../../src/api/private-files.js";
import { connectionOf } from "../../src/cli/connection.js";
import { bufferIO } from "../helpers/io.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function home(): string {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-connection-"));
  dirs.push(dir);
  return dir;
}

const SECRET = "pw-never-held-4711";
const settings = { apiOrigin: "https://dsp.example.com" };

describe("connectionOf", () => {
  it("resolves every place and limit in one frozen value that holds no password", () => {
    const dir = home();
    const io = bufferIO({
      cwd: dir,
      env: {
        HOME: dir,
        DOOHCTL_EMAIL: "api@example.com",
        DOOHCTL_PASSWORD: SECRET,
        DOOHCTL_STATE_DIR: join(dir, "state"),
        XDG_RUNTIME_DIR: join(dir, "run"),
        DOOHCTL_REQUEST_TIMEOUT: "1.5",
      },
    });
    const connection = connectionOf(io, settings, { sessionCache: true, maxWaitMs: 5_000, state: true });
    expect(connection).toMatchObject({
      apiOrigin: "https://dsp.example.com",
      environment: "production",
      credentials: { email: "DOOHCTL_EMAIL", password: "DOOHCTL_PASSWORD" },
      user: "api@example.com",
      cacheDir: join(dir, ".cache", "doohctl"),
      stateDir: join(dir, "state"),
      lockDir: join(dir, "run", "doohctl"),
      limits: { timeouts: { requestMs: 1_500 }, retry: { maxWaitMs: 5_000 } },
    });
    expect(Object.isFrozen(connection)).toBe(true);
    expect(JSON.stringify(connection)).not.toContain(SECRET);
  });

  it("looks at the state directory only for a command that reads the record", () => {
    const dir = home();
    const env = {
      HOME: dir,
      DOOHCTL_EMAIL: "api@example.com",
      DOOHCTL_PASSWORD: SECRET,
      DOOHCTL_STATE_DIR: "relative/state",
      DOOHCTL_SESSION_CACHE: "off",
    };
    const io = bufferIO({ cwd: dir, env });
    const forExport = connectionOf(io, settings, { sessionCache: true });
    expect(forExport.stateDir).toBeUndefined();
    expect(forExport.cacheDir).toBeUndefined();
    expect(() => connectionOf(io, settings, { sessionCache: true, state: true })).toThrow(StateDirError);
  });

  it("names the missing variables of an account before anything else is looked at", () => {
    const io = bufferIO({ env: { DOOHCTL_STATE_DIR: "relative", EMEA_ORIGIN: "https://dsp.example.com" } });
    const account = {
      name: "emea",
      apiOriginFrom: "EMEA_ORIGIN",
      emailFrom: "EMEA_EMAIL",
      passwordFrom: "EMEA_PW",
    };
    expect(() => connectionOf(io, { account }, { sessionCache: false, state: true })).toThrow(
      "account emea: EMEA_EMAIL and EMEA_PW are not set",
    );
  });
});
