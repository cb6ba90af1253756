/**
 * A fleet for scale-out tests: the MongoDB wire emulator (documents), a private Redis Cluster (counters), and N real
 * Keyward server processes (src/main.ts) on both, as N instances behind a load balancer would run.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { startRedisCluster, type RedisClusterHandle } from "../../scripts/redis-cluster.mjs";
import { REPO_ROOT, startServerProcess, tempDataDir, type ServerProcess } from "../cli/keyward-cli.js";
import { freePort } from "../support/free-port.js";

/**
 * The emulator's run.sh: `$KEYWARD_MONGO_EMULATOR`, else `../shared/mongo-emulator/run.sh` beside the repository
 * (CI), else two levels up (a git worktree under `wt/<name>`).
 */
export function mongoEmulatorScript(): string {
  const candidates = [
    process.env.KEYWARD_MONGO_EMULATOR,
    resolve(REPO_ROOT, "..", "shared", "mongo-emulator", "run.sh"),
    resolve(REPO_ROOT, "..", "..", "shared", "mongo-emulator", "run.sh"),
  ].filter((path): path is string => Boolean(path));
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`MongoDB emulator not found; looked at ${candidates.join(", ")}`);
  return found;
}

/** Starts the emulator on a free port; resolves once it listens. `stop()` ends it (SIGTERM, then SIGKILL). */
export async function startMongoEmulator(options: { timeoutMs?: number } = {}): Promise<{ url: (db: string) => string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn("bash", [mongoEmulatorScript(), String(port)], { stdio: ["ignore", "pipe", "pipe"], detached: false });
  let output = "";
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`mongo emulator did not listen within ${options.timeoutMs ?? 120_000} ms: ${output}`)), options.timeoutMs ?? 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes("listening on")) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    void exited.then(() => {
      clearTimeout(timer);
      fail(new Error(`mongo emulator exited: ${output}`));
    });
  });
  return {
    url: (db) => `mongodb://127.0.0.1:${port}/${db}?serverMonitoringMode=poll`,
    async stop() {
      process.removeListener("exit", killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface Fleet {
  cluster: RedisClusterHandle;
  instances: ServerProcess[];
  rootKey: string;
  /** The environment every instance runs with (MONGODB_URL, REDIS_URL, KEYWARD_ROOT_KEY). */
  env: Record<string, string>;
  /** Starts one more instance on the same stores. */
  addInstance(): Promise<ServerProcess>;
  stop(): Promise<void>;
}

/**
 * Starts the emulator, a Redis Cluster and `count` Keyward processes on them (the first alone, so it bootstraps), each
 * with `env` added to its environment.
 */
export async function startFleet(options: { count: number; db: string; env?: Record<string, string> }): Promise<Fleet> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const [mongo, cluster] = await Promise.all([startMongoEmulator(), startRedisCluster()]);
    cleanups.push(() => mongo.stop(), () => cluster.stop());
    const rootKey = "kw_root_fleet_0123456789abcdef";
    const env = { ...options.env, MONGODB_URL: mongo.url(options.db), REDIS_URL: cluster.url, KEYWARD_ROOT_KEY: rootKey };
    const instances: ServerProcess[] = [];
    const addInstance = async () => {
      const dirs = await tempDataDir();
      cleanups.push(() => dirs.remove());
      const server = await startServerProcess({ dataDir: dirs.dataDir, env, timeoutMs: 30_000 });
      cleanups.push(() => server.stop());
      instances.push(server);
      return server;
    };
    await addInstance();
    await Promise.all(Array.from({ length: options.count - 1 }, () => addInstance()));
    return { cluster, instances, rootKey, env, addInstance, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

