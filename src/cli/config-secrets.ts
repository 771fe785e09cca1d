/**
 * The last guard of a config error before it is printed: the password of this run
 * (DOOHCTL_PASSWORD) scrubbed from every message and hint before anything is cut, whatever
 * file the message quotes (docs/safety.md, Files and the tree). The config module never reads
 * the environment; this is the CLI's part.
 */
import type { ConfigError } from "../config/issues.js";
import type { CliIO } from "./io.js";

export function withoutEnvSecrets(error: ConfigError, env: CliIO["env"]): ConfigError {
  const password = env.DOOHCTL_PASSWORD ?? "";
  return password === "" ? error : error.withSecrets([password]);
}
