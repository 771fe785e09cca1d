/**
 * GitHub Actions expressions (`${{ ... }}`), evaluated the way the runner does for the parts
 * action.yml uses: context properties (`inputs.pr-number`, `steps.run.outputs.exit-code`),
 * string, number and boolean literals, `== != && || !`, parentheses and the status functions.
 * Anything else throws, so a new construct in action.yml fails the test loudly instead of
 * being evaluated wrongly. Values are data: nothing here runs a shell.
 */

export type Value = string | number | boolean | null;

export interface ExpressionContext {
  /** `inputs`, `env`, `github`, `steps`...: nested records of strings. */
  contexts: Record<string, unknown>;
  status: "success" | "failure" | "cancelled";
}

const TOKEN =
  /\s*(?:('(?:[^']|'')*')|(==|!=|&&|\|\||!|\(|\)|,)|(-?\d+(?:\.\d+)?)|([A-Za-z_][\w-]*(?:\.[A-Za-z_*][\w-]*)*))/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) throw new Error(`unsupported expression syntax at ${at}: ${text}`);
    tokens.push(match[0].trim());
  }
  return tokens;
}

const truthy = (v: Value) => v !== null && v !== false && v !== "" && v !== 0;

function toNumber(v: Value): number {
  if (v === null || v === false || v === "") return 0;
  if (v === true) return 1;
  return Number(v);
}

/** GitHub's loose equality: strings compare case-insensitively, other mixes as numbers. */
function equal(a: Value, b: Value): boolean {
  if (typeof a === "string" && typeof b === "string") return a.toLowerCase() === b.toLowerCase();
  return toNumber(a) === toNumber(b);
}

function lookup(path: string, contexts: Record<string, unknown>): Value {
  let value: unknown = contexts;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object") return null;
    value = (value as Record<string, unknown>)[part];
  }
  if (value === undefined || value === null) return null;
  if (typeof value === "object") throw new Error(`${path} is an object, not a value`);
  return value as Value;
}

/** Evaluates the text inside one `${{ }}`. */
export function evaluate(text: string, context: ExpressionContext): Value {
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected))
      throw new Error(`expected ${expected ?? "a value"} in: ${text}`);
    return token;
  };
  const primary = (): Value => {
    const token = take();
    if (token === "(") {
      const value = or();
      take(")");
      return value;
    }
    if (token === "!") return !truthy(primary());
    if (token.startsWith("'")) return token.slice(1, -1).replaceAll("''", "'");
    if (/^-?\d/.test(token)) return Number(token);
    if (token === "true" || token === "false") return token === "true";
    if (token === "null") return null;
    if (peek() === "(") {
      if (!["success", "failure", "cancelled", "always"].includes(token))
        throw new Error(`unsupported function ${token}() in: ${text}`);
      take("(");
      take(")");
      if (token === "success") return context.status === "success";
      if (token === "failure") return context.status === "failure";
      if (token === "cancelled") return context.status === "cancelled";
      return true; // always()
    }
    return lookup(token, context.contexts);
  };
  const comparison = (): Value => {
    let left = primary();
    while (peek() === "==" || peek() === "!=") {
      const op = take();
      const right = primary();
      left = op === "==" ? equal(left, right) : !equal(left, right);
    }
    return left;
  };
  const and = (): Value => {
    let left = comparison();
    while (peek() === "&&") {
      take();
      const right = comparison();
      left = truthy(left) ? right : left;
    }
    return left;
  };
  const or = (): Value => {
    let left = and();
    while (peek() === "||") {
      take();
      const right = and();
      left = truthy(left) ? left : right;
    }
    return left;
  };
  const value = or();
  if (at !== tokens.length) throw new Error(`unexpected ${tokens[at]} in: ${text}`);
  return value;
}

const asText = (v: Value) => (v === null ? "" : String(v));

/**
 * Replaces each `${{ e }}` in `text` by its value, as the runner does before it writes a
 * `run:` script to disk: the value lands in the script as text (which is why action.yml passes
 * inputs through `env:`).
 */
export function interpolate(text: string, context: ExpressionContext): string {
  return text.replace(/\$\{\{(.*?)\}\}/gs, (_, inner: string) => asText(evaluate(inner, context)));
}

/** A step's `if:`: an expression with or without `${{ }}`, `success() &&` implied without a status function. */
export function stepCondition(condition: string | undefined, context: ExpressionContext): boolean {
  if (condition === undefined) return context.status === "success";
  const inner = condition.trim().replace(/^\$\{\{(.*)\}\}$/s, "$1");
  const value = truthy(evaluate(inner, context));
  return /\b(success|failure|cancelled|always)\(\)/.test(inner)
    ? value
    : value && context.status === "success";
}
