/**
 * Doctor's G14 checks, one per kind, from what the other probes read: extra members (`holds`:
 * doohctl ignores them) and missing ones doohctl depends on (`differs`, docs/assumptions.md#g14).
 */
import { printable } from "../../model/printable.js";
import { type CheckResult, dialectKeyWords, type Probe } from "./probe.js";

interface Kind {
  id: string;
  title: string;
  /** The contract's schema name, as the client names unknown members (`Campaign.x`). */
  schema: string;
  /** The list envelope (or the path end) its answers come under. */
  envelope: string;
  /** Members a dialect key places (src/model/dialect.ts): the key to change when one is missing. */
  dialect?: Readonly<Record<string, string>>;
}

const KINDS: readonly Kind[] = [
  {
    id: "insertion-order-members",
    title: "insertion order members",
    schema: "InsertionOrder",
    envelope: "insertion_orders",
    dialect: { contract_number: "contract_number" },
  },
  { id: "campaign-members", title: "campaign members", schema: "Campaign", envelope: "campaigns" },
  {
    id: "targeting-members",
    title: "targeting option set members",
    schema: "TargetingOptionSet",
    envelope: "targetings",
  },
  { id: "creative-members", title: "creative members", schema: "Creative", envelope: "creatives" },
  { id: "advertiser-members", title: "advertiser members", schema: "Advertiser", envelope: "advertisers" },
  {
    id: "creative-category-members",
    title: "creative category members",
    schema: "CreativeCategory",
    envelope: "creative_categories",
  },
];

/** `/campaigns/0/active` or `/active` (a single object) -> `active`, for missing members. */
function missingMember(at: string, envelope: string): string | undefined {
  const list = new RegExp(`^/${envelope}/[0-9]+/([^/]+)$`).exec(at);
  if (list) return list[1];
  const single = /^\/([^/]+)$/.exec(at);
  return single && single[1] !== envelope ? single[1] : undefined;
}

function kindCheck(kind: Kind, probe: Probe, unknown: ReadonlySet<string>): CheckResult {
  const base = {
    id: kind.id,
    gap: "G14",
    title: kind.title,
    change: "src/api/members.ts / src/api/tolerant.ts, G14",
  };
  // Recorded under the contract's path (contractPath): `/insertion_orders(/{id})`, `.../targetings`.
  const ofKind = new RegExp(`/${kind.envelope}(/[^/]+)?$`);
  const answers = probe.answers.filter(
    (a) => ofKind.test(a.path) && (kind.envelope === "targetings" || !a.path.endsWith("/targetings")),
  );
  if (answers.length === 0) return { ...base, status: "not checked", detail: `no ${kind.envelope} read` };
  const missing = new Set<string>();
  for (const answer of answers) {
    for (const issue of answer.issues ?? []) {
      if (issue.expected !== "a required member, missing") continue;
      const member = missingMember(issue.at, kind.envelope);
      if (member !== undefined) missing.add(printable(member));
    }
  }
  if (missing.size > 0) {
    const keys = [...missing].flatMap((m) => (kind.dialect?.[m] ? [kind.dialect[m]] : []));
    return {
      ...base,
      ...(keys.length > 0 ? { change: keys.map(dialectKeyWords).join(" or ") } : {}),
      status: "differs",
      detail: `missing members doohctl depends on: ${[...missing].sort().join(", ")}`,
    };
  }
  if (answers.every((a) => a.issues !== undefined)) {
    return {
      ...base,
      status: "not checked",
      detail: `every ${kind.envelope} answer was refused (see the check that read it)`,
    };
  }
  const prefix = `${kind.schema}.`;
  const extra = [...unknown]
    .filter((m) => m.startsWith(prefix))
    .map((m) => printable(m.slice(prefix.length)));
  return {
    ...base,
    status: "holds",
    detail:
      extra.length > 0
        ? `every member doohctl depends on; also sent, not named by the contract (ignored, G14): ${extra.join(", ")}`
        : "every member doohctl depends on, and no other",
  };
}

/** The G14 checks of every kind, from what the probe read. */
export function memberChecks(probe: Probe, unknown: ReadonlySet<string>): CheckResult[] {
  return KINDS.map((kind) => kindCheck(kind, probe, unknown));
}
