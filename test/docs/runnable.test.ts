/**
 * Every README and docs/ snippet marked runnable (a fenced block opened with ```sh runnable)
 * works as written with an installed doohctl, outside the checkout: the package is packed and
 * installed with `npm install --global --prefix DIR` once a run (test/helpers/packed.ts; `npm
 * root -g` does not know that prefix: the blocks find the shipped examples with `doohctl
 * examples`), and each document's
 * runnable blocks run in order as one bash script (`set -euo pipefail`) in an empty directory,
 * with the emulator's documented port 4010 replaced by a free one. The end state each
 * walk-through promises is checked after it.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedAndInstalled } from "../helpers/packed.js";
import { RUNNABLE } from "./runnable-blocks.js";

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => done(typeof address === "object" && address ? address.port : 0));
    });
  });
}

let dir: string;
let prefix: string;
beforeAll(() => {
  prefix = packedAndInstalled().prefix;
  dir = mkdtempSync(join(tmpdir(), "doohctl-runnable-"));
}, 240_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a document's runnable blocks as one script in an empty directory; its exit and output. */
async function runDocument(blocks: string[], work: string): Promise<{ code: number | null; log: string }> {
  const port = await freePort();
  mkdirSync(work, { recursive: true });
  const script = join(work, "..", `${work.split("/").at(-1)}.sh`);
  writeFileSync(
    script,
    [
      "set -euo pipefail",
      // A block may start the emulator in the background: it never outlives the script.
      "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
      ...blocks.map((b) => b.replaceAll("4010", String(port))),
    ].join("\n"),
  );
  const env: Record<string, string> = {
    PATH: `${join(prefix, "bin")}:${process.env.PATH ?? ""}`,
    HOME: join(dir, "home"),
    npm_config_update_notifier: "false",
    DOOHCTL_STATE_DIR: join(work, ".state"),
    XDG_CACHE_HOME: join(work, ".cache"),
    NO_COLOR: "1",
  };
  const child = spawn("bash", [script], { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.on("close", (c) => done(c)));
  return { code, log };
}

describe("runnable snippets of the README and docs/", () => {
  it("finds the README's walk-through and the emulator page's drift rehearsal", () => {
    expect(RUNNABLE.map((d) => d.doc)).toEqual(expect.arrayContaining(["README.md", "docs/emulator.md"]));
    expect(RUNNABLE.find((d) => d.doc === "README.md")?.blocks.length).toBeGreaterThanOrEqual(5);
  });

  it.each(RUNNABLE.map((d) => [d.doc, d.blocks] as const))(
    "%s runs as written from outside the checkout",
    async (doc, blocks) => {
      const work = join(dir, doc.replace(/[/.]/g, "-"));
      const { code, log } = await runDocument(blocks, work);
      expect(code, log).toBe(0);
      if (doc === "README.md") {
        // The edit applied, the colleague's change pulled, and the last plan was empty (exit 0).
        const config = readFileSync(join(work, "campaigns", "1001.yaml"), "utf8");
        expect(config).toContain("budget_impressions: 550000");
        expect(config).toContain("budget_impressions: 320000");
        expect(log).toContain("+        budget_impressions: 320000");
        expect(log).not.toContain("Not pulled");
      }
      if (doc === "docs/emulator.md") {
        expect(log).toContain('"cpm":{"currency_code":"USD","units":"14","nanos":0}');
        expect(log).toMatch(/"id":"5002"[^}]*"active":false/);
        expect(log).toContain('"end_time":"2027-02-15T00:00:00Z"');
      }
    },
    180_000,
  );
});
