/**
 * The last guard of a config error before it is printed: the password of this run
 * (DOOHCTL_PASSWORD) in any form it may take, scrubbed from every message and hint, whatever
 * file the message quotes (docs/safety.md, Files and the tree). The config module never reads
 * the environment; this is the CLI's part.
 */
import { Scrubber } from "../api/scrub.js";
import { ConfigError, type ConfigIssue } from "../config/issues.js";
import type { CliIO } from "./io.js";

export function withoutEnvSecrets(error: ConfigError, env: CliIO["env"]): ConfigError {
  const password = env.DOOHCTL_PASSWORD ?? "";
  if (password === "") return error;
  const scrubber = new Scrubber([password]);
  const scrub = (issue: ConfigIssue): ConfigIssue => ({
    ...issue,
    message: scrubber.text(issue.message),
    ...(issue.hint === undefined ? {} : { hint: scrubber.text(issue.hint) }),
  });
  return new ConfigError(error.issues.map(scrub));
}
