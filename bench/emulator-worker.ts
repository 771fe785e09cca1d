/**
 * The emulator in a worker thread, so that the code driving it (a load generator, the
 * client) has the other core and the figures are the emulator's own. Server time of each
 * PATCH is taken from node:http's diagnostics channels, from the parsed request line to the
 * response handed to the socket: the emulator itself is not touched.
 */
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { type AnswerMode, startEmulator } from "../src/emulator/index.js";
import { generateScenario, type ScenarioOptions } from "./scenario.js";

export interface EmulatorWorker {
  origin: string;
  /** Server times of the PATCH requests served since the last call, in milliseconds. */
  patchServerTimes(): Promise<number[]>;
  /** Path and query of every GET served so far (the emulator's request log keeps 10,000). */
  getPaths(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Starts an emulator seeded with the scenario's live account, rate limits off; `answers`
 * `richer` answers with twice the members on every object (G14, src/emulator/richer.ts).
 */
export async function startEmulatorWorker(
  scenario: ScenarioOptions,
  answers: AnswerMode = "contract",
): Promise<EmulatorWorker> {
  const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { scenario, answers } });
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (message: T) => {
        worker.off("error", onError);
        resolve(message);
      };
      const onError = (error: Error) => {
        worker.off("message", onMessage);
        reject(error);
      };
      worker.once("message", onMessage);
      worker.once("error", onError);
    });
  const { origin } = await next<{ origin: string }>();
  return {
    origin,
    patchServerTimes: async () => {
      const reply = next<number[]>();
      worker.postMessage("times");
      return reply;
    },
    getPaths: async () => {
      const reply = next<string[]>();
      worker.postMessage("gets");
      return reply;
    },
    close: async () => {
      const done = next<string>();
      worker.postMessage("close");
      await done;
      await worker.terminate();
    },
  };
}

async function serve(scenario: ScenarioOptions, answers: AnswerMode): Promise<void> {
  const started = new WeakMap<IncomingMessage, bigint>();
  let times: number[] = [];
  subscribe("http.server.request.start", (message) => {
    const { request } = message as { request: IncomingMessage };
    if (request.method === "PATCH") started.set(request, process.hrtime.bigint());
  });
  subscribe("http.server.response.finish", (message) => {
    const { request } = message as { request: IncomingMessage };
    const start = started.get(request);
    if (start !== undefined) times.push(Number(process.hrtime.bigint() - start) / 1e6);
  });
  const emulator = await startEmulator({
    seed: generateScenario(scenario).live,
    rateLimits: "off",
    answers,
  });
  parentPort!.on("message", async (message: string) => {
    if (message === "times") {
      parentPort!.postMessage(times);
      times = [];
    } else if (message === "gets") {
      const gets = emulator.requestLog().filter((e) => e.method === "GET");
      parentPort!.postMessage(gets.map((e) => (e.query ? `${e.path}?${e.query}` : e.path)));
    } else if (message === "close") {
      await emulator.close();
      parentPort!.postMessage("closed");
    }
  });
  parentPort!.postMessage({ origin: emulator.origin });
}

if (!isMainThread && (workerData as { scenario?: ScenarioOptions })?.scenario) {
  const data = workerData as { scenario: ScenarioOptions; answers?: AnswerMode };
  await serve(data.scenario, data.answers ?? "contract");
}
