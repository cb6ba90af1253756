/**
 * Builds the ioredis client for a parsed REDIS_URL (single server, Redis Cluster or Sentinel) with the options that
 * make the counters fail closed: no command is queued while disconnected, none is re-sent after its connection
 * dropped (a re-sent counter script could count twice), and every command is bounded in time.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";
import type { RedisTarget } from "./redis-url.js";

/** One Redis server (possibly found through Sentinel) or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

export interface ClientSettings {
  name?: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
}

/** Reconnect quickly at first, then at most every 2 s, forever: Redis coming back must heal the service. */
const backoff = (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 6), 2_000);

/** Options every connection to a data node gets (for a cluster: every node connection). */
function nodeOptions(settings: ClientSettings): RedisOptions {
  return {
    connectionName: settings.name,
    connectTimeout: settings.connectTimeoutMs,
    commandTimeout: settings.commandTimeoutMs,
    // 0: commands pending when the connection closes are rejected on that close, not after a retry.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  };
}

/** True when `redis` is a Cluster client (ioredis marks it with `isCluster`). */
export function isCluster(redis: RedisClient): redis is Cluster {
  return (redis as { isCluster?: boolean }).isCluster === true;
}

/** A client that has not connected yet (`lazyConnect`); `connect()` starts it. */
export function newRedisClient(target: RedisTarget, settings: ClientSettings): RedisClient {
  const base = nodeOptions(settings);
  if (target.kind === "single") {
    return new Redis(target.url, { ...base, lazyConnect: true, enableOfflineQueue: false, retryStrategy: backoff });
  }
  const auth = {
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.tls ? { tls: {} } : {}),
  };
  if (target.kind === "sentinel") {
    return new Redis({
      ...base,
      ...auth,
      sentinels: target.sentinels,
      name: target.masterName,
      db: target.db,
      sentinelUsername: target.sentinelUsername,
      sentinelPassword: target.sentinelPassword,
      enableTLSForSentinelMode: target.tls,
      // Listen for +switch-master so a failover is followed at once, not only when the old master stops answering.
      failoverDetector: true,
      sentinelRetryStrategy: backoff,
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: backoff,
    });
  }
  const options: ClusterOptions = {
    lazyConnect: true,
    // The cluster-level queue: while the cluster is not ready a command rejects at once (503), nothing waits.
    // Node connections keep ioredis' own queue (they connect lazily), bounded by commandTimeout.
    enableOfflineQueue: false,
    // MOVED/ASK/TRYAGAIN answers mean the command did not run, so following them is safe (ioredis does).
    // A command whose connection closed may have run: never retry it (0 turns that retry off), nor wait
    // through CLUSTERDOWN while a failover is under way; the caller answers 503 and the client retries.
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 0,
    retryDelayOnTryAgain: 50,
    maxRedirections: 16,
    slotsRefreshTimeout: Math.min(settings.commandTimeoutMs, 1_000),
    slotsRefreshInterval: 2_000,
    clusterRetryStrategy: backoff,
    redisOptions: { ...base, ...auth },
  };
  return new Cluster(target.nodes, options);
}
