/**
 * pull's core, without I/O: the plan's drift and the config files' texts in, the files'
 * new texts, their diffs and what was and was not pulled out (docs/pull.md).
 */
import type { Document } from "yaml";
import type { DesiredState } from "../model/desired.js";
import type { RecordedPause } from "../model/recovery.js";
import type { TargetingOptionSet } from "../model/targeting.js";
import type { Campaign } from "../model/wire.js";
import type { LiveState, Plan } from "../plan/types.js";
import { type Appended, appendSplices } from "./append-new.js";
import { editFile, type Reader } from "./document-edit.js";
import { pullWork } from "./from-plan.js";
import { itemKey, type NotPulled, type Pulled } from "./items.js";
import { unifiedDiff } from "./line-diff.js";

export interface PulledFile {
  file: string;
  before: string;
  after: string;
  diff: string;
}

export interface PullResult {
  files: PulledFile[];
  pulled: Pulled[];
  notPulled: NotPulled[];
  /** Campaigns in flight paused in the DSP, pulled as `active: false`: shown first. */
  livePauses: { address: string; campaign_id: string; file: string; line: number }[];
  appended: Appended[];
}

/** Every declared field of `file`, as (key, path): who reads a shared value. */
export function readersOf(desired: DesiredState, file: string): Reader[] {
  const readers: Reader[] = [];
  const add = (address: string, sources: Record<string, { file: string; path: string } | undefined>) => {
    for (const [field, source] of Object.entries(sources)) {
      if (source && source.file === file && field !== "name" && field !== "id") {
        readers.push({ key: itemKey({ address, field }), path: source.path });
      }
    }
  };
  for (const io of desired.insertionOrders) {
    add(`insertion_order.${io.id}`, io.fieldSources);
    for (const c of io.campaigns) add(`campaign.${io.id}/${c.name}`, c.fieldSources);
  }
  for (const c of desired.creatives) add(`creative.${c.id}`, c.fieldSources);
  return readers;
}

export function pullConfig(input: {
  plan: Plan;
  desired: DesiredState;
  live: LiveState;
  recorded: readonly RecordedPause[];
  /** The text of every config file, by the name the config's sources use. */
  texts: ReadonlyMap<string, string>;
  /**
   * The documents the config load parsed, by the same names (src/cli/pipeline.ts): a file's
   * is used when its text is the one read here, else the file is parsed again.
   */
  documents?: ReadonlyMap<string, { text: string; document: Document }>;
  /** `--new`: the campaigns to append and their targetings, read for them. */
  appendCampaigns?: { campaigns: readonly Campaign[]; targetings: ReadonlyMap<string, TargetingOptionSet[]> };
}): PullResult {
  const work = pullWork(input);
  const result: PullResult = {
    files: [],
    pulled: [],
    notPulled: work.notPulled.slice(),
    livePauses: work.livePauses,
    appended: [],
  };
  const recordedIds = new Set(work.notPulled.map((n) => n.address));
  const liveById = new Map(input.live.campaigns.map((c) => [c.id, c]));
  for (const r of input.recorded) {
    const live = liveById.get(r.campaign_id);
    const address = `campaign.${r.insertion_order_id}/${r.name}`;
    if (live && !live.active && !recordedIds.has(address)) {
      result.notPulled.push({
        address,
        field: "active",
        reason: `campaign ${r.campaign_id} was paused by an apply that did not finish (the recovery record names it)${r.owner_running ? " and that apply still runs" : ""}: it is not pulled as active: false; run doohctl apply to reactivate it`,
      });
    }
  }
  for (const [file, text] of input.texts) {
    const items = work.items.filter((i) => i.file === file);
    const appends = input.appendCampaigns
      ? appendSplices({ file, text, desired: input.desired, ...input.appendCampaigns })
      : undefined;
    if (items.length === 0 && (appends?.splices.length ?? 0) === 0 && (appends?.notPulled.length ?? 0) === 0)
      continue;
    const parsed = input.documents?.get(file);
    const edit = editFile({
      file,
      text,
      ...(parsed?.text === text ? { document: parsed.document } : {}),
      items,
      readers: () => readersOf(input.desired, file),
      ...(appends ? { appends: appends.splices } : {}),
    });
    for (const p of edit.pulled) result.pulled.push(p);
    for (const n of edit.notPulled) result.notPulled.push(n);
    if (appends) {
      for (const a of appends.appended) result.appended.push(a);
      for (const n of appends.notPulled) result.notPulled.push(n);
    }
    if (edit.text !== text) {
      result.files.push({
        file,
        before: text,
        after: edit.text,
        diff: unifiedDiff(file, text, edit.splices),
      });
    }
  }
  // A live campaign `unmanaged_campaigns: deactivate` does not list is pulled once appended.
  const appended = new Set(result.appended.map((a) => a.address));
  result.notPulled = result.notPulled.filter((n) => n.field !== undefined || !appended.has(n.address));
  for (const item of work.items) {
    if (!input.texts.has(item.file)) {
      result.notPulled.push({
        address: item.address,
        field: item.field,
        file: item.file,
        line: item.line,
        reason: `${item.file} was not read`,
      });
    }
  }
  return result;
}
