/**
 * Several saved plans, one per account (`doohctl show plan-*.json`): each read and checked by
 * readPlanFile, as one plan is, and labelled with its account; two plans of one account are
 * refused (docs/plan.md, "Several accounts in one comment").
 */
import { basename, resolve } from "node:path";
import type { Plan } from "../plan/types.js";
import { CommandError } from "./errors.js";
import { readPlanFile } from "./plan-file.js";

export interface AccountPlan {
  account: string;
  /** The file as the user named it. */
  file: string;
  plan: Plan;
}

/**
 * The account a saved plan is for: the plan's `account` (written by `plan -o` for a config
 * that declares `connection.account`), else the file's name without a `plan-` prefix and
 * its `.json` extension: `plans/plan-northwind-eu.json` is `northwind-eu`.
 */
export function accountLabel(plan: Plan, file: string): string {
  const declared = (plan as Plan & { account?: unknown }).account;
  if (typeof declared === "string" && declared !== "") return declared;
  const name = basename(file);
  return name.replace(/\.json$/i, "").replace(/^plan-/, "") || name;
}

/**
 * Reads every file before anything is shown: a file that is not a valid plan (tampered with,
 * truncated, another format) fails the whole command, its error naming it. Sorted by account.
 */
export function readAccountPlans(files: readonly string[], cwd: string): AccountPlan[] {
  const seen = new Map<string, string>();
  const plans: AccountPlan[] = [];
  for (const file of files) {
    const plan = readPlanFile(resolve(cwd, file), file);
    const account = accountLabel(plan, file);
    const first = seen.get(account);
    if (first !== undefined) {
      throw new CommandError(
        "PLAN_ACCOUNT_TWICE",
        `${first} and ${file} are both plans of account ${account}: give one plan per account (the newest), or rename a file if its account is another`,
      );
    }
    seen.set(account, file);
    plans.push({ account, file, plan });
  }
  return plans.sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
}
