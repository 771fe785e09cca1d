/** What can be wrong with a config, as data: every stage reports issues, so a run shows all at once. */
import { printable } from "../model/printable.js";
import { Scrubber } from "../model/scrub.js";
import { guardIssue } from "./guard-text.js";
import { sourceSnippet } from "./snippet.js";

/** Stable codes: tools match on these, so they never change meaning. */
export type ConfigIssueCode =
  | "FILE_NOT_FOUND"
  | "FILE_UNREADABLE"
  | "FILE_NOT_REGULAR"
  | "FILE_TOO_LARGE"
  | "FILE_OUTSIDE_TREE"
  | "NO_YAML_FILES"
  | "YAML_IN_SUBDIRECTORY"
  | "JSON_NOT_READ"
  | "NOT_UTF8"
  | "EMPTY_FILE"
  | "YAML_SYNTAX"
  | "TAB_INDENT"
  | "DUPLICATE_KEY"
  | "UNKNOWN_KEY"
  | "API_OWNED_KEY"
  | "MISSING_KEY"
  | "WRONG_TYPE"
  | "INVALID_VALUE"
  | "EMPTY_LIST"
  | "MONEY_INVALID"
  | "TIME_INVALID"
  | "ID_TOO_LARGE"
  | "ID_NOT_AS_WRITTEN"
  | "NUMBER_TOO_LARGE"
  | "RATE_LIMIT_INVALID"
  | "ORIGIN_INVALID"
  | "PASSWORD_IN_CONFIG"
  | "FLIGHT_ORDER"
  | "FLIGHT_OUTSIDE_INSERTION_ORDER"
  | "BUDGET_OVER_INSERTION_ORDER"
  | "CURRENCY_MISMATCH"
  | "DUPLICATE_DECLARATION"
  | "CONNECTION_DECLARED_TWICE"
  | "ACCOUNT_VARIABLE_INVALID"
  | "ACCOUNT_INCOMPLETE"
  | "ACCOUNTS_MIXED"
  | "POLICY_LOOSENED"
  | "DIALECT_INVALID"
  | "DIALECT_NOT_NAMED"
  | "NESTING_TOO_DEEP";

export interface ConfigIssue {
  /** The file as the user named it (relative to the working directory when inside it). */
  file: string;
  /** 1-based; 0 when the issue is about the file as a whole (not found, not UTF-8). */
  line: number;
  column: number;
  /** The path in the document, like `insertion_orders[0].campaigns[2].cpm`; "" for the file. */
  path: string;
  /** What is wrong and, where it fits in one sentence, what to write instead. */
  message: string;
  /** A further suggestion: "did you mean", the other place of a duplicate. */
  hint?: string;
  code: ConfigIssueCode;
}

/** Thrown by `loadConfig` when any issue was found; carries all of them, sorted. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly code = "CONFIG_INVALID";
  readonly issues: readonly ConfigIssue[];
  /** As the stages wrote them, to guard again with the run's secrets (`withSecrets`). */
  readonly #found: readonly ConfigIssue[];
  /** The run's secrets, that no quoted line may hold (snippet.ts). */
  readonly #scrubber: Scrubber;
  /** Each file's text by its name in the issues, to quote an issue's line (snippet.ts). */
  readonly #sources: ReadonlyMap<string, string>;

  /** Every issue is guarded here, whatever stage wrote it (guard-text.ts). */
  constructor(
    found: readonly ConfigIssue[],
    secrets: readonly string[] = [],
    sources: ReadonlyMap<string, string> = new Map(),
  ) {
    const scrubber = new Scrubber(secrets);
    const issues = found.map((issue) => guardIssue(issue, scrubber));
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
    super(first ? `${formatIssue(first)}${more}` : "invalid configuration");
    this.issues = issues;
    this.#found = found;
    this.#scrubber = scrubber;
    this.#sources = sources;
  }

  /** With `secrets` scrubbed before any cut: the CLI passes the password, which config never reads. */
  withSecrets(secrets: readonly string[]): ConfigError {
    return new ConfigError(this.#found, secrets, this.#sources);
  }

  /** The issue's line with a caret under its column, when it is one of a file read (snippet.ts). */
  snippetOf(issue: ConfigIssue): string[] | undefined {
    const text = this.#sources.get(issue.file);
    return text === undefined ? undefined : sourceSnippet(text, issue.line, issue.column, this.#scrubber);
  }
}

/** `doohctl.yaml:12:7: insertion_orders[0].campaigns[2].cpm: ...`, the file's text made printable. */
export function formatIssue(issue: ConfigIssue, snippet: readonly string[] = []): string {
  const where = issue.line > 0 ? `${issue.file}:${issue.line}:${issue.column}` : issue.file;
  const path = issue.path === "" ? "" : `${issue.path}: `;
  const hint = issue.hint === undefined ? "" : `\n  hint: ${printable(issue.hint)}`;
  const quoted = snippet.map((line) => `\n${line}`).join("");
  return `${printable(`${where}: ${path}${issue.message}`)}${quoted}${hint}`;
}

/** The JSON form of `validate --format json`: same text, one object per issue. */
export function issuesToJson(issues: readonly ConfigIssue[]): string {
  const rows = issues.map((i) => ({
    file: i.file,
    line: i.line,
    column: i.column,
    path: i.path,
    message: i.message,
    ...(i.hint === undefined ? {} : { hint: i.hint }),
    code: i.code,
  }));
  return `${JSON.stringify(rows, null, 2)}\n`;
}

/** Files in the order read, then line and column; stable, so issues at one place keep the stages' order. */
export function sortIssues(issues: readonly ConfigIssue[], fileOrder: readonly string[]): ConfigIssue[] {
  const rank = new Map(fileOrder.map((file, index) => [file, index]));
  return [...issues].sort(
    (a, b) => (rank.get(a.file) ?? -1) - (rank.get(b.file) ?? -1) || a.line - b.line || a.column - b.column,
  );
}
