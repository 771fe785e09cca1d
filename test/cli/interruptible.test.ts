/**
 * Ctrl-C during plan or status (src/cli/interruptible.ts): they only read, so they stop at once,
 * and with --format json stdout still holds one JSON document, `INTERRUPTED`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedCampaign } from "../helpers/builders.js";
import { accountConfig, MALLS_RAISED, startCliAccount } from "../helpers/cli-account.js";
import { interruptibleIO } from "../helpers/io.js";
import { type InterceptingProxy, interceptingProxy, relay } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";

let emulator: RunningEmulator;
let dir: string;
let env: Record<string, string>;
let proxy: InterceptingProxy;
/** Ctrl-C, pressed by the proxy when the first read of the DSP's objects arrives. */
let press: () => void;

beforeEach(async () => {
  ({ emulator, dir, env } = await startCliAccount({
    users: [USER],
    campaigns: [seedCampaign("5001", "1001", "Malls")],
    configOrders: MALLS_RAISED,
    prefix: "doohctl-interruptible-",
  }));
  let pressed = false;
  proxy = await interceptingProxy(emulator.origin, {
    onRequest: (request, response, forward) => {
      if (!pressed && request.method === "GET" && request.url?.startsWith("/api/dsp/")) {
        pressed = true;
        press();
      }
      void forward().then((answer) => relay(answer, response));
    },
  });
  writeFileSync(join(dir, "doohctl.yaml"), accountConfig(proxy.origin, MALLS_RAISED));
});
afterEach(async () => {
  await proxy.close();
  await emulator.close();
});

function whileReading() {
  const { io, interrupt } = interruptibleIO({ env, cwd: dir });
  press = () => interrupt("SIGINT");
  return { io };
}

describe("Ctrl-C during a read-only command", () => {
  for (const command of ["plan", "status"]) {
    it(`${command} --format json prints an INTERRUPTED errors document and exits 130`, async () => {
      const { io } = whileReading();
      const code = await run([command, "--format", "json", "--no-session-cache"], io);
      expect(code).toBe(130);
      expect(JSON.parse(io.out())).toEqual({
        errors: [
          { code: "INTERRUPTED", message: expect.stringMatching(/interrupted by SIGINT/), location: null },
        ],
      });
      expect(emulator.requestLog().filter((r) => r.method !== "GET" && r.path !== "/api/session")).toEqual(
        [],
      );
    });
  }

  it("plan in text says so on stderr, prints no plan, and exits 130", async () => {
    const { io } = whileReading();
    expect(await run(["plan", "--no-session-cache"], io)).toBe(130);
    expect(io.out()).toBe("");
    expect(io.err()).toMatch(/doohctl plan: interrupted by SIGINT/);
  });
});
