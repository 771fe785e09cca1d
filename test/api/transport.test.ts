import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer, type ServerOptions } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDspClient } from "../../src/api/client.js";
import { NetworkError, TimeoutError, TransportPolicyError } from "../../src/api/errors.js";
import { checkOrigin, poolOptions, TLS_CIPHER_SUITES, Transport } from "../../src/api/transport.js";
import { hasOpenssl, selfSignedCertificate, type TestCertificate } from "../helpers/tls.js";

const SPEC_SUITES = [
  "TLS_AES_128_GCM_SHA256",
  "TLS_AES_256_GCM_SHA384",
  "TLS_CHACHA20_POLY1305_SHA256",
  "ECDHE-RSA-AES128-GCM-SHA256",
  "ECDHE-RSA-AES128-SHA256",
  "ECDHE-RSA-AES256-GCM-SHA384",
  "ECDHE-RSA-AES256-SHA384",
];

describe("origin policy (G13)", () => {
  it("accepts https origins and normalizes them", () => {
    expect(checkOrigin("https://dsp.example.com/")).toBe("https://dsp.example.com");
    expect(checkOrigin("https://dsp.example.com:8443")).toBe("https://dsp.example.com:8443");
  });

  it("accepts http only for loopback hosts", () => {
    for (const origin of [
      "http://localhost:4010",
      "http://127.0.0.1:4010",
      "http://127.8.9.10",
      "http://[::1]:4010",
    ]) {
      expect(checkOrigin(origin)).toBe(new URL(origin).origin);
    }
  });

  it("refuses http to any other host, saying why and what to use instead", () => {
    expect(() => checkOrigin("http://dsp.example.com")).toThrow(TransportPolicyError);
    expect(() => checkOrigin("http://dsp.example.com")).toThrow(
      /HTTPS only \(G13\).*https:\/\/dsp\.example\.com/,
    );
    expect(() => checkOrigin("http://10.0.0.1:4010")).toThrow(/loopback/);
    expect(() => checkOrigin("http://localhost.example.com")).toThrow(TransportPolicyError);
  });

  it("refuses a URL with a path, other schemes, and credentials without echoing them", () => {
    expect(() => checkOrigin("https://dsp.example.com/api/dsp/v1")).toThrow(/scheme and host only/);
    expect(() => checkOrigin("ftp://dsp.example.com")).toThrow(/https:\/\//);
    expect(() => checkOrigin("not a url")).toThrow(/not a URL/);
    let message = "";
    try {
      checkOrigin("https://me:hunter2@dsp.example.com");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/must not carry a user or password/);
    expect(message).not.toContain("hunter2");
    // Text that is no URL at all, with a "/" in the password.
    expect(() => checkOrigin("https://me:hun/ter2@dsp.example.com")).toThrow(
      'api_origin "https://***@dsp.example.com" is not a URL',
    );
  });

  it("refuses a non-loopback http origin before any connection is made", async () => {
    let connections = 0;
    const server = createHttpServer((_req, res) => res.end("{}"));
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      expect(() =>
        createDspClient({
          apiOrigin: "http://dsp.example.com",
          environment: "production",
          credentials: { email: "a@b.test", password: "pw" },
        }),
      ).toThrow(TransportPolicyError);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });
});

describe("TLS settings", () => {
  it("builds the pool with TLS 1.2 minimum and exactly the specification's cipher suites", () => {
    const options = poolOptions({
      origin: "https://dsp.example.com",
      connectTimeoutMs: 1_000,
      requestTimeoutMs: 2_000,
      connections: 4,
    });
    const connect = options.connect as Record<string, unknown>;
    expect(connect.minVersion).toBe("TLSv1.2");
    expect(connect.maxVersion).toBe("TLSv1.3");
    expect(String(connect.ciphers).split(":")).toEqual(SPEC_SUITES);
    expect([...TLS_CIPHER_SUITES]).toEqual(SPEC_SUITES);
    expect(connect.rejectUnauthorized).toBe(true);
    expect(connect.timeout).toBe(1_000);
    expect(options.headersTimeout).toBe(2_000);
  });
});

let certs: TestCertificate | undefined;

describe.skipIf(!hasOpenssl())("TLS handshakes against a local HTTPS server", () => {
  let server: Server | undefined;

  beforeAll(() => {
    certs = selfSignedCertificate();
  });

  afterEach(() => {
    server?.close();
    server = undefined;
  });

  async function serve(options: ServerOptions): Promise<Transport> {
    server = createHttpsServer({ ...certs, ...options }, (req, res) => {
      const socket = req.socket as TLSSocket;
      res.end(JSON.stringify({ protocol: socket.getProtocol(), cipher: socket.getCipher().standardName }));
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return new Transport({
      origin: `https://127.0.0.1:${port}`,
      connectTimeoutMs: 5_000,
      requestTimeoutMs: 5_000,
      connections: 1,
      ca: certs!.cert,
    });
  }

  it("negotiates TLS 1.3 with one of the specified suites", async () => {
    const transport = await serve({});
    const response = await transport.request({ method: "GET", path: "/", headers: {} });
    const { protocol, cipher } = JSON.parse(response.text);
    expect(protocol).toBe("TLSv1.3");
    expect(SPEC_SUITES).toContain(cipher);
    await transport.close();
  });

  it("accepts a TLS 1.2 server offering a specified suite", async () => {
    const transport = await serve({ maxVersion: "TLSv1.2", ciphers: "ECDHE-RSA-AES128-SHA256" });
    const response = await transport.request({ method: "GET", path: "/", headers: {} });
    expect(JSON.parse(response.text)).toEqual({
      protocol: "TLSv1.2",
      cipher: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
    });
    await transport.close();
  });

  it("refuses a TLS 1.2 server offering only suites outside the list", async () => {
    const transport = await serve({ maxVersion: "TLSv1.2", ciphers: "ECDHE-RSA-AES256-SHA" });
    await expect(transport.request({ method: "GET", path: "/", headers: {} })).rejects.toBeInstanceOf(
      NetworkError,
    );
    await transport.close();
  });

  it("refuses a TLS 1.3 server offering only a TLS 1.3 suite outside the list", async () => {
    const transport = await serve({ minVersion: "TLSv1.3", ciphers: "TLS_AES_128_CCM_SHA256" });
    await expect(transport.request({ method: "GET", path: "/", headers: {} })).rejects.toBeInstanceOf(
      NetworkError,
    );
    await transport.close();
  });

  it("refuses a certificate it does not trust", async () => {
    const transport = await serve({});
    const { port } = server!.address() as AddressInfo;
    const untrusting = new Transport({
      origin: `https://127.0.0.1:${port}`,
      connectTimeoutMs: 5_000,
      requestTimeoutMs: 5_000,
      connections: 1,
    });
    await expect(untrusting.request({ method: "GET", path: "/", headers: {} })).rejects.toBeInstanceOf(
      NetworkError,
    );
    await Promise.all([untrusting.close(), transport.close()]);
  });
});

/** A plain-http server that misbehaves as `handler` says, and a transport to it (100 ms timeout). */
async function misbehaving(handler: Parameters<typeof createHttpServer>[1]) {
  const server = createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const transport = new Transport({
    origin: `http://127.0.0.1:${port}`,
    connectTimeoutMs: 1_000,
    requestTimeoutMs: 100,
    connections: 2,
  });
  return {
    transport,
    close: async () => {
      await transport.close();
      server.closeAllConnections();
      server.close();
    },
  };
}

describe("transport failures", () => {
  it("reports a reset connection as a NetworkError and a silent server as a TimeoutError", async () => {
    const { transport, close } = await misbehaving((req) => {
      if (req.url === "/reset") req.socket.destroy();
      // "/silent" never answers.
    });
    await expect(transport.request({ method: "GET", path: "/reset", headers: {} })).rejects.toBeInstanceOf(
      NetworkError,
    );
    await expect(transport.request({ method: "GET", path: "/silent", headers: {} })).rejects.toBeInstanceOf(
      TimeoutError,
    );
    await close();
  });

  it("gives up on a server that trickles its answer, though it is never silent for long", async () => {
    const { transport, close } = await misbehaving((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      // A byte every 20 ms: undici's inactivity timeouts (100 ms) never fire.
      const drip = setInterval(() => res.write(" "), 20);
      res.on("close", () => clearInterval(drip));
    });
    const failure = await transport.request({ method: "GET", path: "/slow", headers: {} }).catch((e) => e);
    expect(failure).toBeInstanceOf(TimeoutError);
    expect((failure as Error).message).toContain("the answer was still arriving after 100 ms");
    // It had begun to answer: the client does not retry it (client.ts).
    expect((failure as TimeoutError).trickling).toBe(true);
    await close();
  });
});
