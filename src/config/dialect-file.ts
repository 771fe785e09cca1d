/**
 * The dialect file (docs/connecting.md, Dialect): `connection.dialect` may name, relative to
 * its file, a YAML file of `dialect:` and `x-` keys only, which CODEOWNERS can guard like the
 * policy; read through the same guards (file-guard.ts): never an absolute path, a link out of
 * the tree, or anything but a regular `.yaml` file. A dialect changes where requests go and
 * how answers are read, so a top-level `dialect:` anywhere else is refused.
 */
import { dirname, isAbsolute, resolve } from "node:path";
import type { SourceRef } from "../model/desired.js";
import type { Dialect } from "../model/dialect.js";
import { DIALECT_FILE_LIMIT, isInside, treeRelative } from "./file-guard.js";
import {
  type ConfigFileRef,
  type ConfigFileSystem,
  displayPath,
  identityOf,
  readConfigFile,
} from "./files.js";
import type { ConfigIssue, ConfigIssueCode } from "./issues.js";

/** `connection.dialect` written as a path, and the file that holds the connection. */
export interface NamedDialect {
  path: string;
  source: SourceRef;
  from: ConfigFileRef;
}

/** A top-level `dialect:` as one file writes it (normalize.ts). */
export interface DialectDocument {
  file: ConfigFileRef;
  dialect: Dialect | undefined;
  source: SourceRef;
  otherKeys: string[];
}

const YAML_FILE = /\.ya?ml$/i;

/** Where the named file is, or the issue that refuses it before a byte of it is read. */
export async function locateDialectFile(
  named: NamedDialect,
  fs: ConfigFileSystem,
  cwd: string,
  tree: string | undefined,
): Promise<{ file: ConfigFileRef; identity: string } | { issue: ConfigIssue }> {
  const refuse = (code: ConfigIssueCode, message: string) => ({
    issue: { ...named.source, message, code },
  });
  if (isAbsolute(named.path) || /^[A-Za-z]:|^\\/.test(named.path)) {
    return refuse(
      "DIALECT_INVALID",
      "names a dialect file by an absolute path: write its path relative to this file (like dialect.yaml), inside the repository",
    );
  }
  if (!YAML_FILE.test(named.path)) {
    return refuse(
      "DIALECT_INVALID",
      "must name a .yaml or .yml file, relative to this file (like dialect.yaml), or be a map of dialect keys",
    );
  }
  const absolute = resolve(dirname(named.from.absolute), named.path);
  const identity = await identityOf(absolute, fs);
  const display = displayPath(absolute, cwd);
  if (tree !== undefined && fs.realPath && !isInside(tree, identity)) {
    return refuse(
      "FILE_OUTSIDE_TREE",
      `names ${display}, which is outside ${tree}, the tree this run trusts (or a link out of it): nothing was read from it; keep the dialect file in the repository, beside the config`,
    );
  }
  const inTree = tree === undefined ? undefined : treeRelative(tree, identity);
  return { file: { display, absolute, ...(inTree !== undefined ? { inTree } : {}) }, identity };
}

/** The named file's bytes (a dialect is a few keys), or the issue at `connection.dialect` saying why not. */
export async function readDialectFile(
  named: NamedDialect,
  file: ConfigFileRef,
  fs: ConfigFileSystem,
): Promise<{ bytes: Uint8Array } | { issue: ConfigIssue }> {
  const read = await readConfigFile(file, fs, DIALECT_FILE_LIMIT);
  if ("bytes" in read) return read;
  const [code, message]: [ConfigIssueCode, string] = read.refused
    ? [read.code, `names ${file.display}, which ${read.message}`]
    : read.code === "FILE_NOT_FOUND"
      ? [
          "DIALECT_INVALID",
          `names ${file.display}, which does not exist: create it (its top level \`dialect:\`), or correct the path, relative to this file`,
        ]
      : ["FILE_UNREADABLE", `names ${file.display}, which cannot be read: let this user read it`];
  return { issue: { ...named.source, message, code } };
}

/** The dialect in effect, from the documents and the file the connection names; one misplaced is an issue. */
export function settleDialect(
  documents: readonly (DialectDocument & { identity: string })[],
  /** `parsed`: the named file was read and is YAML, so a missing `dialect:` is the problem. */
  named: (NamedDialect & { identity: string | undefined; display: string; parsed: boolean }) | undefined,
  issues: ConfigIssue[],
): Dialect | undefined {
  let dialect: Dialect | undefined;
  for (const document of documents) {
    if (named === undefined || document.identity !== named.identity) {
      issues.push({
        ...document.source,
        code: "DIALECT_NOT_NAMED",
        message:
          named === undefined
            ? "a top-level dialect is read only from the file connection.dialect names: name this file there (its path relative to the file holding the connection), or move these keys under connection.dialect"
            : `a top-level dialect is read only from the file connection.dialect names, and it names ${named.display}: name this file there instead, or remove this dialect`,
      });
      continue;
    }
    if (document.otherKeys.length > 0) {
      issues.push({
        ...document.source,
        code: "DIALECT_INVALID",
        message: `this is the dialect file connection.dialect names, and it holds ${document.otherKeys.join(", ")} too: a dialect file holds \`dialect:\` and \`x-\` keys only, so that CODEOWNERS can guard it alone; move the rest to a config file`,
      });
      continue;
    }
    dialect = document.dialect;
  }
  if (named?.parsed && !documents.some((d) => d.identity === named.identity)) {
    issues.push({
      ...named.source,
      code: "DIALECT_INVALID",
      message: `names ${named.display}, which has no top-level \`dialect:\`: write the dialect keys under \`dialect:\` there (and nothing else but \`x-\` keys)`,
    });
  }
  return dialect;
}
