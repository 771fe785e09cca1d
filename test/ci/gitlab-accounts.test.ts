/**
 * examples/gitlab/doohctl-accounts.gitlab-ci.yml run as GitLab runs it (issue 28, item 5): the
 * accounts job writes the child pipeline (`doohctl accounts --format gitlab` and the jobs of
 * doohctl-accounts-jobs.yml), whose matrix jobs plan each changed account as its own plan
 * user against its own emulator, side by side, and whose last job notes every plan on the
 * merge request. No changed account: one no-op job, since GitLab refuses an empty child
 * pipeline. A write user visible to a merge request job fails it before any request. On the
 * default branch, the child pipeline applies each changed account's reviewed plan as its own
 * write user (its environment's variables), one account's failure stopping no other, and a
 * merge before it not applied to that account refused until a pipeline run by hand.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Plan } from "../../src/plan/types.js";
import { ensureBuilt } from "../proof/binary.js";
import { foreignLogins, passwordsOf, prefixOf, refusedLogins } from "./ci-accounts.js";
import { type AccountsProject, gitlabAccountsProject } from "./gitlab-accounts-project.js";

beforeAll(() => ensureBuilt(), 180_000);

let project: AccountsProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const planNote = (p: AccountsProject, iid: number) =>
  p.gitlab.notes.get(iid)?.find((n) => n.body.startsWith("<!-- doohctl:plan -->"))?.body;

describe("the GitLab fan-out pipeline", () => {
  it("no changed account: the child pipeline is one no-op job, and nothing is noted or sent", async () => {
    project = await gitlabAccountsProject(["north", "south"]);
    const p = project;
    p.openMergeRequestOf(2, { "accounts/README.md": "Our DSP accounts.\n" });
    const pipeline = await p.pipeline(2);
    expect(pipeline.accounts.status, pipeline.accounts.log).toBe("success");
    expect(pipeline.jobs.map((j) => j.name)).toEqual(["doohctl-no-accounts"]);
    expect(pipeline.jobs[0]!.run.status, pipeline.jobs[0]!.run.log).toBe("success");
    expect(planNote(p, 2)).toBeUndefined();
    for (const account of p.accounts) expect(p.emulators[account]!.requestLog()).toEqual([]);
  }, 120_000);

  it("two accounts: a write user visible to the merge request fails that account's job before any request; the other is planned and the note names the failed one", async () => {
    project = await gitlabAccountsProject(["north", "south"]);
    const p = project;
    // North's write user added without its environment scope: every job sees it.
    for (const v of p.variables)
      if (v.key.startsWith(`${prefixOf("north")}_`) && v.protected) {
        v.protected = false;
        v.environment_scope = "*";
      }
    p.openMergeRequest(3, { north: { Malls: 130000 }, south: { Stations: 90000 } });
    const pipeline = await p.pipeline(3);
    const north = pipeline.job("doohctl-plan", "north");
    expect(north.run.status).toBe("failed");
    expect(north.run.log).toContain(
      "the write user (DOOHCTL_NORTH_EMAIL, DOOHCTL_NORTH_PASSWORD) is visible to a merge request job",
    );
    expect(north.run.log).not.toContain(p.variables.find((v) => v.key === "DOOHCTL_NORTH_PASSWORD")!.value);
    expect(p.emulators.north!.requestLog()).toEqual([]);
    expect(pipeline.job("doohctl-plan", "south").run.status).toBe("success");
    expect(pipeline.job("doohctl-note").run.status).toBe("failed");
    const body = planNote(p, 3);
    expect(body).toContain("doohctl plan failed for: north");
    expect(body).toContain("Stations");
  }, 240_000);

  it("three accounts, two changed: a child pipeline plans the two side by side, each as its own plan user, and notes both; on the default branch it applies each reviewed plan, one account's failure stops no other, and its next merge waits for a run by hand", async () => {
    project = await gitlabAccountsProject(["north", "south", "east"]);
    const p = project;
    const first = await p.mainPipeline("web", p.main());
    for (const job of first.jobs) expect(job.run.status, job.run.log).toBe("success");
    expect(first.jobs.map((j) => j.account)).toEqual(["east", "north", "south"]);

    p.openMergeRequest(4, { north: { Malls: 120000 }, east: { Airports: 60000 } });
    const southRequests = p.emulators.south!.requestLog().length;
    const pipeline = await p.pipeline(4);
    expect(pipeline.accounts.status, pipeline.accounts.log).toBe("success");
    const plans = pipeline.jobs.filter((j) => j.stage === "plan");
    expect(plans.map((j) => j.account)).toEqual(["east", "north"]);
    for (const job of plans) {
      expect(job.run.status, job.run.log).toBe("success");
      const saved = JSON.parse(job.run.job.artifacts[`plan-${job.account}.json`]?.toString() ?? "{}") as Plan;
      expect(saved.changes.map((c) => c.address)).toEqual([
        job.account === "north" ? "campaign.1001/Malls" : "campaign.1001/Airports",
      ]);
    }
    const note = pipeline.job("doohctl-note");
    expect(note.run.status, note.run.log).toBe("success");
    const body = planNote(p, 4);
    expect(body).toContain("north");
    expect(body).toContain("east");
    expect(body).toContain("Airports");
    expect(body).not.toContain("doohctl plan failed");
    expect(p.emulators.south!.requestLog()).toHaveLength(southRequests);
    expect(foreignLogins(p.emulators)).toEqual([]);
    expect(refusedLogins(p.emulators)).toEqual([]);
    expect(p.writes("north") + p.writes("east") + p.writes("south")).toBe(0);
    const before = p.main();
    const four = p.merge(4);
    // East's write password was rotated in the DSP, not in its CI/CD variable.
    const eastPassword = p.variables.find((v) => v.key === "DOOHCTL_EAST_PASSWORD")!;
    const rotated = eastPassword.value;
    eastPassword.value = "rotated";
    const applied = await p.mainPipeline("push", four, before);
    eastPassword.value = rotated;
    expect(applied.jobs.map((j) => j.account)).toEqual(["east", "north"]);
    const north = applied.job("doohctl-apply", "north").run;
    expect(north.status, north.log).toBe("success");
    expect(north.log).toContain("Applying the reviewed plan of north in !4");
    expect(applied.job("doohctl-apply", "east").run.status).toBe("failed");
    expect(p.budgets("north")).toMatchObject({ Malls: 120000 });
    expect(p.budgets("east")).toMatchObject({ Airports: 100000 });
    expect(p.writes("east") + p.writes("south")).toBe(0);
    expect(refusedLogins(p.emulators)).toEqual(["east"]);

    // East's next merge: planned from a config east never had applied, it is refused.
    p.openMergeRequest(5, { east: { Stations: 40000 } });
    expect((await p.pipeline(5)).job("doohctl-note").run.status).toBe("success");
    const five = p.merge(5);
    const refused = await p.mainPipeline("push", five, four);
    const east = refused.job("doohctl-apply", "east").run;
    expect(east.status).toBe("failed");
    expect(east.log).toContain("merges before this one were not applied to east");
    expect(p.writes("east")).toBe(0);
    for (const iid of [4, 5])
      expect(p.gitlab.notes.get(iid)?.some((n) => n.body.includes("did not run for east"))).toBe(true);
    // Before it failed, it checked east's recovery record (apply --restore-only): nothing paused.
    expect(p.gitlab.notes.get(5)?.find((n) => n.body.includes("did not run for east"))?.body).toContain(
      "campaigns a stopped apply left paused: none remains paused",
    );

    // The pipeline run by hand applies every account at its HEAD: east gets both merges.
    const manual = await p.mainPipeline("web", five);
    for (const job of manual.jobs) expect(job.run.status, job.run.log).toBe("success");
    expect(p.budgets("east")).toMatchObject({ Airports: 60000, Stations: 40000 });
    expect(p.budgets("north")).toMatchObject({ Malls: 120000 });
    expect(foreignLogins(p.emulators)).toEqual([]);
    const published = [first, applied, refused, manual].flatMap((pl) => [
      pl.accounts.log,
      ...pl.jobs.map((j) => j.run.log + j.run.afterLog),
    ]);
    published.push(...[...p.gitlab.notes.values()].flat().map((n) => n.body));
    for (const password of passwordsOf(p.accounts))
      for (const text of published) expect(text.includes(password), "a password in the output").toBe(false);
  }, 300_000);
});
