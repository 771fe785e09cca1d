/**
 * The emulator's throughput baseline: a bare node:http server in a worker thread, as the
 * emulator runs in one, that answers every request with one precomputed body (a page the
 * emulator answered) and does nothing else. Loopback, HTTP parsing and the load generator
 * cost what they cost for both; what the emulator adds is the difference.
 */
import { Worker } from "node:worker_threads";

const SERVER = `
const { createServer } = require("node:http");
const { parentPort, workerData } = require("node:worker_threads");
const body = Buffer.from(workerData.body);
const server = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    response.end(body);
  });
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage("http://127.0.0.1:" + server.address().port));
parentPort.on("message", () => server.close(() => parentPort.postMessage("closed")));
`;

export interface BareServer {
  origin: string;
  close(): Promise<void>;
}

/** Starts a server answering `body` to every request, in a worker thread of its own. */
export async function startBareServer(body: Uint8Array): Promise<BareServer> {
  const worker = new Worker(SERVER, { eval: true, workerData: { body } });
  const origin = await new Promise<string>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return {
    origin,
    close: async () => {
      const closed = new Promise((resolve) => worker.once("message", resolve));
      worker.postMessage("close");
      await closed;
      await worker.terminate();
    },
  };
}
