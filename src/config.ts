import { parseRedisUrl } from "./store/redis/redis-url.js";

/** Keyward's configuration, read from environment variables (DESIGN.md §2). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  mongodbUrl?: string;
  /** One server (`redis://`), a cluster (`redis+cluster://h1:p1,h2:p2`) or a Sentinel master (`redis+sentinel://h1:p1,h2:p2/name`). */
  redisUrl?: string;
  /** Replicas that must hold a counter change before it is answered (Redis WAIT); 0 = answer once the master has it. */
  redisReplicaAcks: number;
  rootKey?: string;
  encryptionKey?: Buffer;
  docsUrl: string;
  /** On SIGTERM/SIGINT, how long requests already received may take to finish before connections are dropped. */
  shutdownGraceMs: number;
}

/** Parses the environment; throws with a clear message for values that cannot work. */
export function readConfig(env: Record<string, string | undefined>): Config {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${env.PORT}`);
  let encryptionKey: Buffer | undefined;
  if (env.KEYWARD_ENCRYPTION_KEY) {
    encryptionKey = Buffer.from(env.KEYWARD_ENCRYPTION_KEY, "base64");
    if (encryptionKey.length !== 32) throw new Error("KEYWARD_ENCRYPTION_KEY must be 32 bytes, base64-encoded");
  }
  if (env.KEYWARD_ROOT_KEY !== undefined && !/^[\x21-\x7e]{16,512}$/.test(env.KEYWARD_ROOT_KEY)) {
    throw new Error("KEYWARD_ROOT_KEY must be 16 to 512 printable characters without spaces");
  }
  // Checked here so a malformed REDIS_URL stops the start with its reason (the parser never echoes a password).
  if (env.REDIS_URL) parseRedisUrl(env.REDIS_URL);
  const redisReplicaAcks = Number(env.KEYWARD_REDIS_REPLICA_ACKS ?? 0);
  if (!Number.isInteger(redisReplicaAcks) || redisReplicaAcks < 0 || redisReplicaAcks > 16) {
    throw new Error(`KEYWARD_REDIS_REPLICA_ACKS must be a whole number from 0 to 16, got ${env.KEYWARD_REDIS_REPLICA_ACKS}`);
  }
  const shutdownGraceMs = Number(env.KEYWARD_SHUTDOWN_GRACE_MS ?? 10_000);
  if (!Number.isInteger(shutdownGraceMs) || shutdownGraceMs < 0) {
    throw new Error(`KEYWARD_SHUTDOWN_GRACE_MS must be a whole number of milliseconds, got ${env.KEYWARD_SHUTDOWN_GRACE_MS}`);
  }
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    dataDir: env.KEYWARD_DATA_DIR ?? "./data",
    mongodbUrl: env.MONGODB_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisReplicaAcks,
    rootKey: env.KEYWARD_ROOT_KEY || undefined,
    encryptionKey,
    docsUrl: (env.KEYWARD_DOCS_URL ?? "https://keyward.dev/docs").replace(/\/+$/, ""),
    shutdownGraceMs,
  };
}
