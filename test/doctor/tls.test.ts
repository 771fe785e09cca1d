/** `doohctl doctor`'s G13 check over real TLS: an HTTPS front with a test certificate before the emulator. */
import type { ServerOptions } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedAccount } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { type InterceptingProxy, interceptingProxy } from "../helpers/proxy.js";
import { hasOpenssl, selfSignedCertificate, type TestCertificate } from "../helpers/tls.js";
import { USER } from "../helpers/users.js";

let certs: TestCertificate;
let emulator: RunningEmulator;
const fronts: InterceptingProxy[] = [];

/** TLS terminates here; requests go on to the emulator unchanged. */
async function httpsFront(options: ServerOptions = {}): Promise<string> {
  const front = await interceptingProxy(emulator.origin, {
    tls: { key: certs.key, cert: certs.cert, ...options },
  });
  fronts.push(front);
  return front.origin;
}

async function doctorAt(origin: string) {
  const io = bufferIO({
    env: {
      DOOHCTL_API_ORIGIN: origin,
      DOOHCTL_EMAIL: USER.email,
      DOOHCTL_PASSWORD: USER.password,
      DOOHCTL_SESSION_CACHE: "off",
    },
  });
  const code = await run(["doctor", "--format", "json", "--ca", certs.certPath], io);
  const report = JSON.parse(io.out());
  const check = (id: string) => report.checks.find((c: { id: string }) => c.id === id);
  return { code, tls: check("tls"), check };
}

describe.skipIf(!hasOpenssl())("doohctl doctor over TLS (G13)", () => {
  beforeAll(async () => {
    certs = selfSignedCertificate("doohctl-doctor-tls-");
    emulator = (await startCliAccount({ seed: seedAccount() })).emulator;
  });
  afterAll(async () => {
    for (const front of fronts.splice(0)) await front.close();
    await emulator.close();
  });

  it("reports the TLS version and a permitted cipher suite as holding", async () => {
    const { code, tls } = await doctorAt(await httpsFront());
    expect(tls).toMatchObject({ status: "holds", gap: "G13" });
    expect(tls.detail).toMatch(/^TLSv1\.[23], (TLS_AES_|TLS_CHACHA20_|ECDHE-RSA-AES)/);
    expect(code).toBe(0);
  });

  it("says it differs when the server picks a suite the specification does not permit", async () => {
    const { code, tls, check } = await doctorAt(
      await httpsFront({ maxVersion: "TLSv1.2", ciphers: "ECDHE-RSA-CHACHA20-POLY1305" }),
    );
    // The client offers only the listed suites, so its one login gets no answer: the handshake
    // differs, and nothing else can be judged.
    expect(check("session-cookie")).toMatchObject({ status: "not checked" });
    expect(check("insertion-order-list")).toMatchObject({ status: "not checked" });
    expect(check("not-found").detail).toMatch(/^no session: /);
    expect(tls).toMatchObject({ status: "differs", change: "src/api/transport.ts (TLS options), G13" });
    expect(tls.detail).toMatch(
      /^the TLS handshake failed with TLS 1\.2 or 1\.3 and the suites the specification permits \(no session: /,
    );
    expect(code).toBe(1);
  });
});
