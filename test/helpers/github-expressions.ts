/**
 * GitHub Actions expressions (`${{ ... }}`), evaluated the way the runner does for the parts
 * action.yml uses: context properties (`inputs.pr-number`, `steps.run.outputs.exit-code`),
 * string, number and boolean literals, `== != && || !`, parentheses, the status functions,
 * `format('{0}_X', v)` and an index into a context (`secrets[matrix.password_from]`, as the
 * fan-out workflows read an account's named secret). Anything else throws, so a new construct in action.yml fails the test loudly instead of
 * being evaluated wrongly. Values are data: nothing here runs a shell.
 */

export type Value = string | number | boolean | null;

export interface ExpressionContext {
  /** `inputs`, `env`, `github`, `steps`...: nested records of strings. */
  contexts: Record<string, unknown>;
  status: "success" | "failure" | "cancelled";
}

const TOKEN =
  /\s*(?:('(?:[^']|'')*')|(==|!=|&&|\|\||!|\(|\)|\[|\]|,)|(-?\d+(?:\.\d+)?)|([A-Za-z_][\w-]*(?:\.[A-Za-z_*][\w-]*)*))/y;

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

const asText = (v: Value) => (v === null ? "" : String(v));

function property(value: unknown, key: string): unknown {
  if (value === null || typeof value !== "object") return null;
  return (value as Record<string, unknown>)[key];
}

function asValue(value: unknown, path: string): Value {
  if (value === undefined || value === null) return null;
  if (typeof value === "object") throw new Error(`${path} is an object, not a value`);
  return value as Value;
}

/** GitHub's format(): `{N}` is the Nth argument as text, `{{` and `}}` are braces. */
function format(template: string, args: Value[]): string {
  return template.replace(/\{\{|\}\}|\{(\d+)\}/g, (whole, n: string | undefined) => {
    if (whole === "{{") return "{";
    if (whole === "}}") return "}";
    if (Number(n) >= args.length) throw new Error(`format(): no argument {${n}} in ${template}`);
    return asText(args[Number(n)] ?? null);
  });
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
    if (token === "format" && peek() === "(") {
      take("(");
      const args = [or()];
      while (peek() === ",") {
        take(",");
        args.push(or());
      }
      take(")");
      return format(asText(args[0] ?? null), args.slice(1));
    }
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
    let value: unknown = context.contexts;
    for (const part of token.split(".")) value = property(value, part);
    let path = token;
    while (peek() === "[") {
      take("[");
      const key = asText(or());
      take("]");
      value = property(value, key);
      path = `${path}[${key}]`;
    }
    return asValue(value, path);
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
