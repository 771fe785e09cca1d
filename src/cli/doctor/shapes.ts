/**
 * The shapes `doohctl doctor` expects in answers (spec plus G1, G2, G5, G6), read
 * independently of the client's own types: the doctor reports what it sees, so every value
 * is `unknown` until tested here. Text taken from an answer is made printable and short.
 */
import { Money } from "../../model/money.js";
import { printable } from "../../model/printable.js";
import { targetingOption } from "../../model/targeting-members.js";

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
export const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);
const str = (v: unknown) => typeof v === "string";
const strOrNull = (v: unknown) => v === null || typeof v === "string";
const bool = (v: unknown) => typeof v === "boolean";
/** Spec, Money; `nanos` may be omitted (G12). */
export const isMoney = Money.isWire;

/** A value as compact JSON, printable, at most 200 characters. */
export const show = (value: unknown): string =>
  printable(JSON.stringify(value) ?? String(value)).slice(0, 200);

/** The member names of an object (`{items, total_size}`), else the value itself. */
export const members = (body: unknown): string =>
  isObj(body) ? `{${Object.keys(body).map(printable).join(", ")}}` : show(body);

type FieldTests = Readonly<Record<string, (v: unknown) => boolean>>;

/** G1 InsertionOrder. */
export const INSERTION_ORDER_FIELDS: FieldTests = {
  id: str,
  advertiser_id: str,
  name: str,
  contract_number: strOrNull,
  start_time: str,
  end_time: str,
  budget_impressions: (v) => v === null || isInt(v),
  budget_money: (v) => v === null || isMoney(v),
};

/** G2 Campaign. */
export const CAMPAIGN_FIELDS: FieldTests = {
  id: str,
  insertion_order_id: str,
  name: str,
  active: bool,
  in_flight: bool,
  start_time: str,
  end_time: str,
  budget_impressions: isInt,
  cpm: isMoney,
  pacing: isObj,
};

/** Spec, Creative (DSP view): the members G6's filters and the reconciler read. */
export const CREATIVE_FIELDS: FieldTests = {
  id: str,
  advertiser_id: str,
  name: str,
  campaign_ids: Array.isArray,
  insertion_order_ids: Array.isArray,
  category_ids: Array.isArray,
  archived: bool,
  type: str,
  processing_status: str,
};

/** The fields of `item` failing their test, as `name (saw value)` or `name (missing)`. */
export function badFields(item: Obj, tests: FieldTests): string[] {
  return Object.entries(tests)
    .filter(([key, test]) => !test(item[key]))
    .map(([key]) => (key in item ? `${key} (saw ${show(item[key])})` : `${key} (missing)`));
}

/** G12: ids are numeric strings in ascending numeric order; a non-numeric id breaks it. */
export function ascendingIds(ids: readonly string[]): boolean {
  for (let i = 1; i < ids.length; i++) {
    const [a, b] = [ids[i - 1]!, ids[i]!];
    if (!/^[0-9]+$/.test(a) || !/^[0-9]+$/.test(b) || BigInt(a) >= BigInt(b)) return false;
  }
  return true;
}

/** G5 shape of an option set list: the first few problems. */
export function targetingProblems(list: readonly unknown[]): string[] {
  const problems: string[] = [];
  list.forEach((set, i) => {
    if (!isObj(set) || Object.keys(set).length === 0) {
      problems.push(`targetings[${i}] is not an object with an option member (saw ${show(set)})`);
      return;
    }
    for (const [member, option] of Object.entries(set)) {
      const idsKey = targetingOption(member)?.ids.name;
      const at = `targetings[${i}].${printable(member)}`;
      if (idsKey === undefined) problems.push(`${at} is not a G5 option member`);
      else if (!isObj(option) || !Array.isArray(option[idsKey]) || !option[idsKey].every(str))
        problems.push(`${at}.${idsKey} is not an array of strings (saw ${show(option)})`);
      else if (option.exclude !== undefined && typeof option.exclude !== "boolean")
        problems.push(`${at}.exclude is not a boolean`);
    }
  });
  return problems.slice(0, 3);
}
