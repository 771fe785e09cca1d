/**
 * The emulator delivers: progress grows with its virtual clock while a campaign is active, in
 * flight and has a creative, accumulates across pauses, stops at the budget and is priced at
 * the cpm in exact decimals. Real HTTP against port 0.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  accrue,
  pacePermille,
  progressOf,
  spendByCurrency,
  startAccrual,
} from "../../src/emulator/delivery.js";
import { boot, DSP, login, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** Moves the virtual clock; a session lasts 8 hours, so the test logs in again. */
async function advance(ms: number) {
  if (!s) throw new Error("no emulator");
  s.clock.advance(ms);
  s.cookie = await login(s.emulator.origin);
}

function session(): Session {
  if (!s) throw new Error("no emulator");
  return s;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function progress(id: string) {
  const reply = await session().get(`${DSP}/campaigns/${id}?include_progress=true`);
  expect(reply.status).toBe(200);
  return reply.body.progress as { impressions_delivered: number; spend: { units: string; nanos: number } };
}

describe("emulator delivery", () => {
  it("delivers nothing before the flight starts and grows with the clock within it", async () => {
    s = await boot({ at: "2026-11-30T00:00:00Z" });
    expect((await progress("5001")).impressions_delivered).toBe(0);
    await advance(DAY); // the flight starts
    expect((await progress("5001")).impressions_delivered).toBe(0);
    await advance(DAY);
    const one = (await progress("5001")).impressions_delivered;
    await advance(DAY);
    const two = (await progress("5001")).impressions_delivered;
    expect(one).toBeGreaterThan(0);
    expect(two).toBeGreaterThan(one);
  });

  it("gives the same figures whether read often or once", async () => {
    s = await boot({ at: "2026-12-01T00:00:00Z" });
    for (let i = 0; i < 37; i++) {
      await advance(7 * HOUR + 13);
      await progress("5001");
    }
    const often = await progress("5001");
    await session().close();
    s = await boot({ at: "2026-12-01T00:00:00Z" });
    await advance(37 * (7 * HOUR + 13));
    expect(await progress("5001")).toEqual(often);
  });

  it("keeps what was delivered across a pause and delivers nothing while paused", async () => {
    s = await boot({ at: "2026-12-05T00:00:00Z" });
    const before = await progress("5001");
    expect((await session().call("PATCH", `${DSP}/campaigns/5001`, { active: false })).status).toBe(200);
    await advance(3 * DAY);
    expect(await progress("5001")).toEqual(before);
    expect((await session().call("PATCH", `${DSP}/campaigns/5001`, { active: true })).status).toBe(200);
    await advance(DAY);
    const after = await progress("5001");
    expect(after.impressions_delivered).toBeGreaterThan(before.impressions_delivered);
    // Three days paused: less than a campaign never paused has delivered by then.
    await session().close();
    s = await boot({ at: "2026-12-09T00:00:00Z" });
    expect((await progress("5001")).impressions_delivered).toBeGreaterThan(after.impressions_delivered);
  });

  it("keeps what was delivered across a restart with --state", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-delivery-"));
    try {
      const statePath = join(dir, "state.json");
      s = await boot({ at: "2026-12-05T00:00:00Z", statePath });
      // The pause is a write: the state file is written with what was delivered until then.
      expect((await session().call("PATCH", `${DSP}/campaigns/5001`, { active: false })).status).toBe(200);
      const before = await progress("5001");
      expect(before.impressions_delivered).toBeGreaterThan(0);
      await session().close();
      s = await boot({ at: "2026-12-20T00:00:00Z", statePath });
      expect(await progress("5001")).toEqual(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("delivers only while the campaign has a creative", async () => {
    s = await boot({ at: "2026-12-05T00:00:00Z" });
    expect((await session().call("PATCH", `${DSP}/creatives/9001`, { campaign_ids: [] })).status).toBe(200);
    const before = await progress("5001");
    await advance(2 * DAY);
    expect(await progress("5001")).toEqual(before);
  });

  it("stops at the budget and prices every impression at the cpm", async () => {
    s = await boot({ at: "2027-02-01T00:00:00Z" });
    // 5001 runs through December at 12.50 USD cpm with 300,000 impressions; it is over.
    expect(await progress("5001")).toEqual({
      impressions_delivered: Math.floor((300_000 * pacePermille("5001")) / 1000),
      spend: { currency_code: "USD", units: "3510", nanos: 0 },
    });
  });
});

describe("accrual", () => {
  const cpm = { currency_code: "USD", units: "0", nanos: 333_333_333 };
  const flight = { id: "7", active: true, hasCreative: true, start: 0, end: 1000, cpm };

  it("caps delivery at the budget when the pace runs ahead of linear", () => {
    // Campaign "x" paces at 108.5% of linear: it reaches its budget before its flight ends.
    expect(pacePermille("x")).toBe(1085);
    const fast = { ...flight, id: "x", budget_impressions: 1000 };
    expect(accrue(startAccrual(0, cpm), fast, 900).delivered).toBe(976);
    const done = accrue(startAccrual(0, cpm), fast, 1000);
    expect(done.delivered).toBe(1000);
    expect(accrue(done, fast, 5000).delivered).toBe(1000);
  });

  it("never goes down, whatever the order of reads", () => {
    const campaign = { ...flight, budget_impressions: 7 };
    let accrual = startAccrual(0, cpm);
    const seen: number[] = [];
    for (const now of [0, 13, 13, 400, 399, 999, 1000, 2000]) {
      accrual = accrue(accrual, campaign, now);
      seen.push(accrual.delivered);
    }
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(accrual.delivered).toBe(Math.floor((7 * pacePermille("7")) / 1000));
  });

  it("spends impressions * cpm / 1000 exactly, each cpm pricing its own impressions", () => {
    const campaign = { ...flight, budget_impressions: 3_000_000 };
    const half = accrue(startAccrual(0, cpm), campaign, 500);
    const raised = { ...campaign, cpm: { currency_code: "USD", units: "2", nanos: 0 } };
    const end = accrue(half, raised, 1000);
    const first = half.delivered;
    const second = end.delivered - first;
    const nanos = (333_333_333n * BigInt(first)) / 1000n + (2_000_000_000n * BigInt(second)) / 1000n;
    const spend = progressOf(end).spend;
    expect(BigInt(spend.units) * 1_000_000_000n + BigInt(spend.nanos)).toBe(nanos);
  });

  it("keeps spend in the currency it was spent in when the cpm changes currency", () => {
    const eur = { currency_code: "EUR", units: "10", nanos: 0 };
    const usd = { currency_code: "USD", units: "20", nanos: 0 };
    const campaign = { ...flight, budget_impressions: 3_000_000, cpm: eur };
    const half = accrue(startAccrual(0, eur), campaign, 500);
    const first = half.delivered;
    // Delivered at 10 EUR: first x 10 / 1000 EUR, e.g. 1,5xx,xxx impressions -> 15,xxx.xx EUR.
    const eurNanos = (10_000_000_000n * BigInt(first)) / 1000n;
    // The switch itself, before any USD impression: still EUR, never relabelled USD.
    const switched = accrue(half, { ...campaign, cpm: usd }, 500);
    expect(progressOf(switched).spend).toEqual({
      currency_code: "EUR",
      units: String(eurNanos / 1_000_000_000n),
      nanos: Number(eurNanos % 1_000_000_000n),
    });
    // Delivering at 20 USD adds second x 20 / 1000 USD in its own currency, never to the EUR.
    const end = accrue(switched, { ...campaign, cpm: usd }, 800);
    const second = end.delivered - first;
    expect(second).toBeGreaterThan(0);
    const usdNanos = (20_000_000_000n * BigInt(second)) / 1000n;
    const nanosOf = (m: { units: string; nanos: number }) =>
      BigInt(m.units) * 1_000_000_000n + BigInt(m.nanos);
    expect(spendByCurrency(end).map((m) => [m.currency_code, nanosOf(m)])).toEqual([
      ["EUR", eurNanos],
      ["USD", usdNanos],
    ]);
    // G2 shows one Money: the first currency spent in, EUR, unchanged by the USD delivery.
    expect(progressOf(end).spend.currency_code).toBe("EUR");
    expect(nanosOf(progressOf(end).spend)).toBe(eurNanos);
    // Back to EUR: its spend resumes from what it was; the USD stays aside.
    const back = accrue(end, { ...campaign, cpm: eur }, 1000);
    const third = back.delivered - end.delivered;
    expect(spendByCurrency(back).map((m) => [m.currency_code, nanosOf(m)])).toEqual([
      ["USD", usdNanos],
      ["EUR", eurNanos + (10_000_000_000n * BigInt(third)) / 1000n],
    ]);
    expect(progressOf(back).spend.currency_code).toBe("EUR");
  });
});
