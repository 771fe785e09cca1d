import { defineConfig } from "vitest/config";

/**
 * Folders whose tests are pure functions and in-process emulators: they touch no process-wide
 * state (no process.env, no chdir, no module mocks, no fake timers), so their files share one
 * module graph per worker instead of importing src/ afresh each (measured with 4 workers:
 * model, plan and render 84 s and 75 s against 116 s and 112 s isolated; emulator, export,
 * pull, status and doctor 16.5 s against 22.2 s). A test that needs such state belongs in
 * another folder.
 */
const SHARED_MODULES = ["model", "plan", "render", "emulator", "export", "pull", "status", "doctor"].map(
  (folder) => `test/${folder}/**/*.test.ts`,
);

export default defineConfig({
  test: {
    // Random property tests by default; a fixed seed with FC_SEED (CI sets one).
    setupFiles: ["test/setup/fast-check.ts"],
    // Every temporary directory of a run under one that is removed when it ends.
    globalSetup: ["test/setup/temp-root.ts"],
    // Integration tests start the emulator in-process on port 0; virtual clocks keep them fast.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The suite waits on HTTP, child processes (the CLI, CI replays, proofs) and the disk far
    // more than it computes, so more files than cores at once cut the wall time (measured on
    // test/cli, test/doctor and test/accounts: 4 workers took 62-74 s where 1 took 73-174 s).
    maxWorkers: 4,
    // Long soak and crash variants run only when asked for, to keep the suite
    // short on shared machines: DOOHCTL_LONG_TESTS=1.
    env: { NO_COLOR: "1" },
    projects: [
      { extends: true, test: { name: "shared-modules", include: SHARED_MODULES, isolate: false } },
      { extends: true, test: { name: "isolated", include: ["test/**/*.test.ts"], exclude: SHARED_MODULES } },
    ],
  },
});
