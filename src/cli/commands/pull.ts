/**
 * `doohctl pull` (docs/pull.md): drift into the config, each drifted value rewritten in place,
 * the edit checked by planning it against the same live state, never a write to the DSP.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { CONFIG_FILE_LIMIT, findTree } from "../../config/file-guard.js";
import { nodeFileSystem } from "../../config/files.js";
import { loadConfig } from "../../config/load.js";
import type { TargetingOptionSet } from "../../model/targeting.js";
import { Time } from "../../model/time.js";
import { newCampaigns } from "../../pull/append-new.js";
import type { NotPulled } from "../../pull/items.js";
import { type PullResult, pullConfig } from "../../pull/pull.js";
import { verifyPull } from "../../pull/verify.js";
import { changedSinceRead, PullFileError, readRegular, sha256, writeIfUnchanged } from "../../pull/write.js";
import { renderPullJson, renderPullText } from "../../render/pull.js";
import type { CommandModule } from "../command.js";
import { renderJsonErrors, reportError, UsageError } from "../errors.js";
import { addTuningOptions, Flag, formatOf, pipelineOptionsOf, type ReadFlags } from "../flags.js";
import { type CliIO, EXIT } from "../io.js";
import { loadAndPlan, type PlanRun } from "../pipeline.js";

const FORMATS = ["text", "json"] as const;

interface PullFlags extends ReadFlags {
  format: string;
  check?: boolean;
  new?: boolean;
}

export const registerPull: CommandModule = (program: Command, io, setExit) => {
  const command = program.command("pull");
  addTuningOptions(command)
    .argument("[paths...]", "config files or directories (default: doohctl.yaml)")
    .option("--check", "write nothing; exit 2 when the files would change (1 on error)")
    .option("--new", "also append live campaigns of declared insertion orders that the config lacks")
    .addOption(Flag.format("output on stdout (text: a unified diff)", FORMATS, { checkedBy: "command" }))
    .addOption(Flag.target("an insertion order, campaign or creative id"))
    .addOption(Flag.ca())
    .addOption(Flag.sessionCache())
    .action(async (paths: string[], flags: PullFlags) => {
      setExit(await pullCommand(io, paths, flags));
    });
};

async function pullCommand(io: CliIO, paths: string[], flags: PullFlags): Promise<number> {
  const format = formatOf(flags.format, FORMATS);
  if (format instanceof UsageError) {
    reportError(io, "pull", format, flags.format);
    return EXIT.error;
  }
  let run: PlanRun | undefined;
  try {
    // The load's documents: the edit reads each file through them, not parsing it again.
    run = await loadAndPlan(io, { ...pipelineOptionsOf(flags, paths), keepDocuments: true });
    const { files, refused } = await readFiles(io, run);
    const appendCampaigns = flags.new ? await campaignsToAppend(run) : undefined;
    await run.client.close();
    const result = pullConfig({
      plan: run.plan,
      desired: run.desired,
      live: run.live,
      recorded: run.recorded,
      texts: new Map([...files].map(([file, f]) => [file, f.text])),
      ...(run.documents ? { documents: run.documents } : {}),
      ...(appendCampaigns ? { appendCampaigns } : {}),
    });
    for (const n of refused) result.notPulled.unshift(n);
    const problems = await verify(io, paths, run, result, files, appendCampaigns?.targetings);
    if (problems.length > 0) {
      if (format === "json") {
        const errors = problems.map((message) => ({ code: "PULL_CHECK_FAILED", message, location: null }));
        io.stdout.write(renderJsonErrors(errors));
        return EXIT.error;
      }
      io.stderr.write(
        `doohctl pull: the edit did not check out, nothing written:\n${problems.map((p) => `  ${p}\n`).join("")}`,
      );
      return EXIT.error;
    }
    const written: string[] = [];
    if (!flags.check) {
      for (const f of result.files) {
        const read = files.get(f.file);
        if (!read) continue;
        try {
          writeIfUnchanged(read.absolute, f.file, f.after, read.digest, CONFIG_FILE_LIMIT.bytes);
          written.push(f.file);
        } catch (error) {
          if (!(error instanceof PullFileError)) throw error;
          result.notPulled.push({ address: f.file, file: f.file, reason: error.message });
        }
      }
    }
    const outcome = { ...result, written, check: flags.check === true };
    io.stdout.write(format === "json" ? renderPullJson(outcome) : renderPullText(outcome));
    if (result.notPulled.length > 0) return EXIT.error;
    return flags.check && result.files.length > 0 ? EXIT.changes : EXIT.ok;
  } catch (error) {
    if (run) await run.client.close().catch(() => undefined);
    reportError(io, "pull", error, format);
    return EXIT.error;
  }
}

interface ReadFile {
  absolute: string;
  text: string;
  digest: string;
}

/** Each config file's text read again: a link, or a file changed since, is refused (not pulled). */
async function readFiles(
  io: CliIO,
  run: PlanRun,
): Promise<{ files: Map<string, ReadFile>; refused: NotPulled[] }> {
  const files = new Map<string, ReadFile>();
  const refused: NotPulled[] = [];
  const names = new Set<string>();
  for (const io_ of run.desired.insertionOrders) names.add(io_.source.file);
  for (const c of run.desired.creatives) names.add(c.source.file);
  const digests = new Set(run.desired.files.map((f) => f.sha256));
  for (const file of names) {
    const absolute = resolve(io.cwd, file);
    try {
      const bytes = readRegular(absolute, file, CONFIG_FILE_LIMIT.bytes);
      const digest = sha256(bytes);
      if (!digests.has(digest)) throw changedSinceRead(file);
      files.set(file, { absolute, text: bytes.toString("utf8"), digest });
    } catch (error) {
      if (!(error instanceof PullFileError)) throw error;
      refused.push({ address: file, file, reason: error.message });
    }
  }
  return { files, refused };
}

/** `--new`: the campaigns to append, with one targetings read each. */
async function campaignsToAppend(run: PlanRun) {
  const campaigns = newCampaigns(run.desired, run.live, Time.toMillis(run.plan.created_at));
  const targetings: Map<string, TargetingOptionSet[]> =
    campaigns.length > 0 ? await run.client.getTargetings(campaigns.map((c) => c.id)) : new Map();
  return { campaigns, targetings };
}

/** Loads the new texts (the others from disk) and checks them against the same live state. */
async function verify(
  io: CliIO,
  paths: string[],
  run: PlanRun,
  result: PullResult,
  files: Map<string, ReadFile>,
  appendedTargetings: ReadonlyMap<string, TargetingOptionSet[]> | undefined,
): Promise<string[]> {
  if (result.files.length === 0) return [];
  const replaced = new Map<string, string>();
  for (const f of result.files) {
    const absolute = files.get(f.file)?.absolute;
    if (!absolute) continue;
    replaced.set(absolute, f.after);
    replaced.set(realpathSync(absolute), f.after);
  }
  const after = await loadConfig(paths, {
    cwd: io.cwd,
    tree: await findTree(io.cwd),
    readFile: async (path, limit) => {
      const text = replaced.get(path);
      return text !== undefined ? Buffer.from(text, "utf8") : nodeFileSystem.readFile(path, limit);
    },
    listDirectory: nodeFileSystem.listDirectory,
    ...(nodeFileSystem.realPath ? { realPath: nodeFileSystem.realPath } : {}),
  }).catch((error: Error) => error);
  if (after instanceof Error) return [`the edited files no longer load: ${after.message}`];
  const plan = run.plan;
  return verifyPull({
    before: run.desired,
    after,
    live: {
      ...run.live,
      targetings: { ...run.live.targetings, ...Object.fromEntries(appendedTargetings ?? []) },
    },
    planOptions: {
      now: plan.created_at,
      toolVersion: plan.tool_version,
      connection: plan.connection,
      ...(plan.targets ? { targets: plan.targets } : {}),
      rateLimits: run.connection.rateLimits,
      recorded: run.recorded,
    },
    pulled: result.pulled,
    appended: result.appended.map((a) => a.address),
  });
}
