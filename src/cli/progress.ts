/**
 * Drives the apply's progress display on stderr. On a TTY: one line redrawn in place, every
 * event and every second (the countdown to the next write slot moves even while nothing
 * happens). Elsewhere: one line per request, and a line for every wait that is long enough
 * to look like a hang, so a Retry-After is never silence. A request without an answer shows
 * a countdown to its deadline on the TTY line, and one that times out or cannot connect says
 * so with its attempt count (issue 22); a wait under a second is not shown (never "0s").
 */

import type { ApiEvent } from "../api/types.js";
import type { ApplyEvent } from "../apply/events.js";
import type { Clock } from "../model/clock.js";
import type { RateWindow } from "../model/limits.js";
import { noAnswerText, triesText } from "../model/silence.js";
import {
  type ProgressView,
  phaseName,
  progressLine,
  requestLine,
  type WaitReason,
  waitLine,
} from "../render/progress.js";
import type { TextSink } from "./io.js";

export interface ProgressDisplay {
  onEvent(event: ApplyEvent): void;
  /** Ends the display (clears the TTY line's timer); safe to call twice. */
  stop(): void;
}

/** A terminal that does not say its width is taken to be this wide (the classic 80). */
const DEFAULT_COLUMNS = 80;

/** Non-TTY: rate-limit waits shorter than this are routine pacing, not worth a line. */
const QUIET_WAIT_MS = 5_000;

export function createProgressDisplay(options: {
  sink: TextSink;
  clock: Clock;
  writeWindow: RateWindow;
  /** Redraw period of the TTY line, in real milliseconds. @default 1000 */
  tickMs?: number;
}): ProgressDisplay {
  const { sink, clock } = options;
  const tty = sink.isTTY;
  const view: ProgressView = {
    done: 0,
    total: 0,
    writeIntervalMs: options.writeWindow.windowMs / options.writeWindow.limit,
  };
  let drawn = false;
  let phase: number | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  /** Attempts out without an answer, by the id of their `sent` event. */
  const inFlight = new Map<number, Extract<ApiEvent, { type: "sent" }> & { sentAt: number }>();
  const awaitOldest = () => {
    let oldest: { sentAt: number; deadline: number; tries: { attempt: number; of: number } } | undefined;
    for (const s of inFlight.values()) if (!oldest || s.sentAt < oldest.sentAt) oldest = s;
    if (oldest) view.awaiting = { sentAt: oldest.sentAt, deadline: oldest.deadline, tries: oldest.tries };
    else delete view.awaiting;
  };

  const draw = () => {
    if (!tty) return;
    sink.write(`\r${progressLine(view, clock.now(), sink.columns ?? DEFAULT_COLUMNS)}\x1b[K`);
    drawn = true;
  };
  /** A line of its own: above the TTY bar, or simply a line. */
  const say = (text: string) => {
    sink.write(tty && drawn ? `\r\x1b[K${text}\n` : `${text}\n`);
    draw();
  };
  const setWait = (until: number, reason: WaitReason, waitMs: number) => {
    // A wait under a second is no hang, and would count down from "0s".
    if (waitMs < 1000) return;
    view.wait = { until, reason };
    if (tty) draw();
    else if (reason !== "rate-limit" || waitMs >= QUIET_WAIT_MS) say(waitLine(view.wait, clock.now()));
  };

  return {
    onEvent(event) {
      switch (event.type) {
        case "start":
          view.total = event.total;
          if (tty && event.total > 0) {
            timer = setInterval(draw, options.tickMs ?? 1000);
            timer.unref?.();
          }
          draw();
          return;
        case "request":
          view.current = {
            seq: event.seq,
            phase: event.phase,
            method: event.method,
            path: event.path,
            items: event.items,
          };
          delete view.wait;
          if (!tty && event.phase !== phase) say(`phase ${event.phase}: ${phaseName(event.phase)}`);
          phase = event.phase;
          draw();
          return;
        case "applied":
          view.done = event.done;
          delete view.wait;
          if (!tty) say(requestLine(event.record, event.total));
          draw();
          return;
        case "api":
          if (event.event.type === "sent") {
            inFlight.set(event.event.id, { ...event.event, sentAt: clock.now() });
            awaitOldest();
            return;
          }
          if (event.event.type === "response") {
            const sent = inFlight.get(event.event.id);
            inFlight.delete(event.event.id);
            awaitOldest();
            const { method, path, status } = event.event;
            if (sent && (status === "timeout" || status === "network-error")) {
              const what =
                status === "timeout"
                  ? noAnswerText(sent.timeoutMs, sent.tries)
                  : `no connection (${triesText(sent.tries)})`;
              say(`  ... ${method} ${path}: ${what}`);
              return;
            }
          }
          if (event.event.type === "wait") setWait(event.event.until, event.event.reason, event.event.waitMs);
          else if (
            event.event.type === "response" &&
            typeof event.event.status === "number" &&
            event.event.status >= 429 &&
            event.event.class === "write"
          ) {
            say(
              `  ... ${event.event.method} ${event.event.path} answered ${event.event.status} (attempt ${event.event.attempt})`,
            );
          } else if (event.event.type === "response" && typeof event.event.status === "string") {
            say(
              `  ... ${event.event.method} ${event.event.path}: ${event.event.status} (attempt ${event.event.attempt})`,
            );
          }
          return;
        case "check":
          say(`  ${event.message}`);
          return;
        case "abandoned":
          // An attempt stopped by the signal never gets its response event.
          delete view.wait;
          inFlight.clear();
          awaitOldest();
          draw();
          return;
        case "restore":
          // From here on the waits are the reactivation's, not the stopped request's.
          delete view.current;
          delete view.wait;
          inFlight.clear();
          awaitOldest();
          view.restoring = event.campaigns;
          draw();
          return;
        case "failed":
          delete view.wait;
          say(requestLine(event.failure.request, view.total));
          return;
        case "finish":
          this.stop();
          return;
      }
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      if (tty && drawn)
        sink.write(`\r${progressLine(view, clock.now(), sink.columns ?? DEFAULT_COLUMNS)}\x1b[K\n`);
      drawn = false;
    },
  };
}
