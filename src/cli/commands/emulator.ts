import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Option } from "commander";
import {
  ANSWER_MODES,
  type AnswerMode,
  CREATE_ANSWERS,
  type CreateAnswer,
  type Departures,
  DialectError,
  type EmulatorSeed,
  FaultSpecError,
  loadDialectFile,
  loadSeedFile,
  SeedError,
  startEmulator,
  UNKNOWN_PARAMETERS,
  type UnknownParameters,
} from "../../emulator/index.js";
import {
  packagedFile,
  QUICKSTART_FILE,
  SEED_NAMES,
  SeedNameError,
  seedPath,
} from "../../emulator/seed-names.js";
import { formatDays, placeText } from "../../model/calendar.js";
import { OffsetClock } from "../../model/clock.js";
import { changedKeys, type Dialect, dialectValueProblem } from "../../model/dialect.js";
import {
  PUBLISHED_RATE_LIMITS,
  RateLimit,
  RateLimitSyntaxError,
  type RateLimits,
} from "../../model/limits.js";
import type { Environment } from "../../model/wire.js";
import type { CommandModule } from "../command.js";
import { CommandError, reportError } from "../errors.js";
import { Flag } from "../flags.js";
import { EXIT } from "../io.js";

interface EmulatorFlags {
  port: string;
  host: string;
  seed?: string;
  state?: string;
  environment: Environment;
  answers: AnswerMode;
  dialect?: string;
  rateLimits?: string;
  latency?: string;
  faults?: string;
  faultSeed?: string;
  dropOnWrite?: string;
  createAnswer: CreateAnswer;
  unknownParameters: UnknownParameters;
  control?: boolean;
  quickstart?: string;
  format: string;
}

/** The example seed's own demo credential: the only password the banner shows. */
const DEMO_CREDENTIAL = { email: "demo@doohctl.test", password: "demo-password" };

class FlagError extends Error {
  override readonly name = "FlagError";
  readonly code = "EMULATOR_FLAG_INVALID";
}

function integer(flag: string, text: string | undefined, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]+$/.test(text) || Number(text) > max) {
    throw new FlagError(`${flag} must be an integer between 0 and ${max}, not "${text}"`);
  }
  return Number(text);
}

/** `doohctl emulator`: runs the local DSP (docs/emulator.md) until SIGINT or SIGTERM. */
export const registerEmulator: CommandModule = (program, io, setExit) => {
  program
    .command("emulator")
    .option("--port <port>", "port to listen on (0 picks a free one)", "4010")
    .option("--host <host>", "address to bind", "127.0.0.1")
    .option(
      "--seed <file|name>",
      `JSON seed: users and the initial state (schemas/emulator-seed.schema.json), or a packaged seed: ${Object.keys(SEED_NAMES).join(", ")}`,
    )
    .option("--state <file>", "persist the state in FILE across restarts (loaded when present)")
    .addOption(
      new Option("--environment <name>", "production, or staging (answers 404 on every DSP path)")
        .choices(["production", "staging"])
        .default("production"),
    )
    .addOption(
      new Option(
        "--answers <mode>",
        "contract (exactly what the contract names), or richer (extra members, six-digit times, null unset URLs: G14)",
      )
        .choices([...ANSWER_MODES])
        .default("contract"),
    )
    .option(
      "--dialect <file>",
      "YAML or JSON dialect: where the DSP answers G1, G2, G3 or G5 otherwise (wins over the seed's dialect)",
    )
    .option("--rate-limits <list>", "get=100/60s,write=10/60s,session=10/60s (any subset), or off")
    .option("--latency <ms>", "added latency per request, in milliseconds")
    .option("--faults <spec>", "injected faults, e.g. 429:0.1,500:0.05,reset:0.01")
    .option("--fault-seed <n>", "seed for reproducible fault draws")
    .option(
      "--drop-on-write <members>",
      "rehearse a DSP that drops these members (comma-separated, as a request names them) from what it is sent, and answers 200",
    )
    .addOption(
      new Option(
        "--create-answer <shape>",
        "how POST /campaigns answers: member (the dialect's create_campaigns_member, G3), campaigns (always under campaigns), or ids (ids only)",
      )
        .choices([...CREATE_ANSWERS])
        .default("member"),
    )
    .addOption(
      new Option(
        "--unknown-parameters <what>",
        "what a query parameter an operation does not name gets: refuse (422 naming it) or ignore (G16)",
      )
        .choices([...UNKNOWN_PARAMETERS])
        .default("refuse"),
    )
    .option("--control", "enable the /__emulator/ control path")
    .option(
      "--quickstart <dir>",
      "also write the quick start (examples/quickstart) into DIR/doohctl.yaml, its dates placed on the same days as a seed with `today` (docs/demo.md)",
    )
    .addOption(
      Flag.format("how start-up errors are printed: text on stderr, or json on stdout", ["text", "json"]),
    )
    .action(async (flags: EmulatorFlags) => {
      let seed: EmulatorSeed | undefined;
      let dialect: Dialect | undefined;
      let rateLimits: RateLimits | "off" | undefined;
      let running: Awaited<ReturnType<typeof startEmulator>>;
      try {
        if (flags.rateLimits !== undefined) {
          rateLimits = flags.rateLimits.trim() === "off" ? "off" : RateLimit.parseList(flags.rateLimits);
        }
        if (flags.seed !== undefined) seed = await loadSeedFile(seedPath(flags.seed, io.cwd));
        if (flags.quickstart !== undefined && seed?.today === undefined) {
          throw new FlagError(
            "--quickstart writes the quick start placed on the seed's days, and needs a seed written for a day (`today`): --seed demo",
          );
        }
        if (flags.dialect !== undefined)
          dialect = await loadDialectFile(resolve(io.cwd, flags.dialect), flags.dialect);
        running = await startEmulator({
          port: integer("--port", flags.port, 65535),
          host: flags.host,
          seed,
          environment: flags.environment,
          answers: flags.answers,
          dialect,
          rateLimits,
          latencyMs: integer("--latency", flags.latency, 600_000),
          faults: flags.faults,
          faultSeed: integer("--fault-seed", flags.faultSeed, 2 ** 32 - 1),
          control: flags.control === true,
          departures: departuresOf(flags),
          // The run's time, which the control path can still move forward (POST /__emulator/clock).
          clock: new OffsetClock({ start: io.clock.now() }),
          statePath: flags.state === undefined ? undefined : resolve(io.cwd, flags.state),
        });
      } catch (error) {
        const known =
          error instanceof SeedError ||
          error instanceof DialectError ||
          error instanceof SeedNameError ||
          error instanceof FaultSpecError ||
          error instanceof RateLimitSyntaxError ||
          error instanceof FlagError ||
          (error as NodeJS.ErrnoException).code === "EADDRINUSE";
        if (!known) throw error;
        reportError(io, "emulator", portInUse(error, flags) ?? error, flags.format);
        setExit(EXIT.error);
        return;
      }
      if (flags.quickstart !== undefined) {
        const written = writeQuickstart(resolve(io.cwd, flags.quickstart), running.placedDays);
        if (written instanceof CommandError) {
          await running.close();
          reportError(io, "emulator", written, flags.format);
          setExit(EXIT.error);
          return;
        }
      }
      const limits = rateLimits ?? "published";
      io.stderr.write(`doohctl emulator listening on ${running.origin}\n`);
      io.stderr.write(`  environment: ${flags.environment}\n`);
      if (seed?.today !== undefined && flags.state === undefined) {
        const day = new Date(io.clock.now()).toISOString().slice(0, 10);
        io.stderr.write(
          `  dates: the seed is written for ${seed.today}, placed at today (${day}): every date moved ${formatDays(running.placedDays)}\n`,
        );
      }
      if (flags.quickstart !== undefined) {
        io.stderr.write(
          `  quick start: ${join(resolve(io.cwd, flags.quickstart), "doohctl.yaml")}, placed on the same days\n`,
        );
      }
      if (flags.answers !== "contract") io.stderr.write(`  answers: ${flags.answers}\n`);
      for (const line of departureLines(flags)) io.stderr.write(`  ${line}\n`);
      const differing = changedKeys(running.dialect);
      if (differing.length > 0) io.stderr.write(`  dialect: ${differing.join(", ")}\n`);
      io.stderr.write(
        `  rate limits: ${limits === "off" ? "off" : RateLimit.formatList(limits === "published" ? PUBLISHED_RATE_LIMITS : limits)}\n`,
      );
      if (flags.control) io.stderr.write(`  control path: ${running.origin}/__emulator/\n`);
      if (flags.state) io.stderr.write(`  state file: ${resolve(io.cwd, flags.state)}\n`);
      const users = running.users();
      if (users.length === 0) io.stderr.write("  users: none (give a --seed with users to log in)\n");
      for (const user of users) {
        // Only the example seed's own demo credential is shown; any other password stays unsaid.
        const isDemo = seed?.users?.some(
          (u) =>
            u.email === user.email &&
            u.email === DEMO_CREDENTIAL.email &&
            u.password === DEMO_CREDENTIAL.password,
        );
        const demo = isDemo ? `, password ${DEMO_CREDENTIAL.password}` : "";
        io.stderr.write(`  user: ${user.email} (account ${user.account_id}${demo})\n`);
      }
      io.stderr.write("Press Ctrl-C to stop.\n");
      await new Promise<void>((done) => {
        const unsubscribe = io.onInterrupt?.(() => {
          unsubscribe?.();
          done();
        });
      });
      await running.close();
      io.stderr.write("doohctl emulator stopped\n");
      setExit(EXIT.ok);
    });
};

/** `--drop-on-write`, `--create-answer`, `--unknown-parameters` as the emulator takes them. */
function departuresOf(flags: EmulatorFlags): Departures {
  const drop = (flags.dropOnWrite ?? "")
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
  const bad = drop.find((m) => dialectValueProblem("member", m) !== undefined);
  if (bad !== undefined) {
    throw new FlagError(
      `--drop-on-write takes member names, comma-separated: "${bad}" ${dialectValueProblem("member", bad)}`,
    );
  }
  return {
    ...(drop.length > 0 ? { dropOnWrite: drop } : {}),
    createAnswer: flags.createAnswer,
    unknownParameters: flags.unknownParameters,
  };
}

/** The banner's lines for a DSP that departs from the contract: a rehearsal, said plainly. */
function departureLines(flags: EmulatorFlags): string[] {
  const d = departuresOf(flags);
  return [
    ...(d.dropOnWrite ? [`drops on write: ${d.dropOnWrite.join(", ")} (answered as if not sent)`] : []),
    ...(d.createAnswer !== "member" ? [`create answer: ${d.createAnswer}`] : []),
    ...(d.unknownParameters === "ignore" ? ["unknown query parameters: ignored (G16)"] : []),
  ];
}

/** The quick start, its dates moved `days`, as a new DIR/doohctl.yaml: a user's config is never replaced. */
function writeQuickstart(dir: string, days: number): CommandError | undefined {
  const source = packagedFile(QUICKSTART_FILE);
  if (source === undefined) {
    return new CommandError(
      "QUICKSTART_MISSING",
      `--quickstart: the packaged ${QUICKSTART_FILE} is missing: the installation is incomplete; reinstall doohctl`,
    );
  }
  const target = join(dir, "doohctl.yaml");
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(target, placeText(readFileSync(source, "utf8"), days), { flag: "wx" });
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "EEXIST"
        ? "a file (or link) is already there: give an empty directory, or remove it"
        : `it cannot be written (${code ?? "error"}): give a directory you can write`;
    return new CommandError("QUICKSTART_NOT_WRITTEN", `--quickstart: ${target} was not written: ${why}`);
  }
}

/** Node's EADDRINUSE names the port, not the flag that moves it (docs/emulator.md). */
function portInUse(error: unknown, flags: EmulatorFlags): CommandError | undefined {
  if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") return undefined;
  return new CommandError(
    "PORT_IN_USE",
    `port ${flags.port} on ${flags.host} is already in use (another emulator?): pass --port N for another port, or --port 0 for any free one`,
  );
}
