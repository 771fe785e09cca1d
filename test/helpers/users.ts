/**
 * The test users, once: every seed and every CLI environment in test/ logs in
 * as one of these. A test that needs a user unlike them says how with `user({ ... })`, e.g. a
 * password with quotes for the secret-scrubbing tests. `test/helpers/vocabulary.test.ts`
 * refuses a `USER` constant defined anywhere else.
 */

/** The user of the test account (account 1), the first of every seed the builders make. */
export const USER = { email: "ops@doohctl.test", password: "Ops-Pa55word-secret-41", account_id: "1" };

/** Another person of the same account: a second session, another apply, another lock holder. */
export const COLLEAGUE = {
  email: "colleague@doohctl.test",
  password: "Colleague-Pa55word-secret-7",
  account_id: "1",
};

/** A user of the same account whose plans another user applies (`DOOHCTL_PLAN_USER`, CI). */
export const READER = { email: "reader@doohctl.test", password: "reader-password-secret", account_id: "1" };

/** A user of another account (account 2): what account 1 must never see. */
export const OTHER_ACCOUNT_USER = { email: "other@doohctl.test", password: "other-pass", account_id: "2" };

/** The user of examples/emulator-seed.json (and `doohctl emulator`'s default seed), as a reader types it. */
export const DEMO_USER = { email: "demo@doohctl.test", password: "demo-password", account_id: "1" };

/** The test account's user with what a test needs different, named in the call. */
export function user(overrides: Partial<typeof USER> = {}): typeof USER {
  return { ...USER, ...overrides };
}
