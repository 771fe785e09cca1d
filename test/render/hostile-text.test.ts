/**
 * DSP text an attacker can choose (a campaign, insertion order or advertiser name, a contract
 * number) through every output, as the emulator serves it: terminal text shows it as escapes
 * and forges no line, the YAML pull and export write reads back to the exact text and holds
 * no raw control byte, the Markdown (plan, status with its chart, show) has no live link,
 * image, HTML or mention, and JSON round-trips exactly (docs/safety.md, docs/plan.md).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { JSDOM } from "jsdom";
import { marked } from "marked";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { run } from "../../src/cli/program.js";
import { Time } from "../../src/model/time.js";
import { ADVERTISER, seedCampaign, seedIo } from "../helpers/builders.js";
import { type CliAccount, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { usd } from "../helpers/money.js";
import { mermaidBlocks, parseMermaidBlocks } from "../status/mermaid.js";

/** Names a campaign may have in the DSP: each a known way to act on a reader. */
const HOSTILE = [
  "\u001b]0;title\u0007",
  "bell\u0007ring",
  "cr\rFORGED by CR",
  "lf\nFORGED by LF",
  "nul\u0000byte",
  "ls\u2028FORGED by LS",
  "ps\u2029FORGED by PS",
  "nel\u0085next",
  "bidi\u202egnp.exe",
  "tick ` and ``` fence",
  "pipe | cell",
  "![img](https://x/y.png)",
  "[link](javascript:alert(1))",
  "see https://evil.example/login and www.evil.example",
  "@someone",
  "fixes #123, GH-45 and acme/web#7",
  "<img src=x onerror=alert(1)>",
  "</details>",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, as a name, on purpose
  "${{ github.token }}",
  `long ${"x".repeat(180)} @someone`,
];
const CONTRACT_PLAIN = "PO\u0000NUL";
const CONTRACT_SINGLE = "PO\u001b[2J";
const IO_NAME = "\u2028\u001b]0;io\u0007 Holiday\nFORGED io";
const ADVERTISER_NAME = "Acme <img src=x onerror=alert(1)> @someone";

/** A raw control, format or separator character (a line feed is the text's own). */
const RAW = /(?!\n)[\p{Cc}\p{Cf}\u2028\u2029]/u;

function expectTerminalSafe(text: string, what: string): void {
  expect(RAW.exec(text)?.[0], `${what} holds a raw control character`).toBeUndefined();
  expect(text, `${what} has a forged line`).not.toMatch(/^FORGED/m);
}

/** The tags the Markdown may produce: tables, emphasis, code, details; never a link, image or HTML from a name. */
const TAGS = new Set(
  "TABLE THEAD TBODY TR TH TD P STRONG EM CODE PRE DETAILS SUMMARY BLOCKQUOTE H2 H3 H4 HR BR UL LI".split(
    " ",
  ),
);

function expectMarkdownInert(markdown: string, what: string): void {
  expect(RAW.exec(markdown)?.[0], what).toBeUndefined();
  const html = marked.parse(markdown, { gfm: true, async: false });
  const body = new JSDOM(html).window.document.body;
  const tags = new Set([...body.querySelectorAll("*")].map((e) => e.tagName));
  expect(
    [...tags].filter((t) => !TAGS.has(t)),
    `${what}: elements a name made`,
  ).toEqual([]);
  // GitHub links `@name` and e-mail addresses in the text it renders, outside code.
  for (const code of body.querySelectorAll("pre, code")) code.remove();
  expect(body.textContent, `${what}: a mention`).not.toMatch(/@[A-Za-z0-9]/);
  expect(body.textContent, `${what}: an issue reference`).not.toMatch(/#\d|GH-\d/);
  for (const name of ["someone", "onerror"]) expect(body.textContent).toContain(name);
}

function seed() {
  const now = Date.now();
  const day = 86_400_000;
  return {
    advertisers: [{ ...ADVERTISER, name: ADVERTISER_NAME }],
    insertion_orders: [
      seedIo("1001", {
        name: IO_NAME,
        contract_number: CONTRACT_PLAIN,
        start_time: Time.fromMillis(now - 30 * day),
        end_time: Time.fromMillis(now + 60 * day),
      }),
      seedIo("1002", {
        contract_number: CONTRACT_SINGLE,
        start_time: Time.fromMillis(now - 30 * day),
        end_time: Time.fromMillis(now + 60 * day),
      }),
    ],
    campaigns: [
      seedCampaign("2000", "1001", "Plain", {
        start_time: Time.fromMillis(now - 10 * day),
        end_time: Time.fromMillis(now + 30 * day),
        budget_impressions: 10_000,
      }),
      ...HOSTILE.map((name, i) =>
        seedCampaign(String(2001 + i), "1001", name, {
          active: true,
          start_time: Time.fromMillis(now - 10 * day),
          end_time: Time.fromMillis(now + 30 * day),
          budget_impressions: 10_000,
          cpm: usd("12"),
        }),
      ),
    ],
  };
}

const CONFIG_ORDERS = [
  '  - id: "1001"',
  "    contract_number: PO-1",
  "    unmanaged_campaigns: deactivate",
  "    campaigns:",
  "      - name: Plain",
  '  - id: "1002"',
  "    contract_number: 'PO-2'",
];

let account: CliAccount;
const config = () => readFileSync(join(account.dir, "doohctl.yaml"), "utf8");

async function cli(args: string[]) {
  const io = bufferIO({
    cwd: account.dir,
    env: { ...account.env, DOOHCTL_API_ORIGIN: account.emulator.origin, DOOHCTL_SESSION_CACHE: "off" },
  });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** Every string in a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}

describe("hostile DSP text through every output", () => {
  let original: string;
  beforeAll(async () => {
    account = await startCliAccount({ campaigns: [], seed: seed(), configOrders: CONFIG_ORDERS });
    original = config();
  });
  afterAll(() => account.close());

  it("plan text, JSON and Markdown, and show of the saved plan", async () => {
    const text = await cli(["plan", "-o", "plan.json"]);
    expect(text.out, text.err).toContain("2001");
    expectTerminalSafe(text.out + text.err, "plan text");
    const saved = JSON.parse(readFileSync(join(account.dir, "plan.json"), "utf8"));
    for (const name of HOSTILE) expect(strings(saved)).toContain(name);
    const json = await cli(["plan", "--format", "json"]);
    for (const name of HOSTILE) expect(strings(JSON.parse(json.out))).toContain(name);
    const markdown = await cli(["plan", "--format", "markdown"]);
    expect(markdown.out).toContain("Findings");
    expectMarkdownInert(markdown.out, "plan markdown");
    const shown = await cli(["show", "plan.json"]);
    expect(shown.code, shown.err).toBe(0);
    expectTerminalSafe(shown.out + shown.err, "show text");
    const shownMarkdown = await cli(["show", "plan.json", "--format", "markdown"]);
    expect(shownMarkdown.code, shownMarkdown.err).toBe(0);
    expectMarkdownInert(shownMarkdown.out, "show markdown");
  });

  it("status text, JSON and Markdown with its gantt chart", async () => {
    const text = await cli(["status", "--all"]);
    expect(text.out, text.err).toContain("campaign 2001");
    expectTerminalSafe(text.out + text.err, "status text");
    const json = JSON.parse((await cli(["status", "--all", "--format", "json"])).out);
    expect(json.campaigns.map((c: { name: string }) => c.name).sort()).toEqual(["Plain", ...HOSTILE].sort());
    const markdown = (await cli(["status", "--all", "--format", "markdown"])).out;
    expectMarkdownInert(markdown, "status markdown");
    const [chart] = mermaidBlocks(markdown);
    expect(chart?.split("\n").filter((l) => / :(crit, |active, |done, )*c20\d\d,/.test(l))).toHaveLength(
      HOSTILE.length + 1,
    );
    expect(await parseMermaidBlocks(markdown)).toBe(1);
  });

  it("export writes YAML that reads back to the exact names and validates", async () => {
    const exported = await cli(["export", "--insertion-order", "1001", "--insertion-order", "1002"]);
    expect(exported.code, exported.err).toBe(0);
    expectTerminalSafe(exported.out, "export YAML");
    // The insertion order's comment names it: escapes, since a comment has none.
    expect(exported.out).toContain("# \\u2028\\u001b]0;io\\u0007 Holiday\\nFORGED io: Acme <img");
    const doc = parse(exported.out);
    expect(doc.insertion_orders.map((io: { contract_number: string }) => io.contract_number)).toEqual([
      CONTRACT_PLAIN,
      CONTRACT_SINGLE,
    ]);
    expect(doc.insertion_orders[0].campaigns.map((c: { name: string }) => c.name)).toEqual([
      "Plain",
      ...HOSTILE,
    ]);
    writeFileSync(join(account.dir, "exported.yaml"), exported.out);
    const validated = await cli(["validate", "exported.yaml"]);
    expect(validated.code, validated.out + validated.err).toBe(0);
  });

  it("pull --new writes every value quoted by YAML's rules, and its summary shows escapes", async () => {
    const pulled = await cli(["pull", "--new"]);
    expect(pulled.code, pulled.out + pulled.err).toBe(0);
    expectTerminalSafe(pulled.out + pulled.err, "pull text");
    const file = config();
    expect(file).not.toBe(original);
    expect(RAW.exec(file)?.[0], "a raw control character in the pulled file").toBeUndefined();
    const doc = parse(file);
    expect(doc.insertion_orders[0].contract_number).toBe(CONTRACT_PLAIN);
    expect(doc.insertion_orders[1].contract_number).toBe(CONTRACT_SINGLE);
    expect(doc.insertion_orders[0].campaigns.map((c: { name: string }) => c.name)).toEqual([
      "Plain",
      ...HOSTILE,
    ]);
    const again = await cli(["pull", "--check", "--format", "json"]);
    expect(again.code, again.out + again.err).toBe(0);
    expect(JSON.parse(again.out).files).toEqual([]);
    // Nothing was written to the DSP by any of these commands.
    expect(
      account.emulator.requestLog().filter((e) => e.method !== "GET" && e.path.startsWith("/api/dsp/")),
    ).toEqual([]);
  });
});
