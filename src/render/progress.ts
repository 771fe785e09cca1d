/** Apply progress as text, from a progress view and `now`; `cli/progress.ts` owns the terminal. */
import type { ApplyRequestRecord } from "../model/apply-report.js";
import { count } from "../model/plural.js";
import { secondsLeft, type Tries, triesText } from "../model/silence.js";
import { Time } from "../model/time.js";
import { MAX_BATCH } from "../model/wire.js";
import { PHASES, type Phase } from "../plan/types.js";

export type WaitReason = "rate-limit" | "retry-after" | "backoff";

export interface ProgressView {
  done: number;
  total: number;
  /** The request being sent (or waiting for its slot). */
  current?: { seq: number; phase: number; method: string; path: string; items: number };
  /** After a stop: how many paused campaigns are being reactivated; replaces `current`. */
  restoring?: number;
  /** A wait in progress: clock time it ends, and why. */
  wait?: { until: number; reason: WaitReason };
  /** The request silent the longest: when it went, its tries and deadline; counted down after `SILENT_MS`. */
  awaiting?: { sentAt: number; deadline: number; tries: Tries };
  /** Time between two writes at the configured window (window / limit). */
  writeIntervalMs: number;
}

export function phaseName(phase: number): string {
  return PHASES[phase as Phase] ?? `phase ${phase}`;
}

/** Request durations: `312ms`, `1.2s`, `4m12s`. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return Time.formatDuration(ms);
}

/**
 * Time left: the wait in progress, then a write interval per request after the current (after a
 * stop: per reactivation PATCH of 100 campaigns).
 */
export function etaMs(view: ProgressView, now: number): number {
  const waiting = view.wait ? Math.max(0, view.wait.until - now) : 0;
  const after =
    view.restoring !== undefined
      ? Math.max(0, Math.ceil(view.restoring / MAX_BATCH) - 1)
      : Math.max(0, view.total - view.done - 1);
  return waiting + after * view.writeIntervalMs;
}

/** A request silent this long shows the countdown to its deadline on the TTY line. */
export const SILENT_MS = 2_000;

/** A countdown, rounded up: a wait that has not ended never reads "0s". */
const countdown = (ms: number) => Time.formatDuration(secondsLeft(ms) * 1000);

/** `no answer yet (attempt 1 of 4), deadline in 42s`, once the request has been silent a while. */
function awaitingText(view: ProgressView, now: number): string[] {
  const a = view.awaiting;
  if (!a || now - a.sentAt < SILENT_MS || secondsLeft(a.deadline - now) === 0) return [];
  return [`no answer yet (${triesText(a.tries)}), deadline in ${countdown(a.deadline - now)}`];
}

function waitText(wait: { until: number; reason: WaitReason }, now: number): string {
  const left = countdown(wait.until - now);
  switch (wait.reason) {
    case "rate-limit":
      return `next write slot in ${left}`;
    case "retry-after":
      return `429: retrying in ${left} (Retry-After)`;
    case "backoff":
      return `retrying in ${left}`;
  }
}

/** After a stop: `reactivating 2 paused campaigns: waiting 12s for a write slot`. */
function restoringText(
  campaigns: number,
  wait: { until: number; reason: WaitReason } | undefined,
  now: number,
) {
  const what = `reactivating ${count(campaigns, "paused campaign")}`;
  if (wait === undefined) return what;
  const text =
    wait.reason === "rate-limit"
      ? `waiting ${countdown(wait.until - now)} for a write slot`
      : waitText(wait, now);
  return `${what}: ${text}`;
}

function bar(done: number, total: number, width: number): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}

/**
 * The updating TTY line: phase, done/total, request, countdown, ETA. It never reaches the last column
 * (a wrapped line cannot be redrawn in place); narrower terminals lose the phase's name and half the
 * bar, the request, then the bar; the count and ETA stay.
 */
export function progressLine(view: ProgressView, now: number, columns = Number.POSITIVE_INFINITY): string {
  const max = Math.max(1, columns - 1);
  const activeWait = view.wait && secondsLeft(view.wait.until - now) > 0 ? view.wait : undefined;
  const wait = activeWait ? [waitText(activeWait, now)] : awaitingText(view, now);
  const eta = `ETA ${Time.formatDuration(etaMs(view, now))}`;
  const tally = `${view.done}/${view.total}`;
  const wide = `${bar(view.done, view.total, 20)} ${tally}`;
  const narrow = `${bar(view.done, view.total, 10)} ${tally}`;
  if (view.restoring !== undefined) {
    const restoring = [restoringText(view.restoring, activeWait, now), ...(activeWait ? [] : wait)];
    const short = `reactivating${wait.length > 0 ? `: ${wait[0]}` : ""}`;
    const variants = [wide, narrow, tally].map((head) => [head, ...restoring, eta]);
    return fitted([...variants, [tally, short, eta], [tally, eta]], max);
  }
  const current = view.current;
  const request = current ? [`${current.method} ${current.path} (${count(current.items, "item")})`] : [];
  const phase = current ? [`phase ${current.phase}`] : [];
  const named = current ? [`phase ${current.phase} ${phaseName(current.phase)}`] : [];
  const variants = [
    [wide, ...named, ...request, ...wait, eta],
    [narrow, ...phase, ...request, ...wait, eta],
    [narrow, ...phase, ...wait, eta],
    [tally, ...wait, eta],
    [tally, eta],
  ];
  return fitted(variants, max);
}

/** The first variant that fits in `max` columns, else the last one cut short. */
function fitted(variants: string[][], max: number): string {
  const lines = variants.map((parts) => parts.join("  "));
  const fits = lines.find((line) => line.length <= max);
  return fits ?? `${lines.at(-1)!.slice(0, Math.max(0, max - 1))}…`;
}

/** One line per finished request, for logs and CI (no TTY). */
export function requestLine(record: ApplyRequestRecord, total: number): string {
  const retries = record.attempts > 1 ? `, ${record.attempts} attempts` : "";
  const recovered =
    record.recovered === "created"
      ? " (outcome checked: created)"
      : record.recovered === "retried"
        ? " (outcome checked: not created, sent again)"
        : "";
  return (
    `[${record.seq}/${total}] phase ${record.phase} ${record.method} ${record.path} ` +
    `${count(record.items, "item")} -> ${record.status} in ${formatElapsed(record.duration_ms)}${retries}${recovered}`
  );
}

/** A wait as its own line, so a long Retry-After is never silence. */
export function waitLine(wait: { until: number; reason: WaitReason }, now: number): string {
  return `  ... ${waitText(wait, now)}`;
}
