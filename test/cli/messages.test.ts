/**
 * What a person sees when api_origin is wrong: what happened and what to do, never raw
 * OpenSSL text or a page of HTML. Each case crosses the wire to a real local server.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withoutGapNumbers } from "../../src/cli/errors.js";
import { run } from "../../src/cli/program.js";
import { bufferIO } from "../helpers/io.js";

describe("messages about a wrong api_origin", () => {
  let server: Server;
  let port: number;
  const dir = mkdtempSync(join(tmpdir(), "doohctl-messages-"));
  writeFileSync(join(dir, "doohctl.yaml"), 'version: 1\ninsertion_orders:\n  - id: "1001"\n');

  beforeAll(async () => {
    // The DSP's web UI, or a proxy's page: HTML with status 200 and no session cookie.
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!DOCTYPE html><html><body><h1>Welcome</h1></body></html>");
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  async function plan(origin: string, format?: string): Promise<{ code: number; err: string; out: string }> {
    const io = bufferIO({
      cwd: dir,
      env: { DOOHCTL_API_ORIGIN: origin, DOOHCTL_EMAIL: "ops@example.com", DOOHCTL_PASSWORD: "s3cret-pw" },
    });
    const args = ["plan", "--no-session-cache", "--max-wait", "0", ...(format ? ["--format", format] : [])];
    const code = await run(args, io);
    expect(io.err() + io.out()).not.toContain("s3cret-pw");
    return { code, err: io.err(), out: io.out() };
  }

  it("an HTML page says api_origin names a web page, not the API, and shows no markup", async () => {
    const { code, err } = await plan(`http://127.0.0.1:${port}`);
    expect(code).toBe(1);
    expect(err).toContain("an HTML page, not the DSP's JSON API");
    expect(err).toContain("set it to the API's origin");
    expect(err).not.toContain("<");
  });

  it("https to a plain-http port says the server does not speak TLS there, with no OpenSSL text", async () => {
    const { code, err } = await plan(`https://127.0.0.1:${port}`);
    expect(code).toBe(1);
    expect(err).toContain("the server does not speak TLS there");
    expect(err).toContain("(ERR_SSL_WRONG_VERSION_NUMBER)");
    expect(err).not.toMatch(/ssl3_get_record|SSL routines|openssl/);
  });

  it("a closed port says nothing accepts connections, also as JSON", async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    const { code, out } = await plan(`http://127.0.0.1:${closedPort}`, "json");
    expect(code).toBe(1);
    const { errors } = JSON.parse(out) as { errors: { code: string; message: string }[] };
    expect(errors).toEqual([
      {
        code: "NETWORK_ERROR",
        message: expect.stringMatching(/nothing accepts connections at api_origin.*\(ECONNREFUSED\)$/),
        location: null,
      },
    ]);
  });
});

describe("contract decisions in messages", () => {
  it("become a link to docs/assumptions.md instead of a bare G number", () => {
    expect(withoutGapNumbers("refusing plain http:// to dsp.example.com: the DSP is HTTPS only (G13)")).toBe(
      "refusing plain http:// to dsp.example.com: the DSP is HTTPS only (see docs/assumptions.md#g13)",
    );
    expect(withoutGapNumbers("more than 10,100 items (G12: page 0..100); narrow it")).toBe(
      "more than 10,100 items (page 0..100; see docs/assumptions.md#g12); narrow it",
    );
    expect(withoutGapNumbers("creation is transactional (G3 rule 2); nothing more")).toBe(
      "creation is transactional (see docs/assumptions.md#g3); nothing more",
    );
  });

  it("reach the user that way from the CLI", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-messages-"));
    writeFileSync(join(dir, "doohctl.yaml"), 'version: 1\ninsertion_orders:\n  - id: "1001"\n');
    const io = bufferIO({
      cwd: dir,
      env: { DOOHCTL_API_ORIGIN: "http://dsp.example.com", DOOHCTL_EMAIL: "a@b.c", DOOHCTL_PASSWORD: "pw" },
    });
    expect(await run(["plan", "--no-session-cache"], io)).toBe(1);
    expect(io.err()).toContain("docs/assumptions.md#g13");
    expect(io.err()).not.toMatch(/\(G\d+/);
  });
});
