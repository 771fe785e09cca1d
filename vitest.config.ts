import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Random property tests by default; a fixed seed with FC_SEED (CI sets one).
    setupFiles: ["test/setup/fast-check.ts"],
    // Integration tests start the emulator in-process on port 0; virtual clocks keep them fast.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Long soak and crash variants run only when asked for, to keep the suite
    // short on shared machines: DOOHCTL_LONG_TESTS=1.
    env: { NO_COLOR: "1" },
  },
});
