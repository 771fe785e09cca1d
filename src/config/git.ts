/** The config at a git revision (`--changed-since REF`), read with `git cat-file`, never a checkout. */
import { execFile } from "node:child_process";
import { realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { DesiredState } from "../model/desired.js";
import type { ConfigFileSystem } from "./files.js";
import { ConfigError, formatIssue } from "./issues.js";
import { DEFAULT_CONFIG_PATH, loadConfig } from "./load.js";

/** `--changed-since` cannot be honoured: not a repository, an unknown REF, a path absent at REF. */
export class GitRevisionError extends Error {
  override readonly name = "GitRevisionError";
  readonly code = "GIT_REVISION";
}

interface GitResult {
  ok: boolean;
  stdout: Buffer;
  stderr: string;
}

/** Where git runs, in the environment the CLI read (`CliIO.env`; ARCHITECTURE.md#birds-eye-view). */
export interface GitPlace {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

function git(place: GitPlace, args: readonly string[]): Promise<GitResult> {
  return new Promise((done, fail) => {
    execFile(
      "git",
      args,
      {
        cwd: place.cwd,
        encoding: "buffer",
        maxBuffer: 256 * 1024 * 1024,
        env: { ...place.env, GIT_TERMINAL_PROMPT: "0" },
      },
      (error, stdout, stderr) => {
        if (error && (error as NodeJS.ErrnoException).code === "ENOENT") {
          fail(new GitRevisionError("--changed-since needs git, which is not installed or not on PATH"));
          return;
        }
        done({ ok: !error, stdout, stderr: stderr.toString("utf8").trim() });
      },
    );
  });
}

/** A revision of the repository holding `cwd`. */
export interface GitRevision {
  /** As given. */
  ref: string;
  /** The full commit id it names. */
  commit: string;
  /** Git at the repository's top directory (links resolved), in the same environment. */
  top: GitPlace;
}

export async function resolveRevision(at: GitPlace, ref: string): Promise<GitRevision> {
  if (ref === "" || ref.startsWith("-")) {
    throw new GitRevisionError(`--changed-since "${ref}" is no git revision: name a branch, tag or commit`);
  }
  const top = await git(at, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) {
    throw new GitRevisionError(
      `--changed-since ${ref}: ${at.cwd} is not inside a git repository: run doohctl in the repository that holds the config`,
    );
  }
  const commit = await git(at, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
  if (!commit.ok) {
    throw new GitRevisionError(
      `--changed-since ${ref}: no such revision in this repository: check the name, or fetch it (a CI checkout needs the base branch fetched, e.g. fetch-depth: 0)`,
    );
  }
  return {
    ref,
    commit: commit.stdout.toString("utf8").trim(),
    top: { cwd: await realpath(top.stdout.toString("utf8").trim()), env: at.env },
  };
}

/** Files of `revision`, addressed by the absolute paths the working tree would have. */
function revisionFileSystem(
  revision: GitRevision,
  cwd: string,
): ConfigFileSystem & { inRepo(path: string): string } {
  const inRepo = (absolute: string): string => {
    const rel = relative(revision.top.cwd, resolve(cwd, absolute));
    if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
      throw new GitRevisionError(
        `--changed-since ${revision.ref}: ${absolute} is outside the git repository at ${revision.top.cwd}: name config paths inside it`,
      );
    }
    return rel.split(sep).join("/");
  };
  const spec = (absolute: string) => `${revision.commit}:${inRepo(absolute)}`;
  return {
    inRepo,
    readFile: async (path) => {
      const shown = await git(revision.top, ["cat-file", "blob", spec(path)]);
      if (!shown.ok) throw Object.assign(new Error(shown.stderr), { code: "ENOENT" });
      return new Uint8Array(shown.stdout);
    },
    listDirectory: async (path) => {
      const type = await git(revision.top, ["cat-file", "-t", spec(path)]);
      if (!type.ok || type.stdout.toString("utf8").trim() !== "tree") return undefined;
      const listed = await git(revision.top, ["ls-tree", "-z", spec(path)]);
      if (!listed.ok) throw new Error(listed.stderr);
      // `<mode> <type> <object>\t<name>`: only blobs are files (a subtree is no config file).
      return listed.stdout
        .toString("utf8")
        .split("\0")
        .filter((entry) => entry.split("\t")[0]?.split(" ")[1] === "blob")
        .map((entry) => entry.slice(entry.indexOf("\t") + 1));
    },
  };
}

/** The config paths as they were at `revision`; absent or not valid there, an error saying so. */
export async function loadConfigAtRevision(
  paths: readonly string[],
  options: { cwd: string; revision: GitRevision },
): Promise<DesiredState> {
  const { revision, cwd } = options;
  const fs = revisionFileSystem(revision, await realpath(cwd));
  const named = paths.length > 0 ? paths : [DEFAULT_CONFIG_PATH];
  for (const path of named) {
    const absolute = resolve(await realpath(cwd), path);
    const exists = await git(revision.top, ["cat-file", "-e", `${revision.commit}:${fs.inRepo(absolute)}`]);
    if (!exists.ok) {
      throw new GitRevisionError(
        `--changed-since ${revision.ref}: ${path} did not exist at ${revision.ref} (${revision.commit.slice(0, 12)}): plan without --changed-since, or name a revision that has it`,
      );
    }
  }
  try {
    return await loadConfig(named, {
      cwd: await realpath(cwd),
      readFile: fs.readFile,
      listDirectory: fs.listDirectory,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new GitRevisionError(
      `--changed-since ${revision.ref}: the config at ${revision.ref} is not valid, so what changed since cannot be told; plan without --changed-since, or name another revision:\n${error.issues.map((i) => `  ${formatIssue(i)}`).join("\n")}`,
    );
  }
}

/** The files (absolute) changed, added or removed since `revision`, untracked ones not ignored included. */
export async function changedFiles(revision: GitRevision): Promise<string[]> {
  const diff = await git(revision.top, ["diff", "--name-only", "-z", "--no-renames", revision.commit, "--"]);
  if (!diff.ok)
    throw new GitRevisionError(`--changed-since ${revision.ref}: git diff failed: ${diff.stderr}`);
  const untracked = await git(revision.top, ["ls-files", "--others", "--exclude-standard", "-z"]);
  if (!untracked.ok) {
    throw new GitRevisionError(`--changed-since ${revision.ref}: git ls-files failed: ${untracked.stderr}`);
  }
  return [diff, untracked]
    .flatMap((listed) => listed.stdout.toString("utf8").split("\0"))
    .filter((name) => name !== "")
    .map((name) => resolve(revision.top.cwd, ...name.split("/")));
}
