/**
 * G14, exhaustively: every member doohctl decides with (src/api/members.ts: all the contract
 * names but the undecided ones), of each object kind a plan reads, answered absent, `null`
 * (where the contract forbids it) and of the wrong type, stops plan and apply before any
 * write (exit 1), naming where. Over real HTTP: a proxy rewrites the emulator's answers.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNDECIDED_MEMBERS, UNSET_ALLOWED_MEMBERS } from "../../src/api/members.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedCampaign, seedCreative } from "../helpers/builders.js";
import { accountConfig, loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { type Answer, answeringProxy, send } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";

const CONTRACT = JSON.parse(
  readFileSync(new URL("../../schemas/dsp-api.openapi.json", import.meta.url), "utf8"),
) as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } };

const LINES = [
  '  - id: "1001"',
  "    contract_number: PO-42",
  "    campaigns:",
  "      - name: Malls",
  "        budget_impressions: 150000",
  '        creatives: ["9001"]',
];

let emulator: RunningEmulator;
let dir: string;
beforeAll(async () => {
  emulator = (
    await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5001", "1001", "Malls")],
      seed: { creatives: [seedCreative("9001")] },
    })
  ).emulator;
  dir = mkdtempSync(join(tmpdir(), "doohctl-decided-"));
});
afterAll(() => emulator.close());

type Json = Record<string, unknown>;

/** Whether the contract lets `member` of `schema` be null. */
function nullable(schema: string, member: string): boolean {
  const property = CONTRACT.components.schemas[schema]?.properties[member] ?? {};
  const types = Array.isArray(property.type) ? property.type : [property.type];
  const branches = (property.oneOf ?? property.anyOf ?? []) as Json[];
  return types.includes("null") || branches.some((b) => b.type === "null");
}

/** A value of another JSON type than the member's. */
const mistyped = (value: unknown): unknown => (typeof value === "number" ? "not-this-type" : 12345);

const KINDS = [
  { schema: "InsertionOrder", envelope: "insertion_orders" },
  { schema: "Campaign", envelope: "campaigns" },
  { schema: "Creative", envelope: "creatives" },
] as const;

async function both(answer: Answer): Promise<string[]> {
  const proxy = await answeringProxy(emulator.origin, answer);
  try {
    writeFileSync(join(dir, "doohctl.yaml"), accountConfig(proxy.origin, LINES));
    const texts: string[] = [];
    for (const args of [["plan"], ["apply", "--auto-approve"]]) {
      const io = bufferIO({ env: { ...loginEnv(USER, dir), DOOHCTL_SESSION_CACHE: "off" }, cwd: dir });
      const code = await run(args, io);
      expect(code, `${args[0]}: ${io.err()}`).toBe(1);
      texts.push(io.err() + io.out());
    }
    expect(proxy.writes()).toEqual([]);
    return texts;
  } finally {
    await proxy.close();
  }
}

describe("every member doohctl decides with, absent, null or mistyped, stops plan and apply", () => {
  for (const { schema, envelope } of KINDS) {
    const undecided = UNDECIDED_MEMBERS[schema] ?? [];
    const unsetAllowed = UNSET_ALLOWED_MEMBERS[schema] ?? [];
    const members = Object.keys(CONTRACT.components.schemas[schema]?.properties ?? {}).filter(
      // progress is asked for on one read only: test/api/tolerant-reader.test.ts covers it.
      (m) => !undecided.includes(m) && m !== "progress",
    );
    for (const member of members) {
      const corruptions: Array<[string, (item: Json) => void]> = [
        ["mistyped", (item) => (item[member] = mistyped(item[member]))],
      ];
      if (!unsetAllowed.includes(member)) corruptions.push(["absent", (item) => delete item[member]]);
      if (!unsetAllowed.includes(member) && !nullable(schema, member)) {
        corruptions.push(["null", (item) => (item[member] = null)]);
      }
      for (const [how, corrupt] of corruptions) {
        it(`${schema}.${member} ${how}`, async () => {
          const answer: Answer = async (seen, response, upstream) => {
            if (seen.method !== "GET" || !new RegExp(`/${envelope}$`).test(seen.path)) return false;
            const up = await upstream();
            const body = JSON.parse(up.body) as Json;
            const items = (body[envelope] as Json[] | undefined) ?? [];
            for (const item of items) corrupt(item);
            send(response, { ...up, body: JSON.stringify(body) });
            return true;
          };
          for (const text of await both(answer)) expect(text).toContain(`at /${envelope}/0/${member}`);
        });
      }
    }
  }
});
