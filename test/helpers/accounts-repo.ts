/**
 * A repository of several accounts (docs/safety.md, Several accounts in one repository): one directory each under `accounts/`,
 * whose `doohctl.yaml` names the variables of its origin and credentials, and the environment
 * that sets them. Account names are lower case with hyphens; their variables are
 * DOOHCTL_<NAME>_API_ORIGIN, DOOHCTL_<NAME>_EMAIL, DOOHCTL_<NAME>_PASSWORD.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface AccountVariables {
  api_origin_from: string;
  email_from: string;
  password_from: string;
}

export function accountVariables(name: string): AccountVariables {
  const stem = `DOOHCTL_${name.toUpperCase().replaceAll("-", "_")}`;
  return {
    api_origin_from: `${stem}_API_ORIGIN`,
    email_from: `${stem}_EMAIL`,
    password_from: `${stem}_PASSWORD`,
  };
}

/** The `connection:` lines of account `name` (rate limits raised: no test waits for a slot). */
export function accountConnection(name: string, extra: readonly string[] = []): string[] {
  const vars = accountVariables(name);
  return [
    "connection:",
    `  account: ${name}`,
    `  api_origin_from: ${vars.api_origin_from}`,
    `  email_from: ${vars.email_from}`,
    `  password_from: ${vars.password_from}`,
    "  rate_limits: { get: 1000/60s, write: 1000/60s, session: 100/60s }",
    ...extra.map((line) => `  ${line}`),
  ];
}

/**
 * Writes `<root>/<dir>/doohctl.yaml` for account `name`, with `insertionOrders` (the lines
 * under `insertion_orders:`; none: `insertion_orders: []`). Returns the directory.
 */
export function writeAccount(
  root: string,
  name: string,
  insertionOrders: readonly string[] = [],
  options: { dir?: string; connection?: readonly string[] } = {},
): string {
  const dir = join(root, options.dir ?? join("accounts", name));
  mkdirSync(dir, { recursive: true });
  const orders =
    insertionOrders.length > 0 ? ["insertion_orders:", ...insertionOrders] : ["insertion_orders: []"];
  writeFileSync(
    join(dir, "doohctl.yaml"),
    ["version: 1", ...accountConnection(name, options.connection), ...orders, ""].join("\n"),
  );
  return dir;
}

/** The variables that let account `name` log in as `user` at `origin`. */
export function accountEnv(
  name: string,
  origin: string,
  user: { email: string; password: string },
): Record<string, string> {
  const vars = accountVariables(name);
  return {
    [vars.api_origin_from]: origin,
    [vars.email_from]: user.email,
    [vars.password_from]: user.password,
  };
}
