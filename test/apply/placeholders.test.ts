import { describe, expect, it } from "vitest";
import {
  resolvePath,
  resolvePathIfKnown,
  resolvePlaceholders,
  UnresolvedPlaceholderError,
} from "../../src/apply/placeholders.js";

const created = new Map([
  ["c3", "5010"],
  ["c4", "5011"],
]);

describe("new-campaign placeholders", () => {
  it("replaces placeholders in a targetings path", () => {
    expect(resolvePath("/api/dsp/v1/campaigns/<new:c3>/targetings", created)).toBe(
      "/api/dsp/v1/campaigns/5010/targetings",
    );
  });

  it("replaces every placeholder inside a body, leaving other values as they are", () => {
    const body = {
      creatives: [
        { id: "9001", campaign_ids: ["5001", "<new:c3>", "<new:c4>"] },
        { id: "9002", pixel_url: "https://p.example/<x>" },
      ],
    };
    expect(resolvePlaceholders(body, created)).toEqual({
      creatives: [
        { id: "9001", campaign_ids: ["5001", "5010", "5011"] },
        { id: "9002", pixel_url: "https://p.example/<x>" },
      ],
    });
  });

  it("refuses a placeholder of a campaign this apply did not create", () => {
    expect(() => resolvePlaceholders({ campaigns: [{ id: "<new:c9>", active: true }] }, created)).toThrow(
      UnresolvedPlaceholderError,
    );
  });

  it("shows unsent requests with real ids where known", () => {
    expect(resolvePathIfKnown("/x/<new:c3>/<new:c9>", created)).toBe("/x/5010/<new:c9>");
  });
});
