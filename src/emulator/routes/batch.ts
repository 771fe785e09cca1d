/**
 * G4: the common shape of batch bodies (`{"campaigns": [...]}`, 1 to 100 items) and of the
 * checks on item ids (missing, duplicated).
 */
import { MAX_BATCH } from "../../model/wire.js";
import { HttpError, type Issues } from "../errors.js";
import { checkKeys, isPlainObject } from "../fields.js";

/** The items of a batch body, or a 422 for the body's own shape (nothing else is checked then). */
export function readBatch(issues: Issues, body: unknown, member: string): unknown[] {
  const object = readBody(body);
  checkKeys(issues, "", object, [member]);
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

/**
 * Checks the `id` of each batch item: present, existing, not repeated. Returns the ids by
 * item index; an item with a bad id is left out (its other fields are still checked).
 */
export function readItemIds(
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

/** A single-object write: an `id` in the body must be its own. */
export function checkBodyId(issues: Issues, body: Record<string, unknown>, id: string): void {
  if (body.id !== undefined && body.id !== id) issues.add("id", "is read-only");
}
