/**
 * `loadConfig`: files -> DesiredState in stages (read, YAML, password check, JSON Schema,
 * normalize, offline rules); a ConfigError carries every issue of every stage, in file order.
 */

import { createHash } from "node:crypto";
import { dirname } from "node:path";
import type { Document } from "yaml";
import { append } from "../model/append.js";
import type { ConfigFileDigest, DesiredState, SourceRef } from "../model/desired.js";
import { accountsMixed, type ReadFile } from "./accounts-mixed.js";
import { isDialectDocument } from "./dialect.js";
import {
  type DialectDocument,
  locateDialectFile,
  type NamedDialect,
  readDialectFile,
  settleDialect,
} from "./dialect-file.js";
import { CONFIG_TOTAL_LIMIT, describeBytes, findTree } from "./file-guard.js";
import {
  type ConfigFileRef,
  type ConfigFileSystem,
  identityOf,
  nodeFileSystem,
  readConfigFile,
  resolveConfigFiles,
} from "./files.js";
import { idsNotWrittenAsRead } from "./id-numbers.js";
import { ConfigError, type ConfigIssue, sortIssues } from "./issues.js";
import { type NormalizedFile, normalizeFile } from "./normalize.js";
import { pathText } from "./path-text.js";
import { isMap } from "./raw-values.js";
import { checkRules } from "./rules.js";
import { checkSchema, pruneInvalid } from "./schema-check.js";
import type { SourceIndex } from "./source-index.js";
import { parseYaml } from "./yaml/read.js";
import { decodeUtf8 } from "./yaml/utf8.js";

export const DEFAULT_CONFIG_PATH = "doohctl.yaml";

export interface LoadConfigOptions {
  /** Relative paths are resolved against it, and messages name files relative to it. */
  cwd: string;
  /** The file system (files.ts); node:fs by default. */
  readFile?: ConfigFileSystem["readFile"];
  listDirectory?: ConfigFileSystem["listDirectory"];
  realPath?: ConfigFileSystem["realPath"];
  /** Told of what a named directory holds that is not read (subdirectories with YAML, `*.json`). */
  onWarning?: (warning: ConfigIssue) => void;
  /** The tree a file found in a directory must resolve inside (findTree from `cwd` on node:fs). */
  tree?: string;
  /** Named paths too must resolve inside the tree: a saved plan's config files. */
  confine?: boolean;
  /**
   * Called with every file's digest before any is parsed (`apply --plan` throws here on one
   * that differs), again before a named dialect file outside them is parsed, and last with
   * `complete` once the config is valid.
   */
  beforeParse?: (files: readonly ConfigFileDigest[], complete: boolean) => void;
  /** Told of each file's text and parsed document: `doohctl pull` edits through these. */
  onDocument?: (file: string, text: string, document: Document) => void;
  /** The most the files read may add up to: CONFIG_TOTAL_LIMIT, but the scale bench measures past it. */
  maxTotalBytes?: number;
}

/** Loads and validates the config; throws ConfigError listing every problem found. */
export async function loadConfig(
  paths: readonly string[],
  options: LoadConfigOptions,
): Promise<DesiredState> {
  // An injected file system that does not resolve links knows a file by its absolute path.
  const injected = options.readFile !== undefined || options.listDirectory !== undefined;
  const realPath = options.realPath ?? (injected ? undefined : nodeFileSystem.realPath);
  const listSubdirectories = injected ? undefined : nodeFileSystem.listSubdirectories;
  const fs: ConfigFileSystem = {
    readFile: options.readFile ?? nodeFileSystem.readFile,
    listDirectory: options.listDirectory ?? nodeFileSystem.listDirectory,
    ...(realPath ? { realPath } : {}),
    ...(listSubdirectories ? { listSubdirectories } : {}),
  };
  const tree = options.tree ?? (injected ? undefined : await findTree(options.cwd));
  const resolved = await resolveConfigFiles(
    paths.length > 0 ? paths : [DEFAULT_CONFIG_PATH],
    options.cwd,
    fs,
    tree,
    options.confine ?? false,
  );
  for (const warning of resolved.warnings) options.onWarning?.(warning);
  // Never `push(...array)`: a file of 200,000 creatives or errors overflows the stack.
  const issues: ConfigIssue[] = resolved.issues.slice();
  const state: DesiredState = { connection: {}, insertionOrders: [], creatives: [], files: [] };
  const connections: SourceRef[] = [];
  const policies: SourceRef[] = [];

  // Every file is read before any is parsed, so that a saved plan's digests are checked first.
  const contents: { file: ConfigFileRef; bytes: Uint8Array }[] = [];
  // Which account each file's own connection declares: one run covers one account.
  const read: ReadFile[] = [];
  let total = 0;
  for (const file of resolved.files) {
    const read = await readConfigFile(file, fs);
    if (!("bytes" in read)) {
      issues.push({
        file: file.display,
        line: 0,
        column: 0,
        path: "",
        message: read.message,
        code: read.code,
      });
      continue;
    }
    total += read.bytes.length;
    // Refused before any file is parsed: parsing is what takes the memory.
    const limit = options.maxTotalBytes ?? CONFIG_TOTAL_LIMIT.bytes;
    if (total > limit) {
      const { of, advice } = CONFIG_TOTAL_LIMIT;
      const message = `with this file the config files read add up to ${total} bytes, over the ${describeBytes(limit)} doohctl reads from ${of}: ${advice}`;
      issues.push({ file: file.display, line: 0, column: 0, path: "", code: "FILE_TOO_LARGE", message });
      throw new ConfigError(sortIssues(issues, resolved.order));
    }
    // A saved plan names a file relative to the tree (docs/plan.md), else as shown.
    state.files.push(digest(file.inTree ?? file.display, read.bytes));
    contents.push({ file, bytes: read.bytes });
  }
  if (issues.length > 0 && options.beforeParse !== undefined) {
    throw new ConfigError(sortIssues(issues, resolved.order));
  }
  options.beforeParse?.(state.files, false);
  // Kept for the error only: a terminal shows each issue's line (snippet.ts).
  const sources = new Map<string, string>();
  const order = resolved.order.slice();
  // Every top-level `dialect:` read, honoured only in the file the connection names.
  const dialects: (DialectDocument & { identity: string })[] = [];
  // The files whose YAML was read, so a named file without `dialect:` is told apart from a broken one.
  const usable = new Set<string>();
  let named: NamedDialect | undefined;

  /** Stages 1 to 3 of one file; `dialectOnly` for a dialect file outside the files read. */
  const parse = async (
    file: ConfigFileRef,
    bytes: Uint8Array,
    dialectOnly = false,
  ): Promise<NormalizedFile | undefined> => {
    const decoded = decodeUtf8(bytes, file.display);
    if ("issue" in decoded) {
      issues.push(decoded.issue);
      return undefined;
    }
    sources.set(file.display, decoded.text);
    const parsed = parseYaml(decoded.text, file.display);
    append(issues, parsed.issues);
    if (!parsed.usable) return undefined;
    if (parsed.document) options.onDocument?.(file.display, decoded.text, parsed.document);
    usable.add(file.absolute);
    append(issues, findPasswords(parsed.value, parsed.index));
    if (dialectOnly && !(isMap(parsed.value) && Object.hasOwn(parsed.value, "dialect"))) return undefined;
    // A dialect file is its own kind of document (dialect-file.ts): `dialect:`, no `version`.
    const as = dialectOnly || isDialectDocument(parsed.value) ? "dialect_file" : "document";
    const schema = checkSchema(parsed.value, parsed.index, as);
    append(issues, schema.issues);
    append(issues, idsNotWrittenAsRead(parsed.value, parsed.index));
    // Values that broke the schema are reported; the rest goes on to be checked in this run.
    if (!pruneInvalid(parsed.value, schema.invalid)) return undefined;
    const { result, issues: normalizeIssues } = normalizeFile(
      parsed.value as Record<string, unknown>,
      parsed.index,
    );
    append(issues, normalizeIssues);
    if (result.dialect)
      dialects.push({ file, ...result.dialect, identity: await identityOf(file.absolute, fs) });
    return result;
  };

  for (const { file, bytes } of contents) {
    const result = await parse(file, bytes);
    if (result === undefined) continue;
    const account = result.connection?.settings.account?.name;
    const declaration = result.connection
      ? { file: file.display, settings: result.connection.settings }
      : null;
    // On disk, a second connection of an account's directory is refused by the check `doohctl
    // accounts` makes (accountsMixed, below), and a second account's is ACCOUNTS_MIXED.
    const dir = dirname(file.absolute);
    const sameDirectory =
      !injected &&
      read.some(
        (f) =>
          f.connection && dirname(f.absolute) === dir && (f.account !== undefined || account !== undefined),
      );
    read.push({ display: file.display, absolute: file.absolute, account, connection: declaration });
    const first = read.find((f) => f.account !== undefined)?.account;
    if (result.connection && !sameDirectory && (account === undefined || first === account)) {
      connections.push(result.connection.source);
      if (connections.length === 1) {
        state.connection = result.connection.settings;
        const dialectFile = result.connection.dialectFile;
        if (dialectFile) named = { ...dialectFile, from: file };
      }
    }
    if (result.policy) {
      policies.push(result.policy.source);
      if (policies.length === 1) state.policy = result.policy.rules;
    }
    append(state.insertionOrders, result.insertionOrders);
    append(state.creatives, result.creatives);
  }
  const dialect = await namedDialect(named, {
    fs,
    options,
    tree,
    state,
    issues,
    order,
    contents,
    usable,
    parse,
  });
  const settled = settleDialect(dialects, dialect, issues);
  if (settled !== undefined) state.connection.dialect = settled;
  append(issues, checkRules(state, connections, policies));
  // On disk only: an injected file system (a git revision) is the run's own files again.
  if (!injected) append(issues, await accountsMixed(read, options.cwd));
  // Every file is read now, the named dialect file too: none of the saved plan's may be missing.
  if (issues.length === 0) options.beforeParse?.(state.files, true);
  if (issues.length > 0) {
    throw new ConfigError(sortIssues(dedupe(issues), order), [], sources);
  }
  return state;
}

/** What reading the named dialect file needs of the load that names it. */
interface DialectRead {
  fs: ConfigFileSystem;
  options: LoadConfigOptions;
  tree: string | undefined;
  state: DesiredState;
  issues: ConfigIssue[];
  /** File order for messages: the dialect file, read last, comes last. */
  order: string[];
  contents: readonly { file: ConfigFileRef }[];
  usable: ReadonlySet<string>;
  parse: (file: ConfigFileRef, bytes: Uint8Array, dialectOnly: boolean) => Promise<unknown>;
}

/** The dialect file the connection names: one of the files, or read now, its digest checked first. */
async function namedDialect(
  named: NamedDialect | undefined,
  run: DialectRead,
): Promise<Parameters<typeof settleDialect>[1]> {
  if (named === undefined) return undefined;
  const located = await locateDialectFile(named, run.fs, run.options.cwd, run.tree);
  if ("issue" in located) {
    run.issues.push(located.issue);
    return { ...named, identity: undefined, display: named.path, parsed: false };
  }
  const { file, identity } = located;
  const at = { ...named, identity, display: file.display };
  for (const { file: read } of run.contents) {
    if ((await identityOf(read.absolute, run.fs)) === identity) {
      return { ...at, parsed: run.usable.has(read.absolute) };
    }
  }
  const bytes = await readDialectFile(named, file, run.fs);
  if ("issue" in bytes) {
    run.issues.push(bytes.issue);
    return { ...at, parsed: false };
  }
  run.state.files.push(digest(file.inTree ?? file.display, bytes.bytes));
  // A saved plan's digest of it is checked before a byte of it is parsed, like the others'.
  run.options.beforeParse?.(run.state.files, false);
  run.order.push(file.display);
  await run.parse(file, bytes.bytes, true);
  return { ...at, parsed: run.usable.has(file.absolute) };
}

function digest(path: string, bytes: Uint8Array): ConfigFileDigest {
  return { path, sha256: createHash("sha256").update(bytes).digest("hex") };
}

const PASSWORD = "password";

/**
 * Credentials come only from the environment (ARCHITECTURE.md#configuration): a `password` key
 * anywhere, even inside the opaque `pacing`, is an error. The value is never echoed.
 */
function findPasswords(value: unknown, index: SourceIndex): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const seen = new Set<object>();
  // One path, pushed and popped as the walk goes: it runs over every value of every file.
  const path: (string | number)[] = [];
  const walk = (node: unknown) => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        path.push(i);
        walk(node[i]);
        path.pop();
      }
      return;
    }
    for (const key of Object.keys(node)) {
      path.push(key);
      if (key.length === PASSWORD.length && key.toLowerCase() === PASSWORD) {
        issues.push({
          file: index.file,
          ...index.ofKey(node, key),
          path: pathText(path),
          message:
            "a password never goes in a config file: remove it and set DOOHCTL_EMAIL and DOOHCTL_PASSWORD",
          code: "PASSWORD_IN_CONFIG",
        });
      } else {
        walk((node as Record<string, unknown>)[key]);
      }
      path.pop();
    }
  };
  walk(value);
  return issues;
}

/** One report per place: a block reused through an alias is wrong once, where it is written. */
function dedupe(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.file}\0${issue.line}\0${issue.column}\0${issue.code}\0${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
