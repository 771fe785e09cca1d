/**
 * Whether guardrail rules loosen others (docs/plan.md, "Guardrail policies"), for an insertion
 * order's own `policy` and for `--changed-since`: a rule removed, `deny` to `warn`, a limit
 * raised or every limit dropped, or a currency added (one not listed allows nothing).
 */
import { POLICY_RULE_NAMES, type PolicyRule, type PolicyRules } from "./desired.js";
import { Money } from "./money.js";

export interface Loosening {
  rule: keyof PolicyRules;
  /** `max_cpm: 25.00 USD -> 100.00 USD`, `no_deactivation_in_flight: removed`, `...: deny -> warn`. */
  what: string;
  /** Where the looser rule is written; absent when it was removed. */
  source?: PolicyRule["source"];
}

function percentLimit(rule: PolicyRule, flagDefault: string): string {
  return rule.limit !== undefined ? `${rule.limit}%` : `the ${flagDefault} default`;
}

function ruleLoosenings(
  name: keyof PolicyRules,
  before: PolicyRule,
  after: PolicyRule | undefined,
): string[] {
  if (!after) return ["removed"];
  const out: string[] = [];
  if (before.action === "deny" && after.action === "warn") out.push("deny -> warn");
  if (before.limit !== undefined && (after.limit === undefined || after.limit > before.limit)) {
    const flag = name === "cpm_increase_percent" ? "--cpm-increase-threshold" : "--budget-increase-threshold";
    out.push(`limit ${before.limit}% -> ${percentLimit(after, flag)}`);
  }
  // A rule with limits binds every currency, one it does not list at zero (src/plan/findings/policy.ts):
  // dropping every limit loosens, dropping one currency's tightens, adding a currency loosens.
  const was = before.limits ?? [];
  const now = after.limits ?? [];
  if (was.length > 0 && now.length === 0) {
    for (const limit of was) out.push(`no ${limit.currency_code} limit (was ${Money.formatGrouped(limit)})`);
    return out;
  }
  for (const limit of now) {
    const old = was.find((m) => m.currency_code === limit.currency_code);
    if (was.length > 0 && !old)
      out.push(`${limit.currency_code}: none allowed -> ${Money.formatGrouped(limit)}`);
    else if (old && Money.compare(limit, old) > 0)
      out.push(`${Money.formatGrouped(old)} -> ${Money.formatGrouped(limit)}`);
  }
  return out;
}

/** Each way `after` is looser than `before`, rule by rule. */
export function loosenings(before: PolicyRules | undefined, after: PolicyRules | undefined): Loosening[] {
  if (!before) return [];
  return POLICY_RULE_NAMES.flatMap((name) => {
    const was = before[name];
    if (!was) return [];
    const now = after?.[name];
    return ruleLoosenings(name, was, now).map((what) => ({
      rule: name,
      what: `${name}: ${what}`,
      ...(now ? { source: now.source } : {}),
    }));
  });
}
