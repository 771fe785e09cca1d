/**
 * The GitHub side of a workflow job, for tests: a local recording server for the GitHub API
 * the example workflows call through `gh` (a fake `gh` on PATH forwards `gh api`,
 * `gh run download`, `gh pr comment`, `gh issue list|create|edit`, `gh pr list|create|edit` and `gh label create` to it, `--jq` through the real jq, as gh does), and
 * named fakes for the `uses:` steps that keep their file contract: actions/checkout (a git
 * fetch of the local origin at the requested depth), actions/cache (a directory store keyed
 * as GitHub keys it), actions/upload-artifact (files kept by run id) and the doohctl Action
 * itself (action.yml run by runComposite).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, join, resolve } from "node:path";
import { parse } from "yaml";
import { ROOT } from "../proof/binary.js";
import { type ActionYaml, runComposite, StepFailed, type UsesFake } from "./composite-action.js";
import { githubScriptFake } from "./github-script-fake.js";

export interface Artifact {
  name: string;
  runId: number;
  files: Record<string, string>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: string;
}

export interface GitHubFake {
  origin: string;
  requests: RecordedRequest[];
  /** Pull request numbers by merge commit (what `commits/SHA/pulls` answers). */
  pulls: Map<string, number>;
  artifacts: Artifact[];
  /** Comments on pull requests, from `gh pr comment` and from the Action's github-script. */
  comments: { issue: number; body: string }[];
  /** Issues opened (the drift workflow's), with their labels and body. */
  issues: { number: number; title: string; labels: string[]; body: string }[];
  /** Pull requests opened through `gh pr create` (the drift workflow's), with their body. */
  pullRequests: {
    number: number;
    title: string;
    head: string;
    base: string;
    body: string;
    state: "open" | "closed";
  }[];
  /** A directory holding the fake `gh`: put it first on PATH, with GH_FAKE_URL = origin. */
  bin: string;
  close(): Promise<void>;
}

/**
 * The fake gh, run once for each of a workflow's gh calls. It asks the server through
 * node:http, not fetch: a call through fetch took 0.2 s of CPU, through node:http 0.08 s.
 */
const GH = `#!/usr/bin/env node
// A fake gh: forwards the calls the example workflows make to GH_FAKE_URL.
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const http = require("node:http");
const path = require("node:path");
const base = process.env.GH_FAKE_URL;
const args = process.argv.slice(2);
// What the calls below use of fetch: ok, status, text() and json().
const fetch = (url, init = {}) => new Promise((resolve, reject) => {
  const req = http.request(url, { method: init.method || "GET" }, (res) => {
    let text = "";
    res.setEncoding("utf8");
    res.on("data", (chunk) => { text += chunk; });
    res.on("end", () => resolve({
      ok: res.statusCode >= 200 && res.statusCode < 300,
      status: res.statusCode,
      text: async () => text,
      json: async () => JSON.parse(text),
    }));
  });
  req.on("error", reject);
  req.end(init.body);
});
const flag = (name) => { const i = args.indexOf(name); return i < 0 ? undefined : args[i + 1]; };
const die = (m) => { process.stderr.write("gh: " + m + "\\n"); process.exit(1); };
(async () => {
  if (args[0] === "api") {
    const res = await fetch(base + "/" + args[1].replace(/^\\//, ""));
    const text = await res.text();
    if (!res.ok) die("HTTP " + res.status + ": " + text);
    const jq = flag("--jq");
    process.stdout.write(jq ? execFileSync("jq", ["-r", jq], { input: text, encoding: "utf8" }) : text);
  } else if (args[0] === "run" && args[1] === "download") {
    const res = await fetch(base + "/download/" + args[2] + "/" + flag("--name"));
    if (!res.ok) die("no artifact " + flag("--name") + " in run " + args[2]);
    const dir = flag("--dir") || ".";
    fs.mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(await res.json())) fs.writeFileSync(path.join(dir, name), text);
  } else if (args[0] === "pr" && args[1] === "comment") {
    const body = fs.readFileSync(flag("--body-file"), "utf8");
    const res = await fetch(base + "/repos/o/r/issues/" + args[2] + "/comments", { method: "POST", body: JSON.stringify({ body }) });
    if (!res.ok) die("HTTP " + res.status);
  } else if (args[0] === "issue" && args[1] === "list") {
    const res = await fetch(base + "/repos/o/r/issues?state=" + flag("--state") + "&labels=" + flag("--label"));
    const text = await res.text();
    const jq = flag("--jq");
    process.stdout.write(jq ? execFileSync("jq", ["-r", jq], { input: text, encoding: "utf8" }) : text);
  } else if (args[0] === "issue" && (args[1] === "create" || args[1] === "edit")) {
    const body = fs.readFileSync(flag("--body-file"), "utf8");
    const url = base + "/repos/o/r/issues" + (args[1] === "edit" ? "/" + args[2] : "");
    const res = await fetch(url, { method: args[1] === "edit" ? "PATCH" : "POST", body: JSON.stringify({ title: flag("--title"), labels: [flag("--label")], body }) });
    if (!res.ok) die("HTTP " + res.status);
  } else if (args[0] === "pr" && args[1] === "list") {
    const res = await fetch(base + "/repos/o/r/pulls?state=" + flag("--state") + "&head=o:" + flag("--head") + "&base=" + flag("--base"));
    const text = await res.text();
    const jq = flag("--jq");
    process.stdout.write(jq ? execFileSync("jq", ["-r", jq], { input: text, encoding: "utf8" }) : text);
  } else if (args[0] === "pr" && (args[1] === "create" || args[1] === "edit")) {
    const body = fs.readFileSync(flag("--body-file"), "utf8");
    const url = base + "/repos/o/r/pulls" + (args[1] === "edit" ? "/" + args[2] : "");
    const res = await fetch(url, { method: args[1] === "edit" ? "PATCH" : "POST", body: JSON.stringify(args[1] === "edit" ? { body } : { title: flag("--title"), head: flag("--head"), base: flag("--base"), body }) });
    if (!res.ok) die("HTTP " + res.status);
    if (args[1] === "create") process.stdout.write("https://github.com/o/r/pull/" + (await res.json()).number + "\\n");
  } else if (args[0] === "label" && args[1] === "create") {
    const res = await fetch(base + "/repos/o/r/labels", { method: "POST", body: JSON.stringify({ name: args[2] }) });
    if (!res.ok) die("HTTP " + res.status);
  } else die("the fake gh does not know: " + args.join(" "));
})();
`;

export async function githubFake(dir: string): Promise<GitHubFake> {
  const requests: RecordedRequest[] = [];
  const pulls = new Map<string, number>();
  const artifacts: Artifact[] = [];
  const comments: { issue: number; body: string }[] = [];
  const issues: GitHubFake["issues"] = [];
  const pullRequests: GitHubFake["pullRequests"] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://fake");
      requests.push({ method: request.method ?? "GET", path: `${url.pathname}${url.search}`, body });
      const json = (status: number, value: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(value));
      };
      let m = /^\/repos\/[^/]+\/[^/]+\/commits\/([0-9a-f]+)\/pulls$/.exec(url.pathname);
      if (m) {
        // The full SHA only: a workflow that looks merges up by a short one must fail here.
        const number = pulls.get(m[1]!);
        return json(200, number !== undefined ? [{ number }] : []);
      }
      if (/^\/repos\/[^/]+\/[^/]+\/actions\/artifacts$/.test(url.pathname)) {
        const named = artifacts.filter((a) => a.name === url.searchParams.get("name")).reverse();
        return json(200, { artifacts: named.map((a) => ({ name: a.name, workflow_run: { id: a.runId } })) });
      }
      m = /^\/download\/(\d+)\/(.+)$/.exec(url.pathname);
      if (m) {
        const found = artifacts.find((a) => a.runId === Number(m![1]) && a.name === m![2]);
        return found ? json(200, found.files) : json(404, { message: "Not Found" });
      }
      m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(url.pathname);
      if (m && request.method === "POST") {
        comments.push({ issue: Number(m[1]), body: (JSON.parse(body) as { body: string }).body });
        return json(201, {});
      }
      if (url.pathname === "/repos/o/r/issues" && request.method === "GET") {
        const label = url.searchParams.get("labels");
        return json(
          200,
          issues.filter((i) => i.labels.includes(label ?? "")).map((i) => ({ number: i.number })),
        );
      }
      if (url.pathname === "/repos/o/r/issues" && request.method === "POST") {
        const given = JSON.parse(body) as { title: string; labels: string[]; body: string };
        issues.push({ number: 900 + issues.length, ...given });
        return json(201, issues.at(-1));
      }
      m = /^\/repos\/o\/r\/issues\/(\d+)$/.exec(url.pathname);
      if (m && request.method === "PATCH") {
        const issue = issues.find((i) => i.number === Number(m![1]));
        if (issue) issue.body = (JSON.parse(body) as { body: string }).body;
        return json(issue ? 200 : 404, issue ?? {});
      }
      if (url.pathname === "/repos/o/r/pulls" && request.method === "GET") {
        const [state, head, base] = ["state", "head", "base"].map((k) => url.searchParams.get(k));
        const found = pullRequests.filter(
          (p) => p.state === state && `o:${p.head}` === head && p.base === base,
        );
        return json(
          200,
          found.map((p) => ({ number: p.number })),
        );
      }
      if (url.pathname === "/repos/o/r/pulls" && request.method === "POST") {
        const given = JSON.parse(body) as { title: string; head: string; base: string; body: string };
        pullRequests.push({ number: 70 + pullRequests.length, state: "open", ...given });
        return json(201, pullRequests.at(-1));
      }
      m = /^\/repos\/o\/r\/pulls\/(\d+)$/.exec(url.pathname);
      if (m && request.method === "PATCH") {
        const pr = pullRequests.find((p) => p.number === Number(m![1]));
        if (pr) pr.body = (JSON.parse(body) as { body: string }).body;
        return json(pr ? 200 : 404, pr ?? {});
      }
      if (url.pathname === "/repos/o/r/labels") return json(201, {});
      json(404, { message: `the fake GitHub API does not serve ${request.method} ${url.pathname}` });
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const bin = join(dir, "gh-bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "gh"), GH);
  chmodSync(join(bin, "gh"), 0o755);
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    pulls,
    artifacts,
    comments,
    issues,
    pullRequests,
    bin,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

const ACTION = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as ActionYaml;

/**
 * The `uses:` fakes of the example workflows for one job run in `workspace`: checkout from
 * the bare repository `origin` at `sha` (`fetch-depth` honoured: 0 is every branch and its
 * history, N a shallow fetch of the commit), a cache store shared across runs, artifacts
 * kept in `github`, and the doohctl Action run for real.
 */
export function workflowFakes(options: {
  github: GitHubFake;
  origin: string;
  sha: string;
  runId: number;
  workspace: string;
  temp: string;
  cache: Map<string, string>;
  /**
   * Given the doohctl Action's `command`, how the runner treats its `run:` step: a test
   * cancels it as the runner does (runner-cancel.ts) through `onSpawn`.
   */
  action?: (command: string) => Pick<Parameters<typeof runComposite>[0], "onSpawn" | "cancelled"> | undefined;
}): Record<string, UsesFake> {
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=ci@doohctl.test", "-c", "user.name=ci", ...args], {
      cwd: options.workspace,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  let actions = 0;
  const cacheKey = (step: { with: Record<string, string> }) => step.with.key ?? "";
  return {
    "actions/checkout@v4": async (step) => {
      const depth = step.with["fetch-depth"] ?? "1";
      git("init", "-q");
      git("remote", "add", "origin", `file://${options.origin}`);
      if (depth === "0") git("fetch", "-q", "--no-tags", "origin", "+refs/heads/*:refs/remotes/origin/*");
      git("fetch", "-q", "--no-tags", ...(depth === "0" ? [] : [`--depth=${depth}`]), "origin", options.sha);
      git("checkout", "-q", "--detach", options.sha);
      return {};
    },
    "actions/cache/restore@v4": async (step) => {
      const prefixes = [cacheKey(step), ...(step.with["restore-keys"] ?? "").split("\n").filter(Boolean)];
      const keys = [...options.cache.keys()].reverse();
      for (const prefix of prefixes) {
        const key = keys.find((k) => k === prefix || k.startsWith(prefix));
        if (key) {
          cpSync(options.cache.get(key)!, resolve(options.workspace, step.with.path ?? ""), {
            recursive: true,
          });
          return { "cache-hit": String(key === prefix) };
        }
      }
      return {};
    },
    "actions/cache/save@v4": async (step) => {
      const from = resolve(options.workspace, step.with.path ?? "");
      if (!existsSync(from)) return {};
      const to = join(options.temp, `cache-${options.cache.size}`);
      cpSync(from, to, { recursive: true });
      options.cache.set(cacheKey(step), to);
      return {};
    },
    "actions/upload-artifact@v4": async (step) => {
      const files: Record<string, string> = {};
      for (const path of (step.with.path ?? "").split("\n").filter(Boolean)) {
        const file = join(options.workspace, path.trim());
        if (existsSync(file)) files[basename(file)] = readFileSync(file, "utf8");
        else if (step.with["if-no-files-found"] !== "ignore") throw new StepFailed(`no file ${path}`);
      }
      if (Object.keys(files).length > 0)
        options.github.artifacts.push({ name: step.with.name ?? "artifact", runId: options.runId, files });
      return {};
    },
    "doohctl/doohctl@v0.1.0": async (step) => {
      const script = githubScriptFake();
      const result = await runComposite({
        action: ACTION,
        with: step.with,
        env: step.env,
        github: { action_path: ROOT, token: "t", run_attempt: "1" },
        workspace: options.workspace,
        temp: join(options.temp, `action-${actions++}`),
        fakes: {
          "actions/setup-node@v4": async () => ({}),
          "actions/cache/restore@v4": async () => ({}),
          "actions/github-script@v7": script.fake,
        },
        ...options.action?.(step.with.command ?? ""),
      });
      for (const c of [...script.created, ...script.updated])
        options.github.comments.push({ issue: c.issue_number ?? c.comment_id ?? 0, body: c.body });
      const log = result.steps.map((s) => s.log ?? "").join("\n");
      if (result.status !== "success") throw new StepFailed(log, result.outputs, result.status);
      return result.outputs;
    },
  };
}
