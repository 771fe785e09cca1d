/** The G9 cookie check on Set-Cookie headers a DSP might send (pure: no server needed). */
import { describe, expect, it } from "vitest";
import { parseSetCookie } from "../../src/api/login-seen.js";
import { sessionCheck } from "../../src/cli/doctor/login-checks.js";

const SENT = Date.parse("2026-12-01T10:00:00Z");

function seen(setCookie: string[], body: Record<string, unknown> = { expires_at: "2026-12-01T18:00:00Z" }) {
  return { status: 200, cookies: setCookie.map(parseSetCookie), body, tls: undefined, sentAt: SENT };
}

describe("the session cookie check (G9)", () => {
  it("holds for tr-production, Secure, HttpOnly, Path=/ and an expiry 8 hours on", () => {
    const result = sessionCheck(
      seen(["tr-production=abc; Secure; HttpOnly; Path=/; Expires=Tue, 01 Dec 2026 18:00:00 GMT"]),
      "production",
    );
    expect(result).toMatchObject({ status: "holds", gap: "G9" });
    expect(result.detail).toBe("tr-production; Secure, HttpOnly, Path=/; expires 8h after login");
  });

  it("names each attribute that differs and never the token", () => {
    const result = sessionCheck(
      seen(["tr-production=s3cr3t-token; Path=/api; Expires=Tue, 01 Dec 2026 11:00:00 GMT"], {}),
      "production",
    );
    expect(result.status).toBe("differs");
    expect(result.detail).toBe(
      'no Secure; no HttpOnly; Path is "/api", not /; expires 1h after login, not 8h; the login body has no expires_at',
    );
    expect(result.change).toBe("src/api/login.ts / src/api/session.ts, G9");
    expect(JSON.stringify(result)).not.toContain("s3cr3t-token");
  });

  it("differs when the cookie has the other environment's name, or there is none", () => {
    const other = sessionCheck(
      seen(["tr-staging=abc; Secure; HttpOnly; Path=/; Max-Age=28800"]),
      "production",
    );
    expect(other.detail).toBe("no tr-production cookie (saw tr-staging)");
    expect(sessionCheck(seen([]), "staging").detail).toBe("no tr-staging cookie (saw no Set-Cookie)");
  });

  it("reads Max-Age when the DSP sends it instead of Expires", () => {
    const result = sessionCheck(seen(["tr-staging=abc; Secure; HttpOnly; Path=/; Max-Age=28800"]), "staging");
    expect(result.status).toBe("holds");
  });
});
