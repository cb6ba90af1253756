import { spawn } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { captureChild, childEnv, REPO_ROOT, startServerProcess, tempDataDir } from "./keyward-cli.js";

const ROOT_KEY = "kw_root_npm_start_0123456789abcdef";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A copy of the repository's runnable part (node_modules linked) whose sources a test may change: the real one is
 * shared with whoever else works in it.
 */
function repositoryCopy(root: string): string {
  const copy = join(root, "keyward");
  mkdirSync(copy);
  for (const path of ["src", "gen", "bin", "package.json", "package-lock.json", "tsconfig.json"]) {
    cpSync(join(REPO_ROOT, path), join(copy, path), { recursive: true });
  }
  symlinkSync(join(REPO_ROOT, "node_modules"), join(copy, "node_modules"));
  return copy;
}

describe("npm start", () => {
  let dirs: Awaited<ReturnType<typeof tempDataDir>>;
  const started: number[] = [];
  afterAll(async () => {
    for (const pid of started) if (alive(pid)) process.kill(pid, "SIGKILL");
    await dirs?.remove();
  });

  it("runs the server from its bundle, serves the committed OpenAPI document byte for byte, and stops cleanly on SIGTERM to npm", async () => {
    dirs = await tempDataDir();
    const env = childEnv({ KEYWARD_DATA_DIR: dirs.dataDir, PORT: "0", HOST: "127.0.0.1", KEYWARD_ROOT_KEY: ROOT_KEY });
    const npm = spawn("npm", ["start"], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      npm.on("close", (code, signal) => {
        captureChild({ pid: npm.pid, kind: "server-process", log: output, printed: output, env });
        resolve({ code, signal });
      }));
    npm.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    const listening = await new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not report listening within 30 s:\n${output}`)), 30_000);
      npm.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk;
        const match = /"pid":(\d+).*listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (!match) return;
        clearTimeout(timer);
        resolve(match);
      });
    });
    const serverPid = Number(listening[1]);
    started.push(serverPid);

    const served = await fetch(`${listening[2]}/v2/openapi.json`);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(readFileSync(join(REPO_ROOT, "gen", "openapi", "v2.json")))).toBe(true);

    // What a supervisor or `docker stop` does: the signal reaches the server through npm, which exits with it.
    npm.kill("SIGTERM");
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(output).toContain("Keyward stopped");
    expect(alive(serverPid)).toBe(false);
  }, 60_000);

  it("builds once for concurrent first starts, and rebuilds after a source change instead of running stale code", async () => {
    const copy = repositoryCopy(dirs.root);
    const bundles = () => readdirSync(join(copy, ".cache")).sort();
    const first = await Promise.all([1, 2, 3].map((n) => startServerProcess({ root: copy, dataDir: join(dirs.root, `data-${n}`), timeoutMs: 60_000 })));
    started.push(...first.map((server) => server.pid));
    // One bundle, whole: no start imported a half-written one, and none is left half-written.
    expect(bundles()).toEqual([expect.stringMatching(/^server-[0-9a-f]{16}$/)]);
    for (const server of first) {
      expect((await fetch(`${server.baseUrl}/v1/liveness`)).status).toBe(200);
      expect(await server.stop(), server.output()).toBe(0);
    }

    const main = join(copy, "src", "main.ts");
    writeFileSync(main, readFileSync(main, "utf8").replace("`Keyward listening on", "`Keyward (changed) listening on"));
    const changed = await startServerProcess({ root: copy, dataDir: join(dirs.root, "data-1"), timeoutMs: 60_000 });
    started.push(changed.pid);
    expect(changed.output()).toContain("Keyward (changed) listening on");
    expect(await changed.stop(), changed.output()).toBe(0);
    expect(bundles()).toHaveLength(2);
  }, 120_000);
});
