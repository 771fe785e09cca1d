/**
 * load config -> connection -> client -> live state -> plan, for plan and apply: read
 * progress on stderr, the client left open for the caller (apply writes with it) to close.
 */
import type { Document } from "yaml";
import type { PacingLog } from "../api/pacing-log.js";
import type { DspClient } from "../api/types.js";
import { RecoveryStore } from "../apply/recovery.js";
import { loadConfigAtRevision, resolveRevision } from "../config/git.js";
import { formatIssue } from "../config/issues.js";
import { loadConfig } from "../config/load.js";
import type { DesiredState } from "../model/desired.js";
import type { RateWindow } from "../model/limits.js";
import { printable } from "../model/printable.js";
import type { RecordedPause } from "../model/recovery.js";
import { Time } from "../model/time.js";
import type { Campaign } from "../model/wire.js";
import { changedSince } from "../plan/changes/changed.js";
import { obeyedEntries, recordFindings } from "../plan/changes/recovered.js";
import { createPlan } from "../plan/planner.js";
import { readLiveState } from "../plan/read.js";
import type { ChangedScope, LiveState, Plan, PlanThresholds } from "../plan/types.js";
import { type Connection, type ConnectOptions, connect, connectionOf } from "./connection.js";
import { UsageError } from "./errors.js";
import type { CliIO } from "./io.js";
import { createReadProgress } from "./read-progress.js";
import { TOOL_VERSION } from "./version.js";

/** The connection's flags (`--no-session-cache`, `--ca`, `--max-wait`) and the plan's. */
export interface PipelineOptions extends ConnectOptions {
  paths: readonly string[];
  targets: readonly string[];
  /** `--changed-since REF`: plan only what differs from the config at this git revision. */
  changedSince?: string | undefined;
  thresholds?: PlanThresholds | undefined;
  /** `--allow CODE`: policy denials that become warnings (or a saved plan's `allowed`). */
  allowed?: readonly string[] | undefined;
  /** `--max-pause`: the longest estimated pause of a campaign for a targeting change. */
  maxPauseMs?: number | undefined;
  /** Keep each config file's text and parsed document (`PlanRun.documents`): pull edits them. */
  keepDocuments?: boolean;
}

/** A config file's text and the document the load parsed from it, by the name messages use. */
export type ParsedFiles = Map<string, { text: string; document: Document }>;

export interface PlanRun {
  plan: Plan;
  client: DspClient;
  desired: DesiredState;
  live: LiveState;
  connection: Connection;
  /** The account's recovery record, and the entries this plan took into account. */
  recovery: RecoveryStore;
  recorded: RecordedPause[];
  /** With `keepDocuments`. */
  documents?: ParsedFiles;
}

export async function loadAndPlan(io: CliIO, options: PipelineOptions): Promise<PlanRun> {
  const documents: ParsedFiles | undefined = options.keepDocuments ? new Map() : undefined;
  const desired = await loadConfig(options.paths, {
    cwd: io.cwd,
    onWarning: (warning) => io.stderr.write(`doohctl: warning: ${formatIssue(warning)}\n`),
    ...(documents ? { onDocument: (file, text, document) => documents.set(file, { text, document }) } : {}),
  });
  const changed = options.changedSince !== undefined ? await changedScope(io, options, desired) : undefined;
  const connection = connectionOf(io, desired.connection, { ...options, state: true });
  const { client, pacing } = connect(io, connection);
  try {
    const run = await readAndPlan(io, { ...options, desired, client, connection, pacing, changed });
    return documents ? { ...run, documents } : run;
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** Reads the live state (and the recovery record) a desired state needs, and plans. */
export async function readAndPlan(
  io: CliIO,
  options: Omit<PipelineOptions, "paths" | keyof ConnectOptions | "changedSince"> & {
    desired: DesiredState;
    client: DspClient;
    connection: Connection;
    pacing?: PacingLog | undefined;
    /** `--changed-since`, worked out, or a saved plan's scope. */
    changed?: ChangedScope | undefined;
  },
): Promise<PlanRun> {
  const { desired, client, connection, changed } = options;
  const clock = io.clock;
  // From the first request, the login too: an origin that does not answer says so per attempt.
  const display = createReadProgress({ sink: io.stderr, clock });
  const offApi = client.on((event) => display.onApi(event));
  const { recovery, record, live } = await (async () => {
    const recovery = await recoveryStoreFor(io, connection, client);
    const record = recovery.readAll();
    const declaredIos = new Set(desired.insertionOrders.map((o) => o.id));
    const live = await readLiveState(client, desired, {
      targets: options.targets,
      ...(changed ? { changed } : {}),
      // Entries of undeclared insertion orders are never obeyed: nothing to read for them.
      recordedCampaigns: record.pauses
        .filter((e) => declaredIos.has(e.insertion_order_id))
        .map((e) => e.campaign_id),
      onProgress: (p) => display.onStep(p),
    });
    return { recovery, record, live };
  })().finally(() => {
    display.stop();
    offApi();
  });
  const { obeyed, issues } = obeyedEntries(desired, live.campaigns, record.pauses);
  const recorded = settleRecord(io, recovery, obeyed, live);
  const plan = createPlan(desired, live, {
    now: Time.fromMillis(clock.now()),
    toolVersion: TOOL_VERSION,
    connection: {
      api_origin: connection.apiOrigin,
      environment: connection.environment,
      user: connection.user,
    },
    targets: options.targets,
    ...(changed ? { changed } : {}),
    writeWindowBusyMs: writeSlotsHeld(options.pacing, connection.rateLimits.write, clock.now()),
    rateLimits: connection.rateLimits,
    recorded,
    recordIssues: [...record.issues, ...issues],
    ...(options.thresholds ? { thresholds: options.thresholds } : {}),
    ...(options.allowed && options.allowed.length > 0 ? { allowed: options.allowed } : {}),
    ...(options.maxPauseMs !== undefined ? { maxPauseMs: options.maxPauseMs } : {}),
  });
  return { plan, client, desired, live, connection, recovery, recorded };
}

/**
 * The recovery record of the account this run logs in to (docs/safety.md, Recovery record):
 * keyed by origin, environment, the G9 `account_id` of this run's login (never the session
 * cache's word) and `connection.account`, so two configured accounts never read each other's.
 * Its directory was checked with the connection (`state: true`), before the login.
 */
export async function recoveryStoreFor(
  io: CliIO,
  connection: Connection,
  client: DspClient,
): Promise<RecoveryStore> {
  return new RecoveryStore(
    connection.stateDir!,
    {
      origin: connection.apiOrigin,
      environment: connection.environment,
      account_id: await client.accountId(),
      ...(connection.account ? { account: connection.account.name } : {}),
    },
    { clock: io.clock, legacyUser: connection.account ? undefined : connection.user },
  );
}

/**
 * The record's entries this config may obey (status), warning of each not acted on (plan makes
 * them DOOH205, DOOH206); `unreadable` counts what cannot be read: its campaigns may be paused.
 */
export function readRecord(
  io: CliIO,
  recovery: RecoveryStore,
  desired: DesiredState,
  campaigns: readonly Campaign[],
): { pauses: RecordedPause[]; unreadable: number } {
  const record = recovery.readAll();
  const { obeyed, issues } = obeyedEntries(desired, campaigns, record.pauses);
  const all = [...record.issues, ...issues];
  for (const f of recordFindings(all))
    io.stderr.write(`doohctl: ${f.severity} ${f.code}: ${printable(f.message)}\n`);
  return { pauses: obeyed, unreadable: all.filter((i) => i.kind === "unreadable").length };
}

/** Drops entries of campaigns active again or gone; the rest a plan reactivates (DOOH202) or leaves. */
function settleRecord(
  io: CliIO,
  recovery: RecoveryStore,
  entries: readonly RecordedPause[],
  live: LiveState,
): RecordedPause[] {
  const active = new Map(live.campaigns.map((c) => [c.id, c.active]));
  const settled = (e: RecordedPause) => !e.owner_running && (active.get(e.campaign_id) ?? true);
  try {
    recovery.drop(entries.filter(settled).map((e) => e.campaign_id));
  } catch (error) {
    io.stderr.write(
      `doohctl: warning: could not tidy the recovery record: ${(error as Error).message}; it is read again next run\n`,
    );
  }
  return entries.filter((e) => !settled(e));
}

/** For each write slot other runs hold now, the ms until it frees (the plan's apply estimate). */
function writeSlotsHeld(pacing: PacingLog | undefined, window: RateWindow, now: number): number[] {
  if (!pacing) return [];
  return pacing.others("write", now - window.windowMs).map((at) => at + window.windowMs - now);
}

/** `--changed-since REF`: the config at REF against the working tree's (no checkout). */
async function changedScope(io: CliIO, options: PipelineOptions, head: DesiredState): Promise<ChangedScope> {
  const ref = options.changedSince ?? "";
  if (options.targets.length > 0) {
    throw new UsageError("--changed-since and --target both narrow the plan: use one of them");
  }
  const revision = await resolveRevision(io, ref);
  const base = await loadConfigAtRevision(options.paths, { cwd: io.cwd, revision });
  return changedSince(base, head, { since: ref, commit: revision.commit });
}
