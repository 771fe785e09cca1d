/**
 * Errors as a tool reads them: with `--format json`, `{"errors": [{"code", "message", "location"}]}`
 * on stdout, each with the typed error's (or config issue's) code to branch on.
 */
import { NetworkError } from "../api/errors.js";
import { ConfigError, formatIssue } from "../config/issues.js";
import type { Finding } from "../plan/types.js";
import { textWithoutEnvSecrets, withoutEnvSecrets } from "./config-secrets.js";
import type { CliIO } from "./io.js";

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
  return [{ code, message: plainMessage(error), location: null }];
}

/** A failed connection's cause as what to do: raw OpenSSL or socket text says neither (its code stays). */
const CONNECTION_ADVICE: readonly [RegExp, string][] = [
  [
    /^ERR_SSL_WRONG_VERSION_NUMBER$/,
    "the server does not speak TLS there: api_origin's port serves plain http, or it is the wrong port; check api_origin",
  ],
  [
    /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_UNTRUSTED)$/,
    "the DSP's certificate is not signed by a CA this machine trusts: for a private CA, pass --ca FILE (PEM) or set NODE_EXTRA_CA_CERTS",
  ],
  [
    /^CERT_HAS_EXPIRED$/,
    "the DSP's certificate has expired: tell the DSP's operators (doohctl sends no credentials over it)",
  ],
  [
    /^ERR_TLS_CERT_ALTNAME_INVALID$/,
    "the DSP's certificate is for another host name: check the host in api_origin",
  ],
  [
    /^(ERR_SSL_|EPROTO$)/,
    "the TLS handshake failed: the server offers neither TLS 1.2 or 1.3 nor a cipher suite the DSP's specification lists (docs/api-client.md)",
  ],
  [
    /^(ENOTFOUND|EAI_AGAIN)$/,
    "the host in api_origin does not resolve: check its spelling, and the network's DNS",
  ],
  [
    /^ECONNREFUSED$/,
    "nothing accepts connections at api_origin: check the host and port (for the emulator: is doohctl emulator running?)",
  ],
  [
    /^(ECONNRESET|UND_ERR_SOCKET|EPIPE)$/,
    "the connection was cut: a proxy or firewall may be in the way; try again",
  ],
];

function causeCode(error: Error): string | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code !== "NETWORK_ERROR") return code;
  }
  return undefined;
}

/** A decision cited as `(G13)` or `(G12: page 0..100)`, as a link into docs/assumptions.md. */
export function withoutGapNumbers(text: string): string {
  return text
    .replace(/\(G(\d+)(?: rule \d+)?\)/g, "(see docs/assumptions.md#g$1)")
    .replace(/\(G(\d+)(?: rule \d+)?: ([^)]*)\)/g, "($2; see docs/assumptions.md#g$1)");
}

/** An error's message, with a failed connection's raw cause replaced by what to do. */
export function plainMessage(error: unknown): string {
  if (error instanceof NetworkError) {
    const code = causeCode(error);
    const advice = code === undefined ? undefined : CONNECTION_ADVICE.find(([pattern]) => pattern.test(code));
    if (advice) return `${error.method} ${error.path}: no answer from the DSP: ${advice[1]} (${code})`;
  }
  return withoutGapNumbers(error instanceof Error ? error.message : String(error));
}

export function renderJsonErrors(errors: readonly JsonError[]): string {
  return `${JSON.stringify({ errors }, null, 2)}\n`;
}

/** Reports a command's error in the format the user asked for; the caller sets the exit code. */
export function reportError(io: CliIO, command: string, thrown: unknown, format: string | undefined): void {
  const error = thrown instanceof ConfigError ? withoutEnvSecrets(thrown, io.env) : thrown;
  if (format === "json") {
    const errors = jsonErrorsOf(error).map((e) =>
      error instanceof ConfigError ? e : { ...e, message: textWithoutEnvSecrets(e.message, io.env) },
    );
    io.stdout.write(renderJsonErrors(errors));
  } else if (error instanceof ConfigError) io.stderr.write(configErrorText(error, io.stderr.isTTY));
  else io.stderr.write(`doohctl ${command}: ${textWithoutEnvSecrets(plainMessage(error), io.env)}\n`);
}

/** A config error's issues as text; at a terminal with the line and a caret (src/config/snippet.ts). */
export function configErrorText(error: ConfigError, terminal: boolean): string {
  const issues = error.issues.map((issue) =>
    formatIssue(issue, terminal ? error.snippetOf(issue) : undefined),
  );
  return `${issues.join("\n")}\n`;
}

/** A flag's value or combination the command cannot take: `USAGE`, as commander's own (program.ts). */
export class UsageError extends Error {
  override readonly name = "UsageError";
  readonly code = "USAGE";
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
