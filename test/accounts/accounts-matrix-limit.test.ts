/**
 * A CI matrix has a ceiling: GitHub Actions runs at most 256 jobs of one matrix, GitLab at
 * most 200 of one `parallel: matrix`. `doohctl accounts` refuses a matrix beyond it, saying
 * how to split it (PATHS), rather than hand the CI a document it rejects after the fact.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { writeAccount } from "../helpers/accounts-repo.js";
import { bufferIO } from "../helpers/io.js";

function repo(count: number): string {
  const root = mkdtempSync(join(tmpdir(), "doohctl-accounts-limit-"));
  for (let i = 0; i < count; i++) writeAccount(root, `client-${String(i).padStart(3, "0")}`);
  return root;
}

async function accounts(root: string, format: string) {
  const io = bufferIO({ cwd: root });
  const code = await run(["accounts", "--format", format], io);
  return { code, out: io.out(), err: io.err() };
}

describe("doohctl accounts and the CI's matrix ceiling", () => {
  it("GitHub: 256 accounts are one matrix, 257 are refused with how to split them", async () => {
    const root = repo(257);
    const over = await accounts(root, "github-matrix");
    expect(over.code).toBe(1);
    expect(over.out).toBe("");
    expect(over.err).toContain("257 accounts");
    expect(over.err).toContain("at most 256 jobs");
    expect(over.err).toContain("PATHS");
    // GitLab's ceiling is lower; JSON and text have none.
    const gitlab = await accounts(root, "gitlab");
    expect(gitlab.code).toBe(1);
    expect(gitlab.err).toContain("at most 200 jobs");
    expect((await accounts(root, "json")).code).toBe(0);
  }, 60_000);

  it("GitLab: 200 accounts are one matrix", async () => {
    const root = repo(200);
    const gitlab = await accounts(root, "gitlab");
    expect(gitlab.code, gitlab.err).toBe(0);
    expect(gitlab.out.match(/DOOHCTL_ACCOUNT: /g)).toHaveLength(200);
  }, 60_000);
});
