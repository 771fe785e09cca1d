/**
 * A live account for pull's tests: an emulator seeded with one insertion order (1001) and
 * the campaigns given, and a CLI run in a directory of config files.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../src/cli/program.js";
import type { EmulatorSeed, RunningEmulator } from "../../src/emulator/index.js";
import type { Campaign } from "../../src/model/wire.js";
import { campaignMembers } from "../helpers/builders.js";
import { bufferIO } from "../helpers/io.js";
import { usdParts } from "../helpers/money.js";
import { USER } from "../helpers/users.js";

export type LiveCampaign = Pick<Campaign, "id" | "name"> &
  Partial<Pick<Campaign, "active" | "budget_impressions" | "cpm" | "start_time" | "end_time">>;

/** One insertion order 1001 (2027) and its campaigns; flights default to January 2027. */
export function seedOf(
  campaigns: readonly LiveCampaign[],
  io: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): EmulatorSeed {
  return {
    users: [USER],
    advertisers: [{ id: "1", name: "Northwind" }],
    insertion_orders: [
      {
        id: "1001",
        advertiser_id: "1",
        name: "Holiday",
        contract_number: null,
        start_time: "2026-01-01T00:00:00Z",
        end_time: "2028-01-01T00:00:00Z",
        budget_impressions: null,
        budget_money: null,
        ...io,
      },
    ],
    campaigns: campaigns.map((c) =>
      campaignMembers({
        active: true,
        start_time: "2027-01-01T00:00:00Z",
        end_time: "2027-02-01T00:00:00Z",
        budget_impressions: 1000,
        cpm: usdParts("10"),
        ...c,
      }),
    ),
    ...extra,
  } as EmulatorSeed;
}

export class Workdir {
  readonly dir = mkdtempSync(join(tmpdir(), "doohctl-pull-"));

  constructor(private readonly emulator: RunningEmulator) {}

  write(name: string, text: string): void {
    writeFileSync(join(this.dir, name), text);
  }

  read(name: string): string {
    return readFileSync(join(this.dir, name), "utf8");
  }

  env(): Record<string, string> {
    return {
      DOOHCTL_API_ORIGIN: this.emulator.origin,
      DOOHCTL_EMAIL: USER.email,
      DOOHCTL_PASSWORD: USER.password,
      DOOHCTL_SESSION_CACHE: "off",
      DOOHCTL_STATE_DIR: join(this.dir, ".state"),
      HOME: this.dir,
    };
  }

  async run(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
    const io = bufferIO({ cwd: this.dir, env: this.env() });
    const code = await run([...args], io);
    return { code, out: io.out(), err: io.err() };
  }
}
