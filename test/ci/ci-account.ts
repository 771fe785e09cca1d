/**
 * The DSP account every CI replay runs against (GitHub workflows and GitLab jobs alike): an
 * emulator seeded with the write user, the plan user and three active campaigns of insertion
 * order 1001, the campaigns config those runs plan, and git as a developer runs it.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { ADVERTISER, PUBLISHERS, seedCampaign, seedIo, VENUES_A } from "../helpers/builders.js";
import { accountConfig, startCliAccount } from "../helpers/cli-account.js";
import { READER, USER } from "../helpers/users.js";
import { MAIN, ROOT } from "../proof/binary.js";

export const CAMPAIGNS = ["Malls", "Stations", "Airports"];

/**
 * The account; with `targetings`, each campaign also has a venue targeting and a publisher
 * exclusion, so a config dropping the exclusion makes the apply pause them.
 */
export async function startCiEmulator(options: { targetings?: boolean } = {}): Promise<RunningEmulator> {
  const account = await startCliAccount({
    seed: {
      users: [USER, READER],
      advertisers: [ADVERTISER],
      insertion_orders: [seedIo("1001")],
      campaigns: CAMPAIGNS.map((name, i) => seedCampaign(String(5001 + i), "1001", name, { active: true })),
      ...(options.targetings
        ? {
            targetings: Object.fromEntries(
              CAMPAIGNS.map((_, i) => [String(5001 + i), [VENUES_A, PUBLISHERS]]),
            ),
          }
        : {}),
    },
  });
  return account.emulator;
}

/** `campaigns/doohctl.yaml`: the three campaigns, each at its budget (100,000 unless given). */
export function campaignsConfig(origin: string, budgets: Record<string, number>): string {
  return accountConfig(origin, [
    '  - id: "1001"',
    "    campaigns:",
    ...CAMPAIGNS.flatMap((name) => [
      `      - name: ${name}`,
      `        budget_impressions: ${budgets[name] ?? 100000}`,
    ]),
  ]);
}

/**
 * The config of a pull request whose apply pauses every campaign: each campaign's targeting
 * loses its publisher exclusion (I1), at a write window of 2 a 30 s (the pause and the first
 * targeting PUT fill it, so the reactivation waits past a runner's cancel: docs/apply.md, In CI).
 */
export function targetingChange(origin: string): string {
  return campaignsConfig(origin, {})
    .replace("write: 1000/60s", "write: 2/30s")
    .replaceAll(
      /^( +)budget_impressions: (\d+)$/gm,
      '$1budget_impressions: $2\n$1targetings: [{ venue_targeting_option: { venue_targeting_ids: ["101", "102"] } }]',
    );
}

/** git in `cwd`, committing as the developer; its output trimmed. */
export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.email=dev@doohctl.test", "-c", "user.name=dev", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}

/**
 * `<dir>/bin` holding the runner's `doohctl` (the built CLI) and an `npm` whose
 * `install --prefix DIR` links this checkout there, as the GitLab jobs install doohctl.
 * Returns the directory, for PATH.
 */
export function fakeInstallBin(dir: string): string {
  const bin = join(dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "doohctl"), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
  writeFileSync(
    join(bin, "npm"),
    [
      "#!/bin/sh",
      '[ "$1" = install ] || { echo "fake npm: $*" >&2; exit 1; }',
      'shift; to=""',
      'while [ $# -gt 0 ]; do [ "$1" = --prefix ] && to="$2"; shift; done',
      '[ -n "$to" ] || { echo "fake npm: install without --prefix" >&2; exit 1; }',
      'mkdir -p "$to/node_modules/.bin"',
      `ln -sfn "${ROOT}" "$to/node_modules/doohctl"`,
      `ln -sf "${join(bin, "doohctl")}" "$to/node_modules/.bin/doohctl"`,
      "",
    ].join("\n"),
  );
  chmodSync(join(bin, "doohctl"), 0o755);
  chmodSync(join(bin, "npm"), 0o755);
  return bin;
}

/**
 * `<dir>/origin.git`, a bare repository on main that serves any commit (as GitHub serves a
 * pull request's merge ref), and `<dir>/dev`, a developer's clone-to-be with it as `origin`.
 */
export function originAndDev(dir: string): { origin: string; dev: string } {
  const origin = join(dir, "origin.git");
  const dev = join(dir, "dev");
  mkdirSync(dev);
  gitIn(dir, "init", "-q", "--bare", "-b", "main", origin);
  gitIn(origin, "config", "uploadpack.allowAnySHA1InWant", "true");
  gitIn(dev, "init", "-q", "-b", "main");
  gitIn(dev, "remote", "add", "origin", origin);
  return { origin, dev };
}
