import { describe, expect, it } from "vitest";
import { ConnectionError, resolveConnection } from "../../src/config/connection.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";

describe("resolveConnection", () => {
  it("takes the config's settings and fills the published rate limits and production", () => {
    expect(resolveConnection({ apiOrigin: "https://dsp.example.com" }, {})).toEqual({
      apiOrigin: "https://dsp.example.com",
      environment: "production",
      rateLimits: PUBLISHED_RATE_LIMITS,
    });
  });

  it("takes DOOHCTL_API_ORIGIN where the config names no origin, and lets DOOHCTL_ENVIRONMENT override", () => {
    const resolved = resolveConnection(
      { environment: "production" },
      { DOOHCTL_API_ORIGIN: "http://127.0.0.1:8787", DOOHCTL_ENVIRONMENT: "staging" },
    );
    expect(resolved).toMatchObject({ apiOrigin: "http://127.0.0.1:8787", environment: "staging" });
    // The same origin in both, written differently, is the same origin.
    expect(
      resolveConnection(
        { apiOrigin: "HTTPS://dsp.example.com:443" },
        { DOOHCTL_API_ORIGIN: "https://dsp.example.com" },
      ).apiOrigin,
    ).toBe("https://dsp.example.com");
  });

  it("refuses a config api_origin that is not DOOHCTL_API_ORIGIN: the credentials go where the environment says", () => {
    const run = () =>
      resolveConnection(
        { apiOrigin: "https://attacker.example.net" },
        { DOOHCTL_API_ORIGIN: "https://dsp.example.com" },
      );
    expect(run).toThrow(ConnectionError);
    expect(run).toThrow(
      expect.objectContaining({
        code: "CONNECTION_ORIGIN_MISMATCH",
        message: expect.stringMatching(
          /connection\.api_origin \(https:\/\/attacker\.example\.net\) is not DOOHCTL_API_ORIGIN \(https:\/\/dsp\.example\.com\).*no login was made/,
        ),
      }),
    );
  });

  it.each(["true", "TRUE", "1"])("with CI=%s needs DOOHCTL_API_ORIGIN, whatever the config says", (ci) => {
    const run = () => resolveConnection({ apiOrigin: "https://dsp.example.com" }, { CI: ci });
    expect(run).toThrow(
      expect.objectContaining({
        code: "CONNECTION_NO_ORIGIN",
        message: expect.stringMatching(/CI=true and DOOHCTL_API_ORIGIN is not set: .*Set DOOHCTL_API_ORIGIN/),
      }),
    );
    expect(
      resolveConnection(
        { apiOrigin: "https://dsp.example.com" },
        { CI: ci, DOOHCTL_API_ORIGIN: "https://dsp.example.com" },
      ).apiOrigin,
    ).toBe("https://dsp.example.com");
    expect(resolveConnection({ apiOrigin: "https://dsp.example.com" }, { CI: "false" }).apiOrigin).toBe(
      "https://dsp.example.com",
    );
  });

  it("says where to set the origin when neither the config nor the environment has one", () => {
    expect(() => resolveConnection({}, { DOOHCTL_API_ORIGIN: "" })).toThrow(
      expect.objectContaining({
        code: "CONNECTION_NO_ORIGIN",
        message: expect.stringMatching(/DOOHCTL_API_ORIGIN/),
      }),
    );
  });

  it("refuses a plain-http origin from the environment unless it is loopback (G13)", () => {
    expect(() => resolveConnection({}, { DOOHCTL_API_ORIGIN: "http://dsp.example.com" })).toThrow(
      ConnectionError,
    );
    expect(resolveConnection({}, { DOOHCTL_API_ORIGIN: "http://localhost:9000" }).apiOrigin).toBe(
      "http://localhost:9000",
    );
  });

  it("tells the origin meant when DOOHCTL_API_ORIGIN has no scheme", () => {
    expect(() => resolveConnection({}, { DOOHCTL_API_ORIGIN: "localhost:8787" })).toThrow(
      'DOOHCTL_API_ORIGIN: "localhost:8787" has no scheme: write "http://localhost:8787"',
    );
    expect(() => resolveConnection({}, { DOOHCTL_API_ORIGIN: "dsp.example.com" })).toThrow(
      'DOOHCTL_API_ORIGIN: "dsp.example.com" has no scheme: write "https://dsp.example.com"',
    );
  });

  it("refuses an unknown environment name", () => {
    expect(() =>
      resolveConnection({ apiOrigin: "https://dsp.example.com" }, { DOOHCTL_ENVIRONMENT: "prod" }),
    ).toThrow(/production or staging/);
  });
});
