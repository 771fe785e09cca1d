/**
 * Peak memory of a piece of work. The work under test is synchronous for long stretches
 * (YAML parsing, planning), so a timer on the main thread would never fire during it: a
 * worker thread samples the process-wide resident set size every millisecond instead.
 * Run it in a fresh process (`bench/child.ts`) so the baseline is not an earlier
 * benchmark's heap, which the allocator may keep and reuse without the RSS growing.
 */
import { Worker } from "node:worker_threads";

const SAMPLER = `
const { parentPort } = require("node:worker_threads");
let peak = process.memoryUsage.rss();
const timer = setInterval(() => { const rss = process.memoryUsage.rss(); if (rss > peak) peak = rss; }, 1);
parentPort.on("message", () => { clearInterval(timer); parentPort.postMessage(Math.max(peak, process.memoryUsage.rss())); });
`;

export interface PeakMemory<T> {
  ms: number;
  /** Highest RSS seen during the work, minus the RSS just before it, in MiB. */
  peakRssMb: number;
  /** Heap in use right after the work, minus before (what the result keeps alive), in MiB. */
  heapMb: number;
  result: T;
}

const MB = 2 ** 20;

export async function measurePeak<T>(work: () => Promise<T> | T): Promise<PeakMemory<T>> {
  const sampler = new Worker(SAMPLER, { eval: true });
  await new Promise((resolve) => sampler.once("online", resolve));
  globalThis.gc?.();
  const rssBefore = process.memoryUsage.rss();
  const heapBefore = process.memoryUsage().heapUsed;
  const start = process.hrtime.bigint();
  const result = await work();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const heapAfter = process.memoryUsage().heapUsed;
  const peak = await new Promise<number>((resolve) => {
    sampler.once("message", resolve);
    sampler.postMessage("stop");
  });
  await sampler.terminate();
  return {
    ms,
    peakRssMb: Math.max(0, peak - rssBefore) / MB,
    heapMb: Math.max(0, heapAfter - heapBefore) / MB,
    result,
  };
}
