/**
 * The words of pacing across runs (src/api/pacing-log.ts, docs/plan.md): the write slots a
 * plan counts against its estimate are those of this machine's recent runs for the same
 * origin, environment and user, and right after your own apply those are yours. The plan says
 * so, rather than blaming "other runs" for the user's own apply a moment ago.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { seedCampaign } from "../helpers/builders.js";
import { type CliAccount, MALLS_RAISED, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";

let account: CliAccount | undefined;
afterEach(async () => {
  await account?.close();
  account = undefined;
});

describe("a plan right after your own apply", () => {
  it("counts the apply's write slot as taken by this machine's recent runs, yours included", async () => {
    account = await startCliAccount({
      campaigns: [seedCampaign("5001", "1001", "Malls")],
      configOrders: MALLS_RAISED,
    });
    const { dir, env } = account;
    const apply = bufferIO({ env, cwd: dir });
    expect(await run(["apply", "--auto-approve"], apply), apply.err()).toBe(0);

    // The next change, planned a moment later: the apply's one PATCH still holds its slot.
    const path = join(dir, "doohctl.yaml");
    writeFileSync(path, readFileSync(path, "utf8").replace("150000", "160000"));
    const plan = bufferIO({ env, cwd: dir });
    expect(await run(["plan"], plan), plan.err()).toBe(0);
    expect(plan.out()).toContain(
      "1 write request, about 0s at 1000/60s (1 write slot still taken by recent runs on this machine, yours included)",
    );
    expect(plan.out()).not.toContain("other runs");
  });
});
