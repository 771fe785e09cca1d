/** A 2xx answer's body once it matches the contract, or a typed error with the server's words, scrubbed. */

import { DEFAULT_DIALECT, type Dialect, dialectKeysHint } from "../model/dialect.js";
import { jsonTooDeepAt, MAX_NESTING_DEPTH } from "../model/json-depth.js";
import type { Scrubber } from "../model/scrub.js";
import type { ApiErrorBody, ApiFieldError } from "../model/wire.js";
import { type ContractIssue, type ContractOperation, findOperation, readAnswer } from "./contract.js";
import { contractPath, Endpoints } from "./endpoints.js";
import { ApiError, ContractError, ResponseTooDeepError } from "./errors.js";
import { HTML_ANSWER, isHtmlAnswer } from "./html.js";
import { contractAnswer, dialectPlace, movedMemberKey } from "./members.js";
import type { HttpResponse } from "./transport.js";
import type { ApiRequest } from "./types.js";

function isFieldError(value: unknown): value is ApiFieldError {
  const v = value as Partial<ApiFieldError> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.field === "string" &&
    Array.isArray(v.messages) &&
    v.messages.every((m) => typeof m === "string")
  );
}

function errorBody(text: string, status: number, scrubber: Scrubber): ApiErrorBody {
  try {
    const parsed = JSON.parse(text) as Partial<ApiErrorBody>;
    if (typeof parsed.message === "string") {
      // Spec, "Errors": `data` holds `{field, messages}` objects; anything else is dropped.
      return Array.isArray(parsed.data)
        ? { message: parsed.message, data: parsed.data.filter(isFieldError) }
        : { message: parsed.message };
    }
  } catch {
    // Not the spec's JSON error shape (a proxy's HTML page, say): keep a short excerpt.
  }
  // Scrubbed before the cut: a cut first could leave half a secret.
  return { message: scrubber.excerpt(text.trim(), 200) || `HTTP ${status}` };
}

/** The server's words, scrubbed before they become an error a log shows; `attempts`: 5xx answers in a row. */
export function apiError(
  request: ApiRequest,
  response: HttpResponse,
  scrubber: Scrubber,
  attempts = 1,
): ApiError {
  const body = isHtmlAnswer(response)
    ? { message: HTML_ANSWER }
    : errorBody(response.text, response.status, scrubber);
  return new ApiError({
    status: response.status,
    apiMessage: scrubber.text(body.message),
    ...(body.data ? { data: scrubber.fields(body.data) } : {}),
    method: request.method,
    path: request.path,
    attempts,
  });
}

/** How a 2xx answer is read: the dialect it is in, whether to judge it, who hears of extras. */
export interface Reading {
  dialect?: Dialect;
  /** Doctor's look at an answer as it came: parsed (depth-checked), neither moved nor judged. */
  raw?: boolean;
  onUnknownMembers?: (members: readonly string[]) => void;
}

/**
 * What the client keeps of a 2xx answer that matches the tolerant view of its operation's
 * answer (G14, tolerant.ts), once put in the contract's names (members.ts); anything else is a
 * ContractError (scrubbed: its keys come from the server).
 */
export function trustedBody(
  request: ApiRequest,
  response: HttpResponse,
  scrubber: Scrubber,
  reading: Reading = {},
): unknown {
  const dialect = reading.dialect ?? DEFAULT_DIALECT;
  const op = findOperation(request.method, contractPath(dialect, request.method, request.path));
  // Each place in the names the DSP answered (members.ts), never in the contract's alone.
  const place = (at: string) => (op ? dialectPlace(dialect, request.method, op.template, at) : at);
  // A member a dialect key places: the key that adapts a DSP naming it otherwise.
  const hint = (at: string) => {
    const key = op ? movedMemberKey(dialect, request.method, op.template, at) : undefined;
    return key === undefined ? "" : dialectKeysHint([key]);
  };
  const fail = (issues: ContractIssue[]) =>
    new ContractError(
      request.method,
      request.path,
      issues.map((i) => {
        const advice = i.hint ?? hint(i.at);
        return { at: scrubber.text(place(i.at)), expected: i.expected, ...(advice ? { hint: advice } : {}) };
      }),
    );
  if (response.text.trim() === "") {
    if (op?.responseSchema === undefined || reading.raw) return undefined;
    throw fail([{ at: "/", expected: `a JSON body (${op.responseSchema}), got none` }]);
  }
  // Before parsing: the contract check, compare and fingerprint walk the body recursively.
  if (jsonTooDeepAt(response.text) !== undefined) {
    throw new ResponseTooDeepError(request.method, request.path, MAX_NESTING_DEPTH);
  }
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    throw fail([{ at: "/", expected: "a JSON body, got text that is not JSON" }]);
  }
  if (!op || reading.raw) return body;
  const moved = contractAnswer(dialect, request.method, op.template, body);
  const collect = { collectUnknown: reading.onUnknownMembers !== undefined };
  const { issues, kept, unknown } = readAnswer(op, moved.body, collect);
  if (issues.length > 0) throw fail(issues);
  if (moved.embedded) embedTargetings(kept, moved.embedded, moved.missing ?? [], dialect, fail);
  if (unknown.length > 0) reading.onUnknownMembers?.(unknown.map((m) => scrubber.text(m)));
  return kept;
}

/**
 * G5, G14 with `campaign_targetings`: each campaign gets its embedded list, judged as a targetings
 * answer. Without one, an error: the plan would read "no targetings" and write them.
 */
function embedTargetings(
  kept: unknown,
  embedded: Map<string, unknown>,
  missing: readonly string[],
  dialect: Dialect,
  fail: (issues: ContractIssue[]) => Error,
): void {
  const member = dialect.campaign_targetings;
  const issues: ContractIssue[] = missing.map((id) => ({
    at: `campaign ${id}/${member}`,
    expected: `a required member with campaign_targetings: ${member} (dialect), missing`,
    hint: dialectKeysHint(["campaign_targetings"]),
  }));
  const op = TARGETINGS_OPERATION();
  const campaigns = Array.isArray((kept as { campaigns?: unknown }).campaigns)
    ? (kept as { campaigns: { id: string; targetings?: unknown }[] }).campaigns
    : [kept as { id: string; targetings?: unknown }];
  for (const campaign of campaigns) {
    const list = embedded.get(campaign.id);
    if (list === undefined) continue;
    const read = readAnswer(op, { targetings: list });
    if (read.issues.length > 0) {
      for (const i of read.issues)
        issues.push({
          at: `campaign ${campaign.id}/${member}${i.at.replace(/^\/targetings/, "")}`,
          expected: i.expected,
        });
      continue;
    }
    campaign.targetings = (read.kept as { targetings: unknown }).targetings;
  }
  if (issues.length > 0) throw fail(issues);
}

let targetingsOperation: ContractOperation | undefined;
/** The contract's targetings read (the gap decisions' endpoints are the contract's paths). */
const TARGETINGS_OPERATION = (): ContractOperation => {
  const read = Endpoints.getTargetings("0");
  targetingsOperation ??= findOperation(read.method, read.path)!;
  return targetingsOperation;
};

/** G2, G16: a read asking for progress refused (400, 422) naming it or nothing: name the key adapting it. */
function refusedProgress(request: ApiRequest, error: ApiError, dialect: Dialect): ApiError | undefined {
  const [name] = dialect.progress.parameter.split("=");
  const asked = request.method === "GET" && (request.query ?? []).some(([n]) => n === name);
  const named = error.data.length === 0 || error.data.some((d) => d.field === name);
  if (!asked || !named || (error.status !== 400 && error.status !== 422)) return undefined;
  return new ApiError({
    status: error.status,
    apiMessage: error.apiMessage,
    data: error.data,
    method: error.method,
    path: error.path,
    advice: `: the DSP refused the progress parameter ${dialect.progress.parameter}${dialectKeysHint(["progress.parameter"])}`,
  });
}

/** What a request sent through the session answered: its trusted body, or the error it is. */
export function answerOf(
  request: ApiRequest,
  response: HttpResponse,
  scrubber: Scrubber,
  reading: Reading = {},
): unknown {
  if (response.status < 200 || response.status >= 300) {
    const error = apiError(request, response, scrubber);
    throw refusedProgress(request, error, reading.dialect ?? DEFAULT_DIALECT) ?? error;
  }
  if (isHtmlAnswer(response)) {
    // A web page where the API should answer: say what it means rather than "not JSON".
    throw new ApiError({
      status: response.status,
      apiMessage: HTML_ANSWER,
      method: request.method,
      path: request.path,
    });
  }
  return trustedBody(request, response, scrubber, reading);
}
