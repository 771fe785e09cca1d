/**
 * The world of the `doohctl status` tests: the real emulator over HTTP at fixed instants of
 * its virtual clock, seeded with one account, and a config declaring some of its campaigns.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { type StatusFlags, statusCommand } from "../../src/cli/commands/status.js";
import type { EmulatorSeed, RunningEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import { seedCampaignWith, seedCreativeWith, seedIo } from "../helpers/builders.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

/** Half way through December, the flight of most campaigns below. */
export const MID_DECEMBER = "2026-12-16T12:00:00Z";

/**
 * One insertion order, five active campaigns and one never activated. Each campaign's pace is
 * fixed by its id (docs/emulator.md): 5001 runs at 93.6% of linear, 5002 at 111.6%, 5004 at
 * 87.4%, 5008 at 99.2%. Mid-flight (15.5 of 31 days), pacing is judged against what the
 * remaining budget needs over the remaining 15.5 days (docs/status.md, "What it shows, per campaign"):
 * - 5001: 46,800 delivered, 53,200 left: 46,800/15.5 = 3,019.35 a day against 53,200/15.5 =
 *   3,432.26 needed: 3,019.35 / 3,432.26 - 1 = -12.0%, behind;
 * - 5002: 55,800 delivered: 3,600 a day against 44,200/15.5 = 2,851.61: +26.2%, ahead; the
 *   44,200 left last 44,200/3,600 = 12.278 days, to Dec 28 18:40, dark 15.5 - 12.278 = 3.2 days;
 * - 5004: 43,700 delivered: 2,819.35 a day against 56,300/15.5 = 3,632.26: -22.4%, behind;
 * - 5008: 49,600 delivered: 3,200 a day against 50,400/15.5 = 3,251.61: -1.6%, on track.
 */
export function account(): EmulatorSeed {
  return {
    users: [USER],
    advertisers: [{ id: "1", name: "Acme" }],
    insertion_orders: [seedIo("1001")],
    campaigns: [
      seedCampaignWith({ id: "5001", name: "Airports", active: true, budget_impressions: 100_000 }),
      seedCampaignWith({ id: "5002", name: "Malls", active: true, budget_impressions: 100_000 }),
      seedCampaignWith({
        id: "5003",
        name: "New year",
        active: true,
        start_time: "2027-01-01T00:00:00Z",
        end_time: "2027-02-01T00:00:00Z",
        budget_impressions: 50_000,
      }),
      seedCampaignWith({ id: "5004", name: "Stations", active: true, budget_impressions: 100_000 }),
      seedCampaignWith({ id: "5005", name: "Held back", budget_impressions: 50_000 }),
      seedCampaignWith({ id: "5008", name: "Trains", active: true, budget_impressions: 100_000 }),
    ],
    creatives: [
      seedCreativeWith({
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
      seedCreativeWith({
        id: "9002",
        name: "Mall spot",
        campaign_ids: ["5002"],
        insertion_order_ids: ["1001"],
        audits: [{ network_id: "1", status: "APPROVED", message: "", last_reviewed: "2026-11-20T00:00:00Z" }],
      }),
      seedCreativeWith({
        id: "9003",
        name: "Fireworks",
        campaign_ids: ["5003"],
        insertion_order_ids: ["1001"],
        processing_status: "FAILED",
      }),
      seedCreativeWith({
        id: "9004",
        name: "Station spot",
        campaign_ids: ["5004"],
        insertion_order_ids: ["1001"],
        audits: [
          { network_id: "1", status: "DENIED", message: "too bright", last_reviewed: "2026-11-20T00:00:00Z" },
          { network_id: "2", status: "APPROVED", message: "", last_reviewed: "2026-11-20T00:00:00Z" },
        ],
      }),
      seedCreativeWith({
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
export const ALL_NAMES = ["Airports", "Malls", "New year", "Stations", "Held back", "Trains"];

/** Registers its hooks in the calling test file: a temporary directory, the emulator closed after each test. */
export function statusWorld() {
  let dir = "";
  let world: EmulatorWorld | undefined;
  let emulator: RunningEmulator | undefined;
  let clock = new VirtualClock({ start: Date.parse(MID_DECEMBER) });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "doohctl-status-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(async () => {
    await world?.close();
    world = undefined;
    emulator = undefined;
  });

  function running(): RunningEmulator {
    if (!emulator) throw new Error("no emulator");
    return emulator;
  }

  /** The emulator at `at`, seeded with `account()` as `edit` changes it. */
  async function start(at = MID_DECEMBER, edit: (seed: EmulatorSeed) => void = () => {}): Promise<void> {
    clock = new VirtualClock({ start: Date.parse(at) });
    await world?.close();
    const seed = account();
    edit(seed);
    world = await emulatorWorld({ seed, clock, emulator: { rateLimits: "off" } });
    emulator = world.emulator;
  }

  /** A config declaring `names` in insertion order 1001; "Held back" with `active: false` unless `heldBack: false`. */
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
      clock,
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
    const code = await statusCommand(io, [config(names)], {
      format: "text",
      behindThreshold: "10",
      sessionCache: false,
      ...flags,
    });
    return { code, out: io.out(), err: io.err() };
  }

  return { start, running, config, cli, status, clock: () => clock, dir: () => dir };
}
