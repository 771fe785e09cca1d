/**
 * G14 (docs/assumptions.md#g14): a live targeting list holding a member doohctl does not know
 * is not exported: a config declaring its known part would let a later change replace it and
 * remove that member. The export says so and leaves the campaign's `targetings` undeclared.
 */
import { describe, expect, it } from "vitest";
import { exportOmissions, renderExport } from "../../src/render/export.js";
import { liveCampaign, liveIo, liveState } from "../helpers/builders.js";

const OPTIONS = { schemaUrl: "schema.json", toolVersion: "0.0.0", now: "2026-11-25T10:00:00Z" };

describe("export of targetings holding a member doohctl does not know", () => {
  const live = liveState({
    insertionOrders: [liveIo({ id: "1001" })],
    campaigns: [
      liveCampaign({ id: "5001", insertion_order_id: "1001", name: "Malls" }),
      liveCampaign({ id: "5002", insertion_order_id: "1001", name: "Airports" }),
    ],
    targetings: {
      "5001": [
        {
          venue_type_targeting_option: { venue_type_ids: ["12"] },
          unknown_members: ["frequency_cap_option"],
        },
      ],
      "5002": [{ venue_type_targeting_option: { venue_type_ids: ["14"] } }],
    },
  });

  it("leaves that campaign's targetings undeclared and keeps the others", () => {
    const text = renderExport(live, OPTIONS);
    expect(text).not.toContain('venue_type_ids: ["12"]');
    expect(text).not.toContain("unknown_members");
    expect(text).toMatch(/venue_type_ids:\s*\[?\s*"14"/);
  });

  it("says which campaign and which member", () => {
    expect(exportOmissions(live)).toContain(
      'campaign 5001 "Malls": targetings not exported: they hold frequency_cap_option, which doohctl does not know, and replacing them would remove it (G14); they stay unmanaged',
    );
  });
});
