/**
 * A campaign a plan creates has no id until phase 2: requests name it `<new:c7>` (its
 * `create_campaign` change), which the applier resolves. The one home of that placeholder.
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

  /** `text` with each placeholder replaced by `lookup(id)`, else by `missing(...)` (which may throw). */
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
