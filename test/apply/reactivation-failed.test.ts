/**
 * An apply reports exactly which reactivations failed (docs/apply.md, Interrupting): a
 * campaign is restored when the DSP shows it active, never because a reactivation was asked
 * for. The DSP here refuses every reactivation that includes South (422, nothing changed)
 * after letting North's through, so North is active again and South is not: the report names
 * South, and only South, as left paused, the recovery record keeps exactly South, and the next
 * plain apply (`active` still undeclared) brings South back without a duplicate.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { PUBLISHERS, seedCampaign, VENUES_A } from "../helpers/builders.js";
import { accountConfig, type CliAccount, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import {
  type InterceptingProxy,
  interceptingProxy,
  type OnRequest,
  readBody,
  relay,
} from "../helpers/proxy.js";

let account: CliAccount | undefined;
let proxy: InterceptingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await account?.close();
});

const ORDERS = [
  '  - id: "1001"',
  "    campaigns:",
  ...["North", "South"].flatMap((name) => [
    `      - name: ${name}`,
    '        targetings: [{ venue_targeting_option: { venue_targeting_ids: ["101", "102"] } }]',
  ]),
];

/** Whether the DSP refuses South's reactivation: until it changes its mind. */
let refusing = true;

/**
 * How the DSP refuses South's reactivation: a 422 (a 4xx, not retried), or a 200 whose
 * answer shows South still inactive (a DSP that accepts and quietly does not do it).
 */
type Refusal = "422" | "200 showing it inactive";

/**
 * Relays every request, but a PATCH reactivating South while `refusing`: its other campaigns
 * are reactivated, South is left as it was, and the answer is `refusal`.
 */
const southRefused =
  (target: string, refusal: Refusal): OnRequest =>
  (request, response, forward) => {
    void readBody(request).then(async (body) => {
      const text = body.toString("utf8");
      if (
        !refusing ||
        request.method !== "PATCH" ||
        !text.includes('"active":true') ||
        !text.includes('"5002"')
      ) {
        return relay(await forward(body), response);
      }
      const { campaigns } = JSON.parse(text) as { campaigns: { id: string; active: boolean }[] };
      const others = campaigns.filter((c) => c.id !== "5002");
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(
          ([k]) => !["content-length", "host", "connection"].includes(k),
        ),
      ) as Record<string, string>;
      const send = async (method: string, path: string, payload?: unknown) => {
        const answer = await fetch(`${target}${path}`, {
          method,
          headers,
          ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
        });
        expect(answer.status).toBe(200);
        return (await answer.json()) as Record<string, unknown>;
      };
      const carried =
        others.length > 0
          ? ((await send("PATCH", request.url!, { campaigns: others })).campaigns as unknown[])
          : [];
      if (refusal === "422") {
        response.writeHead(422, { "content-type": "application/json" });
        response.end(JSON.stringify({ message: "campaign 5002 cannot be activated now" }));
        return;
      }
      const south = await send("GET", "/api/dsp/v1/campaigns/5002");
      expect(south.active).toBe(false);
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ campaigns: [...carried, south] }));
    });
  };

/** The campaign ids every recovery record file of the state directory keeps. */
function recorded(stateDir: string): string[] {
  const ids: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".json")) {
        const file = JSON.parse(readFileSync(path, "utf8")) as { paused?: { campaign_id: string }[] };
        for (const p of file.paused ?? []) ids.push(p.campaign_id);
      }
    }
  };
  walk(stateDir);
  return ids.sort();
}

describe("a reactivation the DSP refuses", () => {
  it.each<Refusal>(["422", "200 showing it inactive"])(
    "answered %s: named, alone, as left paused; the record keeps exactly it; the next apply restores it",
    async (refusal) => {
      refusing = true;
      account = await startCliAccount({
        campaigns: [
          seedCampaign("5001", "1001", "North", { active: true }),
          seedCampaign("5002", "1001", "South", { active: true }),
        ],
        seed: { targetings: { "5001": [VENUES_A, PUBLISHERS], "5002": [VENUES_A, PUBLISHERS] } },
      });
      proxy = await interceptingProxy(account.emulator.origin, {
        onRequest: southRefused(account.emulator.origin, refusal),
      });
      writeFileSync(join(account.dir, "doohctl.yaml"), accountConfig(proxy.origin, ORDERS));
      const stateDir = join(account.dir, "state");
      const env = { ...account.env, DOOHCTL_STATE_DIR: stateDir };
      // One address throughout: the recovery record is keyed by the origin.
      const apply = async () => {
        const io = bufferIO({ cwd: account!.dir, env });
        const code = await run(["apply", "--auto-approve"], io);
        return { code, out: io.out(), err: io.err() };
      };

      const first = await apply();
      expect(first.code).toBe(1);
      expect(first.out).toContain(
        "Delivery restored: 1 campaign this apply had paused for targeting changes is active again (5001).",
      );
      expect(first.out).toMatch(
        /LEFT PAUSED by this apply \(1\)[^\n]*\n {2}campaign 5002 "South" \(insertion order 1001\)\n {2}Reactivating them failed/,
      );
      expect(first.out).not.toMatch(/LEFT PAUSED[^\n]*\n[^\n]*5001/);
      const active = () =>
        Object.fromEntries(account!.emulator.state().campaigns.map((c) => [c.id, c.active]));
      expect(active()).toEqual({ "5001": true, "5002": false });
      expect(recorded(stateDir)).toEqual(["5002"]);

      // The DSP lets it through now: a plain apply, `active` still undeclared, reactivates South.
      refusing = false;
      const next = await apply();
      expect(next.code, next.out + next.err).toBe(0);
      expect(active()).toEqual({ "5001": true, "5002": true });
      expect(account.emulator.state().campaigns).toHaveLength(2);
      expect(recorded(stateDir)).toEqual([]);
    },
  );
});
