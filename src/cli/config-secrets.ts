/**
 * The last guard of an error before it is printed: the run's passwords scrubbed from every
 * message and hint before anything is cut (docs/safety.md, Files and the tree). The config
 * module never reads the environment; this is the CLI's part.
 */

import type { ConfigError } from "../config/issues.js";
import { Scrubber } from "../model/scrub.js";
import type { CliIO } from "./io.js";

export function withoutEnvSecrets(error: ConfigError, env: CliIO["env"]): ConfigError {
  const passwords = envPasswords(env);
  return passwords.length === 0 ? error : error.withSecrets(passwords);
}

/**
 * Any other error's text, the same: an origin variable a CI wired to the wrong secret holds a
 * password, and a pull-request comment is covered by no log masking.
 */
export function textWithoutEnvSecrets(text: string, env: CliIO["env"]): string {
  const passwords = envPasswords(env);
  return passwords.length === 0 ? text : new Scrubber(passwords).text(text);
}

function envPasswords(env: CliIO["env"]): string[] {
  return Object.entries(env)
    .filter(([name, value]) => PASSWORD_VARIABLE.test(name) && value !== undefined && value !== "")
    .map(([, value]) => value!);
}

/** Every DOOHCTL_ variable whose name says password: an account's names are unknown when its error prints. */
const PASSWORD_VARIABLE = /^DOOHCTL_[A-Z0-9_]*(PASSWORD|PASSWD|SECRET)[A-Z0-9_]*$/;
