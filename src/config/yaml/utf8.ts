/** A config file's bytes as text: UTF-8, or an issue that says where it is not. */
import type { ConfigIssue, ConfigIssueCode } from "../issues.js";

/** Decodes UTF-8 (a BOM is allowed) or reports where the first invalid byte is. */
export function decodeUtf8(bytes: Uint8Array, file: string): { text: string } | { issue: ConfigIssue } {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return {
      issue: fileIssue(file, "NOT_UTF8", "file is UTF-16; save it as UTF-8 (YAML configs are UTF-8)"),
    };
  }
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    return { text };
  } catch (error) {
    // The fatal decoder's refusal; anything else is not about the bytes.
    if (!(error instanceof TypeError)) throw error;
    const bad = firstInvalidUtf8(bytes);
    const before = new TextDecoder("utf-8").decode(bytes.subarray(0, bad));
    const lines = before.split("\n");
    return {
      issue: {
        file,
        line: lines.length,
        column: (lines.at(-1)?.length ?? 0) + 1,
        path: "",
        message: `byte 0x${(bytes[bad] ?? 0).toString(16).padStart(2, "0")} at offset ${bad} is not UTF-8: save the file as UTF-8`,
        code: "NOT_UTF8",
      },
    };
  }
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const length =
      b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (length === 0 || i + length > bytes.length) return i;
    for (let k = 1; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += length;
  }
  return i;
}

function fileIssue(file: string, code: ConfigIssueCode, message: string): ConfigIssue {
  return { file, line: 0, column: 0, path: "", message, code };
}
