/**
 * The client trusts nothing it reads: a DSP answer that breaks the contract (a missing
 * `total_size`, a wrong shape or type, pages that disagree with `total_size`, a login answer
 * without its fields), that is larger than the cap, or that trickles past the whole-request
 * deadline makes `doohctl plan` and `doohctl apply` exit 1 with a message naming the
 * endpoint, the field and what was expected, and no write is ever sent. Over real HTTP: a
 * node:http proxy in front of the emulator, with small configured limits.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_DEFAULTS } from "../../src/api/defaults.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedCampaign } from "../helpers/builders.js";
import { accountConfig, loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { type Answer, answeringProxy, type Seen, send, type Upstream } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";

let emulator: RunningEmulator;
let dir: string;

beforeAll(async () => {
  emulator = (await startCliAccount({ users: [USER], campaigns: [seedCampaign("5001", "1001", "Malls")] }))
    .emulator;
  dir = mkdtempSync(join(tmpdir(), "doohctl-trust-"));
});
afterAll(() => emulator.close());

/** A config whose plan writes: a contract number, a budget and a targeting. */
function config(origin: string): string {
  return accountConfig(origin, [
    '  - id: "1001"',
    "    contract_number: PO-42",
    "    campaigns:",
    "      - name: Malls",
    "        budget_impressions: 150000",
    "        targetings:",
    '          - venue_type_targeting_option: { venue_type_ids: ["12"] }',
  ]);
}

/** The emulator's answer to `when` requests, changed by `change`. */
function rewrite(when: (seen: Seen) => boolean, change: (body: Record<string, unknown>) => unknown): Answer {
  return async (seen, response, upstream) => {
    if (!when(seen)) return false;
    const answer: Upstream = await upstream();
    send(response, { ...answer, body: JSON.stringify(change(JSON.parse(answer.body))) });
    return true;
  };
}

const get = (suffix: string) => (seen: Seen) => seen.method === "GET" && seen.path.endsWith(suffix);

/** Runs plan and apply through a proxy answering with `answer`; neither may write. */
async function both(answer: Answer, env: Record<string, string> = {}) {
  const proxy = await answeringProxy(emulator.origin, answer);
  try {
    writeFileSync(join(dir, "doohctl.yaml"), config(proxy.origin));
    const outputs: string[] = [];
    for (const args of [["plan"], ["apply", "--auto-approve", "--format", "json"]]) {
      const io = bufferIO({
        env: { ...loginEnv(USER, dir), DOOHCTL_SESSION_CACHE: "off", ...env },
        cwd: dir,
      });
      const code = await run(args, io);
      expect(code, `${args.join(" ")}: ${io.err()}${io.out()}`).toBe(1);
      outputs.push(`${io.err()}\n${io.out()}`);
    }
    expect(proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([]);
    return outputs;
  } finally {
    await proxy.close();
  }
}

describe("answers that break the contract stop plan and apply before any write", () => {
  it("passes the emulator's own answers: the same config plans and applies through the proxy", async () => {
    const proxy = await answeringProxy(emulator.origin, async () => false);
    try {
      writeFileSync(join(dir, "doohctl.yaml"), config(proxy.origin));
      const io = bufferIO({ env: { ...loginEnv(USER, dir), DOOHCTL_SESSION_CACHE: "off" }, cwd: dir });
      expect(await run(["plan", "--detailed-exitcode"], io), io.err()).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it("a list without total_size", async () => {
    const outputs = await both(rewrite(get("/insertion_orders"), ({ total_size: _, ...rest }) => rest));
    for (const text of outputs) {
      expect(text).toContain("GET /api/dsp/v1/insertion_orders");
      expect(text).toContain("at /total_size: a required member, missing");
      expect(text).toContain("schemas/dsp-api.openapi.json");
    }
  });

  it('targetings of the wrong shape: {"option_sets": []} is not "no targetings"', async () => {
    const outputs = await both(rewrite(get("/targetings"), () => ({ option_sets: [] })));
    for (const text of outputs) {
      expect(text).toContain("GET /api/dsp/v1/campaigns/5001/targetings");
      expect(text).toContain("at /targetings: a required member, missing");
      // G14: a member the contract does not name is ignored, never an error of its own.
      expect(text).not.toContain("at /option_sets");
    }
  });

  it("a field of the wrong type", async () => {
    const outputs = await both(
      rewrite(get("/campaigns"), (body) => {
        const campaigns = body.campaigns as Array<Record<string, unknown>>;
        return { ...body, campaigns: campaigns.map((c) => ({ ...c, budget_impressions: "100000" })) };
      }),
    );
    for (const text of outputs) expect(text).toContain("at /campaigns/0/budget_impressions: must be integer");
  });

  it("a page shorter than total_size says it is", async () => {
    const outputs = await both(rewrite(get("/campaigns"), (body) => ({ ...body, total_size: 150 })));
    for (const text of outputs) {
      expect(text).toContain("GET /api/dsp/v1/campaigns");
      expect(text).toContain(
        "at /campaigns: 100 items on page 0 of 100 per page, as total_size 150 says; got 1",
      );
    }
  });

  it("more items than total_size", async () => {
    const outputs = await both(rewrite(get("/campaigns"), (body) => ({ ...body, total_size: 0 })));
    for (const text of outputs) expect(text).toContain("0 items on page 0");
  });

  it("a login answer whose G9 fields are of the wrong type", async () => {
    const outputs = await both(
      rewrite(
        (seen) => seen.path === "/api/session",
        (body) => ({ ...body, account_id: 5 }),
      ),
    );
    for (const text of outputs) {
      expect(text).toContain("POST /api/session");
      expect(text).toContain("at /account_id: must be string");
    }
  });

  it("an answer larger than the cap (DOOHCTL_MAX_RESPONSE_BYTES), read only up to the cap", async () => {
    const outputs = await both(
      async (seen, response) => {
        if (!get("/campaigns")(seen)) return false;
        // Chunked, no Content-Length: the client must count as it reads.
        response.writeHead(200, { "content-type": "application/json" });
        response.write('{"campaigns": [');
        const chunk = `${'{"id": "1"},'.repeat(1000)}`;
        for (let i = 0; i < 200 && !response.destroyed; i++) response.write(chunk);
        response.end('{"id": "2"}], "total_size": 1}');
        return true;
      },
      { DOOHCTL_MAX_RESPONSE_BYTES: "65536" },
    );
    for (const text of outputs) {
      expect(text).toContain("GET /api/dsp/v1/campaigns: the DSP's answer is larger than 65536 bytes");
      expect(text).toContain("DOOHCTL_MAX_RESPONSE_BYTES");
    }
  });

  it("an answer one byte over the default cap of 16 MiB, with no DOOHCTL_MAX_RESPONSE_BYTES", async () => {
    expect(CLIENT_DEFAULTS.maxResponseBytes).toBe(16 * 1024 * 1024);
    const outputs = await both(async (seen, response) => {
      if (!get("/campaigns")(seen)) return false;
      response.writeHead(200, { "content-type": "application/json" });
      const chunk = " ".repeat(1024 * 1024);
      for (let i = 0; i < 16 && !response.destroyed; i++) response.write(chunk);
      response.end("{}"); // 16 MiB + 2 bytes
      return true;
    });
    for (const text of outputs) {
      expect(text).toContain("GET /api/dsp/v1/campaigns: the DSP's answer is larger than 16777216 bytes");
    }
  });

  it("an answer that declares a Content-Length over the cap", async () => {
    const outputs = await both(
      async (seen, response) => {
        if (!get("/insertion_orders")(seen)) return false;
        const body = JSON.stringify({ insertion_orders: [], total_size: 0, pad: "x".repeat(100_000) });
        send(response, { status: 200, headers: { "content-type": "application/json" }, body });
        return true;
      },
      { DOOHCTL_MAX_RESPONSE_BYTES: "65536" },
    );
    for (const text of outputs) expect(text).toContain("larger than 65536 bytes");
  });

  it("an answer trickled a byte at a time past the whole-request deadline (DOOHCTL_REQUEST_TIMEOUT)", async () => {
    const outputs = await both(
      async (seen, response) => {
        if (!get("/insertion_orders")(seen)) return false;
        response.writeHead(200, { "content-type": "application/json" });
        // Never silent for long: a byte every 20 ms, which a silence timeout would not catch.
        const timer = setInterval(() => response.write(" "), 20);
        response.on("close", () => clearInterval(timer));
        return true;
      },
      { DOOHCTL_REQUEST_TIMEOUT: "0.2" },
    );
    for (const text of outputs) {
      expect(text).toContain(
        "GET /api/dsp/v1/insertion_orders: timed out (the answer was still arriving after 200 ms",
      );
    }
  }, 20_000);
});

describe("client limits from the environment", () => {
  it.each([
    ["DOOHCTL_REQUEST_TIMEOUT", "soon", "is not a number of seconds above 0"],
    ["DOOHCTL_MAX_RESPONSE_BYTES", "64MiB", "is not a whole number of bytes above 0"],
  ])("%s=%s is refused, saying how to write it", async (name, value, message) => {
    writeFileSync(join(dir, "doohctl.yaml"), config(emulator.origin));
    const io = bufferIO({ env: { ...loginEnv(USER, dir), [name]: value }, cwd: dir });
    expect(await run(["plan"], io)).toBe(1);
    expect(io.err()).toContain(`${name}="${value}" ${message}`);
  });
});
