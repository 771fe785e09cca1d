/**
 * `doohctl status` (ARCHITECTURE.md#commands): read-only delivery and pacing of the declared
 * campaigns (`--all`: their insertion orders' every one), creatives that cannot serve, and
 * campaigns an unfinished apply left paused. Exit 2 lets a scheduled job alert.
 */
import type { Command } from "commander";
import { loadConfig } from "../../config/load.js";
import type { DesiredCampaign, DesiredState } from "../../model/desired.js";
import type { Campaign } from "../../model/wire.js";
import { renderStatusJson, renderStatusMarkdown, renderStatusText } from "../../render/status.js";
import {
  buildStatusReport,
  DEFAULT_BEHIND_THRESHOLD_PCT,
  DEFAULT_ENDED_SHORT_PCT,
  DEFAULT_GRACE_HOURS,
} from "../../status/status.js";
import type { CommandModule } from "../command.js";
import { connect, connectionOf } from "../connection.js";
import { reportError, UsageError } from "../errors.js";
import { type ConnectionFlags, Flag, formatOf } from "../flags.js";
import { interruptible } from "../interruptible.js";
import { type CliIO, EXIT, useColour } from "../io.js";
import { readRecord, recoveryStoreFor } from "../pipeline.js";

export interface StatusFlags extends ConnectionFlags {
  format: string;
  all?: boolean;
  behindThreshold: string;
  endedShortThreshold?: string;
  graceHours?: string;
}

const FORMATS = ["text", "json", "markdown"] as const;

export const registerStatus: CommandModule = (program: Command, io, setExit) => {
  program
    .command("status")
    .argument("[paths...]", "config files or directories (default: doohctl.yaml)")
    .addOption(Flag.format("output on stdout", FORMATS, { checkedBy: "command" }))
    .option("--all", "every live campaign of the declared insertion orders, declared or not")
    .option(
      "--behind-threshold <pct>",
      "a campaign more than this percent behind a linear pace makes the exit code 2",
      String(DEFAULT_BEHIND_THRESHOLD_PCT),
    )
    .option(
      "--ended-short-threshold <pct>",
      "a flight that ended (within 7 days) more than this percent short of its budget makes the exit code 2",
      String(DEFAULT_ENDED_SHORT_PCT),
    )
    .option(
      "--grace-hours <hours>",
      "a campaign this long into its flight that is inactive or has delivered nothing makes the exit code 2",
      String(DEFAULT_GRACE_HOURS),
    )
    .addOption(Flag.ca())
    .addOption(Flag.sessionCache())
    .action(async (paths: string[], flags: StatusFlags) => {
      setExit(
        await interruptible(io, { command: "status", format: flags.format }, (gated) =>
          statusCommand(gated, paths, flags),
        ),
      );
    });
};

/** The command itself; "now" is `io.clock`'s (tests share the emulator's virtual clock). */
export async function statusCommand(io: CliIO, paths: string[], flags: StatusFlags): Promise<number> {
  const clock = io.clock;
  // With --format json, errors are JSON on stdout too: one entry per config issue (errors.ts).
  const fail = (error: unknown): number => {
    reportError(io, "status", error, flags.format);
    return EXIT.error;
  };
  const format = formatOf(flags.format, FORMATS);
  if (format instanceof UsageError) return fail(format);
  const threshold = percentFlag("--behind-threshold", flags.behindThreshold, "15");
  if (threshold instanceof Error) return fail(threshold);
  const endedShort = percentFlag(
    "--ended-short-threshold",
    flags.endedShortThreshold ?? String(DEFAULT_ENDED_SHORT_PCT),
    "10",
  );
  if (endedShort instanceof Error) return fail(endedShort);
  const graceText = flags.graceHours ?? String(DEFAULT_GRACE_HOURS);
  const grace = Number(graceText);
  if (!/^\d+(\.\d+)?$/.test(graceText)) {
    return fail(
      new UsageError(`--grace-hours ${graceText} is not a number of hours: give e.g. --grace-hours 48`),
    );
  }
  try {
    const desired = await loadConfig(paths, { cwd: io.cwd });
    const connection = connectionOf(io, desired.connection, {
      sessionCache: flags.sessionCache,
      caFile: flags.ca,
      state: true,
    });
    const { client } = connect(io, connection);
    try {
      const recovery = await recoveryStoreFor(io, connection, client);
      // With progress (G2), by a reader that refuses a campaign without it (G14): never "nothing delivered".
      const ids = desired.insertionOrders.map((io) => io.id);
      const live = await client.listCampaignsByInsertionOrder(ids, { includeProgress: true });
      const campaigns = selectCampaigns(io, desired, live, flags.all === true);
      const declaredInactive = declaredInactiveIds(desired, live);
      const creatives = await client.listCreativesByCampaign(campaigns.map((c) => c.id));
      // Each insertion order's budget_money beside what its campaigns can spend (docs/status.md).
      const insertionOrders = await client.getInsertionOrders(ids);
      const record = readRecord(io, recovery, desired, live);
      const report = buildStatusReport({
        campaigns,
        creatives,
        recorded: record.pauses,
        insertionOrders,
        declaredInactive,
        now: clock.now(),
        thresholds: { behind_pct: threshold, ended_short_pct: endedShort, grace_hours: grace },
        scope: flags.all ? "all" : "declared",
      });
      io.stdout.write(
        format === "json"
          ? renderStatusJson(report)
          : format === "markdown"
            ? renderStatusMarkdown(report)
            : renderStatusText(report, { colour: useColour(io) }),
      );
      // A record that cannot be read may hide paused campaigns: alert until it is settled.
      const alert = record.unreadable > 0 || report.campaigns.some((c) => c.alerts.length > 0);
      return alert ? EXIT.changes : EXIT.ok;
    } finally {
      await client.close();
    }
  } catch (error) {
    return fail(error);
  }
}

/** A percentage flag's value, or an error naming the flag and what to give. */
function percentFlag(flag: string, text: string, example: string): number | Error {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(value >= 0 && value <= 100)) {
    return new UsageError(
      `${flag} ${text} is not a percentage: give a number from 0 to 100, e.g. ${flag} ${example}`,
    );
  }
  return value;
}

/** A declared campaign's live one: by id when pinned, else by name (ARCHITECTURE.md#identity). */
const liveOf = (live: readonly Campaign[], order: string, declared: DesiredCampaign) =>
  live.find(
    (c) =>
      c.insertion_order_id === order &&
      (declared.id !== undefined ? c.id === declared.id : c.name === declared.name),
  );

/** The live ids of the campaigns the config declares `active: false` (held back on purpose). */
function declaredInactiveIds(desired: DesiredState, live: Campaign[]): Set<string> {
  const out = new Set<string>();
  for (const order of desired.insertionOrders) {
    for (const declared of order.campaigns) {
      const found = declared.fields.active === false ? liveOf(live, order.id, declared) : undefined;
      if (found) out.add(found.id);
    }
  }
  return out;
}

function selectCampaigns(io: CliIO, desired: DesiredState, live: Campaign[], all: boolean): Campaign[] {
  if (all) return live;
  const out: Campaign[] = [];
  for (const order of desired.insertionOrders) {
    const ofOrder = live.filter((c) => c.insertion_order_id === order.id);
    for (const declared of order.campaigns) {
      const found = liveOf(ofOrder, order.id, declared);
      if (found) out.push(found);
      else {
        io.stderr.write(
          `doohctl status: campaign "${declared.name}" of insertion order ${order.id} does not exist yet: apply creates it\n`,
        );
      }
    }
  }
  return out;
}
