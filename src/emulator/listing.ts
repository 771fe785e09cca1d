/**
 * The common list query parameters (spec; G12): paging, `filter` and `search` as `field:<value>`
 * (AND across fields, OR within one), `order` and `asc`; each operation names its fields in a ListSpec.
 */
import { compareIds } from "../model/targeting.js";
import { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE } from "../model/wire.js";
import { LenientQuery } from "./departures.js";
import { Issues } from "./errors.js";

export type FilterValue = string | boolean | readonly string[];

export interface ListSpec<T> {
  filters?: Readonly<Record<string, (item: T) => FilterValue>>;
  search?: Readonly<Record<string, (item: T) => string>>;
  order?: Readonly<Record<string, (a: T, b: T) => number>>;
  /** Boolean query parameters the operation also takes (G2: include_progress). */
  flags?: readonly string[];
  /** Items matching the indexed filters, in ascending id order; undefined to scan all. */
  candidates?: (filters: ReadonlyMap<string, ReadonlySet<string>>) => Iterable<T> | undefined;
}

export interface ListQuery {
  page: number;
  pageSize: number;
  order: string | undefined;
  asc: boolean;
  filters: Map<string, Set<string>>;
  search: Map<string, string[]>;
  flags: Set<string>;
}

const SINGLE = ["page", "page_size", "order", "asc"];

function readBound(issues: Issues, name: string, text: string, max: number): number | undefined {
  if (!/^-?[0-9]+$/.test(text)) {
    issues.add(name, "must be an integer");
    return undefined;
  }
  const value = Number(text);
  // The spec's own words for a bound broken: "a page above 100 gives the field page and a
  // message that it is not less than or equal to 100".
  if (value < 0) issues.add(name, "is not greater than or equal to 0");
  else if (value > max) issues.add(name, `is not less than or equal to ${max}`);
  else return value;
  return undefined;
}

function readFlag(issues: Issues, name: string, text: string): boolean | undefined {
  if (text === "true") return true;
  if (text === "false") return false;
  issues.add(name, "must be true or false");
  return undefined;
}

/**
 * Query parameters of a single-object GET or a write: the given flags only; another is refused
 * unless this DSP ignores unknown parameters (G16).
 */
export function parseFlags(query: URLSearchParams, flags: readonly string[] = []): Set<string> {
  const issues = new Issues();
  const set = new Set<string>();
  const seen = new Set<string>();
  for (const [name, value] of query) {
    if (!flags.includes(name)) {
      if (!(query instanceof LenientQuery)) issues.add(name, "is not a known parameter");
      continue;
    }
    if (seen.has(name)) issues.add(name, "must be given once");
    else if (readFlag(issues, name, value)) set.add(name);
    seen.add(name);
  }
  issues.throwIfAny();
  return set;
}

function readEntry(
  issues: Issues,
  kind: "filter" | "search",
  entry: string,
  fields: readonly string[],
): [string, string] | undefined {
  // G12: a list that names no field for this parameter refuses every entry of it.
  if (fields.length === 0) {
    issues.add(kind, `this list takes no ${kind}: the specification names no ${kind} field for it`);
    return undefined;
  }
  const colon = entry.indexOf(":");
  if (colon < 0) {
    issues.add(kind, `"${entry}" must be field:value, like ${fields[0] ?? "id"}:5001`);
    return undefined;
  }
  const field = entry.slice(0, colon);
  if (!fields.includes(field)) {
    issues.add(kind, `${field} is not a ${kind} field of this list: use one of ${fields.join(", ")}`);
    return undefined;
  }
  return [field, entry.slice(colon + 1)];
}

export function parseListQuery<T>(query: URLSearchParams, spec: ListSpec<T>): ListQuery {
  const issues = new Issues();
  const filterFields = Object.keys(spec.filters ?? {});
  const searchFields = Object.keys(spec.search ?? {});
  const orderFields = Object.keys(spec.order ?? {});
  const flags = spec.flags ?? [];
  const result: ListQuery = {
    page: 0,
    pageSize: DEFAULT_PAGE_SIZE,
    order: undefined,
    asc: false,
    filters: new Map(),
    search: new Map(),
    flags: new Set(),
  };
  const seen = new Set<string>();
  for (const [name, value] of query) {
    if ((SINGLE.includes(name) || flags.includes(name)) && seen.has(name)) {
      issues.add(name, "must be given once");
      continue;
    }
    seen.add(name);
    if (name === "page") result.page = readBound(issues, name, value, MAX_PAGE) ?? 0;
    else if (name === "page_size") result.pageSize = readBound(issues, name, value, MAX_PAGE_SIZE) ?? 0;
    else if (name === "asc") result.asc = readFlag(issues, name, value) ?? false;
    else if (name === "order") {
      if (orderFields.includes(value)) result.order = value;
      else {
        const known =
          orderFields.length > 0
            ? `use one of ${orderFields.join(", ")}`
            : "the specification names no order field for it";
        issues.add("order", `${value} is not an order field of this list: ${known}`);
      }
    } else if (name === "filter") {
      const entry = readEntry(issues, "filter", value, filterFields);
      if (!entry) continue;
      const [field, text] = entry;
      if (BOOLEAN_FILTERS.has(field) && text !== "true" && text !== "false") {
        issues.add("filter", `${field} takes true or false`);
        continue;
      }
      const values = result.filters.get(field) ?? new Set<string>();
      values.add(text);
      result.filters.set(field, values);
    } else if (name === "search") {
      const entry = readEntry(issues, "search", value, searchFields);
      if (!entry) continue;
      const [field, text] = entry;
      result.search.set(field, [...(result.search.get(field) ?? []), text.toLowerCase()]);
    } else if (flags.includes(name)) {
      if (readFlag(issues, name, value)) result.flags.add(name);
    } else if (!(query instanceof LenientQuery)) {
      // G16: a parameter the operation does not name is refused, unless this DSP ignores it.
      issues.add(name, "is not a known parameter");
    }
  }
  issues.throwIfAny();
  return result;
}

/** Filter fields whose values are booleans (G12: written true or false). */
const BOOLEAN_FILTERS = new Set(["in_flight", "active", "archived"]);

function matches(value: FilterValue, accepted: ReadonlySet<string>): boolean {
  if (typeof value === "boolean") return accepted.has(value ? "true" : "false");
  if (typeof value === "string") return accepted.has(value);
  // G12: a filter on an array matches when the array contains the value.
  for (const item of value) if (accepted.has(item)) return true;
  return false;
}

/** Applies a parsed query to items given in ascending id order. */
export function runList<T extends { id: string }>(
  all: ReadonlyMap<string, T>,
  query: ListQuery,
  spec: ListSpec<T>,
): { items: T[]; total: number } {
  const offset = query.page * query.pageSize;
  if (query.filters.size === 0 && query.search.size === 0 && query.order === undefined) {
    // The common read (a plain page): no need to look past the page.
    const items: T[] = [];
    let index = 0;
    for (const item of all.values()) {
      if (index >= offset + query.pageSize) break;
      if (index++ >= offset) items.push(item);
    }
    return { items, total: all.size };
  }
  const source = (query.filters.size > 0 ? spec.candidates?.(query.filters) : undefined) ?? all.values();
  const filters = [...query.filters].map(([field, values]) => [spec.filters![field]!, values] as const);
  const searches = [...query.search].map(([field, needles]) => [spec.search![field]!, needles] as const);
  const plain = query.order === undefined;
  const selected: T[] = [];
  let total = 0;
  for (const item of source) {
    if (!filters.every(([get, values]) => matches(get(item), values))) continue;
    if (!searches.every(([get, needles]) => needles.some((n) => get(item).toLowerCase().includes(n))))
      continue;
    // Without an order the source order is the answer (G12: ascending id), so only the
    // page itself needs keeping.
    if (!plain || (total >= offset && total < offset + query.pageSize)) selected.push(item);
    total++;
  }
  if (plain) return { items: selected, total };
  const compare = spec.order![query.order!]!;
  const direction = query.asc ? 1 : -1;
  // G12: ties break by ascending id whatever `asc` says.
  selected.sort((a, b) => direction * compare(a, b) || compareIds(a.id, b.id));
  return { items: selected.slice(offset, offset + query.pageSize), total };
}

export const byString =
  <T>(get: (item: T) => string) =>
  (a: T, b: T): number => {
    const x = get(a);
    const y = get(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };

export const byId = <T extends { id: string }>(a: T, b: T): number => compareIds(a.id, b.id);
