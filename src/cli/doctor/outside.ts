/**
 * What no dialect key can express (docs/doctor.md): another list envelope, no integer
 * `total_size`, a DSP ignoring `page` or `page_size` (spec; G12), said apart from the block.
 */
import { printable } from "../../model/printable.js";
import { DSP_BASE_PATH } from "../../model/wire.js";
import { type Answer, failure } from "./probe.js";
import { isInt, isObj, type Obj } from "./seen.js";

/** A raw GET of the suggestion's probe: its answer, or why it was not sent. */
export type Read = (path: string, query?: Array<[string, string]>) => Promise<Answer | string>;

/** Member names and parameters from answers, printable, as a list. */
export const names = (list: readonly string[]) => list.map(printable).join(", ");

/** A read's failure as a finding says it; undefined when it answered. */
export const failed = (answer: Answer | string): string | undefined =>
  typeof answer === "string" ? answer : answer.ok ? undefined : failure(answer);

/** The items of a list answer: `envelope`'s array, else its one array of objects (said in `outside`). */
export function listIn(body: unknown, envelope: string, what: string, outside: string[]): Obj[] | undefined {
  if (!isObj(body)) return undefined;
  let list = Object.hasOwn(body, envelope) ? body[envelope] : undefined;
  if (!Array.isArray(list)) {
    const arrays = Object.keys(body).filter(
      (m) => Array.isArray(body[m]) && (body[m] as unknown[]).every(isObj),
    );
    if (arrays.length !== 1) return undefined;
    const [member] = arrays as [string];
    list = body[member];
    outside.push(
      `${what} answers its list under ${printable(member)}, not ${envelope}: no dialect key renames a list envelope (spec, List envelope; src/api/endpoints.ts)`,
    );
  }
  if (!isInt(body.total_size)) {
    const counts = Object.keys(body).filter((m) => m !== "total_size" && isInt(body[m]));
    const held = counts.length > 0 ? ` (it holds ${names(counts)})` : "";
    outside.push(
      `${what} answers no integer total_size${held}: no dialect key renames it, and doohctl pages by it (G12, src/api/paging.ts)`,
    );
  }
  return (list as unknown[]).filter(isObj);
}

/** G12: a page of one campaign, then the next: more than asked ignores `page_size`, page 0 again `page`. */
export async function paging(read: Read, outside: string[]): Promise<void> {
  const idsOf = async (page: string): Promise<string[] | undefined> => {
    const answer = await read(`${DSP_BASE_PATH}/campaigns`, [
      ["page_size", "1"],
      ["page", page],
    ]);
    if (failed(answer) !== undefined) return undefined;
    const list = listIn((answer as Answer & { ok: true }).body, "campaigns", "", []);
    return list?.map((c) => String(c.id));
  };
  const first = await idsOf("0");
  if (first === undefined || first.length === 0) return;
  if (first.length > 1) {
    outside.push(
      `GET /campaigns?page_size=1 answered ${first.length} campaigns: the DSP ignores page_size, so doohctl cannot page its lists (G12, src/api/paging.ts)`,
    );
    return;
  }
  const second = await idsOf("1");
  if (second !== undefined && second.length > 0 && second[0] === first[0]) {
    outside.push(
      "GET /campaigns?page=1&page_size=1 answered page 0's campaign again: the DSP ignores page, so doohctl cannot read a list past its first page (G12, src/api/paging.ts)",
    );
  }
}
