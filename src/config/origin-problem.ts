/** The G13 origin rule (model/url.ts) in the words of a config message. */
import { originVerdict, withoutUserinfo } from "../model/url.js";

/**
 * Why `text` is not a usable API origin, or undefined when it is one. A message never
 * quotes a user name or password written in the URL: messages end up in terminals and logs.
 */
export function originProblem(text: string): string | undefined {
  const verdict = originVerdict(text);
  if (verdict.ok) return undefined;
  // A message may quote the text: never with a user name or password in it.
  const shown = withoutUserinfo(text);
  switch (verdict.problem) {
    case "no-scheme":
      return `"${text}" has no scheme: write "${verdict.meant}"`;
    case "not-a-url":
      return `"${shown}" is not a URL: write the scheme and host, like https://dsp.example.com`;
    case "credentials":
      return "api_origin must not contain credentials (user:password@): put the user in DOOHCTL_EMAIL and the password in DOOHCTL_PASSWORD";
    case "not-http":
      return `"${shown}" is not an http(s) origin: write it like https://dsp.example.com`;
    case "has-path":
      return `"${shown}" has a path: write the origin only, ${verdict.origin} (the API paths are added for you)`;
    case "plain-http":
      // G13: the service is HTTPS only; plain http is for a local emulator.
      return `"${shown}" uses http: the DSP is HTTPS only; plain http is allowed only for a loopback address (see docs/assumptions.md#g13): write https://${verdict.host}`;
  }
}
