/**
 * pull writes any DSP string as data (docs/pull.md): a value or key the DSP holds is written
 * as a YAML scalar the config loader reads back as the same string, whatever it looks like
 * to YAML (an alias, a merge key, a document marker, a control character).
 */
import { rmSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseYaml } from "../../src/config/yaml/read.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import type { JsonValue } from "../../src/plan/types.js";
import { editFile } from "../../src/pull/document-edit.js";
import type { PullItem } from "../../src/pull/items.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { seedOf, Workdir } from "./harness.js";

const HOSTILE_PACING = {
  strategy: "*alias",
  "<<": "...",
  steps: ["--- b", "&anchor", "! tag", "a: b", "x\u2028y", "#1"],
  "...": { "- k": "? v" },
};

let emulator: RunningEmulator;
beforeAll(async () => {
  const seed = seedOf([
    { id: "5001", name: "Airports" },
    { id: "5002", name: "Malls" },
  ]);
  (seed.campaigns as { pacing?: unknown }[])[0]!.pacing = HOSTILE_PACING;
  (seed.campaigns as { pacing?: unknown }[])[1]!.pacing = { strategy: "*alias" };
  emulator = (await startCliAccount({ seed })).emulator;
});
afterAll(async () => {
  await emulator.close();
});

const CONFIG = (pacing: string, malls: string) => `version: 1
insertion_orders:
  - id: "1001"
    campaigns:
      - name: Airports
        id: "5001"
        pacing: ${pacing}
      - name: Malls
        id: "5002"
        pacing: ${malls}
`;

describe("pull, for strings YAML would read as something else", () => {
  it("writes them as data, in flow and block maps, so that a plan then finds no change", async () => {
    const work = new Workdir(emulator);
    try {
      work.write("c.yaml", CONFIG("{ strategy: even }", "\n          strategy: even"));
      const pulled = await work.run(["pull", "c.yaml"]);
      expect(pulled.code, pulled.out + pulled.err).toBe(0);
      expect(work.read("c.yaml")).toContain('strategy: "*alias"');
      expect(work.read("c.yaml")).not.toMatch(/\u2028/);
      const plan = await work.run(["plan", "c.yaml", "--detailed-exitcode"]);
      expect(plan.code, `${work.read("c.yaml")}\n${plan.out}${plan.err}`).toBe(0);
    } finally {
      rmSync(work.dir, { recursive: true, force: true });
    }
  });
});

/** Any string: YAML's indicators and markers, and every code unit (lone surrogates too). */
const dspString = fc.oneof(
  fc.constantFrom(
    "*alias",
    "<<",
    "...",
    "--- b",
    "---",
    "&a",
    "!t",
    "%x",
    "@x",
    "? x",
    "- x",
    "#1",
    "a: b",
    "",
    " ",
  ),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.string({ unit: fc.constantFrom(..."*&!|>'\"%@`#:-?[]{},. \t\n\r\u2028\u0085\ufeff"), maxLength: 8 }),
);
const pacing = fc.dictionary(
  dspString,
  fc.oneof(
    dspString,
    fc.array(dspString, { maxLength: 3 }),
    fc.dictionary(dspString, dspString, { maxKeys: 2 }),
  ),
  { maxKeys: 4 },
);

const WRITTEN = {
  flow: "pacing: { strategy: even }",
  block: "pacing:\n          strategy: even",
  nested: "pacing:\n          steps:\n            first: even",
};

function fileWith(contract: string, pacingText: string): string {
  return `version: 1
insertion_orders:
  - id: "1001"
    contract_number: ${contract}
    campaigns:
      - name: Airports
        id: "5001"
        ${pacingText}
`;
}

function item(field: string, path: string, live: JsonValue, kind: PullItem["kind"]): PullItem {
  const address = field === "pacing" ? "campaign.1001/Airports" : "insertion_order.1001";
  return { address, field, file: "c.yaml", line: 4, path, config: null, live, kind };
}

describe("pull's writing of DSP strings, for any string", () => {
  it("writes values and keys that the config loader reads back identical", () => {
    fc.assert(
      fc.property(
        dspString,
        pacing,
        fc.constantFrom("PO-1", "'PO-1'", '"PO-1"'),
        fc.constantFrom(...Object.values(WRITTEN)),
        (contract, live, written, pacingText) => {
          const text = fileWith(written, pacingText);
          const edit = editFile({
            file: "c.yaml",
            text,
            items: [
              item("contract_number", "insertion_orders[0].contract_number", contract, "scalar"),
              item("pacing", "insertion_orders[0].campaigns[0].pacing", live, "object"),
            ],
            readers: () => [],
          });
          expect(edit.notPulled).toEqual([]);
          const read = parseYaml(edit.text, "c.yaml");
          expect(read.issues).toEqual([]);
          const io = (read.value as { insertion_orders: Record<string, unknown>[] }).insertion_orders[0]!;
          expect(io.contract_number).toBe(contract);
          expect((io.campaigns as Record<string, unknown>[])[0]!.pacing).toEqual(live);
          expect(edit.text).not.toMatch(/[\u2028\u2029\u0085\ufeff\r]|\p{Cs}/u); // UTF-8 holds the text as it is
        },
      ),
      { numRuns: 200 },
    );
  });

  it("names a key no YAML scalar on one line can hold, pulls nothing of it, and never throws", () => {
    const long = "k".repeat(1100); // YAML's implicit keys end at 1024 characters
    const edit = editFile({
      file: "c.yaml",
      text: fileWith("PO-1", WRITTEN.flow),
      items: [item("pacing", "insertion_orders[0].campaigns[0].pacing", { [long]: "x" }, "object")],
      readers: () => [],
    });
    expect(edit.splices).toEqual([]);
    expect(edit.notPulled).toEqual([
      expect.objectContaining({
        address: "campaign.1001/Airports",
        field: "pacing",
        file: "c.yaml",
        reason: expect.stringMatching(
          /^the key "k{60}…" cannot be written as YAML that reads back the same: edit it by hand$/,
        ),
      }),
    ]);
  });
});
