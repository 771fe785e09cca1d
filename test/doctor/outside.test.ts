/**
 * `doohctl doctor --suggest-dialect` where no dialect key reaches (docs/doctor.md): a list
 * envelope of another name, no `total_size`, a DSP that ignores `page`. The suggestion says each
 * plainly and exits 1, instead of calling the keys "holds" and stopping there. And the block it
 * prints stays valid YAML, and a valid dialect, whichever commented key is uncommented.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { run } from "../../src/cli/program.js";
import { parseDialect } from "../../src/model/dialect.js";
import { seedAccount } from "../helpers/builders.js";
import { accountConfig, type CliAccount, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { type InterceptingProxy, interceptingProxy } from "../helpers/proxy.js";
import { type Quirk, quirky } from "../helpers/quirks.js";
import { USER } from "../helpers/users.js";

let account: CliAccount | undefined;
let front: InterceptingProxy | undefined;
afterEach(async () => {
  await front?.close();
  await account?.close();
  account = undefined;
  front = undefined;
});

/** doctor against a front of the emulator with `quirks` (test/helpers/quirks.ts), the config aimed at it. */
async function doctor(quirks: Quirk[], args: string[]) {
  account = await startCliAccount({ seed: seedAccount() });
  front = await interceptingProxy(account.emulator.origin, { onRequest: quirky(quirks) });
  writeFileSync(join(account.dir, "doohctl.yaml"), accountConfig(front.origin, []));
  const io = bufferIO({
    env: {
      DOOHCTL_API_ORIGIN: front.origin,
      DOOHCTL_EMAIL: USER.email,
      DOOHCTL_PASSWORD: USER.password,
      DOOHCTL_SESSION_CACHE: "off",
    },
    cwd: account.dir,
  });
  const code = await run(["doctor", ...args], io);
  return { code, out: io.out(), err: io.err() };
}

describe("doohctl doctor --suggest-dialect and what no key can express", () => {
  it.each<[Quirk, RegExp]>([
    [
      "io-list-items",
      /^GET \/insertion_orders answers its list under items, not insertion_orders: no dialect key renames a list envelope/,
    ],
    ["no-total-size", /^GET \/insertion_orders answers no integer total_size: no dialect key renames it/],
    [
      "page-ignored",
      /^GET \/campaigns\?page=1&page_size=1 answered page 0's campaign again: the DSP ignores page/,
    ],
  ])("%s: said plainly, apart from the keys, and exit 1", async (quirk, said) => {
    const { code, out } = await doctor([quirk], ["--suggest-dialect", "--format", "json"]);
    expect(code).toBe(1);
    const report = JSON.parse(out) as { outside: string[]; keys: { key: string; detail: string }[] };
    expect(
      report.outside.some((o) => said.test(o)),
      report.outside.join("\n"),
    ).toBe(true);
    // What it could establish it still did, from the list under whatever name it came.
    const contract = report.keys.find((k) => k.key === "contract_number")!;
    expect(contract.detail).not.toMatch(/no insertion order (list )?to look at/);
    for (const key of report.keys) expect(key.detail).not.toBe("no campaign to look at");
  });

  it("prints what lies outside as comments above the block, which stays valid YAML", async () => {
    const { code, out } = await doctor(["io-list-items"], ["--suggest-dialect"]);
    expect(code).toBe(1);
    expect(out).toContain(
      "# Outside what a dialect can express: this DSP differs where no key adapts it, so doohctl\n",
    );
    expect(out).toMatch(/\n# {3}- GET \/insertion_orders answers its list under items, not insertion_orders/);
    expect(parseDialect((parseYaml(out) as { dialect: unknown }).dialect)).toHaveProperty("dialect");
  });
});

describe("the suggested block", () => {
  it("against a DSP where every default holds: `dialect:` (never `{}`), groups nested, exit 0", async () => {
    const { code, out } = await doctor([], ["--suggest-dialect"]);
    expect(code).toBe(0);
    expect(out).not.toContain("{}");
    expect(out).toMatch(/\ndialect:\n {2}# insertion_orders_path: /);
    expect(out).toMatch(/\n {2}progress:\n {4}# parameter: "include_progress=true" {2}# holds/);
    expect(out).toMatch(/\n {2}targetings:\n {4}# read_path: /);
    expect(out).not.toMatch(/# progress\.parameter/);
  });

  it("stays valid YAML and a valid dialect with any one commented key uncommented, and with all", async () => {
    const { out } = await doctor([], ["--suggest-dialect"]);
    const commented = /^(\s+)# ([A-Za-z_]+): (.*?) {2}# /;
    const lines = out.split("\n");
    const keys = lines.flatMap((line, i) => (commented.test(line) ? [i] : []));
    expect(keys.length).toBeGreaterThanOrEqual(8);
    const uncomment = (line: string) => line.replace(commented, "$1$2: $3  # ");
    for (const i of keys) {
      const text = lines.map((line, j) => (j === i ? uncomment(line) : line)).join("\n");
      const parsed = parseYaml(text) as { dialect: unknown };
      expect(parseDialect(parsed.dialect), lines[i]).toHaveProperty("dialect");
    }
    const all = parseYaml(lines.map(uncomment).join("\n")) as { dialect: Record<string, unknown> };
    expect(parseDialect(all.dialect)).toHaveProperty("dialect");
    expect(all.dialect.progress).toMatchObject({ parameter: "include_progress=true", member: "progress" });
  });
});

describe("doohctl doctor and a DSP that ignores page", () => {
  it("says page-bound differs because page is ignored, not only unbounded", async () => {
    const { code, out } = await doctor(["page-ignored"], ["--format", "json"]);
    expect(code).toBe(1);
    const check = (
      JSON.parse(out) as { checks: { id: string; status: string; detail: string }[] }
    ).checks.find((c) => c.id === "page-bound");
    expect(check).toMatchObject({
      status: "differs",
      detail:
        "page=101 answered page 0's first campaign: the DSP ignores page, so doohctl cannot read a list past its first page",
    });
  });
});
