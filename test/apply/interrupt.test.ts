/**
 * Signals after the first one, through `run()` (docs/apply.md, Interrupting): without a
 * terminal none aborts the reactivation (each is acknowledged and ignored); on a terminal a
 * second Ctrl-C exits at once after naming what stays paused, and a SIGTERM is ignored. The
 * real process and a GitHub runner's whole sequence: test/proof/runner-cancel.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIO, InterruptSignal } from "../../src/cli/io.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { PUBLISHERS, seedCampaign, VENUES_A } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";

const CAMPAIGNS = ["Malls", "Stations", "Airports"];

let emulator: RunningEmulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  ({ emulator, dir, env } = await startCliAccount({
    users: [USER],
    campaigns: CAMPAIGNS.map((name, i) => seedCampaign(String(5001 + i), "1001", name, { active: true })),
    seed: {
      targetings: Object.fromEntries(CAMPAIGNS.map((_, i) => [String(5001 + i), [VENUES_A, PUBLISHERS]])),
    },
    // `active` left out: every campaign losing its publisher exclusion is paused, then put.
    configOrders: [
      '  - id: "1001"',
      "    campaigns:",
      ...CAMPAIGNS.flatMap((name) => [
        `      - name: ${name}`,
        '        targetings: [{ venue_targeting_option: { venue_targeting_ids: ["101", "102"] } }]',
      ]),
    ],
    prefix: "doohctl-interrupt-",
  }));
});
afterEach(async () => {
  await emulator.close();
});

const inactive = () =>
  emulator
    .state()
    .campaigns.filter((c) => !c.active)
    .map((c) => c.name);

/**
 * `base` with signals to send: all of `signals` arrive one after the other once the first
 * targeting PUT landed (the campaigns are paused), and `exitNow` is recorded, not obeyed.
 */
function signalledIO(base: ReturnType<typeof bufferIO>, signals: InterruptSignal[]) {
  const exits: number[] = [];
  let listener: ((signal: InterruptSignal) => void) | undefined;
  let sent = false;
  emulator.onWrite((entry) => {
    if (entry.method !== "PUT" || sent) return;
    sent = true;
    for (const signal of signals) listener?.(signal);
  });
  const io: CliIO = {
    ...base,
    onInterrupt: (on) => {
      listener = on;
      return () => {
        listener = undefined;
      };
    },
    exitNow: (code) => exits.push(code),
  };
  return { io, exits, err: () => base.err(), out: () => base.out() };
}

describe.each([
  ["no terminal (CI)", () => bufferIO({ env, cwd: dir })],
  ["stderr on a terminal, stdin not (a pipe)", () => bufferIO({ env, cwd: dir, tty: true })],
])("after the first signal, with %s", (_, makeIO) => {
  it("acknowledges every later signal, ignores it and restores delivery", async () => {
    const { io, exits, err, out } = signalledIO(makeIO(), ["SIGINT", "SIGTERM", "SIGINT"]);
    expect(await run(["apply", "--auto-approve", "--no-session-cache"], io), err()).toBe(130);
    expect(err()).toContain(
      "SIGINT: no further change is sent; reactivating what this apply paused (further signals are ignored until delivery is restored)",
    );
    expect(err()).toContain("SIGTERM ignored: reactivating the campaigns this apply paused first (3 left)");
    expect(err()).toContain("SIGINT ignored: reactivating the campaigns this apply paused first (3 left)");
    expect(exits).toEqual([]);
    expect(inactive()).toEqual([]);
    expect(out()).toMatch(/interrupted/i);
  });
});

describe("on a terminal", () => {
  const terminal = () => bufferIO({ env, cwd: dir, tty: true, answer: "yes" });

  it("a second Ctrl-C exits 130 at once, naming the campaigns that stay paused and what reactivates them", async () => {
    const { io, exits, err } = signalledIO(terminal(), ["SIGINT", "SIGINT"]);
    await run(["apply", "--auto-approve", "--no-session-cache"], io);
    expect(err()).toContain("(Ctrl-C again exits at once and leaves them paused)");
    expect(exits).toEqual([130]);
    expect(err()).toContain(
      "SIGINT again: exiting at once; 3 campaigns stay paused: Malls (5001), Stations (5002), Airports (5003). " +
        "The recovery record keeps them: the next `doohctl plan` or `doohctl apply` of this account reactivates them (DOOH202)",
    );
  });

  it("a SIGTERM after the first Ctrl-C is a program's, not the person's: ignored, delivery restored", async () => {
    const { io, exits, err } = signalledIO(terminal(), ["SIGINT", "SIGTERM"]);
    expect(await run(["apply", "--auto-approve", "--no-session-cache"], io), err()).toBe(130);
    expect(err()).toContain(
      "SIGTERM ignored: reactivating the campaigns this apply paused first (3 left); Ctrl-C exits at once",
    );
    expect(exits).toEqual([]);
    expect(inactive()).toEqual([]);
  });
});
