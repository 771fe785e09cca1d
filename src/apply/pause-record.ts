/**
 * What the recovery record hears (ARCHITECTURE.md#recovery-record): a request's pauses before it
 * is sent, so a crash leaves none dark unrecorded; its reactivations once the DSP confirms them.
 */
import type { Clock } from "../model/clock.js";
import { activeItems, type PauseSpan, pauseSpans } from "../plan/requests/pauses.js";
import type { Plan } from "../plan/types.js";
import type { RecoveryPort } from "./restore.js";

type WriteRequest = { method: string; path: string; body: unknown };

export class PauseRecorder {
  /** The plan's pauses for targeting changes, by campaign id. */
  private readonly spans: Map<string, PauseSpan>;

  constructor(
    plan: Plan,
    private readonly recovery: RecoveryPort | undefined,
    private readonly clock: Clock,
  ) {
    this.spans = new Map(pauseSpans(plan).map((span) => [span.campaign_id, span]));
  }

  /** Before `request` is sent; throws when the record cannot be written (nothing is sent then). */
  pausing(request: WriteRequest): void {
    const pausing = [...activeItems(request)].flatMap(([id, active]) => {
      const span = this.spans.get(id);
      return !active && span ? [span] : [];
    });
    if (pausing.length === 0) return;
    this.recovery?.pausing(
      pausing.map((span) => ({
        campaign_id: span.campaign_id,
        insertion_order_id: span.insertion_order_id,
        name: span.name,
        paused_at: new Date(this.clock.now()).toISOString(),
      })),
    );
  }

  /**
   * The campaigns `answer` shows active leave the record, not those asked for: a 200 with them
   * inactive restored nothing, and the answer's check stops the apply there (answer-check.ts).
   */
  reactivated(request: WriteRequest, answer: unknown): void {
    // This apply's own pauses only: another activation is the write guard's to check.
    const shown = activeIn(answer);
    const ids = [...activeItems(request)]
      .filter(([id, active]) => active && this.spans.has(id) && shown.has(id))
      .map(([id]) => id);
    if (ids.length > 0) this.recovery?.reactivated(ids);
  }
}

/** The ids of the campaigns a PATCH answer shows active (`{campaigns: [...]}` or one campaign). */
function activeIn(answer: unknown): Set<string> {
  const list = (answer as { campaigns?: unknown } | null)?.campaigns;
  const campaigns = Array.isArray(list) ? list : [answer];
  const ids = new Set<string>();
  for (const c of campaigns as ({ id?: unknown; active?: unknown } | null)[]) {
    if (typeof c?.id === "string" && c.active === true) ids.add(c.id);
  }
  return ids;
}
