/**
 * pull's text output in two kinds of line (docs/pull.md, Output), which the drift examples
 * split on: every line of a diff starts with `-`, `+`, a space or `@`; every other line (a
 * live pause, a note, an appended campaign, what was not pulled, the summary) starts with a
 * word. So the drift pull request's ```` ```diff ```` fence holds the diff alone
 * (examples/github/doohctl-drift.yml, examples/gitlab/doohctl-gitlab.mjs).
 */
import { describe, expect, it } from "vitest";
import { unifiedDiff } from "../../src/pull/line-diff.js";
import { type PullOutcome, renderPullText } from "../../src/render/pull.js";

const A =
  'version: 1\ninsertion_orders:\n  - id: "1001"\n    campaigns:\n      - name: Malls\n\n        budget_impressions: 100000\n';
const B = 'version: 1\ninsertion_orders:\n  - id: "1002"\n    campaigns:\n      - name: Two\n';

function fileOf(file: string, before: string, from: string, to: string) {
  const start = before.indexOf(from);
  const after = before.replace(from, to);
  return {
    file,
    before,
    after,
    diff: unifiedDiff(file, before, [{ start, end: start + from.length, text: to }]),
  };
}

const OUTCOME: PullOutcome = {
  files: [
    fileOf("a.yaml", A, "100000", "130000"),
    fileOf("b.yaml", B, "      - name: Two\n", "      - name: Two\n        active: false\n"),
  ],
  pulled: [
    {
      address: "campaign.1001/Malls",
      field: "budget_impressions",
      file: "a.yaml",
      line: 7,
      config: 100000,
      live: 130000,
    },
    {
      address: "campaign.1002/Two",
      field: "active",
      file: "b.yaml",
      line: 5,
      config: true,
      live: false,
      note: "written as a boolean",
    },
  ],
  notPulled: [
    { address: "campaign.1001/Malls", field: "cpm", file: "a.yaml", line: 7, reason: "held by an anchor" },
  ],
  livePauses: [{ address: "campaign.1002/Two", campaign_id: "2", file: "b.yaml", line: 5 }],
  appended: [{ address: "campaign.1001/New", campaign_id: "9", file: "a.yaml" }],
  written: ["a.yaml", "b.yaml"],
  check: false,
};

describe("pull's text output", () => {
  const text = renderPullText(OUTCOME);
  const lines = text.trimEnd().split("\n");
  const diffLines = OUTCOME.files.flatMap((f) => f.diff.trimEnd().split("\n"));

  it("holds each diff line as the diff has it, and those lines alone start with -, +, a space or @", () => {
    expect(lines.filter((l) => /^[-+ @]/.test(l))).toEqual(diffLines);
    // An empty line of a file is a context line of one space, never an empty line.
    expect(diffLines).toContain(" ");
  });

  it("starts every other line with a word: the live pauses first, then notes, appended, not pulled, the summary", () => {
    const others = lines.filter((l) => l !== "" && !/^[-+ @]/.test(l));
    for (const line of others) expect(line).toMatch(/^[a-z]/);
    expect(others.map((l) => l.split(":")[0])).toEqual([
      "paused live while in flight",
      "note",
      "appended",
      "not pulled",
      "pull",
    ]);
    expect(others.at(-1)).toBe("pull: 2 values written to 2 files; 1 item not pulled (above)");
  });
});
