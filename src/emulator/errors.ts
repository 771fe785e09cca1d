/**
 * Every refusal is an HttpError carrying the spec's error shape (`{"message", "data"?}`); the
 * server turns it into the response, so no handler can leave a request half-answered.
 */
import type { DialectProblem } from "../model/dialect.js";
import { printable } from "../model/printable.js";
import type { ApiErrorBody, ApiFieldError } from "../model/wire.js";

/** Spec, "Errors": the message text of each status. */
export const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: "Invalid JSON",
  401: "Not Authorized",
  403: "Not Authenticated",
  404: "Not Found",
  422: "Invalid Request",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export class HttpError extends Error {
  override readonly name = "HttpError";
  readonly code: string;
  readonly status: number;
  readonly data: ApiFieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    options: { message?: string; data?: ApiFieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(options.message ?? STATUS_TEXT[status] ?? "Error");
    this.status = status;
    this.code = `EMULATOR_HTTP_${status}`;
    this.data = options.data;
    this.headers = options.headers ?? {};
  }

  body(): ApiErrorBody {
    return this.data === undefined ? { message: this.message } : { message: this.message, data: this.data };
  }
}

export function notFound(): HttpError {
  return new HttpError(404);
}

/** A 422 with a single field. */
export function invalid(field: string, message: string): HttpError {
  return new HttpError(422, { data: [{ field, messages: [message] }] });
}

/** G4: every failing field of a request, messages merged per field in the order found. */
export class Issues {
  private readonly byField = new Map<string, string[]>();

  add(field: string, message: string): void {
    const messages = this.byField.get(field);
    if (!messages) this.byField.set(field, [message]);
    else if (!messages.includes(message)) messages.push(message);
  }

  get size(): number {
    return this.byField.size;
  }

  toData(): ApiFieldError[] {
    return [...this.byField].map(([field, messages]) => ({ field, messages }));
  }

  /** Throws the 422 when anything was found. */
  throwIfAny(): void {
    if (this.size > 0) throw new HttpError(422, { data: this.toData() });
  }
}

/** A seed or state file the emulator cannot start from; `issues` name the path of each problem. */
export class SeedError extends Error {
  override readonly name = "SeedError";
  readonly code = "EMULATOR_SEED_INVALID";
  readonly issues: readonly ApiFieldError[];

  constructor(source: string, issues: readonly ApiFieldError[]) {
    const lines = issues.flatMap((issue) =>
      issue.messages.map((m) => `  ${issue.field || "(top level)"}: ${m}`),
    );
    super(`${source} is not a valid emulator seed:\n${lines.join("\n")}\nFix the seed and start again.`);
    this.issues = issues;
  }

  /** One problem at `field` ("": the file as a whole). */
  static of(source: string, message: string, field = ""): SeedError {
    return new SeedError(source, [{ field, messages: [message] }]);
  }
}

/** A bad `--faults` specification. */
export class FaultSpecError extends Error {
  override readonly name = "FaultSpecError";
  readonly code = "EMULATOR_FAULTS_INVALID";
}

/** A dialect the emulator cannot serve (`--dialect FILE`, a seed's `dialect`); each problem names its key. */
export class DialectError extends Error {
  override readonly name = "DialectError";
  readonly code = "EMULATOR_DIALECT_INVALID";
  readonly problems: readonly DialectProblem[];

  constructor(source: string, problems: readonly DialectProblem[]) {
    // A key the file wrote is named as it is, made printable: never anything else it holds.
    const lines = problems.map((p) => `  ${p.key === "" ? "(top level)" : printable(p.key)}: ${p.message}`);
    super(`${source} is not a valid dialect:\n${lines.join("\n")}\nFix the dialect and start again.`);
    this.problems = problems;
  }
}
