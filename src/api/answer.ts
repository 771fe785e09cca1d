/**
 * What the DSP answered, turned into what the caller may use: the body of a 2xx answer once
 * it matches the contract, or a typed error carrying the server's words, scrubbed of every
 * secret first (issue 13, item 8).
 */

import { jsonTooDeepAt, MAX_NESTING_DEPTH } from "../model/json-depth.js";
import type { ApiErrorBody, ApiFieldError } from "../model/wire.js";
import { type ContractIssue, findOperation, readAnswer } from "./contract.js";
import { ApiError, ContractError, ResponseTooDeepError } from "./errors.js";
import { HTML_ANSWER, isHtmlAnswer } from "./html.js";
import type { Scrubber } from "./scrub.js";
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
  // Scrubbed before the cut: a cut first could leave half a secret (issue 22, item 7).
  return { message: scrubber.excerpt(text.trim(), 200) || `HTTP ${status}` };
}

/**
 * The server's words, scrubbed of every secret before they become an error (issue 13, item 8).
 * `attempts`: how many attempts were answered with a 5xx before the client gave up.
 */
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

/**
 * What the client keeps of a 2xx answer, once it matches the tolerant view of the contract's
 * answer for the operation (G14, tolerant.ts): members the contract does not name dropped,
 * unset ones read as unset. Anything else is a ContractError (issues scrubbed: keys come from
 * the server).
 */
export function trustedBody(
  request: ApiRequest,
  response: HttpResponse,
  scrubber: Scrubber,
  onUnknownMembers?: (members: readonly string[]) => void,
): unknown {
  const op = findOperation(request.method, request.path);
  const fail = (issues: ContractIssue[]) =>
    new ContractError(
      request.method,
      request.path,
      issues.map((i) => ({ at: scrubber.text(i.at), expected: i.expected })),
    );
  if (response.text.trim() === "") {
    if (op?.responseSchema === undefined) return undefined;
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
  if (!op) return body;
  const { issues, kept, unknown } = readAnswer(op, body, { collectUnknown: onUnknownMembers !== undefined });
  if (issues.length > 0) throw fail(issues);
  if (unknown.length > 0) onUnknownMembers?.(unknown.map((m) => scrubber.text(m)));
  return kept;
}

/** What a request sent through the session answered: its trusted body, or the error it is. */
export function answerOf(
  request: ApiRequest,
  response: HttpResponse,
  scrubber: Scrubber,
  onUnknownMembers?: (members: readonly string[]) => void,
): unknown {
  if (response.status < 200 || response.status >= 300) throw apiError(request, response, scrubber);
  if (isHtmlAnswer(response)) {
    // A web page where the API should answer: say what it means rather than "not JSON".
    throw new ApiError({
      status: response.status,
      apiMessage: HTML_ANSWER,
      method: request.method,
      path: request.path,
    });
  }
  return trustedBody(request, response, scrubber, onUnknownMembers);
}
