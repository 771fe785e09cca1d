/**
 * The package as `npm pack` makes it, installed with `npm install --global --prefix DIR`, once
 * per test run: test/install/pack.test.ts and test/docs/runnable.test.ts both use it, and a pack
 * and an install cost 6 s of CPU. The first file to ask makes it in the run's temporary
 * directory (test/setup/temp-root.ts, removed when the run ends) while the other, in another
 * worker, waits for it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBuilt, ROOT } from "../proof/binary.js";

export interface Packed {
  /** The tarball npm packed. */
  tarball: string;
  /** The paths it holds, as `npm pack --json` lists them. */
  files: string[];
  /** The global prefix it is installed into: its `bin/doohctl` is the installed CLI. */
  prefix: string;
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function make(dir: string): Packed {
  // The proof tests rebuild a stale dist/ under a lock: pack only once that build is done.
  ensureBuilt();
  const out = execFileSync(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  const packed = {
    tarball: join(dir, info!.filename),
    files: info!.files.map((f) => f.path),
    prefix: join(dir, "prefix"),
  };
  const install = ["install", "--global", "--prefix", packed.prefix, "--no-audit", "--no-fund"];
  execFileSync(npm, [...install, "--prefer-offline", packed.tarball], { cwd: dir, stdio: "ignore" });
  return packed;
}

export function packedAndInstalled(): Packed {
  const dir = join(tmpdir(), "doohctl-packed");
  const ready = join(dir, "packed.json");
  const failed = join(dir, "failed.txt");
  try {
    mkdirSync(dir);
  } catch {
    // Another file makes it: wait for its record.
    const deadline = Date.now() + 240_000;
    while (!existsSync(ready)) {
      if (existsSync(failed)) throw new Error(`packing failed: ${readFileSync(failed, "utf8")}`);
      if (Date.now() > deadline) throw new Error(`no ${ready} after 4 minutes`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
    return JSON.parse(readFileSync(ready, "utf8")) as Packed;
  }
  try {
    const packed = make(dir);
    writeFileSync(`${ready}.tmp`, JSON.stringify(packed));
    renameSync(`${ready}.tmp`, ready);
    return packed;
  } catch (error) {
    writeFileSync(failed, String(error));
    throw error;
  }
}
