/**
 * Which test files import src/ afresh (vitest's `isolate`, vitest.config.ts). Every other file
 * shares one module graph per worker with the files run before it, which spares each file the
 * import of src/ and the compiling of the JSON schemas, so it must leave nothing process-wide
 * behind: no module mock, no fake timers, no process listener, no change of directory, of
 * process.env or of a global. isolation.test.ts holds every shared file to that.
 */

/** Files kept isolated, each for the reason given. */
export const ISOLATED_FILES: Record<string, string> = {
  "test/config/yaml-failure.test.ts": "mocks a module",
  "test/apply/recovery-race.test.ts": "mocks a module",
  "test/cli/progress.test.ts": "fakes timers",
  "test/cli/read-progress.test.ts": "fakes timers",
  "test/api/state-files.test.ts": "listens to process warnings",
  "test/cli/state-files.test.ts": "listens to process warnings",
};

/** The isolated files, for vitest's `include` and `exclude`. */
export const ISOLATED = Object.keys(ISOLATED_FILES);

/** Whether `file` (a path from the repository's root, with `/`) is isolated. */
export const isIsolated = (file: string) => file in ISOLATED_FILES;

/** What a shared file must not do: each pattern names it. */
export const PROCESS_WIDE: Record<string, RegExp> = {
  "a module mock": /\bvi\s*\.\s*(do)?[mM]ock\s*\(/,
  "fake timers": /\bvi\s*\.\s*(useFakeTimers|setSystemTime)\s*\(/,
  "a process listener": /\bprocess\s*\.\s*(on|once|addListener|prependListener)\s*\(/,
  "a change of directory": /\bprocess\s*\.\s*chdir\s*\(/,
  "a change of process.env":
    /\bprocess\.env\s*(\.\s*\w+|\[[^\]]+\])\s*=[^=]|\bdelete\s+process\.env\b|\bvi\s*\.\s*stubEnv\s*\(/,
  "a stubbed global": /\bvi\s*\.\s*stubGlobal\s*\(/,
  "a process-wide umask": /\bprocess\s*\.\s*umask\s*\(\s*[^)\s]/,
};
