/**
 * The suite's day. In-process tests run doohctl (`bufferIO`, io.ts) and the emulator
 * (`startCliAccount`, cli-account.ts) on one clock that starts at `SUITE_NOW` and runs on in
 * real time, so the builders' flights (December 2026 to March 2027, builders.ts) are in flight
 * whatever day the suite runs on. A test whose doohctl is a real child process (which reads the
 * system clock) starts its emulator on `systemClock` and writes dates relative to it.
 */
import { OffsetClock } from "../../src/model/clock.js";

export const SUITE_NOW = "2026-12-02T09:00:00Z";

/** One per module graph: every file of a worker sees the same time. */
export const suiteClock = new OffsetClock({ start: Date.parse(SUITE_NOW) });
