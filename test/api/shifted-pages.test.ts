/**
 * A list that shifts between two pages of one read. Page 1 starts with
 * the last item of page 0 (as when an item before it was deleted meanwhile): every page holds
 * the count `total_size` promises, yet one campaign is never seen. Read as is, the plan would
 * create that campaign a second time. A hostile proxy (test/helpers/proxy.ts) in front of the
 * emulator serves the shifted page; doohctl must stop before any write, naming the list.
 */

import { writeFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { seedCampaign } from "../helpers/builders.js";
import { accountConfig, type CliAccount, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { type InterceptingProxy, interceptingProxy, type OnRequest, relay } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";
import { dspWrites } from "../helpers/world.js";

const CAMPAIGNS = 150;
const ids = Array.from({ length: CAMPAIGNS }, (_, i) => String(5001 + i));

/** The last campaign, on page 1: the one the shifted page hides. */
const LAST = `C${CAMPAIGNS}`;
const LAST_DECLARED = [
  '  - id: "1001"',
  "    campaigns:",
  `      - name: ${LAST}`,
  "        start_time: 2026-12-01T00:00:00Z",
  "        end_time: 2027-02-01T00:00:00Z",
  "        budget_impressions: 1000",
  "        cpm: 12 USD",
];

let account: CliAccount;
let proxy: InterceptingProxy | undefined;

beforeEach(async () => {
  account = await startCliAccount({
    users: [USER],
    campaigns: ids.map((id, i) => seedCampaign(id, "1001", `C${i + 1}`, { budget_impressions: 1000 })),
    configOrders: LAST_DECLARED,
    prefix: "doohctl-shifted-",
  });
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await account.close();
});

function bodyOf(answer: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    answer.on("data", (chunk: Buffer) => chunks.push(chunk));
    answer.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

/**
 * Relays everything, but every page 1 of GET /campaigns comes shifted by one: the last
 * campaign of page 0 first, its own last campaign dropped, `total_size` untouched.
 */
function shiftingPageOne(shifted: string[], when: () => boolean = () => true): OnRequest {
  let lastOfPageZero: unknown;
  return (request, response, forward) => {
    const url = new URL(request.url ?? "/", "http://proxy");
    const page = url.searchParams.get("page");
    if (request.method !== "GET" || !url.pathname.endsWith("/campaigns") || page === null || !when()) {
      void forward().then((answer) => relay(answer, response));
      return;
    }
    void forward().then(async (answer) => {
      const body = JSON.parse(await bodyOf(answer)) as { campaigns: unknown[]; total_size: number };
      if (page === "0") lastOfPageZero = body.campaigns.at(-1);
      else if (page === "1" && lastOfPageZero !== undefined) {
        shifted.push(request.url ?? "");
        body.campaigns = [lastOfPageZero, ...body.campaigns.slice(0, -1)];
      }
      response.writeHead(answer.statusCode ?? 200, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    });
  };
}

async function doohctl(args: string[]) {
  const io = bufferIO({ env: { ...account.env, DOOHCTL_SESSION_CACHE: "off" }, cwd: account.dir });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

/**
 * The first POST /campaigns is carried out and answered 500 (its outcome unknown to the
 * client); from then on, page 1 of GET /campaigns comes shifted as above.
 */
function carriedOutThenShifted(shifted: string[], posts: () => void): OnRequest {
  let posted = false;
  const shifting = shiftingPageOne(shifted, () => posted);
  return (request, response, forward) => {
    if (request.method !== "POST" || !request.url?.endsWith("/campaigns")) {
      shifting(request, response, forward);
      return;
    }
    posts();
    void forward().then((answer) => {
      if (posted) {
        relay(answer, response);
        return;
      }
      posted = true;
      answer.resume();
      answer.on("end", () => {
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ code: 500, message: "Internal Server Error" }));
      });
    });
  };
}

describe("a list that shifts between two pages of one read", () => {
  it("plan and apply stop before any write, naming the list and the id that came twice", async () => {
    const shifted: string[] = [];
    proxy = await interceptingProxy(account.emulator.origin, { onRequest: shiftingPageOne(shifted) });
    writeFileSync(join(account.dir, "doohctl.yaml"), accountConfig(proxy.origin, LAST_DECLARED));

    const plan = await doohctl(["plan", "--format", "json"]);
    expect(plan.code).toBe(1);
    const planned = JSON.parse(plan.out) as { errors: Array<{ message: string }> };
    expect(planned.errors[0]?.message).toContain(
      "the read of campaigns (filter insertion_order_id: 1001) is incomplete: id 5100 came twice among its 150 items (total_size)",
    );

    const apply = await doohctl(["apply", "--auto-approve"]);
    expect(shifted.length).toBeGreaterThan(0);
    expect(apply.code).toBe(1);
    expect(apply.err).toContain("the read of campaigns (filter insertion_order_id: 1001) is incomplete");
    expect(apply.err).toContain("doohctl stopped before any write. Run again later");
    expect(dspWrites(account.emulator)).toEqual([]);
    expect(account.emulator.state().campaigns.filter((c) => c.name === LAST)).toHaveLength(1);
  });

  it("without the shift, the same config adopts the campaign by name: no changes", async () => {
    proxy = await interceptingProxy(account.emulator.origin);
    writeFileSync(join(account.dir, "doohctl.yaml"), accountConfig(proxy.origin, LAST_DECLARED));
    const apply = await doohctl(["apply", "--auto-approve"]);
    expect(apply.code).toBe(0);
    expect(apply.out).toContain("No changes.");
    expect(dspWrites(account.emulator)).toEqual([]);
  });

  it("the check by name after a POST /campaigns of unknown outcome is not fooled: one campaign, no second POST", async () => {
    const shifted: string[] = [];
    let posts = 0;
    proxy = await interceptingProxy(account.emulator.origin, {
      onRequest: carriedOutThenShifted(shifted, () => posts++),
    });
    const launch = LAST_DECLARED.map((line) => line.replace(LAST, "Launch"));
    writeFileSync(join(account.dir, "doohctl.yaml"), accountConfig(proxy.origin, launch));

    const apply = await doohctl(["apply", "--auto-approve"]);
    expect(shifted.length).toBeGreaterThan(0);
    expect(posts).toBe(1);
    expect(apply.code).toBe(1);
    expect(apply.err).toContain(
      "the read of campaigns (filter insertion_order_id: 1001) is incomplete: id 5100 came twice among its 151 items (total_size)",
    );
    expect(account.emulator.state().campaigns.filter((c) => c.name === "Launch")).toHaveLength(1);
  });
});
