/**
 * The one description of each resource's members (src/model/resource-fields.ts): the schema
 * files hold what it makes, the emulator's own table (src/emulator/members.ts: the oracle keeps
 * its own) agrees with it, and a field added to a copy of a table reaches every consumer that
 * takes the table.
 */
import { readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import { RESOURCE_SCHEMA_PARTS } from "../../scripts/gen-targeting-schemas.js";
import { memberProblems } from "../../src/cli/doctor/checks.js";
import { apiOwnedKey } from "../../src/config/api-owned.js";
import { normalizeFile } from "../../src/config/normalize.js";
import { parseYaml } from "../../src/config/yaml/read.js";
import {
  CAMPAIGN_MEMBERS,
  CREATIVE_MEMBERS,
  INSERTION_ORDER_MEMBERS,
  type Member,
  type Members,
  memberNames,
} from "../../src/emulator/members.js";
import { Money } from "../../src/model/money.js";
import {
  CAMPAIGN_FIELDS,
  CREATIVE_FIELDS,
  type DeclaredOf,
  type FieldFlag,
  type FieldSpec,
  INSERTION_ORDER_FIELDS,
  RESOURCES,
  type ResourceTable,
  withFlag,
} from "../../src/model/resource-fields.js";
import { configResourceSchema, contractResourceSchema } from "../../src/model/resource-schemas.js";
import { campaignCreateItem } from "../../src/plan/changes/campaign-creation.js";
import { diffFields, patchOf } from "../../src/plan/changes/compare.js";
import { snapshotOf } from "../../src/plan/saved/fingerprint.js";
import { exportFields } from "../../src/render/export.js";
import { liveCampaign } from "../helpers/builders.js";

type Json = Record<string, unknown>;
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Json;
const at = (doc: Json, path: readonly string[]) =>
  path.reduce<unknown>((node, key) => (node as Json | undefined)?.[key], doc) as Json;
const names = (fields: readonly FieldSpec[], flag: FieldFlag) => withFlag(fields, flag).map((f) => f.name);

const OUT_OF_DATE = "run `npm run build && node dist/scripts/gen-targeting-schemas.js`";

describe("the JSON schemas hold the resources' members as the tables describe them", () => {
  for (const { file, path, part } of RESOURCE_SCHEMA_PARTS) {
    it(`${file}, ${path.join("/")}`, () => {
      const existing = at(readJson(file), path);
      expect(existing, `${file} is out of date: ${OUT_OF_DATE}`).toEqual(part(existing));
    });
  }
});

describe("the tables", () => {
  for (const [resource, table] of Object.entries(RESOURCES as Record<string, ResourceTable>)) {
    it(`${resource}: names each member once; what is declared is documented; what is sent or compared is declared`, () => {
      const all = table.fields.map((f) => f.name);
      expect(new Set(all).size).toBe(all.length);
      for (const spec of withFlag(table.fields, "config")) expect(spec.docs?.text, spec.name).toBeTruthy();
      const declared = names(table.fields, "config");
      for (const flag of ["required", "create", "update", "compare", "pull"] as const) {
        expect(declared, flag).toEqual(expect.arrayContaining(names(table.fields, flag)));
      }
      expect(names(table.fields, "create")).toEqual(expect.arrayContaining(names(table.fields, "required")));
      // An API-owned member is never written.
      for (const spec of withFlag(table.fields, "api")) {
        expect(
          spec.flags.some((f) => ["config", "create", "update"].includes(f)),
          spec.name,
        ).toBe(false);
      }
    });
  }
});

describe("the config explains every member the API owns", () => {
  const titles = { insertionOrder: "Insertion order", campaign: "Campaign", creative: "Creative" } as const;
  for (const [resource, title] of Object.entries(titles)) {
    it(`${resource}: a config that declares one is told why not, and what to do`, () => {
      const table = RESOURCES[resource as keyof typeof titles];
      for (const { name } of withFlag<FieldSpec>(table.fields, "api")) {
        expect(apiOwnedKey(title, name), name).toMatch(/remove|list/);
      }
    });
  }
});

describe("the emulator's own table (the oracle's) agrees with the client's", () => {
  const emulator = {
    insertionOrder: INSERTION_ORDER_MEMBERS,
    campaign: CAMPAIGN_MEMBERS,
    creative: CREATIVE_MEMBERS,
  } as const satisfies Record<keyof typeof RESOURCES, Members>;
  const sameKind = { name: "text", count: "integer" } as Record<string, string>;
  const of = (members: Members, test: (m: Member) => boolean) => memberNames(members, test).sort();

  for (const [resource, members] of Object.entries(emulator)) {
    const fields = RESOURCES[resource as keyof typeof emulator].fields as readonly FieldSpec[];
    it(`${resource}: every member the client reads, of its kind; PATCH takes exactly the updatable ones, never the API's own`, () => {
      for (const spec of fields) {
        const member = (members as Members)[spec.name];
        expect(member, spec.name).toBeDefined();
        if (member?.kind === undefined) continue;
        expect(sameKind[member.kind] ?? member.kind, spec.name).toBe(spec.kind);
        expect(member.nullable === true, spec.name).toBe(spec.nullable === true);
      }
      // G6: a creative's associations are patched too, by the association rules.
      const associations = resource === "creative" ? ["campaign_ids", "insertion_order_ids"] : [];
      expect(of(members, (m) => m.patch === true)).toEqual(
        [...names(fields, "update"), ...associations].sort(),
      );
      for (const name of names(fields, "api"))
        expect((members as Members)[name]?.patch, name).toBeUndefined();
    });
  }

  it("campaigns: create takes and requires what the table says (G3), besides its identity and active (I2)", () => {
    const besides = (list: string[]) =>
      list.filter((k) => !["insertion_order_id", "name", "active"].includes(k));
    const fields = RESOURCES.campaign.fields;
    expect(besides(of(CAMPAIGN_MEMBERS, (m) => m.create !== undefined))).toEqual(
      names(fields, "create").sort(),
    );
    expect(besides(of(CAMPAIGN_MEMBERS, (m) => m.create === "required"))).toEqual(
      names(fields, "required").sort(),
    );
  });
});

describe("a field added to a copy of the campaign table (an integer frequency_cap) reaches every consumer", () => {
  const frequencyCap = {
    name: "frequency_cap",
    kind: "integer",
    flags: ["config", "create", "update", "compare", "fingerprint", "export", "pull"],
    docs: { text: "Most impressions a screen shows per hour.", example: 4 },
  } as const satisfies FieldSpec;
  const fields = [...CAMPAIGN_FIELDS, frequencyCap] as const;
  const table: ResourceTable = { ...RESOURCES.campaign, fields };
  const live = { ...liveCampaign({ id: "7" }), frequency_cap: 3 };
  const cpm = Money.parse("12.50 USD");

  it("types: the declared fields take it, as a number", () => {
    expectTypeOf<DeclaredOf<typeof fields>>()
      .toHaveProperty("frequency_cap")
      .toEqualTypeOf<number | undefined>();
  });

  it("the config schema's fragment and the contract's read, PATCH and create schemas", () => {
    const config = configResourceSchema(
      table,
      at(readJson("schemas/doohctl.schema.json"), ["$defs", "campaign"]),
    );
    expect((config.properties as Json).frequency_cap).toEqual({
      description: "Most impressions a screen shows per hour.",
      type: "integer",
      minimum: 0,
      maximum: 9007199254740991,
      examples: [4],
    });
    const contract = readJson("schemas/dsp-api.openapi.json");
    for (const name of ["Campaign", "CampaignChanges", "CampaignPatchItem", "CampaignCreate"]) {
      const schema = contractResourceSchema(table, name, at(contract, ["components", "schemas", name]));
      expect((schema.properties as Json).frequency_cap, name).toEqual({ type: "integer", minimum: 0 });
    }
    const read = contractResourceSchema(
      table,
      "Campaign",
      at(contract, ["components", "schemas", "Campaign"]),
    );
    expect(read.required).toContain("frequency_cap");
  });

  it("the normalization: a config declaring it holds it, with where it was written", () => {
    const text =
      'version: 1\ninsertion_orders:\n  - id: "1001"\n    campaigns:\n      - name: c\n        frequency_cap: 5\n';
    const parsed = parseYaml(text, "cap.yaml");
    const tables = { insertionOrder: INSERTION_ORDER_FIELDS, campaign: fields, creative: CREATIVE_FIELDS };
    const { result, issues } = normalizeFile(parsed.value as Record<string, unknown>, parsed.index, tables);
    expect(issues).toEqual([]);
    const campaign = result.insertionOrders[0]!.campaigns[0]!;
    expect(campaign.fields).toEqual({ frequency_cap: 5 });
    expect(campaign.fieldSources).toMatchObject({ frequency_cap: { file: "cap.yaml", line: 6 } });
  });

  it("the comparison: declared 5, live 3 is a change; declared 3 is none", () => {
    expect(diffFields(fields, { frequency_cap: 5 }, live, {})).toEqual([
      { field: "frequency_cap", before: 3, after: 5 },
    ]);
    expect(diffFields(fields, { frequency_cap: 3 }, live, {})).toEqual([]);
  });

  it("the create body and the patch body", () => {
    const declared = {
      start_time: "2026-12-01T00:00:00Z",
      end_time: "2026-12-31T00:00:00Z",
      budget_impressions: 1000,
      cpm,
      frequency_cap: 5,
    };
    const { item } = campaignCreateItem("1001", { name: "c", fields: declared }, fields);
    expect(item).toEqual({ insertion_order_id: "1001", name: "c", ...declared, active: false });
    // cpm as live: unchanged, so not sent; active goes through the phases, never in this body.
    const declaredNow = { frequency_cap: 5, cpm: live.cpm, active: !live.active };
    const changes = diffFields(fields, declaredNow, live, {});
    expect(changes.map((c) => c.field)).toEqual(["active", "frequency_cap"]);
    expect(patchOf(fields, declaredNow, changes, ["active"])).toEqual({ frequency_cap: 5 });
  });

  it("the fingerprint and the export", () => {
    expect(snapshotOf(fields, live).frequency_cap).toBe(3);
    expect(snapshotOf(fields, { ...live, frequency_cap: 4 })).not.toEqual(snapshotOf(fields, live));
    expect(exportFields(fields, live).frequency_cap).toBe(3);
  });

  it("doctor: an answer without it, or with a text, differs", () => {
    expect(memberProblems(fields, live)).toEqual([]);
    const { frequency_cap: _, ...without } = live;
    expect(memberProblems(fields, without)).toEqual(["frequency_cap (missing)"]);
    expect(memberProblems(fields, { ...live, frequency_cap: "4" })).toEqual([
      'frequency_cap (saw "4": must be integer)',
    ]);
  });
});

describe("doctor judges the real tables' members through the contract", () => {
  it("a campaign whose cpm is a number, or that lacks pacing, differs; the emulator's shape holds", () => {
    const live = liveCampaign({ id: "7" });
    expect(memberProblems(CAMPAIGN_FIELDS, live)).toEqual([]);
    const { pacing: _, ...noPacing } = live;
    expect(memberProblems(CAMPAIGN_FIELDS, { ...noPacing, cpm: 12.5 })).toEqual([
      "cpm (saw 12.5: must be object)",
      "pacing (missing)",
    ]);
  });
});
