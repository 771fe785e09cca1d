/**
 * `doohctl doctor`'s G14 checks per object kind: the members a DSP sends that the contract
 * does not name are reported as `holds`, with the list (doohctl ignores them); a member
 * doohctl depends on that is missing is `differs`. Against the emulator, richer or rewritten
 * by a proxy in front of it; the doctor logs in once either way.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { CheckResult as Check } from "../../src/cli/doctor/probe.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedAccount } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { type Answer, answeringProxy, send } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function doctorAt(origin: string) {
  const io = bufferIO({
    env: {
      DOOHCTL_API_ORIGIN: origin,
      DOOHCTL_EMAIL: USER.email,
      DOOHCTL_PASSWORD: USER.password,
      DOOHCTL_SESSION_CACHE: "off",
    },
  });
  const code = await run(["doctor", "--format", "json"], io);
  const report = JSON.parse(io.out()) as { checks: Check[] };
  return { code, check: (id: string) => report.checks.find((c) => c.id === id)! };
}

describe("doohctl doctor: the members of each object kind (G14)", () => {
  it("holds against a richer DSP, listing the members the contract does not name", async () => {
    emulator = (await startCliAccount({ seed: seedAccount(), emulator: { answers: "richer" } })).emulator;
    const { code, check } = await doctorAt(emulator.origin);
    expect(code).toBe(0);
    for (const id of ["insertion-order-members", "campaign-members", "creative-members"]) {
      expect(check(id)).toMatchObject({ status: "holds" });
      expect(check(id).detail).toMatch(/also sent, not named by the contract \(ignored, G14\): .*x_id/);
    }
    // The richer emulator leaves option sets as the contract names them.
    expect(check("targeting-members").detail).toBe("every member doohctl depends on, and no other");
    const logins = emulator.requestLog().filter((r) => r.method === "POST" && r.path === "/api/session");
    expect(logins).toHaveLength(1);
  });

  it("differs when a member doohctl depends on is missing, naming it", async () => {
    emulator = (await startCliAccount({ seed: seedAccount() })).emulator;
    const withoutActive: Answer = async (seen, response, upstream) => {
      if (seen.method !== "GET" || !/\/campaigns(\/[0-9]+)?$/.test(seen.path)) return false;
      const answer = await upstream();
      const body = JSON.parse(answer.body) as { campaigns?: Record<string, unknown>[] };
      for (const c of body.campaigns ?? []) delete c.active;
      send(response, { ...answer, body: JSON.stringify(body) });
      return true;
    };
    const proxy = await answeringProxy(emulator.origin, withoutActive);
    try {
      const { code, check } = await doctorAt(proxy.origin);
      expect(code).toBe(1);
      expect(check("campaign-members")).toMatchObject({
        status: "differs",
        detail: "missing members doohctl depends on: active",
      });
      expect(check("insertion-order-members")).toMatchObject({ status: "holds" });
    } finally {
      await proxy.close();
    }
  });

  it("with a login answered without its cookie: the cookie check differs, nothing else is probed, one login", async () => {
    emulator = (await startCliAccount({ seed: seedAccount() })).emulator;
    const noCookie: Answer = async (seen, response, upstream) => {
      if (seen.path !== "/api/session") return false;
      const answer = await upstream();
      const { "set-cookie": _dropped, ...headers } = answer.headers;
      send(response, { ...answer, headers });
      return true;
    };
    const proxy = await answeringProxy(emulator.origin, noCookie);
    try {
      const { code, check } = await doctorAt(proxy.origin);
      expect(code).toBe(1);
      expect(check("session-cookie")).toMatchObject({
        status: "differs",
        detail: "no tr-production cookie (saw no Set-Cookie)",
      });
      expect(check("insertion-order-list")).toMatchObject({ status: "not checked" });
      expect(check("insertion-order-list").detail).toMatch(/^no session: /);
      expect(proxy.log.filter((r) => r.path === "/api/session")).toHaveLength(1);
      expect(proxy.log.filter((r) => r.method === "GET")).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
