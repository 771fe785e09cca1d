/**
 * Entry point of a benchmark step in a fresh process: `node --expose-gc dist/bench/child.js
 * TASK ARGS...` prints one JSON line (see `fork.ts`).
 */
export type ChildTask = (args: string[]) => Promise<unknown>;

const [task = "", ...args] = process.argv.slice(2);
const tasks: Record<string, () => Promise<ChildTask>> = {
  "config-load": async () => (await import("./config.js")).loadTask,
  "yaml-parse": async () => (await import("./config.js")).yamlTask,
  desired: async () => (await import("./plan.js")).desiredTask,
  plan: async () => (await import("./plan.js")).planTask,
  "scale-prepare": async () => (await import("./scale.js")).prepareTask,
  "scale-load": async () => (await import("./scale.js")).scaleLoadTask,
  "scale-plan": async () => (await import("./scale.js")).scalePlanTask,
};
const load = tasks[task];
if (!load) throw new Error(`unknown bench child task "${task}": use ${Object.keys(tasks).join(", ")}`);
const result = await (await load())(args);
process.stdout.write(`${JSON.stringify(result)}\n`);
