/**
 * Plan's reading on stderr: a line per step, every wait for a read slot (the GET window,
 * shared with earlier runs) or a Retry-After, and every request that goes unanswered. On a
 * TTY the wait, or a request silent for a while, is a countdown redrawn in place every
 * second (to the end of the wait, or to the request's deadline); elsewhere a line of its own
 * once it is long enough to look like a hang (as apply's progress does, src/cli/progress.ts).
 * A request that times out or cannot connect says so with its attempt count (issue 22), and
 * a countdown never reads "0s": a wait shorter than a second is not shown.
 */
import type { ApiEvent } from "../api/types.js";
import type { Clock } from "../model/clock.js";
import { noAnswerText, secondsLeft, triesText } from "../model/silence.js";
import { Time } from "../model/time.js";
import type { ReadProgress } from "../plan/read.js";
import type { TextSink } from "./io.js";

/** Non-TTY: rate-limit waits shorter than this are routine pacing, not worth a line. */
const QUIET_WAIT_MS = 5_000;
/** TTY: a request silent this long shows the countdown to its deadline. */
const SILENT_MS = 2_000;
/** Non-TTY: a request silent this long gets a line saying so, once. */
const NOTICE_MS = 10_000;

type WaitEvent = Extract<ApiEvent, { type: "wait" }>;
type SentEvent = Extract<ApiEvent, { type: "sent" }>;

export interface ReadProgressDisplay {
  onStep(progress: ReadProgress): void;
  onApi(event: ApiEvent): void;
  /** Ends the countdown (clears its timer and line); safe to call twice. */
  stop(): void;
}

export function stepLine(p: ReadProgress): string {
  return `doohctl: reading ${p.step} (${p.count}), ${p.requests} request${p.requests === 1 ? "" : "s"} so far`;
}

/** `42s`, rounded up. */
const left = (ms: number) => Time.formatDuration(secondsLeft(ms) * 1000);

function waitText(event: WaitEvent, now: number): string {
  const rest = left(event.until - now);
  if (event.reason === "rate-limit")
    return `waiting ${rest} for a ${event.class === "get" ? "read" : event.class} slot (rate limit window)`;
  return event.reason === "retry-after" ? `429: retrying in ${rest} (Retry-After)` : `retrying in ${rest}`;
}

/** `waiting for an answer to GET /api/dsp/v1/campaigns (attempt 1 of 4): deadline in 42s`. */
function silenceText(sent: SentEvent, now: number): string {
  return `waiting for an answer to ${sent.method} ${sent.path} (${triesText(sent.tries)}): deadline in ${left(sent.deadline - now)}`;
}

/** What an attempt that got no answer says, or undefined for an answer. */
function failureText(sent: SentEvent, status: number | "network-error" | "timeout"): string | undefined {
  const what = `${sent.method} ${sent.path}`;
  if (status === "timeout") return `${what}: ${noAnswerText(sent.timeoutMs, sent.tries)}`;
  if (status === "network-error") return `${what}: no connection (${triesText(sent.tries)})`;
  return undefined;
}

export function createReadProgress(options: {
  sink: TextSink;
  clock: Clock;
  /** Redraw (TTY) and silence check period, in real milliseconds. @default 1000 */
  tickMs?: number;
  /** TTY: how long a request is silent before its countdown shows. @default 2000 */
  silentMs?: number;
  /** Non-TTY: how long a request is silent before a line says so. @default 10000 */
  noticeMs?: number;
}): ReadProgressDisplay {
  const { sink, clock } = options;
  const tty = sink.isTTY;
  let wait: WaitEvent | undefined;
  const inFlight = new Map<number, SentEvent & { sentAt: number }>();
  const noticed = new Set<number>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let drawn = false;
  const clear = () => {
    if (drawn) sink.write("\r\x1b[K");
    drawn = false;
  };
  /** The request silent the longest, once it has been silent `after` ms. */
  const silentSince = (after: number) => {
    const now = clock.now();
    let oldest: (SentEvent & { sentAt: number }) | undefined;
    for (const sent of inFlight.values()) {
      if (now - sent.sentAt >= after && sent.deadline > now && (!oldest || sent.sentAt < oldest.sentAt))
        oldest = sent;
    }
    return oldest;
  };
  const draw = () => {
    if (!tty) return;
    const now = clock.now();
    const silent = silentSince(options.silentMs ?? SILENT_MS);
    const text =
      wait && secondsLeft(wait.until - now) > 0
        ? waitText(wait, now)
        : silent
          ? silenceText(silent, now)
          : undefined;
    if (text === undefined) {
      clear();
      return;
    }
    sink.write(`\rdoohctl: ${text}\x1b[K`);
    drawn = true;
  };
  const say = (text: string) => {
    clear();
    sink.write(`doohctl: ${text}\n`);
    draw();
  };
  const tick = () => {
    if (tty) {
      draw();
      return;
    }
    for (const sent of inFlight.values()) {
      const silentMs = clock.now() - sent.sentAt;
      if (silentMs < (options.noticeMs ?? NOTICE_MS) || noticed.has(sent.id)) continue;
      noticed.add(sent.id);
      say(
        `${sent.method} ${sent.path}: no answer yet after ${Math.round(silentMs / 1000)}s (${triesText(sent.tries)}); ` +
          `deadline in ${left(sent.deadline - clock.now())}`,
      );
    }
  };
  const ticking = () => {
    if (timer) return;
    timer = setInterval(tick, options.tickMs ?? 1000);
    timer.unref?.();
  };
  return {
    onStep(p) {
      if (p.count === 0) return;
      say(stepLine(p).slice("doohctl: ".length));
    },
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
          const text = sent ? failureText(sent, event.status) : undefined;
          if (text !== undefined) say(text);
          else draw();
          return;
        }
        case "wait":
          // A wait under a second is no hang, and would count down from "0s".
          if (event.waitMs < 1000) return;
          if (!tty) {
            if (event.reason !== "rate-limit" || event.waitMs >= QUIET_WAIT_MS)
              say(waitText(event, clock.now()));
            return;
          }
          wait = event;
          draw();
          ticking();
          return;
        default:
          return;
      }
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      clear();
    },
  };
}
