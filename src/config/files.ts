/**
 * Which files a run reads: each path names a file, or a directory whose `*.yaml` and `*.yml`
 * files directly inside are read in name order. A file named twice (`conf conf/a.yaml`,
 * `a.yaml ./a.yaml`, a link beside its target) is read once, under the first name: read
 * twice, each of its declarations would be "declared twice" at one and the same place.
 * The file system is injected, so tests and tools can load configs that are not on disk.
 */
import type { Dirent } from "node:fs";
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ConfigIssue, ConfigIssueCode } from "./issues.js";

export interface ConfigFileSystem {
  readFile(path: string): Promise<Uint8Array>;
  /** The names inside a directory, or undefined when `path` is not a directory. */
  listDirectory(path: string): Promise<string[] | undefined>;
  /** The path with links resolved, to know a file by two names; without it, the path itself. */
  realPath?(path: string): Promise<string>;
  /** The subdirectories inside a directory, to say which hold YAML that is not read. */
  listSubdirectories?(path: string): Promise<string[]>;
}

export const nodeFileSystem: ConfigFileSystem = {
  readFile: (path) => readFile(path),
  listDirectory: async (path) => {
    try {
      if (!(await stat(path)).isDirectory()) return undefined;
    } catch {
      return undefined; // reading it reports the real problem
    }
    // Throws when the directory cannot be listed: resolveConfigFiles reports it.
    const entries = await readdir(path, { withFileTypes: true });
    const names: string[] = [];
    for (const entry of entries) {
      if (await isConfigFile(join(path, entry.name), entry)) names.push(entry.name);
    }
    return names;
  },
  realPath: (path) => realpath(path),
  listSubdirectories: async (path) => {
    const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name);
  },
};

/**
 * Files, and links to files, inside a config directory: not a subdirectory named like
 * `old.yaml` (or a link to one), and not a pipe or socket, whose read would wait forever. A
 * broken link is kept, so that reading it says what is wrong. A path named on the command
 * line is read whatever it is (`doohctl validate <(generate)` reads a pipe).
 */
async function isConfigFile(path: string, entry: Dirent): Promise<boolean> {
  if (entry.isFile()) return true;
  if (!entry.isSymbolicLink()) return false;
  const target = await stat(path).catch(() => undefined);
  return target === undefined || target.isFile();
}

export interface ConfigFileRef {
  /** As shown in messages: relative to the working directory when inside it. */
  display: string;
  absolute: string;
}

/**
 * `*.yaml` and `*.yml`, but not hidden files: editors and systems leave `.#a.yaml` lock links,
 * `._a.yaml` resource forks and `.a.yaml.swp`-style copies beside a config (Terraform skips
 * them the same way).
 */
const YAML_NAME = /^[^.].*\.ya?ml$/i;

export async function resolveConfigFiles(
  paths: readonly string[],
  cwd: string,
  fs: ConfigFileSystem,
): Promise<{ files: ConfigFileRef[]; issues: ConfigIssue[]; warnings: ConfigIssue[]; order: string[] }> {
  const files: ConfigFileRef[] = [];
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const read = new Set<string>();
  // Files, and directories with no YAML, in the order the paths name them: file order for messages.
  const order: string[] = [];
  const add = async (absolute: string) => {
    // A path that cannot be resolved is kept as it is: reading it reports the real problem.
    const identity = fs.realPath ? await fs.realPath(absolute).catch(() => absolute) : absolute;
    if (read.has(identity)) return;
    read.add(identity);
    files.push({ display: displayPath(absolute, cwd), absolute });
    order.push(displayPath(absolute, cwd));
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
          `not read: subdirector${skipped.subdirectories.length === 1 ? "y" : "ies"} ${skipped.subdirectories.map((d) => `${d}/`).join(", ")} hold${skipped.subdirectories.length === 1 ? "s" : ""} YAML files, and only files directly inside a directory are read: name ${skipped.subdirectories.length === 1 ? "it" : "them"} too (${skipped.subdirectories.map((d) => `${display}/${d}`).join(" ")})`,
        );
      }
      if (skipped.json.length > 0) {
        warn(
          "JSON_NOT_READ",
          `not read: ${skipped.json.join(", ")}: only .yaml and .yml files are config; rename a JSON config to .yaml (JSON is YAML) to include it, and keep saved plans outside the config directory`,
        );
      }
    }
    for (const name of yaml) await add(join(absolute, name));
  }
  return { files, issues, warnings, order };
}

/**
 * What a directory holds that is not read, so that nothing is skipped in silence: `*.json`
 * files, and subdirectories (not hidden) with YAML files directly inside. Not recursive: a
 * config is the files directly inside the directories named (design.md, Configuration).
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

function displayPath(absolute: string, cwd: string): string {
  const rel = relative(cwd, absolute);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel)
    ? rel.split(sep).join("/")
    : absolute;
}

/** The file's bytes, or an issue that says what to do when it cannot be read. */
export async function readConfigFile(
  file: ConfigFileRef,
  fs: ConfigFileSystem,
): Promise<{ bytes: Uint8Array } | { issue: ConfigIssue }> {
  try {
    return { bytes: await fs.readFile(file.absolute) };
  } catch (error) {
    const [code, message] = cannotRead(error, "file");
    return { issue: { file: file.display, line: 0, column: 0, path: "", message, code } };
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
      return ["FILE_UNREADABLE", `cannot read this ${what}: ${(error as Error).message}`];
  }
}
