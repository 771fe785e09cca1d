/**
 * What the result and the journal say must be true even when the apply stops between a pause
 * and its reactivation (I1/I7), when a request was recovered, and when the journal breaks.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ApplyEvent } from "../../src/apply/events.js";
import { applyPlan } from "../../src/apply/execute.js";
import { type ApplyJournal, type JournalEntry, openFileJournal } from "../../src/apply/journal.js";
import { renderApplyReport } from "../../src/render/report.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  seedCampaign,
  seedIo,
  VENUES_A,
  VENUES_B,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { firstCampaignPostCarriedOutThen } from "../helpers/proxy.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

let world: EmulatorWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** An apply listener that makes the DSP answer 500 to every request once one of `phase` landed. */
function answer500sAfterPhase(w: EmulatorWorld, phase: number): (event: ApplyEvent) => void {
  return (event) => {
    if (event.type === "applied" && event.record.phase === phase) w.emulator.setFaults("500:1", 1);
  };
}

function journalAt(): { path: string; journal: ApplyJournal } {
  const path = join(mkdtempSync(join(tmpdir(), "doohctl-records-")), "apply.jsonl");
  return { path, journal: openFileJournal(path) };
}

function lines(path: string): JournalEntry[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as JournalEntry);
}

/** Active Malls loses VENUES_A (so it is paused), `active` undeclared; the IO gets a contract. */
async function pausingWorld() {
  world = await emulatorWorld({
    seed: {
      insertion_orders: [seedIo("1001")],
      campaigns: [seedCampaign("5001", "1001", "Malls", { active: true })],
      targetings: { "5001": [VENUES_A] },
    },
  });
  const desired = desiredState([
    desiredIo("1001", {
      campaigns: [desiredCampaign("Malls", { targetings: [VENUES_B], line: "next" })],
      fields: {
        contract_number: "PO-7",
      },
      line: "next",
    }),
  ]);
  const plan = await world.plan(desired);
  expect(plan.requests.map((r) => r.phase)).toEqual([1, 3, 4, 6]);
  return { w: world, plan };
}

describe("a campaign paused for a targeting change", () => {
  it("is reported left paused, in the result, the text and the journal, when a later request fails", async () => {
    const { w, plan } = await pausingWorld();
    const { path, journal } = journalAt();
    const result = await applyPlan({
      plan,
      client: w.client,
      clock: w.clock,
      journal,
      // Every write after the pause fails: the PUT of phase 4 is refused with 500s.
      onEvent: answer500sAfterPhase(w, 3),
    });
    journal.close();
    expect(result.status).toBe("failed");
    expect(result.failure?.request.phase).toBe(4);
    expect(w.emulator.state().campaigns.find((c) => c.id === "5001")?.active).toBe(false);
    expect(result.left_paused).toEqual([
      {
        change_id: expect.any(String),
        address: "campaign.1001/Malls",
        insertion_order_id: "1001",
        campaign_id: "5001",
        name: "Malls",
        pause_confirmed: true,
      },
    ]);
    const text = renderApplyReport(result);
    expect(text).toContain("LEFT PAUSED by this apply (1)");
    expect(text).not.toContain("POSSIBLY");
    expect(text).toContain('campaign 5001 "Malls"');
    // The DSP still answers 500, so restoring on the way out failed too: the record keeps it.
    expect(result.restore_error).toBeDefined();
    expect(text).toContain("Reactivating them failed");
    expect(text).toContain(
      "next doohctl plan or apply of this account plans their\n  reactivation (DOOH202)",
    );
    expect(lines(path).at(-1)).toMatchObject({
      event: "end",
      status: "failed",
      left_paused: [{ campaign_id: "5001", name: "Malls" }],
    });
  });

  it("is reported possibly paused, not paused, when the pausing request itself failed", async () => {
    const { w, plan } = await pausingWorld();
    let pausing = false;
    const result = await applyPlan({
      plan,
      client: w.client,
      clock: w.clock,
      // Once the pause's guard has read the campaign, the DSP answers only 500: the pause
      // fails without a confirmed answer, and so does the restore's read.
      onEvent: (event) => {
        if (event.type === "request") pausing = event.phase === 3;
        if (
          pausing &&
          event.type === "api" &&
          event.event.type === "response" &&
          event.event.method === "GET"
        )
          w.emulator.setFaults("500:1", 1);
      },
    });
    expect(result.failure?.request.phase).toBe(3);
    expect(result.restore_error).toBeDefined();
    expect(result.left_paused).toEqual([
      expect.objectContaining({ campaign_id: "5001", pause_confirmed: false }),
    ]);
    const text = renderApplyReport(result);
    expect(text).not.toMatch(/^LEFT PAUSED/m);
    expect(text).toContain(
      "POSSIBLY LEFT PAUSED by this apply (1): their pause was sent without a confirmed answer, and they were not reactivated:\n" +
        '  campaign 5001 "Malls" (insertion order 1001)\n',
    );
    expect(text).toContain("doohctl plan shows whether they are active");
    expect(text).toContain("reactivation (DOOH202)");
  });

  it("journals the reactivation's attempts as the restore's (seq 0), not as the request that failed", async () => {
    const { w, plan } = await pausingWorld();
    const { path, journal } = journalAt();
    let restoring = false;
    let refused = false;
    const result = await applyPlan({
      plan,
      client: w.client,
      clock: w.clock,
      journal,
      // The PUT of phase 4 fails on 500s; on the way out, the restore's read passes and its
      // reactivation is answered 429 once before it lands (its read made again before the retry).
      onEvent: (event) => {
        answer500sAfterPhase(w, 3)(event);
        if (event.type === "check" && event.message.startsWith("reactivating")) {
          restoring = true;
          w.emulator.setFaults("", 1);
        }
        if (!restoring || event.type !== "api" || event.event.type !== "response") return;
        if (event.event.method === "GET" && event.event.status === 200 && !refused) {
          refused = true;
          w.emulator.setFaults("429:1", 1);
        }
        if (event.event.method === "PATCH" && event.event.status === 429) w.emulator.setFaults("", 1);
      },
    });
    journal.close();
    expect(result.failure?.request).toMatchObject({ phase: 4, method: "PUT" });
    expect(result.restored).toEqual(["5001"]);
    const attempts = lines(path).filter((l) => l.event === "attempt");
    const reactivations = attempts.filter((l) => l.method === "PATCH");
    expect(reactivations.length).toBeGreaterThan(0);
    for (const line of reactivations) expect(line).toMatchObject({ seq: 0 });
    for (const line of attempts.filter((l) => l.seq !== 0)) {
      expect(line).toMatchObject({ method: plan.requests[line.seq - 1]?.method });
    }
  });

  it("says in the report what to do when the DSP answered 5xx until the client gave up", async () => {
    const { w, plan } = await pausingWorld();
    const result = await applyPlan({
      plan,
      client: w.client,
      clock: w.clock,
      onEvent: answer500sAfterPhase(w, 3),
    });
    expect(result.failure).toMatchObject({ http_status: 500, code: "API_ERROR" });
    expect(result.failure?.message).toBe(
      "Internal Server Error, 4 times in a row: the DSP is failing, not the request; run again later, " +
        "and tell the DSP's operator if it persists",
    );
    expect(renderApplyReport(result)).toContain("500 Internal Server Error, 4 times in a row");
  });

  it("is reactivated before the apply returns when it is interrupted after the pause", async () => {
    const { w, plan } = await pausingWorld();
    const controller = new AbortController();
    const events: ApplyEvent[] = [];
    const result = await applyPlan({
      plan,
      client: w.client,
      clock: w.clock,
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === "applied" && event.record.phase === 3) controller.abort(new Error("SIGINT"));
      },
    });
    expect(result.status).toBe("interrupted");
    // The progress display follows this: from here on it waits for the reactivation.
    expect(events.filter((e) => e.type === "restore")).toEqual([{ type: "restore", campaigns: 1 }]);
    expect(result.restored).toEqual(["5001"]);
    expect(result.left_paused).toEqual([]);
    expect(w.emulator.state().campaigns.find((c) => c.id === "5001")?.active).toBe(true);
    expect(renderApplyReport(result)).not.toContain("LEFT PAUSED");
  });

  it("is not reported when its reactivation was applied, nor when the apply stopped before the pause", async () => {
    const { w, plan } = await pausingWorld();
    const done = await applyPlan({ plan, client: w.client, clock: w.clock });
    expect(done.status).toBe("applied");
    expect(done.left_paused).toEqual([]);
    expect(renderApplyReport(done)).not.toContain("LEFT PAUSED");

    await w.close();
    world = undefined;
    const again = await pausingWorld();
    const controller = new AbortController();
    const stopped = await applyPlan({
      plan: again.plan,
      client: again.w.client,
      clock: again.w.clock,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "applied" && event.record.phase === 1) controller.abort(new Error("SIGINT"));
      },
    });
    expect(stopped.status).toBe("interrupted");
    expect(stopped.left_paused).toEqual([]);
  });
});

describe("the summary of a stopped apply", () => {
  it("counts a campaign created but not yet activated as created, not yet activated", async () => {
    world = await emulatorWorld({ seed: { insertion_orders: [seedIo("1001")] } });
    const fresh = desiredCampaign("Fresh", {
      fields: {
        active: true,
        start_time: "2026-12-01T00:00:00Z",
        end_time: "2027-01-01T00:00:00Z",
        budget_impressions: 10_000,
        cpm: usd("10"),
      },
      line: "next",
    });
    const plan = await world.plan(desiredState([desiredIo("1001", { campaigns: [fresh], line: "next" })]));
    expect(plan.requests.map((r) => r.method)).toEqual(["POST", "PATCH"]);
    const controller = new AbortController();
    const result = await applyPlan({
      plan,
      client: world.client,
      clock: world.clock,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "applied" && event.record.method === "POST") controller.abort(new Error("SIGINT"));
      },
    });
    expect(result.status).toBe("interrupted");
    const id = Object.values(result.created)[0]!;
    expect(world.emulator.state().campaigns.find((c) => c.id === id)?.active).toBe(false);
    expect(result.summary.actions).toEqual({});
    expect(result.summary.partly_applied).toEqual({ create_campaign: 1 });
    const text = renderApplyReport(result);
    expect(text).toContain(`Applied 1 of 2 requests in 0s.\n  1 campaign created (not yet activated)\n`);
    expect(text).toContain(`  new campaign ids: ${id}\n`);
  });
});

describe("the summary of a stopped apply, for a targeting change", () => {
  /**
   * Applies the pausing plan with the DSP answering 500 from the request after the one of
   * `phase` until the apply fails; the restore on the way out then succeeds.
   */
  async function failingAfterPhase(phase: number) {
    const { w, plan } = await pausingWorld();
    const result = await applyPlan({
      plan,
      client: w.client,
      clock: w.clock,
      onEvent: (event) => {
        answer500sAfterPhase(w, phase)(event);
        if (event.type === "failed") w.emulator.setFaults("", 1);
      },
    });
    return { w, result };
  }

  it("counts nothing of it when only its pause landed and the restore undid that", async () => {
    // The PUT of phase 4 fails.
    const { w, result } = await failingAfterPhase(3);
    expect(result.failure?.request).toMatchObject({ phase: 4, method: "PUT" });
    expect(result.restored).toEqual(["5001"]);
    expect(w.emulator.state().targetings["5001"]).toMatchObject([VENUES_A]);
    expect(result.summary.partly_applied).toBeUndefined();
    expect(renderApplyReport(result)).not.toContain("targeting list replacement partly applied");
  });

  it("counts it replaced when its PUT landed, though its reactivation was left to the restore", async () => {
    // The reactivation of phase 6 fails.
    const { result } = await failingAfterPhase(4);
    expect(result.failure?.request).toMatchObject({ phase: 6 });
    expect(result.restored).toEqual(["5001"]);
    expect(result.summary.actions).toMatchObject({ replace_targetings: 1 });
    expect(result.summary.partly_applied).toBeUndefined();
  });
});

describe("the status of a recovered request", () => {
  it("is 200 for a POST answered 500 after the emulator created its campaigns", async () => {
    world = await emulatorWorld({ seed: { insertion_orders: [seedIo("1001")] } });
    // Forwards the first POST /campaigns (the emulator creates) and answers it 500.
    let faked = false;
    await world.client.close();
    world = await world.behind(
      firstCampaignPostCarriedOutThen((_req, res) => {
        faked = true;
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ message: "Internal Server Error" }));
      }),
    );
    const fresh = desiredCampaign("Fresh", {
      fields: {
        active: false,
        start_time: "2026-12-01T00:00:00Z",
        end_time: "2027-01-01T00:00:00Z",
        budget_impressions: 10_000,
        cpm: usd("10"),
      },
      line: "next",
    });
    const plan = await world.plan(
      desiredState([
        desiredIo("1001", { campaigns: [fresh], fields: { contract_number: "PO-2" }, line: "next" }),
      ]),
    );
    expect(plan.requests.map((r) => r.method)).toEqual(["PATCH", "POST"]);
    const { path, journal } = journalAt();

    const result = await applyPlan({ plan, client: world.client, clock: world.clock, journal });
    journal.close();

    expect(faked).toBe(true);
    expect(result.status).toBe("applied");
    expect(result.applied[1]).toMatchObject({ method: "POST", recovered: "created", status: 200 });
    const posted = lines(path).find((l) => l.event === "request" && l.method === "POST");
    expect(posted).toMatchObject({ status: 200, recovered: "created" });
    const attempt = lines(path).find((l) => l.event === "attempt");
    expect(attempt).toMatchObject({ method: "POST", status: 500 });
  });
});

describe("a journal whose write fails", () => {
  it("never fails an applied request: the apply goes on, and the result and report carry the error", async () => {
    const { w, plan } = await pausingWorld();
    const written: JournalEntry[] = [];
    let calls = 0;
    const journal: ApplyJournal = {
      record(entry) {
        calls++;
        if (entry.event === "request") throw new Error("ENOSPC: no space left on device, write");
        written.push(entry);
      },
      close() {},
    };
    const result = await applyPlan({ plan, client: w.client, clock: w.clock, journal });
    expect(result.status).toBe("applied");
    expect(result.applied.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(result.journal_error).toBe("ENOSPC: no space left on device, write");
    // Journaling stopped at the first error: nothing was offered to the journal after it.
    expect(written.map((e) => e.event)).toEqual(["start"]);
    expect(calls).toBe(2);
    const text = renderApplyReport(result);
    expect(text).toContain("Warning: writing the apply log failed (ENOSPC: no space left on device, write)");
    expect(text).toContain("this report is the complete record");
    expect(w.emulator.state().campaigns.find((c) => c.id === "5001")?.active).toBe(true);
  });

  it("keeps the failure report of a failing apply when the journal breaks on the failed request", async () => {
    const { w, plan } = await pausingWorld();
    const journal: ApplyJournal = {
      record(entry) {
        if (entry.event === "request" && entry.error !== undefined) throw new Error("EIO: i/o error, write");
      },
      close() {},
    };
    const result = await applyPlan({
      plan,
      client: w.client,
      clock: w.clock,
      journal,
      onEvent: answer500sAfterPhase(w, 3),
    });
    expect(result.status).toBe("failed");
    expect(result.applied.map((r) => r.phase)).toEqual([1, 3]);
    expect(result.journal_error).toBe("EIO: i/o error, write");
    expect(result.left_paused?.map((p) => p.campaign_id)).toEqual(["5001"]);
  });
});
