/**
 * A stand-in for `actions/github-script`: runs the step's `script` as that action does (an
 * async function of `github`, `context`, `core`, `require`, with the step's `env` as
 * `process.env`) against a recording GitHub API instead of the real one.
 */
import { createRequire } from "node:module";
import type { UsesFake } from "./composite-action.js";

export interface RecordedComment {
  issue_number?: number;
  comment_id?: number;
  body: string;
}

export interface GitHubScriptFake {
  fake: UsesFake;
  created: RecordedComment[];
  updated: RecordedComment[];
}

export function githubScriptFake(
  options: { existing?: { id: number; body: string }[] } = {},
): GitHubScriptFake {
  const created: RecordedComment[] = [];
  const updated: RecordedComment[] = [];
  const listComments = async () => ({ data: options.existing ?? [] });
  const github = {
    paginate: async (method: () => Promise<{ data: unknown[] }>) => (await method()).data,
    rest: {
      issues: {
        listComments,
        createComment: async (args: { issue_number: number; body: string }) => {
          created.push({ issue_number: args.issue_number, body: args.body });
        },
        updateComment: async (args: { comment_id: number; body: string }) => {
          updated.push({ comment_id: args.comment_id, body: args.body });
        },
      },
    },
  };
  const context = { serverUrl: "https://github.example", repo: { owner: "o", repo: "r" }, runId: 42 };
  const fake: UsesFake = async (step) => {
    const script = step.with.script;
    if (script === undefined) throw new Error("github-script without a script");
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
      ...args: string[]
    ) => (...values: unknown[]) => Promise<unknown>;
    const body = new AsyncFunction("require", "github", "context", "core", "process", script);
    await body(createRequire(import.meta.url), github, context, {}, { env: step.env });
    return {};
  };
  return { fake, created, updated };
}
