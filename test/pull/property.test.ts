/**
 * The property of pull (docs/pull.md): for random configs written in random styles and a
 * random drift of their declared fields, pull then plan shows no change, every comment
 * survives, and the only lines that differ are those of drifted fields.
 */
import { rmSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Money } from "../../src/model/money.js";
import { Time } from "../../src/model/time.js";
import { timeText } from "../../src/pull/forms.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { type LiveCampaign, seedOf, Workdir } from "./harness.js";

const FIELDS = ["active", "budget_impressions", "cpm", "start_time", "end_time"] as const;
type Field = (typeof FIELDS)[number];

const DAY = 86_400_000;
const BASE = Time.toMillis("2027-01-01T00:00:00Z");

const values = fc.record({
  active: fc.boolean(),
  budget_impressions: fc.integer({ min: 0, max: 1_000_000 }),
  cpm: fc.record({
    units: fc.integer({ min: 0, max: 50 }).map(String),
    nanos: fc.constantFrom(0, 250_000_000, 500_000_000, 990_000_000, 123_456_789),
  }),
  startDay: fc.integer({ min: 0, max: 20 }),
  days: fc.integer({ min: 1, max: 30 }),
});
type Values = typeof values extends fc.Arbitrary<infer T> ? T : never;

const style = fc.record({
  declared: fc.subarray([...FIELDS]),
  moneyForm: fc.constantFrom("text", "flow", "block"),
  offset: fc.constantFrom("Z", "+02:00", "-05:30"),
  quote: fc.constantFrom('"', "'"),
  comments: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
});

const campaignCase = fc.record({ style, config: values, live: values, drift: fc.subarray([...FIELDS]) });
type Case = typeof campaignCase extends fc.Arbitrary<infer T> ? T : never;

function times(v: Values) {
  const start = BASE + v.startDay * DAY;
  return { start: Time.fromMillis(start), end: Time.fromMillis(start + v.days * DAY) };
}

/** The live value of each declared field: the drifted ones from `live`, the others from `config`. */
function liveOf(c: Case, i: number): LiveCampaign {
  const pick = (f: Field) => (c.drift.includes(f) ? c.live : c.config);
  const start = times(pick("start_time")).start;
  let end = times(pick("end_time")).end;
  if (Time.compare(end, start) <= 0) end = Time.fromMillis(Time.toMillis(start) + DAY);
  return {
    id: String(i + 1),
    name: `C${i + 1}`,
    active: pick("active").active,
    budget_impressions: pick("budget_impressions").budget_impressions,
    cpm: { currency_code: "USD", ...pick("cpm").cpm },
    start_time: start,
    end_time: end,
  };
}

/** The config text, and for each line the campaign field it writes (or none). */
function configOf(cases: readonly Case[], lives: LiveCampaign[]) {
  const lines: { text: string; owner?: string }[] = [
    { text: "# random config" },
    { text: "version: 1" },
    { text: "insertion_orders:" },
    { text: '  - id: "1001"' },
    { text: "    campaigns:" },
  ];
  cases.forEach((c, i) => {
    const { style: s, config } = c;
    const note = (k: number) => (s.comments[k] ? ` # note ${i}.${k}` : "");
    lines.push({ text: `      - name: C${i + 1}${note(0)}` });
    lines.push({ text: `        id: ${s.quote}${i + 1}${s.quote}` });
    // A config's flight must be valid too: its end is after its start, as the live one.
    const start = times(config).start;
    const live = lives[i] as LiveCampaign;
    const end =
      Time.compare(times(config).end, start) > 0
        ? times(config).end
        : Time.fromMillis(Time.toMillis(start) + DAY);
    const endOk = Time.compare(end, live.start_time ?? "") > 0 || !s.declared.includes("end_time");
    FIELDS.forEach((f, k) => {
      if (!s.declared.includes(f)) return;
      const owner = `C${i + 1}/${f}`;
      if (f === "active") lines.push({ text: `        active: ${config.active}${note(k + 1)}`, owner });
      if (f === "budget_impressions")
        lines.push({ text: `        budget_impressions: ${config.budget_impressions}${note(k + 1)}`, owner });
      if (f === "start_time")
        lines.push({ text: `        start_time: ${timeText(start, `x${s.offset}`)}${note(k + 1)}`, owner });
      if (f === "end_time")
        lines.push({
          text: `        end_time: ${timeText(endOk ? end : (live.end_time ?? end), `x${s.offset}`)}${note(k + 1)}`,
          owner,
        });
      if (f === "cpm") {
        const m = { currency_code: "USD", ...config.cpm };
        if (s.moneyForm === "text")
          lines.push({ text: `        cpm: ${Money.format(m)}${note(k + 1)}`, owner });
        if (s.moneyForm === "flow") {
          lines.push({
            text: `        cpm: {currency_code: USD, units: "${m.units}", nanos: ${m.nanos}}${note(k + 1)}`,
            owner,
          });
        }
        if (s.moneyForm === "block") {
          lines.push({ text: `        cpm:${note(k + 1)}`, owner });
          lines.push({ text: "          currency_code: USD", owner });
          lines.push({ text: `          units: "${m.units}"`, owner });
          lines.push({ text: `          nanos: ${m.nanos}`, owner });
        }
      }
    });
  });
  return { text: `${lines.map((l) => l.text).join("\n")}\n`, lines };
}

describe("pull, for random configs and drift", () => {
  it("leaves a config a plan finds no change in, with every comment, changing only drifted lines", async () => {
    let skipped = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(campaignCase, { minLength: 1, maxLength: 4 }), async (cases) => {
        const lives = cases.map((c, i) => liveOf(c, i));
        const { text, lines } = configOf(cases, lives);
        const emulator = (await startCliAccount({ seed: seedOf(lives) })).emulator;
        const work = new Workdir(emulator);
        try {
          work.write("c.yaml", text);
          const before = await work.run(["plan", "c.yaml"]);
          if (before.code !== 0) {
            skipped++; // a drawn config the plan refuses (a flight inside out): counted below
            return;
          }
          const pulled = await work.run(["pull", "c.yaml"]);
          expect(pulled.code, pulled.out + pulled.err).toBe(0);
          const plan = await work.run(["plan", "c.yaml", "--detailed-exitcode"]);
          expect(plan.code, `${text}\n${work.read("c.yaml")}\n${plan.out}`).toBe(0);
          const after = work.read("c.yaml");
          for (const comment of text.match(/# [^\n]*/g) ?? []) expect(after).toContain(comment);
          const afterLines = after.split("\n");
          expect(afterLines.length - 1).toBe(lines.length);
          lines.forEach((line, n) => {
            if (afterLines[n] !== line.text) expect(line.owner, `line ${n + 1} changed`).toBeDefined();
          });
          expect((await work.run(["pull", "c.yaml"])).out).toContain("nothing to write");
        } finally {
          await emulator.close();
          rmSync(work.dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
    // The property is not vacuous: most drawn configs are valid plans.
    expect(skipped).toBeLessThan(10);
  }, 120_000);
});
