/**
 * stdout and stderr as sinks that never end a run (docs/safety.md#output-and-pipelines): the
 * first failed write of a stream is kept and every later one dropped, whether the stream
 * reports it as an 'error' event (a pipe: EPIPE) or throws (a synchronous file write). The
 * built CLI in real pipelines: test/proof/pipeline-signals.test.ts.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { processSink, stdoutIsProse } from "../../src/cli/process-output.js";

/** A stream that takes `accepted` writes, then fails each later one with `code`, as a pipe whose reader died. */
function failingPipe(accepted: number, code: string) {
  const written: string[] = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      if (written.length < accepted) {
        written.push(chunk);
        done();
      } else done(Object.assign(new Error(`write ${code}`), { code }));
    },
  });
  return { stream, written };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("processSink", () => {
  it("keeps the first failure of a pipe, drops every later write and never throws", async () => {
    const { stream, written } = failingPipe(1, "EPIPE");
    const sink = processSink(stream);
    sink.write("plan\n");
    sink.write("progress\n");
    await tick();
    expect(sink.failure()).toBe("EPIPE");
    // Without the sink's listener this event would end the process (exit code 1).
    expect(stream.listenerCount("error")).toBe(1);
    sink.write("report\n");
    await tick();
    expect(written).toEqual(["plan\n"]);
    expect(sink.failure()).toBe("EPIPE");
  });

  it("keeps a failure a synchronous write throws, and writes nothing after it", () => {
    const written: string[] = [];
    const sink = processSink({
      write(text: string) {
        if (written.length > 0) throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
        written.push(text);
      },
      on: () => undefined,
      isTTY: false,
    });
    sink.write("a\n");
    sink.write("b\n");
    sink.write("c\n");
    expect(written).toEqual(["a\n"]);
    expect(sink.failure()).toBe("ENOSPC");
  });

  it("says nothing failed while every write went through, and reports the stream's terminal width", async () => {
    const { stream } = failingPipe(10, "EPIPE");
    const sink = processSink(Object.assign(stream, { isTTY: true, columns: 120 }));
    sink.write("ok\n");
    await tick();
    expect(sink.failure()).toBeUndefined();
    expect(sink.isTTY).toBe(true);
    expect(sink.columns).toBe(120);
  });

  it("breaks a line too long for the terminal at a space, never mid-word, and leaves a pipe's lines whole", () => {
    const message =
      "insertion_orders[0].campaigns[2]: a campaign needs a name: add name, unique within its insertion order";
    const screen: string[] = [];
    const terminal = processSink(
      {
        write: (t: string) => screen.push(t),
        on: () => {},
        isTTY: true,
        columns: 40,
      },
      true,
    );
    terminal.write(`${message}\n  hint: the campaign names already taken are listed above\n`);
    expect(screen.join("")).toBe(
      [
        "insertion_orders[0].campaigns[2]: a",
        "  campaign needs a name: add name,",
        "  unique within its insertion order",
        "  hint: the campaign names already taken",
        "    are listed above",
        "",
      ].join("\n"),
    );
    for (const line of screen.join("").split("\n")) expect(line.length).toBeLessThanOrEqual(40);
    const piped: string[] = [];
    processSink({ write: (t: string) => piped.push(t), on: () => {}, isTTY: false, columns: 40 }, true).write(
      `${message}\n`,
    );
    expect(piped.join("")).toBe(`${message}\n`);
    // Data on a terminal (JSON, YAML, a diff) is never broken: a copy from the screen must parse.
    const data: string[] = [];
    processSink({ write: (t: string) => data.push(t), on: () => {}, isTTY: true, columns: 40 }).write(
      `${message}\n`,
    );
    expect(data.join("")).toBe(`${message}\n`);
  });

  it("counts colour codes as no width and leaves a progress redraw (\\r, erase) as it is", () => {
    const screen: string[] = [];
    const terminal = processSink(
      {
        write: (t: string) => screen.push(t),
        on: () => {},
        isTTY: true,
        columns: 22,
      },
      true,
    );
    terminal.write("\x1b[1mdoohctl plan:\x1b[22m 2 to add\n");
    terminal.write("\r[#####     ] 5/10 reads, 3s left\x1b[K");
    expect(screen).toEqual([
      "\x1b[1mdoohctl plan:\x1b[22m 2 to add\n",
      "\r[#####     ] 5/10 reads, 3s left\x1b[K",
    ]);
  });
});

describe("stdoutIsProse", () => {
  it("wraps text output, never JSON, Markdown or a command whose stdout is YAML, JSON or a diff", () => {
    expect(stdoutIsProse(["plan", "conf"])).toBe(true);
    expect(stdoutIsProse(["status", "--format", "text"])).toBe(true);
    expect(stdoutIsProse(["plan", "--format", "json"])).toBe(false);
    expect(stdoutIsProse(["plan", "--format=markdown"])).toBe(false);
    expect(stdoutIsProse(["export", "--campaign", "5001"])).toBe(false);
    expect(stdoutIsProse(["pull"])).toBe(false);
    expect(stdoutIsProse(["schema"])).toBe(false);
  });
});
