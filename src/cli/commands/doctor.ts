/**
 * `doohctl doctor` (ARCHITECTURE.md#commands): a read-only probe of a DSP, with one fresh
 * login it looks at, and GETs within a budget (doctor/checks.ts): each assumption holds,
 * differs (and what to change), or was not checked. It never writes.
 */
import type { Command } from "commander";
import { CredentialsError, DspClientError } from "../../api/errors.js";
import type { LoginSeen } from "../../api/login-seen.js";
import type { DspClient } from "../../api/types.js";
import { loadConfig } from "../../config/load.js";
import type { ConnectionSettings } from "../../model/desired.js";
import { printable } from "../../model/printable.js";
import type { CommandModule } from "../command.js";
import { connect, connectionOf } from "../connection.js";
import { type CheckResult, runChecks } from "../doctor/checks.js";
import type { ProbeInput } from "../doctor/probe.js";
import { type KeyFinding, suggestDialect } from "../doctor/suggest.js";
import { renderSuggestion, suggestedDialect } from "../doctor/suggest-render.js";
import { reportError, UsageError } from "../errors.js";
import { type ConnectionFlags, Flag, formatOf } from "../flags.js";
import { type CliIO, EXIT } from "../io.js";

interface DoctorFlags extends ConnectionFlags {
  format: string;
  maxReads: string;
  config?: string;
  suggestDialect?: boolean;
}

const FORMATS = ["text", "json"] as const;

/** The published GET window is 100 a minute: 30 leaves room for a plan run beside it. */
export const DEFAULT_MAX_READS = 30;

export interface DoctorReport {
  format_version: 1;
  origin: string;
  environment: string;
  checks: CheckResult[];
  /** GET requests sent (retries included). */
  reads: number;
  max_reads: number;
  summary: { holds: number; differs: number; not_checked: number };
}

/** `--suggest-dialect --format json`: the mapping to paste, and what was found of each key. */
export interface DialectSuggestion {
  format_version: 1;
  origin: string;
  environment: string;
  /** `connection.dialect` as the config writes it: the keys established (or kept), only. */
  dialect: Record<string, unknown>;
  keys: KeyFinding[];
  /** Where the DSP differs and no key can express it (a list envelope, total_size, paging). */
  outside: string[];
  reads: number;
  max_reads: number;
}

export const registerDoctor: CommandModule = (program: Command, io, setExit) => {
  program
    .command("doctor")
    .addOption(Flag.format("output on stdout", FORMATS, { checkedBy: "command" }))
    .option("--max-reads <n>", "at most this many GET requests", String(DEFAULT_MAX_READS))
    .option(
      "--config <file>",
      "read `connection:` (api_origin, environment, rate_limits, dialect) from this config",
    )
    .option(
      "--suggest-dialect",
      "print the `connection.dialect` block that GETs can establish for this DSP, instead of the checks",
    )
    .addOption(Flag.ca())
    .addOption(Flag.sessionCache())
    .action(async (flags: DoctorFlags) => {
      setExit(await doctorCommand(io, flags));
    });
};

/** Exported for tests; "now" and every wait are `io.clock`'s. */
export async function doctorCommand(io: CliIO, flags: DoctorFlags): Promise<number> {
  const json = flags.format === "json";
  const fail = (error: unknown): number => {
    reportError(io, "doctor", error, flags.format);
    return EXIT.error;
  };
  const format = formatOf(flags.format, FORMATS);
  if (format instanceof UsageError) return fail(format);
  if (!/^[0-9]+$/.test(flags.maxReads) || Number(flags.maxReads) < 1 || Number(flags.maxReads) > 10_000) {
    return fail(
      new UsageError(
        `--max-reads ${flags.maxReads} is not a whole number from 1 to 10000: e.g. --max-reads 30`,
      ),
    );
  }
  const maxReads = Number(flags.maxReads);
  let client: DspClient | undefined;
  let login: LoginSeen | undefined;
  const unknownMembers = new Set<string>();
  try {
    const settings: ConnectionSettings =
      flags.config === undefined ? {} : (await loadConfig([flags.config], { cwd: io.cwd })).connection;
    // The client checks the origin (G13) before anything is sent, the doctor's login included.
    const connection = connectionOf(io, settings, { sessionCache: flags.sessionCache, caFile: flags.ca });
    client = connect(io, connection, {
      // A probe is retried once: the doctor reports what it sees rather than insisting.
      retry: { maxAttempts: 2 },
      // One login per run, and a fresh one: a cached session would leave no login to look at.
      sessionCache: false,
      onLogin: (seen) => {
        login ??= seen;
      },
      onUnknownMembers: (members) => {
        for (const m of members) unknownMembers.add(m);
      },
    }).client;
    const { apiOrigin: origin, environment } = connection;
    let noSession: string | undefined;
    try {
      await client.openSession();
    } catch (error) {
      if (error instanceof CredentialsError) {
        throw new CredentialsError(connection.user, "401 at POST /api/session");
      }
      // No session, but something to report: a login without its cookie, or a TLS handshake
      // refused (their checks say what differs). Nothing else can be probed.
      if (!(error instanceof DspClientError)) throw error;
      if (login === undefined && !handshakeRefused(origin, error)) throw error;
      noSession = `no session: ${printable(error.message)}`;
    }
    const probe = client;
    const input: ProbeInput = {
      send: (request, options) => probe.send(request, options),
      dialect: probe.dialect,
      endpoints: probe.endpoints,
      reads: () => probe.stats().reads,
      maxReads,
      login,
      origin,
      environment,
      unknownMembers,
      ...(noSession !== undefined ? { stopped: noSession } : {}),
    };
    if (flags.suggestDialect) {
      const { keys, outside } = await suggestDialect(input);
      const reads = probe.stats().reads;
      const suggestion: DialectSuggestion = {
        format_version: 1,
        origin,
        environment,
        dialect: suggestedDialect(keys),
        keys,
        outside,
        reads,
        max_reads: maxReads,
      };
      const header = [
        `doohctl doctor --suggest-dialect: ${origin} (${environment}), ${reads} of ${maxReads} reads`,
        "Paste under `connection:` (indented), or save as the file `connection.dialect` names.",
        "A commented key stays as it is: its default holds, it is not used, or it could not be established.",
      ];
      io.stdout.write(
        json ? `${JSON.stringify(suggestion, null, 2)}\n` : renderSuggestion(keys, header, outside),
      );
      // No block makes doohctl work with a DSP that differs where no key reaches.
      return outside.length === 0 ? EXIT.ok : EXIT.error;
    }
    const checks = await runChecks(input);
    const report: DoctorReport = {
      format_version: 1,
      origin,
      environment,
      checks,
      reads: probe.stats().reads,
      max_reads: maxReads,
      summary: {
        holds: checks.filter((c) => c.status === "holds").length,
        differs: checks.filter((c) => c.status === "differs").length,
        not_checked: checks.filter((c) => c.status === "not checked").length,
      },
    };
    io.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : renderDoctorText(report));
    return report.summary.differs === 0 ? EXIT.ok : EXIT.error;
  } catch (error) {
    return fail(error);
  } finally {
    await client?.close();
  }
}

/** An https:// login that failed in the TLS handshake, not for want of a network. */
function handshakeRefused(origin: string, error: Error): boolean {
  return origin.startsWith("https:") && /handshake|cipher|ssl|tls|EPROTO/i.test(error.message);
}

const STATUS_WIDTH = "not checked".length;

/** The report as text: one line a check, the change to make under each that differs. */
export function renderDoctorText(report: DoctorReport): string {
  const gapWidth = Math.max(...report.checks.map((c) => c.gap.length));
  const titleWidth = Math.max(...report.checks.map((c) => c.title.length));
  const lines = [
    `doohctl doctor: ${report.origin} (${report.environment}), ${report.reads} of ${report.max_reads} reads`,
    "",
  ];
  for (const check of report.checks) {
    lines.push(
      `${check.status.padEnd(STATUS_WIDTH)}  ${check.gap.padEnd(gapWidth)}  ${check.title.padEnd(titleWidth)}  ${check.detail}`,
    );
    if (check.status === "differs" && check.change !== undefined) {
      lines.push(`${" ".repeat(STATUS_WIDTH + gapWidth + titleWidth + 6)}change: ${check.change}`);
    }
  }
  const { holds, differs, not_checked } = report.summary;
  lines.push(
    "",
    `${holds} hold, ${differs} differ${differs === 1 ? "s" : ""}, ${not_checked} not checked` +
      (differs === 0 ? ": doohctl's assumptions hold where checked" : ": see change under each that differs"),
  );
  return `${lines.join("\n")}\n`;
}
