/**
 * `doohctl status` against the real emulator over HTTP, at fixed instants of its virtual
 * clock: the report in every format (golden files), the exit codes a scheduled job alerts
 * on, `--all`, a campaign an unfinished apply left paused, and the reads it costs.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { accountKey, RecoveryStore } from "../../src/apply/recovery.js";
import { type StatusFlags, statusCommand } from "../../src/cli/commands/status.js";
import { run } from "../../src/cli/program.js";
import { type EmulatorSeed, type RunningEmulator, startEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import { buildStatusReport } from "../../src/plan/status.js";
import { renderStatusText } from "../../src/render/status.js";
import { campaign, creative, USER } from "../emulator/helpers.js";
import { seedIo } from "../helpers/builders.js";
import { bufferIO } from "../helpers/io.js";
import { parseMermaidBlocks } from "./mermaid.js";

const GOLDEN = join(import.meta.dirname, "golden");

/** Compares with a golden file; UPDATE_GOLDEN=1 rewrites it (review the diff before committing). */
function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(path, actual);
  expect(existsSync(path), `${path} is missing: run with UPDATE_GOLDEN=1 and review it`).toBe(true);
  expect(actual).toBe(readFileSync(path, "utf8"));
}

/** Half way through December, the flight of most campaigns below. */
const MID_DECEMBER = "2026-12-16T12:00:00Z";

/**
 * One insertion order, five active campaigns and one never activated. Each campaign's pace is
 * fixed by its id (docs/emulator.md): 5001 runs at 93.6% of linear, 5002 at 111.6%, 5004 at
 * 87.4%, 5008 at 99.2%. Mid-flight (15.5 of 31 days), pacing is judged against what the
 * remaining budget needs over the remaining 15.5 days (docs/status.md, Pacing):
 * - 5001: 46,800 delivered, 53,200 left: 46,800/15.5 = 3,019.35 a day against 53,200/15.5 =
 *   3,432.26 needed: 3,019.35 / 3,432.26 - 1 = -12.0%, behind;
 * - 5002: 55,800 delivered: 3,600 a day against 44,200/15.5 = 2,851.61: +26.2%, ahead; the
 *   44,200 left last 44,200/3,600 = 12.278 days, to Dec 28 18:40, dark 15.5 - 12.278 = 3.2 days;
 * - 5004: 43,700 delivered: 2,819.35 a day against 56,300/15.5 = 3,632.26: -22.4%, behind;
 * - 5008: 49,600 delivered: 3,200 a day against 50,400/15.5 = 3,251.61: -1.6%, on track.
 */
function account(): EmulatorSeed {
  return {
    users: [USER],
    advertisers: [{ id: "1", name: "Acme" }],
    insertion_orders: [seedIo("1001")],
    campaigns: [
      campaign({ id: "5001", name: "Airports", active: true, budget_impressions: 100_000 }),
      campaign({ id: "5002", name: "Malls", active: true, budget_impressions: 100_000 }),
      campaign({
        id: "5003",
        name: "New year",
        active: true,
        start_time: "2027-01-01T00:00:00Z",
        end_time: "2027-02-01T00:00:00Z",
        budget_impressions: 50_000,
      }),
      campaign({ id: "5004", name: "Stations", active: true, budget_impressions: 100_000 }),
      campaign({ id: "5005", name: "Held back", budget_impressions: 50_000 }),
      campaign({ id: "5008", name: "Trains", active: true, budget_impressions: 100_000 }),
    ],
    creatives: [
      creative({
        id: "9001",
        name: "Airport spot",
        campaign_ids: ["5001"],
        insertion_order_ids: ["1001"],
        audits: [
          { network_id: "1", status: "APPROVED", message: "", last_reviewed: "2026-11-20T00:00:00Z" },
          { network_id: "2", status: "PENDING", message: "", last_reviewed: "2026-11-20T00:00:00Z" },
        ],
      }),
      // Approved by one network: it can serve (src/model/creative-serving.ts).
      creative({
        id: "9002",
        name: "Mall spot",
        campaign_ids: ["5002"],
        insertion_order_ids: ["1001"],
        audits: [{ network_id: "1", status: "APPROVED", message: "", last_reviewed: "2026-11-20T00:00:00Z" }],
      }),
      creative({
        id: "9003",
        name: "Fireworks",
        campaign_ids: ["5003"],
        insertion_order_ids: ["1001"],
        processing_status: "FAILED",
      }),
      creative({
        id: "9004",
        name: "Station spot",
        campaign_ids: ["5004"],
        insertion_order_ids: ["1001"],
        audits: [
          { network_id: "1", status: "DENIED", message: "too bright", last_reviewed: "2026-11-20T00:00:00Z" },
          { network_id: "2", status: "APPROVED", message: "", last_reviewed: "2026-11-20T00:00:00Z" },
        ],
      }),
      creative({
        id: "9008",
        name: "Train spot",
        campaign_ids: ["5008"],
        insertion_order_ids: ["1001"],
        audits: [{ network_id: "1", status: "APPROVED", message: "", last_reviewed: "2026-11-20T00:00:00Z" }],
      }),
    ],
    networks: [
      { id: "1", name: "Metro Screens" },
      { id: "2", name: "Airport Media" },
    ],
    creative_categories: [{ id: "1", name: "Beverages" }],
  };
}

/** "Held back" is declared `active: false` here: held back on purpose, so no alert (see `config`). */
const ALL_NAMES = ["Airports", "Malls", "New year", "Stations", "Held back", "Trains"];

let dir: string;
let emulator: RunningEmulator | undefined;
let clock: VirtualClock;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "doohctl-status-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

function running(): RunningEmulator {
  if (!emulator) throw new Error("no emulator");
  return emulator;
}

async function start(at = MID_DECEMBER): Promise<void> {
  clock = new VirtualClock({ start: Date.parse(at) });
  await emulator?.close();
  emulator = await startEmulator({ port: 0, rateLimits: "off", clock, seed: account() });
}

/** A config declaring `names` in insertion order 1001; "Held back" with `active: false`. */
function config(names: readonly string[], options: { heldBack?: boolean } = {}): string {
  const file = join(dir, "doohctl.yaml");
  writeFileSync(
    file,
    [
      "version: 1",
      "connection:",
      `  api_origin: ${running().origin}`,
      "  rate_limits: { get: 1000/60s, write: 1000/60s, session: 100/60s }",
      "insertion_orders:",
      '  - id: "1001"',
      "    campaigns:",
      ...names.flatMap((name) =>
        name === "Held back" && options.heldBack !== false
          ? [`      - name: ${name}`, "        active: false"]
          : [`      - name: ${name}`],
      ),
      "",
    ].join("\n"),
  );
  return file;
}

function cli() {
  return bufferIO({
    cwd: dir,
    env: {
      DOOHCTL_EMAIL: USER.email,
      DOOHCTL_PASSWORD: USER.password,
      DOOHCTL_SESSION_CACHE: "off",
      DOOHCTL_STATE_DIR: join(dir, "state"),
      HOME: dir,
    },
  });
}

async function status(names: readonly string[], flags: Partial<StatusFlags> = {}) {
  const io = cli();
  const code = await statusCommand(
    io,
    [config(names)],
    { format: "text", behindThreshold: "10", sessionCache: false, ...flags },
    { clock },
  );
  return { code, out: io.out(), err: io.err() };
}

describe("doohctl status", () => {
  it("reports delivery, pacing and serving of the declared campaigns as text with bars", async () => {
    await start();
    const result = await status(ALL_NAMES);
    expect(result.err).toBe("");
    golden("mid-december.txt", result.out);
    expect(result.code).toBe(2);
  });

  it("colours the verdicts only when asked, and never puts colour in the golden text", async () => {
    await start();
    // An empty report has no verdict to colour.
    const report = buildStatusReport({
      campaigns: [],
      creatives: [],
      recorded: [],
      now: clock.now(),
      thresholds: { behind_pct: 10, ended_short_pct: 5, grace_hours: 24 },
      scope: "declared",
    });
    expect(renderStatusText(report, { colour: true })).toBe(renderStatusText(report, { colour: false }));
    const flags = { format: "json", behindThreshold: "10", sessionCache: false };
    const json = JSON.parse((await status(ALL_NAMES, flags)).out);
    const coloured = renderStatusText(json, { colour: true });
    expect(coloured).toContain("\u001b[31mbehind (-22.4% against what the remaining budget needs)\u001b[0m");
    expect(coloured).toContain("\u001b[32mon track (-1.6% against what the remaining budget needs)\u001b[0m");
    expect(renderStatusText(json, { colour: false })).not.toContain("\u001b[");
  });

  it("reports the same as Markdown with tables and a gantt chart Mermaid parses, today a marker line", async () => {
    await start();
    const result = await status(ALL_NAMES, { format: "markdown" });
    golden("mid-december.md.golden", result.out);
    expect(await parseMermaidBlocks(result.out)).toBe(1);
    expect(result.out).toContain("  today 2026-12-16 :vert, today, 2026-12-16, 0d");
    expect(result.out).toContain("  insertion order 1001 :io1001, 2026-12-01, 2027-02-01");
    // Behind and no creative in different colours (crit + active against crit alone).
    expect(result.out).toContain("  5004 Stations - behind :crit, active, c5004,");
    expect(result.out).toContain("  5003 New year - no creative can serve :crit, c5003,");
  });

  it("reports the same as JSON, with the verdicts and alerts a job can read", async () => {
    await start();
    const result = await status(ALL_NAMES, { format: "json" });
    golden("mid-december.json.golden", result.out);
    const report = JSON.parse(result.out);
    const byId = Object.fromEntries(report.campaigns.map((c: { id: string }) => [c.id, c]));
    expect(byId["5001"].pacing.verdict).toBe("behind");
    expect(byId["5008"].pacing.verdict).toBe("on track");
    expect(byId["5008"].alerts).toEqual([]);
    expect(byId["5002"].pacing.verdict).toBe("ahead");
    expect(byId["5002"].pacing.exhausted_at).toBe("2026-12-28T18:40:00Z");
    expect(byId["5002"].alerts.map((a: { kind: string }) => a.kind)).toEqual(["budget exhausted"]);
    expect(byId["5004"].pacing.verdict).toBe("behind");
    expect(byId["5003"].alerts).toEqual([{ kind: "no creative", message: "no creative can serve" }]);
    // Declared active: false and never activated: shown as such, no alert.
    expect(byId["5005"].pacing.verdict).toBe("never activated");
    expect(byId["5005"].declared_inactive).toBe(true);
    expect(byId["5005"].alerts).toEqual([]);
    // Exact amounts in JSON; 146,300 + 49,600 = 195,900 of 400,000 + 100,000 = 500,000.
    expect(report.insertion_orders).toEqual([
      expect.objectContaining({
        id: "1001",
        campaigns: 6,
        impressions: expect.objectContaining({ delivered: 195_900, budget: 500_000 }),
        spend: [{ amount: "2448.75 USD", budget: "6250.00 USD" }],
      }),
    ]);
  });

  it("exits 0 when every declared campaign is on pace and can serve", async () => {
    await start();
    const result = await status(["Trains", "Held back"]);
    expect(result.code).toBe(0);
  });

  it("exits 2 when a campaign is behind pace by more than --behind-threshold", async () => {
    await start();
    // 5001 is 12.0% short of what its remaining budget needs (see `account`).
    expect((await status(["Airports"], { behindThreshold: "11" })).code).toBe(2);
    expect((await status(["Airports"], { behindThreshold: "13" })).code).toBe(0);
  });

  it("exits 2 for a campaign in flight past the grace period that was never activated, unless declared active: false", async () => {
    await start();
    const io = cli();
    const code = await statusCommand(
      io,
      [config(["Held back"], { heldBack: false })],
      { format: "text", behindThreshold: "10", sessionCache: false },
      { clock },
    );
    expect(code).toBe(2);
    // Dec 1 00:00 to Dec 16 12:00 is 15.5 days, more than the 24 hours of grace.
    expect(io.out()).toContain("! never activated 15.5 days into its flight");
    expect((await status(["Held back"])).code).toBe(0);
    // 15.5 days is 372 hours: a grace of 400 hours is not over yet.
    const later = cli();
    const flags = { format: "text", behindThreshold: "10", graceHours: "400", sessionCache: false };
    expect(await statusCommand(later, [config(["Held back"], { heldBack: false })], flags, { clock })).toBe(
      0,
    );
  });

  it("refuses an --ended-short-threshold or --grace-hours that is not a number, naming the flag", async () => {
    await start();
    const short = await status(["Trains"], { endedShortThreshold: "lots" });
    expect(short.code).toBe(1);
    expect(short.err).toContain(
      "--ended-short-threshold lots is not a percentage: give a number from 0 to 100",
    );
    const grace = await status(["Trains"], { graceHours: "1d" });
    expect(grace.code).toBe(1);
    expect(grace.err).toContain("--grace-hours 1d is not a number of hours: give e.g. --grace-hours 48");
  });

  it("exits 2 when an active campaign has no creative that can serve, even before its flight", async () => {
    await start();
    const result = await status(["New year"]);
    expect(result.code).toBe(2);
    expect(result.out).toContain('creative 9003 "Fireworks": processing failed');
    expect(result.out).toContain("! no creative can serve");
  });

  it("shows delivery growing with the clock, and ended flights as ended", async () => {
    await start("2026-12-02T00:00:00Z");
    const early = JSON.parse((await status(["Airports"], { format: "json" })).out);
    await start("2027-01-05T00:00:00Z");
    const late = JSON.parse((await status(["Airports"], { format: "json" })).out);
    expect(late.campaigns[0].impressions.delivered).toBeGreaterThan(early.campaigns[0].impressions.delivered);
    expect(late.campaigns[0].pacing.verdict).toBe("ended");
  });

  it("--all reports every live campaign of the declared insertion orders", async () => {
    await start();
    const report = JSON.parse((await status(["Airports"], { format: "json", all: true })).out);
    expect(report.scope).toBe("all");
    expect(report.campaigns.map((c: { id: string }) => c.id)).toEqual([
      "5001",
      "5002",
      "5003",
      "5004",
      "5005",
      "5008",
    ]);
  });

  it("names a campaign an unfinished apply left paused, and exits 2", async () => {
    await start();
    const io = cli();
    const store = new RecoveryStore(join(dir, "state"), {
      origin: running().origin,
      environment: "production",
      account_id: USER.account_id,
    });
    const apply = store.begin("2026-12-16T11:00:00Z");
    apply.add([
      {
        campaign_id: "5001",
        insertion_order_id: "1001",
        name: "Airports",
        paused_at: "2026-12-16T11:00:01Z",
      },
    ]);
    const reply = await fetch(`${running().origin}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: USER.email, password: USER.password }),
    });
    const cookie = (reply.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const paused = await fetch(`${running().origin}/api/dsp/v1/campaigns/5001`, {
      method: "PATCH",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ active: false }),
    });
    expect(paused.status).toBe(200);
    const code = await statusCommand(
      io,
      [config(["Airports"])],
      { format: "text", behindThreshold: "10", sessionCache: false },
      { clock },
    );
    expect(code).toBe(2);
    expect(io.out()).toContain(`paused by a running apply (${apply.applyId}) at 2026-12-16T11:00:01Z`);
    expect(io.out()).toContain("! paused by an unfinished apply");
    apply.remove(["5001"]);
    apply.end();
  });

  it("names a campaign a dead apply left paused, says the next plan reactivates it, and leaves the record alone", async () => {
    await start();
    const scope = { origin: running().origin, environment: "production", account_id: USER.account_id };
    const records = join(dir, "state", "recovery", accountKey(scope));
    mkdirSync(records, { recursive: true, mode: 0o700 });
    const file = join(records, "dead-apply.json");
    const record = {
      format_version: 2,
      apply_id: "20261216T110000Z-1-dead",
      ...scope,
      // Another machine's apply whose lease nobody renewed for an hour: it no longer runs.
      lease: { host: "another-machine", pid: 1, renewed_at: "2026-12-16T11:00:00Z" },
      started_at: "2026-12-16T11:00:00Z",
      paused: [
        { campaign_id: "5002", insertion_order_id: "1001", name: "Malls", paused_at: "2026-12-16T11:00:01Z" },
      ],
    };
    writeFileSync(file, JSON.stringify(record));
    const reply = await fetch(`${running().origin}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: USER.email, password: USER.password }),
    });
    const cookie = (reply.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    await fetch(`${running().origin}/api/dsp/v1/campaigns/5002`, {
      method: "PATCH",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ active: false }),
    });
    const result = await status(["Malls"]);
    expect(result.code).toBe(2);
    expect(result.out).toContain(
      "  paused by an apply that did not finish (20261216T110000Z-1-dead) at 2026-12-16T11:00:01Z\n    the next plan or apply reactivates it",
    );
    expect(readFileSync(file, "utf8")).toBe(JSON.stringify(record));
  });

  it("reads campaigns by insertion order with progress and their creatives, and never writes", async () => {
    await start();
    await status(ALL_NAMES);
    const reads = running()
      .requestLog()
      .filter((e) => e.path.startsWith("/api/dsp/"));
    expect(reads.map((e) => `${e.method} ${e.path}`)).toEqual([
      "GET /api/dsp/v1/campaigns",
      "GET /api/dsp/v1/creatives",
    ]);
    expect(reads[0]?.query).toContain("include_progress=true");
  });

  it("refuses a --behind-threshold that is not a percentage, naming the flag and what to give", async () => {
    await start();
    const result = await status(["Airports"], { behindThreshold: "ten" });
    expect(result.code).toBe(1);
    expect(result.err).toContain("--behind-threshold ten is not a percentage: give a number from 0 to 100");
  });

  it("with --format json, says what went wrong as JSON on stdout, never the password", async () => {
    await start();
    const io = bufferIO({
      cwd: dir,
      env: {
        DOOHCTL_EMAIL: USER.email,
        DOOHCTL_PASSWORD: "wrong-password",
        DOOHCTL_SESSION_CACHE: "off",
        HOME: dir,
      },
    });
    const flags = { format: "json", behindThreshold: "10", sessionCache: false };
    expect(await statusCommand(io, [config(["Airports"])], flags, { clock })).toBe(1);
    const answer = JSON.parse(io.out());
    expect(answer.error.message).toMatch(/^doohctl status: /);
    expect(io.out() + io.err()).not.toContain("wrong-password");
  });

  it("is registered on the program with its options", async () => {
    const io = bufferIO();
    expect(await run(["status", "--help"], io)).toBe(0);
    expect(io.out()).toContain("--behind-threshold <pct>");
    expect(io.out()).toContain("--ended-short-threshold <pct>");
    expect(io.out()).toContain("--grace-hours <hours>");
    expect(io.out()).toContain("--all");
  });
});
