/**
 * Every table of option members is taken from the one description (src/model/targeting-members.ts):
 * for each kind it describes, each consumer handles that kind's member, id list and exclude
 * as the description says (issue 27 item 8).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { keptAnswer } from "../../src/api/tolerant.js";
import { targetingProblems } from "../../src/cli/doctor/checks.js";
import { ConfigError, type ConfigIssue } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";
import { Issues } from "../../src/emulator/errors.js";
import { readOptionSet } from "../../src/emulator/routes/targetings.js";
import { Targeting, type TargetingOptionSet } from "../../src/model/targeting.js";
import { TARGETING_OPTIONS } from "../../src/model/targeting-members.js";
import { describeSet } from "../../src/render/format.js";

const set = (member: string, fields: Record<string, unknown>) => ({ [member]: fields }) as TargetingOptionSet;

/** The issues of a config of one campaign whose targetings are `targetings` (YAML flow text). */
async function configIssues(targetings: string): Promise<ConfigIssue[]> {
  const text = `version: 1\ninsertion_orders:\n  - id: "1001"\n    campaigns:\n      - name: c\n        targetings:\n          - ${targetings}\n`;
  const files = {
    cwd: "/cfg",
    readFile: async (path: string) => {
      if (path !== "/cfg/doohctl.yaml") throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
      return new TextEncoder().encode(text);
    },
    listDirectory: async () => undefined,
  };
  try {
    await loadConfig([], files);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return [...error.issues];
    throw error;
  }
}

const contractSchemas = (
  JSON.parse(readFileSync("schemas/dsp-api.openapi.json", "utf8")) as {
    components: { schemas: Record<string, Record<string, unknown>> };
  }
).components.schemas;

describe.each(TARGETING_OPTIONS)("the option kind $member, in every table", (kind) => {
  const ids = kind.ids.name;

  it("model: normalizes its id list as a set, with exclude false when absent only where it takes one", () => {
    expect(Targeting.normalizeSet(set(kind.member, { [ids]: ["3", "12", "3"] }))).toEqual(
      set(kind.member, kind.exclude ? { [ids]: ["3", "12"], exclude: false } : { [ids]: ["3", "12"] }),
    );
  });

  it("render: names its ids in words, with `not` where it is excluded", () => {
    expect(describeSet(set(kind.member, { [ids]: ["3", "12"] }))).toBe(`${kind.words} 3, 12`);
    if (kind.exclude) {
      expect(describeSet(set(kind.member, { [ids]: ["3"], exclude: true }))).toBe(`not ${kind.words} 3`);
    }
  });

  it("doctor: finds its shape sound by the contract, and its id list not a list of strings when it is not", () => {
    expect(
      targetingProblems([set(kind.member, { [ids]: ["3"], ...(kind.exclude ? { exclude: true } : {}) })]),
    ).toEqual([]);
    expect(targetingProblems([set(kind.member, { [ids]: [3] })])).toEqual([
      `targetings/0/${kind.member}/${ids}/0: must be string`,
    ]);
  });

  it("config: an id of its list written as a number must read back as written", async () => {
    const issues = await configIssues(`${kind.member}: { ${ids}: ["3", 0017] }`);
    expect(issues.map((i) => [i.code, i.path])).toEqual([
      ["ID_NOT_AS_WRITTEN", `insertion_orders[0].campaigns[0].targetings[0].${kind.member}.${ids}[1]`],
    ]);
  });

  it("client: keeps its id list, and its exclude only where it takes one (else marks it unknown, G14)", () => {
    const kept = keptAnswer(contractSchemas, "Targetings", {
      targetings: [set(kind.member, { [ids]: ["3"], exclude: true })],
    }).kept as { targetings: TargetingOptionSet[] };
    expect(kept.targetings).toEqual([
      kind.exclude
        ? set(kind.member, { [ids]: ["3"], exclude: true })
        : { ...set(kind.member, { [ids]: ["3"] }), unknown_members: [`${kind.member}.exclude`] },
    ]);
  });

  it("emulator: reads its option, refusing exclude where it takes none and non-numeric ids where they are numeric", () => {
    const read = (fields: Record<string, unknown>) => {
      const issues = new Issues();
      const result = readOptionSet(issues, "targetings[0]", { [kind.member]: fields });
      return { result, fields: issues.toData().map((d) => d.field) };
    };
    expect(read({ [ids]: ["12"] }).result).toEqual(
      Targeting.normalizeSet(set(kind.member, { [ids]: ["12"] })),
    );
    expect(read({ [ids]: ["12"], exclude: true }).fields).toEqual(
      kind.exclude ? [] : [`targetings[0].${kind.member}.exclude`],
    );
    expect(read({ [ids]: ["v-1"] }).fields).toEqual(
      kind.ids.of === "numeric" ? [`targetings[0].${kind.member}.${ids}`] : [],
    );
  });
});
