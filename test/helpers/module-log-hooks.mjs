// Module hooks for a child node process: appends every resolved module URL to the file named
// by DOOHCTL_MODULE_LOG, so a test can see what a command line loaded (test/cli/startup.test.ts).
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(process.env.DOOHCTL_MODULE_LOG, `${resolved.url}\n`);
  return resolved;
}
