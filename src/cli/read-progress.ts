/**
 * Plan's reading on the progress display (progress.ts): a line per step, every wait for a read
 * slot or a Retry-After, every unanswered request; on a TTY a countdown to the wait's end or
 * the silent request's deadline, cleared when nothing is waited for.
 */
import type { ApiEvent } from "../api/types.js";
import type { Clock } from "../model/clock.js";
import { count } from "../model/plural.js";
import { secondsLeft, triesText } from "../model/silence.js";
import type { ReadProgress } from "../plan/read.js";
import type { TextSink } from "./io.js";
import {
  countdown,
  type ProgressTiming,
  type ProgressVoice,
  progress,
  type SentEvent,
  stillSilentText,
  unansweredText,
  type WaitEvent,
} from "./progress.js";

export interface ReadProgressDisplay {
  onStep(progress: ReadProgress): void;
  onApi(event: ApiEvent): void;
  /** Ends the countdown (clears its timer and line); safe to call twice. */
  stop(): void;
}

export function stepLine(p: ReadProgress): string {
  return `doohctl: reading ${p.step} (${p.count}), ${count(p.requests, "request")} so far`;
}

function waitText(event: WaitEvent, now: number): string {
  const rest = countdown(event.until - now);
  if (event.reason === "rate-limit")
    return `waiting ${rest} for a ${event.class === "get" ? "read" : event.class} slot (rate limit window)`;
  return event.reason === "retry-after" ? `429: retrying in ${rest} (Retry-After)` : `retrying in ${rest}`;
}

/** `waiting for an answer to GET /api/dsp/v1/campaigns (attempt 1 of 4): deadline in 42s`. */
function silenceText(sent: SentEvent, now: number): string {
  return `waiting for an answer to ${sent.method} ${sent.path} (${triesText(sent.tries)}): deadline in ${countdown(sent.deadline - now)}`;
}

/** plan's words: every line starts `doohctl: `; the TTY line shows only a wait or a silence. */
const READ_VOICE: ProgressVoice = {
  line: ({ wait, silent }, now) => {
    if (wait && secondsLeft(wait.until - now) > 0) return `doohctl: ${waitText(wait, now)}`;
    return silent ? `doohctl: ${silenceText(silent, now)}` : undefined;
  },
  waitLine: (wait, now) => `doohctl: ${waitText(wait, now)}`,
  silentLine: (sent, silentMs, now) =>
    `doohctl: ${sent.method} ${sent.path}: ${stillSilentText(sent, silentMs, now)}`,
  responseLine: (response, sent) => {
    const text = sent && unansweredText(sent, response.status);
    return text === undefined ? undefined : `doohctl: ${response.method} ${response.path}: ${text}`;
  },
};

export function createReadProgress(
  options: { sink: TextSink; clock: Clock } & ProgressTiming,
): ReadProgressDisplay {
  const display = progress({ ...options, voice: READ_VOICE });
  return {
    onStep(p) {
      if (p.count > 0) display.say(stepLine(p));
    },
    onApi: (event) => display.onApi(event),
    stop: () => display.stop({ keep: false }),
  };
}
