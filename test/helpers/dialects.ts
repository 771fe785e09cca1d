/** A dialect as a config writes it (src/model/dialect.ts), checked: tests write only valid ones. */
import { type Dialect, parseDialect } from "../../src/model/dialect.js";

export function dialectOf(written: unknown): Dialect {
  const parsed = parseDialect(written);
  if ("problems" in parsed) throw new Error(`not a dialect: ${JSON.stringify(parsed.problems)}`);
  return parsed.dialect;
}
