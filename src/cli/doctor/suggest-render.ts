/**
 * `--suggest-dialect` as text (docs/doctor.md): the `dialect:` block to paste, valid YAML
 * whichever key is uncommented (every group is written; one of comments only is null, the
 * defaults), and what no key can express.
 */
import { DEFAULT_DIALECT, dialectValue } from "../../model/dialect.js";
import { printable } from "../../model/printable.js";
import type { KeyFinding } from "./suggest.js";

/** Whether a finding's value goes in the block: seen to differ, or kept from the config. */
const written = (f: KeyFinding) =>
  f.status === "established" ||
  (f.status === "not established" && f.value !== dialectValue(DEFAULT_DIALECT, f.key));

/** The `dialect:` mapping to paste, in the config's own form: only the keys written. */
export function suggestedDialect(findings: readonly KeyFinding[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const finding of findings.filter(written)) {
    const [group, member] = finding.key.split(".") as [string, string | undefined];
    if (member === undefined) out[group] = finding.value;
    else out[group] = { ...(out[group] as object | undefined), [member]: finding.value };
  }
  return out;
}

/** A finding as a YAML comment: what was seen, or what to ask. */
function note(f: KeyFinding): string {
  const detail = printable(f.detail);
  if (f.status === "holds") return `holds (the default): ${detail}`;
  if (f.status === "established") return `established: ${detail}`;
  if (f.status === "unused") return detail;
  const kept = written(f) ? "kept from the config; " : "";
  return `could not establish (${kept}${detail}). Ask the DSP's support: ${f.ask ?? ""}`;
}

/**
 * The `dialect:` block to paste: values as JSON strings (`null`, `yes` stay strings), keys not
 * written as comments saying why; what differs beyond any key (`outside`) first.
 */
export function renderSuggestion(
  findings: readonly KeyFinding[],
  header: readonly string[],
  outside: readonly string[] = [],
): string {
  const value = (f: KeyFinding) => (f.value === null ? "null" : JSON.stringify(f.value));
  const lines = header.map((h) => `# ${printable(h)}`);
  if (outside.length > 0) {
    lines.push(
      "# Outside what a dialect can express: this DSP differs where no key adapts it, so doohctl",
      "# cannot work with it as it is, whatever the block below says. Tell the DSP's operator:",
      ...outside.map((o) => `#   - ${printable(o)}`),
    );
  }
  lines.push("dialect:");
  const groups = new Set<string>();
  for (const f of findings) {
    const [group, member] = f.key.split(".") as [string, string | undefined];
    const line = (indent: string, name: string) =>
      written(f)
        ? `${indent}${name}: ${value(f)}  # ${note(f)}`
        : `${indent}# ${name}: ${value(f)}  # ${note(f)}`;
    if (member === undefined) {
      lines.push(line("  ", f.key));
      continue;
    }
    if (!groups.has(group)) {
      groups.add(group);
      lines.push(`  ${group}:`);
    }
    lines.push(line("    ", member));
  }
  return `${lines.join("\n")}\n`;
}
