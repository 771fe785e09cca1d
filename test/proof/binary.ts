/**
 * The built CLI, the bin package.json names (the bundle of scripts/bundle.ts, as users run it),
 * as a child process: the crash and TLS proofs need a real process to kill or to start with
 * NODE_EXTRA_CA_CERTS. It is built once when missing or older than the sources.
 */
import { type ChildProcess, type ChildProcessByStdio, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { packageBin } from "../../scripts/package-bin.js";

export const ROOT = join(import.meta.dirname, "..", "..");
export const MAIN = packageBin(ROOT);

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const fresh = () => existsSync(MAIN) && statSync(MAIN).mtimeMs >= newestSource(join(ROOT, "src"));
const LOCK = join(tmpdir(), "doohctl-proof-build.lock");

/**
 * Builds dist when it is missing or stale. A type error stops the build before the bundle:
 * then this throws rather than let a test run an older bundle. Test files run in parallel
 * workers: a lock directory keeps them from building at once.
 */
export function ensureBuilt(): void {
  if (fresh()) return;
  const deadline = Date.now() + 170_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`another build holds ${LOCK}; remove it if stale`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (fresh()) return;
    execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "ignore" });
  } catch {
    // The check below says what is missing.
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
  if (!fresh()) throw new Error(`npm run build did not bundle ${MAIN} anew: run it to see why`);
}

/**
 * What moves the clock of this process (a preload in NODE_OPTIONS, as .ci/run and
 * docs/development.md use), passed on so a child sees the machine's time as its parent does.
 */
function machineClock(): Record<string, string> {
  const names = ["NODE_OPTIONS", "DOOHCTL_CLOCK_AHEAD_DAYS", "DOOHCTL_TEST_NOW", "DOOHCTL_TEST_FREEZE"];
  return Object.fromEntries(names.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
}

export interface Child {
  process: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code, or the signal that ended it. */
  exited: Promise<number | NodeJS.Signals>;
}

export function spawnCli(args: string[], options: { cwd: string; env: Record<string, string> }): Child {
  return captured(
    spawn(process.execPath, [MAIN, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", ...machineClock(), ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
}

function captured(child: ChildProcessByStdio<null, Readable, Readable>): Child {
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | NodeJS.Signals>((resolve) => {
    child.on("close", (code, signal) => resolve(signal ?? code ?? -1));
  });
  return { process: child, stdout: () => out, stderr: () => err, exited };
}

/** `doohctl ARGS` as a bash word list, for a pipeline's script: this node and the built CLI. */
export function cliWords(args: string[]): string {
  return [process.execPath, MAIN, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
}

/**
 * A bash `script` in a process group of its own (its pid is the group's id), as a terminal
 * runs a pipeline: `process.kill(-pid, signal)` reaches every process of it, as Ctrl-C does.
 * bash itself traps SIGINT and SIGTERM (its children keep the default), so it outlives them
 * and runs the script's last lines.
 */
export function spawnGroup(script: string, options: { cwd: string; env: Record<string, string> }): Child {
  return captured(
    spawn("bash", ["-c", `trap : INT TERM\n${script}`], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", ...machineClock(), ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    }),
  );
}
