/**
 * pull checks its work before it writes (docs/pull.md): the new texts load, a plan of them has no
 * change for the pulled fields, and every other declared value reads as before, so nothing another
 * object reads, and nothing pull did not mean to touch, changed.
 */
import type { DesiredState } from "../model/desired.js";
import { printable } from "../model/printable.js";
import { createPlan } from "../plan/planner.js";
import type { Change, LiveState, PlanOptions } from "../plan/types.js";
import { itemKey, type Pulled } from "./items.js";

/** Each declared value by `address\0field`, as JSON: what the config says. */
export function declaredValues(desired: DesiredState): Map<string, string> {
  const values = new Map<string, string>();
  const put = (address: string, field: string, value: unknown) => {
    if (value !== undefined) values.set(itemKey({ address, field }), JSON.stringify(value));
  };
  for (const io of desired.insertionOrders) {
    const address = `insertion_order.${io.id}`;
    for (const [field, value] of Object.entries(io.fields)) put(address, field, value);
    for (const c of io.campaigns) {
      const ca = `campaign.${io.id}/${c.name}`;
      put(ca, "id", c.id);
      for (const [field, value] of Object.entries(c.fields)) put(ca, field, value);
      put(ca, "targetings", c.targetings);
      put(ca, "creatives", c.creatives);
    }
  }
  for (const c of desired.creatives) {
    for (const [field, value] of Object.entries(c.fields)) put(`creative.${c.id}`, field, value);
  }
  return values;
}

/**
 * `address field` for a message: the address is DSP text and may hold a NUL, so the key splits at
 * its last NUL, and the address is printable.
 */
function shownKey(key: string): string {
  const cut = key.lastIndexOf("\u0000");
  return `${printable(key.slice(0, cut))} ${key.slice(cut + 1)}`;
}

function changedKeys(changes: readonly Change[]): Set<string> {
  const keys = new Set<string>();
  for (const change of changes) {
    switch (change.kind) {
      case "update_insertion_order":
      case "update_campaign":
      case "update_creative":
        for (const f of change.fields) keys.add(itemKey({ address: change.address, field: f.field }));
        break;
      case "replace_targetings":
        keys.add(itemKey({ address: change.address, field: "targetings" }));
        break;
      case "associate_creative":
      case "dissociate_creative":
        keys.add(itemKey({ address: change.address, field: "creatives" }));
        break;
      default:
        keys.add(itemKey({ address: change.address, field: "" }));
    }
  }
  return keys;
}

/** What is wrong with the pulled config, one line each; empty when it is right. */
export function verifyPull(input: {
  before: DesiredState;
  after: DesiredState;
  live: LiveState;
  planOptions: PlanOptions;
  pulled: readonly Pulled[];
  /** Addresses of campaigns `--new` appended: new declarations, expected. */
  appended: readonly string[];
}): string[] {
  const problems: string[] = [];
  const pulled = new Set(input.pulled.map(itemKey));
  const appended = new Set(input.appended);
  const plan = createPlan(input.after, input.live, input.planOptions);
  const left = changedKeys(plan.changes);
  for (const key of pulled) {
    if (left.has(key)) problems.push(`${shownKey(key)} still differs from the live value after the edit`);
  }
  const before = declaredValues(input.before);
  const after = declaredValues(input.after);
  for (const [key, value] of before) {
    if (pulled.has(key)) continue;
    if (after.get(key) !== value)
      problems.push(`${shownKey(key)} would change, and pull did not mean to change it`);
  }
  for (const key of after.keys()) {
    const address = key.slice(0, key.lastIndexOf("\u0000"));
    if (!before.has(key) && !pulled.has(key) && !appended.has(address)) {
      problems.push(`${shownKey(key)} would appear, and pull did not mean to add it`);
    }
  }
  return problems;
}
