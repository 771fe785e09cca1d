/**
 * The write guard looks last (src/apply/guard.ts, docs/apply.md "Edits by others during an
 * apply"): its read comes once the write holds its slot of the write window, after every
 * pacing wait and retry backoff, so a campaign activated during the wait is seen. Over real
 * HTTP against the emulator, with a write window of 1 per 15 s on both sides, on a virtual
 * clock moved by hand: the colleague's edit lands while the apply waits, then time moves on.
 */
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import type { ApiEvent, DspClient } from "../../src/api/types.js";
import { applyPlan } from "../../src/apply/execute.js";
import { VirtualClock } from "../../src/model/clock.js";
import { PUBLISHED_RATE_LIMITS, type RateLimits } from "../../src/model/limits.js";
import { Money } from "../../src/model/money.js";
import { Targeting } from "../../src/model/targeting.js";
import { renderApplyReport } from "../../src/render/report.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  PUBLISHERS,
  seedCampaign,
  seedIo,
  VENUES_A,
  VENUES_B,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { type OnRequest, readBody, relay } from "../helpers/proxy.js";
import { COLLEAGUE, USER } from "../helpers/users.js";
import { colleagueClient, dspWrites, type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

const WINDOW_MS = 15_000;
const ONE_WRITE_PER_15_S: RateLimits = { ...PUBLISHED_RATE_LIMITS, write: { limit: 1, windowMs: WINDOW_MS } };

let worlds: EmulatorWorld[] = [];
let colleague: DspClient | undefined;
afterEach(async () => {
  await colleague?.close();
  for (const w of worlds.reverse()) await w.close();
  colleague = undefined;
  worlds = [];
});

/** The seed's users: the apply's, and a colleague with rate windows of their own (G10: per user). */
const USERS = [USER, COLLEAGUE];

/**
 * The emulator and the apply's client, both with one write per 15 s, and the colleague's
 * client. With `onRequest`, the apply's client reaches the emulator through a proxy it drives.
 */
async function world(
  seed: Parameters<typeof emulatorWorld>[0]["seed"],
  { clock, onRequest }: { clock?: VirtualClock; onRequest?: OnRequest } = {},
) {
  let w = await emulatorWorld({
    seed: { users: USERS, ...seed },
    ...(clock ? { clock } : {}),
    emulator: { rateLimits: ONE_WRITE_PER_15_S },
    client: { rateLimits: ONE_WRITE_PER_15_S },
  });
  if (onRequest) {
    await w.client.close();
    w = await w.behind(onRequest);
  }
  worlds.push(w);
  colleague = colleagueClient(w.emulator.origin, COLLEAGUE, w.clock);
  return w;
}

/**
 * Answers the first `method` request to `path` 503, once `meanwhile` is done: carried out by
 * the DSP first when `landed` (the write happened, its answer is lost), else never forwarded.
 */
function first503(
  method: string,
  path: string,
  { landed, meanwhile }: { landed: boolean; meanwhile: () => Promise<unknown> },
): OnRequest & { seen: () => number } {
  let seen = 0;
  const onRequest: OnRequest = (request, response, forward) => {
    void readBody(request).then(async (body) => {
      if (request.method !== method || request.url?.split("?")[0] !== path) {
        relay(await forward(body), response);
        return;
      }
      if (++seen > 1) {
        relay(await forward(body), response);
        return;
      }
      if (landed) (await forward(body)).resume();
      await meanwhile();
      unavailable(response);
    });
  };
  return Object.assign(onRequest, { seen: () => seen });
}

function unavailable(response: ServerResponse): void {
  response.writeHead(503, { "content-type": "application/json" });
  response.end(JSON.stringify({ message: "Service Unavailable" }));
}

/** The first wait of the write window the apply's client announces. */
function firstWriteSlotWait(w: EmulatorWorld): Promise<Extract<ApiEvent, { type: "wait" }>> {
  return new Promise((resolve) => {
    const off = w.client.on((event) => {
      if (event.type === "wait" && event.class === "write" && event.reason === "rate-limit") {
        off();
        resolve(event);
      }
    });
  });
}

const activate = (id: string) => colleague!.send(Endpoints.patchCampaigns([{ id, active: true }]));

describe("a campaign activated while a targeting PUT waits for its write slot", () => {
  it("stops the apply with APPLY_CONCURRENT_CHANGE and sends no PUT, saying what was applied and what not", async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const w = await world(
      {
        insertion_orders: [seedIo("1001")],
        campaigns: [
          seedCampaign("5001", "1001", "Malls"),
          seedCampaign("5003", "1001", "Stations"),
          seedCampaign("5004", "1001", "Airports"),
        ],
        targetings: { "5003": [VENUES_A, PUBLISHERS], "5004": [VENUES_A, PUBLISHERS] },
      },
      { clock },
    );
    // A budget PATCH takes the window; the PUTs that remove an option set of an inactive
    // campaign (no pause needed) must wait 15 s for their slot.
    const plan = await w.plan(
      desiredState([
        desiredIo("1001", {
          campaigns: [
            desiredCampaign("Malls", { fields: { budget_impressions: 150_000 }, line: "next" }),
            desiredCampaign("Stations", { targetings: [VENUES_A], line: "next" }),
            desiredCampaign("Airports", { targetings: [VENUES_A], line: "next" }),
          ],
          line: "next",
        }),
      ]),
    );
    expect(plan.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "PATCH /api/dsp/v1/campaigns",
      "PUT /api/dsp/v1/campaigns/5003/targetings",
      "PUT /api/dsp/v1/campaigns/5004/targetings",
    ]);
    const waiting = firstWriteSlotWait(w);
    const applying = applyPlan({ plan, client: w.client, clock });
    const wait = await waiting;
    expect(wait.waitMs).toBeGreaterThanOrEqual(WINDOW_MS);
    await activate("5003");
    clock.advance(wait.waitMs);
    const result = await applying;

    expect(result.status).toBe("failed");
    expect(result.failure?.code).toBe("APPLY_CONCURRENT_CHANGE");
    expect(result.failure?.request).toMatchObject({ seq: 2, path: "/api/dsp/v1/campaigns/5003/targetings" });
    expect(result.failure?.message).toContain('campaign 5003 "Stations" is active now');
    expect(result.applied.map((r) => r.seq)).toEqual([1]);
    expect(result.not_sent.map((r) => r.seq)).toEqual([3]);
    const report = renderApplyReport(result);
    expect(report).toContain("Applied as sent (1)");
    expect(report).toContain("Not sent (1)");
    // No PUT reached the DSP, not even one it refused.
    expect(dspWrites(w.emulator).filter((e) => e.method === "PUT")).toEqual([]);
    // The guard's read of 5003 came after the colleague's activation.
    const log = w.emulator.requestLog();
    const activation = log.findIndex((e) => e.method === "PATCH" && e.user === COLLEAGUE.email);
    const guardRead = log.findLastIndex((e) => e.method === "GET" && e.query.includes("5003"));
    expect(activation).toBeGreaterThan(-1);
    expect(guardRead).toBeGreaterThan(activation);
    const state = w.emulator.state();
    expect(state.campaigns.find((c) => c.id === "5003")?.active).toBe(true);
    expect(
      Targeting.listEquals(
        Targeting.normalizeList(state.targetings["5003"] ?? []),
        Targeting.normalizeList([VENUES_A, PUBLISHERS]),
      ),
    ).toBe(true);
  });
});

const CAMPAIGNS = "/api/dsp/v1/campaigns";
const PUT_5003 = "/api/dsp/v1/campaigns/5003/targetings";

/** What `user` wrote, in order, as the DSP logged it. */
const writesBy = (w: EmulatorWorld, user: string) => dspWrites(w.emulator).filter((e) => e.user === user);

/** Inactive 5003 "Stations" with two option sets, and the plan that removes its publishers (a PUT). */
async function stationsLosingPublishers(proxy: ReturnType<typeof first503>) {
  const w = await world(
    {
      insertion_orders: [seedIo("1001")],
      campaigns: [seedCampaign("5003", "1001", "Stations")],
      targetings: { "5003": [VENUES_A, PUBLISHERS] },
    },
    { onRequest: proxy },
  );
  const plan = await w.plan(
    desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Stations", { targetings: [VENUES_A], line: "next" })],
        line: "next",
      }),
    ]),
  );
  return { w, plan };
}

/** 5001 "Malls" and the plan that raises its budget to 150,000 (a PATCH). */
async function mallsBudgetRaised(proxy: ReturnType<typeof first503>) {
  const w = await world(
    { insertion_orders: [seedIo("1001")], campaigns: [seedCampaign("5001", "1001", "Malls")] },
    { onRequest: proxy },
  );
  const plan = await w.plan(
    desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Malls", { fields: { budget_impressions: 150_000 }, line: "next" })],
        line: "next",
      }),
    ]),
  );
  return { w, plan };
}

describe("a write retried after a 5xx", () => {
  it("looks again after the backoff: a campaign activated meanwhile gets no PUT", async () => {
    const proxy = first503("PUT", PUT_5003, { landed: false, meanwhile: () => activate("5003") });
    const { w, plan } = await stationsLosingPublishers(proxy);
    const result = await applyPlan({ plan, client: w.client, clock: w.clock });

    expect(proxy.seen()).toBe(1);
    expect(w.events.some((e) => e.type === "wait" && e.class === "write" && e.reason === "backoff")).toBe(
      true,
    );
    expect(result.failure?.code).toBe("APPLY_CONCURRENT_CHANGE");
    expect(result.failure?.message).toContain('campaign 5003 "Stations" is active now');
    expect(result.applied).toEqual([]);
    expect(dspWrites(w.emulator).filter((e) => e.method === "PUT")).toEqual([]);
  });

  it("takes a write its lost answer hid as written by it, and sends it again", async () => {
    const proxy = first503("PATCH", CAMPAIGNS, { landed: true, meanwhile: async () => {} });
    const { w, plan } = await mallsBudgetRaised(proxy);
    const result = await applyPlan({ plan, client: w.client, clock: w.clock });

    expect(result.status).toBe("applied");
    expect(result.applied[0]?.attempts).toBe(2);
    expect(writesBy(w, USER.email).map((e) => e.status)).toEqual([200, 200]);
    expect(w.emulator.state().campaigns[0]?.budget_impressions).toBe(150_000);
  });

  it("takes a targeting PUT its lost answer hid as written by it, and sends it again", async () => {
    const proxy = first503("PUT", PUT_5003, { landed: true, meanwhile: async () => {} });
    const { w, plan } = await stationsLosingPublishers(proxy);
    const result = await applyPlan({ plan, client: w.client, clock: w.clock });

    expect(result.status).toBe("applied");
    expect(writesBy(w, USER.email).map((e) => `${e.method} ${e.status}`)).toEqual(["PUT 200", "PUT 200"]);
  });

  it("still stops on another's edit of a member it does not write, though its own write landed", async () => {
    const proxy = first503("PATCH", CAMPAIGNS, {
      landed: true,
      meanwhile: () => colleague!.send(Endpoints.patchCampaigns([{ id: "5001", cpm: usd("14") }])),
    });
    const { w, plan } = await mallsBudgetRaised(proxy);
    const result = await applyPlan({ plan, client: w.client, clock: w.clock });

    expect(result.failure?.code).toBe("APPLY_CONCURRENT_CHANGE");
    expect(result.failure?.message).toMatch(/campaign 5001: cpm .*12.* -> .*14/);
    expect(result.failure?.message).not.toContain("budget_impressions");
    expect(writesBy(w, USER.email)).toHaveLength(1);
    expect(Money.format(w.emulator.state().campaigns[0]!.cpm)).toBe(Money.format(usd("14")));
  });
});

describe("the reactivation after a stop", () => {
  it("reads its campaigns after its wait for a write slot and reactivates only those still inactive", async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const w = await world(
      {
        insertion_orders: [seedIo("1001")],
        campaigns: [
          seedCampaign("5001", "1001", "Malls", { active: true }),
          seedCampaign("5002", "1001", "Stations", { active: true }),
        ],
        targetings: { "5001": [VENUES_A], "5002": [VENUES_A] },
      },
      { clock },
    );
    const plan = await w.plan(
      desiredState([
        desiredIo("1001", {
          campaigns: [
            desiredCampaign("Malls", { targetings: [VENUES_B], line: "next" }),
            desiredCampaign("Stations", { targetings: [VENUES_B], line: "next" }),
          ],
          line: "next",
        }),
      ]),
    );
    expect(plan.requests[0]).toMatchObject({ method: "PATCH", path: CAMPAIGNS, items: 2 });
    // Stopped once the pause landed: the reactivation waits 15 s for the slot the pause took.
    const controller = new AbortController();
    const waiting = firstWriteSlotWait(w);
    const applying = applyPlan({
      plan,
      client: w.client,
      clock,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "applied" && event.record.seq === 1) controller.abort(new Error("SIGINT"));
      },
    });
    const wait = await waiting;
    await activate("5001");
    clock.advance(wait.waitMs);
    const result = await applying;

    expect(result.status).toBe("interrupted");
    expect(result.restored).toEqual(["5001", "5002"]);
    const ours = writesBy(w, USER.email);
    expect(ours.map((e) => e.body)).toEqual([
      {
        campaigns: [
          { id: "5001", active: false },
          { id: "5002", active: false },
        ],
      },
      { campaigns: [{ id: "5002", active: true }] },
    ]);
    expect(w.emulator.state().campaigns.every((c) => c.active)).toBe(true);
  });
});
