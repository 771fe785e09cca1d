/**
 * A DSP that echoes secrets. Its error answers quote the login body (the
 * password) or the Cookie header (the session token) in `message` and in `data`; doohctl
 * scrubs both at the client's boundary, so neither reaches stdout, stderr, the --log journal
 * or a JSON result. Over real HTTP: a node:http proxy in front of the emulator.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedCampaign } from "../helpers/builders.js";
import { accountConfig, loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { echoForms, leaks } from "../helpers/echoes.js";
import { bufferIO } from "../helpers/io.js";
import { type Answer, answeringProxy, type FakeDsp, type Seen, send } from "../helpers/proxy.js";
import { user } from "../helpers/users.js";

const PASSWORD = 'Echoed-Pa55word "quoted" & spaced';
const SECRET_USER = user({ password: PASSWORD });

let emulator: RunningEmulator;
let dir: string;
const tokens = new Set<string>();

function tokenOf(seen: Seen): string | undefined {
  const cookie = seen.headers.cookie;
  const match = typeof cookie === "string" ? /tr-production=([^;]+)/.exec(cookie) : null;
  if (match?.[1]) tokens.add(match[1]);
  return match?.[1];
}

/** A 422 whose message and data quote `echo` raw, JSON-escaped and URL-encoded. */
function echo422(echo: string): { status: number; headers: Record<string, string>; body: string } {
  return {
    status: 422,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      message: `Invalid Request for ${echo}`,
      data: [
        { field: `x${echo}`, messages: [`got ${JSON.stringify(echo)}`, `got ${encodeURIComponent(echo)}`] },
      ],
    }),
  };
}

async function doohctl(origin: string, args: string[]) {
  writeFileSync(
    join(dir, "doohctl.yaml"),
    accountConfig(origin, [
      '  - id: "1001"',
      "    contract_number: PO-42",
      "    campaigns:",
      "      - name: Malls",
      "        budget_impressions: 150000",
    ]),
  );
  const io = bufferIO({ env: { ...loginEnv(SECRET_USER, dir), DOOHCTL_SESSION_CACHE: "off" }, cwd: dir });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

async function withProxy<T>(answer: Answer, body: (proxy: FakeDsp) => Promise<T>): Promise<T> {
  const proxy = await answeringProxy(emulator.origin, async (seen, response, upstream) => {
    tokenOf(seen);
    return answer(seen, response, upstream);
  });
  try {
    return await body(proxy);
  } finally {
    await proxy.close();
  }
}

/** `apply --auto-approve --log FILE` in text and in JSON: each run with the journal as it then stands. */
async function applyInEachFormat(origin: string, logName: string) {
  const log = join(dir, logName);
  const runs = [];
  for (const format of ["text", "json"]) {
    const run = await doohctl(origin, ["apply", "--auto-approve", "--format", format, "--log", log]);
    runs.push({ format, ...run, journal: readFileSync(log, "utf8") });
  }
  return runs;
}

function expectClean(text: string, what: string): void {
  expect(text, what).not.toContain(PASSWORD);
  expect(text, what).not.toContain(JSON.stringify(PASSWORD).slice(1, -1));
  expect(text, what).not.toContain(JSON.stringify(JSON.stringify(PASSWORD)).slice(3, -3));
  expect(text, what).not.toContain(encodeURIComponent(PASSWORD));
  for (const token of tokens) expect(text, what).not.toContain(token);
  for (const [name, form] of Object.entries(FORMS)) expect(text, `${what}: ${name}`).not.toContain(form);
  expect(leaks(text, PASSWORD), what).toEqual([]);
}

/** Every form a server may echo the password in (test/helpers/echoes.ts). */
const FORMS = echoForms(PASSWORD, SECRET_USER.email);
const EVERY_FORM = Object.entries(FORMS).map(([name, form]) => `${name}: ${form}`);

beforeAll(async () => {
  emulator = (
    await startCliAccount({ users: [SECRET_USER], campaigns: [seedCampaign("5001", "1001", "Malls")] })
  ).emulator;
  dir = mkdtempSync(join(tmpdir(), "doohctl-echo-"));
});
afterAll(() => emulator.close());

describe("a DSP that echoes secrets in its errors", () => {
  it("a login refused with a 422 that quotes the password: plan fails without printing it", async () => {
    await withProxy(
      async (seen, response) => {
        if (seen.path !== "/api/session") return false;
        send(response, echo422(seen.body));
        return true;
      },
      async (proxy) => {
        for (const format of ["text", "json"]) {
          const { code, out, err } = await doohctl(proxy.origin, ["plan", "--format", format]);
          expect(code).toBe(1);
          expect(err + out).toMatch(/422/);
          expect(err + out).toContain("[redacted]");
          expectClean(out + err, `plan --format ${format}`);
        }
      },
    );
  });

  it("a read refused with a 422 that quotes the Cookie header: plan fails without printing the token", async () => {
    await withProxy(
      async (seen, response) => {
        if (seen.method !== "GET") return false;
        send(response, echo422(`cookie ${String(seen.headers.cookie)}`));
        return true;
      },
      async (proxy) => {
        const { code, out, err } = await doohctl(proxy.origin, ["plan", "--format", "json"]);
        expect(code).toBe(1);
        expect(tokens.size).toBeGreaterThan(0);
        expect(out + err).toContain("[redacted]");
        expectClean(out + err, "plan --format json");
      },
    );
  });

  it("a write refused with a 422 that quotes the token and the password: apply's output and journal hold neither", async () => {
    await withProxy(
      async (seen, response) => {
        if (seen.method !== "PATCH") return false;
        send(response, echo422(`${String(seen.headers.cookie)} for ${PASSWORD}`));
        return true;
      },
      async (proxy) => {
        for (const { format, code, out, err, journal } of await applyInEachFormat(
          proxy.origin,
          "apply.jsonl",
        )) {
          expect(code).toBe(1);
          expect(proxy.writes().length).toBeGreaterThan(0);
          expect(out + err).toContain("[redacted]");
          expectClean(out + err, `apply --format ${format}`);
          expectClean(journal, "the --log journal");
        }
      },
    );
  });

  it("a write refused with a 422 that quotes the password in every escaped form: output, JSON and journal hold none", async () => {
    await withProxy(
      async (seen, response) => {
        if (seen.method !== "PATCH") return false;
        send(response, {
          status: 422,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            message: `Invalid Request: ${EVERY_FORM.join("; ")}`,
            data: EVERY_FORM.map((form) => ({ field: form, messages: [`got ${form}`] })),
          }),
        });
        return true;
      },
      async (proxy) => {
        for (const { format, code, out, err, journal } of await applyInEachFormat(
          proxy.origin,
          "apply-forms.jsonl",
        )) {
          expect(code).toBe(1);
          expect(out + err).toContain("[redacted]");
          expect(out + err).toContain("HTML-escaped (named)");
          expectClean(out + err, `apply --format ${format}`);
          expectClean(journal, "the --log journal");
        }
      },
    );
  });

  it("a login refused with a page that is not JSON: the excerpt is scrubbed before it is cut to 200 characters", async () => {
    await withProxy(
      async (seen, response) => {
        if (seen.path !== "/api/session") return false;
        send(response, {
          status: 400,
          headers: { "content-type": "text/plain" },
          body: `${"x".repeat(190)}${PASSWORD} ${EVERY_FORM.join(" ")}`,
        });
        return true;
      },
      async (proxy) => {
        for (const format of ["text", "json"]) {
          const { code, out, err } = await doohctl(proxy.origin, ["plan", "--format", format]);
          expect(code).toBe(1);
          expect(out + err).toContain(`${"x".repeat(190)}[redacted]`);
          expectClean(out + err, `plan --format ${format}`);
          // Not even the first characters of the password, cut in half.
          expect(out + err).not.toContain(`x${PASSWORD.slice(0, 6)}`);
        }
      },
    );
  });
});
