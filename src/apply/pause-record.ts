/**
 * What the recovery record hears while requests go out (ARCHITECTURE.md#recovery-record): the
 * campaigns a request pauses, before it is sent, so that a crash cannot leave one dark
 * unrecorded; and the campaigns a request reactivated, once the DSP confirmed it.
 */
import type { Clock } from "../model/clock.js";
import { activeItems, type PauseSpan, pauseSpans } from "../plan/pauses.js";
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

  /** After the DSP answered `request`: the campaigns it set active. */
  reactivated(request: WriteRequest): void {
    const ids = [...activeItems(request)].filter(([, active]) => active).map(([id]) => id);
    if (ids.length > 0) this.recovery?.reactivated(ids);
  }
}
