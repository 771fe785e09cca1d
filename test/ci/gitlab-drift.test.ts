/**
 * The drift job of examples/gitlab/.gitlab-ci.yml run as a GitLab runner's bash runs it
 * (issue 26, item 7): drift made in the DSP outside git is pulled into the config, committed
 * on `doohctl/drift` through the API from the pipeline's commit, and proposed in one merge
 * request whose description holds the pull's diff, the drift report and its money table; the
 * next run updates it. A pause an interrupted apply left (the recovery record,
 * docs/safety.md) is never committed as accepted: the job fails and says to run apply.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import { RecoveryStore } from "../../src/apply/recovery.js";
import { USER } from "../helpers/users.js";
import { colleagueClient } from "../helpers/world.js";
import { ensureBuilt } from "../proof/binary.js";
import { type GitLabProject, gitlabProject } from "./gitlab-project.js";

beforeAll(() => ensureBuilt(), 180_000);

let project: GitLabProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** A change made in the DSP's web UI by the write user. */
async function outOfBand(
  p: GitLabProject,
  id: string,
  change: { budget_impressions?: number; active?: boolean },
) {
  await colleagueClient(p.emulator.origin, USER).send(Endpoints.patchCampaigns([{ id, ...change }]));
}

const driftRequests = (p: GitLabProject) =>
  p.gitlab.mergeRequests.filter((mr) => mr.source_branch === "doohctl/drift");

describe("the GitLab drift job", () => {
  it("commits the pulled config on doohctl/drift and opens one merge request with the diff, the drift report and the money table; the next run updates it", async () => {
    const p = await gitlabProject();
    project = p;
    const clean = await p.run("drift", { source: "schedule" });
    expect(clean.status, clean.log).toBe("success");
    expect(clean.log).toContain("No drift.");
    expect(p.gitlab.commits).toEqual([]);

    await outOfBand(p, "5001", { budget_impressions: 130000 });
    const writes = p.writes();
    const first = await p.run("drift", { source: "schedule" });
    expect(first.status, first.log).toBe("success");
    expect(p.writes()).toBe(writes);
    expect(p.gitlab.commits).toHaveLength(1);
    const [commit] = p.gitlab.commits;
    expect(commit).toMatchObject({ branch: "doohctl/drift", start_sha: p.main(), force: true });
    expect(commit?.actions.map((a) => [a.action, a.file_path])).toEqual([
      ["update", "campaigns/doohctl.yaml"],
    ]);
    const main = execFileSync("git", ["show", "HEAD:campaigns/doohctl.yaml"], {
      cwd: first.dir,
      encoding: "utf8",
    });
    // Only the drifted value changed, byte for byte.
    expect(commit?.actions[0]?.content).toBe(
      main.replace(/(name: Malls\n\s+budget_impressions: )100000/, "$1130000"),
    );
    expect(driftRequests(p)).toHaveLength(1);
    const mr = driftRequests(p)[0]!;
    expect(mr).toMatchObject({ state: "opened", target_branch: "main" });
    expect(mr.description).toContain("+        budget_impressions: 130000");
    expect(mr.description).toContain("### doohctl plan:");
    expect(mr.description).toContain("| maximum spend | before | after | change");
    // The diff alone: pull's progress lines (stderr) go to the job log, not the description.
    expect(mr.description).not.toContain("doohctl: reading");
    // The diff alone in its fence, under a heading saying its order; pull's summary apart.
    const diff = /\n````diff\n([\s\S]*?)\n````\n/.exec(mr.description ?? "")?.[1] ?? "";
    expect(diff.split("\n").filter((line) => !/^[-+ @]/.test(line))).toEqual([]);
    expect(diff).toMatch(/^--- a\/campaigns\/doohctl\.yaml\n\+\+\+ b\/campaigns\/doohctl\.yaml\n@@ /);
    expect(mr.description).toContain(
      "### The pulled change: one diff per file, in the order pull reads the config",
    );
    expect(mr.description).toContain("````text\npull: 1 value written to 1 file\n````");

    await outOfBand(p, "5003", { budget_impressions: 90000 });
    const second = await p.run("drift", { source: "schedule" });
    expect(second.status, second.log).toBe("success");
    expect(second.log).toContain(`updated merge request !${mr.iid}`);
    expect(driftRequests(p)).toHaveLength(1);
    expect(mr.description).toContain("+        budget_impressions: 90000");
    expect(mr.description).toContain("+        budget_impressions: 130000");
    expect(p.gitlab.commits.at(-1)?.actions[0]?.content).toContain("budget_impressions: 90000");
    expect(p.gitlab.issues).toEqual([]);

    // The same drift again: nothing committed (the merge request's approvals stand).
    const same = await p.run("drift", { source: "schedule" });
    expect(same.status, same.log).toBe("success");
    expect(same.log).toContain("doohctl/drift already holds this drift on this commit: not committed again");
    expect(p.gitlab.commits).toHaveLength(2);
    expect(driftRequests(p)).toHaveLength(1);
  }, 120_000);

  it("never commits a pause the recovery record names: the job fails, says to run apply, commits nothing", async () => {
    const p = await gitlabProject();
    project = p;
    await outOfBand(p, "5001", { budget_impressions: 130000 });
    await outOfBand(p, "5002", { active: false });
    const state = mkdtempSync(join(tmpdir(), "doohctl-recovery-"));
    new RecoveryStore(state, {
      origin: p.emulator.origin,
      environment: "production",
      account_id: USER.account_id,
    })
      .begin("2026-11-23T10:00:00.000Z")
      .add([
        {
          campaign_id: "5002",
          insertion_order_id: "1001",
          name: "Stations",
          paused_at: "2026-11-23T10:00:00.000Z",
        },
      ]);
    execFileSync("tar", ["-czf", join(state, "..", "state.tgz"), "-C", state, "."]);
    p.gitlab.jobs.push({
      id: p.gitlab.nextJobId(),
      name: "apply",
      ref: "main",
      status: "canceled",
      commit: { id: p.main() },
      pipeline: { id: 1 },
      artifacts: { "doohctl-state.tar.gz": readFileSync(join(state, "..", "state.tgz")) },
    });
    const run = await p.run("drift", { source: "schedule" });
    expect(run.status).toBe("failed");
    expect(run.log).toMatch(/not pulled: .*Stations.*recovery record.*run doohctl apply/);
    expect(run.log).toContain("nothing is committed and no merge request is opened or updated");
    expect(p.gitlab.commits).toEqual([]);
    expect(driftRequests(p)).toEqual([]);
  }, 120_000);
});
