/**
 * An example of examples/ against examples/emulator-seed.json, the way a reader of the README
 * tries it: the real emulator with the seed's demo user, the example's files copied to a
 * fresh directory, and `run()` with the environment a user would set.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EmulatorSeed, loadSeedFile, type RunningEmulator } from "../../src/emulator/index.js";
import { type Clock, OffsetClock, VirtualClock } from "../../src/model/clock.js";
import { startCliAccount } from "./cli-account.js";
import { bufferIO } from "./io.js";
import { DEMO_USER } from "./users.js";

export const ROOT = join(import.meta.dirname, "../..");
/** Where the examples' configs say the emulator listens (`doohctl emulator`'s default). */
export const EXAMPLE_ORIGIN = "http://127.0.0.1:8787";

/**
 * examples/emulator-seed.json, and a clock on the day it is written for (its `today`, at 09:00
 * UTC), running on from there: the emulator places the seed 0 days away, so the examples' dates
 * hold as written on any day the suite runs. The emulator and `doohctl` share the clock.
 * `still`: time stands there unless something sleeps (a VirtualClock that advances itself), so
 * two plans made moments apart see the same delivery however loaded the machine is.
 */
export async function exampleSeed(
  options: { still?: boolean } = {},
): Promise<{ seed: EmulatorSeed; clock: Clock }> {
  const seed = await loadSeedFile(join(ROOT, "examples/emulator-seed.json"));
  const start = Date.parse(`${seed.today}T09:00:00Z`);
  const clock = options.still ? new VirtualClock({ start, autoAdvance: true }) : new OffsetClock({ start });
  return { seed, clock };
}

export interface ExampleAccount {
  emulator: RunningEmulator;
  /** The directory the example's files were copied to, and the commands' working directory. */
  dir: string;
  /** A fresh CLI environment logged in as the seed's demo user. */
  cli(): ReturnType<typeof bufferIO>;
  close(): Promise<void>;
}

/** `files` maps a name in the new directory to a file under the repository, or to its text. */
export async function startExample(
  prefix: string,
  files: Record<string, { copy: string } | { text: string }>,
): Promise<ExampleAccount> {
  const { seed, clock } = await exampleSeed();
  const emulator = (await startCliAccount({ seed, emulator: { clock } })).emulator;
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [name, from] of Object.entries(files)) {
    // The examples name the emulator's documented origin; this one listens on a free port,
    // and a config origin other than DOOHCTL_API_ORIGIN is refused (docs/safety.md).
    const text = "copy" in from ? readFileSync(join(ROOT, from.copy), "utf8") : from.text;
    writeFileSync(join(dir, name), text.replaceAll(EXAMPLE_ORIGIN, emulator.origin));
  }
  return {
    emulator,
    dir,
    cli: () =>
      bufferIO({
        cwd: dir,
        clock,
        env: {
          DOOHCTL_API_ORIGIN: emulator.origin,
          DOOHCTL_EMAIL: DEMO_USER.email,
          DOOHCTL_PASSWORD: DEMO_USER.password,
          DOOHCTL_SESSION_CACHE: "off",
          DOOHCTL_STATE_DIR: join(dir, "state"),
          HOME: dir,
        },
      }),
    close: async () => {
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
