/**
 * A fleet for scale-out tests: the MongoDB wire emulator (documents), a private Redis Cluster (counters), and N real
 * Keyward server processes (src/main.ts) on both, as N instances behind a load balancer would run.
 */
import { emulatorUrl, startMongoEmulator as startEmulator } from "../../scripts/mongo-emulator.mjs";
import { startRedisCluster, type RedisClusterHandle } from "../../scripts/redis-cluster.mjs";
import { startServerProcess, tempDataDir, type ServerProcess } from "../cli/keyward-cli.js";

/** Starts the emulator on a free port (scripts/mongo-emulator.mjs); `url(db)` names one of its databases. */
export async function startMongoEmulator(options: { timeoutMs?: number } = {}): Promise<{ url: (db: string) => string; stop(): Promise<void> }> {
  const emulator = await startEmulator({ startTimeoutMs: options.timeoutMs ?? 120_000 });
  return { url: (db) => emulatorUrl(emulator.port, db), stop: emulator.stop };
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
    // Each store is stopped on the way out as soon as it is up, so one that fails to start leaves the other stopped.
    const starts = [
      startMongoEmulator().then((mongo) => (cleanups.push(() => mongo.stop()), mongo)),
      startRedisCluster().then((cluster) => (cleanups.push(() => cluster.stop()), cluster)),
    ] as const;
    await Promise.allSettled(starts);
    const [mongo, cluster] = await Promise.all(starts);
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

