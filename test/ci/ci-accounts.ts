/**
 * The DSP accounts the fan-out replays run against (GitHub and GitLab alike): one emulator per
 * account, seeded as ci-account.ts seeds the single account but with that account's own write
 * and plan users (USER and READER made the account's own by its name), so that a credential
 * that reached another account's emulator is refused there; and each account's config file.
 */
import { parse } from "yaml";
import type { RunningEmulator } from "../../src/emulator/index.js";

import { seedCampaign } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { READER, USER } from "../helpers/users.js";
import { CAMPAIGNS, campaignsConfig } from "./ci-account.js";

/** `northwind-eu` -> `DOOHCTL_NORTHWIND_EU`: the prefix of the account's variable names. */
export const prefixOf = (account: string) => `DOOHCTL_${account.toUpperCase().replaceAll("-", "_")}`;

/** A user of the shared test users made the account's own: another email, another password. */
export function userOf<T extends { email: string; password: string }>(account: string, user: T): T {
  return { ...user, email: `${account}.${user.email}`, password: `${user.password}-${account}` };
}

/** accounts/<account>/doohctl.yaml: the CI account's campaigns, with the account's connection names. */
export function accountFile(account: string, origin: string, budgets: Record<string, number>): string {
  const prefix = prefixOf(account);
  return campaignsConfig(origin, budgets).replace(
    "connection:\n",
    [
      "connection:",
      `  account: ${account}`,
      "  environment: production",
      `  api_origin_from: ${prefix}_API_ORIGIN`,
      `  email_from: ${prefix}_EMAIL`,
      `  password_from: ${prefix}_PASSWORD`,
      "",
    ].join("\n"),
  );
}

export async function startAccountEmulators(accounts: string[]): Promise<Record<string, RunningEmulator>> {
  const emulators: Record<string, RunningEmulator> = {};
  for (const account of accounts)
    emulators[account] = (
      await startCliAccount({
        users: [userOf(account, USER), userOf(account, READER)],
        campaigns: CAMPAIGNS.map((name, i) => seedCampaign(String(5001 + i), "1001", name, { active: true })),
      })
    ).emulator;
  return emulators;
}

/** Sessions of a user of another account, in any account's emulator: none may exist. */
export function foreignLogins(emulators: Record<string, RunningEmulator>): string[] {
  const found: string[] = [];
  for (const [account, emulator] of Object.entries(emulators)) {
    const own = [userOf(account, USER).email, userOf(account, READER).email];
    for (const entry of emulator.requestLog())
      if (entry.user && !own.includes(entry.user)) found.push(`${account}: ${entry.user}`);
  }
  return found;
}

/** The accounts whose emulator refused a login (wrong credentials reached it). */
export function refusedLogins(emulators: Record<string, RunningEmulator>): string[] {
  return Object.entries(emulators)
    .filter(([, emulator]) =>
      emulator
        .requestLog()
        .some((e) => e.path.endsWith("/session") && e.method === "POST" && e.status >= 400),
    )
    .map(([account]) => account);
}

/** Every account's passwords (write and plan user): none may appear in a log, comment or artifact. */
export function passwordsOf(accounts: string[]): string[] {
  return accounts.flatMap((account) => [userOf(account, USER).password, userOf(account, READER).password]);
}

/**
 * The account files of a change: each account's config at main with `budgets` (campaign name
 * to budget_impressions) changed, as a pull or merge request edits them.
 */
export function budgetChanges(
  budgets: Record<string, Record<string, number>>,
  configAtMain: (account: string) => string,
  emulators: Record<string, RunningEmulator>,
): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [account, changed] of Object.entries(budgets)) {
    const live = parse(configAtMain(account)) as {
      insertion_orders: { campaigns: { name: string; budget_impressions: number }[] }[];
    };
    const now = Object.fromEntries(
      live.insertion_orders[0]!.campaigns.map((c) => [c.name, c.budget_impressions]),
    );
    files[`accounts/${account}/doohctl.yaml`] = accountFile(account, emulators[account]!.origin, {
      ...now,
      ...changed,
    });
  }
  return files;
}
