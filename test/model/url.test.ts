import { describe, expect, it } from "vitest";
import {
  httpUrlProblem,
  isLoopbackHost,
  originVerdict,
  originWithScheme,
  withoutUserinfo,
} from "../../src/model/url.js";

describe("pixel URLs", () => {
  it("accepts http(s) URLs with the macros ad servers fill in", () => {
    for (const url of [
      "https://pixel.example.com/p?c=9001",
      "HTTP://PIXEL.EXAMPLE.COM/P",
      "https://p.example.com/p?cb={cachebuster}&t=[timestamp]&r=%%CB%%",
      "http://[::1]:8080/p",
    ]) {
      expect(httpUrlProblem(url), url).toBeUndefined();
    }
  });

  it("names what is wrong with the rest", () => {
    expect(httpUrlProblem("pixel.example.com/p")).toBe("is not an absolute http or https URL");
    expect(httpUrlProblem("ftp://pixel.example.com/p")).toBe("is not an absolute http or https URL");
    expect(httpUrlProblem("https://")).toBe("has no host after the `//`");
    expect(httpUrlProblem("https:///p")).toBe("has no host after the `//`");
    expect(httpUrlProblem("https://p.example.com/a\tb")).toMatch(/^holds white space \("\\t"\)/);
    expect(httpUrlProblem("https://p.example.com:99999/")).toMatch(/^is not a URL the API can read/);
    expect(httpUrlProblem("https://u:pw@p.example.com/")).toMatch(/^carries a user name or password/);
    expect(httpUrlProblem("https://p.example.com/\u001b[2J")).toMatch(
      /^holds a control character \("\\u001b"\)/,
    );
  });
});

describe("origins", () => {
  it("adds the scheme a bare host was meant with: http only for loopback (G13)", () => {
    expect(originWithScheme("dsp.example.com")).toBe("https://dsp.example.com");
    expect(originWithScheme("dsp.example.com:8443")).toBe("https://dsp.example.com:8443");
    expect(originWithScheme("localhost:8787")).toBe("http://localhost:8787");
    expect(originWithScheme("127.0.0.1:8787")).toBe("http://127.0.0.1:8787");
    expect(originWithScheme("[::1]:8787")).toBe("http://[::1]:8787");
    for (const text of [
      "https://dsp.example.com",
      "dsp.example.com/api",
      "dsp.example.com:99999",
      "a b",
      "",
    ]) {
      expect(originWithScheme(text), text).toBeUndefined();
    }
  });

  it("knows loopback hosts and masks user info", () => {
    expect(["localhost", "127.8.9.1", "[::1]"].every(isLoopbackHost)).toBe(true);
    expect(["128.0.0.1", "localhost.example.com", "::1"].some(isLoopbackHost)).toBe(false);
    expect(withoutUserinfo("https://ops:secret@dsp.example.com")).toBe("https://***@dsp.example.com");
    expect(withoutUserinfo("admin:s3cret@dsp.example.com")).toBe("***@dsp.example.com");
    // No URL reader accepts a "/" in a password, so such text ends up in "is not a URL".
    expect(withoutUserinfo("https://u:s3/cret@dsp.example.com/p")).toBe("https://***@dsp.example.com/p");
    // An "@" in a path or query is not user info.
    expect(withoutUserinfo("https://p.example.com/u/a@b?m=x@y")).toBe("https://p.example.com/u/a@b?m=x@y");
  });
});

describe("originVerdict: the one G13 origin rule", () => {
  it.each([
    ["https://dsp.example.com", { ok: true, origin: "https://dsp.example.com" }],
    ["http://127.0.0.1:4010", { ok: true, origin: "http://127.0.0.1:4010" }],
    ["localhost:8787", { ok: false, problem: "no-scheme", meant: "http://localhost:8787" }],
    ["https://u:p@dsp.example.com", { ok: false, problem: "credentials" }],
    ["ftp://dsp.example.com", { ok: false, problem: "not-http", protocol: "ftp:" }],
    ["https://dsp.example.com/api", { ok: false, problem: "has-path", origin: "https://dsp.example.com" }],
    ["http://dsp.example.com", { ok: false, problem: "plain-http", host: "dsp.example.com" }],
    ["https://", { ok: false, problem: "not-a-url" }],
  ] as const)("%s", (text, verdict) => {
    expect(originVerdict(text)).toEqual(verdict);
  });
});
