/**
 * `npm run demo`: the story of doohctl on the embedded emulator. Grows with each feature; it
 * runs only what exists and says what it ran.
 */
import { run } from "../src/cli/program.js";

const io = {
  stdout: { write: (text: string) => void process.stdout.write(text), isTTY: process.stdout.isTTY === true },
  stderr: { write: (text: string) => void process.stderr.write(text), isTTY: process.stderr.isTTY === true },
  env: process.env,
  cwd: process.cwd(),
};

process.stdout.write("== doohctl --version\n");
process.exitCode = await run(["--version"], io);
