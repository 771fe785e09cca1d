/**
 * Settling the recovery record (docs/apply.md, Restoring only): what a stopped apply left
 * paused, unless declared inactive, is reactivated (DOOH202), nothing else. `apply
 * --restore-only` does only this; every apply before it refuses, so none stays dark.
 */
import type { DspClient } from "../../api/types.js";
import type { RecoveryStore } from "../../apply/recovery.js";
import { restoreDelivery } from "../../apply/restore.js";
import { ConfigError, formatIssue } from "../../config/issues.js";
import { loadConfig } from "../../config/load.js";
import type { DesiredState } from "../../model/desired.js";
import { printable } from "../../model/printable.js";
import type { RecordSettled } from "../../model/recovery.js";
import { obeyedEntries, recordFindings, settlementOf } from "../../plan/changes/recovered.js";
import { renderRestoreText } from "../../render/restore.js";
import { type ConnectOptions, connect, connectionOf } from "../connection.js";
import type { CliIO } from "../io.js";
import { recoveryStoreFor } from "../pipeline.js";

/** What settling needs: the config that says what is declared inactive, a client, the record. */
export interface SettleInput {
  desired: DesiredState;
  client: DspClient;
  recovery: RecoveryStore;
}

/**
 * One GET per 100 recorded campaigns, then restore.ts's reactivation; entries active again,
 * gone or declared inactive are dropped, a running apply's kept; others warned of (DOOH205).
 */
export async function settleRecord(io: CliIO, input: SettleInput): Promise<RecordSettled> {
  const { desired, client, recovery } = input;
  const record = recovery.readAll();
  const declared = new Set(desired.insertionOrders.map((o) => o.id));
  const ids = [
    ...new Set(record.pauses.filter((e) => declared.has(e.insertion_order_id)).map((e) => e.campaign_id)),
  ];
  const campaigns = ids.length > 0 ? await client.getCampaigns(ids) : [];
  const { obeyed, issues } = obeyedEntries(desired, campaigns, record.pauses);
  const all = [...record.issues, ...issues];
  // The message names campaigns with the DSP's text (printable.ts).
  for (const f of recordFindings(all.filter((i) => i.kind === "foreign")))
    io.stderr.write(`doohctl: ${f.severity} ${f.code}: ${printable(f.message)}\n`);
  const verdict = settlementOf(desired, campaigns, obeyed);
  const drop = (campaignIds: string[]) => {
    try {
      recovery.drop(campaignIds);
    } catch (error) {
      io.stderr.write(
        `doohctl: warning: could not tidy the recovery record: ${(error as Error).message}; it is read again next run\n`,
      );
    }
  };
  const outcome =
    verdict.reactivate.length === 0
      ? { restored: [] as string[], error: undefined }
      : await restoreDelivery({
          client,
          campaignIds: verdict.reactivate.map((e) => e.campaign_id),
          signal: undefined,
          recovery: {
            pausing: () => {
              throw new Error("internal: settling the recovery record pauses nothing");
            },
            reactivated: drop,
          },
          emit: () => {},
        });
  drop([...verdict.done, ...verdict.declaredInactive].map((e) => e.campaign_id));
  const restored = new Set(outcome.restored);
  return {
    reactivated: verdict.reactivate.filter((e) => restored.has(e.campaign_id)),
    declared_inactive: verdict.declaredInactive,
    held: verdict.held,
    not_restored: verdict.reactivate.filter((e) => !restored.has(e.campaign_id)),
    undeclared: record.pauses.filter((e) => !e.owner_running && !obeyed.includes(e)),
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    unreadable: all.filter((i) => i.kind === "unreadable"),
  };
}

/** The config and connection `--restore-only` (or a refused apply) settles the record with. */
export interface SettleFrom extends ConnectOptions {
  paths: readonly string[];
  /** Config files a saved plan names, confined to the tree (apply-saved.ts). */
  tree?: string | undefined;
  /** A refusal's settling names no config issue (the refusal is the error). */
  quiet?: boolean;
}

/** Loads the config, logs in, settles; the client is closed before it returns. */
export async function settleFromConfig(io: CliIO, from: SettleFrom): Promise<RecordSettled> {
  const desired = await loadConfig(from.paths, {
    cwd: io.cwd,
    ...(from.tree !== undefined ? { tree: from.tree, confine: true } : {}),
    ...(from.quiet ? {} : { onWarning: (w) => io.stderr.write(`doohctl: warning: ${formatIssue(w)}\n`) }),
  });
  const connection = connectionOf(io, desired.connection, { ...from, state: true });
  const { client } = connect(io, connection);
  try {
    const recovery = await recoveryStoreFor(io, connection, client);
    return await settleRecord(io, { desired, client, recovery });
  } finally {
    await client.close();
  }
}

/**
 * Before an apply refuses: settle and say so apart from the refusal (which still fails), or say
 * why it could not. Returns how many campaigns it reactivated.
 */
export async function settleBeforeRefusal(io: CliIO, settle: () => Promise<RecordSettled>): Promise<number> {
  try {
    const settled = await settle();
    const empty = Object.values(settled).every((v) => !Array.isArray(v) || v.length === 0);
    if (!empty) io.stderr.write(renderRestoreText(settled));
    return settled.reactivated.length;
  } catch (error) {
    const why =
      error instanceof ConfigError
        ? `the config does not load (${error.issues.length} ${error.issues.length === 1 ? "issue" : "issues"}; doohctl validate names them)`
        : (error as Error).message;
    io.stderr.write(
      `Recovery record: not settled (${why}): campaigns an apply that stopped left paused may still be paused; run doohctl apply --restore-only\n`,
    );
    return 0;
  }
}
