/**
 * `doohctl accounts --changed-since REF` counts what a run of the account reads
 * (docs/safety.md, Files and the tree): a YAML entry of the account's directory may be a link
 * to a file elsewhere in the tree (a policy shared by several accounts). A change to that
 * file changes each linking account's config, so each is listed: otherwise the fan-out would
 * neither plan nor apply them.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { writeAccount } from "../helpers/accounts-repo.js";
import { bufferIO } from "../helpers/io.js";

function gitRepo(): { root: string; git: (...args: string[]) => void } {
  const root = mkdtempSync(join(tmpdir(), "doohctl-accounts-changed-"));
  const git = (...args: string[]) => {
    execFileSync("git", args, {
      cwd: root,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    });
  };
  git("init", "-q", "-b", "main");
  return { root, git };
}

async function changed(root: string): Promise<string[]> {
  const io = bufferIO({ cwd: root });
  expect(await run(["accounts", "--changed-since", "main", "--format", "json"], io), io.err()).toBe(0);
  return (JSON.parse(io.out()) as { accounts: { account: string }[] }).accounts.map((a) => a.account);
}

describe("doohctl accounts --changed-since REF with linked files", () => {
  it("lists every account whose directory links to a changed file elsewhere in the tree", async () => {
    const { root, git } = gitRepo();
    for (const name of ["alpha", "bravo", "charlie"]) writeAccount(root, name);
    mkdirSync(join(root, "shared"));
    writeFileSync(join(root, "shared/policy.yaml"), "version: 1\ninsertion_orders: []\n");
    writeFileSync(join(root, "shared/other.yaml"), "version: 1\ninsertion_orders: []\n");
    symlinkSync("../../shared/policy.yaml", join(root, "accounts/alpha/policy.yaml"));
    symlinkSync("../../shared/policy.yaml", join(root, "accounts/bravo/policy.yaml"));
    symlinkSync("../../shared/other.yaml", join(root, "accounts/charlie/policy.yaml"));
    git("add", "-A");
    git("commit", "-q", "-m", "base");
    expect(await changed(root)).toEqual([]);

    writeFileSync(join(root, "shared/policy.yaml"), "version: 1\n# tightened\ninsertion_orders: []\n");
    expect(await changed(root)).toEqual(["alpha", "bravo"]);
  });
});
