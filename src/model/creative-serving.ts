/**
 * Whether a creative can serve, for plan (DOOH501, DOOH905) and status alike (docs/status.md,
 * "Can a creative serve?"): PROCESSED, not archived, APPROVED by a network (G6, G11: one audit per
 * reviewing network). Under way: not yet; FAILED, archived or DENIED by every reviewer: not.
 */
import { plural } from "./plural.js";
import type { Creative } from "./wire.js";

export type CreativeServing =
  | { state: "can serve" }
  /** It may serve later without anyone changing it. */
  | { state: "cannot serve yet"; reason: string }
  /** It will not serve unless someone changes it. */
  | { state: "cannot serve"; reason: string };

function networks(ids: readonly string[]): string {
  return `${plural(ids.length, "network")} ${ids.join(", ")}`;
}

export function creativeServing(
  creative: Pick<Creative, "processing_status" | "archived" | "audits">,
): CreativeServing {
  if (creative.processing_status === "FAILED")
    return { state: "cannot serve", reason: "its processing FAILED" };
  if (creative.archived) return { state: "cannot serve", reason: "it is archived" };
  if (creative.processing_status !== "PROCESSED") {
    return { state: "cannot serve yet", reason: `it is ${creative.processing_status}, not PROCESSED` };
  }
  if (creative.audits.some((a) => a.status === "APPROVED")) return { state: "can serve" };
  if (creative.audits.length === 0)
    return { state: "cannot serve yet", reason: "no network has reviewed it" };
  const pending = creative.audits.filter((a) => a.status !== "DENIED").map((a) => a.network_id);
  const denied = creative.audits.filter((a) => a.status === "DENIED").map((a) => a.network_id);
  if (pending.length > 0) {
    const also = denied.length > 0 ? `, DENIED by ${networks(denied)}` : "";
    return { state: "cannot serve yet", reason: `its review is PENDING at ${networks(pending)}${also}` };
  }
  return {
    state: "cannot serve",
    reason: `it was DENIED by every network that reviewed it (${networks(denied)})`,
  };
}

export function canServe(creative: Pick<Creative, "processing_status" | "archived" | "audits">): boolean {
  return creativeServing(creative).state === "can serve";
}
