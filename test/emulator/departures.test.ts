/**
 * Rehearsing a DSP that departs from the contract (docs/emulator.md, src/emulator/departures.ts):
 * members dropped on write, a create answered in another shape, unknown query parameters
 * ignored rather than refused (G16). Raw HTTP, so the answers are seen as a DSP sends them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { dialectOf } from "../helpers/dialects.js";
import { interruptibleIO } from "../helpers/io.js";
import { boot, DSP, fields, login, NEW_CAMPAIGN, request, type Session } from "./helpers.js";

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe("--drop-on-write", () => {
  it("answers 200 with the value as it was: the member sent is dropped, the rest taken", async () => {
    session = await boot({ departures: { dropOnWrite: ["budget_impressions"] } });
    const patched = await session.call("PATCH", `${DSP}/campaigns`, {
      campaigns: [{ id: "5001", budget_impressions: 400_000, active: false }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.campaigns[0]).toMatchObject({
      id: "5001",
      budget_impressions: 300_000,
      active: false,
    });
    // The request log keeps the body as it was sent.
    const logged = session.emulator.requestLog().find((e) => e.method === "PATCH");
    expect(logged?.body).toEqual({ campaigns: [{ id: "5001", budget_impressions: 400_000, active: false }] });
    // A single object's body too.
    const one = await session.call("PATCH", `${DSP}/campaigns/5001`, { budget_impressions: 1 });
    expect(one.body.budget_impressions).toBe(300_000);
  });

  it("drops a member under the name the dialect sends it: the contract number as po-number", async () => {
    session = await boot({
      dialect: dialectOf({ contract_number: "po-number" }),
      departures: { dropOnWrite: ["po-number"] },
    });
    const patched = await session.call("PATCH", `${DSP}/insertion_orders`, {
      insertion_orders: [{ id: "1001", "po-number": "PO-2", budget_impressions: 900_000 }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.insertion_orders[0]).toMatchObject({
      "po-number": "PO-1",
      budget_impressions: 900_000,
    });
  });
});

describe("--create-answer", () => {
  it("member (the default) answers under the dialect's member; campaigns under campaigns; ids with ids only", async () => {
    const items = dialectOf({ create_campaigns_member: "new-campaigns" });
    for (const [shape, member] of [
      ["member", "new-campaigns"],
      ["campaigns", "campaigns"],
    ] as const) {
      session = await boot({ dialect: items, departures: { createAnswer: shape } });
      const created = await session.call("POST", `${DSP}/campaigns`, { "new-campaigns": [NEW_CAMPAIGN] });
      expect(created.status).toBe(200);
      expect(Object.keys(created.body)).toEqual([member]);
      expect(created.body[member][0]).toMatchObject({ name: "Harbour", active: false });
      await session.close();
    }
    session = await boot({ departures: { createAnswer: "ids" } });
    const created = await session.call("POST", `${DSP}/campaigns`, { campaigns: [NEW_CAMPAIGN] });
    expect(created.status).toBe(200);
    const id = session.emulator.state().campaigns.find((c) => c.name === "Harbour")?.id;
    expect(created.body).toEqual({ ids: [id] });
    // A refusal is answered as it is.
    const refused = await session.call("POST", `${DSP}/campaigns`, { campaigns: [{ name: "x" }] });
    expect(refused.status).toBe(422);
  });
});

describe("--unknown-parameters (G16)", () => {
  it("refuse (the default): a parameter the operation does not name is a 422 naming it", async () => {
    session = await boot();
    const read = await session.get(`${DSP}/campaigns/5001?with_progress=true`);
    expect(read.status).toBe(422);
    expect(fields(read)).toEqual({ with_progress: ["is not a known parameter"] });
    const list = await session.get(`${DSP}/campaigns?expand=progress`);
    expect(fields(list)).toEqual({ expand: ["is not a known parameter"] });
  });

  it("ignore: answered as if it was not sent; a known parameter's bad value is still refused", async () => {
    session = await boot({ departures: { unknownParameters: "ignore" } });
    const read = await session.get(`${DSP}/campaigns/5001?with_progress=true`);
    expect(read.status).toBe(200);
    expect(read.body.progress).toBeUndefined();
    const list = await session.get(`${DSP}/campaigns?expand=progress&page_size=1`);
    expect(list.status).toBe(200);
    expect(list.body.campaigns).toHaveLength(1);
    expect((await session.get(`${DSP}/campaigns?page=101`)).status).toBe(422);
    const write = await session.call("PATCH", `${DSP}/campaigns?dry_run=true`, {
      campaigns: [{ id: "5001", budget_impressions: 310_000 }],
    });
    expect(write.status).toBe(200);
  });

  it("ignore under a dialect's progress parameter: include_progress is ignored, the dialect's adds progress", async () => {
    session = await boot({
      dialect: dialectOf({ progress: { parameter: "stats=on" } }),
      departures: { unknownParameters: "ignore" },
    });
    const ours = await session.get(`${DSP}/campaigns/5001?include_progress=true`);
    expect(ours.status).toBe(200);
    expect(ours.body.progress).toBeUndefined();
    const theirs = await session.get(`${DSP}/campaigns/5001?stats=on`);
    expect(theirs.body.progress).toMatchObject({ impressions_delivered: expect.any(Number) });
  });
});

describe("doohctl emulator's flags", () => {
  it("starts a DSP that departs as the flags say, and names each departure in the banner", async () => {
    const { io, interrupt } = interruptibleIO();
    const seed = "examples/emulator-seed.json";
    const exit = run(
      [
        "emulator",
        "--port",
        "0",
        "--seed",
        seed,
        "--drop-on-write",
        "budget_impressions,pacing",
        "--create-answer",
        "ids",
        "--unknown-parameters",
        "ignore",
      ],
      io,
    );
    for (let i = 0; i < 500 && !io.err().includes("Ctrl-C"); i++) await new Promise((r) => setTimeout(r, 5));
    expect(io.err()).toContain("  drops on write: budget_impressions, pacing (answered as if not sent)\n");
    expect(io.err()).toContain("  create answer: ids\n");
    expect(io.err()).toContain("  unknown query parameters: ignored (G16)\n");
    const origin = /listening on (http:\/\/\S+)/.exec(io.err())?.[1] ?? "";
    const cookie = await login(origin, {
      email: "demo@doohctl.test",
      password: "demo-password",
      account_id: "1",
    });
    const read = await request(origin, "GET", `${DSP}/campaigns?page_size=1&with_progress=true`, { cookie });
    expect(read.status).toBe(200);
    interrupt("SIGINT");
    expect(await exit).toBe(0);
  });

  it("refuses a member name no DSP can use, and a shape it does not know", async () => {
    const { io } = interruptibleIO();
    expect(await run(["emulator", "--port", "0", "--drop-on-write", "budget impressions"], io)).toBe(1);
    expect(io.err()).toContain(
      '--drop-on-write takes member names, comma-separated: "budget impressions" must be a JSON member name',
    );
    const shape = interruptibleIO();
    expect(await run(["emulator", "--port", "0", "--create-answer", "xml"], shape.io)).toBe(1);
    expect(shape.io.err()).toContain("Allowed choices are member, campaigns, ids");
  });
});
