import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { recordSecret, recordSecretsInJson, testLogDir } from "../support/secret-record.js";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = join(REPO_ROOT, "bin", "keyward.mjs");
/** The server's start on Node, as `npm start` runs it: src/main.ts from its prebuilt bundle. */
export const SERVER_BIN = join(REPO_ROOT, "bin", "keyward-server.mjs");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a child: this one's, minus anything that would point Keyward at another store or key. */
export function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env, ...vars };
  for (const name of ["MONGODB_URL", "REDIS_URL", "KEYWARD_ROOT_KEY", "KEYWARD_ENCRYPTION_KEY", "PORT"]) {
    if (!(name in vars)) delete env[name];
  }
  return env;
}

/** Root keys as the CLI and the bootstrap print them. */
const ROOT_KEY_TEXT = /\bkw_root_[1-9A-HJ-NP-Za-km-z]{16,}/g;

/**
 * For the end-of-run log check (test/setup/log-capture.ts): saves a child's log output to the run's log folder and
 * records the secrets in what it printed on purpose (root keys, as text or JSON) and in its environment.
 */
export function captureChild(options: { pid: number | undefined; kind: string; log: string; printed: string; env?: NodeJS.ProcessEnv }): void {
  const dir = testLogDir();
  if (!dir) return;
  for (const match of options.printed.matchAll(ROOT_KEY_TEXT)) recordSecret(match[0]);
  for (const line of options.printed.split("\n")) recordSecretsInJson(line.trim());
  recordSecretsInJson(options.printed.trim());
  recordSecret(options.env?.KEYWARD_ROOT_KEY);
  recordSecret(options.env?.KEYWARD_ENCRYPTION_KEY);
  recordSecret(options.env?.KEYWARD_METRICS_TOKEN);
  if (options.log) appendFileSync(join(dir, `${options.kind}-${options.pid ?? "unknown"}.log`), options.log);
}

/** Runs a command to completion and collects its output. */
export function run(command: string, args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? REPO_ROOT, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      // stdout is the command's answer (a new root key, on purpose); stderr is what it logs.
      captureChild({ pid: child.pid, kind: "cli", log: stderr, printed: stdout, env: options.env });
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the real CLI (`node bin/keyward.mjs ...`) as a child process on the given data dir. */
export function keyward(
  args: string[],
  options: { dataDir: string; cwd?: string; env?: Record<string, string> },
): Promise<CliResult> {
  const env = childEnv({ KEYWARD_DATA_DIR: options.dataDir, ...options.env });
  return run(process.execPath, [BIN, ...args], { cwd: options.cwd, env });
}

/** `keyward ... --json` that must succeed; returns the parsed output. */
export async function keywardJson<T = any>(args: string[], options: { dataDir: string }): Promise<T> {
  const result = await keyward([...args, "--json"], options);
  if (result.code !== 0) throw new Error(`keyward ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** A fresh temp dir; `dataDir` inside it does not exist yet. */
export async function tempDataDir(): Promise<{ root: string; dataDir: string; remove(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "keyward-cli-"));
  return { root, dataDir: join(root, "data"), remove: () => rm(root, { recursive: true, force: true }) };
}

export interface ServerProcess {
  pid: number;
  baseUrl: string;
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Starts the real server (`src/main.ts`, the way `npm start` does) as a child on the data dir with PORT=0, and learns
 * the port it bound from its "listening" line. Gives up after `timeoutMs` if that line never comes. `root` is a copy
 * of the repository to start instead of this one.
 */
export function startServerProcess(
  options: { dataDir: string; timeoutMs?: number; env?: Record<string, string>; root?: string },
): Promise<ServerProcess> {
  const env = childEnv({ KEYWARD_DATA_DIR: options.dataDir, PORT: "0", HOST: "127.0.0.1", ...options.env });
  const root = options.root ?? REPO_ROOT;
  const child = spawn(process.execPath, [join(root, "bin", "keyward-server.mjs")], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  // The server's whole output is log output (the bootstrap's one-time root key display is allowed by the check).
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => {
    captureChild({ pid: child.pid, kind: "server-process", log: output, printed: output, env });
    resolve(code);
  }));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not report listening within ${options.timeoutMs ?? 20_000} ms:\n${output}`));
    }, options.timeoutMs ?? 20_000);
    const onData = (chunk: string) => {
      output += chunk;
      const match = /listening on (https?:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        pid: child.pid!,
        baseUrl: match[1],
        output: () => output,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          return exited;
        },
      });
    };
    child.stdout.setEncoding("utf8").on("data", onData);
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${output}`));
    });
  });
}
