/** The checks the doctor's own login answers, at no read: the session cookie (G9) and its TLS (G13). */
import type { LoginSeen } from "../../api/login-seen.js";
import { TLS_CIPHER_SUITES } from "../../api/transport.js";
import type { Environment } from "../../model/wire.js";
import { SESSION_LIFETIME_MS, sessionCookieName } from "../../model/wire.js";
import type { CheckResult } from "./probe.js";
import { show } from "./seen.js";

/** Tolerance around 8 hours: clock skew between the DSP and this machine. */
const EXPIRY_SLACK_MS = 5 * 60 * 1000;

function outcome(
  base: Omit<CheckResult, "status" | "detail">,
  problems: string[],
  holds: string,
): CheckResult {
  return problems.length > 0
    ? { ...base, status: "differs", detail: problems.join("; ") }
    : { ...base, status: "holds", detail: holds };
}

function hours(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const rest = Math.abs(minutes % 60);
  return `${Math.trunc(minutes / 60)}h${rest === 0 ? "" : ` ${rest}m`}`;
}

/** G9: `tr-production` (or `tr-staging`), Secure, HttpOnly, Path=/, expiring 8 hours after login. */
export function sessionCheck(
  login: LoginSeen | undefined,
  environment: Environment,
  noAnswer?: string,
): CheckResult {
  const base = {
    id: "session-cookie",
    gap: "G9",
    title: "session cookie",
    change: "src/api/login.ts / src/api/session.ts, G9",
  };
  if (login === undefined) return { ...base, status: "not checked", detail: noAnswer ?? "no login answered" };
  const sentAt = login.sentAt;
  const expected = sessionCookieName(environment);
  const problems: string[] = [];
  if (login.status !== 200) problems.push(`POST /api/session answered ${login.status}`);
  const cookie = login.cookies.find((c) => c.name === expected);
  if (!cookie) {
    const names = login.cookies.map((c) => c.name);
    problems.push(`no ${expected} cookie (saw ${names.length > 0 ? names.join(", ") : "no Set-Cookie"})`);
    return outcome(base, problems, "");
  }
  const { attributes } = cookie;
  if (attributes.get("secure") !== true) problems.push("no Secure");
  if (attributes.get("httponly") !== true) problems.push("no HttpOnly");
  if (attributes.get("path") !== "/")
    problems.push(`Path is ${show(attributes.get("path") ?? "absent")}, not /`);
  const expires = attributes.get("expires");
  const maxAge = attributes.get("max-age");
  let lifetime: number | undefined;
  if (typeof maxAge === "string" && /^[0-9]+$/.test(maxAge)) lifetime = Number(maxAge) * 1000;
  else if (typeof expires === "string" && !Number.isNaN(Date.parse(expires)))
    lifetime = Date.parse(expires) - sentAt;
  if (lifetime === undefined) problems.push("no Expires (or Max-Age) attribute");
  else if (Math.abs(lifetime - SESSION_LIFETIME_MS) > EXPIRY_SLACK_MS)
    problems.push(`expires ${hours(lifetime)} after login, not 8h`);
  if (login.body !== undefined && typeof login.body.expires_at !== "string")
    problems.push("the login body has no expires_at");
  return outcome(
    base,
    problems,
    `${expected}; Secure, HttpOnly, Path=/; expires ${hours(lifetime ?? 0)} after login`,
  );
}

/** G13: TLS 1.2 or 1.3 with a listed suite; nothing to check over loopback http://. */
export function tlsCheck(login: LoginSeen | undefined, origin: string, noAnswer?: string): CheckResult {
  const base = {
    id: "tls",
    gap: "G13",
    title: "TLS version and cipher",
    change: "src/api/transport.ts (TLS options), G13",
  };
  if (login === undefined) {
    // The client offers only TLS 1.2/1.3 and the listed suites (G13): a DSP taking none refuses.
    return {
      ...base,
      status: "differs",
      detail: `the TLS handshake failed with TLS 1.2 or 1.3 and the suites the specification permits (${noAnswer ?? "no answer"})`,
    };
  }
  const { tls } = login;
  if (tls === undefined) {
    return {
      ...base,
      status: "not checked",
      detail: `${origin} is plain http:// (G13 allows it to loopback only): there is no TLS to check`,
    };
  }
  const problems: string[] = [];
  if (tls.protocol !== "TLSv1.2" && tls.protocol !== "TLSv1.3")
    problems.push(`negotiated ${tls.protocol}, not TLS 1.2 or 1.3`);
  // Spec, Authentication 7 (G13), by the names Node's getCipher() gives: the client's own list.
  if (!(TLS_CIPHER_SUITES as readonly string[]).includes(tls.cipher))
    problems.push(`cipher ${tls.cipher} is not one the specification permits`);
  return outcome(base, problems, `${tls.protocol}, ${tls.cipher}`);
}
