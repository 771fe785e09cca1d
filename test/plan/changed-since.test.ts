/**
 * `plan --changed-since REF` over real HTTP against the emulator, in a temporary git
 * repository: 90 campaigns in three insertion orders, matched by name (no pinned ids), the
 * config committed, then edited in the working tree.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { configFiles, generateScenario } from "../../bench/scenario.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import type { Plan } from "../../src/plan/types.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";

const scenario = generateScenario({
  insertionOrders: 3,
  campaignsPerOrder: 30,
  creativesPerOrder: 2,
  seed: 15,
});
for (const io of scenario.config.insertion_orders) {
  for (const c of io.campaigns as Record<string, unknown>[]) delete c.id;
}
const FILES = configFiles(scenario, 3);

let emulator: RunningEmulator;
let repo: string;
let getsBefore = 0;

beforeAll(async () => {
  // Rate limits off: this file logs in once a test; pacing has its own tests.
  emulator = (await startCliAccount({ seed: { ...scenario.live, users: [USER] } })).emulator;
});
afterAll(async () => {
  await emulator.close();
});

function git(...args: string[]): string {
  return execFileSync("git", ["-c", "user.email=t@doohctl.test", "-c", "user.name=t", ...args], {
    cwd: repo,
    encoding: "utf8",
  });
}

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), "doohctl-changed-"));
  mkdirSync(join(repo, "conf"));
  for (const f of FILES) writeFileSync(join(repo, "conf", f.name), f.text);
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "base");
  getsBefore = allGets();
  return () => rmSync(repo, { recursive: true, force: true });
});

/** Rewrites one config file of the working tree. */
function edit(file: number, change: (text: string) => string) {
  const path = join(repo, "conf", FILES[file]!.name);
  const before = readFileSync(path, "utf8");
  const after = change(before);
  expect(after).not.toBe(before);
  writeFileSync(path, after);
}

async function plan(args: string[] = [], format = "json") {
  const io = bufferIO({
    env: { DOOHCTL_API_ORIGIN: emulator.origin, DOOHCTL_EMAIL: USER.email, DOOHCTL_PASSWORD: USER.password },
    cwd: repo,
  });
  const code = await run(["plan", "conf", "--format", format, "--no-session-cache", ...args], io);
  return { code, out: io.out(), err: io.err() };
}

async function scopedPlan(ref = "main"): Promise<Plan> {
  const result = await plan(["--changed-since", ref]);
  expect(result.err).not.toMatch(/error/i);
  expect(result.code).toBe(0);
  return JSON.parse(result.out) as Plan;
}

const allGets = () => emulator.requestLog().filter((e) => e.method === "GET").length;
const gets = () => allGets() - getsBefore;

describe("plan --changed-since", () => {
  it("plans a change to one campaign among 90 alone, with a handful of reads", async () => {
    edit(1, (t) =>
      t.replace(/(name: Campaign 7 of 1002\n(?:.*\n)*?\s+budget_impressions: )10000/, "$111000"),
    );
    const p = await scopedPlan();
    expect(p.changes.map((c) => [c.kind, c.address])).toEqual([
      ["update_campaign", "campaign.1002/Campaign 7 of 1002"],
    ]);
    // One insertion order, its campaigns (one page), one targeting read, one creatives
    // read, the inactive campaigns in flight of the other orders (state-free restoration), and
    // its advertiser to name it in the money table (ceil(1 / 100) = 1): 6 + 1.
    expect(gets()).toBeLessThanOrEqual(6 + 1);
    expect(p.summary.read_requests).toBe(gets());
    expect(p.scope).toMatchObject({
      since: "main",
      insertion_orders: [],
      campaigns: [{ insertion_order_id: "1002", name: "Campaign 7 of 1002", added: false }],
      removed_campaigns: [],
      creatives: [],
      not_refreshed: 3 + 90 - 1,
    });
    expect(p.scope?.commit).toBe(git("rev-parse", "main").trim());
  });

  it("plans nothing and reads only the inactive campaigns in flight when nothing changed since REF", async () => {
    const p = await scopedPlan();
    expect(p.changes).toEqual([]);
    // State-free restoration: the campaigns declared active that are inactive and in flight.
    expect(gets()).toBe(1);
    expect(p.scope?.not_refreshed).toBe(93);
  });

  it("says every rendering is scoped, since what, and that drift elsewhere is not shown", async () => {
    edit(0, (t) => t.replace("budget_impressions: 900000", "budget_impressions: 910000"));
    for (const format of ["text", "markdown"]) {
      const { out, code } = await plan(["--changed-since", "main"], format);
      expect(code).toBe(0);
      expect(out).toMatch(
        /scoped to changes since main \([0-9a-f]{12}\): 1 insertion order changed; 92 declared objects not refreshed, so drift elsewhere is not shown/,
      );
    }
  });

  it("plans an insertion order's own change without its campaigns", async () => {
    edit(0, (t) => t.replace("budget_impressions: 900000", "budget_impressions: 910000"));
    const p = await scopedPlan();
    expect(p.changes.map((c) => [c.kind, c.address])).toEqual([
      ["update_insertion_order", "insertion_order.1001"],
    ]);
    // The order, its campaigns and restoration, + ceil(1 advertiser / 100) = 1 for the money table.
    expect(gets()).toBeLessThanOrEqual(3 + 1);
  });

  it("plans a creative association change of one campaign", async () => {
    const before = scenario.config.insertion_orders[2]!.campaigns[3] as { creatives: string[] };
    const creative = "9005";
    const has = before.creatives.includes(creative);
    edit(2, (t) =>
      t.replace(/(name: Campaign 4 of 1003\n(?:.*\n)*?\s+creatives: )\[[^\]]*\]/, (_, head: string) => {
        const next = has ? before.creatives.filter((c) => c !== creative) : [...before.creatives, creative];
        return `${head}[ ${next.map((c) => `"${c}"`).join(", ")} ]`;
      }),
    );
    const p = await scopedPlan();
    expect(p.changes).toHaveLength(1);
    expect(p.changes[0]).toMatchObject({ kind: has ? "dissociate_creative" : "associate_creative" });
    // + ceil(1 advertiser / 100) = 1 to name the order's advertiser in the money table.
    expect(gets()).toBeLessThanOrEqual(6 + 1);
  });

  it("warns that a removed campaign block stays live (DOOH011) and plans nothing for it", async () => {
    const removed = liveActive("1001");
    edit(0, (t) => removeBlock(t, removed.name));
    const p = await scopedPlan();
    expect(p.changes).toEqual([]);
    expect(p.scope?.removed_campaigns).toEqual([{ insertion_order_id: "1001", name: removed.name }]);
    expect(p.findings).toContainEqual(
      expect.objectContaining({
        code: "DOOH011",
        severity: "warning",
        address: `campaign.1001/${removed.name}`,
      }),
    );
  });

  it("deactivates a removed campaign with unmanaged_campaigns: deactivate, and nothing else", async () => {
    const removed = liveActive("1001");
    edit(0, (t) => t.replace('- id: "1001"\n', '- id: "1001"\n    unmanaged_campaigns: deactivate\n'));
    git("commit", "-q", "-am", "deactivate unmanaged");
    edit(0, (t) => removeBlock(t, removed.name));
    const p = await scopedPlan();
    expect(p.changes.map((c) => [c.kind, c.address])).toEqual([
      ["deactivate_campaign", `campaign.1001/${removed.name}`],
    ]);
    expect(p.findings.map((f) => f.code)).not.toContain("DOOH011");
  });

  it("warns that a rename creates a new campaign next to the old one (DOOH012)", async () => {
    const old = liveActive("1002");
    edit(1, (t) => t.replace(`name: ${old.name}\n`, `name: ${old.name} (renamed)\n`));
    const p = await scopedPlan();
    expect(p.changes.map((c) => [c.kind, c.address])).toContainEqual([
      "create_campaign",
      `campaign.1002/${old.name} (renamed)`,
    ]);
    const rename = p.findings.find((f) => f.code === "DOOH012");
    expect(rename?.message).toContain(`campaign ${old.id} "${old.name}" of insertion order 1002 was renamed`);
    expect(rename?.message).toContain("keeps running next to it");
    expect(p.findings.map((f) => f.code)).not.toContain("DOOH011");
  });

  it("warns when a block the change adds takes over a live campaign by name (DOOH015), not once id is pinned", async () => {
    // The live campaign is no longer declared at REF; the change adds a block of its name, which
    // a reviewer reads as a new campaign, with a budget of its own.
    const live = liveActive("1001");
    const declared = readFileSync(join(repo, "conf", FILES[0]!.name), "utf8");
    edit(0, (t) => removeBlock(t, live.name));
    git("commit", "-q", "-am", "stop declaring one campaign");
    const block = blockOf(declared, live.name);
    const budget = live.budget_impressions + 1000;
    const added = block.replace(/budget_impressions: \d+/, `budget_impressions: ${budget}`);
    expect(added).not.toBe(block);
    edit(0, () => declared.replace(block, added));
    const p = await scopedPlan();
    expect(p.changes.map((c) => [c.kind, c.address])).toEqual([
      ["update_campaign", `campaign.1001/${live.name}`],
    ]);
    const takeover = p.findings.find((f) => f.code === "DOOH015");
    expect(takeover).toMatchObject({ severity: "warning", address: `campaign.1001/${live.name}` });
    expect(takeover?.message).toContain(`live campaign ${live.id} "${live.name}" of insertion order 1001`);
    expect(takeover?.message).toContain(
      `pin id: "${live.id}" if taking it over is meant, or choose another name`,
    );
    const text = await plan(["--changed-since", "main"], "text");
    expect(text.out).toMatch(
      new RegExp(`warning DOOH015: campaign "${live.name}" is new in the config since main`),
    );

    // Pinned, the block says which campaign it means: no warning; an edit of a declared one neither.
    const pinned = added.replace(/^(\s*)- name: (.*)$/m, `$1- name: $2\n$1  id: "${live.id}"`);
    edit(0, () => declared.replace(block, pinned));
    expect((await scopedPlan()).findings.map((f) => f.code)).not.toContain("DOOH015");
  });

  it("refuses an unknown REF, a directory outside git, and a path that did not exist at REF", async () => {
    const unknown = await plan(["--changed-since", "no-such-branch"]);
    expect(unknown.code).toBe(1);
    expect(unknown.out).toContain("--changed-since no-such-branch: no such revision in this repository");

    writeFileSync(join(repo, "extra.yaml"), FILES[0]!.text);
    const io = bufferIO({ env: { DOOHCTL_API_ORIGIN: emulator.origin }, cwd: repo });
    expect(await run(["plan", "extra.yaml", "--changed-since", "main"], io)).toBe(1);
    expect(io.err()).toContain("extra.yaml did not exist at main");

    rmSync(join(repo, ".git"), { recursive: true, force: true });
    const outside = await plan(["--changed-since", "main"]);
    expect(outside.code).toBe(1);
    expect(outside.out).toContain("is not inside a git repository");
    expect(gets()).toBe(0);
  });

  it("refuses --changed-since together with --target", async () => {
    const both = await plan(["--changed-since", "main", "--target", "1001"]);
    expect(both.code).toBe(1);
    expect(both.out).toContain("--changed-since and --target both narrow the plan: use one of them");
  });

  it("apply --changed-since applies only the change", async () => {
    edit(2, (t) =>
      t.replace(/(name: Campaign 11 of 1003\n(?:.*\n)*?\s+budget_impressions: )10000/, "$113000"),
    );
    const io = bufferIO({
      env: {
        DOOHCTL_API_ORIGIN: emulator.origin,
        DOOHCTL_EMAIL: USER.email,
        DOOHCTL_PASSWORD: USER.password,
      },
      cwd: repo,
    });
    const writes = () => emulator.requestLog().filter((e) => e.method !== "GET" && e.path !== "/api/session");
    const before = writes().length;
    const args = ["apply", "conf", "--changed-since", "main", "--auto-approve", "--no-session-cache"];
    expect(await run(args, io)).toBe(0);
    expect(io.out()).toContain("scoped to changes since main");
    expect(
      writes()
        .slice(before)
        .map((e) => `${e.method} ${e.path} ${e.status}`),
    ).toEqual(["PATCH /api/dsp/v1/campaigns 200"]);
    expect((await scopedPlan()).changes).toEqual([]);
    git("commit", "-q", "-am", "applied");
    git("checkout", "-q", "HEAD~1", "--", "conf");
    // Back as it was, for the other tests: the working tree differs from HEAD in that campaign alone.
    expect(
      await run(["apply", "conf", "--changed-since", "HEAD", "--auto-approve", "--no-session-cache"], io),
    ).toBe(0);
    expect((await plan(["--changed-since", "HEAD"])).out).toContain('"changes": []');
  });

  it("saves a scoped plan that applies like any other", async () => {
    edit(1, (t) =>
      t.replace(/(name: Campaign 9 of 1002\n(?:.*\n)*?\s+budget_impressions: )10000/, "$112000"),
    );
    const saved = join(repo, "plan.json");
    expect((await plan(["--changed-since", "main", "-o", saved])).code).toBe(0);
    const io = bufferIO({
      env: {
        DOOHCTL_API_ORIGIN: emulator.origin,
        DOOHCTL_EMAIL: USER.email,
        DOOHCTL_PASSWORD: USER.password,
      },
      cwd: repo,
    });
    expect(await run(["apply", "--plan", saved, "--auto-approve", "--no-session-cache"], io)).toBe(0);
    const after = await scopedPlan();
    expect(after.changes).toEqual([]);
    // Back as it was, for the other tests (the emulator is shared by the file): scoped too.
    const back = join(repo, "back.json");
    git("commit", "-q", "-am", "applied");
    git("checkout", "-q", "HEAD~1", "--", "conf");
    expect((await plan(["--changed-since", "HEAD", "-o", back])).code).toBe(0);
    expect(await run(["apply", "--plan", back, "--auto-approve", "--no-session-cache"], io)).toBe(0);
  });
});

/** The first active live campaign of an insertion order. */
function liveActive(insertionOrderId: string) {
  const c = scenario.live.campaigns.find((x) => x.insertion_order_id === insertionOrderId && x.active);
  if (!c) throw new Error(`no active campaign in ${insertionOrderId}`);
  return c;
}

/** The YAML text without the campaign block named `name`. */
function removeBlock(text: string, name: string): string {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.trimStart() === `- name: ${name}`);
  if (start < 0) throw new Error(`no block ${name}`);
  const indent = lines[start]!.indexOf("-");
  let end = start + 1;
  while (end < lines.length && lines[end]!.length > indent && lines[end]![indent] === " ") end++;
  return [...lines.slice(0, start), ...lines.slice(end)].join("\n");
}

/** The lines of the campaign block named `name`, as they are in `text`. */
function blockOf(text: string, name: string): string {
  const kept = removeBlock(text, name).split("\n");
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.trimStart() === `- name: ${name}`);
  return lines.slice(start, start + lines.length - kept.length).join("\n");
}
