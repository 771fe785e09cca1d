/**
 * action.yml's install, run as a runner runs the composite action (test/helpers/composite-action.ts)
 * on a copy of the action's files as a runner downloads them (no node_modules/, no dist/), with
 * a job-wide NODE_ENV=production (npm ci would omit TypeScript and the build fail) and a
 * doohctl of the same version from another build on PATH (not used). The cold job builds,
 * packs and saves the tarball; a second job on a fresh machine restores it and installs it
 * without building, about as fast as a bare `npm install --global` of it; a third job on the
 * machine that installed it uses it as is. Figures in docs/ci.md come from this replay.
 */
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { actionBuildId, doohctlBuiltByAction } from "../helpers/action-build.js";
import { type ActionYaml, runComposite } from "../helpers/composite-action.js";
import { ensureBuilt, MAIN, ROOT } from "../proof/binary.js";

const ACTION = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as ActionYaml;
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

let dir: string;
let action: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "doohctl-action-install-"));
  action = join(dir, "action");
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\n")
    .filter((file) => file !== "" && existsSync(join(ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(action, file)), { recursive: true });
    cpSync(join(ROOT, file), join(action, file));
  }
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** actions/cache/restore and save over one store, as GitHub's cache is shared between jobs. */
function cacheService() {
  const store = new Map<string, string>();
  return {
    store,
    restore: async (step: { with: Record<string, string> }) => {
      const saved = store.get(step.with.key ?? "");
      if (!saved) return {};
      cpSync(saved, resolve(step.with.path ?? ""), { recursive: true });
      return { "cache-hit": "true" };
    },
    save: async (step: { with: Record<string, string> }) => {
      const to = join(dir, `cache-${store.size}`);
      cpSync(resolve(step.with.path ?? ""), to, { recursive: true });
      store.set(step.with.key ?? "", to);
      return {};
    },
  };
}

/** One job on a machine whose npm global prefix is `prefix`, `--version` as the command. */
async function job(name: string, prefix: string, cache: ReturnType<typeof cacheService>, stale: string) {
  const workspace = join(dir, name);
  mkdirSync(workspace, { recursive: true });
  let started = 0;
  let installMs = 0;
  const result = await runComposite({
    action: ACTION,
    with: { command: "--version" },
    env: {
      PATH: `${join(prefix, "bin")}:${stale}:${process.env.PATH ?? ""}`,
      HOME: process.env.HOME ?? dir,
      NODE_ENV: "production",
      npm_config_prefix: prefix,
      npm_config_prefer_offline: "true",
      npm_config_update_notifier: "false",
      NO_COLOR: "1",
    },
    github: { action_path: action, action_ref: "v0.1.0", token: "t", run_attempt: "1" },
    workspace,
    temp: join(workspace, "runner-temp"),
    fakes: {
      "actions/setup-node@v4": async () => ({}),
      "actions/cache/restore@v4": cache.restore,
      "actions/cache/save@v4": cache.save,
    },
    onSpawn: (id, _child, exited) => {
      if (id === "build") started = performance.now();
      if (id === "install") void exited.then(() => (installMs = performance.now() - started));
    },
  });
  const step = (id: string) => result.steps.find((s) => s.id === id)!;
  const printed = readFileSync(step("run").outputs["stdout-file"]!, "utf8");
  return { result, step, printed, installMs: () => installMs };
}

/** The build marker of the package prefix/bin/doohctl links to. */
function installedBuild(prefix: string): string {
  const bin = resolve(join(prefix, "bin"), readlinkSync(join(prefix, "bin", "doohctl")));
  const pkg = bin.slice(0, -relative(ROOT, MAIN).length);
  return readFileSync(join(pkg, "doohctl-build.txt"), "utf8").trim();
}

describe("action.yml's install", () => {
  it("builds under NODE_ENV=production, caches the tarball, installs it warm without building, and uses only its own build", async () => {
    const cache = cacheService();
    const want = actionBuildId(action);
    // A doohctl of the same version from another build: the action must not take it.
    const stale = join(dir, "stale-bin");
    mkdirSync(stale);
    doohctlBuiltByAction(stale, "another-build");

    const coldPrefix = join(dir, "machine-1");
    const t0 = performance.now();
    const cold = await job("cold", coldPrefix, cache, stale);
    const coldMs = performance.now() - t0;
    expect(cold.step("install").outcome, cold.step("install").log).toBe("success");
    expect(cold.step("install").log).not.toContain("is installed");
    expect(cold.step("install").log).not.toContain("tsc: not found");
    expect(cold.printed).toBe(`${VERSION}\n`);
    expect(installedBuild(coldPrefix)).toBe(want);
    expect(cold.step("save").outcome).toBe("success");
    expect(cache.store.size).toBe(1);
    expect([...cache.store.keys()][0]).toMatch(new RegExp(`^doohctl-v0\\.1\\.0-${want}-.+-nodev\\d+`));
    expect(cold.result.status).toBe("success");

    // A new job: a fresh machine and a fresh download of the action (no node_modules, no dist).
    rmSync(join(action, "node_modules"), { recursive: true, force: true });
    rmSync(join(action, "dist"), { recursive: true, force: true });
    const warmPrefix = join(dir, "machine-2");
    const warm = await job("warm", warmPrefix, cache, stale);
    expect(warm.step("install").log, warm.step("install").log).toContain("installing the cached tarball");
    expect(warm.printed).toBe(`${VERSION}\n`);
    expect(installedBuild(warmPrefix)).toBe(want);
    expect(existsSync(join(action, "node_modules")), "a warm job builds nothing").toBe(false);
    expect(cache.store.size).toBe(1);
    expect(warm.step("save").outcome).toBe("skipped");

    // The bare baseline: npm install --global of the same cached tarball on a fresh machine.
    const tarball = join(dir, "warm", "runner-temp", "doohctl-tarball", `doohctl-${VERSION}.tgz`);
    const b0 = performance.now();
    execFileSync(
      "npm",
      ["install", "--global", "--no-audit", "--no-fund", "--loglevel=error", "--prefer-offline", tarball],
      { env: { ...process.env, npm_config_prefix: join(dir, "machine-bare"), NODE_ENV: "production" } },
    );
    const bareMs = performance.now() - b0;
    const ratio = warm.installMs() / bareMs;
    writeFileSync(
      join(dir, "figures.json"),
      JSON.stringify({ coldMs, warmMs: warm.installMs(), bareMs, ratio }, null, 2),
    );
    console.log(
      `install step: cold job ${(coldMs / 1000).toFixed(1)} s; warm ${(warm.installMs() / 1000).toFixed(1)} s; ` +
        `bare npm install --global of the tarball ${(bareMs / 1000).toFixed(1)} s; ratio ${ratio.toFixed(2)}`,
    );
    // The figures are docs/ci.md's, never asserted: timing belongs to measurement, not to a test
    // on a shared machine. What makes a warm job fast is asserted above: it builds nothing.

    // The machine that installed this build: used as is.
    const again = await job("again", warmPrefix, cache, stale);
    expect(again.step("install").log).toContain(`doohctl ${VERSION} (build ${want}) is installed`);
    expect(again.printed).toBe(`${VERSION}\n`);
  }, 600_000);
});
