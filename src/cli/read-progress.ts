/**
 * Plan's reading on stderr: a line per step, and every wait for a read slot (the GET window,
 * shared with earlier runs) or a Retry-After. On a TTY the wait is a countdown redrawn in
 * place every second; elsewhere a line of its own once it is long enough to look like a hang
 * (as apply's progress does, src/cli/progress.ts).
 */
import type { ApiEvent } from "../api/types.js";
import type { Clock } from "../model/clock.js";
import { Time } from "../model/time.js";
import type { ReadProgress } from "../plan/read.js";
import type { TextSink } from "./io.js";

/** Non-TTY: rate-limit waits shorter than this are routine pacing, not worth a line. */
const QUIET_WAIT_MS = 5_000;

export interface ReadProgressDisplay {
  onStep(progress: ReadProgress): void;
  onApi(event: ApiEvent): void;
  /** Ends the countdown (clears its timer and line); safe to call twice. */
  stop(): void;
}

export function stepLine(p: ReadProgress): string {
  return `doohctl: reading ${p.step} (${p.count}), ${p.requests} request${p.requests === 1 ? "" : "s"} so far`;
}

function waitText(event: Extract<ApiEvent, { type: "wait" }>, now: number): string {
  const left = Time.formatDuration(Math.max(0, event.until - now));
  if (event.reason === "rate-limit")
    return `waiting ${left} for a ${event.class === "get" ? "read" : event.class} slot (rate limit window)`;
  return event.reason === "retry-after" ? `429: retrying in ${left} (Retry-After)` : `retrying in ${left}`;
}

export function createReadProgress(options: {
  sink: TextSink;
  clock: Clock;
  tickMs?: number;
}): ReadProgressDisplay {
  const { sink, clock } = options;
  let wait: Extract<ApiEvent, { type: "wait" }> | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let drawn = false;
  const clear = () => {
    if (drawn) sink.write("\r\x1b[K");
    drawn = false;
  };
  const draw = () => {
    if (!wait || wait.until <= clock.now()) {
      clear();
      return;
    }
    sink.write(`\rdoohctl: ${waitText(wait, clock.now())}\x1b[K`);
    drawn = true;
  };
  return {
    onStep(p) {
      if (p.count === 0) return;
      clear();
      sink.write(`${stepLine(p)}\n`);
      draw();
    },
    onApi(event) {
      if (event.type !== "wait") return;
      if (!sink.isTTY) {
        if (event.reason !== "rate-limit" || event.waitMs >= QUIET_WAIT_MS)
          sink.write(`doohctl: ${waitText(event, clock.now())}\n`);
        return;
      }
      wait = event;
      draw();
      if (!timer) {
        timer = setInterval(draw, options.tickMs ?? 1000);
        timer.unref?.();
      }
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      clear();
    },
  };
}
