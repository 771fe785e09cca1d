/**
 * The Mermaid chart of `doohctl status --format markdown`, checked with Mermaid's own parser
 * (test/status/mermaid.ts, the 11.x release GitHub renders with): every golden Markdown file,
 * and a report with every state a campaign can be in, under names Mermaid would misread,
 * so that the chart GitHub shows is one that renders.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Creative } from "../../src/model/wire.js";
import { renderStatusMarkdown } from "../../src/render/status.js";
import { buildStatusReport } from "../../src/status/status.js";
import { wire } from "./campaigns.js";
import { mermaidBlocks, parseMermaidBlocks } from "./mermaid.js";

const GOLDEN = join(import.meta.dirname, "golden");

function approved(campaignIds: string[]): Creative {
  return {
    id: "9001",
    campaign_ids: campaignIds,
    insertion_order_ids: ["1001"],
    category_ids: [],
    advertiser_id: "1",
    create_time: "2026-10-01T00:00:00Z",
    name: "Spot",
    thumbnail_url: "",
    pixel_url: "",
    duration_ms: 10_000,
    archived: false,
    type: "IMAGE",
    requires_audio: false,
    processing_status: "PROCESSED",
    asset: null,
    audits: [{ network_id: "1", status: "APPROVED", message: "", last_reviewed: "2026-11-20T00:00:00Z" }],
  };
}

/** Seen on Dec 17 (16 of 32 days): one campaign in each state. */
function everyState() {
  const campaigns = [
    wire({ id: "5001", name: "On track", delivered: 50_000 }),
    wire({ id: "5002", name: "Behind: airports #1; north", delivered: 20_000 }),
    wire({ id: "5003", name: "Runs out", delivered: 80_000 }),
    wire({ id: "5004", name: "Delivered whole", delivered: 100_000 }),
    wire({ id: "5005", name: "No creative", delivered: 30_000 }),
    wire({ id: "5006", name: "Paused", active: false, delivered: 30_000 }),
    wire({ id: "5007", name: "Never activated", active: false }),
    wire({ id: "5008", name: "Held back", active: false }),
    wire({ id: "5009", name: "Nothing delivered" }),
    wire({
      id: "5010",
      name: "Not started",
      start_time: "2027-01-01T00:00:00Z",
      end_time: "2027-02-01T00:00:00Z",
    }),
    wire({ id: "5011", name: "Ended", end_time: "2026-12-10T00:00:00Z", delivered: 100_000 }),
    wire({ id: "5012", name: "Ended short", end_time: "2026-12-15T00:00:00Z", delivered: 60_000 }),
    wire({ id: "5013", name: "Left paused", insertion_order_id: "1002", active: false, delivered: 10_000 }),
  ];
  const serving = campaigns.map((c) => c.id).filter((id) => id !== "5005");
  return buildStatusReport({
    campaigns,
    creatives: [approved(serving)],
    recorded: [
      {
        campaign_id: "5013",
        insertion_order_id: "1002",
        name: "Left paused",
        paused_at: "2026-12-16T11:00:01Z",
        apply_id: "20261216T110000Z-1-dead",
        apply_started_at: "2026-12-16T11:00:00Z",
        owner_running: false,
      },
    ],
    declaredInactive: new Set(["5008"]),
    now: Date.parse("2026-12-17T00:00:00Z"),
    thresholds: { behind_pct: 10, ended_short_pct: 5, grace_hours: 24 },
    scope: "declared",
  });
}

describe("status chart", () => {
  it("every golden Markdown status file holds a chart Mermaid parses", async () => {
    const files = readdirSync(GOLDEN).filter((f) => f.endsWith(".md.golden"));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(await parseMermaidBlocks(readFileSync(join(GOLDEN, file), "utf8")), file).toBe(1);
    }
  });

  it("the parser refuses the milestone row the chart used to have, so the check can fail", async () => {
    const broken =
      "```mermaid\ngantt\n  dateFormat YYYY-MM-DD\n  section today\n  2026-12-16 :milestone, today, 2026-12-16, 0d\n```\n";
    await expect(parseMermaidBlocks(broken)).rejects.toThrow(/Parse error/);
  });

  it("parses with every state, tells the states apart by colour and name, and reads names Mermaid would misread", async () => {
    const markdown = renderStatusMarkdown(everyState());
    expect(await parseMermaidBlocks(markdown)).toBe(1);
    const chart = mermaidBlocks(markdown)[0] ?? "";
    const bar = (id: string) => chart.split("\n").find((line) => line.includes(`c${id},`)) ?? "";
    // `:`, `#` and `;` would end the name or the line: replaced by spaces.
    expect(bar("5002")).toBe(
      "  5002 Behind airports 1 north - behind :crit, active, c5002, 2026-12-01, 2027-01-02",
    );
    expect(bar("5001")).toBe("  5001 On track - on track :active, c5001, 2026-12-01, 2027-01-02");
    expect(bar("5003")).toContain("- budget runs out early :crit, active,");
    expect(bar("5004")).toContain("- budget delivered :crit, active,");
    // Behind and no creative: different colours.
    expect(bar("5005")).toContain("5005 No creative - no creative :crit, c5005");
    // Paused and never activated: different names, and in colour when neither is an alert.
    expect(bar("5006")).toContain("5006 Paused - paused :crit, c5006");
    expect(bar("5007")).toContain("5007 Never activated - never activated :c5007");
    expect(bar("5008")).toContain("5008 Held back - never activated :c5008");
    expect(bar("5009")).toContain("- nothing delivered :crit, c5009");
    expect(bar("5010")).toContain("- not started :active, c5010");
    expect(bar("5011")).toContain("- ended :done, c5011");
    expect(bar("5012")).toContain("- ended short :crit, done, c5012");
    expect(bar("5013")).toContain("- paused by an unfinished apply :crit, c5013");
    // A bar per insertion order, in its own section, and today as one line across them.
    expect(chart).toContain(
      "  section insertion order 1001\n  insertion order 1001 :io1001, 2026-12-01, 2027-02-01\n",
    );
    expect(chart).toContain(
      "  section insertion order 1002\n  insertion order 1002 :io1002, 2026-12-01, 2027-01-02\n",
    );
    expect(chart.trimEnd().split("\n").at(-1)).toBe("  today 2026-12-17 :vert, today, 2026-12-17, 0d");
  });
});
