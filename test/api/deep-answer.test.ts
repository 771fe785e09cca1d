/**
 * Deep answers (docs/api-client.md, How much is read): a DSP answer nested deeper than
 * MAX_NESTING_DEPTH (64) is refused unread with a named error (the endpoint and the limit),
 * like the 64 MiB cap. A `pacing` 7,000 levels deep crashed `plan` with "Maximum call stack
 * size exceeded", and failed an apply's reactivation request while the apply still reported
 * the campaign restored.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { jsonTooDeepAt, MAX_NESTING_DEPTH, valueTooDeepAt } from "../../src/model/json-depth.js";
import { PUBLISHERS, seedCampaign, VENUES_A } from "../helpers/builders.js";
import {
  accountConfig,
  type CliAccount,
  type CliAccountOptions,
  startCliAccount,
} from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import {
  type InterceptingProxy,
  interceptingProxy,
  type OnRequest,
  readBody,
  relay,
} from "../helpers/proxy.js";

/** `{"a":{"a":...1...}}`, `levels` objects deep. */
function deep(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { level: levels };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** Seven thousand levels, as text: no JSON.stringify of it could run in a test worker. */
const DEEP_TEXT = `${'{"a":'.repeat(7000)}1${"}".repeat(7000)}`;

let account: CliAccount | undefined;
afterEach(async () => {
  await account?.close();
  account = undefined;
});

async function cli(args: string[]) {
  const io = bufferIO({ cwd: account!.dir, env: account!.env });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe("the depth scan", () => {
  it("counts brackets outside strings only, escaped quotes included", () => {
    const inString = JSON.stringify({ s: `${"[".repeat(500)}\\"${"{".repeat(500)}` });
    expect(jsonTooDeepAt(inString)).toBeUndefined();
    const at64 = `${"[".repeat(64)}${"]".repeat(64)}`;
    expect(jsonTooDeepAt(at64)).toBeUndefined();
    expect(jsonTooDeepAt(`[${at64}]`)).toBe(64);
    expect(valueTooDeepAt(JSON.parse(at64))).toBeUndefined();
    expect(valueTooDeepAt({ x: [JSON.parse(at64)] })).toEqual(["x", 0, ...Array(62).fill(0)]);
  });

  it("finds 7,000 levels at the 65th, without recursion", () => {
    // The 65th `{` of `{"a":{"a":...`, five characters each.
    expect(jsonTooDeepAt(DEEP_TEXT)).toBe(MAX_NESTING_DEPTH * 5);
    expect(valueTooDeepAt(deep(7000))).toHaveLength(MAX_NESTING_DEPTH);
  });
});

/**
 * A DSP that answers `pacing` 7,000 levels deep on the requests `when` picks (after they are
 * carried out by the emulator behind it), and relays the rest unchanged.
 */
function deepening(when: (method: string, path: string, body: string) => boolean): OnRequest {
  return (request, response, forward) => {
    void readBody(request).then(async (body) => {
      const answer = await forward(body);
      if (!when(request.method ?? "", request.url ?? "", body.toString("utf8")))
        return relay(answer, response);
      const text = (await readBody(answer))
        .toString("utf8")
        .replaceAll('"pacing":{}', `"pacing":${DEEP_TEXT}`);
      const { "content-length": _, ...headers } = answer.headers;
      response.writeHead(answer.statusCode ?? 502, headers);
      response.end(text);
    });
  };
}

let proxy: InterceptingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

/** The account, its config aimed at a deepening proxy in front of the emulator. */
async function deepAccount(
  when: (method: string, path: string, body: string) => boolean,
  options: CliAccountOptions,
  orders: readonly string[],
) {
  account = await startCliAccount({ ...options, prefix: "doohctl-deep-answer-" });
  proxy = await interceptingProxy(account.emulator.origin, { onRequest: deepening(when) });
  writeFileSync(join(account.dir, "doohctl.yaml"), accountConfig(proxy.origin, orders));
}

describe("a campaign whose pacing the DSP answers 7,000 levels deep", () => {
  it("plan stops with the endpoint and the limit, not a stack overflow", async () => {
    await deepAccount(
      (method, path) => method === "GET" && path.startsWith("/api/dsp/v1/campaigns"),
      { campaigns: [seedCampaign("5001", "1001", "Deep", { active: true })] },
      ['  - id: "1001"', "    campaigns:", "      - name: Deep", "        budget_impressions: 200000"],
    );
    const planned = await cli(["plan"]);
    expect(planned.code).not.toBe(0);
    expect(planned.err).not.toContain("Maximum call stack");
    expect(planned.err).toMatch(
      /GET \/api\/dsp\/v1\/campaigns\S*: the DSP's answer nests objects or arrays more than 64 levels deep/,
    );
    expect(account!.emulator.state().campaigns[0]?.budget_impressions).toBe(100_000);
  });

  it("apply whose reactivation is answered deep reads the campaigns back: the write happened, and the apply finishes", async () => {
    await deepAccount(
      (method, path, body) =>
        method === "PATCH" && path === "/api/dsp/v1/campaigns" && body.includes('"active":true'),
      {
        campaigns: [
          seedCampaign("5001", "1001", "North", { active: true }),
          seedCampaign("5002", "1001", "South", { active: true }),
        ],
        seed: { targetings: { "5001": [VENUES_A, PUBLISHERS], "5002": [VENUES_A, PUBLISHERS] } },
      },
      [
        '  - id: "1001"',
        "    campaigns:",
        ...["North", "South"].flatMap((name) => [
          `      - name: ${name}`,
          '        targetings: [{ venue_targeting_option: { venue_targeting_ids: ["101", "102"] } }]',
        ]),
      ],
    );
    const applied = await cli(["apply", "--auto-approve", "--format", "json"]);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.err).not.toContain("Maximum call stack");
    const result = JSON.parse(applied.out) as {
      status: string;
      applied: { method: string; unreadable_answer?: string }[];
      left_paused: unknown[];
    };
    // A 2xx is an applied write: its answer unread, the campaigns read back show them active.
    expect(result.status).toBe("applied");
    expect(result.applied.at(-1)).toMatchObject({
      method: "PATCH",
      unreadable_answer: "nested more than 64 levels deep",
    });
    expect(result.left_paused).toEqual([]);
    expect(account!.emulator.state().campaigns.map((c) => [c.id, c.active])).toEqual([
      ["5001", true],
      ["5002", true],
    ]);
  });
});
