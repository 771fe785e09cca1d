/**
 * No error prints a password variable's value (docs/safety.md, Credentials), not only config
 * errors: a CI variable wired to the wrong secret (the password in the origin variable) made
 * the connection error quote it, and the pull-request workflow posts errors as a comment,
 * where the runner's log masking does not apply.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { accountEnv, writeAccount } from "../helpers/accounts-repo.js";
import { bufferIO } from "../helpers/io.js";

const PASSWORD = "Tr0ub4dor-and-3";

async function cli(cwd: string, args: string[], env: Record<string, string>) {
  const io = bufferIO({ cwd, env });
  const code = await run(args, io);
  return { code, all: io.out() + io.err() };
}

describe("a password in another variable's error", () => {
  it.each(["text", "json"])(
    "an account's origin variable holding its password: not shown (%s)",
    async (format) => {
      const root = mkdtempSync(join(tmpdir(), "doohctl-error-secrets-"));
      writeAccount(root, "north");
      const env = {
        ...accountEnv("north", "https://dsp.example.com", {
          email: "north@doohctl.test",
          password: PASSWORD,
        }),
        DOOHCTL_NORTH_API_ORIGIN: PASSWORD,
      };
      const planned = await cli(root, ["plan", "accounts/north", "--format", format], env);
      expect(planned.code).toBe(1);
      expect(planned.all).toContain("DOOHCTL_NORTH_API_ORIGIN");
      expect(planned.all).not.toContain(PASSWORD);
      expect(planned.all).toContain("[redacted]");
    },
  );

  it("DOOHCTL_API_ORIGIN holding DOOHCTL_PASSWORD (URL-encoded too): not shown", async () => {
    const root = mkdtempSync(join(tmpdir(), "doohctl-error-secrets-"));
    mkdirSync(join(root, "config"));
    writeFileSync(join(root, "config", "doohctl.yaml"), "version: 1\ninsertion_orders: []\n");
    const password = "p@ss w/ord";
    const env = {
      DOOHCTL_API_ORIGIN: `https://dsp.example.com/${encodeURIComponent(password)}`,
      DOOHCTL_EMAIL: "a@b.test",
      DOOHCTL_PASSWORD: password,
    };
    const planned = await cli(root, ["plan", "config"], env);
    expect(planned.code).toBe(1);
    expect(planned.all).not.toContain(encodeURIComponent(password));
    expect(planned.all).not.toContain(password);
  });
});
