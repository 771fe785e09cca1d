/**
 * examples/github/doohctl-drift.yml run as a runner runs it (issue 24, finding 1; issue 26,
 * item 7): drift made in the DSP outside git is planned (the Action's exit 2 is success with
 * `exit-code` 2), pulled into the config, committed on `doohctl/drift` and proposed in one pull
 * request whose description holds the pull's diff, the drift report and its money table; the
 * next run updates that pull request. A pause an interrupted apply left (the recovery record,
 * docs/safety.md) is never committed as accepted: the job fails and says to run apply.
 */
import { execFileSync } from "node:child_process";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../proof/binary.js";
import { type GitHubRepo, githubRepo } from "./github-repo.js";

beforeAll(() => ensureBuilt(), 180_000);

let repo: GitHubRepo | undefined;
afterEach(async () => {
  await repo?.close();
  repo = undefined;
});

const CONFIG = "campaigns/doohctl.yaml";

describe("the GitHub drift workflow", () => {
  it("opens one pull request with the pulled diff, the drift report and the money table, and updates it on the next run", async () => {
    repo = await githubRepo();
    const r = repo;
    const sha = r.main();
    const clean = await r.run("drift", { name: "schedule", sha });
    expect(clean.status, clean.log).toBe("success");
    expect(clean.step("plan").outputs["exit-code"]).toBe("0");
    expect(r.github.pullRequests).toEqual([]);
    expect(r.show("doohctl/drift", CONFIG)).toBeUndefined();

    await r.outOfBand("5001", { budget_impressions: 130000 });
    const writes = r.writes();
    const first = await r.run("drift", { name: "schedule", sha });
    expect(first.status, first.log).toBe("success");
    expect(first.step("plan").outputs["exit-code"]).toBe("2");
    expect(r.github.pullRequests).toHaveLength(1);
    const pr = r.github.pullRequests[0]!;
    expect(pr).toMatchObject({ head: "doohctl/drift", base: "main", state: "open" });
    expect(pr.body).toContain("-        budget_impressions: 100000");
    expect(pr.body).toContain("+        budget_impressions: 130000");
    expect(pr.body).toContain("### doohctl plan:");
    expect(pr.body).toContain("| maximum spend | before | after | change");
    // The diff alone: pull's progress lines (stderr) go to the job log, not the description.
    expect(pr.body).not.toContain("doohctl: reading");
    // The diff alone in its fence, under a heading saying its order; pull's summary apart.
    const diff = /\n````diff\n([\s\S]*?)\n````\n/.exec(pr.body)?.[1] ?? "";
    expect(diff.split("\n").filter((line) => !/^[-+ @]/.test(line))).toEqual([]);
    expect(diff).toMatch(/^--- a\/campaigns\/doohctl\.yaml\n\+\+\+ b\/campaigns\/doohctl\.yaml\n@@ /);
    expect(pr.body).toContain("### The pulled change: one diff per file, in the order pull reads the config");
    expect(pr.body).toContain("````text\npull: 1 value written to 1 file\n````");
    expect(r.show("doohctl/drift", CONFIG)).toContain("budget_impressions: 130000");
    expect(r.show("main", CONFIG)).not.toContain("130000");
    expect(r.main()).toBe(sha);
    // Read-only on the DSP: the drift job wrote nothing there.
    expect(r.writes()).toBe(writes);

    await r.outOfBand("5002", { budget_impressions: 120000 });
    const second = await r.run("drift", { name: "schedule", sha });
    expect(second.status, second.log).toBe("success");
    expect(r.github.pullRequests).toHaveLength(1);
    expect(r.github.requests.filter((q) => q.method === "PATCH" && q.path.includes("/pulls/"))).toHaveLength(
      1,
    );
    expect(pr.body).toContain("+        budget_impressions: 120000");
    expect(pr.body).toContain("+        budget_impressions: 130000");
    const branch = r.show("doohctl/drift", CONFIG) ?? "";
    expect(branch).toContain("budget_impressions: 120000");
    expect(branch).toContain("budget_impressions: 130000");
    expect(r.github.issues).toEqual([]);

    // The same drift again: the branch is not pushed (its checks and approvals stand).
    const head = execFileSync("git", ["rev-parse", "doohctl/drift"], {
      cwd: r.origin,
      encoding: "utf8",
    }).trim();
    const same = await r.run("drift", { name: "schedule", sha });
    expect(same.status, same.log).toBe("success");
    expect(same.log).toContain("doohctl/drift already holds this drift on this commit: not pushed");
    expect(
      execFileSync("git", ["rev-parse", "doohctl/drift"], { cwd: r.origin, encoding: "utf8" }).trim(),
    ).toBe(head);
    expect(r.github.pullRequests).toHaveLength(1);

    // The pull request's config plans clean against the live state: merging it accepts the drift.
    const merged = await r.run("drift", { name: "schedule", sha: head });
    expect(merged.status, merged.log).toBe("success");
    expect(merged.step("plan").outputs["exit-code"]).toBe("0");
  }, 120_000);

  it("never commits a pause the recovery record names: the job fails, says to run apply, and opens no pull request", async () => {
    repo = await githubRepo();
    const r = repo;
    const sha = r.main();
    await r.outOfBand("5001", { budget_impressions: 130000 });
    await r.outOfBand("5002", { active: false });
    r.recordPause("5002", "Stations");
    const run = await r.run("drift", { name: "schedule", sha });
    expect(run.status).toBe("failure");
    expect(run.step("plan").outputs["exit-code"]).toBe("2");
    expect(run.log).toMatch(/not pulled: .*Stations.*recovery record.*run doohctl apply/);
    expect(run.log).toContain("nothing is committed and no pull request is opened or updated");
    expect(run.steps.at(-1)?.outcome).toBe("skipped");
    expect(r.github.pullRequests).toEqual([]);
    expect(r.show("doohctl/drift", CONFIG)).toBeUndefined();
  }, 120_000);

  it("without DOOHCTL_PULL_TOKEN, fails on drift naming the token instead of opening a pull request no workflow runs on", async () => {
    repo = await githubRepo();
    const r = repo;
    await r.outOfBand("5001", { budget_impressions: 130000 });
    const run = await r.run("drift", { name: "schedule", sha: r.main() }, undefined, undefined, {
      DOOHCTL_PULL_TOKEN: "",
    });
    expect(run.status).toBe("failure");
    expect(run.log).toContain("the secret DOOHCTL_PULL_TOKEN is not set");
    expect(r.github.pullRequests).toEqual([]);
  }, 120_000);
});
