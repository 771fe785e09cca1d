/**
 * At the client: a request the DSP accepts and never answers. Over real
 * HTTP with a 200 ms deadline: a proxy in front of the emulator holds every GET and POST of
 * /campaigns. Each attempt is announced with its deadline and its count (`sent`), answered
 * by a `response` of the same id, and the error says "no answer after 200ms (attempt k of n)";
 * a POST is an OutcomeUnknownError that says no answer came.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDspClient } from "../../src/api/client.js";
import { Endpoints } from "../../src/api/endpoints.js";
import { OutcomeUnknownError, TimeoutError } from "../../src/api/errors.js";
import type { ApiEvent, DspClient } from "../../src/api/types.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { campaignCreate, seedCampaign } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { type InterceptingProxy, interceptingProxy, relay } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";

let emulator: RunningEmulator;
let proxy: InterceptingProxy;
let client: DspClient;
const events: ApiEvent[] = [];

beforeEach(async () => {
  events.length = 0;
  emulator = (await startCliAccount({ users: [USER], campaigns: [seedCampaign("5001", "1001", "Malls")] }))
    .emulator;
  proxy = await interceptingProxy(emulator.origin, {
    onRequest: (request, response, forward) => {
      if (request.url?.startsWith("/api/dsp/v1/campaigns")) return; // accepted, never answered
      void forward().then((answer) => relay(answer, response));
    },
  });
  client = createDspClient({
    apiOrigin: proxy.origin,
    environment: "production",
    credentials: { email: USER.email, password: USER.password },
    timeouts: { requestMs: 200 },
    retry: { maxAttempts: 2 },
    random: () => 0,
  });
  client.on((event) => events.push(event));
});
afterEach(async () => {
  await client.close();
  await proxy.close();
  await emulator.close();
});

describe("a request that gets no answer", () => {
  it("a GET: each attempt announced with its deadline and count, the error names the last", async () => {
    const failure = await client.getCampaigns(["5001"]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TimeoutError);
    expect((failure as TimeoutError).message).toBe(
      "GET /api/dsp/v1/campaigns: no answer after 200ms (attempt 2 of 2); the DSP is slow or unreachable: " +
        "run again later (DOOHCTL_REQUEST_TIMEOUT sets how long each attempt waits)",
    );
    type Attempt = Extract<ApiEvent, { type: "sent" | "response" }>;
    const gets = events.filter(
      (e): e is Attempt => (e.type === "sent" || e.type === "response") && e.path === "/api/dsp/v1/campaigns",
    );
    expect(gets.map((e) => (e.type === "sent" ? `sent ${e.tries.attempt}/${e.tries.of}` : e.status))).toEqual(
      ["sent 1/2", "timeout", "sent 2/2", "timeout"],
    );
    const [first, firstAnswer] = gets;
    expect(first?.type === "sent" && first.timeoutMs).toBe(200);
    expect(first?.id).toBe(firstAnswer?.id);
  });

  it("a POST: outcome unknown, saying no answer came, never sent twice", async () => {
    const create = Endpoints.createCampaigns([campaignCreate({ name: "Launch" })]);
    const failure = await client.send(create).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OutcomeUnknownError);
    expect((failure as OutcomeUnknownError).answered).toBe(false);
    expect((failure as Error).message).toContain("outcome unknown (no answer after 200ms)");
    expect(
      events.filter((e) => e.type === "sent" && e.method === "POST" && e.path.endsWith("/campaigns")),
    ).toEqual([expect.objectContaining({ tries: { attempt: 1, of: 1 } })]);
  });
});
