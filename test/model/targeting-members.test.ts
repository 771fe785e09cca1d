import { readFileSync } from "node:fs";
import { Ajv as Ajv07 } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { SEED_SCHEMA_FILE, splice, TARGETING_SCHEMA_FILES } from "../../scripts/gen-targeting-schemas.js";
import { configSchema } from "../../src/config/schema-file.js";
import { SEED_OPTION_SET } from "../../src/emulator/seed-schema.js";
import { TARGETING_OPTIONS, targetingOption } from "../../src/model/targeting-members.js";
import { checkSchema } from "../helpers/contract-check.js";

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Json = Record<string, unknown>;
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Json;
const at = (doc: Json, path: readonly string[]) =>
  path.reduce<unknown>((node, key) => (node as Json | undefined)?.[key], doc) as Json;

const OUT_OF_DATE = "run `npm run build && node dist/scripts/gen-targeting-schemas.js`";

describe("the description of the targeting option kinds", () => {
  it("names each member and each id list once, and only a deal option goes without exclude (G5)", () => {
    const members = TARGETING_OPTIONS.map((kind) => kind.member);
    const lists = TARGETING_OPTIONS.map((kind) => kind.ids.name);
    expect(new Set(members).size).toBe(members.length);
    expect(new Set(lists).size).toBe(lists.length);
    expect(TARGETING_OPTIONS.filter((kind) => !kind.exclude).map((kind) => kind.member)).toEqual([
      "deal_targeting_option",
    ]);
  });

  it("finds a kind by its member only: an inherited name is no member", () => {
    expect(targetingOption("venue_targeting_option")?.ids.name).toBe("venue_targeting_ids");
    expect(targetingOption("constructor")).toBeUndefined();
    expect(targetingOption("frequency_targeting_option")).toBeUndefined();
  });
});

describe("the JSON schemas hold the targeting parts the description makes", () => {
  for (const { file, path, part } of TARGETING_SCHEMA_FILES) {
    it(`${file}, ${path.join("/")}`, () => {
      expect(at(readJson(file), path), `${file} is out of date: ${OUT_OF_DATE}`).toEqual(part());
    });
  }

  it(`${SEED_SCHEMA_FILE}, the option set of a seeded campaign`, () => {
    const seed = readJson(SEED_SCHEMA_FILE);
    const set = at(seed, ["properties", "targetings", "additionalProperties", "items"]);
    expect(set, `${SEED_SCHEMA_FILE} is out of date: ${OUT_OF_DATE}`).toEqual(SEED_OPTION_SET);
  });

  it("splices a part into a file and leaves the rest of its text as it was", () => {
    const text = '{\n  "a": { "keep": [1, 2] },\n  "b": {\n    "c": {\n      "old": true\n    }\n  }\n}\n';
    expect(splice(text, ["b", "c"], { fresh: [1] })).toBe(
      '{\n  "a": { "keep": [1, 2] },\n  "b": {\n    "c": {\n      "fresh": [\n        1\n      ]\n    }\n  }\n}\n',
    );
    expect(() => splice(text, ["b", "missing"], {})).toThrow("b/missing not found");
  });
});

/** Each schema's check of one option set, as its users run it. */
const CHECKS: ReadonlyArray<{ schema: string; numeric: boolean; valid: (set: unknown) => boolean }> = [
  {
    // As an editor or a third-party validator reads it: strict, standard formats only.
    schema: "config (schemas/doohctl.schema.json)",
    numeric: true,
    valid: (() => {
      const ajv = new Ajv2020({ strict: true });
      addFormats(ajv);
      const validate = ajv.compile(structuredClone(configSchema()));
      return (set: unknown) =>
        validate({
          version: 1,
          insertion_orders: [{ id: "1", campaigns: [{ name: "c", targetings: [set] }] }],
        });
    })(),
  },
  {
    // As the client checks a PUT (src/api/contract.ts).
    schema: "contract (schemas/dsp-api.openapi.json)",
    numeric: true,
    valid: (set) => checkSchema("TargetingOptionSet", set).length === 0,
  },
  {
    // As the emulator loads a seed; venue type ids are its own reader's to check (numeric: false).
    schema: "emulator seed (schemas/emulator-seed.schema.json)",
    numeric: false,
    valid: (() => {
      const validate = new Ajv07({ strict: false }).compile(readJson(SEED_SCHEMA_FILE));
      return (set: unknown) => validate({ targetings: { "1": [set] } });
    })(),
  },
];

describe("each JSON schema takes and refuses option sets as the description says", () => {
  for (const { schema, numeric, valid } of CHECKS) {
    describe(schema, () => {
      for (const kind of TARGETING_OPTIONS) {
        const option = (fields: Json) => ({ [kind.member]: fields });
        it(`${kind.member}: a non-empty ${kind.ids.name}, exclude ${kind.exclude ? "allowed" : "refused"}`, () => {
          expect(valid(option({ [kind.ids.name]: ["12"] }))).toBe(true);
          expect(valid(option({ [kind.ids.name]: ["12"], exclude: true }))).toBe(kind.exclude);
          expect(valid(option({ [kind.ids.name]: ["12"], exclude: "yes" }))).toBe(false);
          expect(valid(option({ [kind.ids.name]: [] }))).toBe(false);
          expect(valid(option({}))).toBe(false);
          expect(valid(option({ [kind.ids.name]: ["12"], radius: 5 }))).toBe(false);
          if (numeric) expect(valid(option({ [kind.ids.name]: ["v-1"] }))).toBe(kind.ids.of !== "numeric");
        });
      }
      it("no set without a member, and no member the description does not name", () => {
        expect(valid({})).toBe(false);
        expect(valid({ frequency_targeting_option: { frequency_ids: ["1"] } })).toBe(false);
      });
    });
  }
});
