/**
 * examples/gitlab/.gitlab-ci.yml's jobs run as a GitLab runner's bash runs them (issue 24,
 * findings 1, 2 and 4): before_script and script joined after `set -eo pipefail`,
 * after_script apart with CI_JOB_STATUS, variables resolved with GitLab's precedence and
 * scoping, doohctl-gitlab.mjs against a recording GitLab API, doohctl against the emulator.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { joinScript } from "../helpers/gitlab-job.js";
import { READER } from "../helpers/users.js";
import { ensureBuilt, ROOT } from "../proof/binary.js";
import { CAMPAIGNS, targetingChange } from "./ci-account.js";
import { type GitLabProject, gitlabProject } from "./gitlab-project.js";

beforeAll(() => ensureBuilt(), 180_000);

let project: GitLabProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

async function start(options: { targetings?: boolean } = {}) {
  project = await gitlabProject(options);
  return project;
}

/** `p.run` options that cancel the job as GitLab does (gitlab-job.ts) at the first write `at` matches. */
function cancelledAt(p: GitLabProject, at: (entry: { method: string }) => boolean = () => true) {
  let cancelled = false;
  return {
    onSpawn: (_child: unknown, cancel: () => void) => {
      p.emulator.onWrite((entry) => {
        if (!at(entry) || cancelled) return;
        cancelled = true;
        cancel();
      });
    },
  };
}

const isPut = (entry: { method: string }) => entry.method === "PUT";

const noteOf = (p: GitLabProject, iid: number, key: string) =>
  p.gitlab.notes.get(iid)?.find((n) => n.body.startsWith(`<!-- doohctl:${key} -->`))?.body;

/**
 * A state archive holding one file `marker` with `text`, as an apply job's after_script makes
 * it; its directory 0755, as an earlier doohctl's jobs left it.
 */
function stateArchive(text: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-state-"));
  mkdirSync(join(dir, "state"));
  chmodSync(join(dir, "state"), 0o755);
  writeFileSync(join(dir, "state", "marker"), text);
  execFileSync("tar", ["-czf", join(dir, "s.tgz"), "-C", join(dir, "state"), "."]);
  return readFileSync(join(dir, "s.tgz"));
}

describe("the GitLab script lines", () => {
  it("read an exit code only as `|| code=$?`: under the runner's set -eo pipefail, `cmd; code=$?` ends the job at cmd", () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-joined-"));
    const run = (lines: string[]) => {
      writeFileSync(join(dir, "s.sh"), joinScript(lines));
      try {
        return execFileSync("bash", ["--noprofile", "--norc", join(dir, "s.sh")], {
          cwd: dir,
          encoding: "utf8",
        });
      } catch (error) {
        return `exit ${(error as { status: number }).status}`;
      }
    };
    expect(run(["sh -c 'exit 2' > out.txt; code=$?", 'echo "code $code"'])).toBe("exit 2");
    expect(run(["code=0; sh -c 'exit 2' > out.txt || code=$?", 'echo "code $code"'])).toBe("code 2\n");
    const ci = readFileSync(join(ROOT, "examples", "gitlab", ".gitlab-ci.yml"), "utf8");
    const reads = ci.split("\n").filter((line) => line.includes("$?") && !line.trimStart().startsWith("#"));
    expect(reads.length).toBeGreaterThan(0);
    for (const line of reads) expect(line).toMatch(/code=0; .* \|\| code=\$\?($|;)/);
    expect(ci).not.toMatch(/^\s*- set \+e/m);
  });
});

describe("the GitLab plan job", () => {
  it("an exit 2 of plan --detailed-exitcode does not end the job: the plan is noted on the MR", async () => {
    const p = await start();
    p.openMergeRequest(1, { Malls: 150000 });
    const job = await p.run("plan", { source: "merge_request_event", iid: 1 });
    expect(job.status, job.log).toBe("success");
    expect(noteOf(p, 1, "plan")).toContain("Malls");
    expect(Object.keys(job.job.artifacts).sort()).toEqual([
      "base-commit.txt",
      "config-tree.txt",
      "plan.json",
      "plan.md",
    ]);
    expect(job.afterLog).not.toContain("doohctl-gitlab");
  }, 60_000);

  it("a failing plan is noted on the MR before the job fails", async () => {
    const p = await start();
    p.openMergeRequest(2, {}, "version: 1\ninsertion_orders: [\n");
    const job = await p.run("plan", { source: "merge_request_event", iid: 2 });
    expect(job.status).toBe("failed");
    expect(noteOf(p, 2, "plan")).toContain("doohctl plan failed (exit 1)");
  }, 60_000);

  it("an unscoped write user fails the job before any login, and the failure is noted on the MR", async () => {
    const p = await start();
    for (const v of p.variables)
      if (v.key === "DOOHCTL_EMAIL" || v.key === "DOOHCTL_PASSWORD") v.environment_scope = "*";
    for (const v of p.variables)
      if (v.key === "DOOHCTL_EMAIL" || v.key === "DOOHCTL_PASSWORD") v.protected = false;
    p.openMergeRequest(3, { Malls: 150000 });
    const job = await p.run("plan", { source: "merge_request_event", iid: 3 });
    expect(job.status).toBe("failed");
    expect(job.log).toContain("a project variable DOOHCTL_EMAIL or DOOHCTL_PASSWORD overrides the job's");
    expect(job.log).toContain("`production` environment");
    expect(p.emulator.requestLog()).toEqual([]);
    expect(noteOf(p, 3, "plan")).toContain("failed** before it reported a result");
  }, 60_000);
});

describe("a GitLab merged-results pipeline", () => {
  it("plans only the MR's change from the target's HEAD, and that reviewed plan applies once merged", async () => {
    const p = await start();
    p.openMergeRequest(1, { Malls: 150000 });
    // !2 is merged and applied (by hand: the last applied commit) after !1 was opened: !1's
    // merge base is older than main.
    p.openMergeRequest(2, { Stations: 50000 });
    const two = p.merge(2);
    expect((await p.run("apply", { source: "web", sha: two })).status).toBe("success");
    const plan = await p.run("plan", { source: "merge_request_event", iid: 1 }, { mergedResult: true });
    expect(plan.status, plan.log).toBe("success");
    const saved = JSON.parse(String(plan.job.artifacts["plan.json"])) as { changes: { address: string }[] };
    expect(saved.changes.map((c) => c.address)).toEqual(["campaign.1001/Malls"]);
    expect(String(plan.job.artifacts["base-commit.txt"]).trim()).toBe(two);
    const apply = await p.run("apply", { source: "push", sha: p.merge(1) });
    expect(apply.status, apply.log).toBe("success");
    expect(apply.log).toContain("Applying the reviewed plan of !1");
    expect(p.budgets()).toMatchObject({ Malls: 150000, Stations: 50000 });
  }, 120_000);
});

describe("the GitLab drift job", () => {
  it("on the protected branch, a write user protected but not scoped to production is refused; scoped, drift runs as the plan user", async () => {
    const p = await start();
    const scope = (s: string) => {
      for (const v of p.variables)
        if (v.key === "DOOHCTL_EMAIL" || v.key === "DOOHCTL_PASSWORD") v.environment_scope = s;
    };
    scope("*");
    const refused = await p.run("drift", { source: "schedule" });
    expect(refused.status).toBe("failed");
    expect(refused.log).toContain("job drift would log in as another user than the plan user");
    expect(p.emulator.requestLog()).toEqual([]);
    scope("production");
    p.gitlab.variables = p.variables.map((v) => ({
      key: v.key,
      protected: v.protected ?? false,
      environment_scope: v.environment_scope ?? "*",
    }));
    // What it does on drift (a pull, a merge request): gitlab-drift.test.ts.
    const drift = await p.run("drift", { source: "schedule" });
    expect(drift.status, drift.log).toBe("success");
    expect(drift.log).toContain("No drift.");
    const users = new Set(p.emulator.requestLog().map((e) => e.user));
    expect([...users].filter((user) => user !== undefined)).toEqual([READER.email]);
  }, 60_000);
});

describe("the GitLab apply recovery state", () => {
  it("every job restores the state of the newest apply job that left one, cancelled or not", async () => {
    const p = await start();
    const apply = (status: "success" | "canceled", artifacts: Record<string, Buffer>) =>
      p.gitlab.jobs.push({
        id: p.gitlab.nextJobId(),
        name: "apply",
        ref: "main",
        status,
        commit: { id: p.main() },
        pipeline: { id: 1 },
        artifacts,
      });
    apply("success", { "doohctl-state.tar.gz": stateArchive("older, successful apply") });
    apply("canceled", { "doohctl-state.tar.gz": stateArchive("cancelled while running") });
    // Cancelled before it started: it ran nothing and left nothing.
    apply("canceled", {});
    const job = await p.run("drift", { source: "schedule" });
    expect(job.log).toMatch(/apply job \d+ \(canceled\) left no recovery state; looking at the one before/);
    expect(job.log).toMatch(/recovery state of apply job \d+ \(canceled\) restored/);
    expect(readFileSync(join(job.dir, ".doohctl-state", "marker"), "utf8")).toBe("cancelled while running");
    // doohctl refuses a state directory others could write: restored 0700 whatever the archive held.
    expect(statSync(join(job.dir, ".doohctl-state")).mode & 0o777).toBe(0o700);
  }, 60_000);
});

describe("the GitLab apply job never loses a merge", () => {
  it("!1's apply cancelled before it started, !2's apply applies nothing and names !1; by hand both apply; !3's reviewed plan applies", async () => {
    const p = await start();
    const first = await p.run("apply", { source: "web" });
    expect(first.status, first.log).toBe("success");

    p.openMergeRequest(1, { Malls: 150000 });
    expect((await p.run("plan", { source: "merge_request_event", iid: 1 })).status).toBe("success");
    p.merge(1);
    p.openMergeRequest(2, { Stations: 120000 });
    expect((await p.run("plan", { source: "merge_request_event", iid: 2 })).status).toBe("success");
    const two = p.merge(2);
    const writes = p.writes();
    const push = await p.run("apply", { source: "push", sha: two });
    expect(push.status).toBe("failed");
    expect(push.log).toContain("merges before this one were not applied");
    expect(push.log).toMatch(/- [0-9a-f]{7,} Merge branch 'mr-1' into 'main'/);
    expect(p.writes()).toBe(writes);
    for (const iid of [1, 2]) {
      expect(noteOf(p, iid, "apply"), `the note on !${iid}`).toContain("glab ci run --branch main");
      expect(noteOf(p, iid, "apply")).toContain("Merge branch 'mr-1'");
    }

    const web = await p.run("apply", { source: "web", sha: two });
    expect(web.status, web.log).toBe("success");
    expect(p.budgets()).toMatchObject({ Malls: 150000, Stations: 120000 });

    p.openMergeRequest(3, { Airports: 90000 });
    expect((await p.run("plan", { source: "merge_request_event", iid: 3 })).status).toBe("success");
    const three = await p.run("apply", { source: "push", sha: p.merge(3) });
    expect(three.status, three.log).toBe("success");
    expect(three.log).toContain("Applying the reviewed plan of !3");
    expect(p.budgets()).toMatchObject({ Airports: 90000 });
    expect(noteOf(p, 3, "apply")).toContain("doohctl apply exited 0");
  }, 120_000);
});

// A cancelled apply job keeps its recovery state through after_script and `when: always`
// artifacts, and the next job restores it: both tests below.
describe("a GitLab apply job cancelled with campaigns paused", () => {
  it("names them on its MR from after_script; the next merge's refused job restores its state, reactivates them and names them", async () => {
    const p = await start({ targetings: true });
    // Main is applied: a pipeline run by hand, as the test of a merge never lost runs it.
    p.appliedAt(p.main());
    // !1 drops every campaign's publisher exclusion: its apply pauses all three (I1).
    p.openMergeRequest(1, {}, targetingChange(p.emulator.origin));
    expect((await p.run("plan", { source: "merge_request_event", iid: 1 })).status).toBe("success");
    const one = p.merge(1);
    // Cancelled once the first targeting PUT landed: doohctl stops on the runner's SIGTERM and
    // waits for the write window (2 a 30 s) to reactivate; after_script waits 2 s for it (a
    // project's DOOHCTL_CANCEL_WAIT), and the job ends before it can.
    p.variables.push({ key: "DOOHCTL_CANCEL_WAIT", value: "2" });
    const run = await p.run("apply", { source: "push", sha: one }, cancelledAt(p, isPut));
    expect(run.status, run.log).toBe("canceled");
    expect(p.inactive(), "the cancelled apply left them paused").toEqual([...CAMPAIGNS].sort());
    expect(Object.keys(run.job.artifacts)).toContain("doohctl-state.tar.gz");
    expect(run.afterLog).toContain("doohctl apply, cancelled, still ran 2 s later (DOOHCTL_CANCEL_WAIT)");
    expect(run.afterLog).toContain("SIGTERM: no further change is sent; reactivating what this apply paused");
    const left = noteOf(p, 1, "apply");
    for (const [i, name] of CAMPAIGNS.entries()) {
      const line = `campaign ${5001 + i} "${name}" (insertion order 1001)`;
      expect(run.afterLog).toContain(line);
      expect(left, run.afterLog).toContain(line);
    }
    expect(left).toContain("was cancelled");
    // The names are the DSP's text: fenced, no Markdown of theirs acts in the note.
    expect(left).toMatch(/PAUSED[^\n]*\n\n```text\n(- campaign [^\n]*\n){3}```\n/);

    // !2 is merged: its plan does not start from the last applied config, so its job applies
    // nothing of it, but first reactivates what the cancelled apply left paused.
    p.openMergeRequest(2, { Stations: 120000 });
    expect((await p.run("plan", { source: "merge_request_event", iid: 2 })).status).toBe("success");
    const two = p.merge(2);
    expect(p.inactive(), "the cancelled job's doohctl ended with the job").toEqual([...CAMPAIGNS].sort());
    const next = await p.run("apply", { source: "push", sha: two });
    expect(next.status, next.log).toBe("failed");
    expect(next.log).toContain(`recovery state of apply job ${run.job.id} (canceled) restored`);
    expect(p.inactive(), next.log).toEqual([]);
    expect(p.budgets()).toMatchObject({ Stations: 100000 });
    const failure = next.log.split("\n").find((l) => l.startsWith("doohctl-gitlab: not applied"));
    const said = noteOf(p, 2, "apply");
    for (const name of CAMPAIGNS) {
      expect(failure, next.log).toContain(name);
      expect(said).toContain(name);
    }
    expect(failure).toContain("none remains paused");
    expect(said).toContain("merges before this one were not applied");
  }, 120_000);
});

describe("a GitLab apply job cancelled while the write window holds its reactivation", () => {
  it("waits in after_script for doohctl to reactivate them: every campaign active, its report and exit 143 in the log", async () => {
    const p = await start({ targetings: true });
    // Main is applied: a pipeline run by hand, as the test of a merge never lost runs it.
    p.appliedAt(p.main());
    // !1 pauses all three; the write window (2 a 5 s) holds the reactivation a few seconds,
    // well inside DOOHCTL_CANCEL_WAIT (60 s, the example's).
    p.openMergeRequest(1, {}, targetingChange(p.emulator.origin).replace("write: 2/30s", "write: 2/5s"));
    expect((await p.run("plan", { source: "merge_request_event", iid: 1 })).status).toBe("success");
    const one = p.merge(1);
    const run = await p.run("apply", { source: "push", sha: one }, cancelledAt(p, isPut));
    expect(run.status, run.log).toBe("canceled");
    expect(p.inactive(), run.afterLog).toEqual([]);
    expect(Object.keys(run.job.artifacts)).toContain("doohctl-state.tar.gz");
    // after_script waited for doohctl to end and shows its whole report, as the kept apply.txt.
    const report = String(run.job.artifacts["apply.txt"]);
    expect(report).toMatch(/^Apply interrupted after \d+ of \d+ requests\./m);
    expect(run.afterLog).toContain(
      `doohctl apply, cancelled, exited 143; its report (apply.txt):\n${report}`,
    );
    expect(noteOf(p, 1, "apply")).toContain("No campaign it paused is left paused.");
  }, 120_000);
});

describe("doohctl-gitlab.mjs", () => {
  const helper = (args: string[], cwd: string, port: number) => {
    try {
      execFileSync(process.execPath, [join(ROOT, "examples", "gitlab", "doohctl-gitlab.mjs"), ...args], {
        cwd,
        env: {
          PATH: process.env.PATH ?? "",
          CI_API_V4_URL: `http://127.0.0.1:${port}/api/v4`,
          CI_PROJECT_ID: "42",
          GITLAB_API_TOKEN: "glpat-test",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      return "";
    } catch (error) {
      return String((error as { stderr: Buffer }).stderr);
    }
  };

  it("names the call and the cause when GitLab cannot be reached, or the file it was given is missing: no stack trace", async () => {
    // A port nothing listens on any more.
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const port = (server.address() as AddressInfo).port;
    await new Promise((done) => server.close(done));
    const dir = mkdtempSync(join(tmpdir(), "doohctl-helper-"));
    expect(helper(["drift-merge-request", "drift.md", "pull.txt"], dir, port)).toBe(
      "doohctl-gitlab: cannot read drift.md (ENOENT): the step before did not write it\n",
    );
    writeFileSync(join(dir, "drift.md"), "drift");
    expect(helper(["drift-merge-request", "drift.md", "pull.txt"], dir, port)).toBe(
      "doohctl-gitlab: cannot read pull.txt (ENOENT): the step before did not write it\n",
    );
    writeFileSync(join(dir, "pull.txt"), "pulled");
    execFileSync("git", ["init", "-q"], { cwd: dir });
    expect(helper(["drift-merge-request", "drift.md", "pull.txt"], dir, port)).toBe(
      "doohctl-gitlab: plan reports drift but doohctl pull changed no file: read the plan above and decide (apply, or edit the config)\n",
    );
    mkdirSync(join(dir, "campaigns"));
    writeFileSync(join(dir, "campaigns", "c.yaml"), "version: 1\n");
    execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", "add", "."], { cwd: dir });
    execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "c"], { cwd: dir });
    writeFileSync(join(dir, "campaigns", "c.yaml"), "version: 1 # pulled\n");
    expect(helper(["drift-merge-request", "drift.md", "pull.txt"], dir, port)).toBe(
      "doohctl-gitlab: GET /projects/42/repository/branches/doohctl%2Fdrift could not reach GitLab (ECONNREFUSED)\n",
    );
  });
});
