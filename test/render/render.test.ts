import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { terminalText } from "../../src/model/printable.js";
import { parsePlan, serializePlan } from "../../src/plan/saved/file.js";
import type { Change } from "../../src/plan/types.js";
import { detailLines } from "../../src/render/format.js";
import { renderText } from "../../src/render/text.js";
import { desiredCampaign, desiredIo, desiredState, liveCampaign, liveState } from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { markdownOf, plan } from "../helpers/plans.js";
import { richPlan, spendPlan } from "./fixture.js";

const GOLDEN = join(import.meta.dirname, "golden");

/** Compares with a golden file; UPDATE_GOLDEN=1 rewrites it (review the diff before committing). */
function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(path, actual);
  // A missing golden file would pass whatever was rendered: say how to make one.
  expect(existsSync(path), `${path} is missing: run with UPDATE_GOLDEN=1 and review it`).toBe(true);
  expect(actual).toBe(readFileSync(path, "utf8"));
}

describe("renderers", () => {
  it("shows an empty old value as quotes, not as nothing", () => {
    const change = {
      kind: "update_creative",
      creative_id: "9001",
      fields: [{ field: "pixel_url", before: "", after: "https://pixel.example.com/p" }],
    } as unknown as Change;
    expect(detailLines(change)).toEqual([
      { marker: "~", text: 'pixel_url: "" -> https://pixel.example.com/p' },
    ]);
  });

  it("renders the text plan grouped by insertion order with markers, requests, findings and summary", () => {
    golden("rich.txt", renderText(richPlan(), { colour: false }));
  });

  it("renders the markdown plan with the summary table and findings before the details", () => {
    const text = markdownOf(richPlan());
    golden("rich.md.golden", text);
    expect(text.indexOf("#### Findings")).toBeLessThan(text.indexOf("<details>"));
  });

  it("renders the JSON plan as the saved-plan document, which loads back through the schema", () => {
    const json = serializePlan(richPlan());
    golden("rich.json.golden", json);
    expect(parsePlan(json, "plan.json")).toEqual(JSON.parse(json));
  });

  it("shows the maximum spend per advertiser and currency, before, after and what remains, in every format", () => {
    const p = spendPlan();
    const text = renderText(p, { colour: false });
    golden("spend.txt", text);
    const markdown = markdownOf(p);
    golden("spend.md.golden", markdown);
    // The cost diff is the comment's first table.
    expect(markdown.indexOf("| maximum spend |")).toBeLessThan(markdown.indexOf("| | creates |"));
    expect(markdown.indexOf("| maximum spend |")).toBe(markdown.indexOf("|"));
    const json = serializePlan(p);
    expect(parsePlan(json, "plan.json")).toEqual(JSON.parse(json));
    golden("spend.summary.json.golden", `${JSON.stringify(JSON.parse(json).summary.spend, null, 2)}\n`);
  });

  it("shows an insertion order's budget_money change as its own row", () => {
    // IO 1001 budget_money 25,000 -> 250,000 USD: +225,000.00 (+900.0%), where the money
    // table showed 0.00 USD. Its campaign 5001 is unchanged: 100,000 x 12 / 1000 = 1,200.
    const p = plan(
      desiredState([desiredIo("1001", { fields: { budget_money: usd("250000") } })]),
      liveState({ campaigns: [liveCampaign()] }),
    );
    expect(renderText(p, { colour: false })).toContain(
      '  Northwind: insertion order 1001 "Winter" (contract PO-1) budget_money: 25,000.00 USD -> 250,000.00 USD, +225,000.00 USD (+900.0%)',
    );
    expect(markdownOf(p)).toContain(
      '| Northwind: insertion order 1001 "Winter" (contract PO-1) budget_money | 25,000.00 USD | 250,000.00 USD | **+225,000.00 USD (+900.0%)** |',
    );
  });

  it("loads and shows a plan saved before the money summary existed, with no spend table", () => {
    const saved = JSON.parse(serializePlan(spendPlan()));
    delete saved.summary.spend;
    delete saved.summary.budget_money;
    const old = parsePlan(JSON.stringify(saved), "plan.json");
    expect(renderText(old, { colour: false })).not.toContain("Maximum spend");
    expect(markdownOf(old)).not.toContain("| maximum spend |");
  });

  it("colours markers only when asked", () => {
    const p = richPlan();
    expect(renderText(p, { colour: false })).not.toContain("\u001b[");
    expect(terminalText(renderText(p, { colour: true }))).toContain("\u001b[32m+ ");
  });

  it("keeps a markdown comment under its limit and says where the full plan is", () => {
    const campaigns = Array.from({ length: 3000 }, (_, i) =>
      liveCampaign({ id: String(5001 + i), name: `Campaign number ${i}`, budget_impressions: 1 }),
    );
    const d = desiredState([
      desiredIo("1001", {
        campaigns: campaigns.map((c) => desiredCampaign(c.name, { fields: { cpm: usd("13") } })),
      }),
    ]);
    const big = plan(d, liveState({ campaigns }));
    const text = markdownOf(big);
    expect(text.length).toBeLessThanOrEqual(60_000);
    expect(text).toContain("The full plan is in the JSON artifact");
    expect(text).toContain("30 write requests");
  });

  it("shows an escape sequence or line break in a live name as text, never as a terminal command", () => {
    const name = "Lobby\u001b[2J\nforged line\u202e";
    const live = liveState({ campaigns: [liveCampaign({ id: "5001", name, active: true })] });
    // And a new campaign of such a name, whose request descriptions carry it too.
    const fields = {
      cpm: usd("2"),
      start_time: "2026-12-01T00:00:00Z",
      end_time: "2026-12-20T00:00:00Z",
      budget_impressions: 1000,
    };
    const targetings = [{ venue_type_targeting_option: { venue_type_ids: ["12"] } }];
    const d = desiredState([
      desiredIo("1001", {
        unmanaged: "deactivate",
        campaigns: [desiredCampaign(`New ${name}`, { fields, targetings })],
      }),
    ]);
    const p = plan(d, live);
    expect(p.requests.some((r) => r.description.includes(`New ${name}`))).toBe(true);
    const shown = "Lobby\\u001b[2J\\nforged line\\u202e";
    for (const text of [renderText(p, { colour: false }), markdownOf(p)]) {
      expect(text).toContain(`campaign 5001 "${shown}"`);
      expect(text).toContain(`"New ${shown}"`);
      for (const raw of ["\u001b", "\u202e", 'forged line"\n']) expect(text).not.toContain(raw);
    }
  });

  it("says there are no changes", () => {
    const p = plan(desiredState([desiredIo("1001")]), liveState());
    expect(renderText(p, { colour: false })).toContain("doohctl plan: no changes");
    expect(markdownOf(p)).toContain("### doohctl plan: no changes");
  });
});
