/** Doctor's paging checks (G12); a DSP ignoring `page` or `page_size` is named so: no key adapts it. */
import type { Probe } from "./probe.js";
import { failure } from "./probe.js";
import { ascendingIds, isObj, members, show } from "./seen.js";

const PAGING = "src/api/paging.ts / schemas/dsp-api.openapi.json, G12";
const CAMPAIGNS = "/api/dsp/v1/campaigns";

/** G12: the page bound, page_size=0, and what every list read showed of total_size and order. */
export async function pagingChecks(probe: Probe): Promise<void> {
  const base = { gap: "G12", change: PAGING };
  await probe.check({ ...base, id: "page-bound", title: "page bound", reads: 1 }, async () => {
    const answer = await probe.read(CAMPAIGNS, [
      ["page", "101"],
      ["page_size", "1"],
    ]);
    const problems: string[] = [];
    // The first campaign of page 0 again: `page` is not read at all, not only unbounded.
    const items = answer.ok && isObj(answer.body) ? answer.body.campaigns : undefined;
    const again = Array.isArray(items) && isObj(items[0]) ? items[0].id : undefined;
    const first = probe.lists.find((l) => l.envelope === "campaigns" && l.ids?.length)?.ids?.[0];
    if (answer.ok && again !== undefined && again === first)
      problems.push(
        "page=101 answered page 0's first campaign: the DSP ignores page, so doohctl cannot read a list past its first page",
      );
    else if (answer.ok)
      problems.push(`page=101 answered 200 (saw members ${members(answer.body)}): no bound at 100`);
    else if (answer.status !== 422 || !answer.fields.includes("page"))
      problems.push(`page=101 ${failure(answer)}, fields ${show(answer.fields)}: expected 422 naming page`);
    return { problems, holds: "page=101 is 422 naming page" };
  });
  await probe.check({ ...base, id: "page-size-zero", title: "page_size=0", reads: 1 }, async () => {
    const full = probe.lists.find((l) => l.envelope === "campaigns" && l.total !== undefined);
    const list = await probe.readList("campaigns", CAMPAIGNS, [["page_size", "0"]]);
    const problems = [...list.problems];
    if (list.items.length > 0)
      problems.push(`page_size=0 answered ${list.items.length} items: the DSP ignores page_size`);
    if (list.total !== undefined && full !== undefined && list.total !== full.total)
      problems.push(`page_size=0 answered total_size ${list.total}, a full page ${full.total}`);
    return { problems, holds: `no items and the true total_size (${list.total})` };
  });
  const lists = probe.lists;
  const without = [...new Set(lists.filter((l) => l.total === undefined).map((l) => l.envelope))];
  await probe.check(
    {
      ...base,
      id: "total-size",
      title: "total_size in lists",
      reads: 0,
      missing: lists.length === 0 ? "no list was read" : undefined,
    },
    async () => ({
      problems: without.length > 0 ? [`no integer total_size in ${without.join(", ")}`] : [],
      holds: `every one of ${lists.length} list answers has an integer total_size`,
    }),
  );
  const ordered = lists.filter((l) => l.ids !== undefined && l.ids.length > 1);
  const unordered = [...new Set(ordered.filter((l) => !ascendingIds(l.ids!)).map((l) => l.envelope))];
  await probe.check(
    {
      ...base,
      id: "default-order",
      title: "default ascending-id order",
      reads: 0,
      missing: ordered.length === 0 ? "no list answered two items or more" : undefined,
    },
    async () => ({
      problems: unordered.length > 0 ? [`not in ascending numeric id order: ${unordered.join(", ")}`] : [],
      holds: `${[...new Set(ordered.map((l) => l.envelope))].join(", ")} come in ascending numeric id order`,
    }),
  );
}
