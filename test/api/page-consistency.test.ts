/**
 * Pages of one read must agree with `total_size` (spec, List envelope): a later page that
 * says another total, or holds fewer items than the total promises, is a ContractError, not
 * a shorter list. Over real HTTP: a proxy in front of the emulator rewrites page 1.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDspClient } from "../../src/api/client.js";
import { ContractError } from "../../src/api/errors.js";
import type { DspClient } from "../../src/api/types.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import { seedWithCampaigns } from "../helpers/builders.js";
import { answeringProxy, type FakeDsp, send } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

let world: EmulatorWorld;
let emulator: RunningEmulator;
let proxy: FakeDsp;
let client: DspClient;

afterEach(async () => {
  await client.close();
  await proxy.close();
  await world.close();
});

async function withPageOne(change: (body: { campaigns: unknown[]; total_size: number }) => unknown) {
  const clock = new VirtualClock({ autoAdvance: true });
  world = await emulatorWorld({
    seed: seedWithCampaigns(150) as never,
    clock,
    emulator: { rateLimits: "off" },
  });
  emulator = world.emulator;
  proxy = await answeringProxy(emulator.origin, async (seen, response, upstream) => {
    if (seen.method !== "GET" || seen.query.get("page") !== "1") return false;
    const answer = await upstream();
    send(response, { ...answer, body: JSON.stringify(change(JSON.parse(answer.body))) });
    return true;
  });
  client = createDspClient({
    apiOrigin: proxy.origin,
    environment: "production",
    credentials: { email: USER.email, password: USER.password },
    clock,
  });
}

describe("pages that disagree with total_size", () => {
  it("reads 150 campaigns in two pages when the pages agree", async () => {
    await withPageOne((body) => body);
    expect(await client.listCampaignsByInsertionOrder(["1001"])).toHaveLength(150);
  });

  it("refuses a second page that says another total_size", async () => {
    await withPageOne((body) => ({ ...body, total_size: 151 }));
    const error = await client.listCampaignsByInsertionOrder(["1001"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).issues).toEqual([
      {
        at: "/total_size",
        expected:
          "150, as page 0 of this read said (page 1 says 151): the list changed while it was read; run again",
      },
    ]);
  });

  it("refuses a last page shorter than total_size promises", async () => {
    await withPageOne((body) => ({ ...body, campaigns: body.campaigns.slice(1) }));
    const error = await client.listCampaignsByInsertionOrder(["1001"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).message).toContain(
      "GET /api/dsp/v1/campaigns: the DSP's answer does not match the contract (schemas/dsp-api.openapi.json): at /campaigns: 50 items on page 1 of 100 per page, as total_size 150 says; got 49",
    );
  });
});
