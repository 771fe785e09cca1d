/**
 * What can go wrong talking to the DSP, as typed values with a stable `code` (callers never
 * switch on text). No error holds the password or the session token: only email, method, path.
 */
import { printable } from "../model/printable.js";
import { noAnswerText, type Tries } from "../model/silence.js";
import type { ApiFieldError } from "../model/wire.js";
import type { HttpMethod } from "./types.js";

export abstract class DspClientError extends Error {
  abstract readonly code: string;
}

/** An error of one request, named by its method and path. */
export abstract class RequestError extends DspClientError {
  constructor(
    readonly method: HttpMethod,
    readonly path: string,
    /** What went wrong and what to do, after `METHOD path: `. */
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${method} ${path}: ${message}`, options);
  }
}

/** The service answered with a 4xx (or a 5xx that was not retried): spec, "Errors". */
export class ApiError extends DspClientError {
  override readonly name = "ApiError";
  readonly code = "API_ERROR";
  readonly status: number;
  /** The service's own short text (`Invalid Request`, `Not Found`, ...). */
  readonly apiMessage: string;
  /** The 422 field list exactly as sent (`campaigns[3].cpm`). */
  readonly data: ApiFieldError[];
  readonly method: HttpMethod;
  readonly path: string;
  /** Attempts answered this way: a 5xx the client retried until it gave up. */
  readonly attempts: number;
  /** What to do, after `apiMessage` and the fields ("" when nothing more to say). */
  readonly advice: string;

  constructor(init: {
    status: number;
    apiMessage: string;
    data?: ApiFieldError[];
    method: HttpMethod;
    path: string;
    attempts?: number;
    /** What to do, when the caller knows more than the status (a dialect key, say). */
    advice?: string;
  }) {
    // The DSP's text on one line (docs/safety.md): a line break in it starts no line of doohctl's.
    const fields = (init.data ?? []).map((d) => printable(`${d.field} ${d.messages.join(", ")}`));
    const attempts = init.attempts ?? 1;
    const advice =
      attempts > 1 && init.status >= 500
        ? `, ${attempts} times in a row: the DSP is failing, not the request; run again later, ` +
          "and tell the DSP's operator if it persists"
        : (init.advice ?? "");
    // A 2xx that is still unusable (no session cookie, an HTML page) did not "fail with 200".
    const outcome = init.status >= 200 && init.status < 300 ? "answered" : "failed with";
    super(
      `${init.method} ${init.path} ${outcome} ${init.status} ${printable(init.apiMessage)}` +
        (fields.length > 0 ? `: ${fields.join("; ")}` : "") +
        advice,
    );
    this.advice = advice;
    this.status = init.status;
    this.apiMessage = init.apiMessage;
    this.data = init.data ?? [];
    this.method = init.method;
    this.path = init.path;
    this.attempts = attempts;
  }
}

/** No response: connection refused or reset, DNS failure, TLS handshake refused. */
export class NetworkError extends RequestError {
  override readonly name = "NetworkError";
  readonly code = "NETWORK_ERROR";
  constructor(method: HttpMethod, path: string, detail: string, options?: { cause?: unknown }) {
    super(method, path, `no response from the DSP (${detail}); check the network and api_origin`, options);
  }
}

/** Connect or request timeout (transport options `timeouts`). */
export class TimeoutError extends RequestError {
  override readonly name = "TimeoutError";
  readonly code = "TIMEOUT";
  /** The deadline ran out mid-answer (a trickling server, not a lost packet): never retried. */
  readonly trickling: boolean;
  /** Nothing came back: how long it waited and, once retries give up, `(attempt 4 of 4)`. */
  readonly noAnswer: { afterMs: number; tries?: Tries | undefined } | undefined;
  constructor(
    method: HttpMethod,
    path: string,
    readonly detail: string,
    options?: {
      cause?: unknown;
      trickling?: boolean;
      noAnswer?: { afterMs: number; tries?: Tries | undefined } | undefined;
    },
  ) {
    const noAnswer = options?.noAnswer;
    super(
      method,
      path,
      noAnswer
        ? `${noAnswerText(noAnswer.afterMs, noAnswer.tries)}; the DSP is slow or unreachable: run again ` +
            "later (DOOHCTL_REQUEST_TIMEOUT sets how long each attempt waits)"
        : `timed out (${detail}); the DSP may be slow, retry later`,
      options,
    );
    this.trickling = options?.trickling ?? false;
    this.noAnswer = noAnswer;
  }

  /** The same timeout, told which attempt of how many it ended (the retry layer gives up). */
  withTries(tries: Tries): TimeoutError {
    if (!this.noAnswer) return this;
    return new TimeoutError(this.method, this.path, this.detail, {
      cause: this.cause,
      trickling: this.trickling,
      noAnswer: { ...this.noAnswer, tries },
    });
  }
}

/**
 * A POST got no definite answer (network error, timeout or 5xx): it may or may not have been
 * applied. Never retried blindly (POST is not idempotent): the caller checks and decides.
 */
export class OutcomeUnknownError extends RequestError {
  override readonly name = "OutcomeUnknownError";
  readonly code = "OUTCOME_UNKNOWN";
  /** The DSP answered (a 5xx): it is done, so what it did can be read now; else it may still run. */
  readonly answered: boolean;
  constructor(
    method: HttpMethod,
    path: string,
    readonly reason: string,
    options?: { cause?: unknown; answered?: boolean },
  ) {
    super(
      method,
      path,
      `outcome unknown (${reason}); the request may have been applied. ` +
        "Read the live state (doohctl plan) before sending it again",
      options,
    );
    this.answered = options?.answered ?? false;
  }
}

/** The DSP refused the user's credentials, or refused a session it had just created. */
export class CredentialsError extends DspClientError {
  override readonly name = "CredentialsError";
  readonly code = "CREDENTIALS_REFUSED";
  constructor(
    readonly email: string,
    detail: string,
  ) {
    super(
      `the DSP refused the credentials of ${email} (${detail}); check DOOHCTL_EMAIL and ` +
        "DOOHCTL_PASSWORD, and that this API user exists in this environment with the API Access role",
    );
  }
}

/** The client will not connect to this origin (G13); raised before any connection. */
export class TransportPolicyError extends DspClientError {
  override readonly name = "TransportPolicyError";
  readonly code = "TRANSPORT_POLICY";
}

/** A rate-limit or backoff wait longer than `retry.maxWaitMs`, or too many attempts. */
export class RetryBudgetError extends RequestError {
  override readonly name = "RetryBudgetError";
  readonly code = "RETRY_BUDGET_EXCEEDED";
  constructor(method: HttpMethod, path: string, detail: string, options?: { cause?: unknown }) {
    super(method, path, `gave up (${detail})`, options);
  }
}

/** A list needs more pages than the service serves (G12: page 0..100). */
export class PagingLimitError extends DspClientError {
  override readonly name = "PagingLimitError";
  readonly code = "PAGING_LIMIT";
}

/**
 * A list whose pages do not add up (docs/api-client.md "Paging"): it shifted while read, so an
 * item is missing and a plan or check by name could create it twice. Stops before any write.
 */
export class IncompleteReadError extends RequestError {
  override readonly name = "IncompleteReadError";
  readonly code = "INCOMPLETE_READ";
  constructor(
    method: HttpMethod,
    path: string,
    /** The list read and its filter (`campaigns (filter id: 1, 2)`). */
    readonly list: string,
    /** The id that repeated, or the count that fell short. */
    readonly detail: string,
  ) {
    super(
      method,
      path,
      `the read of ${list} is incomplete: ${detail}. The DSP's list shifted while it was read ` +
        "(an item created or deleted meanwhile), so an item may be missing; doohctl stopped before " +
        "any write. Run again later, once no other tool is changing this account",
    );
  }
}

/**
 * An answer the contract does not allow (a missing member, a wrong shape, pages that disagree
 * with `total_size`): `{"option_sets": []}` is not "no targetings", so the run stops here.
 */
export class ContractError extends RequestError {
  override readonly name = "ContractError";
  readonly code = "CONTRACT_VIOLATION";
  constructor(
    method: HttpMethod,
    path: string,
    /** Where (a JSON pointer), what the contract expects, and the dialect key that adapts it, if any. */
    readonly issues: ReadonlyArray<{ at: string; expected: string; hint?: string }>,
  ) {
    // `at` may hold what the DSP chose (a campaign id, G14): printable, never acting on a terminal.
    const shown = issues.slice(0, 5).map((i) => `at ${printable(i.at)}: ${i.expected}${i.hint ?? ""}`);
    const more = issues.length > 5 ? `; and ${issues.length - 5} more` : "";
    super(
      method,
      path,
      "the DSP's answer does not match the contract (schemas/dsp-api.openapi.json): " +
        `${shown.join("; ")}${more}. doohctl stops rather than guess what it means; check that ` +
        "api_origin is the DSP, and report the answer to its operator if it is",
    );
  }
}

/** Nested deeper than MAX_NESTING_DEPTH: refused unparsed, a walk would overflow the stack. Not retried. */
export class ResponseTooDeepError extends RequestError {
  override readonly name = "ResponseTooDeepError";
  readonly code = "RESPONSE_TOO_DEEP";
  constructor(
    method: HttpMethod,
    path: string,
    readonly limitDepth: number,
  ) {
    super(
      method,
      path,
      `the DSP's answer nests objects or arrays more than ${limitDepth} levels deep, far deeper than the contract's (schemas/dsp-api.openapi.json); doohctl refuses it unread. Check that api_origin is the DSP, and report the answer to its operator if it is`,
    );
  }
}

/** An answer larger than `maxResponseBytes`: reading stopped at the cap. */
export class ResponseTooLargeError extends RequestError {
  override readonly name = "ResponseTooLargeError";
  readonly code = "RESPONSE_TOO_LARGE";
  constructor(
    method: HttpMethod,
    path: string,
    readonly limitBytes: number,
  ) {
    super(
      method,
      path,
      `the DSP's answer is larger than ${limitBytes} bytes; reading stopped there. ` +
        "Raise the cap with DOOHCTL_MAX_RESPONSE_BYTES (client option maxResponseBytes) if the answer is genuine",
    );
  }
}

/**
 * Why the 2xx answer of a write could not be read (not the contract's, too deep, a web page);
 * undefined for any other error. The write happened: its caller learns the result otherwise.
 */
export function unreadableAnswer(error: unknown): string | undefined {
  if (error instanceof ContractError) {
    const shown = error.issues.slice(0, 3).map((i) => `at ${printable(i.at)}: ${i.expected}`);
    const more = error.issues.length > 3 ? `; and ${error.issues.length - 3} more` : "";
    return `not the contract's answer: ${shown.join("; ")}${more}`;
  }
  if (error instanceof ResponseTooDeepError) return `nested more than ${error.limitDepth} levels deep`;
  if (error instanceof ApiError && error.status >= 200 && error.status < 300) return error.apiMessage;
  return undefined;
}
