/** How doctor runs a check: GETs within the budget, whatever comes back a verdict, never a crash. */
import { contractPath, type DspEndpoints } from "../../api/endpoints.js";
import {
  ApiError,
  ContractError,
  CredentialsError,
  DspClientError,
  NetworkError,
  RetryBudgetError,
  TimeoutError,
  unreadableAnswer,
} from "../../api/errors.js";
import type { LoginSeen } from "../../api/login-seen.js";
import type { ApiRequest } from "../../api/types.js";
import { DIALECT_KEYS, type Dialect } from "../../model/dialect.js";
import { printable } from "../../model/printable.js";
import type { Environment } from "../../model/wire.js";
import { isInt, isObj, members, type Obj } from "./seen.js";

export type CheckStatus = "holds" | "differs" | "not checked";

export interface CheckResult {
  id: string;
  /** The gap decision (G1..G14) or `spec` the check rests on. */
  gap: string;
  title: string;
  status: CheckStatus;
  /** What was seen (holds, differs) or why not (not checked). Printable text. */
  detail: string;
  /** What to change should it differ: the dialect key that adapts it, else doohctl's files and decision. */
  change?: string;
}

export interface ProbeInput {
  /** One GET through the client; `raw`: the answer as it came, neither renamed nor judged. */
  send: (request: ApiRequest & { method: "GET" }, options?: { raw?: boolean }) => Promise<unknown>;
  /** The dialect the client speaks (`connection.dialect`), and its endpoints: where to probe. */
  dialect: Dialect;
  endpoints: DspEndpoints;
  /** Reads spent so far (the client's count, retries included). */
  reads: () => number;
  maxReads: number;
  /** The client's one login; undefined when the TLS handshake failed (`stopped` says how). */
  login: LoginSeen | undefined;
  origin: string;
  environment: Environment;
  /** Members the answers held that the contract does not name (G14), filled in as the probes read. */
  unknownMembers: ReadonlySet<string>;
  /** Why no probe can run (no session); undefined when they can. */
  stopped?: string;
}

/** A GET's outcome: the JSON body, or the refusal or error the client reported. */
export type Answer =
  | { ok: true; body: unknown }
  | {
      ok: false;
      status: number | undefined;
      message: string;
      fields: string[];
      /** The contract issues the client refused the answer for, when it did. */
      issues?: ReadonlyArray<{ at: string; expected: string }>;
    };

/** A list answer as seen: its items, its total_size, and what is wrong with its envelope. */
export interface ListSeen {
  envelope: string;
  items: Obj[];
  total: number | undefined;
  problems: string[];
  /** Ids in answer order, when the answer had the array. */
  ids: string[] | undefined;
  /** The refusal or client error, when there was no answer to read. */
  failed?: Answer & { ok: false };
}

export interface CheckSpec {
  id: string;
  gap: string;
  title: string;
  change: string;
  /** GETs the check sends. */
  reads: number;
  /** Why it cannot run even with reads to spare (e.g. no campaign to probe). */
  missing?: string | undefined;
}

export interface Verdict {
  problems: string[];
  /** What holds, for the report. */
  holds: string;
  /** The dialect keys that would adapt what differs (DIALECT_KEYS), when one does. */
  keys?: readonly string[];
}

/** `connection.dialect.progress.member (G2)`: a dialect key as a report names it. */
export function dialectKeyWords(key: string): string {
  const gap = DIALECT_KEYS.find((k) => k.key === key)?.gap;
  return `connection.dialect.${key}${gap ? ` (${gap})` : ""}`;
}

export class Probe {
  readonly results: CheckResult[] = [];
  /** Every list answer read, for the checks across lists (total_size, default order). */
  readonly lists: ListSeen[] = [];
  /** Every answer read, by path: its body, or the contract issues the client refused it for. */
  readonly answers: Array<{
    path: string;
    issues: ReadonlyArray<{ at: string; expected: string }> | undefined;
  }> = [];
  /** Why no further GET is sent, when it is not the budget. */
  private stopped: string | undefined;
  private readonly input: ProbeInput;

  constructor(input: ProbeInput) {
    this.input = input;
    this.stopped = input.stopped;
    // G13: staging has no DSP interface; every GET would be a 404.
    if (input.environment === "staging" && this.stopped === undefined)
      this.stopped = "the DSP interface exists in production only (G13) and this is staging";
  }

  add(result: CheckResult): void {
    this.results.push(result);
  }

  /** Why a check of `reads` GETs is not run now, or undefined when it can be. */
  private whyNot(reads: number): string | undefined {
    if (this.stopped !== undefined) return this.stopped;
    const spent = this.input.reads();
    if (this.input.maxReads - spent < reads)
      return `read budget exhausted (${spent} of ${this.input.maxReads} reads spent; raise --max-reads)`;
    return undefined;
  }

  async check(spec: CheckSpec, run: () => Promise<Verdict>): Promise<void> {
    const { reads: _reads, missing: _missing, ...base } = spec;
    const why = this.whyNot(spec.reads) ?? spec.missing;
    if (why !== undefined) {
      this.add({ ...base, status: "not checked", detail: why });
      return;
    }
    let verdict: Verdict;
    try {
      verdict = await run();
    } catch (error) {
      if (!(error instanceof NoAnswer)) throw error;
      this.stopped = `an earlier probe got no answer (${error.message})`;
      this.add({ ...base, status: "not checked", detail: `no answer (${error.message})` });
      return;
    }
    const { problems, holds, keys = [] } = verdict;
    // Where a dialect key adapts what differs, that key is the change; a source file otherwise.
    const change = keys.length > 0 ? keys.map(dialectKeyWords).join(" or ") : spec.change;
    this.add(
      problems.length === 0
        ? { ...base, status: "holds", detail: holds }
        : { ...base, change, status: "differs", detail: problems.join("; ") },
    );
  }

  /** Whether `reads` more GETs fit the budget (and nothing stopped the probes). */
  canRead(reads = 1): boolean {
    return this.whyNot(reads) === undefined;
  }

  /** Why no further GET is sent (the budget, no session, staging), or undefined. */
  get stop(): string | undefined {
    return this.whyNot(1);
  }

  /** One GET, judged by the client unless `raw`; a judged one is recorded for the G14 checks (members.ts). */
  async read(
    path: string,
    query: Array<[string, string]> = [],
    options: { raw?: boolean } = {},
  ): Promise<Answer> {
    const request: ApiRequest & { method: "GET" } =
      query.length > 0 ? { method: "GET", path, query } : { method: "GET", path };
    const contract = contractPath(this.input.dialect, "GET", path);
    try {
      const body = await this.input.send(request, options.raw ? { raw: true } : {});
      if (!options.raw) this.answers.push({ path: contract, issues: undefined });
      return { ok: true, body };
    } catch (error) {
      if (error instanceof ContractError) {
        this.answers.push({ path: contract, issues: error.issues });
        // What differs, without the advice a command's error gives: doctor's report is the advice.
        const message = printable(`${error.method} ${error.path}: ${unreadableAnswer(error)}`);
        return { ok: false, status: undefined, message, fields: [], issues: error.issues };
      }
      if (error instanceof ApiError) {
        return {
          ok: false,
          status: error.status,
          message: printable(error.apiMessage),
          fields: error.data.map((d) => d.field),
        };
      }
      // No answer, or only 429s: the rest would fare the same. Refused credentials end the run.
      if (error instanceof NetworkError || error instanceof TimeoutError || error instanceof RetryBudgetError)
        throw new NoAnswer(printable(error.message));
      if (error instanceof CredentialsError) throw error;
      // A typed client error (a stable `code`; a bug has none) is an answer that differs.
      if (error instanceof DspClientError || isTyped(error))
        return { ok: false, status: undefined, message: printable(error.message), fields: [] };
      throw error;
    }
  }

  /** Spec, list envelope: the array named `envelope` and an integer `total_size`. */
  async readList(envelope: string, path: string, query: Array<[string, string]>): Promise<ListSeen> {
    const answer = await this.read(path, query);
    if (!answer.ok) {
      return {
        envelope,
        items: [],
        total: undefined,
        problems: [failure(answer)],
        ids: undefined,
        failed: answer,
      };
    }
    const body = answer.body;
    const problems: string[] = [];
    const array = isObj(body) ? body[envelope] : undefined;
    if (!Array.isArray(array)) problems.push(`no "${envelope}" array (saw members ${members(body)})`);
    const total = isObj(body) && isInt(body.total_size) ? body.total_size : undefined;
    if (total === undefined) problems.push(`no integer total_size (saw members ${members(body)})`);
    const items = Array.isArray(array) ? array.filter(isObj) : [];
    const ids = Array.isArray(array)
      ? items.map((i) => i.id).filter((id): id is string => typeof id === "string")
      : undefined;
    const seen = { envelope, items, total, problems, ids };
    this.lists.push(seen);
    return seen;
  }
}

/** A probe that got no answer to judge by: its check, and every later one, is not checked. */
class NoAnswer extends Error {
  override readonly name = "NoAnswer";
}

function isTyped(error: unknown): error is Error & { code: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === "string";
}

/** A refusal or client error, as a report says it. */
export function failure(answer: Answer & { ok: false }): string {
  return answer.status === undefined ? answer.message : `answered ${answer.status} ${answer.message}`;
}
