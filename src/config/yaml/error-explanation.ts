/** `yaml`'s errors as what to do: a value that needs quotes, a tab, a key twice, a second document. */
import { MAX_NESTING_DEPTH } from "../../model/json-depth.js";
import type { ConfigIssueCode } from "../issues.js";

export function explainYamlError(
  code: string,
  message: string,
  text: string,
  pos: [number, number],
): { code: ConfigIssueCode; message: string; hint?: string | undefined } {
  // yaml's own recursion gives out at a few thousand levels: the limit says what to do.
  if (message.includes("Maximum call stack size exceeded")) {
    return {
      code: "NESTING_TOO_DEEP",
      message: `YAML: nested too deep to read: a config value (a pacing too) nests at most ${MAX_NESTING_DEPTH} maps and lists; flatten it`,
    };
  }
  switch (code) {
    // Text YAML reads as syntax (": " inside, a start of @ or `, text after a quote): in a
    // `key: value` line's value, not inline, quoting the whole value is the fix.
    case "BLOCK_AS_IMPLICIT_KEY": {
      const value = lineValue(text, pos[0]);
      if (
        value !== undefined &&
        pos[0] >= value.start &&
        value.text.includes(": ") &&
        !/^[[{"']/.test(value.text)
      ) {
        return {
          code: "YAML_SYNTAX",
          message:
            'YAML: this value holds ": ", which YAML reads as a key of a map: put the whole value in quotes',
          hint: `write ${yamlQuoted(value.text)}`,
        };
      }
      break;
    }
    case "BAD_SCALAR_START": {
      const value = lineValue(text, pos[0]);
      if (value !== undefined && pos[0] === value.start) {
        return {
          code: "YAML_SYNTAX",
          message: `YAML: a value cannot start with ${text.charAt(pos[0])} unquoted: put the whole value in quotes`,
          hint: `write ${yamlQuoted(value.text)}`,
        };
      }
      break;
    }
    case "UNEXPECTED_TOKEN": {
      const value = lineValue(text, pos[0]);
      if (
        !message.startsWith("Unexpected scalar at node end") ||
        value === undefined ||
        pos[0] <= value.start
      )
        break;
      if (/^["']/.test(value.text)) {
        return {
          code: "YAML_SYNTAX",
          message: "YAML: text follows a quoted value: put the whole value in quotes",
          hint: `write ${yamlQuoted(value.text)}`,
        };
      }
      if (/^[[{]/.test(value.text)) {
        return {
          code: "YAML_SYNTAX",
          message:
            "YAML: text follows the closing bracket: remove it, or put the whole value in quotes if it is text",
        };
      }
      break;
    }
    case "TAB_AS_INDENT":
      return { code: "TAB_INDENT", message: "a tab indents this line: YAML indents with spaces only" };
    case "DUPLICATE_KEY": {
      // The error points at the repeated key; its name runs to the colon on that line.
      const written = (text.slice(pos[0]).split("\n")[0] ?? "").split(":")[0]?.trim() ?? "";
      const key = /^(["'])(.*)\1$/.exec(written)?.[2] ?? written;
      return {
        code: "DUPLICATE_KEY",
        message: `key "${key}" appears twice in this map: keep one (the YAML would silently drop the other)`,
      };
    }
    case "MULTIPLE_DOCS":
      return {
        code: "YAML_SYNTAX",
        message: "a config file holds one YAML document: remove this `---` or split the file in two",
      };
  }
  // yaml's own messages are precise; keep the first line, without its position suffix.
  return {
    code: "YAML_SYNTAX",
    message: `YAML: ${message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "")}`,
  };
}

/** The value of the `key: value` line holding `offset`, without a comment, and where it starts. */
function lineValue(text: string, offset: number): { text: string; start: number } | undefined {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const lineEnd = text.indexOf("\n", offset);
  const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd).replace(/\r$/, "");
  const key = /^\s*(?:-\s+)?[A-Za-z_][\w-]*:\s+/.exec(line);
  if (key === null) return undefined;
  const value = withoutComment(line.slice(key[0].length)).trimEnd();
  return value === "" ? undefined : { text: value, start: lineStart + key[0].length };
}

/** `text` up to a ` #` comment that is not inside quotes. */
export function withoutComment(text: string): string {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote === '"' && char === "\\") i++;
    else if (quote !== undefined && char === quote) quote = undefined;
    else if (quote === undefined && (char === '"' || char === "'")) quote = char;
    else if (quote === undefined && char === "#" && /\s/.test(text[i - 1] ?? " ")) return text.slice(0, i);
  }
  return text;
}

/** `"text"`, or `'text'` where that needs no escapes (`'"Q4" launch'`). */
function yamlQuoted(value: string): string {
  const double = JSON.stringify(value);
  return double.includes("\\") && !value.includes("'") && !/[\\\p{Cc}]/u.test(value) ? `'${value}'` : double;
}
