/**
 * Which files a run reads: each path a file, or a directory whose `*.yaml` files directly
 * inside are read in name order. A file named twice (a link beside its target too) is read
 * once, or its declarations would be "declared twice" at one place. Entries must resolve
 * inside the tree or the directory, and every file is regular and under the cap (file-guard.ts;
 * docs/safety.md, Files and the tree). The file system is injected (tests, git revisions).
 */
import { readdir, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { plural } from "../model/plural.js";
import {
  type ByteLimit,
  CONFIG_FILE_LIMIT,
  FileRefused,
  isInside,
  readRegularFileSync,
  tooLarge,
  treeRelative,
} from "./file-guard.js";
import type { ConfigIssue, ConfigIssueCode } from "./issues.js";

export interface ConfigFileSystem {
  /** At most `limit.bytes` (file-guard.ts); one that holds more is checked again when read. */
  readFile(path: string, limit: ByteLimit): Promise<Uint8Array>;
  /** The names inside a directory, or undefined when `path` is not a directory. */
  listDirectory(path: string): Promise<string[] | undefined>;
  /** The path with links resolved, to know a file by two names; without it, the path itself. */
  realPath?(path: string): Promise<string>;
  /** The subdirectories inside a directory, to say which hold YAML that is not read. */
  listSubdirectories?(path: string): Promise<string[]>;
}

export const nodeFileSystem: ConfigFileSystem = {
  // Regular files only, under the limit, refused before reading when larger (file-guard.ts).
  readFile: async (path, limit) => readRegularFileSync(path, limit),
  listDirectory: async (path) => {
    try {
      if (!(await stat(path)).isDirectory()) return undefined;
    } catch {
      return undefined; // reading it reports the real problem
    }
    // Every entry, whatever it is: a `*.yaml` pipe, device or link out of the tree is refused by
    // name when read, never skipped in silence. A throw is reported by resolveConfigFiles.
    return readdir(path);
  },
  realPath: (path) => realpath(path),
  listSubdirectories: async (path) => {
    const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name);
  },
};

export interface ConfigFileRef {
  /** As shown in messages: relative to the working directory when inside it. */
  display: string;
  absolute: string;
  /** Relative to the tree (with `/`), when the file lies inside it: how a saved plan names it. */
  inTree?: string;
}

/**
 * `*.yaml` and `*.yml`, but not hidden files: editors and systems leave `.#a.yaml` lock links,
 * `._a.yaml` resource forks and `.a.yaml.swp`-style copies beside a config (Terraform skips
 * them the same way).
 */
export const YAML_NAME = /^[^.].*\.ya?ml$/i;

/** A file by its links resolved, as resolveConfigFiles knows it; the path itself without them. */
export function identityOf(absolute: string, fs: ConfigFileSystem): Promise<string> {
  return fs.realPath ? fs.realPath(absolute).catch(() => absolute) : Promise.resolve(absolute);
}

/** With `tree` (findTree, file-guard.ts), a file found in a directory resolves inside it or the directory. */
export async function resolveConfigFiles(
  paths: readonly string[],
  cwd: string,
  fs: ConfigFileSystem,
  tree?: string,
  /** Every path, named ones too, must resolve inside the tree (a saved plan's config files). */
  confine = false,
): Promise<{ files: ConfigFileRef[]; issues: ConfigIssue[]; warnings: ConfigIssue[]; order: string[] }> {
  const files: ConfigFileRef[] = [];
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const read = new Set<string>();
  // Files, and directories with no YAML, in the order the paths name them: file order for messages.
  const order: string[] = [];
  const add = async (absolute: string, directory?: string) => {
    // A path that cannot be resolved is kept as it is: reading it reports the real problem.
    const identity = await identityOf(absolute, fs);
    if (read.has(identity)) return;
    read.add(identity);
    const display = displayPath(absolute, cwd);
    // An entry of a directory is trusted as far as the tree (or that directory) reaches: a
    // link to /proc/self/environ or ~/.netrc beside the config is refused, never read.
    if ((directory !== undefined || confine) && tree !== undefined && fs.realPath) {
      const within = directory === undefined ? tree : await fs.realPath(directory).catch(() => directory);
      if (!isInside(tree, identity) && !isInside(within, identity)) {
        refuse(
          display,
          "FILE_OUTSIDE_TREE",
          `is a link to a file outside ${tree}, the tree this run trusts: nothing was read from it; copy the file into the tree, or name it on the command line`,
        );
        return;
      }
    }
    const inTree = tree === undefined ? undefined : treeRelative(tree, identity);
    files.push({ display, absolute, ...(inTree !== undefined ? { inTree } : {}) });
    order.push(display);
  };
  const refuse = (file: string, code: ConfigIssueCode, message: string) => {
    order.push(file);
    issues.push({ file, line: 0, column: 0, path: "", message, code });
  };
  for (const path of paths) {
    // resolve() would make "" the working directory, and validate whatever lies there.
    if (path === "") {
      refuse('""', "FILE_NOT_FOUND", "an empty path names no file: name a config file or directory");
      continue;
    }
    const absolute = resolve(cwd, path);
    let names: string[] | undefined;
    try {
      names = await fs.listDirectory(absolute);
    } catch (error) {
      refuse(displayPath(absolute, cwd), ...cannotRead(error, "directory"));
      continue;
    }
    if (names === undefined) {
      await add(absolute);
      continue;
    }
    const yaml = names.filter((name) => YAML_NAME.test(name)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const skipped = await skippedFiles(absolute, names, fs);
    const display = displayPath(absolute, cwd);
    if (yaml.length === 0) {
      refuse(
        display,
        "NO_YAML_FILES",
        `directory has no .yaml or .yml files: name a config file, or a directory that holds some${skipped.text}`,
      );
    } else {
      const warn = (code: ConfigIssueCode, message: string) =>
        warnings.push({ file: display, line: 0, column: 0, path: "", message, code });
      if (skipped.subdirectories.length > 0) {
        warn(
          "YAML_IN_SUBDIRECTORY",
          `not read: ${plural(skipped.subdirectories.length, "subdirectory", "subdirectories")} ${skipped.subdirectories.map((d) => `${d}/`).join(", ")} hold${skipped.subdirectories.length === 1 ? "s" : ""} YAML files, and only files directly inside a directory are read: name ${skipped.subdirectories.length === 1 ? "it" : "them"} too (${skipped.subdirectories.map((d) => `${display}/${d}`).join(" ")})`,
        );
      }
      if (skipped.json.length > 0) {
        warn(
          "JSON_NOT_READ",
          `not read: ${skipped.json.join(", ")}: only .yaml and .yml files are config; rename a JSON config to .yaml (JSON is YAML) to include it, and keep saved plans outside the config directory`,
        );
      }
    }
    for (const name of yaml) await add(join(absolute, name), absolute);
  }
  return { files, issues, warnings, order };
}

/**
 * What a directory holds that is not read, so nothing is skipped in silence: `*.json` files and
 * subdirectories with YAML (ARCHITECTURE.md#configuration: a config is the files directly inside).
 */
async function skippedFiles(
  directory: string,
  names: readonly string[],
  fs: ConfigFileSystem,
): Promise<{ subdirectories: string[]; json: string[]; text: string }> {
  const json = names.filter((name) => /^[^.].*\.json$/i.test(name)).sort();
  const subdirectories: string[] = [];
  for (const name of ((await fs.listSubdirectories?.(directory)) ?? []).sort()) {
    const inside = await fs.listDirectory(join(directory, name)).catch(() => undefined);
    if (inside?.some((n) => YAML_NAME.test(n))) subdirectories.push(name);
  }
  const parts = [
    subdirectories.length > 0
      ? `; YAML files are in ${subdirectories.map((d) => `${d}/`).join(", ")}: name those`
      : "",
    json.length > 0
      ? `; ${json.join(", ")} ${json.length === 1 ? "is" : "are"} not read: rename a JSON config to .yaml (JSON is YAML)`
      : "",
  ];
  return { subdirectories, json, text: parts.join("") };
}

/** As messages name a file: relative to the working directory when inside it, with `/`. */
export function displayPath(absolute: string, cwd: string): string {
  const rel = relative(cwd, absolute);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel)
    ? rel.split(sep).join("/")
    : absolute;
}

/**
 * A config or dialect file's bytes, at most `limit` (an injected file system's too); else why
 * not, `refused` by the guards (file-guard.ts) or the system's error.
 */
export async function readConfigFile(
  file: ConfigFileRef,
  fs: ConfigFileSystem,
  limit: ByteLimit = CONFIG_FILE_LIMIT,
): Promise<{ bytes: Uint8Array } | { code: ConfigIssueCode; message: string; refused: boolean }> {
  try {
    const bytes = await fs.readFile(file.absolute, limit);
    if (bytes.length > limit.bytes) throw tooLarge(limit, bytes.length);
    return { bytes };
  } catch (error) {
    if (error instanceof FileRefused) return { code: error.code, message: error.message, refused: true };
    const [code, message] = cannotRead(error, "file");
    return { code, message, refused: false };
  }
}

/** Why a file or directory could not be read, and what to do, from the system's error. */
function cannotRead(error: unknown, what: "file" | "directory"): [ConfigIssueCode, string] {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case "ENOENT":
      return [
        "FILE_NOT_FOUND",
        "no such file: create it, or name your config files or directory (doohctl validate PATH...)",
      ];
    case "EACCES":
    case "EPERM":
      return [
        "FILE_UNREADABLE",
        what === "file"
          ? "permission denied: let this user read the file (chmod u+r), or leave it out"
          : "permission denied: let this user list the directory (chmod u+rx), or name its files",
      ];
    case "EISDIR":
      return ["FILE_UNREADABLE", "is a directory: name the directory itself, or a file in it"];
    default:
      // The system's code, not its message: a message may quote more than the path.
      return ["FILE_UNREADABLE", `cannot read this ${what} (${typeof code === "string" ? code : "error"})`];
  }
}
