/**
 * Properties: Money text is accepted only when it is represented exactly, and loading is
 * idempotent (a config written back from its desired state loads to the same state).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ConfigError } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";
import type { DesiredState } from "../../src/model/desired.js";
import { Money } from "../../src/model/money.js";
import { optionSet } from "../helpers/targeting-arbitrary.js";

function inMemory(text: string) {
  return {
    cwd: "/cfg",
    readFile: async () => new TextEncoder().encode(text),
    listDirectory: async () => undefined,
  };
}

/** The exact value of a decimal string, scaled to nanos, or undefined past 9 decimals. */
function exactNanos(whole: string, fraction: string): bigint | undefined {
  if (fraction.replace(/0+$/, "").length > 9) return undefined;
  return BigInt(whole) * 1_000_000_000n + BigInt((fraction.slice(0, 9) || "0").padEnd(9, "0"));
}

describe("Money in config", () => {
  it("accepts an amount only when it is exact to the nano, and keeps every digit", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[0-9]{1,25}$/),
        fc.stringMatching(/^[0-9]{0,14}$/),
        fc.constantFrom("USD", "EUR", "usd"),
        async (whole, fraction, currency) => {
          const text = `${whole}${fraction === "" ? "" : `.${fraction}`} ${currency}`;
          let cpm: Money | undefined;
          try {
            const state = await loadConfig(
              [],
              inMemory(
                `version: 1\ninsertion_orders:\n  - id: '1'\n    campaigns:\n      - name: A\n        cpm: "${text}"\n`,
              ),
            );
            cpm = state.insertionOrders[0]!.campaigns[0]!.fields.cpm;
          } catch (error) {
            if (!(error instanceof ConfigError)) throw error;
          }
          const exact = exactNanos(whole, fraction);
          if (cpm === undefined) {
            // Refused: it had more than 9 decimals, or a currency that is not upper case.
            expect(fraction.length > 9 || currency === "usd").toBe(true);
            return;
          }
          expect(exact).toBeDefined();
          expect(Money.toNanos(cpm)).toBe(exact);
          expect(cpm.currency_code).toBe(currency);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("suggests, for a slip in writing money, the very amount that was meant, and only that", async () => {
    const slips: Record<string, (amount: string, currency: string) => string> = {
      "decimal comma": (a, c) => `${a.replace(".", ",")} ${c}`,
      "glued currency": (a, c) => `${a}${c}`,
      "currency first": (a, c) => `${c} ${a}`,
      "spaces around": (a, c) => ` ${a} ${c} `,
      "plus sign": (a, c) => `+${a} ${c}`,
      symbol: (a, c) => `${{ USD: "$", EUR: "€", GBP: "£" }[c]}${a}`,
    };
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^(0|[1-9][0-9]{0,8})$/),
        fc.stringMatching(/^[0-9]{0,9}$/),
        fc.constantFrom("USD", "EUR", "GBP"),
        fc.constantFrom(...Object.keys(slips)),
        async (whole, fraction, currency, slip) => {
          const amount = fraction === "" ? whole : `${whole}.${fraction}`;
          const written = slips[slip]!(amount, currency);
          const doc = (cpm: string) =>
            `version: 1\ninsertion_orders:\n  - id: '1'\n    campaigns:\n      - name: A\n        cpm: "${cpm}"\n`;
          const error = await loadConfig([], inMemory(doc(written))).then(
            () => undefined,
            (e: unknown) => e,
          );
          if (error === undefined) return; // written as is, it was already money
          expect(error).toBeInstanceOf(ConfigError);
          const suggested = /write "([^"]*)"/.exec((error as ConfigError).issues[0]!.message)?.[1];
          if (slip === "decimal comma" && fraction.length === 3) {
            // 1,500 may group thousands or mark decimals: both readings, no single fix.
            expect((error as ConfigError).issues[0]!.message).toContain("amounts have no comma");
            return;
          }
          expect(suggested, written).toBeDefined();
          const state = await loadConfig([], inMemory(doc(suggested!)));
          const cpm = state.insertionOrders[0]!.campaigns[0]!.fields.cpm!;
          expect(Money.toNanos(cpm)).toBe(exactNanos(whole, fraction));
          expect(cpm.currency_code).toBe(currency);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses every bare YAML number instead of rounding it", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: 0 }), (amount) => {
        expect(() => Money.parse(String(amount))).toThrow(/money needs a currency|not money/);
      }),
    );
  });
});

const id = fc.oneof(fc.integer({ min: 1, max: 99_999 }), fc.integer({ min: 1, max: 99_999 }).map(String));
const instant = fc
  .tuple(
    fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 11, 31) }),
    fc.constantFrom("Z", "+01:00", "-05:30"),
  )
  .map(([ms, zone]) => {
    const offset =
      zone === "Z"
        ? 0
        : (zone.startsWith("-") ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4)));
    const local = new Date(ms + offset * 60_000).toISOString().slice(0, 19);
    return `${local}${zone}`;
  });
const money = fc
  .tuple(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 999_999_999 }))
  .map(([units, nanos]) => `${units}.${String(nanos).padStart(9, "0")} USD`);
const targetingSet = optionSet({ ids: () => fc.array(id, { minLength: 1, maxLength: 4 }) });
const campaign = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 12 }),
    active: fc.boolean(),
    start_time: instant,
    budget_impressions: fc.integer({ min: 0, max: 1000 }),
    cpm: money,
    pacing: fc.dictionary(
      // `<<` is YAML's merge key when written plainly, which this writer does: not a key here.
      fc.string({ minLength: 1, maxLength: 5 }).filter((key) => key !== "<<"),
      fc.oneof(fc.string(), fc.integer(), fc.boolean()),
    ),
    targetings: fc.array(targetingSet, { maxLength: 3 }),
    creatives: fc.array(id, { maxLength: 4 }),
  },
  { requiredKeys: ["name"] },
);
const config = fc.record({
  version: fc.constant(1),
  insertion_orders: fc.uniqueArray(
    fc.record({ id, campaigns: fc.uniqueArray(campaign, { maxLength: 4, selector: (c) => c.name }) }),
    { maxLength: 3, selector: (io) => String(io.id) },
  ),
});

/** Writes a desired state back as config, the way a user could have written it. */
function toConfig(state: DesiredState): unknown {
  return {
    version: 1,
    insertion_orders: state.insertionOrders.map((io) => ({
      id: io.id,
      campaigns: io.campaigns.map((c) => ({
        name: c.name,
        ...c.fields,
        ...(c.fields.cpm ? { cpm: Money.format(c.fields.cpm) } : {}),
        ...(c.targetings ? { targetings: c.targetings } : {}),
        ...(c.creatives ? { creatives: c.creatives } : {}),
      })),
    })),
  };
}

function withoutSources(state: DesiredState): unknown {
  return JSON.parse(
    JSON.stringify(state, (key, value) =>
      key === "source" || key === "idSource" || key === "fieldSources" || key === "files" ? undefined : value,
    ),
  );
}

describe("normalization", () => {
  it("is idempotent: loading a config written from a desired state gives that state", async () => {
    await fc.assert(
      fc.asyncProperty(config, async (raw) => {
        const first = await loadConfig([], inMemory(stringify(raw)));
        const second = await loadConfig([], inMemory(stringify(toConfig(first))));
        expect(withoutSources(second)).toEqual(withoutSources(first));
      }),
      { numRuns: 60 },
    );
  });
});
