import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The suite runs every file of a worker in one module graph (isolate: false in the vitest configs, for speed). That
 * stays correct only while no file changes what the next file sees: module mocks, stubbed globals or env, fake
 * timers, a changed process.env or working directory. Inject the clock, config or dependency instead.
 */
const ROOT = new URL("../..", import.meta.url).pathname;
const FORBIDDEN: [RegExp, string][] = [
  [/\bvi\.(do)?mock\(/, "vi.mock"],
  [/\bvi\.stub(Global|Env)\(/, "vi.stubGlobal / vi.stubEnv"],
  [/\bvi\.useFakeTimers\(/, "vi.useFakeTimers"],
  [/\bprocess\.env(\.\w+|\[[^\]]+\])\s*=[^=]/, "an assignment to process.env"],
  [/\bdelete process\.env\b/, "delete process.env"],
  [/\bprocess\.chdir\(/, "process.chdir"],
];
/** globalSetup files run in vitest's main process, not in a worker; this file names the patterns. */
const EXEMPT = ["test/setup/", "test/suite/shared-module-graph.test.ts"];

/** The .ts files under `dir` (relative to the repository) that a worker may load. */
function workerFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => path.endsWith(".ts") && !EXEMPT.some((prefix) => path.startsWith(prefix)));
}

/** `file:line uses what` for every forbidden use in `files`. */
function violations(files: string[]): string[] {
  return files.flatMap((file) =>
    readFileSync(join(ROOT, file), "utf8").split("\n").flatMap((line, index) =>
      FORBIDDEN.filter(([pattern]) => pattern.test(line)).map(([, what]) => `${file}:${index + 1} uses ${what}`),
    ),
  );
}

describe("files sharing one module graph", () => {
  it("no test file or helper mocks modules, stubs globals, env or timers, or changes process.env or the directory", () => {
    const files = [...workerFiles("test"), ...workerFiles("bench").filter((f) => f.endsWith(".test.ts"))];
    expect(files.length).toBeGreaterThan(400);
    expect(violations(files)).toEqual([]);
  });

  it("the check finds each forbidden use", () => {
    const samples = ['vi.mock("x")', 'vi.stubEnv("A", "1")', "vi.useFakeTimers()", 'process.env.PORT = "1"', "delete process.env.X", "process.chdir(dir)"];
    expect(samples.map((line) => FORBIDDEN.some(([pattern]) => pattern.test(line)))).toEqual(samples.map(() => true));
    expect(FORBIDDEN.some(([pattern]) => pattern.test('if (process.env.PORT === "1") {}'))).toBe(false);
  });
});
