import { mkdtempSync, writeFileSync } from "node:fs";
import type { ServerOptions } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type TLSSocket, connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDspClient } from "../../src/api/client.js";
import { NetworkError } from "../../src/api/errors.js";
import { TLS_CIPHER_SUITES } from "../../src/api/transport.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { ADVERTISER, seedIo } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { type InterceptingProxy, interceptingProxy, relay } from "../helpers/proxy.js";
import { hasOpenssl, selfSignedCertificate, type TestCertificate } from "../helpers/tls.js";
import { USER } from "../helpers/users.js";
import { ensureBuilt, spawnCli } from "./binary.js";

/** The specification's suites by their IANA names, as getCipher().standardName reports them. */
const ALLOWED_STANDARD_NAMES = [
  "TLS_AES_128_GCM_SHA256",
  "TLS_AES_256_GCM_SHA384",
  "TLS_CHACHA20_POLY1305_SHA256",
  "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
  "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
  "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384",
];

let _dir: string;
let certs: TestCertificate;
let emulator: RunningEmulator;
const fronts: InterceptingProxy[] = [];
const negotiated: { protocol: string | null; cipher: string }[] = [];

/** An HTTPS front for the emulator: TLS terminates here, requests go on to it unchanged. */
async function httpsFront(options: ServerOptions = {}): Promise<string> {
  const front = await interceptingProxy(emulator.origin, {
    tls: { key: certs.key, cert: certs.cert, ...options },
    onRequest: (req, res, forward) => {
      const socket = req.socket as TLSSocket;
      negotiated.push({ protocol: socket.getProtocol(), cipher: socket.getCipher().standardName });
      void forward().then((answer) => relay(answer, res));
    },
  });
  fronts.push(front);
  return front.origin;
}

function client(apiOrigin: string, ca?: string) {
  return createDspClient({
    apiOrigin,
    environment: "production",
    credentials: { email: USER.email, password: USER.password },
    sessionCache: false,
    timeouts: { connectMs: 5_000, requestMs: 5_000 },
    retry: { maxAttempts: 1 },
    ...(ca !== undefined ? { ca } : {}),
  });
}

describe.skipIf(!hasOpenssl())("TLS against an HTTPS DSP with a test certificate", () => {
  beforeAll(async () => {
    certs = selfSignedCertificate("doohctl-proof-tls-");
    _dir = dirname(certs.certPath);
    emulator = (
      await startCliAccount({
        systemTime: true,
        seed: { users: [USER], advertisers: [ADVERTISER], insertion_orders: [seedIo("1001")] },
      })
    ).emulator;
  });
  afterAll(async () => {
    for (const front of fronts.splice(0)) await front.close();
    await emulator.close();
  });

  it("logs in and reads over TLS 1.2 or 1.3 with a listed suite when given the CA", async () => {
    const origin = await httpsFront();
    const trusting = client(origin, certs.cert);
    expect((await trusting.getInsertionOrders(["1001"])).map((io) => io.id)).toEqual(["1001"]);
    await trusting.close();
    expect(negotiated.length).toBeGreaterThanOrEqual(2);
    for (const { protocol, cipher } of negotiated) {
      expect(["TLSv1.2", "TLSv1.3"]).toContain(protocol);
      expect(ALLOWED_STANDARD_NAMES).toContain(cipher);
    }
    expect(TLS_CIPHER_SUITES).toHaveLength(ALLOWED_STANDARD_NAMES.length);
  });

  it("refuses the same server without the CA, before any credential is sent", async () => {
    const origin = await httpsFront();
    const before = emulator.requestLog().length;
    const untrusting = client(origin);
    await expect(untrusting.getInsertionOrders(["1001"])).rejects.toBeInstanceOf(NetworkError);
    await untrusting.close();
    expect(emulator.requestLog().length).toBe(before);
  });

  it("refuses a server that speaks only TLS 1.1", async () => {
    const origin = await httpsFront({
      minVersion: "TLSv1.1",
      maxVersion: "TLSv1.1",
      ciphers: "DEFAULT@SECLEVEL=0",
    });
    const { port } = new URL(origin);
    // Control: the server really does complete a TLS 1.1 handshake with a client that allows it.
    const protocol = await new Promise<string | null>((resolve, reject) => {
      const socket = tlsConnect(
        {
          host: "127.0.0.1",
          port: Number(port),
          ca: certs.cert,
          minVersion: "TLSv1.1",
          maxVersion: "TLSv1.1",
          ciphers: "DEFAULT@SECLEVEL=0",
        },
        () => {
          resolve(socket.getProtocol());
          socket.end();
        },
      );
      socket.on("error", reject);
    });
    expect(protocol).toBe("TLSv1.1");
    const before = emulator.requestLog().length;
    const ours = client(origin, certs.cert);
    await expect(ours.getInsertionOrders(["1001"])).rejects.toBeInstanceOf(NetworkError);
    await ours.close();
    expect(emulator.requestLog().length).toBe(before);
  });

  describe("the built CLI", () => {
    beforeAll(() => ensureBuilt(), 180_000);

    async function cliPlan(extraEnv: Record<string, string>) {
      const origin = await httpsFront();
      const cwd = mkdtempSync(join(tmpdir(), "doohctl-proof-tls-cli-"));
      writeFileSync(
        join(cwd, "doohctl.yaml"),
        `version: 1\nconnection:\n  api_origin: ${origin}\ninsertion_orders:\n  - id: "1001"\n    contract_number: PO-1\n`,
      );
      const child = spawnCli(["plan", "--no-session-cache"], {
        cwd,
        env: { DOOHCTL_EMAIL: USER.email, DOOHCTL_PASSWORD: USER.password, HOME: cwd, ...extraEnv },
      });
      return { code: await child.exited, out: child.stdout(), err: child.stderr() };
    }

    it("refuses the private certificate by default", async () => {
      const result = await cliPlan({});
      expect(result.code).toBe(1);
      expect(result.err).toMatch(/certificate|self.signed|CERT/i);
      expect(result.err).not.toContain(USER.password);
    });

    it("trusts it through NODE_EXTRA_CA_CERTS and plans", async () => {
      const result = await cliPlan({ NODE_EXTRA_CA_CERTS: certs.certPath });
      expect(result.err).not.toContain(USER.password);
      expect(result.code, result.err).toBe(0);
      expect(result.out).toContain("PO-1");
    });
  });
});
