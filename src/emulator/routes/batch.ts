/** G4: batch bodies (`{"campaigns": [...]}`, 1 to 100 items) and their item ids. */
import { MAX_BATCH } from "../../model/wire.js";
import { HttpError, type Issues } from "../errors.js";
import { checkKeys, isPlainObject, readObject } from "../fields.js";

/** The items of a batch body, or a 422 for the body's own shape (nothing else is checked then). */
export function readBatch(issues: Issues, body: unknown, member: string): unknown[] {
  const object = readBody(body);
  checkKeys(issues, "", object, { writable: [member] });
  const items = object[member];
  if (items === undefined) issues.add(member, "is required");
  else if (!Array.isArray(items)) issues.add(member, "must be an array");
  else if (items.length < 1 || items.length > MAX_BATCH) {
    issues.add(member, `must contain between 1 and ${MAX_BATCH} items`);
  }
  issues.throwIfAny();
  return items as unknown[];
}

/** A write body must be a JSON object. */
export function readBody(body: unknown): Record<string, unknown> {
  if (isPlainObject(body)) return body;
  throw new HttpError(422, { data: [{ field: "body", messages: ["must be a JSON object"] }] });
}

/** Each item's `id`: present, existing, not repeated; undefined when bad (its fields are still checked). */
function readItemIds(
  issues: Issues,
  member: string,
  items: readonly Record<string, unknown>[],
  exists: (id: string) => boolean,
): (string | undefined)[] {
  const seen = new Set<string>();
  return items.map((item, index) => {
    const field = `${member}[${index}].id`;
    const id = item.id;
    if (id === undefined) issues.add(field, "is required");
    else if (typeof id !== "string") issues.add(field, "must be a string");
    else if (seen.has(id)) issues.add(field, "is duplicated in the request");
    else if (!exists(id)) issues.add(field, "does not exist");
    else {
      seen.add(id);
      return id;
    }
    if (typeof id === "string") seen.add(id);
    return undefined;
  });
}

/** One item of a batch PATCH. */
export interface PatchItem<T> {
  /** Names the item's fields in the request: `campaigns[3]`. */
  prefix: string;
  body: Record<string, unknown>;
  /** The object its `id` names; undefined when the id is missing, repeated or unknown. */
  current: T | undefined;
}

/** The items of a batch PATCH (G4), each an object with a good id; the caller checks their fields. */
export function readPatchBatch<T>(
  issues: Issues,
  body: unknown,
  member: string,
  find: (id: string) => T | undefined,
): PatchItem<T>[] {
  const items = readBatch(issues, body, member);
  const bodies = items.map((raw, index) => readObject(issues, `${member}[${index}]`, raw) ?? {});
  const ids = readItemIds(issues, member, bodies, (id) => find(id) !== undefined);
  return bodies.map((item, index) => {
    const id = ids[index];
    return { prefix: `${member}[${index}]`, body: item, current: id === undefined ? undefined : find(id) };
  });
}

/** The body of a single-object PATCH: a JSON object whose `id`, if it has one, is the object's own. */
export function readPatchBody(issues: Issues, body: unknown, id: string): Record<string, unknown> {
  const object = readBody(body);
  if (object.id !== undefined && object.id !== id) issues.add("id", "is read-only");
  return object;
}
