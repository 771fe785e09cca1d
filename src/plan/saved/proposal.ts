/**
 * A saved plan is a proposal, not a command (ARCHITECTURE.md#plan): `apply --plan` makes it again
 * from the same config and the live state now, and applies only when the requests are exactly
 * the file's. What differs is named: stale (live moved) or altered (the file says otherwise).
 */
import type { Fingerprint, Plan, PlannedRequest } from "../types.js";
import { canonicalJson } from "./canonical.js";
import { describeStale } from "./stale.js";

export interface ProposalCheck {
  /** Live objects that moved since the plan was made. */
  stale: string[];
  /** Parts of the file that its config and the live state do not give. */
  altered: string[];
}

const key = (fp: Pick<Fingerprint, "kind" | "id">) => `${fp.kind}:${fp.id}`;

/** What a request does, for comparison: everything but its prose. */
function essence(r: PlannedRequest): string {
  return canonicalJson({
    seq: r.seq,
    phase: r.phase,
    method: r.method,
    path: r.path,
    body: r.body,
    items: r.items,
    change_ids: r.change_ids,
    item_change_ids: r.item_change_ids,
  });
}

function requestLabel(r: PlannedRequest): string {
  return `request ${r.seq} (${r.method} ${r.path})`;
}

export function checkProposal(file: Plan, fresh: Plan): ProposalCheck {
  const stale: string[] = [];
  const altered: string[] = [];
  const now = new Map(fresh.fingerprints.map((fp) => [key(fp), fp]));
  const saved = new Map(file.fingerprints.map((fp) => [key(fp), fp]));
  for (const fp of file.fingerprints) {
    const current = now.get(key(fp));
    if (!current) {
      altered.push(
        `the file fingerprints ${fp.kind.replace("_", " ")} ${fp.id}, which the plan does not read`,
      );
      continue;
    }
    if (current.sha256 === fp.sha256) continue;
    const moved = describeStale(fp, current.snapshot);
    stale.push(
      moved ? moved.message : `${fp.kind.replace("_", " ")} ${fp.id} changed since the plan was made`,
    );
  }
  for (const fp of fresh.fingerprints) {
    if (!saved.has(key(fp))) {
      altered.push(
        `the file has no fingerprint of ${fp.kind.replace("_", " ")} ${fp.id}, which the plan reads (and may write)`,
      );
    }
  }
  // With the live state moved, different requests are expected: say stale, not altered.
  if (stale.length > 0) return { stale, altered };
  const max = Math.max(file.requests.length, fresh.requests.length);
  for (let i = 0; i < max; i++) {
    const a = file.requests[i];
    const b = fresh.requests[i];
    if (a && !b)
      altered.push(`${requestLabel(a)} is not part of the plan its config and the live state give`);
    else if (!a && b) altered.push(`${requestLabel(b)} is missing from the file`);
    else if (a && b && essence(a) !== essence(b)) {
      altered.push(`${requestLabel(a)} differs from the recomputed ${requestLabel(b)}`);
    }
  }
  if (
    canonicalJson(placeless(file.changes)) !== canonicalJson(placeless(fresh.changes)) &&
    altered.length === 0
  ) {
    altered.push("the file's changes differ from those its config and the live state give");
  }
  return { stale, altered };
}

/**
 * The changes without each `source`'s file name, relative to a working directory that may
 * differ between plan and apply (docs/plan.md); the digests proved the files the same.
 */
function placeless(changes: Plan["changes"]): unknown {
  return JSON.parse(JSON.stringify(changes), (key, value: unknown) =>
    key === "source" && typeof value === "object" && value !== null ? { ...value, file: "" } : value,
  );
}
