/**
 * examples/gitlab/doohctl-gitlab.mjs when the GitLab API cannot be reached: one line naming
 * the step and the cause, exit 1, never a `TypeError: fetch failed` stack.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const HELPER = join(import.meta.dirname, "../../examples/gitlab/doohctl-gitlab.mjs");
const run = promisify(execFile);

/** A port nobody listens on: taken, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe("doohctl-gitlab.mjs without a reachable GitLab API", () => {
  it("says in one line which step failed and why, and exits 1", async () => {
    const port = await closedPort();
    const failed = await run("node", [HELPER, "fetch-state"], {
      cwd: mkdtempSync(join(tmpdir(), "doohctl-gitlab-down-")),
      env: {
        PATH: process.env.PATH ?? "",
        CI_API_V4_URL: `http://127.0.0.1:${port}/api/v4`,
        CI_PROJECT_ID: "42",
        CI_DEFAULT_BRANCH: "main",
        DOOHCTL_STATE_DIR: ".doohctl-state",
        GITLAB_API_TOKEN: "glpat-test",
      },
    }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toBe(
      "doohctl-gitlab: GET /projects/42/jobs?per_page=100&page=1 could not reach GitLab (ECONNREFUSED)\n",
    );
  });
});
