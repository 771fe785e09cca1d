/**
 * The accounts of a repository (`doohctl accounts`; docs/safety.md, Credentials): directories
 * whose YAML files declare `connection.account`. Only each file's `connection` is checked (as a
 * run checks it), so an error elsewhere never hides an account from the CI matrix.
 */
import { readdir, realpath } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { AccountSettings, ConnectionSettings } from "../model/desired.js";
import type { Environment } from "../model/wire.js";
import { CONFIG_FILE_LIMIT, findTree, isInside, readRegularFileSync } from "./file-guard.js";
import { YAML_NAME } from "./files.js";
import { ConfigError, type ConfigIssue } from "./issues.js";
import { normalizeConnection } from "./normalize-connection.js";
import { Places } from "./places.js";
import type { Raw } from "./raw-values.js";
import { checkSchema } from "./schema-check.js";
import { parseYaml } from "./yaml/read.js";
import { decodeUtf8 } from "./yaml/utf8.js";

/** One account as `doohctl accounts --format json` lists it (docs/safety.md). */
export interface AccountEntry {
  account: string;
  /** Its directory, relative to the working directory, with `/`. */
  path: string;
  environment: Environment;
  api_origin_from: string;
  email_from: string;
  password_from: string;
}

export interface FoundAccount {
  entry: AccountEntry;
  /** The directory, absolute. */
  dir: string;
  /** The file that declares it, as shown in messages. */
  file: string;
}

/** A path given to `doohctl accounts` that is no directory to look in. */
export class AccountsPathError extends Error {
  override readonly name = "AccountsPathError";
  readonly code = "ACCOUNTS_PATH";
}

/**
 * Only a file that may declare a connection is parsed: `connection` or `account` in its text,
 * or an escape that may spell them (`"\x61ccount"`), in any style. A narrower test hid a
 * flow-style account from the CI matrix, and ran its files with the generic credentials.
 */
const mayDeclare = (text: string): boolean =>
  text.includes("account") || text.includes("connection") || text.includes("\\");
/** Never walked: they hold no config, and node_modules can be huge. */
const SKIPPED_DIRECTORY = (name: string) => name.startsWith(".") || name === "node_modules";

/** A directory's connection that names an account but is not valid: whose credentials cannot be told. */
export class AccountConnectionError extends ConfigError {}

const ACCOUNT_KEYS = ["account", "api_origin_from", "email_from", "password_from"];

const namesAccount = (d: ConnectionDeclaration): boolean => d.settings.account !== undefined;

/** A file's `connection`, valid, as declared: `account` absent in a single-account tree. */
export interface ConnectionDeclaration {
  /** As shown in messages. */
  file: string;
  settings: ConnectionSettings;
}

/**
 * One directory holds one account, so one `connection` (docs/config.md): where one names an
 * account, each after the first (file-name order) is an issue naming both, read or not. The
 * check of `doohctl accounts` and of every run (accounts-mixed.ts): taking the first file's
 * connection planned one account's campaigns with another's credentials. Connections naming
 * no account are configs a run names one at a time; rules.ts refuses a run reading two.
 */
export function connectionsDeclaredTwice(
  dir: string,
  declared: readonly ConnectionDeclaration[],
): ConfigIssue[] {
  const first = declared[0];
  if (first === undefined || !declared.some(namesAccount)) return [];
  const named = (d: ConnectionDeclaration) =>
    d.settings.account === undefined
      ? `${d.file} (no account)`
      : `${d.file} (account ${d.settings.account.name})`;
  return declared.slice(1).map((second) => ({
    file: second.file,
    line: 0,
    column: 0,
    path: "connection",
    code: "CONNECTION_DECLARED_TWICE" as const,
    message: `${dir} declares a second connection, in ${named(second)}, besides ${named(first)}: one directory holds one account, so one connection; keep this directory's own and move the other, with its account's files, to a directory of its own (doohctl accounts lists them)`,
  }));
}

/**
 * The account a directory's YAML files declare, if any; a ConfigError for a connection not valid
 * or declared twice (AccountConnectionError when it names an account). `known`: files a run
 * parsed already (by absolute path; null: no connection), not read again.
 */
export async function declaredAccount(
  dir: string,
  cwd: string,
  tree?: string,
  known?: ReadonlyMap<string, ConnectionDeclaration | null>,
): Promise<FoundAccount | undefined> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => YAML_NAME.test(n)).sort();
  // As a run reads a directory (files.ts): an entry must resolve inside the tree or the directory.
  const trusted = [tree ?? (await findTree(cwd)), await realpath(dir).catch(() => dir)];
  const found: ConnectionDeclaration[] = [];
  const issues: ConfigIssue[] = [];
  let namesAccount = false;
  for (const name of names) {
    const file = shown(join(dir, name), cwd);
    const parsedByRun = known?.get(join(dir, name));
    if (parsedByRun !== undefined) {
      if (parsedByRun?.settings.account) namesAccount = true;
      if (parsedByRun) found.push(parsedByRun);
      continue;
    }
    let bytes: Uint8Array;
    try {
      const real = await realpath(join(dir, name));
      if (!trusted.some((root) => isInside(root, real))) continue; // refused by the account's run
      bytes = readRegularFileSync(real, CONFIG_FILE_LIMIT);
    } catch {
      continue; // not a regular file, or unreadable: the account's own run reports it
    }
    const decoded = decodeUtf8(bytes, file);
    if ("issue" in decoded || !mayDeclare(decoded.text)) continue;
    const parsed = parseYaml(decoded.text, file);
    const doc = parsed.value as Raw | null;
    if (!parsed.usable || typeof doc !== "object" || doc === null || doc.connection === undefined) continue;
    const connection = doc.connection as Raw | null;
    if (typeof connection === "object" && connection !== null && ACCOUNT_KEYS.some((k) => k in connection)) {
      namesAccount = true;
    }
    // The connection alone: the rest of the file is its account's run's to check.
    const schema = checkSchema({ version: doc.version, connection: doc.connection }, parsed.index);
    const own = schema.issues.filter((i) => i.path.startsWith("connection"));
    if (own.length > 0 || typeof doc.connection !== "object") {
      for (const issue of own) issues.push(issue);
      continue;
    }
    const places = new Places(parsed.index);
    const settings = normalizeConnection(doc.connection as Raw, "connection", places);
    for (const issue of places.issues) issues.push(issue);
    if (places.issues.length === 0) found.push({ file, settings });
  }
  for (const issue of connectionsDeclaredTwice(shown(dir, cwd), found)) issues.push(issue);
  if (issues.length > 0) throw namesAccount ? new AccountConnectionError(issues) : new ConfigError(issues);
  const one = found[0];
  const account: AccountSettings | undefined = one?.settings.account;
  if (one === undefined || account === undefined) return undefined;
  return {
    dir,
    file: one.file,
    entry: {
      account: account.name,
      path: argument(shown(dir, cwd)),
      environment: one.settings.environment ?? ("production" satisfies Environment),
      api_origin_from: account.apiOriginFrom,
      email_from: account.emailFrom,
      password_from: account.passwordFrom,
    },
  };
}

/** Every account under `paths` (walked down; a file stands for its directory); a name twice is an error. */
export async function findAccounts(paths: readonly string[], cwd: string): Promise<FoundAccount[]> {
  const dirs = new Set<string>();
  // One directory named by two paths (a link to it among PATHS) is one account, not two.
  const reals = new Set<string>();
  const walk = async (dir: string): Promise<void> => {
    const real = await realpath(dir).catch(() => dir);
    if (reals.has(real)) return;
    reals.add(real);
    dirs.add(dir);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) if (e.isDirectory() && !SKIPPED_DIRECTORY(e.name)) await walk(join(dir, e.name));
  };
  for (const path of paths.length > 0 ? paths : ["."]) {
    const absolute = resolve(cwd, path);
    const listed = await readdir(absolute).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOTDIR") return false;
        throw new AccountsPathError(
          `${path}: ${error.code === "ENOENT" ? "no such directory" : `cannot be read (${error.code ?? error.message})`}: name a directory that holds account directories (default: the working directory)`,
        );
      },
    );
    await walk(listed ? absolute : dirname(absolute));
  }
  const tree = await findTree(cwd);
  const found: FoundAccount[] = [];
  const issues: ConfigIssue[] = [];
  for (const dir of [...dirs].sort()) {
    try {
      const account = await declaredAccount(dir, cwd, tree);
      if (account) found.push(account);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const issue of error.issues) issues.push(issue);
    }
  }
  const byName = new Map<string, FoundAccount>();
  for (const account of found) {
    const first = byName.get(account.entry.account);
    if (first === undefined) {
      byName.set(account.entry.account, account);
      continue;
    }
    issues.push({
      file: account.file,
      line: 0,
      column: 0,
      path: "connection.account",
      code: "DUPLICATE_DECLARATION",
      message: `account ${account.entry.account} is declared in two directories, ${first.entry.path} and ${account.entry.path}: an account name is unique across the repository (its state, lock and CI concurrency group are keyed by it); rename one`,
    });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return [...byName.values()].sort((a, b) => (a.entry.account < b.entry.account ? -1 : 1));
}

/** A path the CI passes as an argument: starting with `-` (a directory `-oplan.json`), it is an option. */
function argument(path: string): string {
  return path.startsWith("-") ? `./${path}` : path;
}

/** Relative to the working directory with `/` when inside it (`.` for itself), else absolute. */
function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  if (rel === "") return ".";
  if (rel.startsWith("..") || resolve(cwd, rel) !== path) return path.split(sep).join("/");
  return rel.split(sep).join("/");
}
