/**
 * The apply lock when a crashed apply left it behind and several applies start at once
 * (src/apply/lock.ts): exactly one holds it at any time. Before the takeover guard, two
 * waiters that both saw the dead holder could both remove "its" lock, the second removing the
 * one the first had just taken, and two applies ran together (seen in about a third of the
 * rounds of four processes). Real processes, started together on a shared wall-clock instant.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { accountKey } from "../../src/apply/recovery.js";
import { ensureBuilt, ROOT } from "./binary.js";
import { LONG } from "./world.js";

beforeAll(() => ensureBuilt(), 180_000);

const SCOPE = { origin: "https://dsp.example.com", environment: "production", account_id: "7" };

/**
 * Holds the lock for 150 ms and prints when, on the machine's monotonic clock; starts at `go`, all
 * together: it sleeps until 20 ms before and spins the rest (spinning the whole wait took seconds of CPU).
 */
const WORKER = `
const { acquireApplyLock } = await import(${JSON.stringify(join(ROOT, "dist", "src", "apply", "lock.js"))});
const { systemClock } = await import(${JSON.stringify(join(ROOT, "dist", "src", "model", "clock.js"))});
const [dir, go] = process.argv.slice(1);
const epoch = () => Number(process.hrtime.bigint()) / 1e6;
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(go) - epoch() - 20)));
while (epoch() < Number(go)) {}
const lock = await acquireApplyLock({ dir: \`\${dir}/locks\`, scope: ${JSON.stringify(SCOPE)}, clock: systemClock });
const start = epoch();
await new Promise((resolve) => setTimeout(resolve, 150));
const end = epoch();
lock.release();
process.stdout.write(JSON.stringify({ start, end }));
`;

function worker(dir: string, go: number): Promise<{ start: number; end: number }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--input-type=module", "-e", WORKER, dir, String(go)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve, reject) =>
    child.on("close", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`lock worker exited ${code}`)),
    ),
  );
}

/**
 * `mode` 0o600: a crashed apply's lock, readable; 0o644: a lock doohctl cannot trust (a state
 * file open to others), taken over once it has stayed that same file for a second.
 */
async function round(processes: number, mode: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-lock-race-"));
  mkdirSync(join(dir, "locks"), { mode: 0o700 });
  // A crashed apply's lock: a pid no process has, its lease still fresh.
  writeFileSync(
    join(dir, "locks", `${accountKey(SCOPE)}.lock`),
    JSON.stringify({
      started_at: "2026-11-23T10:00:00.000Z",
      token: "0123456789abcdef",
      lease: { host: hostname(), pid: 2 ** 22 + 1, renewed_at: new Date().toISOString() },
    }),
    { mode },
  );
  // The machine's monotonic clock, one for every process: not Date (a preload such as the one
  // .ci/run uses moves it in each process), nor performance.timeOrigin (each process reads the
  // wall clock at its start, off by as long as a loaded machine preempts it: false overlaps).
  const go = Number(process.hrtime.bigint()) / 1e6 + 700;
  const held = (await Promise.all(Array.from({ length: processes }, () => worker(dir, go)))).sort(
    (a, b) => a.start - b.start,
  );
  return held.filter((h, i) => i > 0 && h.start < held[i - 1]!.end).length;
}

describe("the apply lock over a crashed apply's lock", () => {
  it("is held by one apply at a time when four start together", {
    timeout: LONG ? 300_000 : 60_000,
  }, async () => {
    const rounds = LONG ? 20 : 3;
    for (let n = 0; n < rounds; n++) expect(await round(4, 0o600), `round ${n}: overlapping holders`).toBe(0);
  });

  it("is held by one apply at a time when four start over a lock it cannot read", {
    timeout: LONG ? 300_000 : 60_000,
  }, async () => {
    // The takeover of an unreadable lock once removed a lock another waiter had just created
    // and not yet written (both empty to a reader): one file unreadable for a second is now
    // told from a new one by its inode and change time.
    const rounds = LONG ? 20 : 3;
    for (let n = 0; n < rounds; n++) expect(await round(4, 0o644), `round ${n}: overlapping holders`).toBe(0);
  });
});
