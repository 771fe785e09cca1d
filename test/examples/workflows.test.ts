/**
 * The GitHub workflow examples use the repository's own action as it is declared, at the
 * version being released, and keep the promises their comments make: read-only plan
 * credentials, the recovery state carried between runs, and applies that converge main.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = join(import.meta.dirname, "../..");
const read = (path: string) => parse(readFileSync(join(ROOT, path), "utf8"));
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const ACTION = read("action.yml");
const WORKFLOWS = ["doohctl-plan.yml", "doohctl-apply.yml", "doohctl-drift.yml"].map((name) => ({
  name,
  doc: read(`examples/github/${name}`),
}));

/** A GitHub expression `${{ e }}`, built so that the test source holds no template-like text. */
const expr = (e: string) => `\${{ ${e} }}`;

// biome-ignore lint/suspicious/noExplicitAny: workflows are walked as plain parsed YAML
type Step = any;
const steps = (doc: Step): Step[] => Object.values<Step>(doc.jobs).flatMap((job) => job.steps ?? []);

describe("GitHub workflow examples", () => {
  it.each(WORKFLOWS)("$name uses the action at this version with only the inputs it declares", ({ doc }) => {
    const uses = steps(doc).filter((s) => String(s.uses ?? "").startsWith("doohctl/doohctl"));
    expect(uses.length).toBeGreaterThan(0);
    const declared = Object.keys(ACTION.inputs);
    const required = declared.filter((name) => ACTION.inputs[name].required === true);
    for (const step of uses) {
      expect(step.uses).toBe(`doohctl/doohctl@v${VERSION}`);
      for (const input of Object.keys(step.with ?? {})) expect(declared).toContain(input);
      for (const input of required) expect(Object.keys(step.with ?? {})).toContain(input);
    }
    // Outputs read from a doohctl step are outputs the action declares.
    const text = JSON.stringify(doc);
    const ids = new Set(uses.map((s) => s.id).filter(Boolean));
    for (const [, id, output] of text.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
      if (ids.has(id)) expect(Object.keys(ACTION.outputs)).toContain(output);
    }
  });

  it.each(WORKFLOWS)("$name carries the apply recovery state in DOOHCTL_STATE_DIR", ({ doc }) => {
    const job = Object.values<Step>(doc.jobs)[0];
    expect(job.env.DOOHCTL_STATE_DIR).toContain(".doohctl-state");
    const restore = steps(doc).find((s) => s.uses === "actions/cache/restore@v4");
    expect(restore.with.path).toBe(".doohctl-state");
    expect(restore.with["restore-keys"]).toMatch(/^doohctl-state-/);
  });

  it("plans with read-only credentials and applies with the production environment's", () => {
    const plan = WORKFLOWS.find((w) => w.name === "doohctl-plan.yml")!.doc.jobs.plan;
    expect(plan.environment).toBeUndefined();
    expect(plan.env.DOOHCTL_PASSWORD).toBe(expr("secrets.DOOHCTL_PLAN_PASSWORD"));
    const apply = WORKFLOWS.find((w) => w.name === "doohctl-apply.yml")!.doc;
    expect(apply.jobs.apply.environment).toBe("production");
    expect(apply.jobs.apply.env.DOOHCTL_PASSWORD).toBe(expr("secrets.DOOHCTL_PASSWORD"));
  });

  it("plans the pull request's changes from its base and comments the saved plan", () => {
    const plan = WORKFLOWS.find((w) => w.name === "doohctl-plan.yml")!.doc;
    const [checkout] = steps(plan);
    expect(checkout.with["fetch-depth"]).toBe(0);
    // The merge base of GitHub's merge commit and the base branch, not origin/main.
    const base = steps(plan).find((s) => s.id === "base");
    expect(base.run).toContain('base=$(git merge-base "origin/$BASE_REF" HEAD)');
    const commands = steps(plan).flatMap((s) => (s.with?.command ? [s.with.command] : []));
    expect(commands[0]).toMatch(/--changed-since "\$BASE_COMMIT" -o plan\.json/);
    expect(commands[1]).toBe("show plan.json --format markdown");
  });

  it("applies its commit with full history, records it once applied, and saves the state even after a failure", () => {
    const apply = WORKFLOWS.find((w) => w.name === "doohctl-apply.yml")!.doc;
    expect(Object.keys(apply.on)).toEqual(["push", "workflow_dispatch"]);
    const [checkout] = steps(apply);
    expect(checkout.with).toEqual({ "fetch-depth": 0 });
    expect(apply.permissions.contents).toBe("write");
    const record = steps(apply).find((s) => s.name === "Record the applied commit");
    expect(record.run).toContain('git push --force origin "$SHA:$APPLIED_REF"');
    expect(record.if).not.toContain("always()");
    const save = steps(apply).find((s) => s.uses === "actions/cache/save@v4");
    expect(save.if).toBe("always()");
    expect(save.with.key).toContain("github.run_attempt");
  });
  it("the drift workflow pushes and opens its pull request with DOOHCTL_PULL_TOKEN, never GITHUB_TOKEN", () => {
    const drift = WORKFLOWS.find((w) => w.name === "doohctl-drift.yml")!.doc;
    // A push or pull request made with GITHUB_TOKEN triggers no workflow (docs/pull.md).
    expect(drift.permissions).toEqual({ contents: "read" });
    expect(drift.jobs.drift.env.GH_TOKEN).toBe(expr("secrets.DOOHCTL_PULL_TOKEN"));
    const [checkout] = steps(drift);
    expect(checkout.with.token).toBe(expr("secrets.DOOHCTL_PULL_TOKEN"));
    expect(JSON.stringify(drift)).not.toContain("github.token");
  });
});

describe("GitLab pipeline example", () => {
  const text = readFileSync(join(ROOT, "examples/gitlab/.gitlab-ci.yml"), "utf8");
  const pipeline = parse(text);
  const steps = readFileSync(join(ROOT, "examples/gitlab/doohctl-gitlab.mjs"), "utf8");
  // The API calls the helpers share (paging among them) live in gitlab-api.mjs.
  const helper = `${steps}\n${readFileSync(join(ROOT, "examples/gitlab/gitlab-api.mjs"), "utf8")}`;

  it("has only shell lines in its scripts (a line starting with { would be a YAML map)", () => {
    for (const job of ["plan", "apply", "drift"]) {
      for (const key of ["script", "after_script"]) {
        for (const line of pipeline[job][key] ?? []) expect(typeof line, `${job}.${key}`).toBe("string");
      }
    }
    for (const line of pipeline.default.before_script) expect(typeof line).toBe("string");
  });

  it("finds the reviewed plan through the merge request, never by HEAD^2", () => {
    expect(text).not.toContain("HEAD^2");
    expect(pipeline.apply.script.join("\n")).toContain('node "$GITLAB_HELPER" reviewed-plan');
  });

  it("calls only steps the helper has, and the helper pages with per_page=100", () => {
    const steps = [...text.matchAll(/(?:"\$GITLAB_HELPER"|doohctl-gitlab\.mjs") ([a-z-]+)/g)].map(
      (m) => m[1],
    );
    expect(new Set(steps)).toEqual(
      new Set([
        "check-credentials",
        "fetch-state",
        "note",
        "job-failed",
        "reviewed-plan",
        "drift-merge-request",
      ]),
    );
    for (const step of steps) expect(helper).toContain(`step === "${step}"`);
    expect(helper).toContain("per_page=100");
    expect(helper).toContain("x-next-page");
  });

  it("plans with the unprotected plan user and applies one at a time in production", () => {
    expect(pipeline.plan.variables).toMatchObject({
      DOOHCTL_EMAIL: "$DOOHCTL_PLAN_EMAIL",
      DOOHCTL_PASSWORD: "$DOOHCTL_PLAN_PASSWORD",
    });
    expect(pipeline.apply.variables?.DOOHCTL_PASSWORD).toBeUndefined();
    expect(pipeline.apply.resource_group).toBe("doohctl-apply");
    expect(pipeline.apply.environment).toBe("production");
    expect(pipeline.plan.script.join("\n")).toContain(
      `base="\${CI_MERGE_REQUEST_TARGET_BRANCH_SHA:-$CI_MERGE_REQUEST_DIFF_BASE_SHA}"`,
    );
    expect(pipeline.plan.script.join("\n")).toContain('--changed-since "$base"');
  });
});
