import { describe, expect, it } from "vitest";
import { daysToPlace, formatDays, isCalendarDate, placeText, placeValue } from "../../src/model/calendar.js";

describe("a world written for one day, placed at another", () => {
  it("counts whole UTC days from the written day to the day of now, whatever the hour", () => {
    expect(daysToPlace("2026-12-20", Date.parse("2026-12-20T00:00:00Z"))).toBe(0);
    expect(daysToPlace("2026-12-20", Date.parse("2026-12-20T23:59:59Z"))).toBe(0);
    expect(daysToPlace("2026-12-20", Date.parse("2026-12-02T02:00:00Z"))).toBe(-18);
    // 2027 has 365 days, 2028 is a leap year: Dec 20 2026 to Mar 1 2029 is 365 + 366 + 71.
    expect(daysToPlace("2026-12-20", Date.parse("2029-03-01T12:00:00Z"))).toBe(365 + 366 + 71);
    expect(() => daysToPlace("2026-02-30", 0)).toThrow("not a calendar date");
  });

  it("knows a calendar date from a text that only looks like one", () => {
    expect(isCalendarDate("2028-02-29")).toBe(true);
    expect(isCalendarDate("2027-02-29")).toBe(false);
    expect(isCalendarDate("2026-12-20T00:00:00Z")).toBe(false);
    expect(isCalendarDate("20261220")).toBe(false);
  });

  it("moves every date of a YAML text, times and offsets kept, and nothing else", () => {
    const yaml = [
      "contract_number: CT-2026-14 # not a date",
      "start_time: 2026-12-01T00:00:00Z",
      "end_time: 2027-02-28T23:30:00.5+01:00 # was 2027-02-01",
      "budget_impressions: 2026",
      "url: https://example.com/2026-12-01x",
    ].join("\n");
    // +90 days: Dec 1 -> Mar 1 (31 + 31 + 28), Feb 28 -> May 29, Feb 1 -> May 2.
    expect(placeText(yaml, 90)).toBe(
      [
        "contract_number: CT-2026-14 # not a date",
        "start_time: 2027-03-01T00:00:00Z",
        "end_time: 2027-05-29T23:30:00.5+01:00 # was 2027-05-02",
        "budget_impressions: 2026",
        "url: https://example.com/2026-12-01x",
      ].join("\n"),
    );
    expect(placeText(yaml, 0)).toBe(yaml);
  });

  it("moves the strings of a JSON value that are whole dates or date-times, never a name holding one", () => {
    const seed = {
      insertion_orders: [{ id: "1001", name: "Launch 2026-12-01", start_time: "2026-12-01T00:00:00Z" }],
      creatives: [{ create_time: "2026-10-01T09:00:00.123456Z", audits: [{ last_reviewed: "2026-10-02" }] }],
      pacing: { budget: 2026, until: "2026-12-31" },
    };
    // -18 days: Dec 1 -> Nov 13, Oct 1 -> Sep 13, Oct 2 -> Sep 14, Dec 31 -> Dec 13.
    expect(placeValue(seed, -18)).toEqual({
      insertion_orders: [{ id: "1001", name: "Launch 2026-12-01", start_time: "2026-11-13T00:00:00Z" }],
      creatives: [{ create_time: "2026-09-13T09:00:00.123456Z", audits: [{ last_reviewed: "2026-09-14" }] }],
      pacing: { budget: 2026, until: "2026-12-13" },
    });
  });

  it("says a placement as people read it", () => {
    expect([formatDays(85), formatDays(-18), formatDays(1), formatDays(0)]).toEqual([
      "+85 days",
      "-18 days",
      "+1 day",
      "0 days",
    ]);
  });
});
