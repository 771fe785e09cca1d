import type { CliIO } from "../../src/cli/io.js";

/** A CliIO over string buffers, for running commands in-process. */
export function bufferIO(
  options: { env?: Record<string, string>; cwd?: string; tty?: boolean; answer?: string } = {},
): CliIO & { out(): string; err(): string } {
  let out = "";
  let err = "";
  const tty = options.tty ?? false;
  return {
    stdout: {
      write: (text) => {
        out += text;
      },
      isTTY: tty,
    },
    stderr: {
      write: (text) => {
        err += text;
      },
      isTTY: tty,
    },
    env: { NO_COLOR: "1", ...options.env },
    cwd: options.cwd ?? process.cwd(),
    ...(options.answer !== undefined ? { prompt: async () => options.answer ?? "" } : {}),
    out: () => out,
    err: () => err,
  };
}
