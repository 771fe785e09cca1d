/**
 * Two applies of one account by one OS user on one machine, each with its own state
 * directory (docs/safety.md, Two applies at once): the apply lock lives in a per-user place
 * that does not move with DOOHCTL_STATE_DIR, so they are serialized and the second's checks
 * see what the first created. Before, the lock sat in the state directory and two pairs in
 * eighteen created one campaign twice.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedCampaign } from "../helpers/builders.js";
import { accountConfig, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { type InterceptingProxy, interceptingProxy, relay } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";

let emulator: RunningEmulator | undefined;
let proxy: InterceptingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await emulator?.close();
  proxy = undefined;
  emulator = undefined;
});

const ORDERS = [
  '  - id: "1001"',
  "    campaigns:",
  "      - name: Malls",
  "      - name: Stations",
  "        start_time: 2026-12-01T00:00:00Z",
  "        end_time: 2027-02-01T00:00:00Z",
  "        budget_impressions: 50000",
  "        cpm: 10.00 USD",
  "        pacing: { strategy: even }",
  "        active: false",
];

const WAITING = "waiting for another apply";

describe("two applies with two state directories", () => {
  it("are serialized: the new campaign is created once", async () => {
    const account = await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5001", "1001", "Malls")],
      configOrders: ORDERS,
      prefix: "doohctl-lock-dirs-",
    });
    emulator = account.emulator;
    // The first write (made under the lock) is held until the other apply says it waits, or
    // ends: the two overlap however the machine schedules them, and an apply that did not wait
    // for the lock would create the campaign a second time.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = false;
    proxy = await interceptingProxy(emulator.origin, {
      onRequest: (request, response, forward) => {
        const write = request.method !== "GET" && !request.url?.endsWith("/session");
        const first = write && !held;
        if (first) held = true;
        void (first ? released : Promise.resolve())
          .then(() => forward())
          .then((answer) => relay(answer, response));
      },
    });
    writeFileSync(join(account.dir, "doohctl.yaml"), accountConfig(proxy.origin, ORDERS));
    const apply = async (state: string) => {
      const base = bufferIO({
        env: { ...account.env, DOOHCTL_STATE_DIR: join(account.dir, state) },
        cwd: account.dir,
      });
      const io = {
        ...base,
        stderr: {
          isTTY: false,
          write: (text: string) => {
            base.stderr.write(text);
            if (text.includes(WAITING)) release();
          },
        },
      };
      const code = await run(["apply", "--auto-approve", "--no-session-cache"], io).finally(release);
      return { code, err: base.err() };
    };
    const results = await Promise.all([apply("state-a"), apply("state-b")]);
    expect(held, "a write was made").toBe(true);
    const stations = emulator.state().campaigns.filter((c) => c.name === "Stations");
    expect(stations, results.map((r) => r.err).join("\n---\n")).toHaveLength(1);
    // The first created it; the second waited and found it there.
    expect(results.some((r) => r.code === 0)).toBe(true);
    expect(results.some((r) => r.err.includes(WAITING))).toBe(true);
  });
});
