import { readdir, realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type FoundAccount, findAccounts } from "../../config/accounts.js";
import { YAML_NAME } from "../../config/files.js";
import { changedFiles, type GitPlace, resolveRevision } from "../../config/git.js";
import { accountsGithubMatrix, accountsGitlab, accountsJson, accountsText } from "../accounts-output.js";
import type { CommandModule } from "../command.js";
import { CommandError, reportError } from "../errors.js";
import { Flag, formatOf } from "../flags.js";
import { EXIT } from "../io.js";

const FORMATS = ["text", "json", "github-matrix", "gitlab"] as const;

/** The most jobs one matrix may hold: GitHub Actions' strategy.matrix, GitLab's parallel: matrix. */
const MATRIX_CEILING: Partial<Record<(typeof FORMATS)[number], { ci: string; jobs: number }>> = {
  "github-matrix": { ci: "GitHub Actions", jobs: 256 },
  gitlab: { ci: "GitLab", jobs: 200 },
};

/** A matrix the CI would reject is refused here, saying how to split it. */
function checkMatrixCeiling(format: (typeof FORMATS)[number], count: number): void {
  const ceiling = MATRIX_CEILING[format];
  if (ceiling === undefined || count <= ceiling.jobs) return;
  throw new CommandError(
    "ACCOUNTS_MATRIX_TOO_LARGE",
    `${count} accounts, but ${ceiling.ci} runs at most ${ceiling.jobs} jobs of one matrix: split them into several matrix jobs by PATHS (like doohctl accounts clients/a-m, then clients/n-z), or use --changed-since REF to list only the changed ones`,
  );
}

/**
 * `doohctl accounts`: offline, no credential. The account directories under PATHS (docs/safety.md),
 * or those with a YAML file changed since REF, as each CI wants its matrix.
 */
export const registerAccounts: CommandModule = (program, io, setExit) => {
  program
    .command("accounts")
    .argument("[paths...]", "directories to look for account directories under (default: .)")
    .option(
      "--changed-since <ref>",
      "only the accounts with a config file changed, added or removed between git revision REF and the working tree",
    )
    .addOption(Flag.format("output format", FORMATS, { checkedBy: "command" }))
    .action(async (paths: string[], options: { changedSince?: string; format: string }) => {
      const format = formatOf(options.format, FORMATS);
      try {
        if (format instanceof Error) throw format;
        let accounts = await findAccounts(paths, io.cwd);
        if (options.changedSince !== undefined) {
          accounts = await changedAccounts(accounts, io, options.changedSince);
        }
        const entries = accounts.map((a) => a.entry);
        checkMatrixCeiling(format, entries.length);
        const render = {
          text: () =>
            accountsText(
              entries,
              options.changedSince === undefined
                ? "no account: no directory declares connection.account"
                : `no account changed since ${options.changedSince}`,
            ),
          json: () => accountsJson(entries),
          "github-matrix": () => accountsGithubMatrix(entries),
          gitlab: () => accountsGitlab(entries),
        }[format];
        io.stdout.write(render());
        setExit(EXIT.ok);
      } catch (error) {
        reportError(io, "accounts", error, format instanceof Error ? undefined : format);
        setExit(EXIT.error);
      }
    });
};

/** The accounts whose YAML entries (or what they link to, a shared policy) changed since `ref`. */
async function changedAccounts(
  accounts: readonly FoundAccount[],
  place: GitPlace,
  ref: string,
): Promise<FoundAccount[]> {
  const revision = await resolveRevision(place, ref);
  const files = new Set(await changedFiles(revision));
  const dirs = new Set([...files].filter((f) => YAML_NAME.test(basename(f))).map((f) => dirname(f)));
  const out: FoundAccount[] = [];
  for (const account of accounts) {
    if (dirs.has(await realpath(account.dir)) || (await linksToChanged(account.dir, files)))
      out.push(account);
  }
  return out;
}

/** Whether a YAML entry of `dir` resolves, through links, to one of `files`. */
async function linksToChanged(dir: string, files: ReadonlySet<string>): Promise<boolean> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => YAML_NAME.test(n));
  for (const name of names) {
    const real = await realpath(join(dir, name)).catch(() => undefined);
    if (real !== undefined && files.has(real)) return true;
  }
  return false;
}
