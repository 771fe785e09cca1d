/**
 * Which files a run reads: each path names a file, or a directory whose `*.yaml` and `*.yml`
 * files directly inside are read in name order. A file named twice (`conf conf/a.yaml`,
 * `a.yaml ./a.yaml`, a link beside its target) is read once, under the first name: read
 * twice, each of its declarations would be "declared twice" at one and the same place.
 * The file system is injected, so tests and tools can load configs that are not on disk.
 */
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ConfigIssue } from "./issues.js";

export interface ConfigFileSystem {
  readFile(path: string): Promise<Uint8Array>;
  /** The names inside a directory, or undefined when `path` is not a directory. */
  listDirectory(path: string): Promise<string[] | undefined>;
  /** The path with links resolved, to know a file by two names; without it, the path itself. */
  realPath?(path: string): Promise<string>;
}

export const nodeFileSystem: ConfigFileSystem = {
  readFile: (path) => readFile(path),
  listDirectory: async (path) => {
    try {
      if (!(await stat(path)).isDirectory()) return undefined;
    } catch {
      return undefined; // reading it reports the real problem
    }
    // A subdirectory named like `old.yaml` is not a config file.
    return (await readdir(path, { withFileTypes: true })).filter((e) => !e.isDirectory()).map((e) => e.name);
  },
  realPath: (path) => realpath(path),
};

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
): Promise<{ files: ConfigFileRef[]; issues: ConfigIssue[]; order: string[] }> {
  const files: ConfigFileRef[] = [];
  const issues: ConfigIssue[] = [];
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
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    const names = await fs.listDirectory(absolute);
    if (names === undefined) {
      await add(absolute);
      continue;
    }
    const yaml = names.filter((name) => YAML_NAME.test(name)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (yaml.length === 0) {
      order.push(displayPath(absolute, cwd));
      issues.push({
        file: displayPath(absolute, cwd),
        line: 0,
        column: 0,
        path: "",
        message: "directory has no .yaml or .yml files: name a config file, or a directory that holds some",
        code: "NO_YAML_FILES",
      });
    }
    for (const name of yaml) await add(join(absolute, name));
  }
  return { files, issues, order };
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
    const code = (error as { code?: unknown }).code;
    const message =
      code === "ENOENT"
        ? "no such file: create it, or name your config files or directory (doohctl validate PATH...)"
        : `cannot read: ${(error as Error).message}`;
    return { issue: { file: file.display, line: 0, column: 0, path: "", message, code: "FILE_NOT_FOUND" } };
  }
}
