import { readFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { loadSeedFile, SEED_SCHEMA } from "../../src/emulator/index.js";
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
