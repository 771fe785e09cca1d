import { defineConfig } from "vitest/config";
import { ISOLATED } from "./test/setup/isolation.js";

const SMALL_STACK = ["test/config/scale.test.ts"];

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
    // Test files share one module graph per worker instead of importing src/ afresh each,
    // except those that change process-wide state (test/setup/isolation.ts; its test holds the
    // rest to it). Measured on test/apply with 4 workers: 17 CPU-seconds shared against 42
    // isolated; on test/cli, test/accounts and test/api 39 against 75 (docs/performance.md).
    projects: [
      {
        extends: true,
        test: {
          name: "shared-modules",
          include: ["test/**/*.test.ts"],
          exclude: [...ISOLATED, ...SMALL_STACK],
          isolate: false,
        },
      },
      { extends: true, test: { name: "isolated", include: ISOLATED, exclude: SMALL_STACK } },
      // An eighth of Node's stack, where a spread into a call overflows at an eighth of the
      // items: the scale test proves with 20,000 creatives what 200,000 prove at the default.
      { extends: true, test: { name: "small-stack", include: SMALL_STACK, execArgv: ["--stack-size=120"] } },
    ],
  },
});
