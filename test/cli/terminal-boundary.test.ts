/**
 * The one writer at the boundary (ARCHITECTURE.md#output-at-the-boundary): whatever text the DSP
 * puts in an error answer reaches stdout and stderr shown, never acting, through every error
 * path a command has (a read refused or failing, a write refused or failing, the login refused,
 * plan, apply, status, export, pull, doctor), in text and in JSON; JSON stays the exact
 * document, and on a terminal only doohctl's own colour and redraws act.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { seedCampaign } from "../helpers/builders.js";
import { accountConfig, type CliAccount, MALLS_RAISED, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { type Answer, answeringProxy, type FakeDsp, send } from "../helpers/proxy.js";

/** What a DSP can put in its text: each a known way to act on a terminal or forge a line. */
const HOSTILE = [
  "clear\u001b[2J",
  "clipboard\u001b]52;c;ZXZpbA==\u0007",
  "link\u001b]8;;https://evil.example\u0007here\u001b]8;;\u0007",
  "bell\u0007",
  "cr\rFORGED by CR",
  "ls\u2028FORGED by LS",
  "bidi\u202egnp.exe",
  "zwsp\u200bzwj\u200d",
  "c1\u009b2J",
  "lf\nFORGED by LF",
].join(" ");

/** A raw control, format or separator character (a line feed is doohctl's own line structure). */
const RAW = /(?!\n)[\p{Cc}\p{Cf}\u2028\u2029]/u;

function expectShown(text: string, what: string): void {
  expect(RAW.exec(text)?.[0], `${what} holds a raw control character`).toBeUndefined();
  expect(text, `${what} has a forged line`).not.toMatch(/^FORGED/m);
  // The DSP's text did reach the output, as escapes: a test that cannot fail proves nothing.
  expect(text, `${what} does not show the DSP's text`).toContain("clipboard\\u001b]52;c;ZXZpbA==\\u0007");
}

/** Every string in a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}

/** The DSP answers `status` with the hostile text to `method` on a path matching `path`, every time. */
function refusing(method: string, path: RegExp, status: number): Answer {
  return async (seen, response) => {
    if (seen.method !== method || !path.test(seen.path)) return false;
    const body = { message: HOSTILE, data: [{ field: `budget ${HOSTILE}`, messages: [HOSTILE] }] };
    send(response, { status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return true;
  };
}

let account: CliAccount;
let proxy: FakeDsp;
let answer: Answer = async () => false;

beforeAll(async () => {
  account = await startCliAccount({
    campaigns: [seedCampaign("5001", "1001", "Malls")],
    configOrders: MALLS_RAISED,
    prefix: "doohctl-boundary-",
  });
  proxy = await answeringProxy(account.emulator.origin, (seen, response, upstream) =>
    answer(seen, response, upstream),
  );
  writeFileSync(join(account.dir, "doohctl.yaml"), accountConfig(proxy.origin, MALLS_RAISED));
});
afterAll(async () => {
  await proxy.close();
  await account.close();
});

async function cli(args: string[], options: { tty?: boolean } = {}) {
  const io = bufferIO({
    cwd: account.dir,
    env: { ...account.env, DOOHCTL_API_ORIGIN: proxy.origin, DOOHCTL_SESSION_CACHE: "off" },
    tty: options.tty ?? false,
  });
  // On a terminal with colour (no NO_COLOR): doohctl's own styling acts.
  const code = await run(args, options.tty ? { ...io, env: { ...io.env, NO_COLOR: undefined } } : io);
  return { code, out: io.out(), err: io.err() };
}

describe("DSP error text through every error path", () => {
  it.each([
    ["plan, a read refused (400)", ["plan"], refusing("GET", /\/campaigns$/, 400)],
    ["plan, a read of what is not there (404)", ["plan"], refusing("GET", /\/insertion_orders$/, 404)],
    [
      "plan, a read failing (500) until the client gives up",
      ["plan"],
      refusing("GET", /\/advertisers$/, 500),
    ],
    ["plan, the login failing (500)", ["plan"], refusing("POST", /^\/api\/session$/, 500)],
    ["status, a read failing (500)", ["status"], refusing("GET", /\/campaigns$/, 500)],
    [
      "export, a read refused (404)",
      ["export", "--insertion-order", "1001"],
      refusing("GET", /\/insertion_orders/, 404),
    ],
    ["pull, a read refused (400)", ["pull", "--check"], refusing("GET", /\/campaigns$/, 400)],
    ["doctor, a read refused (404)", ["doctor"], refusing("GET", /\/insertion_orders/, 404)],
  ])("%s: shown, never acting, in text and in JSON", async (_, args, refusal) => {
    answer = refusal;
    const text = await cli(args);
    expect(text.code, text.err).toBe(1);
    expectShown(text.out + text.err, `${args[0]} text`);
    const json = await cli([...args, "--format", "json"]);
    expect(json.code, json.err).toBe(1);
    expect(RAW.exec(json.out + json.err)?.[0], `${args[0]} JSON`).toBeUndefined();
    const shown = strings(JSON.parse(json.out)).filter((s) => s.includes("clipboard"));
    expect(shown.length, "the DSP's text in the JSON document").toBeGreaterThan(0);
    for (const s of shown) expectShown(s, `${args[0]} JSON, a message`);
  });

  it.each([
    ["refused (422)", 422],
    ["failing (503) until the client gives up", 503],
  ])("apply, a write %s: the last line names the request, the text shown", async (_, status) => {
    answer = refusing("PATCH", /\/campaigns$/, status);
    const text = await cli(["apply", "--auto-approve"]);
    expect(text.code, text.err).toBe(1);
    expect(text.err).toMatch(/^doohctl apply: request 1 failed: .*clear\\u001b\[2J/m);
    expectShown(text.out + text.err, "apply text");
    const json = await cli(["apply", "--auto-approve", "--format", "json"]);
    expect(json.code, json.err).toBe(1);
    expect(RAW.exec(json.out + json.err)?.[0], "apply JSON").toBeUndefined();
    // JSON's own escapes: the document holds the DSP's text exactly.
    expect(strings(JSON.parse(json.out))).toContain(HOSTILE);
    expect(proxy.writes().filter((w) => w.method !== "PATCH")).toEqual([]);
  });

  it("on a terminal, only doohctl's own colour and redraws act", async () => {
    answer = refusing("PATCH", /\/campaigns$/, 422);
    const { code, out, err } = await cli(["apply", "--auto-approve"], { tty: true });
    expect(code, err).toBe(1);
    const both = out + err;
    const sequences = both.split("\u001b").slice(1);
    expect(
      sequences.some((s) => /^\[3[0-9]m/.test(s)),
      "doohctl's colour",
    ).toBe(true);
    // Every escape sequence is doohctl's colour or its redraw's erase; every other character only shows.
    expect(sequences.filter((s) => !/^\[[0-9;]*[mK]/.test(s))).toEqual([]);
    expect(RAW.exec(both.replaceAll("\r", "").replaceAll("\u001b", ""))?.[0]).toBeUndefined();
    expect(both).not.toMatch(/\rFORGED/);
    expect(both).toContain("clear\\u001b[2J");
  });

  it("a command line and an environment are shown too, never acting", async () => {
    answer = async () => false;
    const usage = await cli(["plan", "--format", "x\u001b]52;c;ZXZpbA==\u0007"]);
    expect(usage.code).toBe(1);
    expect(RAW.exec(usage.out + usage.err)?.[0]).toBeUndefined();
    expect(usage.err).toContain("\\u001b]52;c;ZXZpbA==\\u0007");
    const io = bufferIO({
      cwd: account.dir,
      env: { ...account.env, DOOHCTL_API_ORIGIN: "http://127.0.0.1:1\u001b]52;c;ZXZpbA==\u0007" },
    });
    expect(await run(["plan"], io)).toBe(1);
    expect(RAW.exec(io.out() + io.err())?.[0]).toBeUndefined();
    expect(io.err()).toContain("\\u001b]52;c;ZXZpbA==\\u0007");
  });
});
