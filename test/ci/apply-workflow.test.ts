/**
 * examples/github/doohctl-plan.yml and doohctl-apply.yml run as a runner runs them (issue 24,
 * findings 2, 4 and 5): every `run:` step under `bash --noprofile --norc -eo pipefail`, the
 * `uses:` steps by fakes keeping their file contract (the doohctl Action run for real), `gh`
 * against a recording GitHub API, a local git origin, the built doohctl against the emulator.
 * Replayed: B merged, B's apply run cancelled while pending, C merged, C's run: it applies
 * nothing and fails naming B, on both pull requests, with the command to run; that manual run
 * applies B and C and records the applied commit; the next merge's reviewed plan applies.
 * And an apply cancelled with the runner's sequence while its campaigns are paused: its
 * `if: cancelled()` step names them on the pull request, and the next merge's refused run
 * reactivates them (`apply --restore-only`) before it fails naming them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cancelLikeGitHub } from "../helpers/runner-cancel.js";
import { ensureBuilt } from "../proof/binary.js";
import { CAMPAIGNS, targetingChange } from "./ci-account.js";
import { type GitHubRepo, githubRepo } from "./github-repo.js";

beforeAll(() => ensureBuilt(), 180_000);

let repo: GitHubRepo | undefined;
afterEach(async () => {
  await repo?.close();
  repo = undefined;
});

const RERUN = "gh workflow run doohctl-apply.yml --repo o/r --ref main";

/** Opens pull request `pr` with `budgets`, runs its plan workflow on GitHub's merge ref. */
async function planned(r: GitHubRepo, pr: number, budgets: Record<string, number>) {
  r.openPullRequest(pr, budgets);
  const job = await r.run("plan", { name: "pull_request", sha: r.mergeRef(pr), pr });
  expect(job.status, job.log).toBe("success");
  return job;
}

describe("the GitHub apply workflow never loses a merge", () => {
  // One repository for the merges of the two tests below, in order: each starts where main is
  // applied. Its emulator, origin and first manual run are
  // set up once.
  let shared: GitHubRepo;
  beforeAll(async () => {
    shared = await githubRepo();
    // Before the first merge: one manual run records the applied commit.
    const first = await shared.run("apply", { name: "workflow_dispatch", sha: shared.main() });
    expect(first.status, first.log).toBe("success");
    expect(shared.applied()).toBe(shared.main());
  }, 120_000);
  afterAll(() => shared?.close());

  /** main's HEAD, which the applied ref names: every merge so far applied. */
  const appliedMain = (r: GitHubRepo) => {
    expect(r.applied(), "main applied").toBe(r.main());
    return r.main();
  };

  it("B's run cancelled, C's run applies nothing and names B; the manual run applies both; D's reviewed plan applies", async () => {
    const r = shared;
    appliedMain(r);
    await planned(r, 1, { Malls: 150000 });
    const b = r.merge(1);
    // B's apply run was pending when C's push came: GitHub cancelled it, it never ran.
    await planned(r, 2, { Stations: 120000 });
    const c = r.merge(2);
    const writes = r.writes();
    const cRun = await r.run("apply", { name: "push", sha: c });
    expect(cRun.status).toBe("failure");
    expect(cRun.step("reviewed").log).toContain("merges before this one were not applied");
    expect(cRun.step("reviewed").log).toContain(`${b} Merge pull request #1`);
    expect(r.writes()).toBe(writes);
    expect(r.budgets()).toMatchObject({ Malls: 100000, Stations: 100000 });
    for (const pr of [1, 2]) {
      const comment = r.github.comments.find((x) => x.issue === pr && x.body.includes("did not run"));
      expect(comment?.body, `a comment on #${pr}`).toContain(RERUN);
      expect(comment?.body).toContain("Merge pull request #1");
    }

    // The command it names: a manual run plans and applies main's HEAD, B and C.
    const manual = await r.run("apply", { name: "workflow_dispatch", sha: c });
    expect(manual.status, manual.log).toBe("success");
    expect(r.budgets()).toMatchObject({ Malls: 150000, Stations: 120000 });
    expect(manual.summary).toContain("Malls");
    expect(r.applied()).toBe(c);

    // Every merge applied: the next merge's reviewed plan is applied as reviewed.
    await planned(r, 3, { Airports: 90000 });
    const d = r.merge(3);
    const dRun = await r.run("apply", { name: "push", sha: d });
    expect(dRun.status, dRun.log).toBe("success");
    expect(dRun.step("reviewed").outputs.mode).toBe("reviewed");
    expect(r.budgets()).toMatchObject({ Malls: 150000, Stations: 120000, Airports: 90000 });
    expect(
      r.github.comments.find((x) => x.issue === 3 && x.body.includes("<!-- doohctl:apply -->"))?.body,
    ).toContain("the reviewed plan");
    expect(r.applied()).toBe(d);
  }, 180_000);

  it("applies the reviewed plan of a rebase merge of several commits: the plan starts from the last applied config", async () => {
    const r = shared;
    appliedMain(r);
    r.openPullRequest(4, { Stations: 80000 }, { Malls: 110000 });
    const job = await r.run("plan", { name: "pull_request", sha: r.mergeRef(4), pr: 4 });
    expect(job.status, job.log).toBe("success");
    const sha = r.merge(4, "rebase");
    const run = await r.run("apply", { name: "push", sha });
    expect(run.status, run.log).toBe("success");
    expect(run.step("reviewed").outputs.mode).toBe("reviewed");
    expect(r.budgets()).toMatchObject({ Malls: 110000, Stations: 80000 });
    expect(r.applied()).toBe(sha);
  }, 120_000);

  it("an apply cancelled with campaigns paused records nothing, saves the recovery state and names them on its pull request; the next merge's refused run reactivates them and names them and the merge", async () => {
    repo = await githubRepo({ targetings: true });
    const r = repo;
    const start = r.main();
    // Main is applied: the first manual run, as the tests above run it.
    r.appliedAt(start);
    // #1 drops every campaign's publisher exclusion: its apply pauses all three (I1).
    r.openPullRequestWith(1, targetingChange(r.emulator.origin));
    const planOne = await r.run("plan", { name: "pull_request", sha: r.mergeRef(1), pr: 1 });
    expect(planOne.status, planOne.log).toBe("success");
    const one = r.merge(1);
    const saved = r.cacheKeys().length;
    // The run is cancelled once the first targeting PUT landed: the write window (2 a 30 s)
    // holds the reactivation past the runner's SIGKILL, 10 s after its SIGINT.
    let cancel: ReturnType<typeof cancelLikeGitHub> | undefined;
    const cancelled = await r.run(
      "apply",
      { name: "push", sha: one },
      undefined,
      undefined,
      undefined,
      (command) =>
        command.startsWith("apply --plan")
          ? {
              onSpawn: (id, child, exited) => {
                if (id !== "run") return;
                r.emulator.onWrite((entry) => {
                  if (entry.method === "PUT" && cancel === undefined)
                    cancel = cancelLikeGitHub(child, exited);
                });
              },
              cancelled: () => cancel !== undefined,
            }
          : undefined,
    );
    expect((await cancel!).sent, cancelled.log).toEqual(["SIGINT", "SIGTERM", "SIGKILL"]);
    expect(cancelled.status).toBe("cancelled");
    expect(r.inactive(), "the cancelled apply left them paused").toEqual([...CAMPAIGNS].sort());
    expect(cancelled.step("record").outcome).toBe("skipped");
    expect(r.applied()).toBe(start);
    // The cancelled run's own step names them, on #1 and in the run's summary.
    const left = r.github.comments.find((c) => c.issue === 1 && c.body.includes("was cancelled"))?.body;
    for (const [i, name] of CAMPAIGNS.entries()) {
      expect(left, cancelled.log).toContain(`campaign ${5001 + i} "${name}" (insertion order 1001)`);
      expect(cancelled.summary).toContain(`"${name}"`);
    }
    expect(left).toContain("PAUSED");
    // The names are the DSP's text: fenced, no Markdown of theirs acts in the comment.
    expect(left).toMatch(/PAUSED[^\n]*\n\n```text\n(- campaign [^\n]*\n){3}```\n/);
    expect(cancelled.step("save").outcome).toBe("success");
    expect(r.cacheKeys().length).toBe(saved + 1);

    // #2 is merged: its plan does not start from the last applied config, so its run applies
    // nothing of it, but first reactivates what the cancelled apply left paused.
    await planned(r, 2, { Stations: 120000 });
    const two = r.merge(2);
    expect(r.inactive(), "the runner's orphan cleanup ended the cancelled doohctl").toEqual(
      [...CAMPAIGNS].sort(),
    );
    const next = await r.run("apply", { name: "push", sha: two });
    expect(next.status).toBe("failure");
    expect(next.step("reviewed").log).toContain(`${one} Merge pull request #1`);
    expect(r.inactive(), next.log).toEqual([]);
    expect(r.budgets()).toMatchObject({ Stations: 100000 });
    const error = next.log.split("\n").find((l) => l.startsWith("::error title=doohctl::not applied"));
    const said = r.github.comments.find((c) => c.issue === 2 && c.body.includes("did not run"))?.body;
    for (const name of CAMPAIGNS) {
      expect(error, next.log).toContain(name);
      expect(said).toContain(name);
    }
    expect(error).toContain("none remains paused");
    expect(said).toContain("merges before this one were not applied");
  }, 180_000);
});
