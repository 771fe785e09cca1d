/**
 * Crash recovery (issue 8): the built `doohctl apply` is killed with SIGKILL at seeded points,
 * including between a campaign POST and its response (killed from the emulator's onWrite,
 * which runs after the write and before the answer is sent). A following apply and plan
 * converge, no campaign exists twice, no active campaign lost a targeting, and the journal
 * is valid JSON Lines: src/apply/journal.ts writes each line whole with one synchronous
 * write, so even the last line must be complete (no torn line is allowed).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { run } from "../../src/cli/program.js";
import { startEmulator } from "../../src/emulator/index.js";
import { seededRandom } from "../../src/model/random.js";
import { loginEnv } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { ensureBuilt, spawnCli } from "./binary.js";
import { duplicateNames, invariantViolations, LONG, proofScenario } from "./world.js";

beforeAll(() => ensureBuilt(), 180_000);

type KillPoint = "pending-post" | "nth-write" | "timer";

interface CrashRun {
  killedAt: KillPoint;
  signal: number | string;
  journal: string;
  violations: string[];
}

async function crashAndRecover(seed: number): Promise<CrashRun> {
  const random = seededRandom(seed);
  const s = proofScenario({
    insertionOrders: 3,
    campaignsPerOrder: 6,
    campaignUpdates: 4,
    targetingChanges: 6,
    associationChanges: 6,
    newPerOrder: 1,
    seed,
  });
  const emulator = await startEmulator({
    port: 0,
    seed: s.seed,
    rateLimits: {
      get: { limit: 1000, windowMs: 60_000 },
      write: { limit: 1000, windowMs: 60_000 },
      session: { limit: 100, windowMs: 60_000 },
    },
    // Small latency so that a timed kill lands while a request is in flight.
    latencyMs: 10,
  });
  const dir = mkdtempSync(join(tmpdir(), "doohctl-crash-"));
  const config = parse(s.configYaml) as Record<string, unknown>;
  config.connection = {
    api_origin: emulator.origin,
    rate_limits: { get: "1000/60s", write: "1000/60s", session: "100/60s" },
  };
  writeFileSync(join(dir, "doohctl.yaml"), stringify(config, { lineWidth: 0 }));
  const env = loginEnv(s.user, dir);
  const journalPath = join(dir, "apply.jsonl");
  const killedAt: KillPoint = (["pending-post", "nth-write", "timer"] as const)[seed % 3]!;
  const nth = 1 + Math.floor(random() * 12);
  const violations: string[] = [];
  let previous = emulator.state();
  let writes = 0;
  try {
    const child = spawnCli(["apply", "--auto-approve", "--log", journalPath], { cwd: dir, env });
    const kill = () => child.process.kill("SIGKILL");
    emulator.onWrite((entry, state) => {
      violations.push(...invariantViolations(previous, state, entry, s.created));
      previous = state;
      writes++;
      // The write is applied and its answer not yet sent: the child dies not knowing.
      if (killedAt === "pending-post" && entry.method === "POST" && entry.path.endsWith("/campaigns")) kill();
      if (killedAt === "nth-write" && writes === nth) kill();
      if (killedAt === "timer" && writes === 1) setTimeout(kill, Math.floor(random() * 150));
    });
    const signal = await child.exited;

    const io = bufferIO({ env, cwd: dir });
    const applied = await run(["apply", "--auto-approve"], io);
    expect(applied, io.err()).toBe(0);
    const check = bufferIO({ env, cwd: dir });
    expect(await run(["plan", "--detailed-exitcode"], check), check.out() + check.err()).toBe(0);
    violations.push(...duplicateNames(emulator.state()).map((d) => `campaign ${d} created twice`));
    // Every new campaign exists exactly once.
    for (const name of s.created.keys()) {
      expect(emulator.state().campaigns.filter((c) => c.name === name)).toHaveLength(1);
    }
    let journal = "";
    try {
      journal = readFileSync(journalPath, "utf8");
    } catch {
      // Killed before the journal was opened: nothing to check.
    }
    return { killedAt, signal, journal, violations };
  } finally {
    await emulator.close();
  }
}

function checkJournal(journal: string): void {
  if (journal === "") return;
  expect(journal.endsWith("\n"), "the last journal line is complete").toBe(true);
  const entries = journal
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as { event: string; seq?: number; status?: unknown });
  expect(entries[0]?.event).toBe("start");
  const seqs = entries.filter((e) => e.event === "request").map((e) => e.seq!);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  expect(entries.slice(1).every((e) => ["request", "check", "end"].includes(e.event))).toBe(true);
}

async function proveSeeds(seeds: number[]): Promise<void> {
  for (const seed of seeds) {
    const result = await crashAndRecover(seed);
    expect(result.violations, `seed ${seed}`).toEqual([]);
    // The kill landed before the apply finished, or the seed proved nothing.
    expect(result.signal, `seed ${seed} (${result.killedAt})`).toBe("SIGKILL");
    checkJournal(result.journal);
  }
}

describe("crash recovery", () => {
  it("converges after a SIGKILL between a campaign POST and its response, creating nothing twice", async () => {
    const result = await crashAndRecover(3);
    expect(result.killedAt).toBe("pending-post");
    expect(result.signal).toBe("SIGKILL");
    expect(result.violations).toEqual([]);
    checkJournal(result.journal);
  });

  it("converges after SIGKILLs at a seeded write and at a seeded time", async () => {
    await proveSeeds([4, 5]);
  });
});

describe.runIf(LONG)("crash recovery, long: 24 seeds", () => {
  it("always converges, never duplicates, never breaks I1", { timeout: 900_000 }, async () => {
    await proveSeeds(Array.from({ length: 24 }, (_, i) => 100 + i));
  });
});
