/**
 * The emulator serves any dialect (docs/emulator.md, "Dialects"): each key of
 * src/model/dialect.ts alone and all together, served at the dialect's place and refused at
 * the default one, with the state dump (the control path) canonical throughout. The client's
 * tests prove it follows each key against these answers, so each is shown here over HTTP.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { DialectError, loadDialectFile, SeedError, validateSeed } from "../../src/emulator/index.js";
import { seedAccount } from "../helpers/builders.js";
import { dialectOf as dialect } from "../helpers/dialects.js";
import { bufferIO, interruptibleIO } from "../helpers/io.js";
import { DEMO_USER } from "../helpers/users.js";
import { boot, DSP, fields, login, NEW_CAMPAIGN, request, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function state(session: Session) {
  return (await request(session.emulator.origin, "GET", "/__emulator/state")).body;
}

const venueTypes = { venue_type_targeting_option: { venue_type_ids: ["12", "14"], exclude: false } };

describe("insertion_orders_path (G1)", () => {
  it("lists and reads insertion orders at the dialect's path only; PATCH stays where the spec puts it", async () => {
    s = await boot({ dialect: dialect({ insertion_orders_path: "/orders/insertion" }) });
    const list = await s.get(`${DSP}/orders/insertion?page_size=100`);
    expect(list.status).toBe(200);
    expect(list.body.insertion_orders.map((io: { id: string }) => io.id)).toEqual(["1001", "1002"]);
    expect(list.body.total_size).toBe(2);
    // The list parameters still apply there (G12).
    const filtered = await s.get(`${DSP}/orders/insertion?filter=advertiser_id:2`);
    expect(filtered.body.insertion_orders.map((io: { id: string }) => io.id)).toEqual(["1002"]);
    const one = await s.get(`${DSP}/orders/insertion/1001`);
    expect(one.body).toMatchObject({ id: "1001", contract_number: "PO-1" });
    expect((await s.get(`${DSP}/orders/insertion/4242`)).status).toBe(404);

    expect((await s.get(`${DSP}/insertion_orders`)).status).toBe(404);
    expect((await s.get(`${DSP}/insertion_orders/1001`)).status).toBe(404);
    expect((await s.call("PATCH", `${DSP}/orders/insertion/1001`, { name: "x" })).status).toBe(404);
    const patched = await s.call("PATCH", `${DSP}/insertion_orders/1001`, {
      end_time: "2027-04-01T00:00:00Z",
    });
    expect(patched.status).toBe(200);
    const batch = await s.call("PATCH", `${DSP}/insertion_orders`, {
      insertion_orders: [{ id: "1002", budget_impressions: 60_000 }],
    });
    expect(batch.status).toBe(200);
    const dump = await state(s);
    expect(dump.insertion_orders[0].end_time).toBe("2027-04-01T00:00:00Z");
    expect(dump.insertion_orders[1].budget_impressions).toBe(60_000);
  });
});

describe("contract_number (G1)", () => {
  it("answers and takes the contract number under the dialect's member; the canonical one is an unknown property (G4)", async () => {
    s = await boot({ dialect: dialect({ contract_number: "po_number" }) });
    const list = await s.get(`${DSP}/insertion_orders`);
    expect(list.body.insertion_orders[0].po_number).toBe("PO-1");
    expect(list.body.insertion_orders[1].po_number).toBeNull();
    expect(list.body.insertion_orders.every((io: object) => !("contract_number" in io))).toBe(true);
    expect(Object.keys((await s.get(`${DSP}/insertion_orders/1001`)).body)).toEqual([
      "id",
      "advertiser_id",
      "name",
      "po_number",
      "start_time",
      "end_time",
      "budget_impressions",
      "budget_money",
    ]);

    const one = await s.call("PATCH", `${DSP}/insertion_orders/1001`, { po_number: "PO-2" });
    expect(one.status).toBe(200);
    expect(one.body.po_number).toBe("PO-2");
    expect(one.body).not.toHaveProperty("contract_number");
    const batch = await s.call("PATCH", `${DSP}/insertion_orders`, {
      insertion_orders: [{ id: "1002", po_number: "PO-9" }],
    });
    expect(batch.body.insertion_orders[0]).toMatchObject({ id: "1002", po_number: "PO-9" });

    const canonical = await s.call("PATCH", `${DSP}/insertion_orders/1001`, { contract_number: "PO-3" });
    expect(canonical.status).toBe(422);
    expect(fields(canonical)).toEqual({ contract_number: ["is not a known property"] });
    const refused = await s.call("PATCH", `${DSP}/insertion_orders`, {
      insertion_orders: [
        { id: "1001", contract_number: "PO-4" },
        { id: "1002", po_number: "x".repeat(101) },
      ],
    });
    expect(fields(refused)).toEqual({
      "insertion_orders[0].contract_number": ["is not a known property"],
      "insertion_orders[1].po_number": ["must be at most 100 characters"],
    });
    // The state dump stays canonical; the refusals changed nothing.
    const dump = await state(s);
    expect(dump.insertion_orders.map((io: { contract_number: string }) => io.contract_number)).toEqual([
      "PO-2",
      "PO-9",
    ]);
  });
});

describe("progress (G2)", () => {
  // Campaign 5001 (seedAccount): active, with a creative, 300,000 impressions over December
  // 2026 at 12.50 USD; its pace is 936 permille of linear (pacePermille("5001"), delivery.ts).
  // Half its flight on: 300,000 * 0.936 / 2 = 140,400 impressions; 140,400 * 12.50 / 1000 = 1,755.00 USD.
  const HALF_FLIGHT = "2026-12-16T12:00:00Z";
  const delivered = { impressions: 140_400, cost: { currency_code: "USD", units: "1755", nanos: 0 } };
  const progress = {
    parameter: "with=stats",
    member: "delivery",
    impressions: "impressions",
    spend: "cost",
  };

  it("adds progress for the dialect's exact parameter only, under its member and inner names", async () => {
    s = await boot({ at: HALF_FLIGHT, dialect: dialect({ progress }) });
    const one = await s.get(`${DSP}/campaigns/5001?with=stats`);
    expect(one.status).toBe(200);
    expect(one.body.delivery).toEqual(delivered);
    expect(one.body).not.toHaveProperty("progress");
    const list = await s.get(`${DSP}/campaigns?with=stats&filter=id:5001&filter=id:5002`);
    expect(list.body.campaigns.map((c: { delivery: unknown }) => c.delivery)).toEqual([
      delivered,
      { impressions: 0, cost: { currency_code: "USD", units: "0", nanos: 0 } },
    ]);
    const plain = await s.get(`${DSP}/campaigns/5001`);
    expect(plain.body).not.toHaveProperty("delivery");
    expect(plain.body).not.toHaveProperty("progress");

    const canonical = await s.get(`${DSP}/campaigns/5001?include_progress=true`);
    expect(canonical.status).toBe(422);
    expect(fields(canonical)).toEqual({ include_progress: ["is not a known parameter"] });
    // A bad parameter is told before a missing campaign, as without a dialect.
    expect((await s.get(`${DSP}/campaigns/4242?include_progress=true`)).status).toBe(422);
    expect(fields(await s.get(`${DSP}/campaigns?with=all`))).toEqual({ with: ["must be stats"] });
    expect(fields(await s.get(`${DSP}/campaigns?with=stats&with=stats`))).toEqual({
      with: ["must be given once"],
    });
    // One refusal lists every bad parameter, the dialect's and the list's own.
    expect(fields(await s.get(`${DSP}/campaigns?include_progress=true&page=101`))).toEqual({
      include_progress: ["is not a known parameter"],
      page: ["is not less than or equal to 100"],
    });
    // Elsewhere the dialect's parameter is as unknown as include_progress is there.
    expect(fields(await s.get(`${DSP}/insertion_orders?with=stats`))).toEqual({
      with: ["is not a known parameter"],
    });
  });

  it("keeps the parameter's name with another value: include_progress=1", async () => {
    s = await boot({ at: HALF_FLIGHT, dialect: dialect({ progress: { parameter: "include_progress=1" } }) });
    const one = await s.get(`${DSP}/campaigns/5001?include_progress=1`);
    expect(one.body.progress).toEqual({ impressions_delivered: 140_400, spend: delivered.cost });
    expect(fields(await s.get(`${DSP}/campaigns/5001?include_progress=true`))).toEqual({
      include_progress: ["must be 1"],
    });
  });

  it("calls the dialect's progress member read-only in a write, and the canonical one unknown", async () => {
    s = await boot({ dialect: dialect({ progress }) });
    const refused = await s.call("PATCH", `${DSP}/campaigns/5002`, { delivery: {}, progress: {} });
    expect(fields(refused)).toEqual({ delivery: ["is read-only"], progress: ["is not a known property"] });
  });
});

describe("targetings (G5)", () => {
  it("reads a campaign's targetings at the dialect's path, under its member; the PUT stays the spec's", async () => {
    s = await boot({
      dialect: dialect({ targetings: { read_path: "/targeting/{id}/sets", member: "option_sets" } }),
    });
    const read = await s.get(`${DSP}/targeting/5001/sets`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ option_sets: [venueTypes] });
    expect((await s.get(`${DSP}/targeting/4242/sets`)).status).toBe(404);
    expect((await s.get(`${DSP}/campaigns/5001/targetings`)).status).toBe(404);

    const put = await s.call("PUT", `${DSP}/campaigns/5002/targetings`, { targetings: [venueTypes] });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ targetings: [venueTypes] });
    const refused = await s.call("PUT", `${DSP}/campaigns/5002/targetings`, { option_sets: [] });
    expect(fields(refused)).toEqual({
      option_sets: ["is not a known property"],
      targetings: ["is required"],
    });
    expect((await s.call("PUT", `${DSP}/targeting/5002/sets`, { targetings: [] })).status).toBe(404);
    expect((await state(s)).targetings["5002"]).toEqual([venueTypes]);
  });

  it("moves the member alone: the default path answers it", async () => {
    s = await boot({ dialect: dialect({ targetings: { member: "option_sets" } }) });
    expect((await s.get(`${DSP}/campaigns/5001/targetings`)).body).toEqual({ option_sets: [venueTypes] });
  });
});

describe("campaign_targetings (G5)", () => {
  it("embeds each campaign's current targetings in every campaign answered, and refuses them in a write", async () => {
    s = await boot({ dialect: dialect({ campaign_targetings: "targeting" }) });
    const list = await s.get(`${DSP}/campaigns`);
    expect(list.body.campaigns.map((c: { id: string; targeting: unknown }) => [c.id, c.targeting])).toEqual([
      ["5001", [venueTypes]],
      ["5002", []],
      ["5003", []],
    ]);
    await s.call("PUT", `${DSP}/campaigns/5002/targetings`, {
      targetings: [{ venue_type_targeting_option: { venue_type_ids: ["14", "12", "12"] } }],
    });
    // Normalized as the targetings read answers them.
    expect((await s.get(`${DSP}/campaigns/5002`)).body.targeting).toEqual([venueTypes]);
    expect((await s.get(`${DSP}/campaigns/5002/targetings`)).body).toEqual({ targetings: [venueTypes] });

    const created = await s.call("POST", `${DSP}/campaigns`, { campaigns: [NEW_CAMPAIGN] });
    expect(created.status).toBe(200);
    expect(created.body.campaigns[0]).toMatchObject({ name: "Harbour", targeting: [] });
    const one = await s.call("PATCH", `${DSP}/campaigns/5001`, { budget_impressions: 310_000 });
    expect(one.body).toMatchObject({ budget_impressions: 310_000, targeting: [venueTypes] });
    const batch = await s.call("PATCH", `${DSP}/campaigns`, { campaigns: [{ id: "5003", active: true }] });
    expect(batch.body.campaigns[0]).toMatchObject({ id: "5003", active: true, targeting: [] });

    const before = await state(s);
    expect(before.campaigns[0]).not.toHaveProperty("targeting");
    const patch = await s.call("PATCH", `${DSP}/campaigns/5001`, { targeting: [], cpm: "14 USD" });
    expect(fields(patch)).toEqual({
      targeting: ["is read-only"],
      cpm: ["must be an object"],
    });
    const post = await s.call("POST", `${DSP}/campaigns`, {
      campaigns: [{ ...NEW_CAMPAIGN, targeting: [] }],
    });
    expect(fields(post)).toEqual({ "campaigns[0].targeting": ["is read-only"] });
    const items = await s.call("PATCH", `${DSP}/campaigns`, { campaigns: [{ id: "5002", targeting: [] }] });
    expect(fields(items)).toEqual({ "campaigns[0].targeting": ["is read-only"] });
    expect(await state(s)).toEqual(before);
  });
});

describe("create_campaigns_member (G3)", () => {
  it("takes and answers the created campaigns under the dialect's member, and names it in errors", async () => {
    s = await boot({ dialect: dialect({ create_campaigns_member: "items" }) });
    const created = await s.call("POST", `${DSP}/campaigns`, { items: [NEW_CAMPAIGN] });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body)).toEqual(["items"]);
    expect(created.body.items[0]).toMatchObject({ id: "5004", name: "Harbour" });

    const canonical = await s.call("POST", `${DSP}/campaigns`, { campaigns: [NEW_CAMPAIGN] });
    expect(fields(canonical)).toEqual({
      campaigns: ["is not a known property"],
      items: ["is required"],
    });
    const bad = await s.call("POST", `${DSP}/campaigns`, {
      items: [{ ...NEW_CAMPAIGN, name: "Quay", cpm: { currency_code: "USD" } }],
    });
    expect(fields(bad)).toEqual({ "items[0].cpm.units": ["is required"] });
    // The batch PATCH keeps the spec's envelope.
    const patched = await s.call("PATCH", `${DSP}/campaigns`, { campaigns: [{ id: "5004", active: true }] });
    expect(patched.body.campaigns[0]).toMatchObject({ id: "5004", active: true });
    expect((await state(s)).campaigns.map((c: { name: string }) => c.name)).toEqual([
      "Airports",
      "Malls",
      "Stations",
      "Harbour",
    ]);
  });
});

/** Every key at once, as a DSP that differs from every guess might speak. */
const EVERY_KEY = {
  insertion_orders_path: "/io",
  contract_number: "contract_ref",
  progress: { parameter: "fields=progress", member: "stats", impressions: "imps", spend: "cost" },
  targetings: { read_path: "/campaigns/{id}/targeting_sets", member: "sets" },
  campaign_targetings: "targetings",
  create_campaigns_member: "new_campaigns",
};

describe("every key together", () => {
  it("serves each at the dialect's place, refuses each at the default one, and dumps the state canonical", async () => {
    s = await boot({ dialect: dialect(EVERY_KEY) });
    const io = await s.get(`${DSP}/io/1001`);
    expect(io.body.contract_ref).toBe("PO-1");
    expect((await s.get(`${DSP}/io`)).body.total_size).toBe(2);
    expect((await s.get(`${DSP}/insertion_orders/1001`)).status).toBe(404);
    const campaign = await s.get(`${DSP}/campaigns/5001?fields=progress`);
    expect(campaign.body.stats).toEqual({ imps: 0, cost: { currency_code: "USD", units: "0", nanos: 0 } });
    expect(campaign.body.targetings).toEqual([venueTypes]);
    expect((await s.get(`${DSP}/campaigns/5001?include_progress=true`)).status).toBe(422);
    expect((await s.get(`${DSP}/campaigns/5001/targeting_sets`)).body).toEqual({ sets: [venueTypes] });
    expect((await s.get(`${DSP}/campaigns/5001/targetings`)).status).toBe(404);
    const created = await s.call("POST", `${DSP}/campaigns`, { new_campaigns: [NEW_CAMPAIGN] });
    expect(created.body.new_campaigns[0]).toMatchObject({ name: "Harbour", targetings: [] });
    expect((await s.call("POST", `${DSP}/campaigns`, { campaigns: [NEW_CAMPAIGN] })).status).toBe(422);
    const patched = await s.call("PATCH", `${DSP}/insertion_orders/1001`, { contract_ref: "PO-7" });
    expect(patched.body.contract_ref).toBe("PO-7");
    expect(fields(await s.call("PATCH", `${DSP}/campaigns/5001`, { targetings: [] }))).toEqual({
      targetings: ["is read-only"],
    });

    const dump = await state(s);
    expect(dump.insertion_orders[0].contract_number).toBe("PO-7");
    expect(dump.insertion_orders[0]).not.toHaveProperty("contract_ref");
    expect(dump.campaigns[3]).toMatchObject({ name: "Harbour" });
    expect(dump.campaigns[3]).not.toHaveProperty("targetings");
    expect(dump.targetings["5001"]).toEqual([venueTypes]);
    // The request log keeps what was sent, at the dialect's path.
    const log = s.emulator.requestLog();
    expect(log.some((e) => e.path === `${DSP}/io/1001` && e.status === 200)).toBe(true);
    expect(log.find((e) => e.path === `${DSP}/campaigns` && e.status === 200)?.body).toEqual({
      new_campaigns: [NEW_CAMPAIGN],
    });
  });

  it("combines with richer answers (G14): the option sets it moves or embeds stay as the contract names them", async () => {
    s = await boot({ dialect: dialect(EVERY_KEY), answers: "richer" });
    const campaign = await s.get(`${DSP}/campaigns/5001?fields=progress`);
    expect(campaign.body.targetings).toEqual([venueTypes]);
    expect(campaign.body.stats).toMatchObject({ imps: 0, cost: { currency_code: "USD", units: "0" } });
    expect(campaign.body.start_time).toBe("2026-12-01T00:00:00.000000Z");
    expect(campaign.body).toHaveProperty("x_id");
    const read = await s.get(`${DSP}/campaigns/5001/targeting_sets`);
    expect(read.body.sets).toEqual([venueTypes]);
    const io = await s.get(`${DSP}/io?page_size=1`);
    expect(io.body.insertion_orders[0].contract_ref).toBe("PO-1");
    expect(io.body).toHaveProperty("x_total_size");
    const created = await s.call("POST", `${DSP}/campaigns`, { new_campaigns: [NEW_CAMPAIGN] });
    expect(created.body.new_campaigns[0].targetings).toEqual([]);
  });
});

describe("where the dialect comes from", () => {
  it("serves the seed's dialect; EmulatorOptions.dialect wins over it", async () => {
    s = await boot({ seed: seedAccount({ dialect: { insertion_orders_path: "/io" } }) });
    expect((await s.get(`${DSP}/io/1001`)).status).toBe(200);
    expect((await s.get(`${DSP}/insertion_orders/1001`)).status).toBe(404);
    expect(s.emulator.dialect.insertion_orders_path).toBe("/io");
    await s.close();
    s = await boot({
      seed: seedAccount({ dialect: { insertion_orders_path: "/io" } }),
      dialect: dialect({ contract_number: "po" }),
    });
    expect((await s.get(`${DSP}/io/1001`)).status).toBe(404);
    expect((await s.get(`${DSP}/insertion_orders/1001`)).body.po).toBe("PO-1");
  });

  it("keeps its dialect across a control reset, and refuses a reset seed with another", async () => {
    const seed = seedAccount({ dialect: { contract_number: "po" } });
    s = await boot({ seed });
    const origin = s.emulator.origin;
    expect((await request(origin, "POST", "/__emulator/reset", { body: { seed } })).status).toBe(200);
    const other = { ...seed, dialect: { contract_number: "ref" } };
    const refused = await request(origin, "POST", "/__emulator/reset", { body: { seed: other } });
    expect(refused.status).toBe(422);
    expect(Object.keys(fields(refused))).toEqual(["seed.dialect"]);
    s.cookie = await login(origin);
    expect((await s.get(`${DSP}/insertion_orders/1001`)).body.po).toBe("PO-1");
  });

  it("refuses a seed's bad dialect, naming each key", () => {
    const problems = (written: unknown) => {
      try {
        validateSeed(seedAccount({ dialect: written }), "seed.json");
      } catch (error) {
        if (!(error instanceof SeedError)) throw error;
        return Object.fromEntries(error.issues.map((issue) => [issue.field, issue.messages]));
      }
      return {};
    };
    expect(problems({ contract_number: "name" })).toEqual({
      "dialect.contract_number": ["must not be another insertion order member (name)"],
    });
    expect(problems({ progress: { parameter: "page=2" } })).toEqual({
      "dialect.progress.parameter": ["must not be a list parameter (page)"],
    });
    expect(problems({ insertion_orders_path: "https://elsewhere.example/io" })).toHaveProperty([
      "dialect.insertion_orders_path",
    ]);
    expect(problems({ progress: { colour: "red" } })).toEqual({
      "dialect.progress.colour": ["is not a known property"],
    });
    // What no DSP could serve: a read moved onto another read's path (parseDialect's own check).
    expect(problems({ targetings: { read_path: "/campaigns/{id}" } })).toEqual({
      "dialect.targetings.read_path": [
        "must not reach the same paths as /campaigns/{id}: a request could not say which it reads",
      ],
    });
  });
});

describe("--dialect FILE", () => {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-dialect-"));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const problemsOf = async (path: string) => {
    const error = await loadDialectFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DialectError);
    return (error as DialectError).message;
  };

  it("reads YAML or JSON holding the mapping itself", async () => {
    const yaml = file("d.yaml", "contract_number: po\nprogress:\n  member: stats\n");
    expect((await loadDialectFile(yaml)).progress.member).toBe("stats");
    const json = file("d.json", JSON.stringify({ campaign_targetings: "sets" }));
    expect((await loadDialectFile(json)).campaign_targetings).toBe("sets");
  });

  it("reads a config's dialect file as it is: the mapping under `dialect:`, beside x- keys", async () => {
    const config = file(
      "dialect.yaml",
      "x-note: for the DSP of Northwind\ndialect:\n  contract_number: po\n",
    );
    expect((await loadDialectFile(config)).contract_number).toBe("po");
    // Beside other keys, `dialect` is just an unknown key of a bare mapping.
    expect(await problemsOf(file("mixed.yaml", "dialect: {}\ncontract_number: po\n"))).toContain("dialect");
  });

  it("names the file and the key of each problem, never what else the file holds", async () => {
    const secret = "hunter2-not-for-logs";
    const syntax = file("syntax.yaml", `contract_number: po\nnote: "${secret}\n  progress: [\n`);
    const message = await problemsOf(syntax);
    expect(message).toMatch(
      /syntax\.yaml is not a valid dialect:\n {2}\(top level\): is not valid YAML or JSON \(line \d+, column \d+\)/,
    );
    expect(message).not.toContain(secret);
    const unknown = await problemsOf(file("unknown.yaml", `contract_number: po\npassword: ${secret}\n`));
    expect(unknown).toContain("  password: is not a dialect key");
    expect(unknown).not.toContain(secret);
    expect(await problemsOf(file("bad.json", '{"progress": {"spend": "x", "impressions": "x"}}'))).toContain(
      "  progress.spend: must differ from progress.impressions",
    );
    expect(await problemsOf(file("list.yaml", "- contract_number\n"))).toContain(
      "  (top level): must be a mapping of dialect keys",
    );
    expect(await problemsOf(join(dir, "missing.yaml"))).toContain("(top level): cannot be read (ENOENT)");
    const coloured = await problemsOf(file("escape.json", '{"\\u001b[31mred": 1}'));
    expect(coloured).toContain("  \\u001b[31mred: is not a dialect key");
  });

  it("runs the real command: a bad file is exit 1 naming it; a good one is served and named in the banner", async () => {
    file("bad.yaml", "create_campaigns_member: two campaigns\n");
    const refused = bufferIO({ cwd: dir });
    expect(await run(["emulator", "--port", "0", "--dialect", "bad.yaml"], refused)).toBe(1);
    expect(refused.err()).toContain(
      "doohctl emulator: bad.yaml is not a valid dialect:\n  create_campaigns_member: must be a JSON member name",
    );
    expect(refused.err()).not.toContain("listening");

    const good = file("good.yaml", "insertion_orders_path: /io\ncontract_number: po\n");
    const seed = join(import.meta.dirname, "..", "..", "examples", "emulator-seed.json");
    const { io, interrupt } = interruptibleIO({ cwd: dir });
    const exit = run(["emulator", "--port", "0", "--seed", seed, "--dialect", good], io);
    for (let i = 0; i < 500 && !io.err().includes("Ctrl-C"); i++) await new Promise((r) => setTimeout(r, 5));
    expect(io.err()).toContain("  dialect: insertion_orders_path, contract_number\n");
    const origin = /listening on (http:\/\/\S+)/.exec(io.err())?.[1] ?? "";
    const cookie = await login(origin, DEMO_USER);
    const read = await request(origin, "GET", `${DSP}/io/1001`, { cookie });
    expect(read.status).toBe(200);
    expect(read.body).toHaveProperty("po");
    expect((await request(origin, "GET", `${DSP}/insertion_orders/1001`, { cookie })).status).toBe(404);
    interrupt("SIGINT");
    expect(await exit).toBe(0);
  });
});
