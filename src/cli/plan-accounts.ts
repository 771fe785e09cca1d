/** Saved plans, one per account (`doohctl show plan-*.json`); two of one account refused (docs/plan.md). */
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

/** A saved plan's account: its `account`, else its file's name (`plan-northwind-eu.json`: `northwind-eu`). */
export function accountLabel(plan: Plan, file: string): string {
  const declared = (plan as Plan & { account?: unknown }).account;
  if (typeof declared === "string" && declared !== "") return declared;
  const name = basename(file);
  return name.replace(/\.json$/i, "").replace(/^plan-/, "") || name;
}

/** Every file read before anything is shown: one not a valid plan fails the command. By account. */
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
