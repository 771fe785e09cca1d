/**
 * A campaign created by a plan has no id until phase 2 runs. Requests refer to it by a
 * placeholder, `<new:c7>` (the id of its `create_campaign` change), in paths and bodies; the
 * applier substitutes the real id. This is the one place that makes, recognizes and resolves
 * them.
 */

const PATTERN = /<new:(c[0-9]+)>/g;
const MARK = "<new:";

export const Placeholder = {
  /** The placeholder of the campaign that `create_campaign` change `createChangeId` makes. */
  make(createChangeId: string): string {
    return `${MARK}${createChangeId}>`;
  },

  /** True when `text` holds a placeholder anywhere. */
  within(text: string): boolean {
    return text.includes(MARK);
  },

  /**
   * `text` with every placeholder replaced by `lookup(createChangeId)`; where that gives
   * undefined, by `missing(placeholder, createChangeId)` (which may throw).
   */
  resolve(
    text: string,
    lookup: (createChangeId: string) => string | undefined,
    missing: (placeholder: string, createChangeId: string) => string,
  ): string {
    if (!text.includes(MARK)) return text;
    return text.replace(
      PATTERN,
      (placeholder, changeId: string) => lookup(changeId) ?? missing(placeholder, changeId),
    );
  },
};
