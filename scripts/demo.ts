/**
 * `npm run demo`: doohctl's story in one command, on the embedded emulator. Every step runs
 * the real CLI in-process through `run()` against a real HTTP server on a free port, and is
 * checked: the demo exits 0 only when each step did what it should, and leaves no process or
 * file behind. The write window is scaled down (and the config's `rate_limits` says the same)
 * so the whole story takes seconds while apply's pacing is still visible.
 *
 * The demo world (the seed and the quick start) is written for one day, the seed's `today`,
 * and placed at the day the demo runs on: every date moved by the same whole days
 * (src/model/calendar.ts), so the story is the same on any day. One clock, `DemoOptions.clock`,
 * is the emulator's and doohctl's: what the demo prints about time is true of both.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { createDspClient } from "../src/api/client.js";
import { Endpoints } from "../src/api/endpoints.js";
import type { CliIO, TextSink } from "../src/cli/io.js";
import { run } from "../src/cli/program.js";
import { loadSeedFile, type RunningEmulator, startEmulator } from "../src/emulator/index.js";
import { formatDays, placeText } from "../src/model/calendar.js";
import { type Clock, systemClock } from "../src/model/clock.js";
import { PUBLISHED_RATE_LIMITS, RateLimit, type RateLimits } from "../src/model/limits.js";
import { Money } from "../src/model/money.js";

/** The seed's API user (examples/emulator-seed.json). The password is never printed. */
const DEMO_USER = { email: "demo@doohctl.test", password: "demo-password" };

/** Published limits, but two writes per 6 s instead of ten per minute: apply's 7 writes take ~18 s. */
export const DEMO_RATE_LIMITS: RateLimits = {
  ...PUBLISHED_RATE_LIMITS,
  write: { limit: 2, windowMs: 6_000 },
};

/** The campaign someone edits "in the DSP's web UI", and what they set. */
const DRIFT = { campaignId: "5001", name: "Holiday airports", cpm: "14.00 USD" };

export class DemoStepFailed extends Error {
  override readonly name = "DemoStepFailed";
  readonly code = "DEMO_STEP_FAILED";
}

export interface DemoOptions {
  stdout: TextSink;
  stderr: TextSink;
  /** Rate limits of both the emulator and the config. @default DEMO_RATE_LIMITS */
  rateLimits?: RateLimits;
  /** The one clock of the emulator and of doohctl. @default systemClock */
  clock?: Clock;
  /** Colour off when set, as for the CLI. */
  noColour?: boolean;
  /** Subscribes to Ctrl-C: the demo then removes its temp dir before the process ends. */
  onInterrupt?: (listener: () => void) => () => void;
}

/** The repository root: the directory holding examples/, from src or dist. */
function findRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, "examples", "emulator-seed.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("examples/emulator-seed.json not found above the demo script");
    dir = parent;
  }
  return dir;
}

/** Runs the whole story; resolves to the exit code (0 when every step did what it should). */
export async function runDemo(options: DemoOptions): Promise<number> {
  const { stdout, stderr } = options;
  const limits = options.rateLimits ?? DEMO_RATE_LIMITS;
  const say = (text: string) => stdout.write(`${text}\n`);
  const heading = (n: number, title: string) =>
    say(`\n== ${n}. ${title} ${"=".repeat(Math.max(3, 70 - title.length))}\n`);
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const root = findRoot();
  let emulator: RunningEmulator | undefined;
  const work = mkdtempSync(join(tmpdir(), "doohctl-demo-"));
  const unsubscribe = options.onInterrupt?.(() => rmSync(work, { recursive: true, force: true }));
  try {
    heading(1, "Start the local DSP emulator");
    const seed = await loadSeedFile(join(root, "examples", "emulator-seed.json"));
    emulator = await startEmulator({ port: 0, seed, rateLimits: limits, clock });
    say(`Emulator on ${emulator.origin}, seeded from examples/emulator-seed.json`);
    say(
      `Its world is written for ${seed.today} and placed at today, ${new Date(clock.now()).toISOString().slice(0, 10)}: every date in the seed and in the quick start moved ${formatDays(emulator.placedDays)}: what was in flight, ended or upcoming on ${seed.today} is so today (docs/demo.md).`,
    );
    say(
      `Emulator rate limits: ${RateLimit.formatList(limits)} (writes scaled down from 10/60s for the demo)`,
    );

    // The user's repository: the quick start, plus a connection file with the same windows.
    const quickstart = readFileSync(join(root, "examples", "quickstart", "doohctl.yaml"), "utf8");
    writeFileSync(join(work, "doohctl.yaml"), placeText(quickstart, emulator.placedDays));
    const connection = [
      "version: 1",
      "connection:",
      "  rate_limits:",
      `    get: ${RateLimit.formatWindow(limits.get)}`,
      `    write: ${RateLimit.formatWindow(limits.write)}`,
      `    session: ${RateLimit.formatWindow(limits.session)}`,
      "",
    ].join("\n");
    writeFileSync(join(work, "connection.yaml"), connection);
    say("\nThe config is examples/quickstart/doohctl.yaml (placed on the same days) plus this");
    say("connection.yaml, so the client paces itself to the emulator's windows:\n");
    say(connection.trimEnd().replace(/^/gm, "    "));
    say(`\nEnvironment: DOOHCTL_API_ORIGIN=${emulator.origin} DOOHCTL_EMAIL=${DEMO_USER.email}`);
    say("             DOOHCTL_PASSWORD=(set, not shown) DOOHCTL_SESSION_CACHE=off");

    const io: CliIO = {
      stdout,
      stderr,
      cwd: work,
      clock,
      env: {
        DOOHCTL_API_ORIGIN: emulator.origin,
        DOOHCTL_EMAIL: DEMO_USER.email,
        DOOHCTL_PASSWORD: DEMO_USER.password,
        // Never write into the user's home: no session cache, and HOME points at the temp dir.
        DOOHCTL_SESSION_CACHE: "off",
        HOME: work,
        ...(options.noColour ? { NO_COLOR: "1" } : {}),
      },
    };
    const doohctl = async (args: string[], expected: number, what: string) => {
      say(`$ doohctl ${args.join(" ")}\n`);
      const code = await run(args, io);
      say(`\n(exit code ${code})`);
      if (code !== expected) throw new DemoStepFailed(`${what}: exit code ${code}, expected ${expected}`);
    };

    heading(2, "Validate the config (offline: no request is sent)");
    await doohctl(["validate", "."], 0, "validate");

    heading(3, "Plan: what would change, field by field, and in which requests");
    await doohctl(["plan", "."], 0, "plan");

    heading(4, "Apply: in a safe order, paced to the write window");
    await doohctl(["apply", ".", "--auto-approve"], 0, "apply");

    heading(5, "Plan again: the live state now matches the config");
    await doohctl(["plan", ".", "--detailed-exitcode"], 0, "plan after apply (0 = no changes)");

    heading(6, "Someone edits a campaign in the DSP's web UI");
    const client = createDspClient({
      apiOrigin: emulator.origin,
      environment: "production",
      credentials: DEMO_USER,
      rateLimits: limits,
    });
    try {
      await client.send(Endpoints.patchCampaigns([{ id: DRIFT.campaignId, cpm: Money.parse(DRIFT.cpm) }]));
    } finally {
      await client.close();
    }
    say(`PATCH /api/dsp/v1/campaigns: campaign ${DRIFT.campaignId} "${DRIFT.name}" cpm set to ${DRIFT.cpm}`);
    say("(outside doohctl: the config still says 12.50 USD)");

    heading(7, "Nightly drift check: plan --detailed-exitcode exits 2 on drift");
    await doohctl(["plan", ".", "--detailed-exitcode"], 2, "drift plan (2 = changes)");

    heading(8, "The Markdown a pull request comment (or a drift pull request) would get");
    await doohctl(["plan", ".", "--format", "markdown"], 0, "markdown plan");

    heading(9, "Delivery and pacing so far (status exits 2 when a campaign needs a look)");
    // Exit 2: Holiday airports delivers slower than its remaining budget needs, and Holiday
    // malls, ahead, runs out of budget before its flight ends (docs/status.md).
    await doohctl(["status", "."], 2, "status");
    say(
      "\nA nightly job alerts on both: one behind what its remaining budget needs, one dark before its end.",
    );
    say("With a looser --behind-threshold only the one that runs out of budget is left:\n");
    await doohctl(["status", ".", "--behind-threshold", "20"], 2, "status --behind-threshold 20");

    heading(10, "Stop the emulator");
    await emulator.close();
    emulator = undefined;
    say(`Done in ${((clock.now() - started) / 1000).toFixed(1)} s: every step did what it should.`);
    say("Next: docs/export.md brings your own insertion orders under management.");
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    stderr.write(`\ndemo failed: ${message}\n`);
    return 1;
  } finally {
    unsubscribe?.();
    await emulator?.close();
    rmSync(work, { recursive: true, force: true });
  }
}

// Run when executed (`npm run demo`), not when a test imports runDemo.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runDemo({
    stdout: { write: (text) => void process.stdout.write(text), isTTY: process.stdout.isTTY === true },
    stderr: { write: (text) => void process.stderr.write(text), isTTY: process.stderr.isTTY === true },
    noColour: process.env.NO_COLOR !== undefined,
    onInterrupt: (listener) => {
      // The emulator lives in this process and ends with it; only the temp dir needs removing.
      const handler = () => {
        listener();
        process.exit(130);
      };
      process.once("SIGINT", handler).once("SIGTERM", handler);
      return () => process.off("SIGINT", handler).off("SIGTERM", handler);
    },
  });
}
