/**
 * The last line of defence: whatever the yaml package throws on (none known today; the
 * merge-loop TypeError was one) reaches the user as a located ConfigError, never a crash.
 * The yaml package, not our code, is replaced here, to throw as an unknown bug would.
 */
import { describe, expect, it, vi } from "vitest";
import { ConfigError } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";

const THROWS = "throw-in-yaml";

vi.mock("yaml", async (importOriginal) => {
  const yaml = await importOriginal<typeof import("yaml")>();
  return {
    ...yaml,
    parseDocument: (text: string, options: never) => {
      const doc = yaml.parseDocument(text, options);
      if (!text.includes(THROWS)) return doc;
      // A tree the converter cannot walk, as a future yaml release might hand us.
      return new Proxy(doc, {
        get: (target, key, receiver) => {
          if (key === "contents") {
            const contents = Reflect.get(target, key, receiver) as object;
            return new Proxy(contents, {
              get: (inner, name, r) => {
                if (name === "items")
                  throw new TypeError("Cannot read properties of undefined (reading 'x')");
                return Reflect.get(inner, name, r);
              },
            });
          }
          return Reflect.get(target, key, receiver);
        },
      });
    },
  };
});

describe("a failure inside the yaml package", () => {
  it("becomes a ConfigError at the document's start that names the failure and what to do", async () => {
    const text = `# ${THROWS}\n\nversion: 1\ninsertion_orders: []\n`;
    const loading = loadConfig(["doohctl.yaml"], {
      cwd: "/w",
      readFile: async () => new TextEncoder().encode(text),
      listDirectory: async () => undefined,
    });
    const error = await loading.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([
      {
        file: "doohctl.yaml",
        line: 3,
        column: 1,
        path: "",
        message:
          "YAML: this document could not be read (TypeError: Cannot read properties of undefined (reading 'x')): simplify its anchors, aliases and `<<` merge keys, and please report it as a doohctl bug",
        code: "YAML_SYNTAX",
      },
    ]);
  });
});
