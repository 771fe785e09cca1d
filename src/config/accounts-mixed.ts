/**
 * One run covers one account (docs/safety.md, Credentials): files of two accounts, or an
 * account's file read without its connection, are refused before any request (ACCOUNTS_MIXED),
 * or one account would be planned and applied with another's credentials.
 */
import { readdir } from "node:fs/promises";
import { dirname } from "node:path";
import { AccountConnectionError, type ConnectionDeclaration, declaredAccount } from "./accounts.js";
import { YAML_NAME } from "./files.js";
import { ConfigError, type ConfigIssue } from "./issues.js";

/** A file the run read, and the account its own `connection` declares, if any. */
export interface ReadFile {
  display: string;
  absolute: string;
  account?: string | undefined;
  /** Its `connection` as the run parsed it; null: none (or one not valid, reported by the run). */
  connection: ConnectionDeclaration | null;
}

/**
 * The issues of a run whose files are not all of one account: a directory not read whole is
 * read for its `connection` only; one of two connections is refused as `doohctl accounts` does.
 */
export async function accountsMixed(files: readonly ReadFile[], cwd: string): Promise<ConfigIssue[]> {
  const byDir = new Map<string, ReadFile[]>();
  for (const file of files) {
    const dir = dirname(file.absolute);
    const list = byDir.get(dir);
    if (list) list.push(file);
    else byDir.set(dir, [file]);
  }
  const declared = files.find((f) => f.account !== undefined);
  const owners: { dir: string; account: string; file: string; first: ReadFile }[] = [];
  const unreadable: { error: AccountConnectionError; first: ReadFile }[] = [];
  const issues: ConfigIssue[] = [];
  for (const [dir, read] of byDir) {
    const known = new Map(read.map((f) => [f.absolute, f.connection]));
    const found = await declaredAccount(dir, cwd, undefined, known).catch((error: unknown) => {
      if (error instanceof ConfigError) return error;
      throw error;
    });
    const twice = found instanceof ConfigError ? found.issues.filter(isTwice) : [];
    if (twice.length > 0) {
      for (const issue of twice) issues.push(issue);
      continue;
    }
    const own = read.find((f) => f.account !== undefined);
    if (own) {
      owners.push({ dir, account: own.account!, file: own.display, first: read[0]! });
      continue;
    }
    if (await allRead(dir, read)) continue;
    // Not valid and naming no account: this run reports it, if it reads the file.
    if (found instanceof AccountConnectionError) unreadable.push({ error: found, first: read[0]! });
    else if (found && !(found instanceof ConfigError)) {
      owners.push({ dir, account: found.entry.account, file: found.file, first: read[0]! });
    }
  }
  // A connection not valid may name an account: whose credentials is unknown, so no fallback
  // to DOOHCTL_EMAIL and DOOHCTL_PASSWORD.
  for (const { error, first } of unreadable) {
    const where = [...new Set(error.issues.map((i) => i.file))].join(", ");
    const shown = shownDir(first.display);
    issues.push({
      file: first.display,
      line: 0,
      column: 0,
      path: "",
      code: "ACCOUNTS_MIXED",
      message: `its directory's connection (${where}) is not valid (${error.issues.map((i) => i.code).join(", ")}), so this run cannot tell which account, and whose credentials, ${shown} is: run doohctl validate ${shown} and fix it, or name the whole directory; nothing was sent`,
    });
  }
  const at = (file: ReadFile, message: string) =>
    issues.push({ file: file.display, line: 0, column: 0, path: "", code: "ACCOUNTS_MIXED", message });
  const base = owners.find((o) => o.account === declared?.account) ?? owners[0];
  if (base === undefined || issues.length > 0) return issues;
  if (declared === undefined) {
    at(
      base.first,
      `belongs to account ${base.account} (declared in ${base.file}), whose connection this run does not read: name the account's directory (${shownDir(base.file)}), so that its own credentials are used; nothing was sent`,
    );
    return issues;
  }
  for (const other of owners) {
    if (other.account === base.account) continue;
    at(
      other.first,
      `belongs to account ${other.account} (declared in ${other.file}), but this run is for account ${base.account} (${base.file}): one run covers one account; run doohctl once per account directory (doohctl accounts lists them); nothing was sent`,
    );
  }
  return issues;
}

const isTwice = (issue: ConfigIssue) => issue.code === "CONNECTION_DECLARED_TWICE";

/** Whether every YAML file directly in `dir` is among those read. */
async function allRead(dir: string, read: readonly ReadFile[]): Promise<boolean> {
  const names = await readdir(dir).catch(() => undefined);
  if (names === undefined) return true;
  const readNames = new Set(read.map((f) => f.absolute.slice(dir.length + 1)));
  return names.filter((n) => YAML_NAME.test(n)).every((n) => readNames.has(n));
}

function shownDir(file: string): string {
  const dir = dirname(file);
  return dir === "" ? "." : dir;
}
