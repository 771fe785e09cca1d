/**
 * examples/github/doohctl-drift.yml run as a runner runs it (issue 24, finding 1): the
 * Action's exit 2 of `plan --detailed-exitcode` is success with `exit-code` 2, and the issue
 * step's `gh` calls open one drift issue, then update it; without drift, no issue is touched.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../proof/binary.js";
import { type GitHubRepo, githubRepo } from "./github-repo.js";

beforeAll(() => ensureBuilt(), 180_000);

let repo: GitHubRepo | undefined;
afterEach(async () => {
  await repo?.close();
  repo = undefined;
});

describe("the GitHub drift workflow", () => {
  it("opens one drift issue on exit 2, updates it on the next run, and leaves it alone without drift", async () => {
    repo = await githubRepo();
    const r = repo;
    r.openPullRequest(1, { Malls: 150000 });
    const sha = r.merge(1);
    const first = await r.run("drift", { name: "schedule", sha });
    expect(first.status, first.log).toBe("success");
    expect(first.step("plan").outputs["exit-code"]).toBe("2");
    expect(r.github.issues).toHaveLength(1);
    expect(r.github.issues[0]).toMatchObject({ labels: ["doohctl-drift"] });
    expect(r.github.issues[0]?.body).toContain("Malls");

    const second = await r.run("drift", { name: "schedule", sha });
    expect(second.status).toBe("success");
    expect(r.github.issues).toHaveLength(1);
    expect(r.github.requests.filter((q) => q.method === "PATCH")).toHaveLength(1);

    expect((await r.run("apply", { name: "workflow_dispatch", sha })).status).toBe("success");
    const clean = await r.run("drift", { name: "schedule", sha });
    expect(clean.status).toBe("success");
    expect(clean.step("plan").outputs["exit-code"]).toBe("0");
    expect(clean.steps.at(-1)?.outcome).toBe("skipped");
    expect(r.github.requests.filter((q) => q.method === "PATCH")).toHaveLength(1);
  }, 120_000);
});
