import { resolve } from "node:path";
import { InvalidArgumentError, Option } from "commander";
import { Replacement, writeFileAtomicSync } from "../../api/atomic-write.js";
import { grouped } from "../../model/plural.js";
import { printable } from "../../model/printable.js";
import { deactivatingChangeIds } from "../../plan/changes/changes.js";
import { serializePlan } from "../../plan/saved/file.js";
import type { Plan } from "../../plan/types.js";
import { renderMarkdown } from "../../render/markdown.js";
import { accountSummary, COMMENT_MAX_CHARS, renderAccountsMarkdown } from "../../render/markdown-accounts.js";
import { renderText } from "../../render/text.js";
import type { CommandModule } from "../command.js";
import { reportError, UsageError } from "../errors.js";
import { Flag } from "../flags.js";
import { type CliIO, EXIT, useColour } from "../io.js";
import { outputFileOptions } from "../output-dir.js";
import { checkOverflowFile } from "../overflow-file.js";
import { type AccountPlan, readAccountPlans } from "../plan-accounts.js";
import { readPlanFile } from "../plan-file.js";

interface ShowFlags {
  format: "text" | "json" | "markdown";
  maxChars?: number;
  overflow?: string;
  force?: boolean;
}

/** The smallest `--max-chars`: room for a summary row or two and the note on what is left out. */
const MIN_CHARS = 1_000;

function maxChars(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < MIN_CHARS) {
    throw new InvalidArgumentError(
      `write a whole number of characters, at least ${grouped(MIN_CHARS)} (GitHub's comment limit is 65536, GitLab's 1000000)`,
    );
  }
  return n;
}

/**
 * `doohctl show PLAN_FILE...`: saved plans rendered offline, so a pull-request comment shows
 * exactly what apply --plan will be given; several (one per account) as one comment (docs/plan.md).
 */
export const registerShow: CommandModule = (program, io, setExit) => {
  program
    .command("show")
    .argument("<plan-files...>", "plan files written by doohctl plan -o FILE; several: one per account")
    .addOption(Flag.format("output on stdout", ["text", "json", "markdown"]))
    .addOption(
      new Option(
        "--max-chars <n>",
        `markdown: the comment's limit in characters (several plans: default ${COMMENT_MAX_CHARS}, GitHub's; one plan: 60000 as before)`,
      ).argParser(maxChars),
    )
    .option(
      "--overflow <file>",
      "markdown: also write the complete comment, every plan in full, to FILE (never overwrites without --force)",
    )
    .option("--force", "let --overflow overwrite an existing file")
    .action((files: string[], flags: ShowFlags) => {
      try {
        if (flags.format !== "markdown" && (flags.maxChars !== undefined || flags.overflow !== undefined)) {
          throw new UsageError(
            `--max-chars and --overflow shape a pull-request comment: use them with --format markdown, not --format ${flags.format}`,
          );
        }
        if (flags.overflow !== undefined) {
          checkOverflowFile(io.cwd, flags.overflow, files, { force: flags.force === true });
        }
        if (files.length === 1) showOne(io, files[0] ?? "", flags);
        else showMany(io, readAccountPlans(files, io.cwd), flags);
        setExit(EXIT.ok);
      } catch (error) {
        reportError(io, "show", error, flags.format);
        setExit(EXIT.error);
      }
    });
};

/** One plan: exactly as before; `--overflow` gets the comment's text too. */
function showOne(io: CliIO, file: string, flags: ShowFlags): void {
  const plan = readPlanFile(resolve(io.cwd, file), file);
  if (flags.format === "json") io.stdout.write(serializePlan(plan));
  else if (flags.format === "markdown") {
    const markdown = markdownOf(plan, flags.maxChars);
    if (flags.overflow !== undefined) {
      const path = resolve(io.cwd, flags.overflow);
      const text = flags.maxChars === undefined ? markdown : markdownOf(plan);
      writeFileAtomicSync(path, text, outputFileOptions(path, flags.force === true));
    }
    io.stdout.write(markdown);
  } else io.stdout.write(renderText(plan, { colour: useColour(io) }));
}

/** Several plans, one per account: one comment (render/markdown-accounts.ts), `{"plans": [...]}`, or text. */
function showMany(io: CliIO, plans: readonly AccountPlan[], flags: ShowFlags): void {
  if (flags.format === "json") {
    const documents = plans.map(({ account, file, plan }) => ({
      account,
      file,
      plan: JSON.parse(serializePlan(plan)) as unknown,
    }));
    io.stdout.write(`${JSON.stringify({ plans: documents }, null, 2)}\n`);
  } else if (flags.format === "markdown") {
    // The complete comment goes to the file as each plan is rendered; only the comment is kept.
    const path = flags.overflow === undefined ? undefined : resolve(io.cwd, flags.overflow);
    const file =
      path === undefined ? undefined : new Replacement(path, outputFileOptions(path, flags.force === true));
    try {
      const { comment } = renderAccountsMarkdown(
        plans.map(({ account, file, plan }) => accountSummary({ account, file, plan })),
        {
          maxChars: flags.maxChars ?? COMMENT_MAX_CHARS,
          markdownOf: (i) => markdownOf((plans[i] as AccountPlan).plan),
          overflow: flags.overflow,
          write: file === undefined ? undefined : (text) => void file.write(text),
        },
      );
      file?.commit();
      io.stdout.write(comment);
    } catch (error) {
      file?.abort();
      throw error;
    }
  } else {
    const colour = useColour(io);
    io.stdout.write(
      plans
        .map(
          ({ account, file, plan }) =>
            `== account ${printable(account)} (${printable(file)}) ==\n\n${renderText(plan, { colour })}`,
        )
        .join("\n"),
    );
  }
}

/** A plan's pull-request comment: render takes the deactivating changes as plain data. */
function markdownOf(plan: Plan, maxChars?: number): string {
  return renderMarkdown(plan, {
    deactivating: deactivatingChangeIds(plan.changes),
    ...(maxChars === undefined ? {} : { maxChars }),
  });
}
