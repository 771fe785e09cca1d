/**
 * The fast reader catches only its own hand-over (and js-yaml's refusal of a text, which it
 * turns into one): any other error inside it is a bug and reaches the caller as one, instead
 * of passing for a slow path behind a correct answer. No input known today makes the reader
 * fail, so js-yaml is replaced here, to fail in the middle of the reader's walk as a bug in
 * it would.
 */
import { describe, expect, it, vi } from "vitest";
import { ConfigError } from "../../../src/config/issues.js";
import { loadConfig } from "../../../src/config/load.js";
import { readPlainYaml } from "../../../src/config/yaml/fast-reader.js";
import { parseYaml } from "../../../src/config/yaml/read.js";

const FAILS = "fails-in-the-fast-reader";

vi.mock("js-yaml", async (importOriginal) => {
  const jsYaml = await importOriginal<typeof import("js-yaml")>();
  return {
    ...jsYaml,
    getScalarValue: (text: string, event: never) => {
      if (text.includes(FAILS)) throw new TypeError("Cannot read properties of undefined (reading 'x')");
      return jsYaml.getScalarValue(text, event);
    },
  };
});

const config = `# ${FAILS}\nversion: 1\ninsertion_orders: []\n`;

describe("a failure inside the fast reader", () => {
  it("is thrown, not handed to the full reader", () => {
    expect(() => readPlainYaml(config, "c.yaml")).toThrow(TypeError);
    expect(() => parseYaml(config, "c.yaml")).toThrow(/reading 'x'/);
  });

  it("reaches the caller of loadConfig as the error it is, not as a ConfigError", async () => {
    const error = await loadConfig(["doohctl.yaml"], {
      cwd: "/w",
      readFile: async () => new TextEncoder().encode(config),
      listDirectory: async () => undefined,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(error).not.toBeInstanceOf(ConfigError);
  });

  it("still hands over what it does not read, and a text js-yaml refuses", () => {
    expect(readPlainYaml("a: !tag 1\n", "c.yaml")).toBeUndefined();
    expect(readPlainYaml("a: [1\n", "c.yaml")).toBeUndefined();
    expect(readPlainYaml("version: 1\n", "c.yaml")?.value).toEqual({ version: 1 });
  });
});
