/** Analyzers (Atlas `sqlcheck` style): named checks, each with the catalogue codes it emits. */
import type { FindingCode } from "../finding-catalogue.js";
import type { Finding } from "../types.js";

export function hasErrors(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.severity === "error");
}

/** A named check over a plan's changes: the codes it may emit; it never changes its input. */
export interface Analyzer<Input> {
  name: string;
  codes: readonly FindingCode[];
  run: (input: Input) => Finding[];
}

/** The findings of each analyzer in turn, in list order. */
export function runAnalyzers<Input>(analyzers: readonly Analyzer<Input>[], input: Input): Finding[] {
  return analyzers.flatMap((analyzer) => analyzer.run(input));
}
