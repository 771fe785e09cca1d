/**
 * Injected faults (`--faults 429:0.1,500:0.05,reset:0.01`): one seeded draw per /api request, so a
 * run is reproducible from `--fault-seed`. A faulted request is answered before it is handled.
 */
import { seededRandom } from "../model/random.js";
import { FaultSpecError } from "./errors.js";

export type FaultKind = "429" | "500" | "503" | "reset";
const KINDS: readonly FaultKind[] = ["429", "500", "503", "reset"];

export interface FaultRule {
  kind: FaultKind;
  probability: number;
}

/** Parses a fault spec; the empty string means no faults. Probabilities must sum to at most 1. */
export function parseFaults(spec: string): FaultRule[] {
  const rules: FaultRule[] = [];
  for (const part of spec
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [kind = "", rate = "", extra] = part.split(":");
    if (extra !== undefined || !KINDS.includes(kind as FaultKind)) {
      throw new FaultSpecError(
        `"${part}" is not a fault: write kind:probability with kind one of ${KINDS.join(", ")}, like 429:0.1`,
      );
    }
    const probability = Number(rate);
    if (rate.trim() === "" || !Number.isFinite(probability) || probability < 0 || probability > 1) {
      throw new FaultSpecError(`"${part}": the probability must be a number between 0 and 1, like 0.05`);
    }
    rules.push({ kind: kind as FaultKind, probability });
  }
  const total = rules.reduce((sum, r) => sum + r.probability, 0);
  if (total > 1 + 1e-9) throw new FaultSpecError(`fault probabilities add up to ${total}, more than 1`);
  return rules;
}

export class FaultInjector {
  private rules: FaultRule[] = [];
  private random: () => number;
  private text = "";

  /** Without a seed, the draws start from a random one. */
  constructor(spec = "", seed: number = Math.floor(Math.random() * 2 ** 32)) {
    this.random = seededRandom(seed);
    this.configure(spec);
  }

  /**
   * Replaces the faults. A new seed restarts the draws; without one they go on, so a run started
   * with `--fault-seed` stays reproducible when its faults change later (control path, `setFaults`).
   */
  configure(spec: string, seed?: number): void {
    this.rules = parseFaults(spec);
    this.text = spec;
    if (seed !== undefined) this.random = seededRandom(seed);
  }

  get spec(): string {
    return this.text;
  }

  /** The fault for the next request, if any. Draws nothing when no faults are set. */
  draw(): FaultKind | undefined {
    if (this.rules.length === 0) return undefined;
    let r = this.random();
    for (const rule of this.rules) {
      if (r < rule.probability) return rule.kind;
      r -= rule.probability;
    }
    return undefined;
  }
}
