import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { writeFileAtomicSync } from "../../api/atomic-write.js";
import { listAll } from "../../api/paging.js";
import type { DspClient } from "../../api/types.js";
import { loadConfig } from "../../config/load.js";
import type { ConnectionSettings } from "../../model/desired.js";
import { count } from "../../model/plural.js";
import { printable } from "../../model/printable.js";
import { sortedIds } from "../../model/targeting.js";
import { Time } from "../../model/time.js";
import type { LiveState } from "../../plan/types.js";
import { exportOmissions, renderExport } from "../../render/export.js";
import type { CommandModule } from "../command.js";
import { connect, connectionOf } from "../connection.js";
import { reportError } from "../errors.js";
import { collectIds, Flag } from "../flags.js";
import { type CliIO, EXIT } from "../io.js";
import { checkOutputDirectory, outputFileOptions } from "../output-dir.js";
import { configSchemaUrl, TOOL_VERSION } from "../version.js";

/** Where editors find the config schema: this version's file in the repository (README, examples). */
export const DEFAULT_SCHEMA_URL = configSchemaUrl();

interface ExportFlags {
  insertionOrder: string[];
  all?: boolean;
  out?: string;
  force?: boolean;
  config?: string;
  schema: string;
  sessionCache: boolean;
  format: string;
}

/** A usage or precondition problem: said on stderr, exit 1, nothing read or written. */
export class ExportRefused extends Error {
  override readonly name = "ExportRefused";
  constructor(
    readonly code: "EXPORT_USAGE" | "EXPORT_FILE_EXISTS" | "EXPORT_NOT_FOUND" | "EXPORT_OUTPUT_DIR",
    message: string,
  ) {
    super(message);
  }
}

/** `doohctl export` (ARCHITECTURE.md#commands): live objects as YAML that plans to no changes. */
export const registerExport: CommandModule = (program, io, setExit) => {
  program
    .command("export")
    .option("--insertion-order <id...>", "insertion orders to export (repeatable)", collectIds, [])
    .option("--all", "export every insertion order the API user can see")
    .option("-o, --out <file>", "write to FILE instead of stdout (never overwrites without --force)")
    .option("--force", "let -o overwrite an existing file")
    .option("-c, --config <path>", "take connection settings (api_origin, rate_limits) from this config")
    .option("--schema <url>", "schema reference for the yaml-language-server comment", DEFAULT_SCHEMA_URL)
    .addOption(Flag.sessionCache())
    .addOption(Flag.format("how errors are printed: text on stderr, or json on stdout", ["text", "json"]))
    .action(async (flags: ExportFlags) => {
      setExit(await exportCommand(io, flags));
    });
};

async function exportCommand(io: CliIO, flags: ExportFlags): Promise<number> {
  let client: DspClient | undefined;
  try {
    const ids = [...new Set(flags.insertionOrder)];
    if (ids.length > 0 === (flags.all === true)) {
      throw new ExportRefused(
        "EXPORT_USAGE",
        "say what to export: --insertion-order ID (repeatable) or --all, not both",
      );
    }
    const target = flags.out === undefined ? undefined : resolve(io.cwd, flags.out);
    // Checked before any request, so a refused run costs nothing.
    if (target !== undefined && !flags.force && existsSync(target)) {
      throw new ExportRefused(
        "EXPORT_FILE_EXISTS",
        `${flags.out} already exists: choose another -o FILE, or add --force to overwrite it`,
      );
    }
    if (flags.out !== undefined) checkOutputDirectory(io.cwd, flags.out, "EXPORT_OUTPUT_DIR");
    const settings: ConnectionSettings =
      flags.config === undefined ? {} : (await loadConfig([flags.config], { cwd: io.cwd })).connection;
    client = connect(io, connectionOf(io, settings, { sessionCache: flags.sessionCache })).client;
    const live = await readExportState(client, flags.all === true ? "all" : ids);
    // Names and URLs come from the DSP: shown, never sent to the terminal as escapes.
    for (const line of exportOmissions(live))
      io.stderr.write(`doohctl export: warning: ${printable(line)}\n`);
    const text = renderExport(live, {
      schemaUrl: flags.schema,
      toolVersion: TOOL_VERSION,
      now: Time.fromMillis(io.clock.now()),
    });
    if (target === undefined) {
      io.stdout.write(text);
    } else {
      writeOutput(target, text, { force: flags.force === true, out: flags.out ?? "" });
      io.stderr.write(
        `doohctl export: wrote ${flags.out} (${count(live.insertionOrders.length, "insertion order")}, ${count(live.campaigns.length, "campaign")})\n`,
      );
    }
    return EXIT.ok;
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "EEXIST") {
      const refused = new ExportRefused(
        "EXPORT_FILE_EXISTS",
        `${flags.out} appeared meanwhile: add --force to overwrite it`,
      );
      reportError(io, "export", refused, flags.format);
      return EXIT.error;
    }
    reportError(io, "export", error, flags.format);
    return EXIT.error;
  } finally {
    await client?.close();
  }
}

/** Writes the export; a directory gone or unwritable since the check is said in words too. */
function writeOutput(target: string, text: string, options: { force: boolean; out: string }): void {
  try {
    writeFileAtomicSync(target, text, outputFileOptions(target, options.force));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EACCES" && code !== "EISDIR") throw error;
    throw new ExportRefused(
      "EXPORT_OUTPUT_DIR",
      `cannot write ${options.out} (${code}): ${code === "EACCES" ? "no permission to write there" : code === "EISDIR" ? "it is a directory" : "its directory does not exist"}: choose another -o FILE`,
    );
  }
}

/** What an export shows: insertion orders (G1), campaigns, targetings (G5), creatives (G6), advertisers. */
export async function readExportState(client: DspClient, ids: readonly string[] | "all"): Promise<LiveState> {
  const readsAtStart = client.stats().reads;
  const insertionOrders =
    ids === "all"
      ? await listAll((request, options) => client.send(request, options), client.endpoints.insertionOrders)
      : await client.getInsertionOrders(ids);
  if (ids !== "all") {
    const found = new Set(insertionOrders.map((io) => io.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new ExportRefused(
        "EXPORT_NOT_FOUND",
        `insertion order ${missing.join(", ")} not found: check the id (the API user sees only its own account's insertion orders)`,
      );
    }
  }
  const ioIds = insertionOrders.map((io) => io.id);
  const campaigns = ioIds.length > 0 ? await client.listCampaignsByInsertionOrder(ioIds) : [];
  const campaignIds = campaigns.map((c) => c.id);
  const targetings = campaignIds.length > 0 ? await client.getTargetings(campaignIds) : new Map();
  const creatives = campaignIds.length > 0 ? await client.listCreativesByCampaign(campaignIds) : [];
  const advertiserIds = sortedIds([...new Set(insertionOrders.map((io) => io.advertiser_id))]);
  const advertisers = advertiserIds.length > 0 ? await client.getAdvertisers(advertiserIds) : [];
  return {
    insertionOrders,
    campaigns,
    targetings: Object.fromEntries(targetings),
    creatives,
    advertisers,
    readRequests: client.stats().reads - readsAtStart,
  };
}
