/**
 * I7: a failed request field by field, each 422 field traced to its config: `campaigns[3].cpm` ->
 * `item_change_ids[3]` -> the `cpm` FieldChange's source, else the change's.
 */
import { ApiError, NetworkError, OutcomeUnknownError, TimeoutError } from "../api/errors.js";
import type {
  ApplyFailure,
  ApplyRequestRecord,
  FieldFailure,
  InconsistentMember,
} from "../model/apply-report.js";
import type { SourceRef } from "../model/desired.js";
import { Money } from "../model/money.js";
import type { ApiFieldError } from "../model/wire.js";
import type { Change, PlannedRequest } from "../plan/types.js";
import { InconsistentResultError, ResultUnknownError } from "./answer-check.js";

/**
 * `campaigns[3].cpm`; a dialect may name the batch member and the contract number otherwise
 * (G3 create_campaigns_member, G1 contract_number: `new-campaigns[3]`, `po-number`).
 */
const ITEM_FIELD = /^[A-Za-z0-9_.-]+\[(\d+)\](?:\.([A-Za-z0-9_-]+))?/;

function sourcesOf(changes: readonly Change[], property: string | undefined): SourceRef[] {
  const sources: SourceRef[] = [];
  if (property !== undefined) {
    for (const change of changes) {
      if (!("fields" in change)) continue;
      const field = change.fields.find((f) => f.field === property);
      if (field?.source) sources.push(field.source);
    }
  }
  if (sources.length === 0) {
    for (const change of changes) if (change.source) sources.push(change.source);
  }
  const seen = new Set<string>();
  return sources.filter((s) => {
    const key = `${s.file}:${s.line}:${s.column}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Maps each refused field of `request` to the plan changes and config places behind it. */
export function traceFieldErrors(
  request: PlannedRequest,
  errors: readonly ApiFieldError[],
  changesById: ReadonlyMap<string, Change>,
): FieldFailure[] {
  return errors.map((error) => {
    const match = ITEM_FIELD.exec(error.field);
    let item: number | undefined;
    let property: string | undefined;
    if (match) {
      item = Number(match[1]);
      property = match[2];
    } else if (request.items === 1) {
      // A single-object request (PUT targetings) names its fields without an index.
      item = 0;
      property = error.field;
    }
    const changeIds =
      item !== undefined ? (request.item_change_ids[item] ?? request.change_ids) : request.change_ids;
    const changes = changeIds.map((id) => changesById.get(id)).filter((c): c is Change => c !== undefined);
    return {
      field: error.field,
      messages: [...error.messages],
      ...(item !== undefined ? { item } : {}),
      change_ids: [...changeIds],
      addresses: [...new Set(changes.map((c) => c.address))],
      sources: sourcesOf(changes, property),
    };
  });
}

/** What a request's record says happened when it threw `error`. */
export function failedStatusOf(error: unknown): ApplyRequestRecord["status"] {
  if (error instanceof OutcomeUnknownError) return "outcome-unknown";
  if (error instanceof ApiError) return error.status;
  if (error instanceof TimeoutError) return "timeout";
  if (error instanceof NetworkError) return "network-error";
  return "error";
}

/** The failure of `planned`, sent as `record`: its code, the API's message and refused fields. */
export function describeFailure(
  planned: PlannedRequest,
  record: ApplyRequestRecord,
  error: unknown,
  changesById: ReadonlyMap<string, Change>,
): ApplyFailure {
  const code = (error as { code?: unknown })?.code;
  if (error instanceof InconsistentResultError) {
    const fields = error.fields.map((field, i) => ({ field, messages: [differenceText(error.members[i]!)] }));
    return {
      request: record,
      code: error.code,
      message: error.message,
      fields: traceFieldErrors(planned, fields, changesById),
      landed: true,
      inconsistent: [...error.members],
    };
  }
  return {
    request: record,
    code: typeof code === "string" ? code : "APPLY_ERROR",
    // The API's own short text (and what to do); its fields are listed one by one below.
    message:
      error instanceof ApiError
        ? `${error.apiMessage}${error.advice}`
        : error instanceof Error
          ? error.message
          : String(error),
    ...(error instanceof ApiError ? { http_status: error.status } : {}),
    fields: error instanceof ApiError ? traceFieldErrors(planned, error.data, changesById) : [],
    ...(error instanceof ResultUnknownError ? { landed: true as const } : {}),
  };
}

/** `sent 600000, answered 500000 (G4: ...)`: one member the DSP did not take as sent. */
export function differenceText(member: InconsistentMember): string {
  const answered = Object.hasOwn(member, "answered")
    ? `the DSP shows ${valueText(member.answered)}`
    : "the DSP's answer leaves it out";
  return `${member.object}: sent ${valueText(member.sent)}, ${answered} (${member.explain})`;
}

function valueText(value: unknown): string {
  if (Money.isWire(value)) return Money.format(value as Money);
  return JSON.stringify(value) ?? "nothing";
}
