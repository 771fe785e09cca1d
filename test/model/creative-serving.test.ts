/**
 * One rule for whether a creative can serve, used by plan (DOOH501) and status, so that the
 * two never disagree on one creative: PROCESSED, not archived, and APPROVED by at least one
 * network.
 */
import { describe, expect, it } from "vitest";
import { creativeServing } from "../../src/model/creative-serving.js";
import type { AuditStatus, CreativeAuditEntry } from "../../src/model/wire.js";
import { liveCreative } from "../helpers/builders.js";

const audit = (network_id: string, status: AuditStatus): CreativeAuditEntry => ({
  network_id,
  status,
  message: "",
  last_reviewed: "2026-11-09T10:00:00Z",
});

describe("whether a creative can serve", () => {
  it("can when PROCESSED, not archived and APPROVED by one network, whatever the others said", () => {
    // 9201 of the example seed: APPROVED at 1, DENIED at 2, PENDING at 3.
    const c = liveCreative({ audits: [audit("1", "APPROVED"), audit("2", "DENIED"), audit("3", "PENDING")] });
    expect(creativeServing(c)).toEqual({ state: "can serve" });
  });

  it("cannot yet with only PENDING audits, or none: no network has approved it", () => {
    expect(creativeServing(liveCreative({ audits: [audit("2", "PENDING")] }))).toEqual({
      state: "cannot serve yet",
      reason: "its review is PENDING at network 2",
    });
    expect(creativeServing(liveCreative({ audits: [audit("2", "PENDING"), audit("3", "DENIED")] }))).toEqual({
      state: "cannot serve yet",
      reason: "its review is PENDING at network 2, DENIED by network 3",
    });
    expect(creativeServing(liveCreative({ audits: [] }))).toEqual({
      state: "cannot serve yet",
      reason: "no network has reviewed it",
    });
    expect(
      creativeServing(liveCreative({ processing_status: "PROCESSING", audits: [audit("1", "APPROVED")] })),
    ).toEqual({
      state: "cannot serve yet",
      reason: "it is PROCESSING, not PROCESSED",
    });
  });

  it("cannot when DENIED by every network that reviewed it, archived, or its processing FAILED", () => {
    expect(creativeServing(liveCreative({ audits: [audit("1", "DENIED"), audit("2", "DENIED")] }))).toEqual({
      state: "cannot serve",
      reason: "it was DENIED by every network that reviewed it (networks 1, 2)",
    });
    expect(creativeServing(liveCreative({ archived: true, audits: [audit("1", "APPROVED")] })).state).toBe(
      "cannot serve",
    );
    expect(creativeServing(liveCreative({ processing_status: "FAILED" })).state).toBe("cannot serve");
  });
});
