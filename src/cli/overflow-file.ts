/**
 * `show --overflow FILE` (docs/plan.md), checked before anything is written: never one of the
 * plans shown, by any path or link (the plan `apply --plan` is given would become markdown);
 * an existing file only with --force (a slip of the path would lose a config), a link then
 * replaced, not followed (output-dir.ts); a directory refused with what to do.
 */
import { lstatSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { CommandError } from "./errors.js";

const CODE = "SHOW_OVERFLOW_FILE";

/** Throws CommandError(SHOW_OVERFLOW_FILE) when `overflow` may not be written. */
export function checkOverflowFile(
  cwd: string,
  overflow: string,
  plans: readonly string[],
  options: { force: boolean },
): void {
  const target = resolve(cwd, overflow);
  const at = statSync(target, { throwIfNoEntry: false });
  const link = lstatSync(target, { throwIfNoEntry: false });
  if (at?.isDirectory()) {
    throw new CommandError(
      CODE,
      `--overflow ${overflow}: is a directory: name a file, like ${overflow.replace(/\/+$/, "")}/comment.md`,
    );
  }
  if (at !== undefined) {
    for (const plan of plans) {
      const seen = statSync(resolve(cwd, plan), { throwIfNoEntry: false });
      if (seen !== undefined && seen.dev === at.dev && seen.ino === at.ino) {
        throw new CommandError(
          CODE,
          `--overflow ${overflow}: is the saved plan ${plan} being shown: writing the comment there would replace the plan that apply --plan is given; choose another file for the complete comment`,
        );
      }
    }
  }
  if ((at !== undefined || link !== undefined) && !options.force) {
    throw new CommandError(
      CODE,
      `--overflow ${overflow}: already exists: choose another file, or add --force to overwrite it`,
    );
  }
  if (at !== undefined) return;
  const dir = dirname(target);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    const shown = relative(cwd, dir) || ".";
    throw new CommandError(
      CODE,
      `--overflow ${overflow}: the directory ${shown} does not exist: create it first (mkdir -p ${shown}) or choose another file`,
    );
  }
}
