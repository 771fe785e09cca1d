/**
 * `doohctl doctor` against the real emulator over HTTP: all holds on the plain emulator; each
 * test-only quirk makes its own check differ; and whatever it finds, it only ever sent GETs
 * and its session POSTs (the emulator's request log proves it).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { CheckResult as Check } from "../../src/cli/doctor/probe.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seedAccount } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { type InterceptingProxy, interceptingProxy, relay } from "../helpers/proxy.js";
import { type Quirk, quirky } from "../helpers/quirks.js";
import { USER } from "../helpers/users.js";

let emulator: RunningEmulator | undefined;
let front: InterceptingProxy | undefined;
afterEach(async () => {
  await front?.close();
  await emulator?.close();
  emulator = undefined;
  front = undefined;
});

/** The emulator's origin, or a front of it with `quirks` (test/helpers/quirks.ts). */
async function originWith(quirks: readonly Quirk[]): Promise<string> {
  if (quirks.length === 0) return emulator!.origin;
  front = await interceptingProxy(emulator!.origin, { onRequest: quirky(quirks) });
  return front.origin;
}

async function doctor(
  options: { quirks?: Quirk[]; args?: string[]; seed?: ReturnType<typeof seedAccount> } = {},
) {
  // The emulator on the system clock: the cookie's expiry is checked against this machine's.
  emulator = (await startCliAccount({ seed: options.seed ?? seedAccount(), emulator: { control: true } }))
    .emulator;
  const io = bufferIO({
    env: {
      DOOHCTL_API_ORIGIN: await originWith(options.quirks ?? []),
      DOOHCTL_EMAIL: USER.email,
      DOOHCTL_PASSWORD: USER.password,
      DOOHCTL_SESSION_CACHE: "off",
    },
  });
  const code = await run(["doctor", "--format", "json", ...(options.args ?? [])], io);
  const report = JSON.parse(io.out());
  const byId = new Map<string, Check>(report.checks.map((c: Check) => [c.id, c]));
  return { code, report, byId, io, log: emulator.requestLog() };
}

/** Only GETs went out, apart from session creation: the doctor never writes. */
function expectReadOnly(log: { method: string; path: string }[]) {
  const others = log.filter((r) => r.method !== "GET" && !(r.method === "POST" && r.path === "/api/session"));
  expect(others).toEqual([]);
  // One login per run: the doctor looks at the client's own (G9), it sends none of its own.
  expect(log.filter((r) => r.method === "POST" && r.path === "/api/session")).toHaveLength(1);
}

describe("doohctl doctor", () => {
  it("finds every checked assumption holding on the plain emulator, and exits 0", async () => {
    const { code, report, byId, log, io } = await doctor();
    expect(io.err()).toBe("");
    expect(code).toBe(0);
    const statuses = Object.fromEntries([...byId].map(([id, c]) => [id, c.status]));
    expect(statuses).toEqual({
      "session-cookie": "holds",
      tls: "not checked",
      "insertion-order-list": "holds",
      "insertion-order-get": "holds",
      "insertion-order-filters": "holds",
      "campaign-list": "holds",
      "campaign-progress": "holds",
      "campaign-filters": "holds",
      targetings: "holds",
      "creative-filters": "holds",
      "list-envelopes": "holds",
      "page-bound": "holds",
      "page-size-zero": "holds",
      "total-size": "holds",
      "default-order": "holds",
      "not-found": "holds",
      "insertion-order-members": "holds",
      "campaign-members": "holds",
      "targeting-members": "holds",
      "creative-members": "holds",
      "advertiser-members": "holds",
      "creative-category-members": "holds",
    });
    expect(byId.get("campaign-members")!.detail).toBe("every member doohctl depends on, and no other");
    expect(byId.get("tls")!.detail).toContain("plain http://");
    expect(byId.get("session-cookie")!.detail).toBe(
      "tr-production; Secure, HttpOnly, Path=/; expires 8h after login",
    );
    expect(report.reads).toBe(log.filter((r) => r.method === "GET").length);
    expect(report.reads).toBeLessThanOrEqual(30);
    expect(report.summary).toEqual({ holds: 21, differs: 0, not_checked: 1 });
    expectReadOnly(log);
  });

  it.each([
    [
      "io-list-items",
      "insertion-order-list",
      "G1",
      // G14: the unknown `items` is ignored; the missing `insertion_orders` is what differs.
      /at \/insertion_orders: a required member, missing/,
      // No dialect key moves a list's envelope: the client is what would change.
      /schemas\/dsp-api\.openapi\.json, G1$/,
    ],
    [
      "targetings-option-sets",
      "targetings",
      "G5",
      /at \/targetings: a required member, missing/,
      // The dialect key that adapts it, rather than a source file (src/model/dialect.ts).
      /^connection\.dialect\.targetings\.member \(G5\)$/,
    ],
    // The client refuses a list without total_size at the first list read (it validates every answer).
    ["no-total-size", "insertion-order-list", "G1", /total_size/, /schemas\/dsp-api\.openapi\.json, G1$/],
    ["page-unbounded", "page-bound", "G12", /page=101 answered 200/, /schemas\/dsp-api\.openapi\.json, G12$/],
  ] as const)(
    "with the %s quirk, says %s differs (%s), names what to change and exits 1",
    async (quirk, id, gap, saw, change) => {
      const { code, byId, log } = await doctor({ quirks: [quirk] });
      expect(code).toBe(1);
      const check = byId.get(id)!;
      expect(check.status).toBe("differs");
      expect(check.gap).toBe(gap);
      expect(check.detail).toMatch(saw);
      expect(check.change).toMatch(change);
      expectReadOnly(log);
    },
  );

  it("stays within --max-reads and says which checks the budget left out", async () => {
    const { code, report, byId, log } = await doctor({ args: ["--max-reads", "3"] });
    expect(log.filter((r) => r.method === "GET")).toHaveLength(3);
    expect(report.reads).toBe(3);
    expect(byId.get("insertion-order-filters")!.status).toBe("holds");
    expect(byId.get("campaign-list")!.status).toBe("not checked");
    expect(byId.get("campaign-list")!.detail).toMatch(
      /read budget exhausted \(3 of 3 reads spent; raise --max-reads\)/,
    );
    expect(byId.get("not-found")!.status).toBe("not checked");
    // Nothing it checked differs: not checked is not a failure.
    expect(code).toBe(0);
  });

  it("says why a check had nothing to probe on an empty account", async () => {
    const { code, byId } = await doctor({
      seed: seedAccount({ insertion_orders: [], campaigns: [], targetings: {}, creatives: [] }),
    });
    expect(code).toBe(0);
    expect(byId.get("insertion-order-get")).toMatchObject({
      status: "not checked",
      detail: "no insertion order to probe",
    });
    expect(byId.get("targetings")).toMatchObject({ status: "not checked", detail: "no campaign to probe" });
  });

  it("in staging checks the tr-staging cookie and leaves the DSP, which staging lacks (G13), unchecked", async () => {
    emulator = (
      await startCliAccount({ seed: seedAccount(), emulator: { control: true, environment: "staging" } })
    ).emulator;
    const io = bufferIO({
      env: {
        DOOHCTL_API_ORIGIN: emulator.origin,
        DOOHCTL_ENVIRONMENT: "staging",
        DOOHCTL_EMAIL: USER.email,
        DOOHCTL_PASSWORD: USER.password,
        DOOHCTL_SESSION_CACHE: "off",
      },
    });
    expect(await run(["doctor", "--format", "json"], io)).toBe(0);
    const report = JSON.parse(io.out());
    expect(report.checks[0]).toMatchObject({ id: "session-cookie", status: "holds" });
    expect(report.checks[0].detail).toMatch(/^tr-staging;/);
    expect(report.checks.find((c: Check) => c.id === "targetings")).toMatchObject({
      status: "not checked",
      detail: "the DSP interface exists in production only (G13) and this is staging",
    });
    expect(report.reads).toBe(0);
    expect(emulator.requestLog().filter((r) => r.method === "GET")).toEqual([]);
  });

  it("reports an answer the client itself refuses (not JSON) as differs, not a crash", async () => {
    emulator = (await startCliAccount({ seed: seedAccount(), emulator: { control: true } })).emulator;
    // A front that answers the targetings read with an HTML page and passes the rest on.
    const front = await interceptingProxy(emulator.origin, {
      onRequest: (req, res, forward) => {
        if (req.url?.endsWith("/targetings")) {
          res.writeHead(200, { "content-type": "text/html" }).end("<html>maintenance</html>");
          return;
        }
        void forward().then((answer) => relay(answer, res));
      },
    });
    try {
      const io = bufferIO({
        env: {
          DOOHCTL_API_ORIGIN: front.origin,
          DOOHCTL_EMAIL: USER.email,
          DOOHCTL_PASSWORD: USER.password,
          DOOHCTL_SESSION_CACHE: "off",
        },
      });
      expect(await run(["doctor", "--format", "json"], io)).toBe(1);
      const checks: Check[] = JSON.parse(io.out()).checks;
      expect(checks.find((c) => c.id === "targetings")).toMatchObject({
        status: "differs",
        detail: expect.stringMatching(/not JSON|not the DSP's JSON API/),
      });
      expect(checks.filter((c) => c.status === "differs").map((c) => c.id)).toEqual(["targetings"]);
    } finally {
      await front.close();
    }
  });

  it("prints a text report with the change to make under a check that differs", async () => {
    emulator = (await startCliAccount({ seed: seedAccount() })).emulator;
    const io = bufferIO({
      env: {
        DOOHCTL_API_ORIGIN: await originWith(["targetings-option-sets"]),
        DOOHCTL_EMAIL: USER.email,
        DOOHCTL_PASSWORD: USER.password,
        DOOHCTL_SESSION_CACHE: "off",
      },
    });
    expect(await run(["doctor"], io)).toBe(1);
    const text = io.out();
    expect(text).toMatch(/^doohctl doctor: http:\/\/127\.0\.0\.1:\d+ \(production\), \d+ of 30 reads\n/);
    expect(text).toMatch(/\ndiffers +G5 +targetings read +.*\/targetings: a required member, missing/);
    expect(text).toMatch(/\n +change: connection\.dialect\.targetings\.member \(G5\)\n/);
    expect(text).toMatch(/\nholds +G1 +insertion order list /);
    expect(text).toContain("19 hold, 1 differs, 2 not checked");
    expect(text + io.err()).not.toContain(USER.password);
  });

  it("reports bad flags and refused credentials as JSON with --format json, never the password", async () => {
    emulator = (await startCliAccount({ seed: seedAccount() })).emulator;
    const env = {
      DOOHCTL_API_ORIGIN: emulator.origin,
      DOOHCTL_EMAIL: USER.email,
      DOOHCTL_PASSWORD: "wrong-password-xyz",
      DOOHCTL_SESSION_CACHE: "off",
    };
    const refused = bufferIO({ env });
    expect(await run(["doctor", "--format", "json"], refused)).toBe(1);
    const [error] = JSON.parse(refused.out()).errors;
    expect(error).toEqual({
      code: "CREDENTIALS_REFUSED",
      message: expect.stringContaining(`refused the credentials of ${USER.email}`),
      location: null,
    });
    expect(refused.out() + refused.err()).not.toContain("wrong-password-xyz");
    const badBudget = bufferIO({ env });
    expect(await run(["doctor", "--format", "json", "--max-reads", "0"], badBudget)).toBe(1);
    expect(JSON.parse(badBudget.out()).errors).toEqual([
      {
        code: "USAGE",
        message: expect.stringMatching(/--max-reads 0 is not a whole number from 1 to 10000/),
        location: null,
      },
    ]);
    expect(emulator.requestLog().filter((r) => r.method !== "POST")).toEqual([]);
  });
});
