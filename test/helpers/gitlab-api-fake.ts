/**
 * A recording fake of the GitLab REST API (v4) that examples/gitlab/doohctl-gitlab.mjs calls:
 * jobs (listed newest first, paged with x-next-page, filtered by `scope[]`) and their artifact
 * files, merge requests found by merge commit or by source branch (and opened, updated), their
 * pipelines and notes, the child pipelines trigger jobs started (bridges), commits made through the API, issues, and the
 * project variables (403 unless set, as for a Reporter token).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeJob {
  id: number;
  name: string;
  ref: string;
  status: "created" | "running" | "success" | "failed" | "canceling" | "canceled";
  commit: { id: string };
  pipeline: { id: number };
  artifacts: Record<string, Buffer>;
}

export interface FakeMergeRequest {
  iid: number;
  state: "opened" | "merged";
  merge_commit_sha?: string;
  /** Pipeline ids, newest first. */
  pipelines: number[];
  /** Set for merge requests opened through the API (the drift job's). */
  source_branch?: string;
  target_branch?: string;
  title?: string;
  description?: string;
}

/** A commit made through POST /repository/commits. */
export interface FakeCommit {
  branch: string;
  start_sha?: string;
  force?: boolean;
  commit_message: string;
  actions: { action: string; file_path: string; content: string }[];
}

export interface GitLabFake {
  /** CI_API_V4_URL. */
  api: string;
  projectId: string;
  jobs: FakeJob[];
  mergeRequests: FakeMergeRequest[];
  notes: Map<number, { id: number; body: string }[]>;
  issues: { iid: number; title: string; description: string }[];
  commits: FakeCommit[];
  /** Trigger jobs: the child pipeline each pipeline's trigger job started (`/pipelines/:id/bridges`). */
  bridges: { pipeline: number; name: string; downstream: number }[];
  /** The project variables the API lists (a Maintainer token); undefined: 403, as for a Reporter. */
  variables: { key: string; protected: boolean; environment_scope: string }[] | undefined;
  requests: { method: string; path: string }[];
  nextJobId(): number;
  close(): Promise<void>;
}

export async function gitlabFake(options: { perPage?: number } = {}): Promise<GitLabFake> {
  const fake = {
    jobs: [] as FakeJob[],
    mergeRequests: [] as FakeMergeRequest[],
    notes: new Map<number, { id: number; body: string }[]>(),
    issues: [] as { iid: number; title: string; description: string }[],
    commits: [] as FakeCommit[],
    bridges: [] as GitLabFake["bridges"],
    variables: undefined as GitLabFake["variables"],
    requests: [] as { method: string; path: string }[],
  };
  let ids = 100;
  /** Branches made through POST /repository/commits: one commit on start_sha each. */
  const branches = new Map<string, { id: string; parent_ids: string[]; files: Record<string, string> }>();
  const server = createServer((request, response) => {
    let raw = "";
    request.on("data", (chunk: Buffer) => {
      raw += chunk.toString();
    });
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://fake");
      const method = request.method ?? "GET";
      fake.requests.push({ method, path: `${url.pathname}${url.search}` });
      const json = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      const body = json as Record<string, string>;
      const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { "content-type": "application/json", ...headers });
        response.end(Buffer.isBuffer(value) ? value : JSON.stringify(value));
      };
      const list = (items: unknown[]) => {
        const per = Math.min(Number(url.searchParams.get("per_page") ?? 20), options.perPage ?? 100);
        const page = Number(url.searchParams.get("page") ?? 1);
        const next = page * per < items.length ? String(page + 1) : "";
        send(200, items.slice((page - 1) * per, page * per), { "x-next-page": next });
      };
      if (request.headers["private-token"] !== "glpat-test")
        return send(401, { message: "401 Unauthorized" });
      const path = url.pathname.replace(/^\/api\/v4\/projects\/42/, "");
      const scopes = url.searchParams.getAll("scope[]");
      const byScope = (j: FakeJob) => scopes.length === 0 || scopes.includes(j.status);
      const view = (j: FakeJob) => ({
        ...j,
        artifacts: undefined,
        artifacts_file: Object.keys(j.artifacts).length ? {} : undefined,
      });
      const notes = (iid: string) => {
        const list = fake.notes.get(Number(iid)) ?? [];
        fake.notes.set(Number(iid), list);
        return list;
      };
      // Each route: a path pattern and its answer, given the pattern's captures.
      const routes: [RegExp, (m: string[]) => void][] = [
        [/^\/jobs$/, () => list([...fake.jobs].reverse().filter(byScope).map(view))],
        [
          /^\/jobs\/(\d+)\/artifacts\/(.+)$/,
          ([id, file]) => {
            const found = fake.jobs.find((j) => j.id === Number(id))?.artifacts[file ?? ""];
            send(found ? 200 : 404, found ?? { message: "404 Not Found" });
          },
        ],
        [
          /^\/repository\/commits\/([0-9a-f]+)\/merge_requests$/,
          ([sha]) => list(fake.mergeRequests.filter((mr) => mr.merge_commit_sha === sha)),
        ],
        [
          /^\/repository\/commits$/,
          () => {
            const commit = json as unknown as FakeCommit;
            fake.commits.push(commit);
            const id = `c0ffee${String(fake.commits.length).padStart(34, "0")}`;
            const files = Object.fromEntries(commit.actions.map((a) => [a.file_path, a.content]));
            branches.set(commit.branch, { id, parent_ids: [commit.start_sha ?? ""], files });
            send(201, { id });
          },
        ],
        [
          /^\/repository\/branches\/([^/]+)$/,
          ([name]) => {
            const b = branches.get(decodeURIComponent(name ?? ""));
            send(b ? 200 : 404, b ? { name, commit: { id: b.id, parent_ids: b.parent_ids } } : {});
          },
        ],
        [
          /^\/repository\/compare$/,
          () => {
            const b = [...branches.values()].find((x) => x.id === url.searchParams.get("to"));
            const fromOk = b?.parent_ids[0] === url.searchParams.get("from");
            send(b && fromOk ? 200 : 404, {
              diffs: Object.keys(b?.files ?? {}).map((f) => ({ new_path: f })),
            });
          },
        ],
        [
          /^\/repository\/files\/([^/]+)\/raw$/,
          ([path]) => {
            const b = [...branches.values()].find((x) => x.id === url.searchParams.get("ref"));
            const text = b?.files[decodeURIComponent(path ?? "")];
            if (text === undefined) return send(404, { message: "404 File Not Found" });
            response.writeHead(200, { "content-type": "text/plain" });
            response.end(text);
          },
        ],
        [
          /^\/merge_requests$/,
          () => {
            const q = (k: string) => url.searchParams.get(k);
            if (method === "GET")
              return list(
                fake.mergeRequests.filter(
                  (mr) =>
                    mr.state === q("state") &&
                    mr.source_branch === q("source_branch") &&
                    mr.target_branch === q("target_branch"),
                ),
              );
            const iid = 1 + Math.max(0, ...fake.mergeRequests.map((mr) => mr.iid));
            fake.mergeRequests.push({ iid, state: "opened", pipelines: [], ...body });
            send(201, fake.mergeRequests.at(-1));
          },
        ],
        [
          /^\/merge_requests\/(\d+)$/,
          ([iid]) => {
            const mr = fake.mergeRequests.find((m) => m.iid === Number(iid));
            if (mr && method === "PUT") mr.description = body.description ?? "";
            send(mr ? 200 : 404, mr ?? {});
          },
        ],
        [
          /^\/merge_requests\/(\d+)\/pipelines$/,
          ([iid]) =>
            list(
              (fake.mergeRequests.find((mr) => mr.iid === Number(iid))?.pipelines ?? []).map((id) => ({
                id,
              })),
            ),
        ],
        [
          /^\/pipelines\/(\d+)\/jobs$/,
          ([id]) =>
            list(
              [...fake.jobs]
                .reverse()
                .filter((j) => j.pipeline.id === Number(id) && byScope(j))
                .map(view),
            ),
        ],
        [
          /^\/pipelines\/(\d+)\/bridges$/,
          ([id]) =>
            list(
              fake.bridges
                .filter((b) => b.pipeline === Number(id))
                .map((b) => ({ name: b.name, downstream_pipeline: { id: b.downstream } })),
            ),
        ],
        [
          /^\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/,
          ([iid, noteId]) => {
            const all = notes(iid ?? "");
            if (method === "GET") return list(all);
            if (method === "POST") {
              all.push({ id: ++ids, body: body.body ?? "" });
              return send(201, all.at(-1));
            }
            const note = all.find((n) => n.id === Number(noteId));
            if (note) note.body = body.body ?? "";
            send(note ? 200 : 404, note ?? { message: "404 Not Found" });
          },
        ],
        [
          /^\/issues$/,
          () => {
            if (method === "GET") return list(fake.issues);
            fake.issues.push({
              iid: fake.issues.length + 1,
              title: body.title ?? "",
              description: body.description ?? "",
            });
            send(201, fake.issues.at(-1));
          },
        ],
        [
          /^\/issues\/(\d+)$/,
          ([iid]) => {
            const issue = fake.issues.find((i) => i.iid === Number(iid));
            if (issue) issue.description = body.description ?? "";
            send(issue ? 200 : 404, issue ?? {});
          },
        ],
        [
          /^\/variables$/,
          () => (fake.variables ? list(fake.variables) : send(403, { message: "403 Forbidden" })),
        ],
      ];
      for (const [pattern, answer] of routes) {
        const match = pattern.exec(path);
        if (match) return answer(match.slice(1));
      }
      send(404, { message: `the fake GitLab API does not serve ${method} ${path}` });
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(fake, {
    api: `http://127.0.0.1:${port}/api/v4`,
    projectId: "42",
    nextJobId: () => ++ids,
    close: () => new Promise<void>((done) => server.close(() => done())),
  });
}
