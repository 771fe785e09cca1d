import { USER } from "../helpers/users.js";
/**
 * `plan -o` writes the saved plan streamed (`writePlanFile`, docs/plan.md#saved-plans): piece
 * by piece into a temporary file renamed over the target. The bytes are `serializePlan`'s, so
 * a plan's digests and `apply --plan`'s checks are unchanged.
 */

import { spawnSync } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { readPlanFile, writePlanFile } from "../../src/cli/plan-file.js";
import { run } from "../../src/cli/program.js";
import { planFileChunks, serializePlan } from "../../src/plan/saved/file.js";
import type { Plan } from "../../src/plan/types.js";

import {
  desiredCampaign,
  desiredIo,
  desiredState,
  liveCampaign,
  liveIo,
  liveState,
  publisher,
  seedCampaign,
  seedIo,
  venue,
} from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { usd } from "../helpers/money.js";
import { plan } from "../helpers/plans.js";
import { dspWrites } from "../helpers/world.js";
import { ensureBuilt, ROOT } from "../proof/binary.js";

/**
 * 300 campaigns of one insertion order, ids 9851 to 10150 (the snapshot's id keys cross from
 * four digits to five, where string and numeric order differ), each with a cpm change and a
 * targeting change: more changes, requests and fingerprints than one piece holds.
 */
function largePlan(): Plan {
  const ids = Array.from({ length: 300 }, (_, i) => String(9851 + i));
  const live = liveState({
    insertionOrders: [liveIo({ budget_impressions: 100_000_000, budget_money: usd("10000000") })],
    campaigns: ids.map((id) => liveCampaign({ id, name: `Screen ${id} «Zürich»`, active: false })),
    targetings: Object.fromEntries(ids.map((id) => [id, [venue("101")]])),
  });
  const desired = desiredState([
    desiredIo("1001", {
      campaigns: ids.map((id) =>
        desiredCampaign(`Screen ${id} «Zürich»`, {
          id,
          fields: { cpm: usd("13") },
          targetings: [venue("101"), publisher("7")],
        }),
      ),
    }),
  ]);
  return plan(desired, live);
}

const scratch = () => mkdtempSync(join(tmpdir(), "doohctl-plan-file-"));

describe("the streamed plan file", () => {
  it("joins to serializePlan's exact bytes, array fields cut into pieces", () => {
    const p = largePlan();
    expect(p.changes.length).toBeGreaterThan(100);
    expect(p.requests.length).toBeGreaterThan(2);
    const pieces = [...planFileChunks(p)];
    expect(pieces.length).toBeGreaterThan(p.changes.length / 16);
    expect(pieces.join("")).toBe(serializePlan(p));
  });

  it("writes the same bytes where a piece holds values written by hand (canonical.ts holes)", () => {
    const p = largePlan();
    class Pair {
      b = 2;
      a = 1;
    }
    // Not plain data: canonical.ts writes a class instance and a sparse array by hand.
    const sparse = [1, 2, 3];
    delete sparse[1];
    const odd = { pair: new Pair(), sparse };
    p.changes[20] = { ...p.changes[20]!, odd } as unknown as Plan["changes"][number];
    expect([...planFileChunks(p)].join("")).toBe(serializePlan(p));
    expect(serializePlan(p)).toContain('"pair": {\n');
  });

  it("saves those bytes, without a temporary file left beside them, and reads back", async () => {
    const dir = scratch();
    const p = largePlan();
    const path = join(dir, "plan.json");
    await writePlanFile(path, p);
    expect(readFileSync(path, "utf8")).toBe(serializePlan(p));
    expect(readdirSync(dir)).toEqual(["plan.json"]);
    expect(readPlanFile(path)).toEqual(JSON.parse(serializePlan(p)));
  });

  it("gives a new file 0666 less the umask, keeps an existing file's mode, replaces a link", async () => {
    const dir = scratch();
    const p = largePlan();
    const fresh = join(dir, "fresh.json");
    await writePlanFile(fresh, p);
    const umask = process.umask();
    expect(statSync(fresh).mode & 0o777).toBe(0o666 & ~umask);

    const kept = join(dir, "kept.json");
    writeFileSync(kept, "old");
    chmodSync(kept, 0o600);
    await writePlanFile(kept, p);
    expect(statSync(kept).mode & 0o777).toBe(0o600);
    expect(readFileSync(kept, "utf8")).toBe(serializePlan(p));

    // A link at FILE is replaced by the plan, never followed: what it points to keeps its bytes.
    const link = join(dir, "link.json");
    symlinkSync(kept, link);
    writeFileSync(kept, "old");
    await writePlanFile(link, p);
    expect(readFileSync(kept, "utf8")).toBe("old");
    expect(lstatSync(link).isFile()).toBe(true);
    expect(readFileSync(link, "utf8")).toBe(serializePlan(p));
    expect(readdirSync(dir).sort()).toEqual(["fresh.json", "kept.json", "link.json"]);
  });

  it("leaves the previous file whole and no temporary file when it cannot finish", async () => {
    const dir = scratch();
    const path = join(dir, "plan.json");
    writeFileSync(path, "previous plan");
    const broken = largePlan();
    // A value JSON cannot write (a BigInt) in the last field: the write fails midway.
    (broken.fingerprints[0] as unknown as { sha256: unknown }).sha256 = 1n;
    await expect(writePlanFile(path, broken)).rejects.toThrow(/BigInt/);
    expect(readFileSync(path, "utf8")).toBe("previous plan");
    expect(readdirSync(dir)).toEqual(["plan.json"]);
    await expect(writePlanFile(join(dir, "missing", "plan.json"), largePlan())).rejects.toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual(["plan.json"]);
  });
});

describe("a plan file write cut short by the process's exit", () => {
  it("leaves the previous file and no temporary file (Ctrl-C ends plan -o at once)", () => {
    ensureBuilt();
    const dir = scratch();
    const source = join(dir, "source.json");
    writeFileSync(source, serializePlan(largePlan()));
    writeFileSync(join(dir, "plan.json"), "previous plan");
    // The child saves a plan of some MiB (many writes) and exits as soon as its temporary
    // file exists, as main.ts's exitNow does on Ctrl-C.
    const script = `
      import { readdirSync } from "node:fs";
      import { readPlanFile, writePlanFile } from ${JSON.stringify(pathToFileURL(join(ROOT, "dist/src/cli/plan-file.js")).href)};
      const plan = readPlanFile(${JSON.stringify(source)});
      plan.changes = Array.from({ length: 40 }, () => plan.changes).flat();
      const watch = () => readdirSync(${JSON.stringify(dir)}).some((f) => f.endsWith(".tmp")) ? process.exit(130) : setImmediate(watch);
      watch();
      await writePlanFile(${JSON.stringify(join(dir, "plan.json"))}, plan);
      process.exit(0);
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(130);
    expect(readdirSync(dir).sort()).toEqual(["plan.json", "source.json"]);
    expect(readFileSync(join(dir, "plan.json"), "utf8")).toBe("previous plan");
  });
});

describe("the plan file's size cap", () => {
  it("is not saved larger than apply --plan reads: the previous file stays, and the error says what to do", async () => {
    const dir = scratch();
    const path = join(dir, "plan.json");
    writeFileSync(path, "previous plan");
    const p = largePlan();
    const size = Buffer.byteLength(serializePlan(p));
    const refused = writePlanFile(path, p, { shown: "plan.json", maxBytes: size - 1 });
    await expect(refused).rejects.toMatchObject({ code: "PLAN_FILE_TOO_LARGE" });
    await expect(refused).rejects.toThrow(/not saved to plan\.json \(nothing was sent\).*doohctl apply/);
    expect(readFileSync(path, "utf8")).toBe("previous plan");
    expect(readdirSync(dir)).toEqual(["plan.json"]);
    // At exactly the cap it is saved, and read back under the same cap.
    await writePlanFile(path, p, { maxBytes: size });
    expect(readPlanFile(path, "plan.json", size)).toEqual(readPlanFile(path));
    expect(() => readPlanFile(path, "plan.json", size - 1)).toThrow(
      /^plan\.json is \d+ bytes, over the \d+ bytes doohctl reads from a plan file: give the path/,
    );
  });
});

describe("doohctl plan -o, then apply --plan", () => {
  it("saves the canonical serialization, whose digests apply --plan accepts", async () => {
    const account = await startCliAccount({
      users: [USER],
      campaigns: Array.from({ length: 40 }, (_, i) => seedCampaign(String(5001 + i), "1001", `Malls ${i}`)),
      configOrders: [
        '  - id: "1001"',
        "    campaigns:",
        ...Array.from({ length: 40 }, (_, i) => [
          `      - name: Malls ${i}`,
          `        id: "${5001 + i}"`,
          "        budget_impressions: 150000",
        ]).flat(),
      ],
      seed: {
        insertion_orders: [seedIo("1001", { budget_impressions: 10_000_000, budget_money: usd("1000000") })],
      },
      prefix: "doohctl-plan-file-cli-",
    });
    try {
      const { dir, env, emulator } = account;
      const io = bufferIO({ env, cwd: dir });
      expect(await run(["plan", "-o", "plan.json", "--no-session-cache"], io), io.err()).toBe(0);
      const path = join(dir, "plan.json");
      const text = readFileSync(path, "utf8");
      const saved = readPlanFile(path);
      expect(saved.changes).toHaveLength(40);
      expect(text).toBe(serializePlan(saved));
      expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);

      const apply = bufferIO({ env, cwd: dir });
      const args = ["apply", "--plan", "plan.json", "--auto-approve", "--no-session-cache"];
      expect(await run(args, apply), apply.err()).toBe(0);
      expect(dspWrites(emulator)).toHaveLength(saved.requests.length);
      expect(emulator.state().campaigns.every((c) => c.budget_impressions === 150_000)).toBe(true);
    } finally {
      await account.close();
    }
  });
});
