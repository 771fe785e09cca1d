/** The local DSP emulator (ARCHITECTURE.md#emulator); `startEmulator` is its whole programmatic surface. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type Clock, systemClock } from "../model/clock.js";
import { DEFAULT_DIALECT, type Dialect } from "../model/dialect.js";
import { PUBLISHED_RATE_LIMITS, type RateLimits } from "../model/limits.js";
import type { Environment } from "../model/wire.js";
import { controlHandler } from "./control.js";
import type { Departures } from "./departures.js";
import { checkedDialect } from "./dialect.js";
import { Emulator, type RequestLogEntry, send } from "./emulator.js";
import { HttpError } from "./errors.js";
import { FaultInjector } from "./faults.js";
import { loadState, saveState } from "./persistence.js";
import type { AnswerMode } from "./richer.js";
import { buildStore, type EmulatorSeed, placeSeed, seedDialect, validateSeed } from "./seed.js";
import type { EmulatorStateView } from "./store.js";

export {
  CREATE_ANSWERS,
  type CreateAnswer,
  type Departures,
  UNKNOWN_PARAMETERS,
  type UnknownParameters,
} from "./departures.js";
export { loadDialectFile } from "./dialect.js";
export type { RequestLogEntry } from "./emulator.js";
export { DialectError, FaultSpecError, SeedError } from "./errors.js";
export { ANSWER_MODES, type AnswerMode } from "./richer.js";
export type { EmulatorSeed, SeedCampaign, SeedCreative, SeedInsertionOrder, SeedUser } from "./seed.js";
export { loadSeedFile, validateSeed } from "./seed.js";
export { SEED_SCHEMA } from "./seed-schema.js";
export type { EmulatorStateView } from "./store.js";
export { PROCESSING_DELAY_MS } from "./store.js";

export interface EmulatorOptions {
  /** Default 0 (an ephemeral port); the CLI's default is 4010. */
  port?: number | undefined;
  /** Default 127.0.0.1. */
  host?: string | undefined;
  /** The initial state (default: no users), checked like a seed file, placed by `today` (`placeSeed`). */
  seed?: EmulatorSeed | undefined;
  /** Default production; staging answers 404 on every DSP path (G13). */
  environment?: Environment | undefined;
  /** Default PUBLISHED_RATE_LIMITS. */
  rateLimits?: RateLimits | "off" | undefined;
  /** Default systemClock; tests pass a VirtualClock. */
  clock?: Clock | undefined;
  /** Added latency per request, slept on the clock. */
  latencyMs?: number | undefined;
  /** e.g. "429:0.1,500:0.05,reset:0.01". */
  faults?: string | undefined;
  /** Seed of the fault draws, for reproducible runs. */
  faultSeed?: number | undefined;
  /** Enables the /__emulator/ control path (default false). */
  control?: boolean | undefined;
  /** Loaded on start when present (instead of the seed); written atomically after each write. */
  statePath?: string | undefined;
  /** G14: `contract` (default) answers exactly the contract; `richer` as a richer DSP might (richer.ts). */
  answers?: AnswerMode | undefined;
  /** Where the DSP answers G1, G2, G3 or G5 otherwise (dialect.ts); wins over the seed's `dialect`. */
  dialect?: Dialect | undefined;
  /** A DSP that departs from the contract where nobody chose, to rehearse against (departures.ts). */
  departures?: Departures | undefined;
}

export interface RunningEmulator {
  origin: string;
  port: number;
  /** The dialect it serves (the gap decisions unless one was given). */
  dialect: Dialect;
  /** Whole days the seed's dates were moved (`placeSeed`): 0 without `today` or with a saved state. */
  placedDays: number;
  close(): Promise<void>;
  /** In-process hook for invariant checks: called after every successful write with the resulting state. */
  onWrite(listener: (entry: RequestLogEntry, state: EmulatorStateView) => void): () => void;
  /** Same as GET /__emulator/requests. */
  requestLog(): RequestLogEntry[];
  /** Same as GET /__emulator/state: a deep copy. */
  state(): EmulatorStateView;
  /** Same as POST /__emulator/faults: without a seed, the draws go on from the current sequence. */
  setFaults(spec: string, seed?: number): void;
  /** The seed's users, for the CLI banner. */
  users(): { email: string; account_id: string }[];
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const clock = options.clock ?? systemClock;
  const placed = placeSeed(validateSeed(options.seed ?? {}, "the seed"), clock.now());
  const seed = placed.seed;
  const dialect =
    options.dialect === undefined ? seedDialect(seed) : checkedDialect(options.dialect, "the dialect");
  const statePath = options.statePath;
  const saved = statePath ? loadState(statePath) : undefined;
  const store = saved ?? buildStore(seed);
  const emulator = new Emulator({
    store,
    clock,
    environment: options.environment ?? "production",
    rateLimits: options.rateLimits ?? PUBLISHED_RATE_LIMITS,
    latencyMs: options.latencyMs ?? 0,
    faults: new FaultInjector(options.faults ?? "", options.faultSeed),
    answers: options.answers ?? "contract",
    dialect: dialect ?? DEFAULT_DIALECT,
    departures: options.departures ?? {},
    ...(statePath ? { persist: (s) => saveState(statePath, s) } : {}),
  });
  if (options.control) emulator.enableControl(controlHandler(emulator, seed));
  if (statePath) saveState(statePath, emulator.store);

  const server = createServer((req, res) => {
    emulator.handle(req, res).catch((error: unknown) => {
      // Never expected: every client input has a 4xx. Answer rather than crash.
      const message = error instanceof Error ? error.message : String(error);
      send(res, {
        status: 500,
        body: new HttpError(500, { message: `Internal Server Error: ${message}` }).body(),
      });
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    origin: `http://${host}:${address.port}`,
    port: address.port,
    dialect: emulator.dialect,
    placedDays: saved ? 0 : placed.days,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
    onWrite: (listener) => emulator.onWrite(listener),
    requestLog: () => emulator.requestLog(),
    state: () => emulator.state(),
    setFaults: (spec, seed) => emulator.faults.configure(spec, seed),
    users: () =>
      [...emulator.store.users.values()].map((u) => ({ email: u.email, account_id: u.account_id })),
  };
}
