/**
 * An id may be a YAML integer, its decimal string, only when written so: `0017` reads as 17,
 * `0x1F` as 31, and "0017" would be adopted as "17" without a word: "quote this id".
 */
import { targetingOption } from "../model/targeting-members.js";
import type { ConfigIssue } from "./issues.js";
import { pathText } from "./path-text.js";
import { isMap, type Raw } from "./raw-values.js";
import type { SourceIndex } from "./source-index.js";

/** Every id of one file's document (after the schema check) whose number reads otherwise. */
export function idsNotWrittenAsRead(document: unknown, index: SourceIndex): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const check = (parent: unknown, key: string | number, path: (string | number)[]) => {
    const value = (parent as Raw | unknown[])[key as never] as unknown;
    // Past 2^53 or negative, the schema has already said what is wrong with it.
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) return;
    const written = index.writtenAt(parent, key);
    if (written === undefined || written === String(value)) return;
    issues.push({
      file: index.file,
      ...index.ofValue(parent, key),
      path: pathText(path),
      message: `${written} reads as the number ${value}, not as the id written: quote this id`,
      hint: `write "${written}"`,
      code: "ID_NOT_AS_WRITTEN",
    });
  };
  const list = (parent: Raw, key: string, path: (string | number)[]) => {
    const items = parent[key];
    if (!Array.isArray(items)) return;
    for (let i = 0; i < items.length; i++) check(items, i, [...path, key, i]);
  };
  const doc = asRaw(document);
  (Array.isArray(doc?.insertion_orders) ? doc.insertion_orders : []).forEach((io: unknown, i: number) => {
    const ioRaw = asRaw(io);
    if (ioRaw === undefined) return;
    const at = ["insertion_orders", i];
    check(ioRaw, "id", [...at, "id"]);
    (Array.isArray(ioRaw.campaigns) ? ioRaw.campaigns : []).forEach((c: unknown, j: number) => {
      const campaign = asRaw(c);
      if (campaign === undefined) return;
      const cAt = [...at, "campaigns", j];
      check(campaign, "id", [...cAt, "id"]);
      list(campaign, "creatives", cAt);
      (Array.isArray(campaign.targetings) ? campaign.targetings : []).forEach((t: unknown, k: number) => {
        for (const [member, ids] of Object.entries(asRaw(t) ?? {})) {
          const option = asRaw(ids);
          const key = targetingOption(member)?.ids.name;
          if (option !== undefined && key !== undefined) list(option, key, [...cAt, "targetings", k, member]);
        }
      });
    });
  });
  (Array.isArray(doc?.creatives) ? doc.creatives : []).forEach((c: unknown, i: number) => {
    const creative = asRaw(c);
    if (creative === undefined) return;
    check(creative, "id", ["creatives", i, "id"]);
    list(creative, "category_ids", ["creatives", i]);
  });
  return issues;
}

const asRaw = (value: unknown): Raw | undefined => (isMap(value) ? value : undefined);
