import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, childEnv, REPO_ROOT, run, tempDataDir } from "./keyward-cli.js";

// How operators start it: `npx keyward` in the repository, or the bin file from anywhere (Node 20, no build step).
describe("bin/keyward.mjs", () => {
  let dirs: Awaited<ReturnType<typeof tempDataDir>>;
  beforeAll(async () => void (dirs = await tempDataDir()));
  afterAll(() => dirs.remove());

  it("runs as `npx keyward` from the repository root, passing the exit code through", async () => {
    const env = childEnv({ KEYWARD_DATA_DIR: dirs.dataDir });
    const help = await run("npx", ["--no-install", "keyward", "help"], { cwd: REPO_ROOT, env });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: keyward <command> \[options\]\n/);
    const unknown = await run("npx", ["--no-install", "keyward", "frobnicate"], { cwd: REPO_ROOT, env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("keyward: unknown command: frobnicate\n");
  });

  it("runs from another working directory, resolving a relative KEYWARD_DATA_DIR against it", async () => {
    const result = await run(process.execPath, [BIN, "workspace", "create", "--name", "elsewhere", "--json"], {
      cwd: dirs.root,
      env: childEnv({ KEYWARD_DATA_DIR: "relative-data" }),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).name).toBe("elsewhere");
    expect(existsSync(join(dirs.root, "relative-data", "LOCK"))).toBe(false);
    expect(existsSync(join(dirs.root, "relative-data"))).toBe(true);
    expect(existsSync(join(REPO_ROOT, "relative-data"))).toBe(false);
  });
});
