/**
 * Spawning, waiting for and stopping the servers under load. Each server runs in its own child
 * process (the bench process must not compete with it for the CPU beyond parsing results), writes its
 * output to a log file instead of a pipe (reading a pipe would cost the bench CPU during the load), and
 * is killed when the bench exits for any reason.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { connect as tcpConnect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root; server entries are relative to it. */
export const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/** How to start one server: a TypeScript entry run by tsx, plus extra env. */
export interface ServerSpec {
  entry: string;
  env?: Record<string, string>;
  /** Start a private redis-server for this server and pass it as REDIS_URL. */
  redis?: boolean;
  /** HTTP/2-only servers (the gRPC references) are ready when they accept a connection, not on GET /v2/liveness. */
  readyByConnect?: boolean;
  /** Extra node options before the script (e.g. `--import` of a preload). */
  nodeArgs?: string[];
}

export interface RunningServer {
  baseUrl: string;
  port: number;
  rootKey: string;
  logPath: string;
  /** The server's KEYWARD_DATA_DIR. */
  dataDir: string;
  pid: number;
  /** SIGTERM, then SIGKILL after a grace period; removes the data dir. Never rejects. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
const tempDirs = new Set<string>();
let exitHookInstalled = false;

/**
 * Kills `child` with SIGKILL when this process exits (normally, by an uncaught error or by the
 * SIGINT/SIGTERM handlers this installs), so no server or h2load outlives the bench.
 */
export function killOnExit(child: ChildProcess): void {
  live.add(child);
  child.once("exit", () => live.delete(child));
  installExitHook();
}

/** Makes a temp dir (`prefix` + random) that is removed when this process exits, at the latest. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  installExitHook();
  return dir;
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const c of live) c.kill("SIGKILL");
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      console.error(`\nbench: ${signal}, stopping child processes`);
      process.exit(130);
    });
  }
}

/** A TCP port that was free a moment ago (the OS picks it; the server binds it right after). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", resolve);
  });
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port from the OS");
  return address.port;
}

/** What users run for `npm start`: the server from its prebuilt bundle (bin/import-built.mjs). */
const KEYWARD_ENTRY = "src/main.ts";
const KEYWARD_START = "bin/keyward-server.mjs";

/**
 * The script node runs for `entry`: Keyward exactly as `npm start` runs it, and any other entry (the bare handlers
 * and the hand-rolled peers) bundled by esbuild into .cache/bench/ the same way, so that no row pays for tsx's
 * loader and transforms (under tsx every closure also gets a defineProperty for its name) and all rows run alike.
 */
async function runnableEntry(entry: string): Promise<string> {
  if (entry === KEYWARD_ENTRY) return KEYWARD_START;
  const outfile = join(repoRoot, ".cache", "bench", `${basename(entry, ".ts")}.mjs`);
  const esbuild = await import("esbuild");
  try {
    // Packages stay imports, resolved from the repository's node_modules (.cache/ is inside it): as a user would run them.
    await esbuild.build({
      entryPoints: [join(repoRoot, entry)], outfile, bundle: true, packages: "external",
      platform: "node", format: "esm", target: "node20", logLevel: "warning",
    });
  } finally {
    await esbuild.stop();
  }
  return outfile;
}

/**
 * Starts `process.execPath <entry, built>` (see runnableEntry) with PORT, HOST, a fresh KEYWARD_DATA_DIR and a random
 * KEYWARD_ROOT_KEY, and resolves once `GET <readyPath>` answers 200. Rejects (after killing the child)
 * if the child exits first or `timeoutMs` passes, quoting the end of its log. With `traceGc`, node runs with
 * `--trace-gc-nvp`, so the log also holds a record of every GC (read by gc-trace.ts).
 */
export async function startServer(
  spec: ServerSpec,
  { readyPath = "/v2/liveness", timeoutMs = 30_000, traceGc = false }: { readyPath?: string; timeoutMs?: number; traceGc?: boolean } = {},
): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = tempDir("keyward-bench-");
  const logPath = join(dataDir, "server.log");
  const rootKey = `kw_bench_${randomBytes(12).toString("hex")}`;
  const serverDataDir = join(dataDir, "data");
  const logFd = openSync(logPath, "a");
  const script = await runnableEntry(spec.entry);
  const child = spawn(process.execPath, [...(traceGc ? ["--trace-gc-nvp"] : []), ...(spec.nodeArgs ?? []), script], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...spec.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      KEYWARD_DATA_DIR: serverDataDir,
      KEYWARD_ROOT_KEY: rootKey,
    },
    stdio: ["ignore", logFd, logFd],
  });
  closeSync(logFd);
  killOnExit(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const log = tail(logPath);
      await stop();
      throw new Error(`${spec.entry} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${log}`);
    }
    try {
      if (spec.readyByConnect) {
        await accepts(port);
        return { baseUrl, port, rootKey, logPath, dataDir: serverDataDir, pid: child.pid as number, stop };
      }
      const res = await fetch(baseUrl + readyPath, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.status === 200) return { baseUrl, port, rootKey, logPath, dataDir: serverDataDir, pid: child.pid as number, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const log = tail(logPath);
  await stop();
  throw new Error(`${spec.entry} not ready on ${baseUrl + readyPath} within ${timeoutMs} ms:\n${log}`);
}

/** CPU time (user + system) `pid` has used so far, in ms, from /proc/<pid>/stat; undefined off Linux. */
export function cpuTimeMs(pid: number): number | undefined {
  try {
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th of the whole line.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1_000) / clockTicksPerSecond();
  } catch {
    return undefined;
  }
}

let ticks: number | undefined;
function clockTicksPerSecond(): number {
  ticks ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  return ticks;
}

/** Resolves once something accepts a TCP connection on `port`. */
function accepts(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, "127.0.0.1", () => {
      socket.destroy();
      resolve();
    });
    socket.once("error", reject);
  });
}

/** The last few KB of a log file, for error messages. */
export function tail(path: string, bytes = 4_000): string {
  try {
    const text = readFileSync(path, "utf8");
    return text.slice(-bytes);
  } catch {
    return "(no log)";
  }
}

/** A positive number from the environment, or `fallback` when unset; throws on anything else. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}
