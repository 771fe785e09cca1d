/**
 * The one progress display on stderr, for reads (read-progress.ts) and writes (apply, below),
 * each in its own words (`ProgressVoice`). On a TTY: one line redrawn at every event and every
 * second, lines of their own above it. Elsewhere: a line for a wait that looks like a hang, and
 * one for a request silent `NOTICE_MS`. A wait under a second is never shown ("0s").
 */

import type { ApiEvent } from "../api/types.js";
import type { ApplyEvent } from "../apply/events.js";
import type { Clock } from "../model/clock.js";
import type { RateWindow } from "../model/limits.js";
import { own } from "../model/printable.js";
import { noAnswerText, secondsLeft, triesText } from "../model/silence.js";
import { Time } from "../model/time.js";
import {
  type ProgressView,
  phaseName,
  progressLine,
  requestLine,
  SILENT_MS,
  waitLine,
} from "../render/progress.js";
import type { TextSink } from "./io.js";

/** Non-TTY: rate-limit waits shorter than this are routine pacing, not worth a line. */
const QUIET_WAIT_MS = 5_000;
/** Non-TTY: a request silent this long gets a line saying so, once. */
const NOTICE_MS = 10_000;
/** The redraw, in doohctl's own sequences (src/model/printable.ts). */
const LINE_START = own("\r");
const ERASE_REST = own("\x1b[K");
const CLEAR_LINE = LINE_START + ERASE_REST;
/** A terminal that does not say its width is taken to be this wide (the classic 80). */
const DEFAULT_COLUMNS = 80;

export type WaitEvent = Extract<ApiEvent, { type: "wait" }>;
export type SentEvent = Extract<ApiEvent, { type: "sent" }>;
type ResponseEvent = Extract<ApiEvent, { type: "response" }>;
type Sent = SentEvent & { sentAt: number };

/** What a command's progress says; the display decides when. */
export interface ProgressVoice {
  /** The TTY line now, or undefined for none: the wait (ended or not) and the request silent longest. */
  line(activity: { wait: WaitEvent | undefined; silent: Sent | undefined }, now: number): string | undefined;
  /** A wait long enough to look like a hang, as a line of its own. */
  waitLine(wait: WaitEvent, now: number): string;
  /** Non-TTY: a request without an answer for `silentMs`. */
  silentLine(sent: SentEvent, silentMs: number, now: number): string;
  /** A line for an answer (`sent` is its attempt, when seen), or undefined for none. */
  responseLine(response: ResponseEvent, sent: SentEvent | undefined): string | undefined;
}

export interface ProgressTiming {
  /** Redraw (TTY) and silence check period, in real milliseconds. @default 1000 */
  tickMs?: number;
  /** TTY: how long a request is silent before its countdown shows. @default 2000 */
  silentMs?: number;
  /** Non-TTY: how long a request is silent before a line says so. @default 10000 */
  noticeMs?: number;
}

/** The display itself; the commands' adapters below and in read-progress.ts feed it. */
export interface Progress {
  onApi(event: ApiEvent): void;
  /** A line of its own; on a TTY the line is redrawn under it unless `redraw` is false. */
  say(text: string, options?: { redraw?: boolean }): void;
  draw(): void;
  /** Starts the redraw and silence checks (already running once a request is out). */
  ticking(): void;
  /** The wait is over (a new step began). */
  clearWait(): void;
  /** Requests out are no longer waited for (abandoned by a signal). */
  forgetInFlight(): void;
  /** Ends the display: the TTY line is left as drawn last (`keep`) or cleared. Safe to call twice. */
  stop(options: { keep: boolean }): void;
}

export function progress(
  options: { sink: TextSink; clock: Clock; voice: ProgressVoice } & ProgressTiming,
): Progress {
  const { sink, clock, voice } = options;
  const tty = sink.isTTY;
  let wait: WaitEvent | undefined;
  const inFlight = new Map<number, Sent>();
  const noticed = new Set<number>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let drawn = false;
  let stopped = false;
  const clear = () => {
    if (drawn) sink.write(CLEAR_LINE);
    drawn = false;
  };
  /** The request silent the longest, once it has been silent `silentMs` and its deadline is ahead. */
  const silent = (now: number) => {
    let oldest: Sent | undefined;
    for (const sent of inFlight.values()) {
      const quiet = now - sent.sentAt >= (options.silentMs ?? SILENT_MS) && sent.deadline > now;
      if (quiet && (!oldest || sent.sentAt < oldest.sentAt)) oldest = sent;
    }
    return oldest;
  };
  const draw = () => {
    if (!tty || stopped) return;
    const now = clock.now();
    const text = voice.line({ wait, silent: silent(now) }, now);
    if (text === undefined) return clear();
    sink.write(`${LINE_START}${text}${ERASE_REST}`);
    drawn = true;
  };
  const say = (text: string, sayOptions: { redraw?: boolean } = {}) => {
    clear();
    sink.write(`${text}\n`);
    if (sayOptions.redraw !== false) draw();
  };
  const tick = () => {
    if (tty) return draw();
    const now = clock.now();
    for (const sent of inFlight.values()) {
      const silentMs = now - sent.sentAt;
      if (silentMs < (options.noticeMs ?? NOTICE_MS) || noticed.has(sent.id)) continue;
      noticed.add(sent.id);
      say(voice.silentLine(sent, silentMs, now));
    }
  };
  const ticking = () => {
    if (timer || stopped) return;
    timer = setInterval(tick, options.tickMs ?? 1000);
    timer.unref?.();
  };
  const onWait = (event: WaitEvent) => {
    // A wait under a second is no hang, and would count down from "0s".
    if (event.waitMs < 1000) return;
    if (!tty) {
      if (event.reason !== "rate-limit" || event.waitMs >= QUIET_WAIT_MS)
        say(voice.waitLine(event, clock.now()));
      return;
    }
    wait = event;
    draw();
    ticking();
  };
  return {
    onApi(event) {
      switch (event.type) {
        case "sent":
          inFlight.set(event.id, { ...event, sentAt: clock.now() });
          ticking();
          return;
        case "response": {
          const sent = inFlight.get(event.id);
          inFlight.delete(event.id);
          noticed.delete(event.id);
          const text = voice.responseLine(event, sent);
          if (text !== undefined) say(text);
          else draw();
          return;
        }
        case "wait":
          onWait(event);
          return;
        default:
          return;
      }
    },
    say,
    draw,
    ticking,
    clearWait: () => {
      wait = undefined;
    },
    forgetInFlight: () => {
      inFlight.clear();
      noticed.clear();
    },
    stop({ keep }) {
      if (timer) clearInterval(timer);
      timer = undefined;
      if (stopped) return;
      if (keep && tty && drawn) {
        draw();
        sink.write("\n");
        drawn = false;
      } else clear();
      stopped = true;
    },
  };
}

/** `42s`, rounded up: a wait that has not ended never reads "0s". */
export const countdown = (ms: number) => Time.formatDuration(secondsLeft(ms) * 1000);

/** `no answer after 60s (attempt 1 of 4)` or `no connection (attempt 2 of 4)`; undefined for an answer. */
export function unansweredText(sent: SentEvent, status: ResponseEvent["status"]): string | undefined {
  if (status === "timeout") return noAnswerText(sent.timeoutMs, sent.tries);
  if (status === "network-error") return `no connection (${triesText(sent.tries)})`;
  return undefined;
}

/** `no answer yet after 10s (attempt 1 of 4); deadline in 50s`. */
export function stillSilentText(sent: SentEvent, silentMs: number, now: number): string {
  return `no answer yet after ${Math.round(silentMs / 1000)}s (${triesText(sent.tries)}); deadline in ${countdown(sent.deadline - now)}`;
}

export interface ProgressDisplay {
  onEvent(event: ApplyEvent): void;
  /** Ends the display (clears the TTY line's timer); safe to call twice. */
  stop(): void;
}

/** apply's words: the TTY line is the progress bar (render/progress.ts), lines start `  ... `. */
function applyVoice(view: ProgressView, sink: TextSink): ProgressVoice {
  return {
    line: ({ wait, silent }, now) => {
      if (wait) view.wait = { until: wait.until, reason: wait.reason };
      else delete view.wait;
      if (silent) view.awaiting = { sentAt: silent.sentAt, deadline: silent.deadline, tries: silent.tries };
      else delete view.awaiting;
      return progressLine(view, now, sink.columns ?? DEFAULT_COLUMNS);
    },
    waitLine: (wait, now) => waitLine(wait, now),
    silentLine: (sent, silentMs, now) =>
      `  ... ${sent.method} ${sent.path}: ${stillSilentText(sent, silentMs, now)}`,
    responseLine: (response, sent) => {
      const { method, path, status, attempt } = response;
      const unanswered = sent && unansweredText(sent, status);
      if (unanswered !== undefined) return `  ... ${method} ${path}: ${unanswered}`;
      if (typeof status === "number")
        return status >= 429 && response.class === "write"
          ? `  ... ${method} ${path} answered ${status} (attempt ${attempt})`
          : undefined;
      return `  ... ${method} ${path}: ${status} (attempt ${attempt})`;
    },
  };
}

/**
 * apply's progress: on a TTY the bar, countdown and ETA; elsewhere a line per phase and request.
 * After a stop it names the reactivation, and nothing is drawn once its outcome is said.
 */
export function createProgressDisplay(
  options: { sink: TextSink; clock: Clock; writeWindow: RateWindow } & ProgressTiming,
): ProgressDisplay {
  const { sink } = options;
  const tty = sink.isTTY;
  const view: ProgressView = {
    done: 0,
    total: 0,
    writeIntervalMs: options.writeWindow.windowMs / options.writeWindow.limit,
  };
  const display = progress({ ...options, voice: applyVoice(view, sink) });
  let phase: number | undefined;
  const stop = () => display.stop({ keep: view.restoring === undefined });
  return {
    onEvent(event) {
      switch (event.type) {
        case "start":
          view.total = event.total;
          if (tty && event.total > 0) display.ticking();
          display.draw();
          return;
        case "request":
          view.current = {
            seq: event.seq,
            phase: event.phase,
            method: event.method,
            path: event.path,
            items: event.items,
          };
          display.clearWait();
          if (!tty && event.phase !== phase) display.say(`phase ${event.phase}: ${phaseName(event.phase)}`);
          phase = event.phase;
          display.draw();
          return;
        case "applied":
          view.done = event.done;
          display.clearWait();
          if (!tty) display.say(requestLine(event.record, event.total));
          display.draw();
          return;
        case "api":
          display.onApi(event.event);
          return;
        case "check":
          // The reactivation's lines end the display's story: its next wait or tick redraws.
          display.say(`  ${event.message}`, { redraw: view.restoring === undefined });
          return;
        case "abandoned":
        case "unsent":
          // An attempt stopped by the signal never gets its response event.
          display.clearWait();
          display.forgetInFlight();
          display.draw();
          return;
        case "restore":
          // From here on the waits are the reactivation's, not the stopped request's.
          delete view.current;
          display.clearWait();
          display.forgetInFlight();
          view.restoring = event.campaigns;
          display.draw();
          return;
        case "failed":
          display.clearWait();
          display.say(requestLine(event.failure.request, view.total));
          return;
        case "finish":
          stop();
          return;
      }
    },
    stop,
  };
}
