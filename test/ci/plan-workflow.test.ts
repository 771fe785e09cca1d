/**
 * examples/github/doohctl-plan.yml run as a runner runs it (issue 24, findings 4 and 5): a
 * pull request's plan covers its own changes only, from the merge base of GitHub's merge ref,
 * even when another pull request was merged (and applied) after that merge ref was made,
 * where `--changed-since origin/main` showed the other change undone. The plan user's email
 * in the repository variable must be the plan user's.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Plan } from "../../src/plan/types.js";
import { ensureBuilt } from "../proof/binary.js";
import { type GitHubRepo, githubRepo } from "./github-repo.js";

beforeAll(() => ensureBuilt(), 180_000);

let repo: GitHubRepo | undefined;
afterEach(async () => {
  await repo?.close();
  repo = undefined;
});

describe("the GitHub plan workflow", () => {
  it("plans only the pull request's change when another was merged and applied after its merge ref", async () => {
    repo = await githubRepo();
    const r = repo;
    r.openPullRequest(5, { Malls: 200000 });
    const ref = r.mergeRef(5);
    // Pull request 6 is merged and applied after #5's merge ref was made.
    r.openPullRequest(6, { Stations: 50000 });
    const six = r.merge(6);
    expect((await r.run("apply", { name: "workflow_dispatch", sha: six })).status).toBe("success");
    expect(r.budgets()).toMatchObject({ Stations: 50000 });

    const job = await r.run("plan", { name: "pull_request", sha: ref, pr: 5 });
    expect(job.status, job.log).toBe("success");
    const artifact = r.github.artifacts.find((a) => a.name === "doohctl-plan-pr-5");
    const plan = JSON.parse(artifact?.files["plan.json"] ?? "{}") as Plan;
    expect(plan.changes.map((c) => c.address)).toEqual(["campaign.1001/Malls"]);
    expect(artifact?.files["base-commit.txt"]?.trim()).not.toBe(six);
    const comment = r.github.comments.find(
      (c) => c.issue === 5 && c.body.startsWith("<!-- doohctl:plan -->"),
    );
    expect(comment?.body).toContain("Malls");
    expect(comment?.body).not.toContain("Stations");
  }, 120_000);

  it("says where the plan user's email must be kept when the apply job cannot see it, and checks it at plan time", async () => {
    repo = await githubRepo();
    const r = repo;
    r.openPullRequest(7, { Malls: 200000 });
    const wrong = { DOOHCTL_API_ORIGIN: r.emulator.origin, DOOHCTL_PLAN_USER: "someone@doohctl.test" };
    const plan = await r.run("plan", { name: "pull_request", sha: r.mergeRef(7), pr: 7 }, wrong);
    expect(plan.status).toBe("failure");
    expect(plan.step("base").log).toContain("the repository variable DOOHCTL_PLAN_USER is not the plan user");
    const writes = r.writes();
    // The plan user's secret in an environment of its own: the apply job sees no variable.
    const apply = await r.run(
      "apply",
      { name: "push", sha: r.merge(7) },
      { DOOHCTL_API_ORIGIN: r.emulator.origin },
    );
    expect(apply.status).toBe("failure");
    expect(apply.step("reviewed").log).toContain(
      "the repository variable DOOHCTL_PLAN_USER (the plan user's email) is not set",
    );
    expect(r.writes()).toBe(writes);
  }, 120_000);
});
