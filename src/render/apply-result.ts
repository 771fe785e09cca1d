/**
 * `apply --format json`: the apply result, its `format_version` first (as the saved plan's and the
 * status report's), so a pipeline can tell an incompatible doohctl; the text report is report.ts.
 */
import type { ApplyResult } from "../model/apply-report.js";

/** Raise on any incompatible change of the document (docs/apply.md describes its fields). */
export const APPLY_RESULT_FORMAT_VERSION = 1;

export function renderApplyJson(result: ApplyResult): string {
  return `${JSON.stringify({ format_version: APPLY_RESULT_FORMAT_VERSION, ...result }, null, 2)}\n`;
}
