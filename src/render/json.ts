/** The plan as JSON: the saved-plan document itself (`plan -o`), stable key order. */
import { serializePlan } from "../plan/file.js";
import type { Plan } from "../plan/types.js";

export function renderJson(plan: Plan): string {
  return serializePlan(plan);
}
