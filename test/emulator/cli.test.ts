import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { loadSeedFile, SEED_SCHEMA } from "../../src/emulator/index.js";
import { OffsetClock } from "../../src/model/clock.js";
import { bufferIO, interruptibleIO } from "../helpers/io.js";
import { login, request } from "./helpers.js";

const EXAMPLE = "examples/emulator-seed.json";

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
}

describe("doohctl emulator", () => {
  it("serves the example seed, prints its URL, limits and demo user, and stops on interrupt", async () => {
    const { io, interrupt } = interruptibleIO();
    const exit = run(
      ["emulator", "--port", "0", "--seed", EXAMPLE, "--rate-limits", "write=20/60s", "--control"],
      io,
    );
    await until(() => io.err().includes("Ctrl-C"));
    const origin = /listening on (http:\/\/\S+)/.exec(io.err())?.[1] ?? "";
    expect(io.err()).toContain("environment: production");
    expect(io.err()).toContain("rate limits: get=100/60s,write=20/60s,session=10/60s");
    expect(io.err()).toContain("user: demo@doohctl.test (account 1, password demo-password)");
    const cookie = await login(origin, {
      email: "demo@doohctl.test",
      password: "demo-password",
      account_id: "1",
    });
    const campaigns = await request(origin, "GET", "/api/dsp/v1/campaigns?page_size=100", { cookie });
    expect(campaigns.body.total_size).toBe(12);
    // The control path moves the CLI emulator's clock too: 9 hours on, the 8-hour session is gone (G9).
    const moved = await request(origin, "POST", "/__emulator/clock", { body: { advance_ms: 9 * 3_600_000 } });
    expect(moved.status).toBe(200);
    const expired = await request(origin, "GET", "/api/dsp/v1/campaigns", { cookie });
    expect(expired.status).toBe(403);
    expect(expired.body).toEqual({ message: "Not Authenticated" });
    interrupt("SIGINT");
    expect(await exit).toBe(0);
    expect(io.err()).toContain("doohctl emulator stopped");
    expect(io.out()).toBe("");
  });

  it("exits 1 with the path of each problem for a bad seed or flag", async () => {
    const io = bufferIO();
    expect(await run(["emulator", "--port", "0", "--rate-limits", "reads=5/1s"], io)).toBe(1);
    expect(io.err()).toContain('unknown rate class "reads"');
    const missing = bufferIO();
    expect(await run(["emulator", "--port", "0", "--seed", "no-such-seed.json"], missing)).toBe(1);
    expect(missing.err()).toMatch(
      /no-such-seed\.json is not a valid emulator seed:\n {2}\(top level\): cannot be read \(ENOENT\)/,
    );
    const faults = bufferIO();
    expect(await run(["emulator", "--port", "0", "--faults", "500"], faults)).toBe(1);
    expect(faults.err()).toContain('"500": the probability must be a number between 0 and 1');
  });

  it("exits 1 on a busy port with the flag that moves it, not Node's EADDRINUSE and stack", async () => {
    // Any listener holds the port: what matters is that `listen` fails, not who holds it.
    const holder = createServer();
    await new Promise<void>((done) => holder.listen(0, "127.0.0.1", done));
    const { port } = holder.address() as AddressInfo;
    try {
      const io = bufferIO();
      expect(await run(["emulator", "--port", String(port)], io)).toBe(1);
      expect(io.err()).toBe(
        `doohctl emulator: port ${port} on 127.0.0.1 is already in use (another emulator?): pass --port N for another port, or --port 0 for any free one\n`,
      );
      const json = bufferIO();
      expect(await run(["emulator", "--port", String(port), "--format", "json"], json)).toBe(1);
      expect(JSON.parse(json.out()).errors[0].code).toBe("PORT_IN_USE");
    } finally {
      await new Promise((done) => holder.close(done));
    }
  });
});

describe("doohctl emulator --quickstart", () => {
  it("writes the quick start placed on the demo world's days, and it plans the demo's story", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-quickstart-"));
    // 2026-12-20 to 2028-03-01 is 365 + 11 + 31 + 29 + 1 = 437 days (2028 is a leap year).
    const clock = new OffsetClock({ start: Date.parse("2028-03-01T10:00:00Z") });
    const { io, interrupt } = interruptibleIO({ cwd: dir, clock });
    const exit = run(["emulator", "--port", "0", "--seed", "demo", "--quickstart", "try"], io);
    try {
      await until(() => io.err().includes("Ctrl-C"));
      expect(io.err()).toContain(
        "dates: the seed is written for 2026-12-20, placed at today (2028-03-01): every date moved +437 days",
      );
      const origin = /listening on (http:\/\/\S+)/.exec(io.err())?.[1] ?? "";
      const text = readFileSync(join(dir, "try", "doohctl.yaml"), "utf8");
      // Holiday airports' Dec 1 2026 + 437 days; the comment's date moves with the value.
      expect(text).toContain("start_time: 2028-02-11T00:00:00Z");
      expect(text).toContain("end_time: 2028-08-11T00:00:00Z # was 2028-07-11");
      const env = {
        DOOHCTL_API_ORIGIN: origin,
        DOOHCTL_EMAIL: "demo@doohctl.test",
        DOOHCTL_PASSWORD: "demo-password",
        DOOHCTL_SESSION_CACHE: "off",
        HOME: dir,
      };
      const plan = bufferIO({ cwd: dir, clock, env });
      expect(await run(["plan", "try", "--format", "json"], plan), plan.err()).toBe(0);
      const changed = (
        JSON.parse(plan.out()) as {
          changes: { address: string; kind: string; fields?: { field: string }[] }[];
        }
      ).changes
        .filter((c) => c.kind === "update_campaign" || c.kind === "update_insertion_order")
        .flatMap((c) => (c.fields ?? []).map((f) => `${c.address} ${f.field}`));
      // The story's edits and nothing else: no flight moved back to the written days.
      expect(changed.sort()).toEqual([
        "campaign.1001/Holiday airports cpm",
        "campaign.1002/Spring downtown budget_impressions",
        "insertion_order.1002 end_time",
      ]);
      const again = bufferIO({ cwd: dir, clock });
      expect(await run(["emulator", "--port", "0", "--seed", "demo", "--quickstart", "try"], again)).toBe(1);
      expect(again.err()).toContain("doohctl.yaml was not written: a file (or link) is already there");
      const unplaced = bufferIO({ cwd: dir, clock });
      expect(await run(["emulator", "--port", "0", "--quickstart", "other"], unplaced)).toBe(1);
      expect(unplaced.err()).toContain("needs a seed written for a day (`today`): --seed demo");
    } finally {
      interrupt("SIGINT");
      expect(await exit).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the seed format", () => {
  it("keeps schemas/emulator-seed.schema.json equal to the schema the emulator validates with", () => {
    expect(JSON.parse(readFileSync("schemas/emulator-seed.schema.json", "utf8"))).toEqual(SEED_SCHEMA);
  });

  it("accepts the example seed: two advertisers, three insertion orders, a dozen campaigns", async () => {
    const seed = await loadSeedFile(EXAMPLE);
    expect(seed.advertisers).toHaveLength(2);
    expect(seed.insertion_orders?.map((io) => io.id)).toEqual(["1001", "1002", "1003"]);
    expect(seed.campaigns).toHaveLength(12);
    expect(new Set(seed.creatives?.map((c) => c.type))).toEqual(
      new Set(["VIDEO", "IMAGE", "DYNAMIC", "AUDIO"]),
    );
    expect(new Set(seed.creatives?.map((c) => c.processing_status))).toEqual(
      new Set(["PROCESSED", "PROCESSING", "FAILED"]),
    );
    expect(seed.creatives?.some((c) => c.audits?.some((a) => a.status === "DENIED"))).toBe(true);
  });
});
