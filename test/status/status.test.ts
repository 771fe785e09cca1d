/**
 * `doohctl status` against the real emulator over HTTP, at fixed instants of its virtual
 * clock (test/status/world.ts): the report in every format (golden files), a campaign an
 * unfinished apply left paused, the reads it costs, errors. Exit codes and alerts:
 * test/status/alerts.test.ts; forecasts by hand: test/status/forecast.test.ts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { accountKey, RecoveryStore } from "../../src/apply/recovery.js";
import { statusCommand } from "../../src/cli/commands/status.js";
import { run } from "../../src/cli/program.js";
import { terminalText } from "../../src/model/printable.js";
import { renderStatusText } from "../../src/render/status.js";
import { buildStatusReport } from "../../src/status/status.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";
import { parseMermaidBlocks } from "./mermaid.js";
import { ALL_NAMES, statusWorld } from "./world.js";

const GOLDEN = join(import.meta.dirname, "golden");

/** Compares with a golden file; UPDATE_GOLDEN=1 rewrites it (review the diff before committing). */
function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(path, actual);
  expect(existsSync(path), `${path} is missing: run with UPDATE_GOLDEN=1 and review it`).toBe(true);
  expect(actual).toBe(readFileSync(path, "utf8"));
}

const world = statusWorld();

describe("doohctl status", () => {
  it("reports delivery, pacing and serving of the declared campaigns as text with bars", async () => {
    await world.start();
    const result = await world.status(ALL_NAMES);
    expect(result.err).toBe("");
    golden("mid-december.txt", result.out);
    expect(result.code).toBe(2);
  });

  it("colours the verdicts only when asked, and never puts colour in the golden text", async () => {
    await world.start();
    // An empty report has no verdict to colour.
    const report = buildStatusReport({
      campaigns: [],
      creatives: [],
      recorded: [],
      now: world.clock().now(),
      thresholds: { behind_pct: 10, ended_short_pct: 5, grace_hours: 24 },
      scope: "declared",
    });
    expect(renderStatusText(report, { colour: true })).toBe(renderStatusText(report, { colour: false }));
    const flags = { format: "json", behindThreshold: "10", sessionCache: false };
    const json = JSON.parse((await world.status(ALL_NAMES, flags)).out);
    const coloured = terminalText(renderStatusText(json, { colour: true }));
    expect(coloured).toContain("\u001b[31mbehind (-22.4% against what the remaining budget needs)\u001b[0m");
    expect(coloured).toContain("\u001b[32mon track (-1.6% against what the remaining budget needs)\u001b[0m");
    expect(renderStatusText(json, { colour: false })).not.toContain("\u001b[");
  });

  it("reports the same as Markdown with tables and a gantt chart Mermaid parses, today a marker line", async () => {
    await world.start();
    const result = await world.status(ALL_NAMES, { format: "markdown" });
    golden("mid-december.md.golden", result.out);
    expect(await parseMermaidBlocks(result.out)).toBe(1);
    expect(result.out).toContain("  today 2026-12-16 :vert, today, 2026-12-16, 0d");
    expect(result.out).toContain("  insertion order 1001 :io1001, 2026-12-01, 2027-02-01");
    // Behind and no creative in different colours (crit + active against crit alone).
    expect(result.out).toContain("  5004 Stations - behind :crit, active, c5004,");
    expect(result.out).toContain("  5003 New year - no creative can serve :crit, c5003,");
  });

  it("reports the same as JSON, with the verdicts and alerts a job can read", async () => {
    await world.start();
    const result = await world.status(ALL_NAMES, { format: "json" });
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

  it("names a campaign an unfinished apply left paused, and exits 2", async () => {
    await world.start();
    const io = world.cli();
    // The running apply renews its lease on the clock status reads too.
    const store = new RecoveryStore(
      join(world.dir(), "state"),
      { origin: world.running().origin, environment: "production", account_id: USER.account_id },
      { clock: world.clock() },
    );
    const apply = store.begin("2026-12-16T11:00:00Z");
    apply.add([
      {
        campaign_id: "5001",
        insertion_order_id: "1001",
        name: "Airports",
        paused_at: "2026-12-16T11:00:01Z",
      },
    ]);
    const reply = await fetch(`${world.running().origin}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: USER.email, password: USER.password }),
    });
    const cookie = (reply.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const paused = await fetch(`${world.running().origin}/api/dsp/v1/campaigns/5001`, {
      method: "PATCH",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ active: false }),
    });
    expect(paused.status).toBe(200);
    const code = await statusCommand(io, [world.config(["Airports"])], {
      format: "text",
      behindThreshold: "10",
      sessionCache: false,
    });
    expect(code).toBe(2);
    expect(io.out()).toContain(`paused by a running apply (${apply.applyId}) at 2026-12-16T11:00:01Z`);
    expect(io.out()).toContain("! paused by an unfinished apply");
    apply.remove(["5001"]);
    apply.end();
  });

  it("names a campaign a dead apply left paused, says the next plan reactivates it, and leaves the record alone", async () => {
    await world.start();
    const scope = { origin: world.running().origin, environment: "production", account_id: USER.account_id };
    const records = join(world.dir(), "state", "recovery", accountKey(scope));
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
    writeFileSync(file, JSON.stringify(record), { mode: 0o600 });
    const reply = await fetch(`${world.running().origin}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: USER.email, password: USER.password }),
    });
    const cookie = (reply.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    await fetch(`${world.running().origin}/api/dsp/v1/campaigns/5002`, {
      method: "PATCH",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ active: false }),
    });
    const result = await world.status(["Malls"]);
    expect(result.code).toBe(2);
    expect(result.out).toContain(
      "  paused by an apply that did not finish (20261216T110000Z-1-dead) at 2026-12-16T11:00:01Z\n    the next plan or apply reactivates it",
    );
    expect(readFileSync(file, "utf8")).toBe(JSON.stringify(record));
  });

  it("names a recorded campaign outside the config with its control characters escaped, never raw", async () => {
    await world.start();
    const scope = { origin: world.running().origin, environment: "production", account_id: USER.account_id };
    const records = join(world.dir(), "state", "recovery", accountKey(scope));
    mkdirSync(records, { recursive: true, mode: 0o700 });
    const hostile = "X\u001b[2J\rforged line";
    const record = {
      format_version: 2,
      apply_id: "20261216T110000Z-1-dead",
      ...scope,
      lease: { host: "another-machine", pid: 1, renewed_at: "2026-12-16T11:00:00Z" },
      started_at: "2026-12-16T11:00:00Z",
      // An insertion order the config does not declare: reported, never obeyed.
      paused: [
        { campaign_id: "5999", insertion_order_id: "9999", name: hostile, paused_at: "2026-12-16T11:00:01Z" },
      ],
    };
    writeFileSync(join(records, "dead-apply.json"), JSON.stringify(record), { mode: 0o600 });
    const result = await world.status(["Malls"]);
    expect(result.err).toContain("5999");
    expect(result.err).not.toContain("\u001b");
    expect(result.err).not.toContain("\r");
  });

  it("reads campaigns by insertion order with progress, their creatives and insertion orders, and never writes", async () => {
    await world.start();
    await world.status(ALL_NAMES);
    const reads = world
      .running()
      .requestLog()
      .filter((e) => e.path.startsWith("/api/dsp/"));
    expect(reads.map((e) => `${e.method} ${e.path}`)).toEqual([
      "GET /api/dsp/v1/campaigns",
      "GET /api/dsp/v1/creatives",
      // One GET of the declared insertion orders (100 a request), for their budget_money.
      "GET /api/dsp/v1/insertion_orders",
    ]);
    expect(reads[0]?.query).toContain("include_progress=true");
  });

  it("with --format json, says what went wrong as JSON on stdout, never the password", async () => {
    await world.start();
    const io = bufferIO({
      cwd: world.dir(),
      clock: world.clock(),
      env: {
        DOOHCTL_EMAIL: USER.email,
        DOOHCTL_PASSWORD: "wrong-password",
        DOOHCTL_SESSION_CACHE: "off",
        HOME: world.dir(),
      },
    });
    const flags = { format: "json", behindThreshold: "10", sessionCache: false };
    expect(await statusCommand(io, [world.config(["Airports"])], flags)).toBe(1);
    const answer = JSON.parse(io.out());
    expect(answer.errors).toEqual([
      {
        code: "CREDENTIALS_REFUSED",
        message: expect.stringMatching(/refused the credentials/),
        location: null,
      },
    ]);
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
