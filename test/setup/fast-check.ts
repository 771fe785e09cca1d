/**
 * Property tests draw fresh random cases on every run, so that running the suite keeps
 * looking for counterexamples. CI runs with a fixed `FC_SEED` (see .ci/run), so what lands
 * on main is checked against the same cases each time and stays green until the code
 * changes. A counterexample found at random prints its seed; `FC_SEED=<seed> npm test`
 * draws the same cases again.
 */
import fc from "fast-check";

const seed = process.env.FC_SEED;
if (seed !== undefined && seed !== "") {
  if (!/^-?\d+$/.test(seed) || !Number.isSafeInteger(Number(seed))) {
    throw new Error(`FC_SEED must be an integer (the seed fast-check printed), not ${JSON.stringify(seed)}`);
  }
  fc.configureGlobal({ seed: Number(seed) });
}
