/**
 * `--state FILE`: the state survives restarts, written after every write to a temporary file then
 * renamed, so a crash leaves the old state or the new one. Not src/api/atomic-write.ts: the emulator
 * imports src/model only (ARCHITECTURE.md), and a test double's file needs none of its fsyncs.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Accrual } from "./delivery.js";
import { SeedError } from "./errors.js";
import { buildStore, storeToSeed, validateSeed } from "./seed.js";
import type { Store } from "./store.js";

const FORMAT = "doohctl-emulator-state";
const VERSION = 1;

interface StateFile {
  format: typeof FORMAT;
  version: number;
  seed: unknown;
  /** Creatives still processing: when each one settles (epoch ms). */
  processing_due?: Record<string, number>;
  /** What each campaign has delivered so far (delivery.ts), so a restart keeps it. */
  delivery?: Record<string, Accrual>;
}

/** The store saved in `path`, or undefined when there is no such file yet. */
export function loadState(path: string): Store | undefined {
  if (!existsSync(path)) return undefined;
  let parsed: Partial<StateFile>;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<StateFile>;
  } catch (error) {
    const reason = (error as Error).message;
    throw SeedError.of(path, `is not a readable state file (${reason}): remove it to start from the seed`);
  }
  if (parsed?.format !== FORMAT || parsed.version !== VERSION) {
    const message = `must be ${FORMAT} version ${VERSION}: remove the file to start from the seed`;
    throw SeedError.of(path, message, "format");
  }
  const store = buildStore(validateSeed(parsed.seed, path));
  for (const [id, due] of Object.entries(parsed.processing_due ?? {})) {
    if (typeof due === "number" && store.creatives.has(id)) store.processingDue.set(id, due);
  }
  for (const [id, accrual] of Object.entries(parsed.delivery ?? {})) {
    if (store.campaigns.has(id)) store.delivery.set(id, accrual);
  }
  return store;
}

export function saveState(path: string, store: Store): void {
  const file: StateFile = {
    format: FORMAT,
    version: VERSION,
    seed: storeToSeed(store),
    processing_due: Object.fromEntries(store.processingDue),
    delivery: Object.fromEntries(store.delivery),
  };
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(file)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}
