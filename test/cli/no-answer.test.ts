/**
 * A GET that is never answered must not hold a run for minutes of silence, nor say
 * "retrying in 0s". Over real HTTP, with a short deadline: a proxy in front of
 * the emulator accepts every GET /campaigns and never answers it; an origin nobody listens
 * on refuses every connection. Plan says, for each attempt, that no answer came and which
 * attempt of how many it was, and never counts down from 0s.
 */
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { seedCampaign } from "../helpers/builders.js";
import { accountConfig, type CliAccount, MALLS_RAISED, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { type InterceptingProxy, interceptingProxy, relay } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";

let account: CliAccount;
let proxy: InterceptingProxy | undefined;

beforeEach(async () => {
  account = await startCliAccount({
    users: [USER],
    campaigns: [seedCampaign("5001", "1001", "Malls")],
    configOrders: MALLS_RAISED,
    prefix: "doohctl-no-answer-",
  });
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await account.close();
});

async function plan(origin: string) {
  writeFileSync(join(account.dir, "doohctl.yaml"), accountConfig(origin, MALLS_RAISED));
  const env = { ...account.env, DOOHCTL_SESSION_CACHE: "off", DOOHCTL_REQUEST_TIMEOUT: "0.3" };
  const io = bufferIO({ env, cwd: account.dir });
  const code = await run(["plan"], io);
  return { code, out: io.out(), err: io.err() };
}

/** A port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("a request that gets no answer", () => {
  it("a GET never answered: each attempt says no answer with its count, and the error too", async () => {
    let held = 0;
    proxy = await interceptingProxy(account.emulator.origin, {
      onRequest: (request, response, forward) => {
        if (request.method === "GET" && request.url?.includes("/campaigns?")) {
          held++; // accepted, never answered
          return;
        }
        void forward().then((answer) => relay(answer, response));
      },
    });
    const { code, err } = await plan(proxy.origin);
    expect(code).toBe(1);
    expect(held).toBe(4);
    for (let k = 1; k <= 4; k++) {
      expect(err).toContain(
        `doohctl: GET /api/dsp/v1/campaigns: no answer after 300ms (attempt ${k} of 4)\n`,
      );
    }
    expect(err).toContain(
      "GET /api/dsp/v1/campaigns: no answer after 300ms (attempt 4 of 4); the DSP is slow or unreachable: run again later (DOOHCTL_REQUEST_TIMEOUT sets how long each attempt waits)",
    );
    expect(err).not.toMatch(/in 0s/);
  }, 20_000);

  it("an origin nobody listens on: each attempt says no connection, never 'retrying in 0s'", async () => {
    const { code, err } = await plan(`http://127.0.0.1:${await closedPort()}`);
    expect(code).toBe(1);
    for (let k = 1; k <= 4; k++) {
      expect(err).toContain(`doohctl: POST /api/session: no connection (attempt ${k} of 4)\n`);
    }
    expect(err).toContain("nothing accepts connections at api_origin");
    expect(err).not.toMatch(/in 0s/);
  }, 20_000);
});
