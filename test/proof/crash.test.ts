/**
 * Crash recovery: the built `doohctl apply` is killed with SIGKILL at seeded points,
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
import { seededRandom } from "../../src/model/random.js";
import { loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { ensureBuilt, spawnCli } from "./binary.js";
import { duplicateNames, invariantViolations, LONG, proofScenario } from "./world.js";

beforeAll(() => ensureBuilt(), 180_000);

/** `pause`: killed right after a pause of a campaign whose config leaves `active` out. */
type KillPoint = "pending-post" | "nth-write" | "timer" | "pause";

interface CrashRun {
  killedAt: KillPoint;
  signal: number | string;
  journal: string;
  violations: string[];
  /** What the first plan after the kill said, and the undeclared campaigns then inactive. */
  planAfterKill: string;
  leftDark: string[];
}

interface CrashOptions {
  /** Half the campaigns whose targetings change leave `active` undeclared (world.ts). */
  undeclaredActive?: boolean;
  killAt?: KillPoint;
}

async function crashAndRecover(seed: number, options: CrashOptions = {}): Promise<CrashRun> {
  const random = seededRandom(seed);
  const s = proofScenario({
    insertionOrders: 3,
    campaignsPerOrder: 6,
    campaignUpdates: 4,
    targetingChanges: options.undeclaredActive ? 10 : 6,
    associationChanges: 6,
    newPerOrder: 1,
    seed,
    ...(options.undeclaredActive ? { undeclaredActive: true } : {}),
  });
  const activeBefore = s.seed.campaigns!.filter((c) => c.active).map((c) => c.id);
  const emulator = (
    await startCliAccount({
      systemTime: true,
      seed: s.seed,
      emulator: {
        rateLimits: {
          get: { limit: 1000, windowMs: 60_000 },
          write: { limit: 1000, windowMs: 60_000 },
          session: { limit: 100, windowMs: 60_000 },
        }, // Small latency so that a timed kill lands while a request is in flight.
        latencyMs: 10,
      },
    })
  ).emulator;
  const dir = mkdtempSync(join(tmpdir(), "doohctl-crash-"));
  const config = parse(s.configYaml) as Record<string, unknown>;
  config.connection = {
    api_origin: emulator.origin,
    rate_limits: { get: "1000/60s", write: "1000/60s", session: "100/60s" },
  };
  writeFileSync(join(dir, "doohctl.yaml"), stringify(config, { lineWidth: 0 }));
  const env = loginEnv(s.user, dir);
  const journalPath = join(dir, "apply.jsonl");
  const killedAt: KillPoint = options.killAt ?? (["pending-post", "nth-write", "timer"] as const)[seed % 3]!;
  const undeclared = new Set(s.undeclared);
  const pausesUndeclared = (body: unknown) =>
    ((body as { campaigns?: { id?: string; active?: boolean }[] } | undefined)?.campaigns ?? []).some(
      (c) => c.active === false && undeclared.has(c.id ?? ""),
    );
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
      if (killedAt === "pause" && entry.method === "PATCH" && pausesUndeclared(entry.body)) kill();
    });
    const signal = await child.exited;
    const leftDark = s.undeclared.filter(
      (id) => emulator.state().campaigns.find((c) => c.id === id)?.active === false,
    );

    // The next plan names what the dead apply left paused (DOOH202) as a change to make.
    const first = bufferIO({ env, cwd: dir });
    expect(await run(["plan"], first), first.err()).toBe(0);
    const planAfterKill = first.out() + first.err();

    const io = bufferIO({ env, cwd: dir });
    const applied = await run(["apply", "--auto-approve"], io);
    expect(applied, io.err()).toBe(0);
    const check = bufferIO({ env, cwd: dir });
    expect(await run(["plan", "--detailed-exitcode"], check), check.out() + check.err()).toBe(0);
    violations.push(...duplicateNames(emulator.state()).map((d) => `campaign ${d} created twice`));
    // Delivery restored: every campaign active before the apply (none is declared inactive) is active.
    const after = new Map(emulator.state().campaigns.map((c) => [c.id, c.active]));
    violations.push(
      ...activeBefore.filter((id) => after.get(id) !== true).map((id) => `campaign ${id} left inactive`),
    );
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
    return { killedAt, signal, journal, violations, planAfterKill, leftDark };
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

async function proveSeeds(seeds: number[], options: CrashOptions = {}): Promise<void> {
  for (const seed of seeds) {
    const result = await crashAndRecover(seed, options);
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

describe("crash recovery when the config leaves active undeclared", () => {
  it("reactivates, on the next plan and apply, a campaign the killed apply paused (DOOH202)", async () => {
    const result = await crashAndRecover(6, { undeclaredActive: true, killAt: "pause" });
    expect(result.signal).toBe("SIGKILL");
    // The kill left an undeclared campaign dark, which the live state alone would take as desired.
    expect(result.leftDark.length).toBeGreaterThan(0);
    expect(result.planAfterKill).toContain("DOOH202");
    for (const id of result.leftDark) expect(result.planAfterKill).toContain(id);
    expect(result.violations).toEqual([]);
    checkJournal(result.journal);
  });

  it("restores delivery after SIGKILLs at seeded writes and times", async () => {
    await proveSeeds([7, 8, 10], { undeclaredActive: true });
  });
});

describe.runIf(LONG)("crash recovery, long: 24 seeds", () => {
  it("always converges, never duplicates, never breaks I1", { timeout: 900_000 }, async () => {
    await proveSeeds(Array.from({ length: 24 }, (_, i) => 100 + i));
  });

  it("restores delivery with active undeclared, 24 seeds", { timeout: 900_000 }, async () => {
    await proveSeeds(
      Array.from({ length: 24 }, (_, i) => 200 + i),
      { undeclaredActive: true },
    );
    for (let seed = 300; seed < 306; seed++) {
      const result = await crashAndRecover(seed, { undeclaredActive: true, killAt: "pause" });
      expect(result.violations, `seed ${seed}`).toEqual([]);
    }
  });
});
