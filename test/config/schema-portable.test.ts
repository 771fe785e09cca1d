import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema-file.js";

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** The schema as a third-party validator or an editor reads it: strict, standard formats only. */
function portableValidator() {
  const ajv = new Ajv2020({ strict: true });
  addFormats(ajv);
  return ajv.compile(structuredClone(configSchema()));
}

describe("schemas/doohctl.schema.json is portable", () => {
  it("compiles under ajv strict mode with only the standard formats of ajv-formats", () => {
    expect(() => portableValidator()).not.toThrow();
  });

  it("still accepts an id, a money object and a pixel URL in each of their forms", () => {
    const validate = portableValidator();
    const document = {
      version: 1,
      insertion_orders: [
        {
          id: 1001,
          budget_money: { currency_code: "USD", units: 25000 },
          campaigns: [{ name: "c", cpm: { currency_code: "USD", units: "12", nanos: 500000000 } }],
        },
        { id: "1002", budget_money: "25000 USD" },
      ],
      creatives: [{ id: "3", pixel_url: "https://pixel.example.com/p?c={cachebuster}" }],
    };
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
  });

  it("refuses what the union types refused: a float id, a negative units, a units with letters, a URL without host", () => {
    const validate = portableValidator();
    const io = (patch: Record<string, unknown>) => ({
      version: 1,
      insertion_orders: [{ id: "1", ...patch }],
    });
    expect(validate({ version: 1, insertion_orders: [{ id: 1.5 }] })).toBe(false);
    expect(validate({ version: 1, insertion_orders: [{ id: -1 }] })).toBe(false);
    expect(validate(io({ budget_money: { currency_code: "USD", units: -1 } }))).toBe(false);
    expect(validate(io({ budget_money: { currency_code: "USD", units: "12a" } }))).toBe(false);
    expect(validate({ version: 1, creatives: [{ id: "3", pixel_url: "https:///p" }] })).toBe(false);
  });
});
