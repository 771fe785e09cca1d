/**
 * The last guard of a config error before it is printed: the password of this run
 * (DOOHCTL_PASSWORD, or an account's DOOHCTL_*_PASSWORD) scrubbed from every message and hint before anything is cut, whatever
 * file the message quotes (docs/safety.md, Files and the tree). The config module never reads
 * the environment; this is the CLI's part.
 */

import type { ConfigError } from "../config/issues.js";
import { Scrubber } from "../model/scrub.js";
import type { CliIO } from "./io.js";

export function withoutEnvSecrets(error: ConfigError, env: CliIO["env"]): ConfigError {
  const passwords = envPasswords(env);
  return passwords.length === 0 ? error : error.withSecrets(passwords);
}

/**
 * Any other error's text with the same passwords replaced: a connection error quotes the
 * value of an origin variable, which a CI wired to the wrong secret fills with a password,
 * and the pull-request workflow posts errors as a comment, which no log masking covers.
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

/**
 * DOOHCTL_PASSWORD, and the password variables of several accounts (their `password_from`,
 * like DOOHCTL_NORTHWIND_EU_PASSWORD): the config's own names are not known when its
 * error is printed, so every DOOHCTL_ variable whose name says password is scrubbed.
 */
const PASSWORD_VARIABLE = /^DOOHCTL_[A-Z0-9_]*(PASSWORD|PASSWD|SECRET)[A-Z0-9_]*$/;
