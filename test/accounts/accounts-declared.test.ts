/**
 * An account is an account however its YAML spells `connection.account` (docs/safety.md,
 * Several accounts in one repository): flow style, quoted or escaped keys. `doohctl accounts`
 * lists it, so its CI job exists, and a file of its directory named without the file that
 * declares it is refused (ACCOUNTS_MIXED), never run with DOOHCTL_EMAIL and DOOHCTL_PASSWORD
 * against DOOHCTL_API_ORIGIN.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { bufferIO } from "../helpers/io.js";

const VARIABLES =
  "api_origin_from: DOOHCTL_NORTH_API_ORIGIN, email_from: DOOHCTL_NORTH_EMAIL, password_from: DOOHCTL_NORTH_PASSWORD";

const SPELLINGS: [string, string][] = [
  ["flow style on one line", `connection: { account: north, ${VARIABLES} }`],
  ["a JSON document", `{"version": 1, "connection": {"account": "north", ${jsonVariables()}}}`],
  ["an escaped key", `connection: { "\\x61ccount": north, ${VARIABLES} }`],
  ["a key folded over an escaped line break", `connection: { "acc\\\n  ount": north, ${VARIABLES} }`],
];

function jsonVariables(): string {
  return VARIABLES.split(", ")
    .map((pair) =>
      pair
        .split(": ")
        .map((s) => JSON.stringify(s))
        .join(": "),
    )
    .join(", ");
}

function repo(declaration: string): string {
  const root = mkdtempSync(join(tmpdir(), "doohctl-accounts-declared-"));
  const dir = join(root, "accounts", "north");
  mkdirSync(dir, { recursive: true });
  const text = declaration.startsWith("{") ? declaration : `version: 1\n${declaration}\n`;
  writeFileSync(join(dir, "doohctl.yaml"), text);
  writeFileSync(join(dir, "campaigns.yaml"), "version: 1\ninsertion_orders: []\n");
  return root;
}

async function cli(root: string, args: string[], env: Record<string, string> = {}) {
  const io = bufferIO({ cwd: root, env });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe("connection.account however it is spelled", () => {
  it.each(SPELLINGS)("%s: doohctl accounts lists it", async (_, declaration) => {
    const root = repo(declaration);
    const listed = await cli(root, ["accounts", "--format", "json"]);
    expect(listed.code, listed.err).toBe(0);
    expect(JSON.parse(listed.out).accounts).toEqual([
      {
        account: "north",
        path: "accounts/north",
        environment: "production",
        api_origin_from: "DOOHCTL_NORTH_API_ORIGIN",
        email_from: "DOOHCTL_NORTH_EMAIL",
        password_from: "DOOHCTL_NORTH_PASSWORD",
      },
    ]);
  });

  it.each(SPELLINGS)(
    "%s: a file of its directory alone is refused before any request",
    async (_, declaration) => {
      const root = repo(declaration);
      // The generic variables point at a port nothing listens on: a login attempt would say so.
      const env = {
        DOOHCTL_API_ORIGIN: "http://127.0.0.1:9",
        DOOHCTL_EMAIL: "generic@doohctl.test",
        DOOHCTL_PASSWORD: "generic-password-secret",
      };
      const planned = await cli(root, ["plan", "accounts/north/campaigns.yaml"], env);
      expect(planned.code).toBe(1);
      expect(planned.err).toContain("belongs to account north");
      expect(planned.err).not.toContain("/api/session");
    },
  );

  it.each([
    ["an account name out of form", "account: North_Bad", "DOOHCTL_NORTH_PASSWORD"],
    ["variables of two stems", "account: north", "DOOHCTL_SOUTH_PASSWORD"],
  ])(
    "%s in the declaring file: a file of its directory alone is refused, not run as the single account",
    async (_, account, password) => {
      const root = repo(
        [
          "connection:",
          `  ${account}`,
          "  api_origin_from: DOOHCTL_NORTH_API_ORIGIN",
          "  email_from: DOOHCTL_NORTH_EMAIL",
          `  password_from: ${password}`,
        ].join("\n"),
      );
      const env = {
        DOOHCTL_API_ORIGIN: "http://127.0.0.1:9",
        DOOHCTL_EMAIL: "generic@doohctl.test",
        DOOHCTL_PASSWORD: "generic-password-secret",
      };
      const planned = await cli(root, ["plan", "accounts/north/campaigns.yaml"], env);
      expect(planned.code).toBe(1);
      expect(planned.err).toContain("accounts/north/doohctl.yaml");
      expect(planned.err).toContain("doohctl validate accounts/north");
      expect(planned.err).not.toContain("/api/session");
    },
  );
});
