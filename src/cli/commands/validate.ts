import { ConfigError, formatIssue, issuesToJson } from "../../config/issues.js";
import { loadConfig } from "../../config/load.js";
import type { DesiredState } from "../../model/desired.js";
import { changedKeys, type Dialect } from "../../model/dialect.js";
import { count } from "../../model/plural.js";
import { printable } from "../../model/printable.js";
import { configCommitmentFindings } from "../../plan/findings/commitments.js";
import type { CommandModule } from "../command.js";
import { withoutEnvSecrets } from "../config-secrets.js";
import { configErrorText } from "../errors.js";
import { Flag } from "../flags.js";
import { EXIT } from "../io.js";

/** `doohctl validate`: offline; a one-line summary, or every problem (exit 1). */
export const registerValidate: CommandModule = (program, io, setExit) => {
  program
    .command("validate")
    .argument("[paths...]", "config files or directories (default: doohctl.yaml)")
    .addOption(Flag.format("output format", ["text", "json"]))
    .action(async (paths: string[], options: { format: "text" | "json" }) => {
      let state: DesiredState;
      try {
        state = await loadConfig(paths, {
          cwd: io.cwd,
          // Nothing skipped in silence: a subdirectory's YAML, a `*.json` beside the config.
          onWarning: (warning) => io.stderr.write(`warning: ${formatIssue(warning)}\n`),
        });
      } catch (thrown) {
        if (!(thrown instanceof ConfigError)) throw thrown;
        const error = withoutEnvSecrets(thrown, io.env);
        if (options.format === "json") {
          io.stdout.write(issuesToJson(error.issues));
        } else {
          io.stderr.write(configErrorText(error, io.stderr.isTTY));
          io.stderr.write(`invalid: ${count(error.issues.length, "error", "errors")}\n`);
        }
        setExit(EXIT.error);
        return;
      }
      // DOOH803 where the config alone decides (docs/plan.md, Commitments): a warning, exit 0.
      for (const f of configCommitmentFindings(state)) {
        const at = f.source ? `${f.source.file}:${f.source.line}:${f.source.column}: ` : "";
        io.stderr.write(`warning: ${printable(`${at}${f.code} ${f.message}`)}\n`);
      }
      if (options.format === "json") io.stdout.write("[]\n");
      else io.stdout.write(`${summary(state)}\n`);
      setExit(EXIT.ok);
    });
};

/** `valid: 2 insertion orders, 7 campaigns, 3 creatives (2 files)`, and the dialect's changed keys. */
export function summary(state: DesiredState): string {
  const campaigns = state.insertionOrders.reduce((n, io) => n + io.campaigns.length, 0);
  return `valid: ${count(state.insertionOrders.length, "insertion order", "insertion orders")}, ${count(
    campaigns,
    "campaign",
    "campaigns",
  )}, ${count(state.creatives.length, "creative", "creatives")} (${count(state.files.length, "file", "files")})${dialectText(state.connection.dialect)}`;
}

function dialectText(dialect: Dialect | undefined): string {
  if (dialect === undefined) return "";
  const changed = changedKeys(dialect);
  return changed.length === 0
    ? "; dialect: every key as the default"
    : `; dialect: ${changed.join(", ")} differ${changed.length === 1 ? "s" : ""} from the default${changed.length === 1 ? "" : "s"}`;
}
