/**
 * SIGINT and SIGTERM during an apply (docs/apply.md, Interrupting): the first stops it and
 * reactivates what it paused; only a second Ctrl-C at a terminal aborts that (a SIGTERM comes
 * from a program, not the person).
 */
import { type CliIO, EXIT, type InterruptSignal, onTerminal } from "../io.js";

export interface PausedCampaign {
  campaign_id: string;
  name: string;
}

export interface ApplyInterrupts {
  /** The signal that stopped the apply, once one came. */
  readonly first: InterruptSignal | undefined;
  /** The listener for `io.onInterrupt`. */
  onSignal(signal: InterruptSignal): void;
}

export function applyInterrupts(input: {
  io: CliIO;
  /** Stops the apply: no further change is sent, delivery is restored. */
  stop: () => void;
  /** The campaigns this apply paused and has not seen active again. */
  stillPaused: () => PausedCampaign[];
}): ApplyInterrupts {
  const { io } = input;
  const terminal = onTerminal(io);
  let first: InterruptSignal | undefined;
  const onSignal = (signal: InterruptSignal) => {
    if (first === undefined) {
      first = signal;
      const later = terminal
        ? "Ctrl-C again exits at once and leaves them paused"
        : "further signals are ignored until delivery is restored";
      io.stderr.write(
        `\ndoohctl apply: ${signal}: no further change is sent; reactivating what this apply paused (${later})\n`,
      );
      input.stop();
      return;
    }
    const paused = input.stillPaused();
    if (terminal && signal === "SIGINT") {
      io.stderr.write(`\ndoohctl apply: SIGINT again: exiting at once; ${stayPaused(paused)}\n`);
      io.exitNow?.(EXIT.SIGINT);
      return;
    }
    io.stderr.write(
      `\ndoohctl apply: ${signal} ignored: reactivating the campaigns this apply paused first (${paused.length} left)${terminal ? "; Ctrl-C exits at once" : ""}\n`,
    );
  };
  return {
    get first() {
      return first;
    },
    onSignal,
  };
}

function stayPaused(paused: PausedCampaign[]): string {
  if (paused.length === 0) return "no campaign this apply paused is left paused";
  const names = paused.map((p) => `${p.name} (${p.campaign_id})`).join(", ");
  return (
    `${paused.length === 1 ? "1 campaign stays" : `${paused.length} campaigns stay`} paused: ${names}. The recovery record keeps them: ` +
    "the next `doohctl plan` or `doohctl apply` of this account reactivates them (DOOH202)"
  );
}
