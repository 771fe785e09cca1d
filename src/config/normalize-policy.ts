/** Stage 3 for guardrail rules (`policy:`), top-level or per insertion order. */
import { POLICY_RULE_NAMES, type PolicyRule, type PolicyRules } from "../model/desired.js";
import { Money } from "../model/money.js";
import { unitsProblem } from "./explain.js";
import { childPath } from "./path-text.js";
import type { Place, Places } from "./places.js";
import { isMap, type Raw } from "./raw-values.js";

/** The schema has checked the rules' shapes. Action default: deny. */
export function normalizePolicy(raw: Raw, at: string, places: Places): PolicyRules {
  const rules: PolicyRules = {};
  for (const name of POLICY_RULE_NAMES) {
    const declared = raw[name];
    if (!isMap(declared)) continue;
    const path = childPath(at, name);
    const rule: PolicyRule = {
      action: declared.action === "warn" ? "warn" : "deny",
      source: places.ref(raw, name, path),
    };
    if (typeof declared.limit === "number") rule.limit = declared.limit;
    if (Array.isArray(declared.limits)) {
      const limits = declared.limits;
      const seen = new Map<string, number>();
      rule.limits = limits.flatMap((value, i) => {
        const place = { parent: limits, key: i, path: `${childPath(path, "limits")}[${i}]` };
        const money = limitMoney(value, place, places);
        if (money === undefined) return [];
        const first = seen.get(money.currency_code);
        if (first !== undefined) {
          places.issue(
            place,
            "DUPLICATE_DECLARATION",
            `${name} has a second limit in ${money.currency_code} (the first is limits[${first}]): keep one per currency`,
          );
          return [];
        }
        seen.set(money.currency_code, i);
        return [money];
      });
    }
    rules[name] = rule;
  }
  return rules;
}

/** A limit in money: any problem with it is reported at the list item. */
function limitMoney(value: unknown, at: Place, places: Places): Money | undefined {
  return places.parsed(at, "MONEY_INVALID", () => {
    if (typeof value === "string") return Money.parse(value);
    const raw = value as { currency_code: string; units: string | number; nanos?: number };
    const problem = unitsProblem(raw.units);
    if (problem !== undefined) throw new Error(problem);
    return Money.fromWire({
      currency_code: raw.currency_code,
      units: String(raw.units),
      ...(raw.nanos === undefined ? {} : { nanos: raw.nanos }),
    });
  });
}
