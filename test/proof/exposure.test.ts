/**
 * The emulator's exposure: it binds loopback unless told otherwise, and its control
 * path (state dump, reset, clock, faults) does not exist unless enabled: both in-process and
 * as `doohctl emulator`.
 */
import { describe, expect, it } from "vitest";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { ADVERTISER, seedIo } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { USER } from "../helpers/users.js";
import { ensureBuilt, spawnCli } from "./binary.js";

const SEED = { users: [USER], advertisers: [ADVERTISER], insertion_orders: [seedIo("1001")] };

async function control(origin: string) {
  const state = await fetch(`${origin}/__emulator/state`);
  const reset = await fetch(`${origin}/__emulator/reset`, { method: "POST", body: "{}" });
  const faults = await fetch(`${origin}/__emulator/faults`, {
    method: "POST",
    body: JSON.stringify({ spec: "500:1" }),
  });
  return [state.status, reset.status, faults.status];
}

describe("the emulator's exposure", () => {
  it("binds 127.0.0.1 by default", async () => {
    const emulator = (
      await startCliAccount({ systemTime: true, seed: SEED, emulator: { rateLimits: PUBLISHED_RATE_LIMITS } })
    ).emulator;
    try {
      expect(new URL(emulator.origin).hostname).toBe("127.0.0.1");
    } finally {
      await emulator.close();
    }
  });

  it("answers 404 on every control route unless control is enabled, and changes nothing", async () => {
    const emulator = (
      await startCliAccount({ systemTime: true, seed: SEED, emulator: { rateLimits: PUBLISHED_RATE_LIMITS } })
    ).emulator;
    try {
      const before = JSON.stringify(emulator.state());
      expect(await control(emulator.origin)).toEqual([404, 404, 404]);
      expect(JSON.stringify(emulator.state())).toBe(before);
      // The faults route was not obeyed: a DSP request still reaches its handler.
      expect((await fetch(`${emulator.origin}/api/dsp/v1/campaigns`)).status).toBe(401);
    } finally {
      await emulator.close();
    }
  });

  it("serves the control routes once enabled", async () => {
    const emulator = (
      await startCliAccount({
        systemTime: true,
        seed: SEED,
        emulator: { rateLimits: PUBLISHED_RATE_LIMITS, control: true },
      })
    ).emulator;
    try {
      expect(await control(emulator.origin)).toEqual([200, 200, 200]);
    } finally {
      await emulator.close();
    }
  });

  it("`doohctl emulator` listens on loopback with no control path by default", {
    timeout: 200_000,
  }, async () => {
    ensureBuilt();
    const child = spawnCli(["emulator", "--port", "0"], { cwd: process.cwd(), env: {} });
    try {
      const origin = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${child.stderr()}`)), 15_000);
        child.process.stderr?.on("data", () => {
          const match = /listening on (http:\/\/\S+)/.exec(child.stderr());
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
      });
      expect(new URL(origin).hostname).toBe("127.0.0.1");
      expect(child.stderr()).not.toContain("control path");
      expect((await fetch(`${origin}/__emulator/state`)).status).toBe(404);
    } finally {
      child.process.kill("SIGTERM");
      await child.exited;
    }
  });
});
