/**
 * Accounts across the wire: three accounts against three emulators, each behind an
 * intercepting proxy that records every login. Each account's credentials go to its own
 * origin and nowhere else, even with DOOHCTL_API_ORIGIN, DOOHCTL_EMAIL and DOOHCTL_PASSWORD
 * set to a fourth DSP (docs/safety.md, Credentials).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { accountEnv, accountVariables, writeAccount } from "../helpers/accounts-repo.js";
import { seedCampaign } from "../helpers/builders.js";
import { type CliAccountOptions, MALLS_RAISED, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { type InterceptingProxy, interceptingProxy, readBody } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";

const NAMES = ["north", "south", "west"] as const;
/** Each account's own API user: the apply tests' user, with a name and password of its own. */
const userOf = (name: string) => ({
  ...USER,
  email: `${name}@doohctl.test`,
  password: `${USER.password}-${name}`,
});

interface Login {
  body: string;
}

let root: string;
let env: Record<string, string>;
let trap: RunningEmulator;
const dsps = new Map<string, { emulator: RunningEmulator; proxy: InterceptingProxy; logins: Login[] }>();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "doohctl-accounts-wire-"));
  // The generic variables name a fourth DSP: no account may send anything there.
  trap = await accountEmulator([userOf("trap")], [seedCampaign("5001", "1001", "Malls", { active: true })]);
  env = {
    HOME: root,
    XDG_RUNTIME_DIR: join(root, "run"),
    DOOHCTL_API_ORIGIN: trap.origin,
    DOOHCTL_EMAIL: userOf("trap").email,
    DOOHCTL_PASSWORD: userOf("trap").password,
  };
  for (const name of NAMES) {
    const emulator = await accountEmulator(
      [userOf(name)],
      [seedCampaign("5001", "1001", "Malls", { active: true })],
    );
    const logins: Login[] = [];
    const proxy = await interceptingProxy(emulator.origin, {
      onRequest: (request, response, forward) => {
        void (async () => {
          const body = await readBody(request);
          if (request.method === "POST" && request.url === "/api/session")
            logins.push({ body: body.toString() });
          const answer = await forward(body);
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        })();
      },
    });
    dsps.set(name, { emulator, proxy, logins });
    writeAccount(root, name, MALLS_RAISED);
    Object.assign(env, accountEnv(name, proxy.origin, userOf(name)));
  }
});

afterAll(async () => {
  for (const { emulator, proxy } of dsps.values()) {
    await proxy.close();
    await emulator.close();
  }
  await trap.close();
});

const requestsEverywhere = () =>
  [...dsps.values()].reduce((n, d) => n + d.emulator.requestLog().length, trap.requestLog().length);

describe("three accounts, three DSPs", () => {
  it("each account logs in to its own origin only, with its own credentials, and its plan names it", async () => {
    for (const name of NAMES) {
      const io = bufferIO({ env, cwd: root });
      const code = await run(
        ["plan", `accounts/${name}`, "-o", `plan-${name}.json`, "--detailed-exitcode"],
        io,
      );
      expect(code, io.err()).toBe(2);
      expect(io.out()).toContain("budget_impressions");
      const saved = JSON.parse(readFileSync(join(root, `plan-${name}.json`), "utf8")) as {
        account?: string;
        connection: { api_origin: string; user?: string };
      };
      expect(saved.account).toBe(name);
      expect(saved.connection).toMatchObject({
        api_origin: dsps.get(name)!.proxy.origin,
        user: userOf(name).email,
      });
      expect(JSON.stringify(saved)).not.toContain(userOf(name).password);
    }
    for (const name of NAMES) {
      const { logins } = dsps.get(name)!;
      expect(logins.length).toBeGreaterThan(0);
      for (const login of logins) {
        expect(login.body).toContain(userOf(name).email);
        expect(login.body).toContain(userOf(name).password);
        for (const other of [...NAMES.filter((n) => n !== name), "trap"]) {
          expect(login.body).not.toContain(userOf(other).password);
        }
      }
    }
    expect(trap.requestLog()).toEqual([]);
  });

  it("the GitHub matrix doohctl accounts prints drives one plan per account, each with its own variables", async () => {
    const listed = bufferIO({ env: {}, cwd: root });
    expect(await run(["accounts", "--format", "github-matrix"], listed), listed.err()).toBe(0);
    const { include } = JSON.parse(listed.out()) as {
      include: {
        account: string;
        path: string;
        api_origin_from: string;
        email_from: string;
        password_from: string;
      }[];
    };
    expect(include.map((e) => e.account)).toEqual([...NAMES]);
    for (const entry of include) {
      // A matrix job sees only its own account's secrets, mapped from the entry's names.
      const own = { HOME: root, XDG_RUNTIME_DIR: join(root, "run"), CI: "true" };
      const io = bufferIO({
        env: {
          ...own,
          [entry.api_origin_from]: env[entry.api_origin_from]!,
          [entry.email_from]: env[entry.email_from]!,
          [entry.password_from]: env[entry.password_from]!,
        },
        cwd: root,
      });
      expect(await run(["plan", entry.path, "-o", `matrix-${entry.account}.json`], io), io.err()).toBe(0);
      expect(JSON.parse(readFileSync(join(root, `matrix-${entry.account}.json`), "utf8")).account).toBe(
        entry.account,
      );
    }
  });

  it("without its own origin variable, an account is refused before any request, in CI and out", async () => {
    const { api_origin_from } = accountVariables("south");
    for (const ci of ["true", ""]) {
      const before = requestsEverywhere();
      const io = bufferIO({ env: { ...env, [api_origin_from]: "", CI: ci }, cwd: root });
      expect(await run(["plan", "accounts/south", "--format", "json"], io)).toBe(1);
      const { errors } = JSON.parse(io.out()) as { errors: { code: string; message: string }[] };
      expect(errors[0]!.code).toBe("CONNECTION_NO_ORIGIN");
      expect(errors[0]!.message).toContain(`${api_origin_from} is not set`);
      expect(requestsEverywhere()).toBe(before);
    }
  });

  it("without its own password variable, an account does not fall back to DOOHCTL_PASSWORD", async () => {
    const { password_from } = accountVariables("west");
    const before = requestsEverywhere();
    const io = bufferIO({ env: { ...env, [password_from]: "" }, cwd: root });
    expect(await run(["plan", "accounts/west", "--format", "json"], io)).toBe(1);
    const { errors } = JSON.parse(io.out()) as { errors: { code: string; message: string }[] };
    expect(errors[0]).toMatchObject({ code: "CREDENTIALS_MISSING" });
    expect(errors[0]!.message).toContain(password_from);
    expect(requestsEverywhere()).toBe(before);
  });

  it("refuses a plan over two accounts' directories before any request", async () => {
    const before = requestsEverywhere();
    const io = bufferIO({ env, cwd: root });
    expect(await run(["plan", "accounts/north", "accounts/south", "--format", "json"], io)).toBe(1);
    const { errors } = JSON.parse(io.out()) as { errors: { code: string }[] };
    // Both declare insertion order 1001 too: that is reported, after the mix.
    expect(errors.map((e) => e.code)).toContain("ACCOUNTS_MIXED");
    expect(requestsEverywhere()).toBe(before);
  });

  it("apply --plan refuses a plan of another account before any request", async () => {
    const io = bufferIO({ env, cwd: root });
    expect(await run(["plan", "accounts/north", "-o", "north.json"], io), io.err()).toBe(0);
    const saved = JSON.parse(readFileSync(join(root, "north.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(root, "north-as-south.json"), JSON.stringify({ ...saved, account: "south" }));
    const { account: _dropped, ...single } = saved;
    writeFileSync(join(root, "north-as-single.json"), JSON.stringify(single));
    for (const [file, said] of [
      ["north-as-south.json", "is a plan of account south, and this config is account north"],
      [
        "north-as-single.json",
        "is a plan of the single account (no connection.account), and this config is account north",
      ],
    ] as const) {
      const before = requestsEverywhere();
      const refused = bufferIO({ env, cwd: root });
      expect(await run(["apply", "--plan", file, "--auto-approve"], refused)).toBe(1);
      expect(refused.err()).toContain(said);
      expect(requestsEverywhere()).toBe(before);
    }
    expect(dsps.get("north")!.emulator.state().campaigns[0]!.budget_impressions).toBe(100_000);
  });
});

/** One advertiser, insertion order 1001 and `campaigns` for `users`; `seed` adds or replaces parts. */
async function accountEmulator(
  users: NonNullable<CliAccountOptions["users"]>,
  campaigns: NonNullable<CliAccountOptions["campaigns"]>,
  seed: CliAccountOptions["seed"] = {},
) {
  return (await startCliAccount({ users, campaigns, seed })).emulator;
}
