/** What `doohctl doctor` saw: values `unknown` until tested, an answer's text printable and short. */
import { checkFragment } from "../../api/contract-check.js";
import { printable } from "../../model/printable.js";

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
export const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/** A value as compact JSON (which escapes every line break), at most 200 characters. */
export const show = (value: unknown): string => (JSON.stringify(value) ?? String(value)).slice(0, 200);

/** The member names of an object (`{items, total_size}`), else the value itself. */
export const members = (body: unknown): string =>
  isObj(body) ? `{${Object.keys(body).map(printable).join(", ")}}` : show(body);

/** G12: ids are numeric strings in ascending numeric order; a non-numeric id breaks it. */
export function ascendingIds(ids: readonly string[]): boolean {
  for (let i = 1; i < ids.length; i++) {
    const [a, b] = [ids[i - 1]!, ids[i]!];
    if (!/^[0-9]+$/.test(a) || !/^[0-9]+$/.test(b) || BigInt(a) >= BigInt(b)) return false;
  }
  return true;
}

/** A Money's own members of `value` (spec): extras are ignored (G14), as the client ignores them. */
export function moneyMembers(value: unknown): unknown {
  if (!isObj(value)) return value;
  return Object.fromEntries(
    ["currency_code", "units", "nanos"].filter((m) => Object.hasOwn(value, m)).map((m) => [m, value[m]]),
  );
}

/** A Money (spec), its own members judged by the contract; extra members ignored (G14). */
export const isMoney = (value: unknown): boolean =>
  isObj(value) && checkFragment({ $ref: "#/components/schemas/Money" }, moneyMembers(value)).length === 0;

/** A count of impressions: a whole number, never negative. */
export const isCount = (value: unknown): value is number => isInt(value) && value >= 0;

/** What G2's progress looks like in any dialect: an object holding a count and a Money. */
export const progressShaped = (value: unknown): boolean =>
  isObj(value) && Object.values(value).some(isCount) && Object.values(value).some(isMoney);
