/**
 * One temporary directory per test run, removed when the run ends: the suite's files, helpers
 * and the processes they start make their scratch directories with `tmpdir()` (or `mktemp`),
 * which read TMPDIR, and workers and child processes inherit it from here. A run leaves
 * nothing behind in the machine's temporary directory, even where a test keeps its scratch
 * directory to the end for the assertions (a CI machine ran out of inodes otherwise).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Set by the first setup of a run: each project runs the global setup, and one root is enough. */
const OWNED = "DOOHCTL_TEST_TEMP_ROOT";

export default function setup(): () => void {
  if (process.env[OWNED] !== undefined) return () => {};
  const root = mkdtempSync(join(tmpdir(), "doohctl-test-run-"));
  process.env[OWNED] = root;
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true });
}
