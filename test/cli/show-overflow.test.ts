/**
 * `doohctl show ... --format markdown --overflow FILE` (docs/plan.md, "Several accounts in one
 * comment"): FILE is never one of the saved plans being shown (the reviewed plan that apply
 * --plan is given would be replaced by markdown), and a directory or a missing directory is
 * refused before anything is written, with what to do; --force replaces a link at FILE, never
 * what it points to.
 */
import {
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { seedCampaign } from "../helpers/builders.js";
import { type CliAccount, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { DEMO_USER } from "../helpers/users.js";

let account: CliAccount;
let dir: string;
const saved: Record<string, string> = {};

beforeAll(async () => {
  account = await startCliAccount({
    users: [{ ...DEMO_USER, account_id: "1" }],
    campaigns: [seedCampaign("5001", "1001", "Malls")],
    configOrders: [
      '  - id: "1001"',
      "    campaigns:",
      "      - name: Malls",
      "        budget_impressions: 150000",
    ],
    prefix: "doohctl-show-overflow-",
  });
  const io = bufferIO({ env: account.env, cwd: account.dir });
  expect(await run(["plan", "-o", "plan.json", "--no-session-cache"], io), io.err()).toBe(0);
  const plan = JSON.parse(readFileSync(join(account.dir, "plan.json"), "utf8")) as Record<string, unknown>;
  dir = mkdtempSync(join(tmpdir(), "doohctl-show-overflow-plans-"));
  for (const name of ["north", "south"]) {
    saved[name] = `${JSON.stringify({ ...plan, account: name }, null, 2)}\n`;
    writeFileSync(join(dir, `plan-${name}.json`), saved[name]);
  }
});
afterAll(async () => {
  await account.close();
});

async function show(...args: string[]) {
  const io = bufferIO({ env: {}, cwd: dir });
  const code = await run(["show", ...args, "--format", "markdown"], io);
  return { code, out: io.out(), err: io.err() };
}

describe("show --overflow FILE", () => {
  it.each([
    ["several plans, FILE one of them", ["plan-north.json", "plan-south.json"], "plan-south.json"],
    ["one plan, FILE itself", ["plan-north.json"], "plan-north.json"],
    [
      "FILE the same plan by another path",
      ["plan-north.json", "plan-south.json"],
      "./sub/../plan-south.json",
    ],
  ])("%s: refused, the saved plan left as it was", async (_, plans, overflow) => {
    mkdirSync(join(dir, "sub"), { recursive: true });
    const shown = await show(...plans, "--overflow", overflow);
    expect(shown.code).toBe(1);
    expect(shown.err).toContain(`--overflow ${overflow}`);
    expect(shown.err).toMatch(/is the saved plan .* choose another file/);
    expect(shown.out).toBe("");
    for (const name of ["north", "south"]) {
      expect(readFileSync(join(dir, `plan-${name}.json`), "utf8")).toBe(saved[name]);
    }
  });

  it("refuses a link or a hard link to a saved plan, which would write through to it", async () => {
    symlinkSync(join(dir, "plan-south.json"), join(dir, "soft.md"));
    linkSync(join(dir, "plan-south.json"), join(dir, "hard.md"));
    for (const overflow of ["soft.md", "hard.md"]) {
      const shown = await show("plan-north.json", "plan-south.json", "--overflow", overflow);
      expect(shown.code).toBe(1);
      expect(shown.err).toMatch(/is the saved plan plan-south.json/);
    }
    expect(readFileSync(join(dir, "plan-south.json"), "utf8")).toBe(saved.south);
  });

  it("refuses a directory, and a file in a directory that does not exist, saying what to do", async () => {
    mkdirSync(join(dir, "comments"), { recursive: true });
    const directory = await show("plan-north.json", "plan-south.json", "--overflow", "comments");
    expect(directory.code).toBe(1);
    expect(directory.err).toContain(
      "--overflow comments: is a directory: name a file, like comments/comment.md",
    );
    const missing = await show("plan-north.json", "--overflow", "nowhere/comment.md");
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("--overflow nowhere/comment.md: the directory nowhere does not exist");
  });

  it("refuses an existing file without --force (one plan or several), leaving it as it was; --force overwrites it", async () => {
    const config = "version: 1\ninsertion_orders: []\n";
    writeFileSync(join(dir, "doohctl.yaml"), config);
    for (const plans of [["plan-north.json"], ["plan-north.json", "plan-south.json"]]) {
      const shown = await show(...plans, "--overflow", "doohctl.yaml");
      expect(shown.code).toBe(1);
      expect(shown.err).toContain(
        "--overflow doohctl.yaml: already exists: choose another file, or add --force to overwrite it",
      );
      expect(shown.out).toBe("");
      expect(readFileSync(join(dir, "doohctl.yaml"), "utf8")).toBe(config);
    }
    const forced = await show("plan-north.json", "plan-south.json", "--overflow", "doohctl.yaml", "--force");
    expect(forced.code, forced.err).toBe(0);
    expect(readFileSync(join(dir, "doohctl.yaml"), "utf8")).toContain("## Account `south`");
  });

  it("--force replaces a link at FILE by the comment, never the file it points to (one plan or several)", async () => {
    const elsewhere = join(mkdtempSync(join(tmpdir(), "doohctl-show-target-")), "notes.md");
    for (const plans of [["plan-north.json"], ["plan-north.json", "plan-south.json"]]) {
      writeFileSync(elsewhere, "not yours\n");
      rmSync(join(dir, "linked.md"), { force: true });
      symlinkSync(elsewhere, join(dir, "linked.md"));
      const shown = await show(...plans, "--overflow", "linked.md", "--force");
      expect(shown.code, shown.err).toBe(0);
      expect(readFileSync(elsewhere, "utf8")).toBe("not yours\n");
      expect(lstatSync(join(dir, "linked.md")).isFile()).toBe(true);
      expect(readFileSync(join(dir, "linked.md"), "utf8")).toContain("## ");
    }
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("writes the complete comment to a new file, as before", async () => {
    const shown = await show("plan-north.json", "plan-south.json", "--overflow", "comment-full.md");
    expect(shown.code, shown.err).toBe(0);
    const full = readFileSync(join(dir, "comment-full.md"), "utf8");
    expect(full).toContain("## Account `north`");
    expect(full).toContain("## Account `south`");
  });
});
