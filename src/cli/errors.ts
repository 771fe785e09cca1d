/**
 * Errors as a tool reads them: with `--format json` every command prints its errors on stdout
 * as one document, `{"errors": [{"code", "message", "location"}]}`, instead of text on stderr.
 * The codes are the typed errors' own (`CONFIG_INVALID` issues keep theirs, `FILE_NOT_FOUND`,
 * `DUPLICATE_KEY`, ...), so a pipeline can branch on them without parsing prose.
 */
import { ConfigError } from "../config/issues.js";
import type { Finding } from "../plan/types.js";
import type { CliIO } from "./io.js";
import { describeError } from "./pipeline.js";

export interface ErrorLocation {
  file: string;
  /** 1-based; 0 when the error is about the file as a whole. */
  line: number;
  column: number;
  /** The path in the document, like `insertion_orders[0].campaigns[2].cpm`; "" for the file. */
  path: string;
}

export interface JsonError {
  code: string;
  message: string;
  /** Where in the config the error is; null when it is not about a place in a file. */
  location: ErrorLocation | null;
  hint?: string;
}

/** `--format json` (or `--format=json`) anywhere on the command line, read before parsing. */
export function wantsJsonErrors(argv: readonly string[]): boolean {
  return argv.some((arg, i) => arg === "--format=json" || (arg === "--format" && argv[i + 1] === "json"));
}

/** Every error a thrown value stands for: a ConfigError is one per issue. */
export function jsonErrorsOf(error: unknown): JsonError[] {
  if (error instanceof ConfigError) {
    return error.issues.map((issue) => ({
      code: issue.code,
      message: issue.message,
      location: { file: issue.file, line: issue.line, column: issue.column, path: issue.path },
      ...(issue.hint === undefined ? {} : { hint: issue.hint }),
    }));
  }
  const code =
    error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : "ERROR";
  const message = error instanceof Error ? error.message : String(error);
  return [{ code, message, location: null }];
}

export function renderJsonErrors(errors: readonly JsonError[]): string {
  return `${JSON.stringify({ errors }, null, 2)}\n`;
}

/** Reports a command's error in the format the user asked for; the caller sets the exit code. */
export function reportError(io: CliIO, command: string, error: unknown, format: string | undefined): void {
  if (format === "json") io.stdout.write(renderJsonErrors(jsonErrorsOf(error)));
  else io.stderr.write(describeError(command, error));
}

/** A problem a command states itself (no thrown error), with its own stable code. */
export class CommandError extends Error {
  override readonly name = "CommandError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A plan's error findings (DOOH0xx and the like) as JSON errors, at their config place. */
export function findingErrors(findings: readonly Finding[]): JsonError[] {
  return findings
    .filter((f) => f.severity === "error")
    .map((f) => ({
      code: f.code,
      message: f.message,
      location: f.source
        ? { file: f.source.file, line: f.source.line, column: f.source.column, path: f.source.path }
        : null,
    }));
}
